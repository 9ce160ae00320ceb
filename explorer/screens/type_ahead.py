"""Type-ahead: the keys typed right after a key that opens an input go to that input, in order.

Why: Textual sends a key to the widget that has the focus when the app takes the key off its queue, and
runs the key's bindings when the key comes back up to the app. Keys typed in one burst with the key that
opens an input (`/docs`, `g` then `docs://`: a fast typist, or any keys while the app is busy) were all
sent to the tree before the first one's binding opened the input, and came back to the app with the
input focused, where nothing takes a printable key: the filter box opened empty (with `/file` the `i`
opened the server overview, the tree still focused). A dialog's field gets the focus once the dialog is
mounted, and keys that came before were lost the same way.

How: what opens an input calls `expect_typing` (the filter's action, a dialog's constructor); until then
this module does nothing. The app's one `TypeAhead` then sees each message the app has handled (its
`message_signal`): a printable key (or a paste) typed before the input had the focus that reaches the
app is typed into the input there and then, in the order the keys came back (and stopped, when it is
on its way to the input, so it is typed once). Those that come before the input has the focus wait,
and are typed when it gets it; an `enter` or `backspace` after them (a key the dialog does not bind)
waits too and is sent again after the text. Any other key keeps its meaning: it comes back to the app
after the keys typed before it, so `enter` submits the text typed before it and `escape` closes. Keys
typed once the input has the focus go to it as Textual sends them; the key that opened the input is
left alone (`expect_typing` runs while the app handles it).

An input with `select_on_focus` selects its text when it handles its `Focus`, which may come after the
type-ahead is typed: the text is selected before the first key typed here instead (so that key replaces
the old text, as typed slowly), and not again when the `Focus` is handled.

Keys typed behind an `enter` that opens a form from a list (a template from the tree, a prompt with
arguments from the prompts list) came back to the app with the list focused before the form opened, and
ran the list's bindings (`r` refreshed). The app's `on_key`, as that `enter` is back at the app just
before its binding runs (the keys before it have run: `j` moved the highlight), asks the screen
(`opens_form`) and calls `expect_form`: every key behind it is taken as it comes back up from the list,
in order, and runs no binding (the app's `on_key` skips Textual's binding check for them, `will_type`);
the form's `expect_typing` takes them over, or, if no form opens, they are sent on.

Keys typed behind an `escape` that closes the filter box go to the tree: the screen gives it the focus
back at once.

Not covered: a key that arrives while an earlier one is still on its way back from the old focus (a
millisecond) is typed before it. A key sent again after the text runs its binding when it comes back up
to the app, after the keys sent with it reached the focused widget: `tab 5` types the `5` into the field
`tab` leaves, and a key behind the `enter` that submits goes into the field too. A key the form binds
(the prompt form's `enter`) that comes before its field has the focus runs at once, before the text.
Keys behind an `escape` that closes the filter box when the box already had the focus as they came
reach the box before `escape` comes back to the screen: they are typed there, then cleared with it.

Two names of Textual's private modules are used (`tests/test_type_ahead.py` fails when they move): the
clock of `Event.time`, and which message pump runs now (is the app handling the key that opened the
input, or is a screen's handler opening it).
"""

from __future__ import annotations

from functools import partial
from math import inf
from typing import Any
from weakref import WeakKeyDictionary, WeakSet, ref

from textual import events
from textual._context import active_message_pump
from textual._time import get_time
from textual.app import App
from textual.message import Message
from textual.screen import Screen
from textual.types import NoActiveAppError
from textual.widget import Widget
from textual.widgets import Input
from textual.widgets.input import Selection

__all__ = ["expect_form", "expect_typing", "form_settled", "will_type"]

_ROUTERS: WeakKeyDictionary[App[Any], TypeAhead] = WeakKeyDictionary()

FORM_WAIT = 1.0
"""Seconds the keys typed behind a form's opener wait at most for the form (it opens at once, or not)."""


def expect_typing(screen: Screen[Any], field: Input | None = None) -> None:
    """`screen` opens `field` (None: the first input it focuses) for typing: the keys typed after the
    key that opened it (or still on their way when it opened) and before the field had the focus go to
    the field."""
    try:
        app = screen.app
    except NoActiveAppError:
        return  # made outside a running app (a test of the screen alone): no keys to expect
    if not app.is_running:
        return
    router = _ROUTERS.get(app)
    if router is None:
        router = _ROUTERS[app] = TypeAhead(app)
    router.expect(screen, field)


