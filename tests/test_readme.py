"""The README stays true: its keymap table lists every binding id with its default keys."""

from __future__ import annotations

import re

from scripts.keymap_table import table
from tests.helpers.paths import ROOT


def readme_keymap_table() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- keymap-table -->\n(.*?)\n<!-- /keymap-table -->", text, re.DOTALL)
    assert match is not None, "the README lost its keymap table markers"
    return match.group(1).strip()


def test_the_readme_lists_every_binding_id_with_its_default_keys() -> None:
    assert readme_keymap_table() == table(), "run `python scripts/keymap_table.py` and paste it in the README"


def test_every_binding_has_an_id() -> None:
    from textual.binding import Binding

    from explorer.keymap import binding_owners

    for owner in binding_owners():
        for binding in Binding.make_bindings(owner.__dict__.get("BINDINGS", ())):
            assert binding.id, f"{owner.__name__}: the binding for {binding.key!r} has no id"
