"""What a server sent is what is shown: the JSON preview, `match`'s words, a text blob in its charset.

- JSON was pretty-printed through a `json.loads`/`json.dumps` round trip: `{"f": 1e400, "n": NaN}` showed
  `"f": Infinity` and took the invalid `NaN` as JSON, `{"a": 1, "a": 2}` showed `{"a": 2}`. Now a text is
  pretty-printed only when the pretty form says the same (numbers as written), else shown as sent with a
  note saying why.
- `match` checked that a value reads back before the sanitizer escaped or cut the word it printed: the
  word `'x=\\u202ex'` given to `expand` made another URI, with no note. The check is on the printed word.
- `text/plain; charset=latin-1` (or utf-16) bytes were a hex dump in the TUI ("not UTF-8") and a
  `[blob: ...]` line in `read`: they are decoded by the declared charset.
"""

from __future__ import annotations

import base64
import json
import shlex
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.app import App, ComposeResult
from textual.widgets import Static

from explorer.model.contents import Content, classify, classify_item
from explorer.model.contents.charsets import Decoded, declared_charset, decode_text
from explorer.widgets.preview import ContentPreview, TextView
from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def as_json(text: str, uri: str = "j://a") -> Content:
    return classify_item({"uri": uri, "mimeType": "application/json", "text": text})


# --- JSON: pretty only when faithful ---------------------------------------------------------------------


def test_infinity_and_nan_are_shown_as_sent_with_the_reason() -> None:
    sent = '{"f": 1e400, "n": NaN, "i": -Infinity}'
    c = as_json(sent)
    assert (c.kind, c.pretty_json, c.display_text) == ("text", None, sent)
    assert c.problem == (
        "a number JSON tools read differently: 1e400 (too large: read as infinity): "
        "shown as sent, not reformatted"
    )
    nan = as_json('{"n": NaN}')
    assert nan.display_text == '{"n": NaN}'
    assert nan.problem == "not strict JSON: NaN at line 1, column 7: shown as sent, not reformatted"
    inf = as_json('[\n  "NaN",\n  -Infinity\n]')
    assert inf.problem is not None and inf.problem.startswith(
        "not strict JSON: -Infinity at line 3, column 3"
    )


def test_a_duplicate_key_is_shown_as_sent_and_named_where_it_is() -> None:
    c = as_json('{"a": 1, "a": 2}')
    assert (c.kind, c.display_text) == ("text", '{"a": 1, "a": 2}')
    assert c.problem == (
        'duplicate key "a" at line 1, column 10 (a JSON reader keeps only one of its values): '
        "shown as sent, not reformatted"
    )
    escaped = as_json('[{"b": {"a": 1}}, {"a": 1,\n "\\u0061": 2}]')  # the same key, written otherwise
    assert escaped.problem is not None and 'duplicate key "a" at line 2, column 2' in escaped.problem
    # The same key in two objects is no duplicate.
    assert as_json('[{"a": 1}, {"a": 2}]').pretty_json == '[\n  {\n    "a": 1\n  },\n  {\n    "a": 2\n  }\n]'


def test_numbers_are_pretty_printed_as_written() -> None:
    c = as_json('{"p": 1.50, "e": 1E5, "z": -0, "big": 123456789012345678901234567890, "s": 2.5e-3}')
    assert c.kind == "json" and c.problem is None
    assert c.pretty_json == (
        '{\n  "p": 1.50,\n  "e": 1E5,\n  "z": -0,\n  "big": 123456789012345678901234567890,\n  "s": 2.5e-3\n}'
    )