def expect_form(app: App[Any], opener: events.Key) -> None:
    """`opener` (an `enter` on its way to the binding that opens a form from a list) will open a form whose
    first field takes the keys typed behind it: they wait, and run no binding of the list meanwhile. The
    form's `expect_typing` takes them over; `form_settled` sends them on if no form opened."""
    router = _ROUTERS.get(app)
    if router is None:
        router = _ROUTERS[app] = TypeAhead(app)
    router.expect_form(opener)


def form_settled(app: App[Any]) -> None:
    """What `expect_form` announced has run: if no form took the waiting keys, they go where the focus is."""
    router = _ROUTERS.get(app)
    if router is not None:
        router.form_settled()


def will_type(app: App[Any], key: events.Key) -> bool:
    """Whether `key`, now on its way through the app, is type-ahead that goes to an input: the app must
    not act on it too (a `?` in a URI typed in one burst with `g` opened the help panel as well)."""
    router = _ROUTERS.get(app)
    return router is not None and router.will_take(key)


def _text_of(message: Message) -> str | None:
    """What a key or a paste types into an input (as `Input` takes them), None for other keys."""
    if isinstance(message, events.Key):
        return message.character if message.is_printable else None
    if isinstance(message, events.Paste):
        lines = message.text.splitlines()
        return lines[0] if lines else ""
    return None


def _take(message: Message) -> None:
    """A key typed here: if it is still on its way to a widget, that widget does nothing with it."""
    message.stop()
    message.prevent_default()


def _again(app: App[Any], message: events.Key | events.Paste) -> None:
    """Send a key (or paste) again, as the terminal would: to the widget focused now."""
    copy: events.Key | events.Paste
    copy = (
        events.Key(message.key, message.character)
        if isinstance(message, events.Key)
        else events.Paste(message.text)
    )
    copy.set_sender(app)
    app.post_message(copy)


