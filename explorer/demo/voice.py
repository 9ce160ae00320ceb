"""The demo's voice: `notifications/message` log entries and their level gate, in both protocol eras.

Every entry has a logger name (`LOGGER_*`) and, as `data`, an object with a human `message` and the
details a log pane may show. Which entries are sent depends on the era:

- handshake era: the connection has one level, `info` until the client sends `logging/setLevel`;
  entries at that level or more severe are sent.
- modern era (2026-07-28): `logging/setLevel` does not exist. A request opts in to entries at a level
  and above with the reserved `_meta` key `io.modelcontextprotocol/logLevel`, and receives them on its
  own response stream; without it, nothing is sent (the spec says MUST NOT). Entries that belong to no
  request (an inbox note arriving) can only ride an open `subscriptions/listen` stream that opted in.

Entries are built here rather than with the SDK's `send_log_message`, which warns that logging is
deprecated on every call (SEP-2577 deprecates it in 2026-07-28, but it is still part of that revision).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, get_args

import mcp.types as types
from mcp.server.session import ServerSession

logger = logging.getLogger(__name__)

LEVELS: tuple[types.LoggingLevel, ...] = get_args(types.LoggingLevel)  # least to most severe
DEFAULT_LEVEL: types.LoggingLevel = "info"

LOGGER_RESOURCES = "demo.resources"  # reads: large ones (debug), failed ones (warning, error)
LOGGER_COMPLETIONS = "demo.completions"  # completion/complete answers (info)
LOGGER_INBOX = "demo.inbox"  # a note arriving in docs://inbox/ (notice)
LOGGER_LISTING = "demo.listing"  # rejected cursors (warning)
LOGGER_ROLLUP = "demo.rollup"  # the slow metrics://rollup (info when done)


def at_least(level: types.LoggingLevel, threshold: types.LoggingLevel) -> bool:
    """Whether `level` is `threshold` or more severe."""
    return LEVELS.index(level) >= LEVELS.index(threshold)


def requested_level(meta: Mapping[str, Any] | None) -> types.LoggingLevel | None:
    """The level a modern-era request opted in to, or None (no entries for it)."""
    value = (meta or {}).get(types.LOG_LEVEL_META_KEY)
    return next((level for level in LEVELS if level == value), None)


def entry(
    level: types.LoggingLevel, logger_name: str, message: str, **details: Any
) -> types.ServerNotification:
    """A `notifications/message` whose data is `{"message": ..., **details}`."""
    return types.LoggingMessageNotification(
        params=types.LoggingMessageNotificationParams(
            level=level, logger=logger_name, data={"message": message, **details}
        )
    )


async def send(
    session: ServerSession, notification: types.ServerNotification, request_id: types.RequestId | None
) -> None:
    """Best effort: an entry that cannot be delivered (the client went away) is dropped, not raised."""
    try:
        await session.send_notification(notification, related_request_id=request_id)
    except Exception:  # boundary: the transport may already be closed
        logger.debug("could not deliver %s", type(notification).__name__, exc_info=True)
