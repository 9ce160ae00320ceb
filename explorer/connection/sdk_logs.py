"""The MCP SDK's own log records go to a file, masked, never to the user's terminal.

The SDK logs a full traceback for every line a server writes that is not JSON (`logger.exception`),
and with no handler configured Python prints WARNING and above to stderr: a hostile server could put
tracebacks in the CLI's output or write over the TUI. Its loggers are `mcp.*` and, for the client
session, `client`. They are routed once per process to `<log dir>/sdk.log`, with every secret of every
server spec that connected replaced by `***`.
"""

from __future__ import annotations

import logging
import threading

from explorer.config import MASK, ServerSpec
from explorer.config.spec import Redactor, masked_forms, runtime_secrets

_SDK_LOGGERS = ("mcp", "client")
_lock = threading.Lock()
_secrets: set[str] = set()
_routed = False


class _MaskingFormatter(logging.Formatter):
    """Formats as usual (traceback included, for the file), then masks every known secret."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        for secret in sorted(_secrets, key=len, reverse=True):
            text = text.replace(secret, MASK)
        return Redactor(runtime_secrets()[1]).text(text)  # OAuth tokens learned while running


def route_sdk_logs(spec: ServerSpec) -> None:
    """Send the SDK's records to the log file (once) and learn `spec`'s secrets for masking."""
    global _routed
    with _lock:
        _secrets.update(masked_forms(spec))
        if _routed:
            return
        _routed = True
    handler: logging.Handler
    try:
        from explorer.paths import log_dir

        handler = logging.FileHandler(log_dir(create=True) / "sdk.log", encoding="utf-8", delay=True)
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(_MaskingFormatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    handler.setLevel(logging.WARNING)
    for name in _SDK_LOGGERS:
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.propagate = False  # never up to the root logger, nor Python's last-resort stderr handler
