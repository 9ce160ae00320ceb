"""A very long URI against thousands of templates it could match: the go-to box answers from a bounded
amount of matching (the most specific templates) and says how many templates it did not check.

Matching is linear in the URI, so 100,000 characters against 5,000 templates took minutes of a core
(`enter` waited with it). The work is counted here, not timed: a counting wrapper around the matcher
fails (an AssertionError, which also ends the go-to box's worker) as soon as it is asked for more
than a small number of full matches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.widgets import Input, Static

import explorer.model.resolve as resolve_module
import explorer.model.templates.matching as matching
from explorer.model.resolve import resolve, snapshot
from explorer.model.uri_tree import UriTree
from explorer.screens.goto import GoToDialog
from tests.app_helpers import demo_spec, settled_app, wait_for
from tests.factories import tpl

TEMPLATES = 5_000
LONG_URI = "t://x/" + "a" * 100_000
MOST_SPECIFIC = "t://x/aaaa{rest}"
FULL_MATCHES_ALLOWED = 100  # a small number, far below the 5,000 templates the URI's prefix fits


def crowded_tree() -> UriTree:
    """5,000 templates whose literal prefix the long URI starts with (as the hunt's server lists them),
    and one more specific than all of them, listed last."""
    tree = UriTree()
    texts = [f"t://x/{{a{k}}}" if k % 2 else f"t://{{+p{k}}}" for k in range(TEMPLATES)]
    tree.add_templates([tpl("s", text) for text in texts] + [tpl("s", MOST_SPECIFIC)])
    return tree


def counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    """Wrap `module.name` to count its calls; more than FULL_MATCHES_ALLOWED fails the test at once."""
    real: Callable[..., Any] = getattr(module, name)
    calls = [0]

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] > FULL_MATCHES_ALLOWED:
            raise AssertionError(f"{name} called more than {FULL_MATCHES_ALLOWED} times for one long URI")
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


def test_a_huge_uri_is_matched_against_the_most_specific_templates_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    matched = counting(monkeypatch, matching, "match_readings")
    diagnosed = counting(monkeypatch, resolve_module, "diagnose")

    found = resolve(snapshot(crowded_tree(), LONG_URI))

    assert 0 < matched[0] <= FULL_MATCHES_ALLOWED and diagnosed[0] <= FULL_MATCHES_ALLOWED
    assert found.resolves
    assert found.matches[0].entry.uri_template == MOST_SPECIFIC  # the most specific is checked first
    assert found.matches[0].values == {"rest": "a" * (100_000 - 4)}
    assert found.unchecked == TEMPLATES + 1 - matched[0]  # every template not checked is counted


def test_a_uri_of_ordinary_length_is_still_matched_against_every_template() -> None:
    tree = UriTree()
    tree.add_templates([tpl("s", f"t://x/{{a{k}}}") for k in range(300)])

    found = resolve(snapshot(tree, "t://x/readme"))

    assert len(found.matches) == 300 and found.unchecked == 0


@pytest.mark.anyio
@pytest.mark.slow
async def test_the_go_to_box_says_which_templates_a_huge_uri_was_not_checked_against(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counting(monkeypatch, matching, "match_readings")
    async with settled_app(demo_spec()) as (app, pilot):
        dialog = GoToDialog(crowded_tree())
        await app.push_screen(dialog)
        await wait_for(pilot, lambda: dialog.is_mounted)
        dialog.query_one("#goto-input", Input).value = LONG_URI
        summary = dialog.query_one("#goto-summary", Static)
        # a generous hang guard: the answer comes from a bounded number of matches
        await wait_for(
            pilot,
            lambda: (
                dialog._resolving is None
                and (dialog.resolution is not None or "Could not resolve" in str(summary.render()))
            ),
            60,
        )
        text = str(summary.render())
        assert "template produces it" in text or "templates produce it" in text, text
        resolution = dialog.resolution
        assert resolution is not None and resolution.unchecked > 0
        assert f"{resolution.unchecked:,} more templates" in text, text
        assert f"too long ({len(LONG_URI):,} characters)" in text, text
