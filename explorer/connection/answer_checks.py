"""A JSON answer to a Streamable HTTP request, checked on its way to the SDK: that it is JSON text, and
which request it names, told from its first and last bytes only (`AnswerCheck`).

Why: the SDK hands a JSON answer to the session as it is, and the session drops an answer to a request
it did not send; the request then waited for its timeout and said the server did not answer. So an
answer naming another request is refused (`refusal`), whether its id comes first (the head) or last,
after a result of any size (the tail: the last `_TAIL_BYTES` are held back until the body ends, so an
id there is read before the SDK gets them). An error answer naming none (id null: the server could not
read the request) is given the request's id, so its code and message reach the user, as the SDK does for
an error status. An id anywhere else (between two big members) is not looked for here: telling it would
take a parse of the whole answer, which the SDK does next. The answer is still known to be the one its
POST asked for: the task that reads it notes that request's id (`ANSWERING`, set by the response hook),
the SDK hands its messages on with a copy of that task's context (`last_context`, the way its transports
document to carry a sender's context), and `stray_answers` checks the parsed id against it: the same
refusal, or the request's id given to an error naming none, as here, with no second parse.

An answer that is not JSON text at all is refused with what it begins with: a gzip stream sent without
`Content-Encoding` was said in pydantic's words ("1 validation error for union[JSONRPCRequest, ...]").
"""

from __future__ import annotations

import re
from contextvars import ContextVar

import orjson

from explorer.connection.errors import REFUSED_PREFIX, shown_id
from explorer.connection.sizes import RequestId

__all__ = ["ANSWERING", "AnswerCheck", "coerced", "same_id"]

ANSWERING: ContextVar[RequestId | None] = ContextVar("explorer_answering", default=None)
"""The id of the request whose POST the current task reads the answer of (Streamable HTTP: the SDK runs
one task a request). Set by the response hook (`http_limits.cap_answer`); the messages that task hands on
carry it in their sender's context, which `stray_answers` reads."""

_ID = rb'(null|-?[0-9]{1,18}|"[^"\\]{0,200}")'
_JSONRPC = rb'"jsonrpc"\s*:\s*"2\.0"\s*,\s*'
_ANSWER_HEAD = re.compile(
    rb"\s*\{\s*(?:"
    + _JSONRPC
    + rb')?"id"\s*:\s*'
    + _ID
    + rb"\s*,\s*(?:"
    + _JSONRPC
    + rb')?"(result|error)"\s*:'
)
"""The id of an answer where servers write it first (as `stdio_lines._HEAD_ID`, and null), read unparsed."""
_ANSWER_TAIL = re.compile(rb',\s*"id"\s*:\s*' + _ID + rb'\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*\Z')
"""The id of an answer written last (or before a last `"jsonrpc": "2.0"`): the last member of the object
the body's last brace closes, which is the answer itself."""
_FIRST_MEMBER = re.compile(rb"\s*\{\s*(?:" + _JSONRPC + rb')?"(result|error)"\s*:')
"""Whether an answer whose id comes last is a result or an error, told by its first member."""
_HEAD_BYTES = 512
_TAIL_BYTES = 512

_GZIP = b"\x1f\x8b"
_ZLIB = (b"\x78\x01", b"\x78\x5e", b"\x78\x9c", b"\x78\xda")


class AnswerCheck:
    """The first and last bytes of a JSON answer, held until they tell which request it answers."""

    def __init__(self, expected: RequestId, method: str | None = None) -> None:
        self.expected = expected
        self.refusal: str | None = None
        self._asked = f"to {method[:80]}" if method else f"to request {shown_id(expected)}"
        self._held = bytearray()
        self._head_done = False
        self._tail: bytes | None = None  # the last bytes, while no id was told (None: told by the head)
        self._kind = b""  # b"result" or b"error" when the head tells, for an id told by the tail

    def take(self, piece: bytes, *, end: bool = False) -> bytes:
        """What of `piece` can go on: b"" while the head is held, the head once it is told, then all but
        the last bytes while the tail may still tell the id; at the `end`, all that is left."""
        if not self._head_done:
            self._held += piece
            if len(self._held) < _HEAD_BYTES and not end:
                return b""
            self._head_done = True
            piece, self._held = self._head(bytes(self._held)), bytearray()
            if self._tail is None or self.refusal is not None:
                return piece
        if self._tail is None:
            return piece
        joined = self._tail + piece
        if end:
            self._tail = b""
            return self._told_last(joined)
        cut = max(len(joined) - _TAIL_BYTES, 0)
        self._tail = joined[cut:]
        return joined[:cut]

    def _head(self, held: bytes) -> bytes:
        """The head, the id it names checked (or a null error's id made the request's); starts the tail's
        watch when it names none."""
        text = held.lstrip()
        if not text.startswith((b"{", b"[")):
            self.refusal = f"{REFUSED_PREFIX}{self._asked} is not JSON text: {_begins(text)}"
            return held
        found = _ANSWER_HEAD.match(held, 0, _HEAD_BYTES)
        if found is None:
            self._tail = b""
            first = _FIRST_MEMBER.match(held, 0, _HEAD_BYTES)
            self._kind = first.group(1) if first is not None else b""
            return held
        return self._named(held, found)

    def _told_last(self, tail: bytes) -> bytes:
        found = _ANSWER_TAIL.search(tail)
        return tail if found is None else self._named(tail, found)

    def _named(self, text: bytes, found: re.Match[bytes]) -> bytes:
        token = found.group(1)
        kind = found.group(2) if found.re is _ANSWER_HEAD else self._kind
        if token == b"null" and kind == b"error":
            start, end = found.span(1)
            return text[:start] + orjson.dumps(self.expected) + text[end:]
        expected = shown_id(self.expected)
        if token == b"null":
            what = "a result" if kind == b"result" else "an answer"
            self.refusal = f"{REFUSED_PREFIX}to request {expected} is {what} naming no request (id null)"
        elif not same_id(_value(token), self.expected):
            named = shown_id(_value(token))
            self.refusal = f"{REFUSED_PREFIX}to request {expected} is an answer to request {named}"
        return text


def _begins(text: bytes) -> str:
    """What a body that is not JSON text begins with, in a few words."""
    if not text:
        return "it is empty"
    if text.startswith(_GZIP):
        return "it begins with the bytes of a gzip stream (compressed, with no Content-Encoding to say so)"
    if text.startswith(_ZLIB):
        return "it begins with the bytes of a zlib stream (compressed, with no Content-Encoding to say so)"
    shown = text[:24].decode("utf-8", errors="replace")
    return f"it begins {shown!r}{'…' if len(text) > 24 else ''}"


def _value(token: bytes) -> RequestId:
    return token[1:-1].decode("utf-8", errors="replace") if token.startswith(b'"') else int(token)


def same_id(found: RequestId, expected: RequestId) -> bool:
    """Whether two ids are one for the SDK, which reads a string of an integer as that integer."""
    return coerced(found) == coerced(expected)


def coerced(ident: RequestId) -> RequestId:
    """An id as the SDK matches it: a string of an integer is that integer."""
    if isinstance(ident, str):
        try:
            return int(ident)
        except ValueError:
            return ident
    return ident
