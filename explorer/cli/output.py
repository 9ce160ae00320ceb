"""Writing results: stdout for answers, one clear line on stderr for each error.

Text output always goes through the sanitizer. JSON output keeps the server's exact strings, with every
character a terminal would act on, hide or draw too wide written as a `\\uXXXX` escape (it decodes to the
same string).

Secrets are masked here, at the sink: `register_secrets` is called once with every server spec the
command may talk to, and every function below that writes (`out`, `error`, `note`, `emit_json`) or
prepares text (`safe`, `safe_line`) replaces each secret, in each form a server may echo it back in
(JSON-escaped, percent-encoded, base64: `explorer.config.spec.secret_forms`), by `***`. No output path
can forget it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from explorer.config.spec import Redactor, ServerSpec, runtime_secrets, secrets_of
from explorer.sanitize import json_escape_unsafe, sanitize, sanitize_line

if TYPE_CHECKING:
    from explorer.connection.errors import ServerFault

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3

_redactor = Redactor(())
_registered: set[str] = set()
_runtime_seen = -1


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


def out(text: str = "") -> None:
    """Write already-sanitized text to stdout (registered secrets masked)."""
    sys.stdout.write(mask(text) + "\n")


def error(text: str) -> None:
    """One line on stderr; the text may hold server strings, so it is masked and sanitized here."""
    sys.stderr.write("error: " + sanitize_line(mask(text), limit=2000) + "\n")


def note(text: str) -> None:
    sys.stderr.write(sanitize_line(mask(text), limit=2000) + "\n")


def to_json(value: Any) -> str:
    """JSON with the exact strings (secrets masked), readable unicode, and every unsafe character escaped."""
    text = json.dumps(_current().value(value), indent=2, ensure_ascii=False)
    return json_escape_unsafe(text)


def emit_json(value: Any) -> None:
    sys.stdout.write(to_json(value) + "\n")


def error_json(fault: ServerFault | None) -> dict[str, Any] | None:
    """The one shape of an error in JSON output: `{"code", "message", "data"}` (null when no error)."""
    if fault is None:
        return None
    return {"code": fault.code, "message": fault.message, "data": fault.data}


def safe(text: object, limit: int | None = 4000) -> str:
    """A server string made safe for a terminal (multi-line kept); masked before it can be cut."""
    return sanitize(mask(str(text)), limit=limit)


def safe_line(text: object, limit: int = 200) -> str:
    return sanitize_line(mask(str(text)), limit=limit)
