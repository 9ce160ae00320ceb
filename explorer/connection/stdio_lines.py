"""What one line a stdio server wrote is: a message, an error answer made here, or nothing.

Why a module of its own: the reader (`stdio`) only cuts lines and hands them on; deciding what a line
means is where a hostile server is met. A plain result (`{"jsonrpc": "2.0", "id": ..., "result": {...}}`,
every listing page) is parsed by orjson straight from the bytes and wrapped without a second validation
(pydantic's validation of a 1,000-item page cost five times the parse); anything else goes the
validated way. A line both refuse is read again by the standard library's parser (`_read_leniently`):
a message only they refused (a lone surrogate, as JavaScript writes one: made U+FFFD) goes on, a broken
answer fails its request at once, and so does one no parser reads (nested too deep, a number too long),
by the id at its head; a request only they refused (params that are not an object) is handed on as an
`UnreadableMessage`, so the connection answers it (the server waits for that) and says what was wrong.
A batch (a JSON array of messages) is read one message at a time. A line over the message cap, or a
listing page past its bytes bound, is refused unread, the request its head names failed
(`refused_too_big`, `refused_past_bound`). Every error made here carries an `UnreadableAnswer`, which a
server cannot send.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import orjson

from explorer.connection.errors import (
    INTERNAL_ERROR,
    ProtocolProblems,
    UnreadableAnswer,
    UnreadableMessage,
    shown_id,
)
from explorer.connection.sizes import ResponseSizes, limit_text

__all__ = ["parse_line", "plain_result", "refused_past_bound", "refused_too_big"]


def plain_result(line: bytes | bytearray) -> Any:
    """A JSONRPCResponse for a line that is exactly `{"jsonrpc": "2.0", "id": ID, "result": {...}}`, else
    None. orjson parses it as the validated path would (it refuses what is not strict UTF-8 JSON, and
    integers beyond 64 bits, which then take that path), so only the envelope needs checking here."""
    import mcp_types as types

    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if type(data) is not dict or len(data) != 3 or data.get("jsonrpc") != "2.0":
        return None
    ident = data.get("id")
    result = data.get("result")
    if type(result) is not dict or not (type(ident) is int or type(ident) is str):
        return None
    return types.JSONRPCResponse.model_construct(jsonrpc="2.0", id=ident, result=result)


def _decode(line: bytearray | bytes) -> str:
    """A hostile server's bytes that are not UTF-8 become U+FFFD: shown, never fatal."""
    return line.decode("utf-8", errors="replace")


def parse_line(line: bytes | bytearray, problems: ProtocolProblems, *, cut: bool = False) -> Any:
    """One stdout line -> a SessionMessage, a list of them (a JSON-RPC batch, `_read_batch`), an
    `UnreadableMessage` (a request the SDK cannot read, which the connection answers), or None (blank, or
    not JSON-RPC: counted in `problems`).

    `cut`: the server's output ended before the line did (it exited while writing). Such a line that
    cannot be parsed fails no request itself: the connection's end, which follows, says why better."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    fast = plain_result(line)
    if fast is not None:
        plain = SessionMessage(fast)
        plain.plain = True  # type: ignore[attr-defined]  # strict UTF-8 JSON, as orjson reads it
        return plain
    # Decoded, then parsed and validated: bytes that are not UTF-8 become U+FFFD, shown, never fatal.
    text = _decode(line)
    if not text or text.isspace():  # (not .strip(): that may copy a 50 MB line)
        return None
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValueError:
        head = _head_id(bytes(line[:512]))
        small = len(line) <= _LENIENT_UP_TO  # a big line gets a second parse only when it is an answer
        unread_fails = None if cut else head  # the request an answer no parser reads fails
        lenient = _read_leniently(text, unread_fails, problems) if small or head is not None else None
        if lenient is None:
            problems.bad_line(text[:200].strip())
        return lenient
    if isinstance(message, types.JSONRPCNotification) and b'"id"' in line and len(line) <= _LENIENT_UP_TO:
        return _bad_id_request(text) or SessionMessage(message)
    return SessionMessage(message)


def _bad_id_request(text: str) -> UnreadableMessage | None:
    """A request whose id is no string or integer (1.5, true, null, an object), which the SDK's parser
    takes for a notification (it drops the id): an `UnreadableMessage`, so the connection answers it (an
    error to id null) and counts it. None when the message has no id: a notification indeed."""
    import json

    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(data, dict) and "id" in data and isinstance(data.get("method"), str):
        return UnreadableMessage(data)
    return None


_HEAD_ID = re.compile(
    rb'\s*\[?\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?[0-9]{1,18}|"[^"\\]{0,200}")\s*,\s*"(?:result|error)"\s*:'
)
"""The id of an answer written as servers write them (`{"jsonrpc": "2.0", "id": 5, "result": ...`), read
without parsing the rest; a request of the server's own (its id, then "method") is not one. In a batch
(`[{...}, ...]`), the first answer's."""


