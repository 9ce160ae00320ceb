"""The drill-down's "no completions" line says why before the fixed key hint, so a pane of 120 columns
(or less) cuts the hint, never the reason."""

from __future__ import annotations

import pytest

from explorer.widgets.resource_tree import ResourceTree
from tests.test_resource_tree import TreeApp, drill_tree, requested, screen_lines

pytestmark = pytest.mark.anyio


async def test_the_reason_comes_before_the_key_hint_and_is_not_cut_at_120_columns() -> None:
    app = TreeApp(drill_tree())
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(ResourceTree)
        view.select_prefix("metrics://rollup{/segments*}")
        await pilot.press("l")
        ask = requested(app)[-1]
        reason = "the server answered -32000: completion backend unavailable, try again later please"
        view.set_drill_children(ask.node, ask.drill, [], reason)
        await pilot.pause()
        [line] = [line for line in screen_lines(view) if "no completions" in line]
        assert f"no completions ({reason})" in line
        assert line.endswith(": press enter for the form") or len(line) >= view.size.width - 2