def test_numbers_a_double_cannot_hold_are_said() -> None:
    tiny = as_json("[1e-400]")
    assert tiny.problem is not None and "1e-400 (too small: read as 0)" in tiny.problem
    assert as_json("[0e-400, 0.0]").pretty_json == "[\n  0e-400,\n  0.0\n]"  # written as 0: read as 0
    huge = as_json("[" + "9" * 400 + "]")
    assert huge.display_text == "[" + "9" * 400 + "]"
    assert (
        huge.problem is not None and "(400 digits, too large for a double: read as infinity)" in huge.problem
    )
    assert "9" * 61 not in huge.problem  # the number is cut in the note


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
_DOCUMENTS = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_DOCUMENTS, st.sampled_from([None, 2]))
def test_json_that_round_trips_is_laid_out_as_before(value: Any, indent: int | None) -> None:
    """The layout of every faithful document is `json.dumps(indent=2, ensure_ascii=False)`'s, as before."""
    sent = json.dumps(value, indent=indent)
    assert as_json(sent).pretty_json == json.dumps(json.loads(sent), indent=2, ensure_ascii=False)


def test_a_json_blob_gets_the_same_rules() -> None:
    c = classify_item({"uri": "j://a", "mimeType": "application/json", "blob": b64(b'{"a": 1, "a": 2}')})
    assert c.kind == "text" and c.text == '{"a": 1, "a": 2}' and c.problem is not None
    assert c.problem.startswith('duplicate key "a"')


# --- charsets ---------------------------------------------------------------------------------------------


def test_a_latin1_blob_is_text_decoded_from_its_charset() -> None:
    c = classify_item(
        {"uri": "c://charset", "mimeType": "text/plain; charset=latin-1", "blob": b64(b"caf\xe9")}
    )
    assert (c.kind, c.text, c.data, c.size) == ("text", "café", None, 4)
    assert c.problem == "decoded from the declared charset latin-1"


def test_utf16_and_other_spellings_of_the_parameter() -> None:
    utf16 = classify_item(
        {"uri": "b://u", "mimeType": "text/plain; charset=utf-16", "blob": b64("héllo".encode("utf-16"))}
    )
    assert (utf16.kind, utf16.text) == ("text", "héllo")
    quoted = classify_item(
        {"uri": "b://q", "mimeType": 'Text/Plain; Format=flowed; CHARSET="cp1252"', "blob": b64(b"\x80")}
    )
    assert (quoted.text, quoted.problem) == ("€", "decoded from the declared charset cp1252")
    markdown = classify_item(
        {
            "uri": "b://m",
            "mimeType": "text/markdown; charset=shift_jis",
            "blob": b64("# 日本".encode("shift_jis")),
        }
    )
    assert (markdown.kind, markdown.text) == ("markdown", "# 日本")
    as_json = classify_item(
        {"uri": "b://j", "mimeType": "application/json; charset=latin-1", "blob": b64(b'{"a":"\xe9"}')}
    )
    assert as_json.pretty_json == '{\n  "a": "é"\n}'


def test_utf8_declared_or_not_is_as_before() -> None:
    for mime in ("text/plain", "text/plain; charset=UTF-8", "text/plain; charset=utf8"):
        c = classify_item({"uri": "x://a", "mimeType": mime, "blob": b64("héllo".encode())})
        assert (c.kind, c.text, c.problem) == ("text", "héllo", None)
        bad = classify_item({"uri": "x://a", "mimeType": mime, "blob": b64(b"ab\xff")})
        assert bad.problem == "declared as text, but the bytes are not UTF-8 (invalid start byte at byte 2)"


def test_bytes_the_charset_does_not_hold_stay_bytes_with_the_charset_and_offset() -> None:
    c = classify_item({"uri": "x://a", "mimeType": "text/plain; charset=us-ascii", "blob": b64(b"abc\xe9d")})
    assert c.kind == "binary" and c.data == b"abc\xe9d"
    assert c.problem == (
        "declared as text, but the bytes are not us-ascii, the declared charset "
        "(ordinal not in range(128) at byte 3)"
    )
    odd = classify_item(
        {"uri": "x://a", "mimeType": "text/plain; charset=utf-16", "blob": b64(b"\xff\xfeh\x00i")}
    )
    assert odd.kind == "binary" and odd.problem is not None and "utf-16, the declared charset" in odd.problem


