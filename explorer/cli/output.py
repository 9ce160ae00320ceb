"""Writing results: stdout for answers, one clear line on stderr for each error.

Text output always goes through the sanitizer. JSON output keeps the server's exact strings, with every
character a terminal would act on, hide or draw too wide written as a `\\uXXXX` escape (it decodes to the
same string).

JSON is encoded by orjson (measured: 35 times the standard library's indented encoder, and ahead of
msgspec, which has no indented output of its own), laid out exactly as `json.dumps(indent=2)` lays it out;
only floats in exponent form are written the shorter way (`1e-07` becomes `1e-7`, the same number). A
value orjson refuses (an integer beyond 64 bits, a lone surrogate) is encoded by the standard library
instead. Big documents are written piece by piece (`encode_json` at an indent, `write_bytes`), never
held whole in memory.

A float JSON cannot hold (a server's `1e400` reads as infinity) is written as null by both encoders, and
said so on stderr, once per document: one warning for a whole `tree --json`, whose pieces are encoded in
`one_json_document`. orjson writes such a float as null without a word, so its output is checked: only
when it holds a `null` at all, by a walk of the containers (a read's 50 MB text is one string, not walked).

Secrets are masked here, at the sink: `register_secrets` is called once with every server spec the
command may talk to, and every function below that writes (`out`, `error`, `note`, `emit_json`) or
prepares text (`safe`, `safe_line`) replaces each secret, in each form a server may echo it back in
(JSON-escaped, percent-encoded, base64: `explorer.config.spec.secret_forms`), by `***`. No output path
can forget it.
"""

from __future__ import annotations

import errno
import io
import json
import math
import select
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from explorer.cli.closed_output import OutputFailed
from explorer.config.spec import Redactor, ServerSpec, runtime_secrets, secrets_of
from explorer.sanitize import json_escape_unsafe, sanitize, sanitize_line

if TYPE_CHECKING:
    from explorer.connection.errors import ServerFault

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3
EXIT_INTERRUPTED = 130  # Ctrl+C, as a shell reports it

_redactor = Redactor(())
_registered: set[str] = set()
_runtime_seen = -1
_unwritable: list[int] | None = None  # inside `one_json_document`: the floats written as null so far


def register_secrets(specs: Iterable[ServerSpec]) -> None:
    """Mask the secrets of these specs in everything written from now on (adds to earlier ones)."""
    global _redactor
    _registered.update(secret for spec in specs for secret in secrets_of(spec))
    _redactor = Redactor(_registered | runtime_secrets()[1])


def _current() -> Redactor:
    """The redactor, with the secrets learned while running (OAuth tokens) added once they appear."""
    global _redactor, _runtime_seen
    version, values = runtime_secrets()
    if version != _runtime_seen:
        _runtime_seen = version
        _redactor = Redactor(_registered | values)
    return _redactor


def mask(text: str) -> str:
    """`text` with every registered secret replaced by `***`."""
    return _current().text(text)


def has_secrets() -> bool:
    """Whether any secret is registered or was learned while running (when none is, masking can be
    skipped)."""
    return bool(_current())


def write_text(text: str) -> None:
    """Already-sanitized, already-masked text to stdout, as is (every character of it, or an exception:
    see `write_bytes`)."""
    stream = _stdout()
    if isinstance(getattr(stream, "buffer", None), io.RawIOBase):
        # Unbuffered (`python -u`, PYTHONUNBUFFERED): the text layer hands each write to the file as is and
        # drops the count it gets back, so a pipe that takes part of it would lose the rest without a word.
        write_bytes(text.encode(stream.encoding or "utf-8", stream.errors or "strict"))
        return
    try:
        stream.write(text)  # a buffered writer writes all it is given, or raises
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputFailed.because(exc) from exc


def out(text: str = "") -> None:
    """Write already-sanitized text to stdout (registered secrets masked)."""
    write_text(mask(text) + "\n")


