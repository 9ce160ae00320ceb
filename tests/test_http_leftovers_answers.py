"""Streamable HTTP answers: not JSON text, in a declared charset, or naming another request where only a
parse of the whole answer (or another stream) tells.

Before: a gzip body sent without Content-Encoding was said in pydantic's words ("1 validation error for
union[JSONRPCRequest, ...]"); `charset=latin-1` text came out as U+FFFD (JSON) or mojibake (an event
stream); and an answer naming another request after a big result, or on the GET event stream, was dropped
and its request waited for the whole timeout.
"""

from __future__ import annotations

import gzip
import json
import queue
import threading
from collections.abc import Callable
from typing import Any, ClassVar

import mcp_types as types
import pytest
from mcp import MCPError
from mcp.shared.message import SessionMessage

from explorer.connection.answer_checks import AnswerCheck
from explorer.connection.errors import describe_exception
from explorer.connection.stray_answers import StrayAnswers
from tests.helpers.loopback_http import RUN_AT_MOST, JsonRpcHandler, tree_against

NAME = "Grüße ÿ café"


class _Server(JsonRpcHandler):
    """With a session and a GET event stream; `resources/list` is answered by `listed` (its request's id
    given), every other request as usual with JSON."""

    server_name = "answers"
    result_headers = (("Mcp-Session-Id", "s1"),)
    listed: ClassVar[Callable[[_Server, object], None]]
    events: ClassVar[queue.Queue[bytes]]
    stop: ClassVar[threading.Event]

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if "id" in message and method == "resources/list":
            type(self).listed(self, message["id"])
        else:
            super().answer(method, message)

    def do_GET(self) -> None:
        self.stream_events(self.events, self.stop)


def _listed_page(ident: object, count: int = 1) -> dict[str, object]:
    resources = [{"uri": f"x://a/{k}", "name": NAME} for k in range(count)]
    return {"jsonrpc": "2.0", "id": ident, "result": {"resources": resources}}


def _tree(listed: Callable[[_Server, object], None]) -> tuple[int, str, str]:
    """The exit code, stdout and stderr of `tree` against a server answering resources/list so."""

    class Handler(_Server):
        pass

    Handler.listed = listed
    Handler.events = queue.Queue()
    Handler.stop = threading.Event()
    _, result = tree_against(Handler, stopping=Handler.stop.set)
    return result.code, result.stdout, result.stderr


# ------------------------------------------------------------------------------------------ not JSON text


def test_a_gzip_body_without_content_encoding_is_said_to_be_one() -> None:
    def listed(handler: _Server, ident: object) -> None:
        handler.send(200, gzip.compress(json.dumps(_listed_page(ident)).encode()))

    code, _, said = _tree(listed)
    assert code == 1
    assert (
        "listing resources: the server's answer to resources/list is not JSON text: it begins with the "
        "bytes of a gzip stream (compressed, with no Content-Encoding to say so)"
    ) in said
    assert "validation error" not in said


def test_a_body_that_is_not_json_says_what_it_begins_with() -> None:
    def listed(handler: _Server, ident: object) -> None:
        handler.send(200, b"<!DOCTYPE html><html><body>Sign in</body></html>")

    code, _, said = _tree(listed)
    assert code == 1
    assert (
        "the server's answer to resources/list is not JSON text: it begins '<!DOCTYPE html><html><bo'…"
        in said
    )
    assert "validation error" not in said


# ------------------------------------------------------------------------------------------ charsets


@pytest.mark.parametrize("charset", ["latin-1", "ISO-8859-1", "windows-1252", "utf-16"])
def test_a_declared_charset_is_read_as_that_charset(charset: str) -> None:
    def listed(handler: _Server, ident: object) -> None:
        body = json.dumps(_listed_page(ident), ensure_ascii=False).encode(charset)
        handler.send(200, body, kind=f"application/json; charset={charset}")

    code, out, said = _tree(listed)
    assert code == 0, said
    assert NAME in out and "\ufffd" not in out


def test_an_event_stream_in_a_declared_charset_is_read_as_that_charset() -> None:
    def listed(handler: _Server, ident: object) -> None:
        page = json.dumps(_listed_page(ident), ensure_ascii=False)
        handler.send(
            200,
            f"event: message\ndata: {page}\n\n".encode("latin-1"),
            kind="text/event-stream; charset=latin-1",
        )

    code, out, said = _tree(listed)
    assert code == 0, said
    assert NAME in out and "\ufffd" not in out and "Ã" not in out


def test_an_unknown_charset_is_read_as_utf8_mended() -> None:
    def listed(handler: _Server, ident: object) -> None:
        page = json.dumps(_listed_page(ident), ensure_ascii=False).encode("utf-8")
        handler.send(200, page.replace(b"caf", b"\xffcaf"), kind="application/json; charset=x-unknown")

    code, out, said = _tree(listed)
    assert code == 0, said
    assert "Grüße ÿ \ufffdcafé" in out


# ------------------------------------------------------------------------------------------ answer ids


