"""The keys that work now, on the bottom line: one widget that paints one line.

Why not Textual's `Footer`: it mounts a widget per key and restyles each of them whenever the bindings
change (every focus change). At start-up that was about 0.1 s of the main screen's first second, half
of it while the MCP SDK imports in a thread, and the listing waited for it (`benchmarks/README.md`,
start-up). This bar looks the same (key in bold, its description after it, the command palette's key on
the right, the footer's theme colours) and works the same (a click on a key presses it, a disabled key
is dim and rings the bell, hovering a key shows its tooltip), but it only recomputes a list of tuples and
repaints one line when the bindings change.

A screen may name hidden keys of its own that act on one pane (`PANE_KEYS`: a widget id to binding ids):
the bar shows them while the focus is in that pane, after the pane's own keys, and nowhere else (the
main screen's `s`, Follow, is named beside the preview's keys, and the tree's bar stays short). A
binding cannot carry that itself: Textual rebuilds every binding as a plain `Binding`.

When the keys do not fit with the footer's padding they are packed closer (one space apart), as the stock
compact footer does; when they do not fit even then, the last ones are cut and an ellipsis says so,
leaving the palette's key in sight.

A toggle's key says what it will do now (`s Source`, then `s Rendered`): the node that owns a binding
may have `binding_description(action) -> str | None`, asked whenever the bar recomputes (the bindings
changed); None keeps the binding's own description. A `check_action` cannot say it (it only enables or
hides a key), so the owner calls `refresh_bindings()` after a toggle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.screen import Screen

ELLIPSIS = "…"
PANE_KEYS = "PANE_KEYS"
"""The screen's class attribute, if any, of its hidden keys shown while the focus is in a pane:
`{widget id: frozenset of binding ids}`."""
SEPARATOR = "▏"  # before the palette's key, as the stock footer's left border draws it
DESCRIBE = "binding_description"
"""The method, if any, of a binding's owner that says what its key does now: `(action) -> str | None`."""


def _description(node: object, action: str, description: str) -> str:
    """What the binding's owner says its key does now (`DESCRIBE`), else the binding's description."""
    describe = getattr(node, DESCRIBE, None)
    said = describe(action) if callable(describe) else None
    return said if isinstance(said, str) and said else description


class Key(NamedTuple):
    """One key as the bar shows it."""

    key: str  # what `simulate_key` presses
    display: str  # as the app shows it (keymaps included): "^p", "?"
    description: str
    enabled: bool
    tooltip: str


class Spot(NamedTuple):
    """Where a key was painted: columns [start, end) of the line."""

    start: int
    end: int
    key: Key


