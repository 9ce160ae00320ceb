"""A UTF-8 BOM (EF BB BF) before a Streamable HTTP answer's JSON is skipped, as browsers and JSON clients do.

Before: a JSON answer (application/json, or an event's data) that began with a BOM was refused as not JSON
text ("it begins '\\ufeff{...'"), and its listing was lost. A body that is not JSON after its BOM is still
said to be not JSON text, with what it begins with.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import ClassVar

from explorer.connection.http_text import EventBoms, LeadingBom
from tests.helpers.cli import run_cli
from tests.helpers.loopback_http import QuietHandler, served

NEVER = "60"  # a request that waits for its timeout fails the run (`RUN_AT_MOST`), not just its text
RUN_AT_MOST = 45.0
BOM = b"\xef\xbb\xbf"


class _Server(QuietHandler):
    """Streamable HTTP in the handshake era, no session; `resources/list` is answered by `listed`."""

    listed: ClassVar[Callable[[_Server, object], None]]

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        method = message.get("method")
        if "id" not in message:
            self.send(202, b"")
        elif method == "resources/list":
            type(self).listed(self, message["id"])
        elif method == "server/discover":
            error = {"code": -32601, "message": "Method not found"}
            self.send(200, json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}).encode())
        else:
            result = {
                "initialize": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"resources": {}},
                    "serverInfo": {"name": "bom", "version": "1"},
                },
                "resources/templates/list": {"resourceTemplates": []},
            }.get(str(method), {})
            self.send(200, json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode())

    def do_GET(self) -> None:
        self.send(405, b"")

    def send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        if body:
            self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _page(ident: object) -> bytes:
    resources = [{"uri": "x://bom/first", "name": "first"}, {"uri": "x://bom/second", "name": "second"}]
    return json.dumps({"jsonrpc": "2.0", "id": ident, "result": {"resources": resources}}).encode()


def _tree(listed: Callable[[_Server, object], None]) -> tuple[int, str, str]:
    """The exit code, stdout and stderr of `tree` against a server answering resources/list so."""

    class Handler(_Server):
        pass

    Handler.listed = listed
    for url in served(Handler):
        result = run_cli("tree", "--timeout", NEVER, "-s", url, timeout=RUN_AT_MOST)
        assert "Traceback" not in result.stderr, result
        return result.code, result.stdout, result.stderr
    raise AssertionError("not served")


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