def test_a_capped_blob_in_a_two_byte_charset_is_cut_between_characters() -> None:
    data = "héllo".encode("utf-16") * 1000
    c = classify_item({"uri": "x://a", "mimeType": "text/plain; charset=utf-16", "blob": b64(data)}, cap=7)
    assert (c.kind, c.text, c.truncated, c.size) == ("text", "hé", True, len(data))


@pytest.mark.parametrize(
    ("charset", "why"),
    [
        ("nope", "the declared charset 'nope' is not one Python knows"),
        ("hex", "the declared charset 'hex' is not a charset (a Python codec)"),
        ("unicode_escape", "the declared charset 'unicode_escape' is not a charset (a Python codec)"),
        ("x" * 100, f"the declared charset '{'x' * 40}…' is no charset name"),
        ("a\x1bb", "the declared charset 'a\\x1bb' is no charset name"),
    ],
)
def test_a_charset_that_is_no_charset_is_refused_with_a_note(charset: str, why: str) -> None:
    mime = f"text/plain; charset={charset}"
    assert decode_text(b"\\x1b ok", mime) == Decoded("\\x1b ok", f"{why}: read as UTF-8")
    failed = decode_text(b"\xff", mime)
    assert failed.text is None and failed.note == (
        f"{why}; declared as text, but the bytes are not UTF-8 (invalid start byte at byte 0)"
    )


def test_declared_charset_reads_the_parameter() -> None:
    assert declared_charset("text/plain; charset=latin-1") == "latin-1"
    assert declared_charset('text/plain;CHARSET="utf-16"; x=y') == "utf-16"
    assert declared_charset("text/plain") is None and declared_charset(None) is None
    assert declared_charset("text/plain; format=flowed") is None


# --- the preview shows it ---------------------------------------------------------------------------------


class PreviewApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ContentPreview()