class KeyBar(Widget, can_focus=False):
    """The active bindings that ask to be shown (`Binding.show`), one line, docked at the bottom."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "key-bar--key",
        "key-bar--description",
        "key-bar--separator",
        "key-bar--hover",
    }
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .key-bar--separator {
            color: $foreground 20%;
        }
        & > .key-bar--hover {
            background: $block-hover-background;
        }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.keys: tuple[Key, ...] = ()
        self.palette_key: Key | None = None
        self.spots: tuple[Spot, ...] = ()  # set by each render: what a click or a hover lands on
        self.cut = 0  # keys left out at the last render, for want of room
        self._hover_column: int | None = None

    # ------------------------------------------------------------------------------ the keys
    def on_mount(self) -> None:
        # The screen says when its bindings are ready (after its widgets are mounted: a screen's
        # `check_action` may ask them), and again whenever they change.
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self.read_bindings()

    def read_bindings(self) -> None:
        """The screen's active bindings now; repaints only when what is shown changed."""
        app = self.app
        active = self.screen.active_bindings
        keys: list[Key] = []
        seen_actions: set[str] = set()
        shown_here = self._pane_keys()
        pane_keys: list[Key] = []  # the screen's keys for the focused pane, after the pane's own
        own = 0  # keys of the focused widget and its parents below the screen, which come first
        for active_binding in active.values():
            binding = active_binding.binding
            if not (binding.show or binding.id in shown_here) or binding.action in seen_actions:
                continue  # one key per action, the first bound (as the stock footer)
            seen_actions.add(binding.action)
            key = Key(
                binding.key,
                app.get_key_display(binding),
                _description(active_binding.node, binding.action, binding.description),
                active_binding.enabled,
                active_binding.tooltip or "",
            )
            if not binding.show:
                pane_keys.append(key)
                continue
            keys.append(key)
            if active_binding.node is not self.screen and active_binding.node is not app:
                own = len(keys)
        keys[own:own] = pane_keys
        palette: Key | None = None
        palette_binding = active.get(app.COMMAND_PALETTE_BINDING) if app.ENABLE_COMMAND_PALETTE else None
        if palette_binding is not None:
            binding = palette_binding.binding
            palette = Key(
                binding.key,
                app.get_key_display(binding),
                binding.description,
                palette_binding.enabled,
                binding.tooltip or binding.description,
            )
            keys = [key for key in keys if key.key != palette.key]
        if tuple(keys) != self.keys or palette != self.palette_key:
            self.keys = tuple(keys)
            self.palette_key = palette
            self.refresh()

    def _pane_keys(self) -> frozenset[str]:
        """Ids of the screen's hidden bindings that act on a pane the focus is in (`PANE_KEYS`)."""
        screen = self.screen
        panes: Mapping[str, frozenset[str]] = getattr(screen, PANE_KEYS, None) or {}
        if not panes:
            return frozenset()
        focused = screen.focused
        if focused is None:
            return frozenset()
        ids: set[str] = set()
        for node in focused.ancestors_with_self:
            pane = panes.get(node.id) if node.id is not None else None
            if pane:
                ids |= pane
        return frozenset(ids)

    # ------------------------------------------------------------------------------ painting
    def render(self) -> Text:
        width = self.size.width
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        palette = self.palette_key
        palette_cells = 0 if palette is None else 1 + self._width(palette, compact=True)
        if palette_cells > width:
            palette, palette_cells = None, 0  # a terminal too narrow for it: the other keys first
        room = width - palette_cells
        compact = sum(self._width(key, compact=False) for key in self.keys) > room
        shown = self._fitting([self._width(key, compact=compact) for key in self.keys], room)
        self.cut = len(self.keys) - shown
        line = Text(no_wrap=True, overflow="crop", end="")
        spots: list[Spot] = []
        for key in self.keys[:shown]:
            start = line.cell_len
            self._paint(line, key, key_style, description_style, compact=compact)
            spots.append(Spot(start, line.cell_len, key))
        if self.cut:
            line.append(ELLIPSIS, description_style)
        if palette is not None:
            line.append(" " * (room - line.cell_len))
            line.append(SEPARATOR, self.get_component_rich_style("key-bar--separator"))
            start = line.cell_len
            self._paint(line, palette, key_style, description_style, compact=True)
            spots.append(Spot(start, line.cell_len, palette))
        self.spots = tuple(spots)
        if self._hover_column is not None:
            hover = self.get_component_rich_style("key-bar--hover", partial=True)
            for spot in spots:
                if spot.start <= self._hover_column < spot.end:
                    line.stylize(hover, spot.start, spot.end)
        return line

    @staticmethod
    def _fitting(widths: list[int], room: int) -> int:
        """How many keys to paint: all when they fit, else as many as fit with an ellipsis after them."""
        if sum(widths) <= room:
            return len(widths)
        used = shown = 0
        for width in widths:
            if used + width + len(ELLIPSIS) > room:
                break
            used += width
            shown += 1
        return shown

    @staticmethod
    def _width(key: Key, *, compact: bool) -> int:
        """Cells of one key: " k Desc " with the footer's padding, "k Desc " packed (its trailing space
        is the gap to the next key)."""
        described = 1 + cell_len(key.description) if key.description else 0
        return cell_len(key.display) + described + (1 if compact else 2)

    @staticmethod
    def _paint(line: Text, key: Key, key_style: Style, description_style: Style, *, compact: bool) -> None:
        """ " k Desc " (roomy) or "k Desc " (compact), dim when the key is disabled."""
        dim = Style(dim=True) if not key.enabled else Style()
        line.append(key.display if compact else f" {key.display} ", key_style + dim)
        if key.description:
            described = f" {key.description} " if compact else f"{key.description} "
            line.append(described, description_style + dim)
        elif compact:
            line.append(" ")

    # ------------------------------------------------------------------------------ the mouse
    def key_at(self, column: int) -> Key | None:
        """The key painted at `column`, or None."""
        for spot in self.spots:
            if spot.start <= column < spot.end:
                return spot.key
        return None

    def on_mouse_down(self, event: events.MouseDown) -> None:
        key = self.key_at(event.x)
        if key is None:
            return
        event.stop()
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        key = self.key_at(event.x)
        column = event.x if key is not None else None
        was = self.key_at(self._hover_column) if self._hover_column is not None else None
        self._hover_column = column
        if key != was:
            self.tooltip = (key.tooltip or None) if key is not None else None
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover_column is not None:
            self._hover_column = None
            self.tooltip = None
            self.refresh()
