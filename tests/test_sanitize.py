"""The sanitizer: terminal-active and invisible characters become visible escapes; nothing else changes."""

from __future__ import annotations

import time
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from explorer.sanitize import is_clean, sanitize, sanitize_line

# The characters the design names (written out here, independently of the implementation's tables).
BIDI = {"\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}
INVISIBLE = {
    *map(chr, range(0x200B, 0x200E)),
    *map(chr, range(0x2060, 0x2065)),
    "\ufeff",
    "\u180e",
    "\u00ad",
    "\u2028",
    "\u2029",
}
FORBIDDEN = BIDI | INVISIBLE


def assert_safe(text: str, *, multiline: bool) -> None:
    allowed = {"\n", "\t"} if multiline else set()
    for char in text:
        assert unicodedata.category(char) not in ("Cc", "Cs") or char in allowed, repr(char)
        assert char not in FORBIDDEN, repr(char)


# ------------------------------------------------------------------------------------------- examples


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[2J", "\\x1b[2J"),
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
        ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "\\x1b]8;;http://x\\x1b\\link\\x1b]8;;\\x1b\\"),
        ("\x9b31m", "\\x9b31m"),
        ("abc\u202eexe.txt", "abc\\u202eexe.txt"),
        ("a\u200bb", "a\\u200bb"),
        ("nul\x00byte", "nul\\x00byte"),
        ("del\x7f", "del\\x7f"),
        ("over\rwrite", "over\\rwrite"),
        ("soft\u00adhyphen", "soft\\xadhyphen"),
        ("iso\u2066late\u2069", "iso\\u2066late\\u2069"),
        ("bom\ufeff", "bom\\ufeff"),
        ("line\u2028sep", "line\\u2028sep"),
        ("lone \ud800 surrogate", "lone \\ud800 surrogate"),
        ("tag \U000e0041", "tag \\U000e0041"),
    ],
)
def test_escapes(raw: str, shown: str) -> None:
    assert sanitize(raw) == shown
    assert sanitize_line(raw) == shown
    assert not is_clean(raw)


@pytest.mark.parametrize(
    "text",
    [
        "[@click=app.quit]x[/]",
        "[/b]",
        "plain ascii",
        "héllo wörld ✓ 日本語 🎉",
        "C:\\path\\with\\backslashes and \\x1b typed literally",
        "emoji with variation selector ❤️",
    ],
)
def test_printable_text_is_unchanged(text: str) -> None:
    assert sanitize(text) == text
    assert sanitize_line(text) == text
    assert is_clean(text)


def test_newlines_and_tabs_kept_in_multiline_and_escaped_in_a_line() -> None:
    text = "a\tb\nc"
    assert sanitize(text) == text
    assert is_clean(text)
    assert sanitize_line(text) == "a\\tb\\nc"
    assert sanitize(text, multiline=False) == "a\\tb\\nc"
    assert not is_clean(text, multiline=False)


def test_crlf_is_a_line_break_in_multiline_text_but_a_lone_cr_is_escaped() -> None:
    assert sanitize("one\r\ntwo\rthree\r") == "one\ntwo\\rthree\\r"
    assert sanitize("one\r\ntwo", limit=None) == "one\ntwo"
    assert sanitize_line("one\r\ntwo") == "one\\r\\ntwo"


def test_markup_is_not_the_sanitizers_business_but_escapes_inside_it_are() -> None:
    assert sanitize("[b]\x1b[31mred[/b]") == "[b]\\x1b[31mred[/b]"


# ----------------------------------------------------------------------------------------------- cap


def test_long_string_is_capped_with_a_marker_counting_dropped_chars() -> None:
    text = "x" * 200_000
    result = sanitize(text)
    assert result == "x" * 4000 + " … [+196000 chars]"
    assert sanitize_line(text) == "x" * 200 + " … [+199800 chars]"


def test_no_cap_with_limit_none() -> None:
    text = "y" * 10_000
    assert sanitize(text, limit=None) == text


def test_text_exactly_at_the_limit_is_not_marked() -> None:
    assert sanitize("abcd", limit=4) == "abcd"
    assert sanitize("a\x1b", limit=5) == "a\\x1b"
    assert sanitize("abcde", limit=4) == "abcd … [+1 chars]"


