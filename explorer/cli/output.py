"""Writing results: stdout for answers, one clear line on stderr for each error.

Text output always goes through the sanitizer; JSON output keeps the server's exact strings
(JSON escapes control characters itself).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from explorer.sanitize import sanitize, sanitize_line

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3


def out(text: str = "") -> None:
    """Write already-sanitized text to stdout."""
    sys.stdout.write(text + "\n")


def error(text: str) -> None:
    """One line on stderr; the text may hold server strings, so it is sanitized here."""
    sys.stderr.write("error: " + sanitize_line(text, limit=2000) + "\n")


def note(text: str) -> None:
    sys.stderr.write(sanitize_line(text, limit=2000) + "\n")


# Characters JSON may carry raw but a terminal would act on or hide: C1 controls (0x9b is CSI),
# bidi and zero-width format characters, line/paragraph separators, lone surrogates.
_UNSAFE_IN_JSON = re.compile(
    "[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
)


def to_json(value: Any) -> str:
    """JSON with the exact strings, readable unicode, and every terminal-unsafe character escaped."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def emit_json(value: Any) -> None:
    sys.stdout.write(to_json(value) + "\n")


def safe(text: object, limit: int | None = 4000) -> str:
    """A server string made safe for a terminal (multi-line kept)."""
    return sanitize(str(text), limit=limit)


def safe_line(text: object, limit: int = 200) -> str:
    return sanitize_line(str(text), limit=limit)
