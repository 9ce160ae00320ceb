"""A listing's progress on stderr: pages, items, rate, and the bound it will stop at.

On a terminal one line is rewritten in place about ten times a second and erased when the listing ends, so
stdout (the answer) is never mixed with it. Elsewhere (a pipe, a CI log) nothing is written unless asked
for (`--progress`); then a plain line is written every second, as a log wants.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Mapping
from typing import TextIO

import anyio

from explorer.cli.output import mask
from explorer.model.listing import BoundsView, Listing
from explorer.sanitize import sanitize_line

TTY_INTERVAL = 0.1
LOG_INTERVAL = 1.0


def wanted(flag: bool | None, stream: TextIO | None = None) -> bool:
    """`--progress` / `--no-progress` when given, else whether stderr is a terminal."""
    if flag is not None:
        return flag
    stream = stream if stream is not None else sys.stderr
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


class ProgressLine:
    """Renders the running listings of `listings` (server name -> its Listing) on `stream`."""

    def __init__(
        self, listings: Mapping[str, Listing], bounds: BoundsView, stream: TextIO, *, in_place: bool
    ) -> None:
        self.listings = listings
        self.bounds = bounds
        self.stream = stream
        self.in_place = in_place
        self._shown = False

    def text(self) -> str:
        """One line: each running listing's progress (servers that finished are left out)."""
        parts = [
            listing.progress(self.bounds).text()
            for listing in list(self.listings.values())
            if listing.started_at is not None
        ]
        return sanitize_line(mask("  |  ".join(parts)), limit=None)

    def show(self) -> None:
        text = self.text()
        if not text:
            return
        if self.in_place:
            width = max(20, shutil.get_terminal_size().columns - 1)
            if len(text) > width:
                text = text[: width - 1] + "…"
            self.stream.write("\r" + text + "\x1b[K")
            self._shown = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    async def run(self) -> None:
        """Show the line until cancelled: ten times a second in place, else once a second."""
        interval = TTY_INTERVAL if self.in_place else LOG_INTERVAL
        while True:
            await anyio.sleep(interval)
            self.show()

    def clear(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False
