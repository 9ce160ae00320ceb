"""The `[keymap]` table: checked against the binding ids, in the exact form Textual's `set_keymap` takes."""

from __future__ import annotations

import re
from typing import ClassVar

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Static

from explorer.keymap import KeyStringError, binding_ids, normalize_keys, validate_keymap


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class TinyApp(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "do_it", "Do it", id="thing.do"),
        Binding("z", "other", "Other", id="thing.other"),
    ]

    def __init__(self, keymap: dict[str, str]) -> None:
        super().__init__()
        self.keymap_config = keymap
        self.done = 0
        self.other = 0
        self.warnings: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("tiny")

    def on_mount(self) -> None:
        keymap, self.warnings = validate_keymap(self.keymap_config, binding_ids([type(self)]))
        self.set_keymap(keymap)

    def action_do_it(self) -> None:
        self.done += 1

    def action_other(self) -> None:
        self.other += 1


@pytest.mark.anyio
async def test_a_remapped_key_runs_the_action_and_the_old_key_does_not() -> None:
    app = TinyApp({"thing.do": "y"})
    async with app.run_test() as pilot:
        assert app.warnings == []
        await pilot.press("y")
        assert app.done == 1
        await pilot.press("x")
        assert app.done == 1
        await pilot.press("z")
        assert app.other == 1, "bindings not in the keymap keep their keys"


@pytest.mark.anyio
async def test_several_keys_and_punctuation_reach_textual_in_its_form() -> None:
    app = TinyApp({"thing.do": "/, ctrl+f", "thing.other": "?"})
    async with app.run_test() as pilot:
        assert app.warnings == []
        await pilot.press("slash")
        await pilot.press("ctrl+f")
        assert app.done == 2
        await pilot.press("question_mark")
        assert app.other == 1
        await pilot.press("x", "z")
        assert (app.done, app.other) == (2, 1)


@pytest.mark.anyio
async def test_unusable_entries_leave_the_default_keys_in_place() -> None:
    app = TinyApp({"thing.do": "ctrl + y", "thing.dont": "q"})
    async with app.run_test() as pilot:
        assert len(app.warnings) == 2
        await pilot.press("x")
        assert app.done == 1


def test_usable_entries_are_normalized() -> None:
    keymap, warnings = validate_keymap(
        {"a": "slash,ctrl+f", "b": " ? , ctrl+/ ", "c": "f1,shift+pageup", "d": "ctrl+shift+alt+x", "e": "G"},
        {"a", "b", "c", "d", "e"},
    )
    assert warnings == []
    assert keymap == {
        "a": "slash,ctrl+f",
        "b": "question_mark,ctrl+slash",
        "c": "f1,shift+pageup",
        "d": "ctrl+shift+alt+x",
        "e": "G",
    }


@pytest.mark.parametrize(
    ("keys", "reason"),
    [
        ("", "no keys given"),
        ("   ", "no keys given"),
        ("x,,y", "empty"),
        ("x,", "empty"),
        ("ctrl + f", "whitespace inside"),
        ("ctrl+ f", "whitespace inside"),
        ("page up", "whitespace inside"),
        ("ctrl+", "empty part"),
        ("+", "empty part"),
        ("ctl+f", "'ctl' in 'ctl+f' is not a modifier"),
        ("Ctrl+f", "is not a modifier"),
        ("ctrl+ctrl+f", "repeats a modifier"),
        ("F1", "'F1' is not a lower-case key name"),
        ("page-up", "is not a lower-case key name"),
        ("x\x1b", "control character"),
    ],
)
def test_malformed_key_strings_get_one_warning_each(keys: str, reason: str) -> None:
    keymap, warnings = validate_keymap({"thing.do": keys, "thing.other": "q"}, {"thing.do", "thing.other"})
    assert keymap == {"thing.other": "q"}
    assert len(warnings) == 1
    assert "'thing.do'" in warnings[0] and reason in warnings[0]
    with pytest.raises(KeyStringError, match=re.escape(reason)):
        normalize_keys(keys)
    assert issubclass(KeyStringError, ValueError)


def test_unknown_ids_are_warned_about_with_a_suggestion() -> None:
    keymap, warnings = validate_keymap(
        {"tree.filtr": "slash", "nothing.like.it": "q", "tree.filter": "ctrl+f"},
        ["tree.filter", "tree.refresh"],
    )
    assert keymap == {"tree.filter": "ctrl+f"}
    assert len(warnings) == 2
    assert "'tree.filtr' is not a binding id" in warnings[0] and "did you mean 'tree.filter'" in warnings[0]
    assert warnings[1].removeprefix("keymap: ") == "'nothing.like.it' is not a binding id."


def test_one_key_for_two_bindings_is_kept_but_warned_about() -> None:
    keymap, warnings = validate_keymap({"a": "q,w", "b": "w"}, {"a", "b"})
    assert keymap == {"a": "q,w", "b": "w"}
    assert warnings == ["keymap: key 'w' is given to both 'a' and 'b'."]


def test_binding_ids_are_collected_from_classes_and_their_bases() -> None:
    class Base(Widget):
        BINDINGS: ClassVar[list[BindingType]] = [Binding("a", "a", id="base.a"), ("b", "b", "no id")]

    class Child(Base):
        BINDINGS: ClassVar[list[BindingType]] = [Binding("j,down", "down", id="child.down")]

    ids = binding_ids([Child, TinyApp])
    assert {"base.a", "child.down", "thing.do", "thing.other"} <= ids
    assert "b" not in ids