def refused_past_bound(line: bytes | bytearray, sizes: ResponseSizes) -> Any:
    """An error answer for a line whose request was asked to be at most a size it exceeds (a listing
    page past the listing's bytes bound, `ResponseSizes.expect_at_most`), refused unread: parsing takes
    about seven times the line's size in memory. None when that is not the case, or the id is not where
    servers put it (the line is then parsed as usual)."""
    ident = _head_id(bytes(line[:512]))
    if ident is None:
        return None
    most = sizes.most_for(ident)
    if most is None or len(line) <= most:
        return None
    return _refusal(ident, UnreadableAnswer.past_max_bytes(ident, len(line), most, whole=True))


def _head_id(head: bytes) -> int | str | None:
    """The id at the head of an answer, where servers write it (`_HEAD_ID`), or None."""
    found = _HEAD_ID.match(head)
    if found is None:
        return None
    text = found.group(1)
    return text[1:-1].decode("utf-8", errors="replace") if text.startswith(b'"') else int(text)


def refused_too_big(head: bytes, limit: int) -> Any:
    """An error answer for a line over the message limit (dropped unread), when its head names the
    request it answers: that request fails at once, instead of waiting for its timeout. Else None."""
    ident = _head_id(head)
    if ident is None:
        return None
    why = (
        f"the server's answer to request {shown_id(ident)} is over {limit_text(limit)}, the most the "
        "explorer reads of one message: it was not read"
    )
    return _refusal(ident, UnreadableAnswer(why))


def _refusal(ident: int | str, unread: UnreadableAnswer) -> Any:
    """A JSON-RPC error answer to `ident` made here, carrying `unread` (`describe_exception` says it)."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    error = types.ErrorData.model_construct(code=INTERNAL_ERROR, message=unread.why, data=unread)
    return SessionMessage(types.JSONRPCError.model_construct(jsonrpc="2.0", id=ident, error=error))


def _read_leniently(text: str, head: int | str | None, problems: ProtocolProblems) -> Any:
    """A line the strict parsers refused, read by the standard library's: the message, when it is one that
    only they refused (a lone surrogate escaped as `\\ud800`, what JavaScript's `JSON.stringify` writes
    for one: the whole page would else be lost), or an error that fails the request at once, when it is a
    broken answer to one (its `result` not an object, say, or JSON nested too deep to parse: else the
    request waited for its timeout and was reported as not answered). A batch is read element by element
    (`_read_batch`). None for anything else."""
    import json

    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return _unparsed(head, exc)
    surrogates = _SURROGATE_ESCAPE.search(text) is not None
    if isinstance(data, list):
        return _read_batch(data, surrogates, problems, text)
    if not isinstance(data, dict):
        return None
    return _message_of(data, surrogates)


def _message_of(data: dict[str, Any], surrogates: bool) -> Any:
    """One message the standard library's parser read: a SessionMessage, an error failing the request a
    broken answer names, an `UnreadableMessage` for a broken request (the connection answers it and says
    what was wrong, `server_messages`), or None (a broken notification, or no id to answer)."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    if surrogates:
        _without_lone_surrogates(data)
    try:
        message = types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValueError:
        pass
    else:
        if isinstance(message, types.JSONRPCNotification) and "id" in data:
            return UnreadableMessage(data)  # a request whose id is none: `_bad_id_request`
        return SessionMessage(message)
    ident = data.get("id")
    if type(ident) is float and ident.is_integer():
        ident = int(ident)
    if not isinstance(ident, int | str) or isinstance(ident, bool):
        if "id" in data and isinstance(data.get("method"), str):
            return UnreadableMessage(data)  # a request whose id is none: answered to id null
        return None  # a notification, or no id to answer: nothing waits for it (counted as a line)
    if "method" in data:
        if isinstance(data["method"], str):
            return UnreadableMessage({**data, "id": ident})  # a request: the server waits for its answer
        return None  # a request that names no method: counted as a line
    why = (
        f"the server's answer to request {shown_id(ident)} is not a JSON-RPC response ({_answer_fault(data)})"
    )
    return _refusal(ident, UnreadableAnswer(why))


