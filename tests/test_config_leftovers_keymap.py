"""A keymap entry with several bad keys names every one of them, in the one warning of that entry."""

from __future__ import annotations

from explorer.keymap import validate_keymap


def test_every_bad_key_of_a_binding_is_named_in_its_one_warning() -> None:
    keymap, warnings = validate_keymap(
        {"main.filter": "esc,ctrl+G,slash,f13x", "main.goto": "g"}, {"main.filter", "main.goto"}
    )
    assert keymap == {"main.goto": "g"}  # the entry is dropped: its binding keeps its default keys
    assert len(warnings) == 1
    warning = warnings[0]
    assert warning.startswith("keymap: 'main.filter' = 'esc,ctrl+G,slash,f13x' is not usable: ")
    assert "'esc' is not a key name Textual reports (write 'escape'); " in warning
    assert (
        "'ctrl+G' never comes: Textual names a letter with a modifier in lower case (write 'ctrl+g'); "
        in (warning)
    )
    assert "'f13x' is not a key name Textual reports (did you mean 'f13'" in warning
    assert "slash" not in warning.partition("is not usable: ")[2]  # the good key is not blamed


def test_the_same_problem_twice_is_said_once() -> None:
    _, warnings = validate_keymap({"main.goto": "g,,x,"}, {"main.goto"})
    assert warnings == [
        "keymap: 'main.goto' = 'g,,x,' is not usable: one of the comma-separated keys is empty "
        '(write a comma key as "comma").'
    ]
