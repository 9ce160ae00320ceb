"""Matched values are shown as the template form reads them, never as Python's repr.

A repeated key (`?a=1&a=2` under `{?q*}`) is kept as pairs; the details pane showed
`q  (('a', '1'), ('a', '2'))` where `match` printed `q=a=1,a=2`.
"""

from __future__ import annotations

import pytest

from explorer.model.fields import typed_values
from explorer.model.templates import match
from explorer.widgets.detail import DetailPane
from tests.test_detail_pane import PaneApp, shown


def test_values_read_as_the_form_reads_them() -> None:
    template = "x://s{/path*}/search{?q*}{&tags*}"
    values = match(template, "x://s/a/b/search?a=1&a=2&tags=red&tags=blue")
    assert values is not None
    assert typed_values(template, values) == {"path": "a/b", "q": "a=1,a=2", "tags": "red,blue"}


def test_a_value_of_no_variable_is_written_plainly() -> None:
    values = {"q": {"a": "1"}, "gone": [("k", "v"), ("k", "w")]}
    assert typed_values("x://{q}", values) == {"q": "a=1", "gone": "k=v,k=w"}  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_the_details_show_a_repeated_key_as_typed() -> None:
    template = "x://s/search{?q*}"
    values = match(template, "x://s/search?a=1&a=2")
    assert values is not None
    app = PaneApp()
    async with app.run_test(size=(80, 20)) as pilot:
        app.query_one(DetailPane).show_target("x://s/search?a=1&a=2", "s", template, values)
        await pilot.pause()
        text = shown(app)
        assert "a=1,a=2" in text and "('a'" not in text, text


@pytest.mark.anyio
async def test_the_go_to_box_shows_a_repeated_key_as_typed() -> None:
    from textual.app import App
    from textual.widgets import Input, OptionList

    from explorer.model.entries import TemplateEntry
    from explorer.model.uri_tree import UriTree
    from explorer.screens.goto import GoToDialog
    from tests.app_helpers import wait_for

    tree = UriTree()
    tree.add_templates([TemplateEntry("s", "x://s/search{?q*}", "search")])
    app: App[None] = App()
    async with app.run_test(size=(120, 30)) as pilot:
        dialog = GoToDialog(tree)
        app.push_screen(dialog)
        await wait_for(pilot, lambda: app.screen is dialog and bool(dialog.query(Input)))
        dialog.query_one(Input).value = "x://s/search?a=1&a=2"
        options = dialog.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count >= 1)
        shown = str(options.get_option_at_index(0).prompt)
        assert "q=a=1,a=2" in shown and "('a'" not in shown, shown
