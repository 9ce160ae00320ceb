"""`[keymap]` keys Textual never reports, and keys taken from another binding's defaults, are warned about."""

from __future__ import annotations

import pytest

from explorer.app import ExplorerApp
from explorer.config import Config
from explorer.keymap import (
    KeyStringError,
    binding_ids,
    binding_owners,
    binding_scopes,
    explorer_bindings,
    normalize_keys,
    validate_keymap,
)
from explorer.widgets.filter_box import FilterBox
from explorer.widgets.key_bar import KeyBar


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def explorer_validate(keymap: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    owners = binding_owners()
    return validate_keymap(keymap, binding_ids(owners), binding_scopes(owners))


@pytest.mark.parametrize(
    ("keys", "said"),
    [
        ("esc", "'esc' is not a key name Textual reports (write 'escape')"),
        ("ctrl+G", "(write 'ctrl+g')"),
        ("ctrl+alt+del", "'del' is not a key name Textual reports (write 'ctrl+alt+delete')"),
        ("return", "(write 'enter')"),
        ("pgup", "(write 'pageup')"),
        ("shift+pgdn", "(write 'shift+pagedown')"),
        ("F5", "(write 'f5')"),
        ("Esc", "(write 'escape')"),
        ("foo_bar", "'foo_bar' is not a key name Textual reports (key names are single characters"),
        ("latin_small_letter_a", "is not a key name Textual reports"),
        ("escap", "did you mean 'escape'"),
    ],
)
def test_key_names_textual_never_reports_are_refused_with_the_right_name(keys: str, said: str) -> None:
    with pytest.raises(KeyStringError) as caught:
        normalize_keys(keys)
    assert said in str(caught.value)
    keymap, warnings = validate_keymap({"thing.do": keys}, {"thing.do"})
    assert keymap == {}
    assert len(warnings) == 1 and said in warnings[0]


@pytest.mark.parametrize(
    "keys",
    [
        "escape,enter,tab,space,backspace,delete,insert",
        "home,end,pageup,pagedown,up,down,left,right",
        "f1,f12,f24,ctrl+f5,shift+tab,ctrl+space",
        "question_mark,exclamation_mark,comma,full_stop,euro_sign,at,minus,plus,slash,backslash",
        "G,ctrl+g,alt+shift+x,ctrl+right_square_bracket,caps_lock",
    ],
)
def test_the_names_textual_reports_are_accepted_as_they_are(keys: str) -> None:
    assert normalize_keys(keys) == keys


def test_every_default_key_of_the_explorer_is_a_name_textual_reports() -> None:
    for binding_id, keys, _ in explorer_bindings():
        assert normalize_keys(keys) == keys, binding_id


def test_a_key_taken_from_another_bindings_default_is_warned_about() -> None:
    keymap, warnings = explorer_validate({"main.connect": "q"})
    assert keymap == {"main.connect": "q"}
    assert len(warnings) == 1
    assert warnings[0].startswith("keymap: key 'q' is given to main.connect and is app.quit's default: ")


def test_no_warning_when_the_other_binding_is_given_other_keys_too() -> None:
    assert explorer_validate({"main.connect": "q", "app.quit": "ctrl+q"}) == (
        {"main.connect": "q", "app.quit": "ctrl+q"},
        [],
    )


def test_defaults_of_bindings_never_active_together_are_no_clash() -> None:
    # `e` exports in the protocol log and shows the error on the main screen: different screens.
    assert explorer_validate({"log.export": "ctrl+e", "main.show_error": "e"}) == (
        {"log.export": "ctrl+e", "main.show_error": "e"},
        [],
    )
    keymap, warnings = explorer_validate({"main.goto": "r"})
    assert keymap == {"main.goto": "r"}
    assert len(warnings) == 1 and "is main.refresh's default" in warnings[0]


@pytest.mark.anyio
async def test_the_app_keeps_the_default_keys_of_refused_entries_and_says_why() -> None:
    config = Config(keymap={"main.filter": "esc", "main.goto": "ctrl+G", "main.connect": "q"})
    app = ExplorerApp([], config=config, remember_theme=False)
    async with app.run_test(size=(160, 30)) as pilot:
        await pilot.pause(0.2)
        bar = str(app.screen.query_one(KeyBar).render())
        assert "/ Filter" in bar and "g Go to URI" in bar
        assert "esc Filter" not in bar and "^G" not in bar
        said = [str(note.message) for note in app._notifications if note.title == "Keymap"]
        assert len(said) == 3
        assert "(write 'escape')" in said[0]
        assert "(write 'ctrl+g')" in said[1]
        assert "key 'q' is given to main.connect and is app.quit's default" in said[2]
        await pilot.press("slash")
        await pilot.pause(0.1)
        assert isinstance(app.focused, FilterBox)