def error(text: str) -> None:
    """One line on stderr; the text may hold server strings, so it is masked and sanitized here."""
    sys.stderr.write("error: " + sanitize_line(mask(text), limit=2000) + "\n")


def note(text: str) -> None:
    sys.stderr.write(sanitize_line(mask(text), limit=2000) + "\n")


def stopped_at_bound(server: str, summary: str) -> None:
    """A listing a bound stopped is incomplete (exit 3), not failed: a warning, never `error:`."""
    note(f"warning: server {server}: {summary}")


_INDENTS = [b"\n" + b" " * n for n in range(0, 64, 2)]


def encode_json(value: Any, indent: int = 0) -> bytes:
    """UTF-8 JSON of `value` as `json.dumps(indent=2)` lays it out, every line after the first indented by
    `indent` more spaces; secrets masked, every unsafe character escaped (see the module docstring)."""
    import orjson  # here, not at the top: `--help` and `expand` never write JSON

    value = _current().value(value)  # runtime secrets (OAuth tokens) too
    try:
        data = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except (TypeError, orjson.JSONEncodeError):
        text, nonfinite = _indented_json(value)
        data = json_escape_unsafe(text).encode("utf-8")
    else:
        nonfinite = _count_nonfinite(value) if b"null" in data else 0  # orjson wrote them as null, silently
        # orjson escapes every control character in strings but DEL; the rest of its output is ASCII
        # syntax and indentation, so plain ASCII without DEL has nothing to escape.
        if not data.isascii() or b"\x7f" in data:
            data = json_escape_unsafe(data.decode("utf-8")).encode("utf-8")
    if _unwritable is not None:
        _unwritable[0] += nonfinite
    else:
        _warn_nonfinite(nonfinite)
    if indent:
        newline = _INDENTS[indent // 2] if indent < 64 and indent % 2 == 0 else b"\n" + b" " * indent
        data = data.replace(b"\n", newline)
    return data


@contextmanager
def one_json_document() -> Iterator[None]:
    """The pieces `encode_json` makes in this block are one document: its floats written as null are
    warned about once, when the block ends (a streamed `tree --json` encodes thousands of pieces)."""
    global _unwritable
    outer = _unwritable
    _unwritable = [0]
    try:
        yield
    finally:
        count = _unwritable[0]
        _unwritable = outer
        if outer is not None:
            outer[0] += count
        else:
            _warn_nonfinite(count)


def _warn_nonfinite(count: int) -> None:
    if count:
        what = "a number" if count == 1 else f"{count:,} numbers"
        note(f"warning: {what} too large for JSON (or not a number) written as null.")


def _count_nonfinite(value: Any) -> int:
    """The floats JSON cannot hold (infinities, NaN) in a JSON-like value. A loop: it may nest deep."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, float) and not math.isfinite(item):
            count += 1
    return count


def _indented_json(value: Any) -> tuple[str, int]:
    """`json.dumps(value, indent=2, ensure_ascii=False)` by a loop, not recursion (a server's answer may
    nest deeper than Python's recursion limit), with every float JSON cannot hold (a server's `1e400` reads
    as infinity) written as null, as orjson writes it; and how many such floats there were."""
    parts: list[str] = []
    nonfinite = 0
    # Each entry: a value to write, or a string of syntax to write as is (pushed in reverse order).
    stack: list[Any] = [_Item(value, 0)]
    while stack:
        entry = stack.pop()
        if isinstance(entry, str):
            parts.append(entry)
            continue
        item, depth = entry.value, entry.depth
        if isinstance(item, dict) and item:
            inner, outer = "\n" + "  " * (depth + 1), "\n" + "  " * depth
            parts.append("{")
            stack.append(outer + "}")
            entries = list(item.items())
            for index in range(len(entries) - 1, -1, -1):
                key, kid = entries[index]
                stack.append(_Item(kid, depth + 1))
                sep = inner if index == 0 else "," + inner
                stack.append(sep + json.dumps(_key(key), ensure_ascii=False) + ": ")
        elif isinstance(item, list | tuple) and item:
            inner, outer = "\n" + "  " * (depth + 1), "\n" + "  " * depth
            parts.append("[")
            stack.append(outer + "]")
            for index in range(len(item) - 1, -1, -1):
                stack.append(_Item(item[index], depth + 1))
                stack.append(inner if index == 0 else "," + inner)
        elif isinstance(item, float) and not math.isfinite(item):
            nonfinite += 1
            parts.append("null")
        elif isinstance(item, dict | list | tuple):
            parts.append("{}" if isinstance(item, dict) else "[]")
        else:
            parts.append(json.dumps(item, ensure_ascii=False))
    return "".join(parts), nonfinite


class _Item:
    """A value waiting to be written by `_indented_json`, at its nesting depth."""

    __slots__ = ("depth", "value")

    def __init__(self, value: Any, depth: int) -> None:
        self.value = value
        self.depth = depth


def _key(key: Any) -> str:
    """A key as `json.dumps` writes it: strings as they are, numbers, true, false and null as text."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    if isinstance(key, int | float):
        return json.dumps(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def to_json(value: Any) -> str:
    """JSON with the exact strings (secrets masked), readable unicode, and every unsafe character escaped."""
    return encode_json(value).decode("utf-8")


def write_bytes(data: bytes) -> None:
    """Raw UTF-8 to stdout, in order with what `out` wrote before (it is flushed first).

    All of it, or an exception: a closed pipe is `BrokenPipeError` (exit 141), any other refusal (a full
    disk, /dev/full, no stdout at all) `OutputFailed` (one line, exit 1). An unbuffered file takes what
    the pipe has room for and says how much, which is written again until all is: the next write to a pipe
    whose reader went away raises, where ignoring the count would drop the rest silently with exit 0.
    """
    stream = _stdout()
    buffer = getattr(stream, "buffer", None)
    try:
        if buffer is None:  # a text-only stream (some test harnesses)
            stream.write(data.decode("utf-8"))
            return
        stream.flush()
        _write_all(buffer, data)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputFailed.because(exc) from exc


def _write_all(buffer: Any, data: bytes) -> None:
    """Write until every byte is taken, however many the file takes at a time."""
    view = memoryview(data)
    while view:
        written = buffer.write(view)
        if written is None:  # a non-blocking descriptor with no room now: wait for room, then again
            select.select([], [buffer], [])
            continue
        if written <= 0:
            raise OSError(errno.EIO, "the output took none of what was written")
        view = view[written:]


def _stdout() -> Any:
    """`sys.stdout`, which is None when the command was started with its stdout closed (`>&-`)."""
    stream = sys.stdout
    if stream is None:
        raise OutputFailed("stdout is closed")
    return stream


def emit_json(value: Any) -> None:
    write_bytes(encode_json(value) + b"\n")


def error_json(fault: ServerFault | None) -> dict[str, Any] | None:
    """The one shape of an error in JSON output: `{"code", "message", "data", "origin"}` (null when no
    error). `origin` says who made it: "server" when the server answered with this error (its code,
    message and data), "explorer" when the explorer did (it gave up waiting, the connection closed, an
    answer it could not use, Ctrl+C). Many servers send -32000 and -32001 for errors of their own, the
    codes the SDK gives a closed connection and a wait that ran out: `code` alone cannot tell them apart,
    and stays as it was for the scripts that read it."""
    if fault is None:
        return None
    origin = "server" if fault.code is not None and not fault.local else "explorer"
    return {"code": fault.code, "message": fault.message, "data": fault.data, "origin": origin}


def safe(text: object, limit: int | None = 4000) -> str:
    """A server string made safe for a terminal (multi-line kept); masked before it can be cut."""
    return sanitize(mask(str(text)), limit=limit)


def safe_line(text: object, limit: int = 200) -> str:
    # Plain printable ASCII within the limit is what most URIs and names are: nothing to escape or cut.
    if type(text) is str and len(text) <= limit and text.isascii() and text.isprintable() and not _redactor:
        return text
    return sanitize_line(mask(str(text)), limit=limit)