def _read_batch(items: list[Any], surrogates: bool, problems: ProtocolProblems, text: str) -> Any:
    """The messages of a JSON-RPC batch (an array of messages on one line), each handed on as if it came
    alone; None when none is one (the caller counts the line).

    Answered, not refused: the 2025-03-26 protocol allowed batches both ways (2025-06-18 removed them), and
    the explorer speaks that version with servers that do, so a batch is the server's right there; each
    answer reaches its request and nothing waits for a timeout. A line only partly made of messages is
    counted once, as any line that is not a message."""
    messages = [_message_of(item, surrogates) if isinstance(item, dict) else None for item in items]
    kept = [message for message in messages if message is not None]
    if kept and len(kept) < len(messages):
        problems.bad_line(text[:200].strip())
    return kept or None


def _unparsed(head: int | str | None, exc: BaseException) -> Any:
    """An error failing the request a line's head names (`_head_id`) when the line could not be parsed at
    all (nested too deep, a number too long, broken JSON): else that request waited for its timeout.
    None when no id could be read: nothing waits for it, and the line is counted."""
    if head is None:
        return None
    why = f"the server's answer to request {shown_id(head)} could not be read: {_parse_fault(exc)}"
    return _refusal(head, UnreadableAnswer(why))


def _parse_fault(exc: BaseException) -> str:
    """Why the standard library's parser refused a line, in a few words. Its words only, which hold no
    text of the server's (its positions, its limits), cut short all the same."""
    import json

    if isinstance(exc, RecursionError):
        return "its JSON is nested too deep to parse"
    if isinstance(exc, json.JSONDecodeError):
        return f"it is not valid JSON ({_cut(exc.msg)} at character {exc.pos:,})"
    text = str(exc).split("\n", 1)[0]
    if "integer string conversion" in text:
        return f"it holds a number of more than {sys.get_int_max_str_digits():,} digits"
    return f"it is not valid JSON ({_cut(text)})"


def _cut(text: str, most: int = 80) -> str:
    return text if len(text) <= most else f"{text[:most]}…"


_LENIENT_UP_TO = 1024 * 1024  # bytes of a line read again leniently whatever it is (bigger: answers only)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_lone_surrogates(data: dict[str, Any]) -> None:
    """Every string in `data` with its lone surrogates made U+FFFD, as bytes that are not UTF-8 are
    (`_decode`): shown, never fatal, and no string that cannot be encoded goes on into the explorer (to the
    clipboard, a bookmark, the server again). A pair written as two escapes was joined by the parser."""
    stack: list[dict[str, Any] | list[Any]] = [data]
    while stack:
        container = stack.pop()
        keys: Any = range(len(container)) if isinstance(container, list) else list(container)
        for key in keys:
            value = container[key]
            if isinstance(value, str):
                if not value.isascii():
                    container[key] = _LONE_SURROGATE.sub("\ufffd", value)
            elif isinstance(value, dict | list):
                stack.append(value)
        if isinstance(container, dict):
            for key in [k for k in container if not k.isascii() and _LONE_SURROGATE.search(k)]:
                container[_LONE_SURROGATE.sub("\ufffd", key)] = container.pop(key)


def _answer_fault(data: dict[str, Any]) -> str:
    """What is wrong with an answer's envelope, in a few words."""
    if data.get("jsonrpc") != "2.0":
        return 'its "jsonrpc" is not "2.0"'
    if ("result" in data) == ("error" in data):
        return 'it has both "result" and "error"' if "result" in data else 'it has no "result" or "error"'
    if "result" in data:
        return f'its "result" is {_kind(data["result"])}, not an object'
    error = data["error"]
    if not isinstance(error, dict):
        return f'its "error" is {_kind(error)}, not an object'
    if type(error.get("code")) is not int:
        return 'its "error" has no integer "code"'
    if not isinstance(error.get("message"), str):
        return 'its "error" has no "message" string'
    return 'its "error" is not a JSON-RPC error object'


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )
