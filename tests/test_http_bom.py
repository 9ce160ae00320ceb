"""A UTF-8 BOM (EF BB BF) before a Streamable HTTP answer's JSON is skipped, as browsers and JSON clients do.

Before: a JSON answer (application/json, or an event's data) that began with a BOM was refused as not JSON
text ("it begins '\\ufeff{...'"), and its listing was lost. A body that is not JSON after its BOM is still
said to be not JSON text, with what it begins with.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, ClassVar

from explorer.connection.http_text import EventBoms, LeadingBom
from tests.helpers.loopback_http import JsonRpcHandler, tree_against

BOM = b"\xef\xbb\xbf"


class _Server(JsonRpcHandler):
    """`resources/list` is answered by `listed`."""

    server_name = "bom"
    listed: ClassVar[Callable[[_Server, object], None]]

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if "id" in message and method == "resources/list":
            type(self).listed(self, message["id"])
        else:
            super().answer(method, message)


def _page(ident: object) -> bytes:
    resources = [{"uri": "x://bom/first", "name": "first"}, {"uri": "x://bom/second", "name": "second"}]
    return json.dumps({"jsonrpc": "2.0", "id": ident, "result": {"resources": resources}}).encode()


def _tree(listed: Callable[[_Server, object], None]) -> tuple[int, str, str]:
    """The exit code, stdout and stderr of `tree` against a server answering resources/list so."""

    class Handler(_Server):
        pass

    Handler.listed = listed
    _, result = tree_against(Handler)
    return result.code, result.stdout, result.stderr


def test_a_json_answer_beginning_with_a_bom_is_read() -> None:
    def listed(handler: _Server, ident: object) -> None:
        handler.send(200, BOM + _page(ident))

    code, out, said = _tree(listed)
    assert code == 0, said
    assert "first" in out and "second" in out
    assert "not JSON text" not in said


def test_a_json_answer_with_a_bom_then_whitespace_in_a_utf8_charset_is_read() -> None:
    def listed(handler: _Server, ident: object) -> None:
        handler.send(200, BOM + b"\r\n  " + _page(ident), kind="application/json; charset=utf-8")

    code, out, said = _tree(listed)
    assert code == 0, said
    assert "first" in out and "second" in out


def test_an_event_whose_data_begins_with_a_bom_is_read() -> None:
    def listed(handler: _Server, ident: object) -> None:
        handler.send(200, b"event: message\ndata: " + BOM + _page(ident) + b"\n\n", kind="text/event-stream")

    code, out, said = _tree(listed)
    assert code == 0, said
    assert "first" in out and "second" in out


def test_an_event_stream_beginning_with_a_bom_is_read() -> None:
    """The event stream's own BOM (which the SSE format allows) before its first field."""

    def listed(handler: _Server, ident: object) -> None:
        handler.send(200, BOM + b"event: message\ndata: " + _page(ident) + b"\n\n", kind="text/event-stream")

    code, out, said = _tree(listed)
    assert code == 0, said
    assert "first" in out and "second" in out


def test_a_body_that_is_not_json_after_its_bom_is_still_said_to_be_not_json() -> None:
    def listed(handler: _Server, ident: object) -> None:
        handler.send(200, BOM + b"<!DOCTYPE html><html><body>Sign in</body></html>")

    code, _, said = _tree(listed)
    assert code == 1
    assert "the server's answer to resources/list is not JSON text: it begins " in said
    assert "<!DOCTYPE html>" in said


def _fed(skip: LeadingBom | EventBoms, body: bytes, cut: int) -> bytes:
    pieces = [skip.feed(body[at : at + cut]) for at in range(0, len(body), cut)]
    return b"".join(pieces) + skip.rest()


def test_a_bom_is_skipped_only_before_a_json_text_however_the_body_is_cut() -> None:
    inner = '{"name": "\ufeffkept"}'.encode()  # a BOM of the message's own, inside a string
    events = (
        b"\xef\xbb\xbfevent: message\r\ndata: " + BOM + inner + b"\r\n\r\n"
        b"data:" + BOM + b"{}\n\nid: data: " + BOM + b"\n\n" + b"data: " + BOM
    )
    wanted = (
        b"\xef\xbb\xbfevent: message\r\ndata: " + inner + b"\r\n\r\n"
        b"data:{}\n\nid: data: " + BOM + b"\n\n" + b"data: "
    )
    for cut in (1, 2, 3, 5, 7, 1000):
        assert _fed(EventBoms(), events, cut) == wanted, cut
        assert _fed(LeadingBom(), BOM + inner + BOM, cut) == inner + BOM, cut
        assert _fed(LeadingBom(), b" " + BOM + inner, cut) == b" " + BOM + inner, cut
        assert _fed(LeadingBom(), BOM[:2], cut) == BOM[:2], cut