async def _shown(result: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(the text view's lines, the notes above it) once the preview shows `result`."""
    app = PreviewApp()
    async with app.run_test(size=(110, 20)) as pilot:
        await app.query_one(ContentPreview).show_contents("j://a", classify(result), server="s")
        with anyio.fail_after(30):
            while not app.query(TextView):
                await pilot.pause()
        await pilot.pause()
        lines = [line.rstrip() for line in app.query_one(TextView).visible_lines() if line.strip()]
        notes = [str(s.render()) for s in app.query(".preview-problem").results(Static)]
        return lines, notes


@pytest.mark.anyio
async def test_the_preview_shows_what_was_sent_and_says_why() -> None:
    lines, notes = await _shown(
        {"contents": [{"uri": "j://a", "mimeType": "application/json", "text": '{"a": 1, "a": 2}'}]}
    )
    assert lines == ['{"a": 1, "a": 2}']
    assert notes == [
        'duplicate key "a" at line 1, column 10 (a JSON reader keeps only one of its values): '
        "shown as sent, not reformatted"
    ]
    lines, notes = await _shown(
        {"contents": [{"uri": "c://a", "mimeType": "text/plain; charset=latin-1", "blob": b64(b"caf\xe9")}]}
    )
    assert lines == ["café"] and notes == ["decoded from the declared charset latin-1"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# --- the CLI ----------------------------------------------------------------------------------------------

SERVER = """
CONTENTS = json.loads(sys.argv[1])
TEMPLATES = json.loads(sys.argv[2])
def answer(method, params):
    if method == "resources/read":
        return {"contents": CONTENTS}
    if method == "resources/templates/list":
        return {"resourceTemplates": [{"uriTemplate": t, "name": t} for t in TEMPLATES]}
    if method == "resources/list":
        return {"resources": []}
    return None
"""


def server(tmp_path: Path, contents: object = (), templates: object = ()) -> str:
    return tiny_server(tmp_path, SERVER, json.dumps(contents), json.dumps(templates))


@pytest.mark.slow
def test_cli_read_prints_json_as_sent(tmp_path: Path) -> None:
    """`read` never reformatted JSON: it prints the text as sent, as the preview now shows it."""
    sent = '{"f": 1e400, "n": NaN, "a": 1, "a": 2, "p": 1.50}'
    spec = server(tmp_path, [{"uri": "j://a", "mimeType": "application/json", "text": sent}])
    result = run_cli("-s", spec, "read", "j://a")
    assert result.code == 0 and result.stdout == sent + "\n", result


@pytest.mark.slow
def test_cli_match_says_when_the_printed_word_does_not_expand_back(tmp_path: Path) -> None:
    spec = server(tmp_path, templates=["t://a/{x}"])
    bidi = run_cli("-s", spec, "match", "t://a/%E2%80%AEx")
    assert bidi.code == 0, bidi
    assert bidi.stdout.splitlines() == ["tiny_server.py  t://a/{x}  'x=\\u202ex'"]  # escaped, never raw
    assert "\u202e" not in bidi.stdout + bidi.stderr
    assert bidi.stderr.splitlines() == [
        "note: t://a/{x}: the value of x holds characters printed as escapes (control, bidi or invisible "
        "characters), so expanding the words shown gives another URI; match --json gives the exact value"
    ]
    exact = run_cli("-s", spec, "match", "--json", "t://a/%E2%80%AEx")
    assert json.loads(exact.stdout)["matches"][0]["values"] == {"x": "\u202ex"}  # what the note promises

    uri = "t://a/" + "v" * 4100
    long = run_cli("-s", spec, "match", uri)
    assert long.code == 0, long
    [word] = shlex.split(long.stdout.split("t://a/{x}  ", 1)[1])
    assert run_cli("expand", "t://a/{x}", word).stdout.strip() != uri  # so the note is needed
    assert long.stderr.splitlines() == [
        "note: t://a/{x}: the value of x is cut here at 4,000 characters, so expanding the words shown "
        "gives another URI; match --json gives the exact value"
    ]
    plain = run_cli("-s", spec, "match", "t://a/plain")
    assert (plain.stdout, plain.stderr) == ("tiny_server.py  t://a/{x}  x=plain\n", "")


@pytest.mark.slow
def test_cli_read_decodes_a_blob_in_its_declared_charset(tmp_path: Path) -> None:
    contents = [
        {"uri": "c://l", "mimeType": "text/plain; charset=latin-1", "blob": b64(b"caf\xe9")},
        {
            "uri": "c://u",
            "mimeType": "text/plain; charset=utf-16",
            "blob": b64("h\u202ello".encode("utf-16")),
        },
        {"uri": "c://bad", "mimeType": "text/plain; charset=ascii", "blob": b64(b"ab\xe9")},
        {"uri": "c://none", "mimeType": "text/plain", "blob": b64(b"plain")},
    ]
    result = run_cli("-s", server(tmp_path, contents), "read", "c://l")
    assert result.code == 0, result
    assert result.stdout.splitlines() == [
        "--- c://l (text/plain; charset=latin-1)",
        "café",
        "--- c://u (text/plain; charset=utf-16)",
        "h\\u202ello",  # sanitized as any text
        "--- c://bad (text/plain; charset=ascii)",
        "[blob: text/plain; charset=ascii, 3 bytes]",
        "--- c://none (text/plain)",
        "[blob: text/plain, 5 bytes]",  # no charset declared: as before
    ]
    assert result.stderr.splitlines() == [
        "note: c://l: decoded from the declared charset latin-1",
        "note: c://u: decoded from the declared charset utf-16",
        "warning: c://bad: declared as text, but the bytes are not ascii, the declared charset "
        "(ordinal not in range(128) at byte 2): printed as a blob",
    ]
