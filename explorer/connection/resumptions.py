"""A server's event stream resumed again and again without its answer: stopped after a budget.

Why: when the event stream that carries a request's answer ends early, the SDK resumes it (a GET with
`Last-Event-ID`) after the server's `retry` delay, and again each time the resumed stream ends, with no
bound as long as each resumption is answered with an event stream. A server that ended every stream at
once with `retry: 1` had the SDK resume some 950 times a second, until its recursion (one level a
resumption) overflowed: the client then spun at full CPU, deaf to timeouts and Ctrl+C, and the TUI could
not quit. Here a resumption past `MOST_IN_WINDOW` within `WINDOW` seconds, or past `MOST_PER_CONNECTION`
in all (far below the recursion's limit), gets an event stream that fails as it is read: the SDK ends that
request with the sentence (as for any refused answer, `http_limits`), and the connection stays usable.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

import httpx2

from explorer.connection.errors import REFUSED_PREFIX
from explorer.connection.http_limits import EventsRefused, refuse_body

__all__ = ["MOST_IN_WINDOW", "MOST_PER_CONNECTION", "WINDOW", "Resumptions"]

MOST_IN_WINDOW = 20
WINDOW = 10.0  # seconds: a server that resumes as it should waits a second or more between resumptions
MOST_PER_CONNECTION = 500  # the SDK nests a call a resumption of one request: its recursion ends near 1,000


class Resumptions:
    """Response hook of one connection's HTTP client: counts the resumptions and refuses past the budget."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._recent: deque[float] = deque()
        self.total = 0

    async def on_response(self, response: httpx2.Response) -> None:
        request = response.request
        if request.method != "GET" or "last-event-id" not in request.headers:
            return
        now = self._clock()
        self.total += 1
        recent = self._recent
        recent.append(now)
        while recent and recent[0] < now - WINDOW:
            recent.popleft()
        if len(recent) > MOST_IN_WINDOW:
            said = f"{len(recent)} times within {WINDOW:g} s"
        elif self.total > MOST_PER_CONNECTION:
            said = f"{self.total} times on this connection"
        else:
            return
        refuse_body(
            response,
            EventsRefused(
                f"{REFUSED_PREFIX}never came: it ended its event stream early and had it resumed {said}; "
                "stopped resuming"
            ),
        )
