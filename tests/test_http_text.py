"""Mending an HTTP answer's bytes so the SDK's strict parser takes them: as over stdio, U+FFFD in place."""

from __future__ import annotations

import json

import pydantic_core
from hypothesis import given
from hypothesis import strategies as st

from explorer.connection.http_text import TextRepair, mended


def parsed(data: bytes) -> object:
    """What the SDK's parser (pydantic's) reads from `data`."""
    return pydantic_core.from_json(data)


def test_well_formed_bytes_pass_as_they_came() -> None:
    for data in (b'{"a": "b"}\n', '{"a": "é 😀"}'.encode()):
        assert mended(data) is data  # not even copied
    pair = b'{"a": "\\ud83d\\ude00 \\u00e9"}'
    assert mended(pair) == pair


def test_lone_surrogates_become_u_fffd_and_pairs_stay() -> None:
    assert parsed(mended(b'["\\ud800x"]')) == ["\ufffdx"]
    assert parsed(mended(b'["\\udc00"]')) == ["\ufffd"]
    assert parsed(mended(b'["a\\uD83D"]')) == ["a\ufffd"]  # upper-case hex, at the end of a string
    assert parsed(mended(b'["\\ud83d\\ud83d\\ude00"]')) == ["\ufffd😀"]  # a high one, then a pair
    assert parsed(mended(b'["\\ude00\\ud83d"]')) == ["\ufffd\ufffd"]  # a pair the wrong way round


def test_an_escaped_backslash_before_u_is_text_not_an_escape() -> None:
    data = b'["\\\\ud800", "\\\\\\ud800"]'  # a backslash then "ud800"; a backslash then a lone surrogate
    assert parsed(mended(data)) == ["\\ud800", "\\\ufffd"]


def test_bytes_that_are_not_utf8_become_u_fffd() -> None:
    assert parsed(mended(b'["bad \xff\xfe bytes", "\xc3"]')) == ["bad \ufffd\ufffd bytes", "\ufffd"]
    assert parsed(mended(b'["\xed\xa0\x80"]')) == ["\ufffd\ufffd\ufffd"]  # a surrogate in UTF-8 is not UTF-8


@given(st.lists(st.text(alphabet=st.characters(codec=None), max_size=20), max_size=8))
def test_any_string_javascript_could_write_is_read_with_u_fffd_for_lone_surrogates(texts: list[str]) -> None:
    data = json.dumps(texts).encode()  # ensure_ascii: lone surrogates escaped, as JSON.stringify does
    want = [u_fffd_for_lone_surrogates(text) for text in texts]
    assert parsed(mended(data)) == want


def u_fffd_for_lone_surrogates(text: str) -> str:
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


ESCAPE_TOKENS = ["\\\\", "\\ud83d", "\\ude00", "\\ud800", "\\udfff", "u", "d83d", "a", "\\n", '\\"', "é"]


@given(st.lists(st.sampled_from(ESCAPE_TOKENS)))
def test_escapes_and_backslashes_in_any_order_are_read_as_the_standard_library_reads_them(
    tokens: list[str],
) -> None:
    """Escapes written by hand, so that a backslash escaped before `ud83d` (text, not an escape), a pair, a
    high one then a high one, a low one alone all come: what `json.loads` reads, lone surrogates U+FFFD."""
    data = ('["' + "".join(tokens) + '", "\\\\u"]').encode()  # the second string: a backslash before u
    want = [u_fffd_for_lone_surrogates(text) for text in json.loads(data)]
    assert parsed(mended(data)) == want
    plain = ('["' + "".join(tokens) + '"]').encode()  # no backslash before a `\u` outside the tokens
    assert parsed(mended(plain)) == [u_fffd_for_lone_surrogates(json.loads(plain)[0])]


@given(
    st.lists(st.sampled_from(ESCAPE_TOKENS)), st.lists(st.integers(min_value=0, max_value=300), max_size=8)
)
def test_escapes_cut_anywhere_between_pieces_are_mended_as_whole(tokens: list[str], cuts: list[int]) -> None:
    data = ('["' + "".join(tokens) + '", "\\\\u", "' + "".join(tokens) + '"]').encode()
    points = sorted({min(cut, len(data)) for cut in cuts})
    pieces = [data[start:end] for start, end in zip([0, *points], [*points, len(data)], strict=True)]
    repair = TextRepair(most_held=1 << 20)
    assert b"".join(fed(repair, pieces)) + repair.rest() == mended(data)