class TypeAhead:
    """The app's type-ahead: at most one input expects it at a time (the last one opened)."""

    def __init__(self, app: App[Any]) -> None:
        self._app = app
        self._screen: ref[Screen[Any]] | None = None  # None: nothing expects typing
        self._wanted: Input | None = None  # the input that expects it (None: the first one focused)
        self._field: Input | None = None  # the input, once it has the focus
        self._focused_at = inf  # when it got the focus: keys typed before are type-ahead
        self._skip = False  # the message the app handles now opened the input: not type-ahead
        self._waiting: list[events.Key | events.Paste] = []  # typed before the input had the focus
        self._resending = False  # a key waited behind the text and was sent again: the later ones too
        self._selecting: Input | None = None  # focused, its `Focus` (which selects its text) not handled
        self._unselecting: WeakSet[Input] = WeakSet()  # `select_on_focus` off until its `Focus` is handled
        self._opener: events.Key | None = None  # a form is on its way (`expect_form`): keys wait for it
        self._taken: WeakSet[Message] = WeakSet()  # keys (and pastes) taken here: typed or waiting
        self._returning: WeakSet[Message] = WeakSet()  # keys back up at the app behind a form's opener
        app.message_signal.subscribe(app, self._handled, immediate=True)

    def expect_form(self, opener: events.Key) -> None:
        if self._opener is not None:
            return  # a form is on its way: this `enter` waits behind it like any other key (and submits it)
        self._stop()
        self._skip = False
        self._opener = opener
        self._app.set_timer(FORM_WAIT, partial(self._form_late, opener))  # if it opened nothing

    def _form_late(self, opener: events.Key) -> None:
        if self._opener is opener:  # not a later opener's
            self.form_settled()

    def form_settled(self) -> None:
        if self._opener is None:
            return
        self._opener = None
        waiting, self._waiting = self._waiting, []
        for message in waiting:
            _again(self._app, message)

    def expect(self, screen: Screen[Any], field: Input | None) -> None:
        waiting = list(self._waiting) if self._opener is not None else []  # typed behind the form's opener
        self._stop()
        self._waiting = waiting
        self._screen = ref(screen)
        self._wanted = field
        # Called while the app handles a message (a key's binding ran the action that opens the input):
        # the next message the app says it has handled is that one, the key that opened the input.
        self._skip = active_message_pump.get(None) is self._app
        screen.watch(screen, "focused", self._focus_moved, init=False)
        focused = screen.focused
        if isinstance(focused, Input) and (field is None or focused is field):
            self._focused(focused, fresh=False)  # it has the focus already (and has selected its text)

    def _stop(self) -> None:
        self._opener = None
        self._screen = None
        self._wanted = None
        self._field = None
        self._focused_at = inf
        self._waiting.clear()
        self._resending = False

    def _focus_moved(self, focused: Widget | None) -> None:
        """Watches the screen's `focused`: the input's first focus ends the wait."""
        screen = self._screen() if self._screen is not None else None
        if screen is None or self._field is not None or focused is None or screen.focused is not focused:
            return
        if isinstance(focused, Input) and (self._wanted is None or focused is self._wanted):
            self._focused(focused, fresh=True)
        else:  # the focus went elsewhere (a form without fields): what waited goes there, as typed slowly
            waiting = list(self._waiting)
            self._stop()
            for message in waiting:
                _again(self._app, message)

    def _focused(self, field: Input, *, fresh: bool) -> None:
        self._field = field
        self._focused_at = get_time()
        if fresh and field.select_on_focus:
            self._selecting = field
            field.message_signal.subscribe(field, partial(self._field_handled, field), immediate=True)
        waiting, self._waiting = self._waiting, []
        for index, message in enumerate(waiting):
            text = _text_of(message)
            if text is None:  # a key after the text (`enter`): sent again, and the keys after it
                self._resending = True
                for later in waiting[index:]:
                    _again(self._app, later)
                return
            self._type(field, text)

    def _field_handled(self, field: Input, message: Message) -> None:
        """Every message the field that got the focus has handled, until its `Focus`."""
        if not isinstance(message, events.Focus):
            return
        field.message_signal.unsubscribe(field)
        if field in self._unselecting:
            self._unselecting.discard(field)
            field.select_on_focus = True
        if self._selecting is field:
            self._selecting = None

    def _type(self, field: Input, text: str) -> None:
        if self._selecting is field and field.select_on_focus:
            # The field has not handled its focus yet: its text is selected now, so that this key
            # replaces it as it would have, and not after this key.
            field.selection = Selection(0, len(field.value))
            field.select_on_focus = False
            self._unselecting.add(field)
        selection = field.selection
        if selection.is_empty:
            field.insert_text_at_cursor(text)
        else:
            field.replace(text, *selection)

    def will_take(self, key: events.Key) -> bool:
        """Whether `_handled` types `key` into the input (or keeps it for a form on its way) once the app
        has handled it."""
        if self._opener is not None:
            if key is self._opener:
                return False
            self._returning.add(key)  # back up from the list: taken now, in the order the list had them
            return True
        screen = self._screen() if self._screen is not None else None
        if screen is None or self._skip or self._app.screen is not screen or _text_of(key) is None:
            return False
        if self._field is not None:
            return screen.focused is self._field and key.time < self._focused_at
        return screen.focused is None

    def _take(self, message: events.Key | events.Paste) -> None:
        _take(message)
        self._taken.add(message)

    def _handled(self, message: Message) -> None:
        """Every message the app has handled (the app's `message_signal` is published after each)."""
        if self._screen is None and self._opener is None:
            return
        if self._skip:
            self._skip = False
            return
        if not isinstance(message, (events.Key, events.Paste)) or message in self._taken:
            return  # a key taken here once: the app handles it again as it comes back up, not taken again
        if self._opener is not None:
            # Behind it: for the form's field, or sent on. A key is taken as it comes back up from the list
            # (`will_take`), not as the app first sends it there: one on its way there already would come
            # back after it, and be typed after it.
            if message is not self._opener and (
                isinstance(message, events.Paste) or message in self._returning
            ):
                self._take(message)
                self._waiting.append(message)
            return
        if self._screen is None:
            return
        screen = self._screen()
        app = self._app
        if screen is None or screen not in app.screen_stack:
            self._stop()
            return
        if app.screen is not screen:
            return
        text = _text_of(message)
        field = self._field
        if field is not None:
            if screen.focused is not field:
                self._stop()  # the focus moved on: keys go where it is
            elif message.time < self._focused_at and text is not None:
                self._take(message)
                if self._resending:
                    _again(app, message)
                else:
                    self._type(field, text)
            return
        if screen.focused is not None:
            return
        if text is not None or (
            self._waiting and isinstance(message, events.Key) and message.key not in screen.active_bindings
        ):
            self._take(message)
            self._waiting.append(message)