def test_an_answer_naming_another_request_after_a_big_result_fails_at_once() -> None:
    def listed(handler: _Server, ident: object) -> None:
        page = json.dumps({"jsonrpc": "2.0", "result": _listed_page(ident, 5000)["result"], "id": 9999})
        handler.send(200, page.encode())

    code, _, said = _tree(listed)
    assert code == 1
    assert "listing resources: the server's answer to request " in said
    assert " is an answer to request 9999" in said and "timeout" not in said


def test_an_answer_naming_another_request_on_the_get_stream_fails_at_once() -> None:
    """The POST's own event stream stays open with nothing on it; the answer comes on the GET stream."""

    def listed(handler: _Server, ident: object) -> None:
        handler.events.put(f"event: message\ndata: {json.dumps(_listed_page(9999))}\n\n".encode())
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()
        handler.wfile.flush()
        handler.stop.wait(RUN_AT_MOST)

    code, _, said = _tree(listed)
    assert code == 1
    assert "listing resources: the server's answer to request " in said
    assert " is an answer to request 9999" in said and "timeout" not in said


def test_an_answer_to_its_own_request_on_the_get_stream_is_still_taken() -> None:
    def listed(handler: _Server, ident: object) -> None:
        handler.events.put(f"event: message\ndata: {json.dumps(_listed_page(ident))}\n\n".encode())
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()
        handler.wfile.flush()
        handler.stop.wait(RUN_AT_MOST)

    code, out, said = _tree(listed)
    assert code == 0, said
    assert "x://a/0" in out


def _checked(body: bytes, expected: int = 7, cut: int = 100) -> tuple[bytes, str | None]:
    """What `AnswerCheck` hands on of `body` fed in pieces of `cut` bytes, and its refusal."""
    check = AnswerCheck(expected, "resources/list")
    out = b"".join(check.take(body[at : at + cut]) for at in range(0, len(body), cut))
    return out + check.take(b"", end=True), check.refusal


def test_an_error_naming_no_request_at_its_end_is_given_the_requests_id() -> None:
    message = json.dumps({"x": "y" * 2000})
    body = (
        b'{"jsonrpc": "2.0", "error": {"code": -32000, "message": '
        + json.dumps(message).encode()
        + b'}, "id": null}'
    )
    out, refusal = _checked(body)
    assert refusal is None
    assert json.loads(out)["id"] == 7


@pytest.mark.parametrize(
    ("body", "refusal"),
    [
        (b'{"result": {"text": "' + b"a" * 3000 + b'"}, "id": 8}', "is an answer to request 8"),
        (
            b'{"result": {"text": "' + b"a" * 3000 + b'"}, "id": 8, "jsonrpc": "2.0"}',
            "is an answer to request 8",
        ),
        (
            b'{"result": {"text": "' + b"a" * 3000 + b'"}, "id": null}',
            "is a result naming no request (id null)",
        ),
        (b'{"result": {"text": "' + b"a" * 3000 + b'"}, "id": "7"}', None),
        (b'{"result": {"inner": {"x": 1, "id": 8}}, "jsonrpc": "2.0", "id": 7}', None),
        (b'{"jsonrpc": "2.0", "result": {"text": "a", "id": 8}}', None),  # not the answer's own id
        (b'{"id": 8, "jsonrpc": "2.0", "result": {}}', "is an answer to request 8"),
    ],
    ids=[
        "last",
        "before-jsonrpc",
        "null-result-last",
        "own-id-as-string",
        "nested-id-is-not-the-answers",
        "nested-id-in-a-result-without-id",
        "first-then-jsonrpc",
    ],
)
def test_the_id_of_an_answer_is_told_by_its_head_or_its_tail(body: bytes, refusal: str | None) -> None:
    for cut in (1, 7, 100, 10_000):
        out, refused = _checked(body, cut=cut)
        assert (refused is None) == (refusal is None), (cut, refused)
        if refusal is None:
            assert out == body
        else:
            assert refused is not None and refused.endswith(refusal)


def _request(ident: int) -> SessionMessage:
    return SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=ident, method="resources/list"))


def _answer(ident: int | str) -> SessionMessage:
    return SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id=ident, result={}))


def test_a_stray_answer_fails_the_one_request_waiting_and_only_then() -> None:
    strays = StrayAnswers()
    strays.sent(_request(1))
    strays.received(_answer("1"))  # its own answer (the SDK reads "1" as 1)
    strays.sent(_request(2))
    strays.received(_answer(1))  # a late answer to a request sent before: not a stray
    assert strays.made() is None
    strays.sent(_request(3))
    strays.received(_answer(9999))  # two wait: which one the server meant cannot be told
    assert strays.made() is None
    cancel = types.JSONRPCNotification(
        jsonrpc="2.0", method="notifications/cancelled", params={"requestId": 2, "reason": "timed out"}
    )
    strays.sent(SessionMessage(cancel))
    strays.received(_answer(9999))
    made = strays.made()
    assert made is not None and made.message.id == 3
    fault = describe_exception(MCPError(made.message.error.code, "", made.message.error.data), action="x")
    assert fault.message == "x: the server's answer to request 3 is an answer to request 9999"
