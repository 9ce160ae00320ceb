"""Asking for VS Code inputs (`${input:ID}`) before the server that uses them connects.

`InputAsker` queues the servers that wait for inputs and shows one `InputDialog` at a time, so several
servers starting together never stack dialogs; a value given once serves every server that uses the
same input id in this session. A `password` input is typed into a masked field. Escape means "do not
connect this server": it is marked failed with a sentence saying so, and reconnecting asks again.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from explorer.config import ConfigError, InputPrompt, ServerSpec
from explorer.config.inputs import fill_inputs
from explorer.sanitize import sanitize_line
from explorer.screens.type_ahead import expect_typing
from explorer.widgets.key_bar import KeyBar
from explorer.widgets.server_labels import middle_cut

# Called with the filled-in spec, or with None and the sentence saying why the server is not connected.
Done = Callable[[ServerSpec | None, str | None], None]


class InputDialog(ModalScreen[str | None]):
    """One input's value; dismisses with the value, or None when the user cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="input.cancel"),
        # The app's, which a dialog drops; `?` is typed into the field, `f1` helps there.
        Binding("question_mark,f1", "app.toggle_help", "Help", id="app.help"),
    ]
    HELP = """
## Input for a server
The server's config (VS Code `inputs`) asks for this value before the server starts; it is often a
token, and is masked wherever the explorer shows the server. `enter` uses the value, `escape` leaves
the server unconnected (reconnect it to be asked again).
"""
    DEFAULT_CSS = """
    InputDialog { align: center middle; }
    InputDialog > Vertical {
        width: 90; max-width: 95%; height: auto; border: thick $accent; background: $surface; padding: 0 1;
    }
    InputDialog #input-title { text-style: bold; padding-bottom: 1; }
    InputDialog #input-problem { color: $error; }
    InputDialog #input-hint { color: $text-muted; padding-top: 1; }
    """

    def __init__(self, prompt: InputPrompt, server: str) -> None:
        super().__init__()
        self.prompt = prompt
        self.server = server
        expect_typing(self)  # keys typed before its field has the focus go there

    def compose(self) -> ComposeResult:
        prompt = self.prompt
        with Vertical():
            yield Static(
                Content(f"Input {sanitize_line(prompt.id, 80)} for server {middle_cut(self.server, 80)}"),
                id="input-title",
            )
            if prompt.description:
                yield Static(Content(sanitize_line(prompt.description, 400)), id="input-description")
            if prompt.options:
                choices = ", ".join(sanitize_line(option, 80) for option in prompt.options)
                yield Static(Content("One of: " + choices), id="input-options")
            yield Input(
                value=prompt.default or "",
                password=prompt.password,
                placeholder="value" if not prompt.password else "value (hidden)",
                id="input-value",
            )
            yield Static(Content(""), id="input-problem")
            yield Static(
                Content(f"enter: use it · escape: do not connect {middle_cut(self.server, 60)}"),
                id="input-hint",
            )
        yield KeyBar()  # this dialog's keys, not the screen's below it

    def on_mount(self) -> None:
        self.query_one("#input-value", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        problem = self.prompt.problem(event.value)
        if problem is not None:
            self.query_one("#input-problem", Static).update(Content(sanitize_line(problem, 300)))
            return
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class InputAsker:
    """Fills the pending inputs of servers, one dialog at a time, remembering values for the session."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.values: dict[str, str] = {}
        self._queue: deque[tuple[ServerSpec, Done]] = deque()
        self._asking = False

    def fill(self, spec: ServerSpec, done: Done) -> None:
        """Ask for what `spec` still needs (unless already known), then call `done`."""
        self._queue.append((spec, done))
        self._next()

    @property
    def waiting(self) -> list[str]:
        """Names of the servers waiting for an input, the one being asked for first."""
        return [spec.name for spec, _ in self._queue]

    def _next(self) -> None:
        while self._queue and not self._asking:
            spec, done = self._queue[0]
            missing = [prompt for prompt in spec.inputs if prompt.id not in self.values]
            if missing:
                self._ask(spec, missing[0])
                return
            self._queue.popleft()
            try:
                filled = fill_inputs(spec, self.values)
            except ConfigError as exc:
                done(None, str(exc))
            else:
                done(filled, None)

    def _ask(self, spec: ServerSpec, prompt: InputPrompt) -> None:
        self._asking = True

        def answered(value: str | None) -> None:
            self._asking = False
            if value is None:
                _, done = self._queue.popleft()
                done(None, f'not connected: no value was given for input "{prompt.id}"')
            else:
                self.values[prompt.id] = value
            self._next()

        self.app.push_screen(InputDialog(prompt, spec.name), answered)
