"""What a server says on its own, kept small: log text cut at arrival, a ring bounded in entries and bytes.

Why: the server decides how much it says. 300 `notifications/message` entries of 10 MB each were kept
whole (3.2 GB) while the Log tab shows 2,000 characters of an entry. An entry now keeps the start of its
text (`KEPT_CHARS`: the tab's 2,000 and room for masking secrets first) and the size of the whole, so the
tab can say "(cut, 10.0 MB)"; the ring drops its oldest entries past `VOICE_LIMIT` entries or
`VOICE_BYTES` of kept objects, whichever comes first.
"""

from __future__ import annotations

import json
import sys
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from explorer.connection.live import LogEntry, Progress

__all__ = ["KEPT_CHARS", "TOKEN_CHARS", "VOICE_BYTES", "VOICE_LIMIT", "VoiceLog", "cut_text", "kept_bytes"]

KEPT_CHARS = 4_000  # characters of an entry's text kept (the Log tab shows 2,000 of them)
TOKEN_CHARS = 200  # characters of a progress token kept (the explorer's own tokens are short)
VOICE_LIMIT = 1_000  # entries kept per server
VOICE_BYTES = 2_000_000  # bytes of kept entries per server (`kept_bytes`)


def cut_text(data: Any, most: int = KEPT_CHARS) -> tuple[str, int, bool]:
    """`data` as the text the Log tab shows (a string as it is, anything else as JSON), cut to its first
    `most` characters; the UTF-8 size of the whole text; whether it was cut."""
    if isinstance(data, str):
        text = data
    else:
        try:
            text = json.dumps(data, ensure_ascii=False, default=str)
        except (ValueError, TypeError, RecursionError):  # a cycle or a nesting too deep: say what it is
            text = f"<{type(data).__name__}>"
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    if len(text) <= most:
        return text, size, False
    return text[:most], size, True


def kept_bytes(news: LogEntry | Progress) -> int:
    """What one kept entry costs in memory: the record and the strings it holds."""
    strings = [getattr(news, name, None) for name in ("level", "logger", "text", "message", "token")]
    return sys.getsizeof(news) + sum(sys.getsizeof(s) for s in strings if isinstance(s, str))


class VoiceLog:
    """One server's log entries and progress, oldest dropped first past `limit` entries or `max_bytes`."""

    def __init__(self, limit: int = VOICE_LIMIT, max_bytes: int = VOICE_BYTES) -> None:
        self.limit = limit
        self.max_bytes = max_bytes
        self._entries: deque[tuple[LogEntry | Progress, int]] = deque()
        self.bytes = 0  # `kept_bytes` of what is kept
        self.dropped = 0  # entries dropped to stay within the bounds

    def append(self, news: LogEntry | Progress) -> None:
        cost = kept_bytes(news)
        self._entries.append((news, cost))
        self.bytes += cost
        while len(self._entries) > 1 and (len(self._entries) > self.limit or self.bytes > self.max_bytes):
            _old, old_cost = self._entries.popleft()
            self.bytes -= old_cost
            self.dropped += 1

    def __iter__(self) -> Iterator[LogEntry | Progress]:
        return (news for news, _cost in self._entries)

    def __len__(self) -> int:
        return len(self._entries)
