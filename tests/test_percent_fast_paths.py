"""`encode_keeping` and `decode_reserved` in one regex pass give what the character-by-character loops
they replaced gave, on any text; and matching a long URI against many templates does not redo their work.

The loops made a URI of 8,000 characters against 5,000 `{+path}` templates take 40 s of a core in the
go-to box; the references below are those loops, kept here as the definition of the answer.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from explorer.model.templates import percent
from explorer.model.templates.percent import RESERVED, URI_CHARS, decode_reserved, encode_keeping, pct

_HEX = frozenset("0123456789ABCDEFabcdef")


def reference_encode_keeping(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "%" and i + 2 < len(text) and text[i + 1] in _HEX and text[i + 2] in _HEX:
            out.append(text[i : i + 3])
            i += 3
            continue
        out.append(text[i] if text[i] in URI_CHARS else pct(text[i]))
        i += 1
    return "".join(out)


def reference_decode_reserved(text: str) -> str:
    pieces: list[str] = []
    percents: set[int] = set()
    i = 0
    while i < len(text):
        if text[i] != "%":
            pieces.append(text[i])
            i += 1
            continue
        j = i
        while j < len(text) and text[j] == "%":
            j += 3
        decoded = bytes.fromhex(text[i:j].replace("%", "")).decode("utf-8", errors="surrogateescape")
        for char in decoded:
            if char == "%":
                percents.add(len(pieces))
            if "\udc80" <= char <= "\udcff":
                pieces.append(f"%{ord(char) - 0xDC00:02X}")
            else:
                pieces.append(pct(char) if char in RESERVED or char == "%" else char)
        i = j
    tail = ""
    for index in range(len(pieces) - 1, -1, -1):
        if index in percents and not (len(tail) >= 2 and tail[0] in _HEX and tail[1] in _HEX):
            pieces[index] = "%"
        tail = (pieces[index] + tail)[:2]
    return "".join(pieces)


# Text made of what matters to both: percent signs, hex digits, reserved and unreserved characters,
# spaces, non-ASCII (two-, three- and four-byte UTF-8).
_PIECES = st.sampled_from(["%", "2", "5", "a", "F", "g", "/", "?", "#", "+", " ", "é", "中", "😀", "-", "~"])
_TEXT = st.lists(_PIECES, max_size=40).map("".join)
# A `+`/`#` value as a match gives it: characters a URI holds, every `%` starting a triplet.
_TRIPLETS = st.sampled_from(["%25", "%2F", "%2f", "%41", "%C3%A9", "%E4%B8%AD", "%FF", "%C3", "%F0%9F%98%80"])
_VALUE = st.lists(st.one_of(_TRIPLETS, st.sampled_from(list("ab2F/?#+-~:@"))), max_size=30).map("".join)


@given(_TEXT)
def test_encode_keeping_gives_what_the_loop_gave(text: str) -> None:
    assert encode_keeping(text) == reference_encode_keeping(text)


@given(_VALUE)
def test_decode_reserved_gives_what_the_loop_gave(text: str) -> None:
    assert decode_reserved(text) == reference_decode_reserved(text)


def test_a_decoded_percent_stays_encoded_only_before_two_hex_digits() -> None:
    assert decode_reserved("%2541") == "%2541" and decode_reserved("%25zz") == "%zz"
    assert decode_reserved("%25%41") == "%A" and decode_reserved("%25%2F") == "%%2F"
    assert decode_reserved("a%2Fb") == "a%2Fb" and decode_reserved("plain") == "plain"


def test_matching_one_long_uri_against_many_templates_decodes_its_value_once() -> None:
    """The work is counted, not timed: the same 8,000-character value is decoded once, not per template."""
    from explorer.model.entries import TemplateEntry
    from explorer.model.templates import match_all

    uri = "docs://a/" + "seg%20x/" * 990 + "end"
    templates = [TemplateEntry("s", f"docs://a/{{+p{i}}}", f"t{i}") for i in range(50)]
    memo = percent.decode_reserved
    memo.cache_clear()  # type: ignore[attr-defined]
    found = match_all(templates, uri)
    assert len(found) == 50
    assert {next(iter(m.values.values())) for m in found} == {"seg x/" * 990 + "end"}
    info = memo.cache_info()  # type: ignore[attr-defined]
    assert info.misses == 1 and info.hits >= 49
