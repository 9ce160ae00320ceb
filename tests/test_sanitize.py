"""The sanitizer: terminal-active and invisible characters become visible escapes; nothing else changes."""

from __future__ import annotations

import dataclasses
import json
import sys
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from explorer import sanitize as sanitize_module
from explorer.sanitize import (
    DEFAULT_IGNORABLE,
    MAX_COMBINING,
    escaped_code_points,
    is_clean,
    json_escape_unsafe,
    sanitize,
    sanitize_line,
)
from tests.helpers.work import ScanSpy, count_steps

SCANS = ("multiline", "single_line", "run_scan", "run_tail", "astral")  # the sanitizer's compiled scans

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
# Default_Ignorable_Code_Point as DerivedCoreProperties.txt (Unicode 15.1) lists it, written out again here.
DI_WRITTEN_OUT = [
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180D), (0x180E, 0x180E), (0x180F, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x2064), (0x2065, 0x2065), (0x2066, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0000), (0xE0001, 0xE0001), (0xE0002, 0xE001F), (0xE0020, 0xE007F), (0xE0080, 0xE00FF),
    (0xE0100, 0xE01EF), (0xE01F0, 0xE0FFF),
]  # fmt: skip


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
        # Variation selectors are Default_Ignorable: VS16 makes a terminal draw a one-cell character two
        # cells wide, which Rich does not know, so the layout shifts (issue 9).
        ("emoji with variation selector \u2764\ufe0f", "emoji with variation selector \u2764\\ufe0f"),
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
        "emoji without a variation selector \u2764 \U0001f389",
        "Vietnamese stacks two marks: Tie\u0302\u0301ng Vie\u0323\u0302t",
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


def test_a_huge_string_sanitizes_without_a_python_loop_per_character() -> None:
    """Clean text costs a few C scans; hostile text costs Python work per unsafe character, not per char.

    (The time is measured by benchmarks/bench_sanitize.py against one scan of the same text.)
    """
    clean = "abc def " * 25_000
    hostile = ("hello\x1b[31m world\u202e ") * 11_200
    sanitize("\x1b")  # build the tables first: their one-off cost is not the text's
    for text, unsafe in ((clean, 0), (hostile, 2 * 11_200)):
        assert len(text) >= 200_000
        with count_steps() as steps:
            sanitize(text)
            sanitize(text, limit=None)
            is_clean(text)
        # Today: about 70 lines for the clean text, about 3.6 per unsafe character for the hostile one.
        assert steps.lines <= 300 + 10 * unsafe, (len(text), steps.lines)


