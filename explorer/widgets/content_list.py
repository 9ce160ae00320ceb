"""The last tab of a read with many contents: the ones past the tabs, listed, each shown when chosen.

Why: a tab and a content view per item made a read of 10,000 contents mount 10,000 of each (28 s
frozen, 1.27 GB). The preview shows the first `ContentPreview` tabs as usual and lists the rest here,
one line each (number, URI, mime type, size, kind); `enter` on a line shows that one content below the
list, in place of the one shown before, so only one content view is ever mounted here. The list is
filled when its tab is first opened (the preview calls `fill`), not when the read arrives.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from explorer.model.contents import Content as ReadContent
from explorer.model.contents import human_size
from explorer.sanitize import sanitize_line
from explorer.widgets.lists import VimOptionList


def describe(number: int, content: ReadContent) -> Content:
    """One line for a listed content: `21. x://many/20  ·  text/plain  ·  9 B  ·  text`."""
    parts = [f"{number:,}. {sanitize_line(content.uri, 200) if content.uri else '(no URI)'}"]
    parts.append(sanitize_line(content.mime_type, 60) if content.mime_type else "no mime type")
    if content.kind not in ("empty", "invalid"):
        parts.append(human_size(content.size))
    parts.append(content.kind)
    return Content("  ·  ".join(parts))


class MoreContents(Vertical):
    """Contents `first`, `first + 1`, ... of a read, as a list; the chosen one is shown below it."""

    DEFAULT_CSS = """
    MoreContents {
        height: 1fr;
        & > .more-help { height: auto; padding: 0 1; color: $text-muted; }
        & > VimOptionList { height: 1fr; max-height: 12; }
        & > #more-shown { height: 2fr; }
    }
    """

    def __init__(
        self, contents: Sequence[ReadContent], first: int, make_view: Callable[[ReadContent], Widget]
    ) -> None:
        super().__init__()
        self.contents = list(contents)
        self.first = first
        self._make_view = make_view
        self._filled = False

    def compose(self) -> ComposeResult:
        help_text = f"{len(self.contents):,} more contents. Choose one and press enter to show it."
        yield Static(Content(help_text), classes="more-help")
        yield VimOptionList()
        yield Vertical(id="more-shown")

    def fill(self) -> None:
        """List the contents (once): the preview calls this when their tab is first opened."""
        if self._filled:
            return
        self._filled = True
        options = [Option(describe(self.first + i, c), id=str(i)) for i, c in enumerate(self.contents)]
        self.query_one(VimOptionList).add_options(options)

    async def show_content(self, index: int) -> None:
        """Show content `index` (of this list) below the list, replacing the one shown before."""
        shown = self.query_one("#more-shown", Vertical)
        await shown.remove_children()
        await shown.mount(self._make_view(self.contents[index]))

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        await self.show_content(event.option_index)