def test_cap_never_cuts_an_escape_in_half() -> None:
    # 3 plain chars, then ESC (4 chars as an escape) does not fit in a limit of 5.
    assert sanitize("abc\x1bdef", limit=5) == "abc … [+4 chars]"
    assert sanitize("abc\u202edef", limit=8) == "abc … [+4 chars]"
    assert sanitize("abc\u202edef", limit=9) == "abc\\u202e … [+3 chars]"


def test_cap_counts_characters_of_the_original() -> None:
    text = "\x1b" * 10
    result = sanitize(text, limit=8)
    assert result == "\\x1b\\x1b … [+8 chars]"


def test_limit_zero_and_negative() -> None:
    assert sanitize("", limit=0) == ""
    assert sanitize("ab", limit=0) == " … [+2 chars]"
    with pytest.raises(ValueError):
        sanitize("ab", limit=-1)


def test_a_huge_string_sanitizes_in_a_few_milliseconds() -> None:
    clean = "abc def " * 25_000
    hostile = ("hello\x1b[31m world\u202e ") * 11_200
    for text in (clean, hostile):
        assert len(text) >= 200_000
        start = time.perf_counter()
        sanitize(text)
        sanitize(text, limit=None)
        is_clean(text)
        elapsed = time.perf_counter() - start
        assert elapsed < 0.25, elapsed  # typically ~1 ms clean and ~10 ms hostile uncapped; slack for CI


def test_capped_sanitizing_does_not_scan_the_whole_string() -> None:
    text = "x" * 5_000_000 + "\x1b"
    start = time.perf_counter()
    assert sanitize(text, limit=100).endswith("[+4999901 chars]")
    assert time.perf_counter() - start < 0.05


# ---------------------------------------------------------------------------------------- properties

any_text = st.text(alphabet=st.characters(codec=None), max_size=300)
hostile_text = st.text(
    alphabet=st.one_of(
        st.characters(),
        st.sampled_from(sorted(FORBIDDEN)),
        st.characters(max_codepoint=0x9F),
        st.sampled_from(["\r", "\n", "\t", "\x1b", "\x9b", "\ud800", "\udfff"]),
    ),
    max_size=300,
)


@given(hostile_text)
@example("\x1b[2J\r\n\u202e\x00")
def test_output_never_holds_a_control_or_invisible_character(text: str) -> None:
    assert_safe(sanitize(text, limit=None), multiline=True)
    assert_safe(sanitize(text), multiline=True)
    assert_safe(sanitize_line(text, limit=None), multiline=False)
    assert_safe(sanitize(text, limit=50, multiline=False), multiline=False)


@given(hostile_text)
def test_is_clean_agrees_with_sanitize(text: str) -> None:
    assert is_clean(text) == (sanitize(text, limit=None) == text)
    assert is_clean(text, multiline=False) == (sanitize_line(text, limit=None) == text)


printable = st.text(
    alphabet=st.characters(exclude_categories=("Cc", "Cs", "Cf", "Zl", "Zp", "Cn")), max_size=300
)


@given(printable)
def test_printable_text_passes_through(text: str) -> None:
    assert sanitize(text, limit=None) == text
    assert sanitize_line(text, limit=None) == text


@given(hostile_text, st.integers(min_value=0, max_value=120), st.booleans())
@settings(max_examples=300)
def test_cap_holds_and_the_head_is_a_prefix_of_the_full_result(
    text: str, limit: int, multiline: bool
) -> None:
    full = sanitize(text, limit=None, multiline=multiline)
    capped = sanitize(text, limit=limit, multiline=multiline)
    if len(full) <= limit:
        assert capped == full
        return
    head, marker, dropped = capped.rpartition(" … [+")
    assert marker, capped
    assert dropped.endswith(" chars]")
    assert len(head) <= limit
    assert len(capped) <= limit + len(f" … [+{len(text)} chars]")
    assert full.startswith(head)  # cut between escapes, never inside one
    assert 0 < int(dropped.removesuffix(" chars]")) <= len(text)


@given(any_text)
def test_sanitizing_twice_changes_nothing_more(text: str) -> None:
    once = sanitize(text, limit=None)
    assert sanitize(once, limit=None) == once