def test_capped_sanitizing_does_not_scan_the_whole_string(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "x" * 5_000_000 + "\x1b"
    tables = sanitize_module._tables()
    scanned = [0]
    spied = dataclasses.replace(tables, **{name: ScanSpy(getattr(tables, name), scanned) for name in SCANS})
    monkeypatch.setattr(sanitize_module, "_tables", lambda: spied)
    assert sanitize(text, limit=100).endswith("[+4999901 chars]")
    # Only a window of about twice the limit can reach the output, so only that much is looked at.
    assert 100 <= scanned[0] <= 1_000, scanned[0]


# ---------------------------------------------------------------------------------------- properties


def _default_ignorable(code: int) -> bool:
    return any(low <= code <= high for low, high in DI_WRITTEN_OUT)


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


# Default_Ignorable characters outside the excluded categories (Mn variation selectors, Lo fillers) are
# escaped too, and a long run of combining marks is capped: neither is "printable" here.
printable = st.text(
    alphabet=st.characters(exclude_categories=("Cc", "Cs", "Cf", "Zl", "Zp", "Cn", "Mn", "Mc", "Me")).filter(
        lambda c: not _default_ignorable(ord(c))
    ),
    max_size=300,
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


# ------------------------------------------------------------------- Unicode properties (issue 9)


def _escaped(code: int) -> bool:
    return any(low <= code <= high for low, high in escaped_code_points())


def test_the_default_ignorable_table_is_unicodes() -> None:
    covered = {c for low, high in DEFAULT_IGNORABLE for c in range(low, high + 1)}
    written = {c for low, high in DI_WRITTEN_OUT for c in range(low, high + 1)}
    assert covered == written
    assert len(covered) == 4174  # "Total code points: 4174" in DerivedCoreProperties.txt


def test_every_format_control_separator_and_surrogate_character_is_escaped() -> None:
    missing = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in ("Cc", "Cf", "Cs", "Zl", "Zp") and not _escaped(code)
    ]
    assert not missing


def test_every_default_ignorable_character_is_escaped() -> None:
    for low, high in DI_WRITTEN_OUT:
        for code in range(low, high + 1):
            assert _escaped(code), f"U+{code:04X}"
            assert sanitize(chr(code)) != chr(code)


@pytest.mark.parametrize(
    "char",
    [
        "\u115f", "\u1160", "\u3164", "\uffa0",  # Hangul fillers: drawn wide, measured as nothing
        "\ufe0f", "\ufe00", "\U000e0100", "\U000e01ef",  # variation selectors
        "\u034f", "\u17b4", "\u17b5", "\u180f",  # grapheme joiner, Khmer inherent vowels, Mongolian FVS4
        "\u206a", "\u206f", "\ufff9", "\ufffb",  # deprecated format controls, annotation controls
        "\U000e0001", "\U000e0041", "\U000e007f",  # tags
        "\u0600", "\u06dd", "\U000110bd", "\U00013430",  # format characters that are not ignorable
        "\ufdd0", "\uffff", "\U0010ffff",  # noncharacters
    ],
)  # fmt: skip
def test_named_invisible_characters_are_escaped_visibly(char: str) -> None:
    name = f"srv{char}name"
    shown = sanitize_line(name)
    assert char not in shown and shown.startswith("srv\\") and shown.endswith("name")
    assert not is_clean(name)


def test_private_use_characters_are_glyphs_and_stay() -> None:
    assert sanitize("icon \ue0b0 \U000f0001") == "icon \ue0b0 \U000f0001"


def test_a_long_run_of_combining_marks_is_capped_per_base_character() -> None:
    zalgo = "e" + "\u0301" * 5000 + " ok"
    expected = "e" + "\u0301" * MAX_COMBINING + "[+4992 combining marks] ok"
    assert sanitize(zalgo, limit=None) == expected
    assert sanitize(zalgo) == expected
    assert sanitize_line(zalgo) == expected
    assert not is_clean(zalgo)
    several = ("a" + "\u0300\u0301\u0302" * 3) * 2  # nine mixed marks on each of two bases
    assert (
        sanitize(several) == ("a" + ("\u0300\u0301\u0302" * 3)[:MAX_COMBINING] + "[+1 combining marks]") * 2
    )
    eight = "a" + "\u0301" * MAX_COMBINING
    assert sanitize(eight) == eight and is_clean(eight)


def test_a_capped_text_never_lets_a_mark_run_through_whole() -> None:
    text = "x" * 10 + "\u0301" * 100_000 + "tail"
    assert sanitize(text, limit=30) == "x" * 10 + " … [+100004 chars]"  # the run's marker does not fit
    shown = sanitize(text, limit=60)
    assert shown == "x" * 10 + "\u0301" * MAX_COMBINING + "[+99992 combining marks]tail"
    late = "y" * 50 + "\u0301" * 5  # a run cut by the end of the scanned window is never longer than 8
    assert sanitize(late + "\u0301" * 1000, limit=52).count("\u0301") <= MAX_COMBINING


@given(hostile_text)
def test_no_run_of_more_than_the_cap_of_combining_marks_survives(text: str) -> None:
    for shown in (sanitize(text, limit=None), sanitize(text, limit=80), sanitize_line(text)):
        run = 0
        for char in shown:
            run = run + 1 if unicodedata.category(char).startswith("M") else 0
            assert run <= MAX_COMBINING


# ------------------------------------------------------------------------------------------ JSON form


@given(
    st.text(alphabet=st.one_of(st.characters(codec=None), st.sampled_from(sorted(FORBIDDEN))), max_size=200)
)
@example("\U000e0041\u206a\ufff9\ufe0f\u3164" + "\u0301" * 20)
def test_json_escaping_round_trips_exactly_and_leaves_nothing_raw(text: str) -> None:
    encoded = json_escape_unsafe(json.dumps({"k": text}, ensure_ascii=False, indent=2))
    assert json.loads(encoded) == {"k": text}
    assert all(not _escaped(ord(char)) for char in encoded if char != "\n")  # the indentation's newlines


def test_json_escapes_astral_characters_as_surrogate_pairs() -> None:
    assert json_escape_unsafe(json.dumps("a\U000e0041b", ensure_ascii=False)) == '"a\\udb40\\udc41b"'
    assert json_escape_unsafe('"\u206a\ufffb"') == '"\\u206a\\ufffb"'
    zalgo = json_escape_unsafe(json.dumps("e" + "\u0301" * 10, ensure_ascii=False))
    assert zalgo == '"e' + "\u0301" * MAX_COMBINING + '\\u0301\\u0301"'


def test_astral_marks_count_in_a_run_and_emoji_pass() -> None:
    adlam = "\U0001e922" + "\U0001e944" * 20  # Adlam letter with twenty combining marks (plane 1)
    assert sanitize(adlam) == "\U0001e922" + "\U0001e944" * MAX_COMBINING + "[+12 combining marks]"
    mixed = "a" + "\u0301\U0001e944" * 6  # twelve marks, BMP and astral alternating
    assert sanitize(mixed) == mixed[: 1 + MAX_COMBINING] + "[+4 combining marks]"
    party = "🎉" * 30 + "🚀\U0001f3fd"  # emoji and a skin-tone modifier are symbols, not marks
    assert sanitize(party) == party and is_clean(party)
    assert sanitize("x" * 5 + "𠀀" * 20 + "\U000e0041") == "x" * 5 + "𠀀" * 20 + "\\U000e0041"
