"""The filter's highlight on template rows marks what the filter matched.

A template whose literal prefix needs pct-encoding (``t://a b/{x}``) sits in the tree where its expansions
do (under ``t://a%20b``) and a prefix filter matches it by that placed text, while its row shows the
server's own text (``{x}``, ``é{x}``): the highlight is mapped back onto the label the row shows.
"""

from __future__ import annotations

import pytest

from explorer.model.uri_tree import PatternNode, UriTree
from explorer.widgets.resource_tree import ResourceTree
from tests.factories import res, tpl
from tests.test_resource_tree import SIZE, TreeApp

pytestmark = pytest.mark.anyio


def encoded_tree() -> UriTree:
    tree = UriTree()
    tree.add_resources([res("alpha", "t://a%20b/one"), res("alpha", "t://%C3%A9z")])
    tree.add_templates(
        [
            tpl("alpha", "t://a b/{x}", "Spaced"),
            tpl("alpha", "t://é{x}", "Accented"),
            tpl("alpha", "t://plain/{x}", "Plain"),
            tpl("alpha", "t://plainly{x}", "Plainly"),
        ]
    )
    return tree


def marked(view: ResourceTree, y: int) -> str:
    """Line `y` as text, each highlighted run (the match style underlines) in brackets."""
    out: list[str] = []
    for segment in view.render_line(y):
        hit = segment.style is not None and bool(segment.style.underline)
        out.append(f"[{segment.text}]" if hit else segment.text)
    return "".join(out).rstrip()


async def pattern_lines(text: str) -> dict[str, str]:
    """Filter by `text`; each shown template (by its text) -> its line with the highlight marked."""
    app = TreeApp(encoded_tree())
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.set_filter(text)
        await pilot.pause()
        lines: dict[str, str] = {}
        for y, (_depth, _label, node) in enumerate(view.visible_rows()):
            if isinstance(node, PatternNode):
                lines[node.uri_template] = marked(view, y).lstrip(" │├└╴▸▾")
        return lines


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The matched text ends in the ancestors' segments (`t://`, `a%20b`): nothing in the label.
        ("t://a%20b/", {"t://a b/{x}": "⟨T⟩ {x}  Spaced"}),
        # Into the label: the characters the matched text covers, as the server wrote them.
        ("t://a%20b/{", {"t://a b/{x}": "⟨T⟩ [{]x}  Spaced"}),
        ("t://a%20b/{x}", {"t://a b/{x}": "⟨T⟩ [{x}]  Spaced"}),
        ("t://%C3%A9", {"t://é{x}": "⟨T⟩ [é]{x}  Accented"}),
        ("t://%C3%A9{x", {"t://é{x}": "⟨T⟩ [é{x]}  Accented"}),
        ("t://%C3", {"t://é{x}": "⟨T⟩ [é]{x}  Accented"}),  # part of é's encoding: é
    ],
)
async def test_prefix_filter_highlights_encoded_templates_on_the_shown_label(
    text: str, expected: dict[str, str]
) -> None:
    lines = await pattern_lines(text)
    assert {key: lines[key] for key in expected} == expected


async def test_substring_filter_highlights_the_shown_text() -> None:
    """A substring filter matches the server's text, and the placed one: `%C3%A9` is `é` in `t://é{x}`,
    as in every URI it expands to, and that `é` is highlighted."""
    lines = await pattern_lines("{x}")
    assert lines["t://a b/{x}"] == "⟨T⟩ [{x}]  Spaced"
    assert lines["t://é{x}"] == "⟨T⟩ é[{x}]  Accented"
    assert lines["t://plain/{x}"] == "⟨T⟩ [{x}]  Plain"
    lines = await pattern_lines("%C3%A9")
    assert lines["t://é{x}"] == "⟨T⟩ [é]{x}  Accented"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # In the placed text of the label: the characters it stands for, as the server wrote them.
        ("a%20b", "⟨T⟩ [a b]{y}  Mid"),
        ("A%20B{", "⟨T⟩ [a b{]y}  Mid"),
        ("%2", "⟨T⟩ a[ ]b{y}  Mid"),  # part of the space's encoding: the space
        ("x/a%", "⟨T⟩ [a ]b{y}  Mid"),  # begins in the ancestors' segments: from the label's start
        ("a b", "⟨T⟩ [a b]{y}  Mid"),  # the server's own text, as before
        ("b{y}", "⟨T⟩ a [b{y}]  Mid"),  # in both texts: one run
        ("mid", "⟨T⟩ a b{y}  [Mid]"),  # the name
    ],
)
async def test_a_substring_of_the_placed_text_is_highlighted_on_the_shown_label(
    text: str, expected: str
) -> None:
    """`t://x/a b{y}` sits under `t://x` with the label `a b{y}`: a substring of its placed text
    (`t://x/a%20b{y}`) finds it and lights the characters of the label it stands for."""
    tree = UriTree()
    tree.add_resources([res("alpha", "t://x/one")])
    tree.add_templates([tpl("alpha", "t://x/a b{y}", "Mid")])
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.set_filter(text)
        await pilot.pause()
        lines = [marked(view, y).lstrip(" │├└╴▸▾") for y in range(len(view.visible_rows()))]
    assert expected in lines, lines


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("t://plain/", {"t://plain/{x}": "⟨T⟩ {x}  Plain"}),
        ("t://plain/{", {"t://plain/{x}": "⟨T⟩ [{]x}  Plain"}),
        ("t://plainl", {"t://plainly{x}": "⟨T⟩ [plainl]y{x}  Plainly"}),
        ("t://plainly{x}/more", {"t://plainly{x}": "⟨T⟩ [plainly{x}]  Plainly"}),
    ],
)
async def test_plain_templates_are_highlighted_as_before(text: str, expected: dict[str, str]) -> None:
    lines = await pattern_lines(text)
    assert {key: lines[key] for key in expected} == expected