def test_a_long_run_of_backslashes_before_text_and_a_lone_surrogate() -> None:
    """Its speed (it once cost the run's length squared) is shown by `benchmarks/bench_http_text.py`."""
    data = json.dumps(["\\" * 10_001 + "ud800", "\\u\ud800"]).encode()
    assert parsed(mended(data)) == ["\\" * 10_001 + "ud800", "\\u\ufffd"]


def fed(repair: TextRepair, pieces: list[bytes]) -> list[bytes]:
    return [repair.feed(piece) for piece in pieces]


@given(
    st.lists(st.sampled_from(["a", "é", "\ud800", "\udc00", "😀", "\\", '"', "\n"]), max_size=40),
    st.lists(st.integers(min_value=0, max_value=400), max_size=6),
)
def test_mended_piece_by_piece_is_mended_whole(chars: list[str], cuts: list[int]) -> None:
    """An event stream's lines may be cut anywhere between reads: the result is the same."""
    lines = [json.dumps("".join(chars)), json.dumps(chars), "data: " + json.dumps(chars, ensure_ascii=False)]
    body = "\n".join(lines).encode("utf-8", "surrogatepass") + b"\xff\n"
    points = sorted({min(cut, len(body)) for cut in cuts})
    pieces = [body[start:end] for start, end in zip([0, *points], [*points, len(body)], strict=True)]
    repair = TextRepair(most_held=1 << 20)
    assert b"".join(fed(repair, pieces)) + repair.rest() == mended(body)


def test_events_go_on_as_they_come_and_only_a_cut_escape_waits() -> None:
    repair = TextRepair(most_held=1 << 20)
    assert repair.feed(b'event: message\r\ndata: {"a": "\\ud800"}\r\n\r\n') == (
        b'event: message\r\ndata: {"a": "\\ufffd"}\r\n\r\n'
    )
    assert repair.feed(b'data: {"b": "x \\ud83d') == b'data: {"b": "x '  # half a pair, maybe: it waits
    assert repair.feed(b'\\ude00"}\r\r') == b'\\ud83d\\ude00"}\r\r'  # it was a pair: kept as it is
    assert repair.feed(b'data: {"c": "\\\\') == b'data: {"c": "'  # a backslash run waits whole
    assert repair.feed(b'\\ud800"}\n\n') == b'\\\\\\ufffd"}\n\n'  # odd: the third one escapes
    assert repair.feed(b'data: "\xe6\x97') == b'data: "'  # and half a UTF-8 character
    assert repair.feed(b'\xa5"\n\n') == '日"\n\n'.encode()
    assert repair.rest() == b""


def test_a_long_body_is_mended_a_piece_at_a_time_not_held_whole() -> None:
    """A 256 MiB answer was held whole, copied, then buffered again by the SDK."""
    repair = TextRepair(most_held=1 << 20)
    pieces = [b'{"a": "\\ud8', b'00", "b": "\xff', b'", "c": "' + b"x" * 100_000, b'"}']
    out = fed(repair, pieces)
    assert out[0] == b'{"a": "' and len(out[2]) > 100_000
    assert parsed(b"".join(out) + repair.rest()) == {"a": "\ufffd", "b": "\ufffd", "c": "x" * 100_000}


def test_bytes_with_nowhere_to_cut_go_on_as_they_came_past_the_bound() -> None:
    """An event stream opened with GET has no cap: its reader's own limit refuses what is not an event."""
    repair = TextRepair(most_held=10)
    assert repair.feed(b"\\\xff") == b""  # a backslash and a byte that is not UTF-8: no place to cut
    assert repair.feed(b"\xff" * 6) == b""
    assert repair.feed(b"\xff" * 6) == b"\\" + b"\xff" * 13  # as it came
    assert repair.feed(b"x\n") == b"x\n"
    assert repair.rest() == b""
