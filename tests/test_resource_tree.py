"""`ResourceTree` widget: what a user sees (rendered lines) and what the model says, driven by real keys.

A tiny App hosts the widget over a `UriTree` built in each test. Lines are read with `render_line(y)`
(the viewport) or `visible_rows()` (every materialized row).
"""

from __future__ import annotations

import html
import random
from collections.abc import Iterable

import pytest
from rich.style import Style
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.message import Message

from explorer.model.entries import ResourceEntry, TemplateEntry
from explorer.model.uri_tree import PatternNode, UriNode, UriTree
from explorer.theming import theme_variable_defaults
from explorer.widgets.resource_tree import ResourceTree, filter_runs
from tests.factories import res, tpl

pytestmark = pytest.mark.anyio

SIZE = (90, 30)


def demo_tree() -> UriTree:
    tree = UriTree()
    tree.add_resources(
        [
            res("alpha", "demo://docs/readme.md", "Readme"),
            res("alpha", "demo://docs/guide/intro.md"),
            res("alpha", "demo://docs/guide/setup.md", "Setup", title="Setting up"),
            res("alpha", "demo://src/explorer/model/uri_tree.py"),
            res("alpha", "demo://src/explorer/model/entries.py"),
            res("alpha", "demo://files/", "Files", mimeType="inode/directory"),
            res("beta", "demo://docs/readme.md", "Readme"),
            res("beta", "notes://inbox/today.txt"),
        ]
    )
    tree.add_templates([tpl("alpha", "demo://docs/{id}", "Doc by id")])
    return tree


class TreeApp(App[None]):
    """The widget alone, with the explorer's theme variables registered."""

    def __init__(self, tree: UriTree, *, show_servers: bool = False) -> None:
        super().__init__()
        self.uri_model = tree
        self.badges = show_servers
        self.messages: list[Message] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults()

    def compose(self) -> ComposeResult:
        yield ResourceTree(self.uri_model, show_servers=self.badges)

    def on_mount(self) -> None:
        self.query_one(ResourceTree).focus()

    def on_resource_tree_node_highlighted(self, message: ResourceTree.NodeHighlighted) -> None:
        self.messages.append(message)

    def on_resource_tree_node_selected(self, message: ResourceTree.NodeSelected) -> None:
        self.messages.append(message)

    def on_resource_tree_node_expanded(self, message: ResourceTree.NodeExpanded) -> None:
        self.messages.append(message)

    def on_resource_tree_node_collapsed(self, message: ResourceTree.NodeCollapsed) -> None:
        self.messages.append(message)

    def on_resource_tree_filter_applied(self, message: ResourceTree.FilterApplied) -> None:
        self.messages.append(message)

    def on_resource_tree_drill_requested(self, message: ResourceTree.DrillRequested) -> None:
        self.messages.append(message)

    def on_resource_tree_drill_selected(self, message: ResourceTree.DrillSelected) -> None:
        self.messages.append(message)


def screen_lines(view: ResourceTree) -> list[str]:
    """The viewport as text, trailing blank lines dropped."""
    lines = [view.render_line(y).text.rstrip() for y in range(view.scrollable_content_region.height)]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def labels(view: ResourceTree) -> list[str]:
    return ["  " * depth + label for depth, label, _node in view.visible_rows()]


def node(tree: UriTree, prefix: str) -> UriNode:
    found = tree.node_for(prefix)
    assert found is not None, prefix
    return found


def pending(view: ResourceTree) -> bool:
    """Read through a call, so a type checker does not keep an earlier narrowing of the property."""
    return view.filter_pending


def cursor(view: ResourceTree) -> UriNode | PatternNode:
    return view.cursor_node


def of_type(app: TreeApp, kind: type[Message]) -> list[Message]:
    return [message for message in app.messages if isinstance(message, kind)]


# ------------------------------------------------------------------------------------------- layout


async def test_initial_view_shows_top_level_rows_with_counts() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        await pilot.pause()
        assert screen_lines(view) == [
            "▾ All resources  8",
            "├╴▸ demo://  7",
            "└╴  notes://inbox/today.txt",  # a single-child chain is one row
        ]
        assert view.cursor_node is tree.root


@pytest.mark.slow
async def test_expand_collapse_and_move_by_keys() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        await pilot.press("down", "right")
        assert screen_lines(view)[1:6] == [
            "├╴▾ demo://  7",
            "│ ├╴▸ docs  4",
            "│ ├╴▹ files/  Files",  # an inode/directory resource is a folder, not a leaf
            "│ └╴▸ src/explorer/model  2",
            "└╴  notes://inbox/today.txt",
        ]
        await pilot.press("right")  # already expanded: to the first child
        assert view.cursor_node is node(tree, "demo://docs")
        await pilot.press("l")
        assert view.is_expanded(node(tree, "demo://docs"))
        assert labels(view)[3:7] == ["      {id}", "      guide", "      readme.md", "    files/"]
        await pilot.press("h")  # collapse
        assert not view.is_expanded(node(tree, "demo://docs"))
        await pilot.press("h")  # already collapsed: to the parent
        assert view.cursor_node is node(tree, "demo://")
        await pilot.press("space")
        assert labels(view) == ["", "  demo://", "  notes://inbox/today.txt"]
        await pilot.press("space", "j", "j", "k")
        assert view.cursor_node is node(tree, "demo://docs")
        await pilot.press("end")
        assert view.cursor_node is node(tree, "notes://inbox/today.txt")
        await pilot.press("home")
        assert view.cursor_node is tree.root
        await pilot.press("pagedown")
        assert view.cursor_line == view.row_count - 1
        await pilot.press("pageup")
        assert view.cursor_line == 0


async def test_collapsed_chain_is_one_row_and_the_model_keeps_segments() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.expand_node(node(tree, "demo://"))
        await pilot.pause()
        assert "│ └╴▸ src/explorer/model  2" in screen_lines(view)
        assert tree.node_for("demo://src/explorer") is not None  # the real segments are still there
        assert view.select_prefix("demo://src/explorer/model")
        await pilot.press("right")
        await pilot.pause()
        lines = screen_lines(view)
        assert "│ └╴▾ src/explorer/model  2" in lines
        assert "│   ├╴  entries.py" in lines
        assert "│   └╴  uri_tree.py" in lines
        # An inner node of the chain selects the chain's row.
        assert view.select_prefix("demo://src/explorer")
        assert view.cursor_node is node(tree, "demo://src/explorer/model")


async def test_names_counts_and_templates() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.expand_node(node(tree, "demo://docs/guide"))
        await pilot.pause()
        lines = screen_lines(view)
        assert "│ │ ├╴▸ ⟨T⟩ {id}  Doc by id" in lines
        assert "│ │ ├╴▾ guide  2" in lines  # resources and templates below
        assert "│ │ │ ├╴  intro.md" in lines  # the name equals the label: not repeated
        assert "│ │ │ └╴  setup.md  Setting up" in lines  # the title wins over the name
        assert "│ │ └╴  readme.md  Readme" in lines


async def test_pattern_rows_are_styled_and_marked() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.select_prefix("demo://docs/{id}")
        await pilot.pause()
        assert isinstance(view.cursor_node, PatternNode)
        view.action_cursor_up()  # the pattern row without the cursor style on it
        await pilot.pause()
        y = next(i for i, line in enumerate(screen_lines(view)) if "⟨T⟩" in line)
        strip = view.render_line(y)
        pattern_style = view.get_component_rich_style("resource-tree--pattern", partial=True)
        styled = [segment for segment in strip if segment.text in ("⟨T⟩ ", "{id}")]
        assert len(styled) == 2
        for segment in styled:
            assert isinstance(segment.style, Style)
            assert segment.style.color == pattern_style.color
            assert segment.style.italic
        label_style = next(segment.style for segment in strip if segment.text == "Doc by id")
        assert label_style is not None and label_style.color != pattern_style.color


async def test_badges_only_with_show_servers() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.expand_node(node(tree, "demo://docs"))
        await pilot.pause()
        readme = next(line for line in screen_lines(view) if "readme.md" in line)
        assert "alpha" not in readme and "beta" not in readme
        view.show_servers = True
        await pilot.pause()
        readme = next(line for line in screen_lines(view) if "readme.md" in line)
        assert readme.endswith("Readme  alpha   beta")  # one URI, two servers: two badges
        today = next(line for line in screen_lines(view) if "today.txt" in line)
        assert today.endswith(" beta")


async def test_prefix_rows_badge_every_server_below_them() -> None:
    tree = UriTree()
    tree.add_resources([res("everything", f"demo://resource/static/{i}") for i in range(3)])
    tree.add_resources([res("demo", "docs://handbook/a"), res("everything", "docs://other/b")])
    tree.add_templates([tpl("demo", "docs://handbook/{chapter}", "chapter")])
    app = TreeApp(tree, show_servers=True)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.expand_node(node(tree, "docs://"))
        view.expand_node(node(tree, "docs://handbook"))
        await pilot.pause()
        lines = screen_lines(view)
        # A prefix whose subtree belongs to one server, though nothing is listed at the prefix itself.
        assert "├╴▸ demo://resource/static  3  everything" in lines
        assert any(
            line.startswith("└╴▾ docs://  3") and line.endswith(" demo   everything") for line in lines
        )
        assert any(line.startswith("  ├╴▾ handbook  2") and line.endswith("  demo") for line in lines)
        assert "  │ ├╴▸ ⟨T⟩ {chapter}  chapter  demo" in lines  # a template and a leaf: their own servers
        assert "  │ └╴  a  demo" in lines
        assert "  └╴  other/b  everything" in lines
        # The badges follow removals (the model clears the bits; the rows repaint).
        tree.remove_server("demo")
        view.model_changed()
        await pilot.pause()
        assert screen_lines(view)[1:] == [
            "├╴▸ demo://resource/static  3  everything",
            "└╴  docs://other/b  everything",  # now a chain: one row, a leaf
        ]


async def test_incomplete_servers_marked_on_the_root_row() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.incomplete_servers = {"beta", "[b]x\x1b"}
        await pilot.pause()
        assert screen_lines(view)[0] == "▾ All resources  8  ⚠ incomplete: [b]x\\x1b, beta"
        view.incomplete_servers = set()
        await pilot.pause()
        assert screen_lines(view)[0] == "▾ All resources  8"


async def test_the_listing_count_repaints_the_root_row_alone() -> None:
    """The count on the root row changes with every page of a listing: the screen shows each one, and
    no other line is repainted for it (a whole repaint per page was the frame a key waited for)."""
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        await pilot.press("right")
        labels_before = screen_lines(view)[1:]
        refreshed: list[tuple[Region, ...]] = []
        original = view.refresh

        def spy(*regions: Region, **kwargs: bool) -> ResourceTree:
            refreshed.append(regions)
            return original(*regions, **kwargs)

        view.refresh = spy  # type: ignore[method-assign]
        for items in (1_000, 2_000, 12_345):
            view.set_markers(listing={"alpha": items})
            await pilot.pause()
            shown = html.unescape(app.export_screenshot()).replace("\xa0", " ")
            assert f"listing… ({items:,} items)" in shown  # the screen, not only the widget
            assert screen_lines(view)[0] == f"▾ All resources  8  listing… ({items:,} items)"
            assert screen_lines(view)[1:] == labels_before
        assert refreshed and all(len(r) == 1 and r[0].y == 0 and r[0].height == 1 for r in refreshed)
        view.set_markers(listing={})
        await pilot.pause()
        assert screen_lines(view)[0] == "▾ All resources  8"


async def test_a_line_whose_look_did_not_change_keeps_its_painted_strip() -> None:
    """After a page merged, the lines that look the same keep the very strip the screen has:
    Textual caches its crops and divisions of it, so the next frame that shows it (a key that scrolls)
    does not start them again."""
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        await pilot.press("right")
        rows = len(screen_lines(view))
        before = {line: view._strips.get((line, line == view.cursor)) for line in range(rows)}
        assert all(strip is not None for strip in before.values())
        tree.add_resources([res("alpha", "zz://late/x")])  # a page: the root's count and a last row change
        view.model_changed()
        await pilot.pause()
        after = {line: view._strips.get((line, line == view.cursor)) for line in range(rows)}
        kept = [line for line in range(rows) if after[line] is before[line]]
        same = [line for line in range(rows) if after[line] == before[line]]
        assert 0 not in same and len(same) >= rows - 2  # the count, and the guide of the old last row
        assert kept == same


class ThemedApp(TreeApp):
    """Variables derived from the current theme, as the explorer's App does."""

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)


async def test_theme_change_repaints_with_the_new_theme_variables() -> None:
    tree = demo_tree()
    app = ThemedApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.expand_node(node(tree, "demo://docs"))
        await pilot.pause()
        y = next(i for i, line in enumerate(screen_lines(view)) if "⟨T⟩" in line)

        def pattern_colour() -> object:
            segment = next(seg for seg in view.render_line(y) if seg.text == "{id}")
            assert segment.style is not None
            return segment.style.color

        before = pattern_colour()
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause()
        after = pattern_colour()
        assert after == view.get_component_rich_style("resource-tree--pattern", partial=True).color
        assert after != before


# ------------------------------------------------------------------------------------------ messages


async def test_messages_highlighted_selected_expanded() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        await pilot.pause()
        app.messages.clear()
        await pilot.press("down")
        highlighted = of_type(app, ResourceTree.NodeHighlighted)
        assert len(highlighted) == 1
        assert isinstance(highlighted[0], ResourceTree.NodeHighlighted)
        assert highlighted[0].node is node(tree, "demo://")
        assert highlighted[0].control is view
        await pilot.press("right")
        expanded = of_type(app, ResourceTree.NodeExpanded)
        assert len(expanded) == 1 and isinstance(expanded[0], ResourceTree.NodeExpanded)
        assert expanded[0].node is node(tree, "demo://")
        await pilot.press("down", "down", "down")
        assert len(of_type(app, ResourceTree.NodeHighlighted)) == 4  # once per move
        assert view.cursor_node is node(tree, "demo://src/explorer/model")
        app.messages.clear()
        await pilot.press("up", "up")  # to docs (a plain prefix)
        await pilot.press("enter")
        selected = of_type(app, ResourceTree.NodeSelected)
        assert len(selected) == 1 and isinstance(selected[0], ResourceTree.NodeSelected)
        assert selected[0].node is node(tree, "demo://docs")
        # enter on a plain prefix node also toggles it
        assert view.is_expanded(node(tree, "demo://docs"))
        await pilot.press("left")
        assert of_type(app, ResourceTree.NodeCollapsed)


async def test_message_order_expanded_then_highlighted_then_collapsed() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        await pilot.pause()
        app.messages.clear()
        assert view.select_prefix("demo://docs/guide/setup.md")
        await pilot.pause()
        posted = [(type(m).__name__, getattr(m, "node", None)) for m in app.messages]
        assert posted == [
            ("NodeExpanded", node(tree, "demo://")),
            ("NodeExpanded", node(tree, "demo://docs")),
            ("NodeExpanded", node(tree, "demo://docs/guide")),
            ("NodeHighlighted", node(tree, "demo://docs/guide/setup.md")),
        ]
        app.messages.clear()
        view.collapse_node(node(tree, "demo://docs"))  # the cursor was inside: it goes to docs
        await pilot.pause()
        posted = [(type(m).__name__, getattr(m, "node", None)) for m in app.messages]
        assert posted == [
            ("NodeHighlighted", node(tree, "demo://docs")),
            ("NodeCollapsed", node(tree, "demo://docs")),
        ]


# ----------------------------------------------------------------------------------- model changes


async def test_cursor_stays_on_its_node_when_siblings_arrive_before_it() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        assert view.select_prefix("demo://docs/readme.md")
        await pilot.pause()
        before = view.cursor_line
        readme = view.cursor_node
        tree.add_resources([res("alpha", "demo://docs/a.md"), res("alpha", "demo://docs/b.md")])
        view.model_changed()
        await pilot.pause()
        assert view.cursor_node is readme
        assert view.cursor_line == before + 2
        lines = screen_lines(view)
        assert "│ │ ├╴  a.md" in lines and "│ │ ├╴  b.md" in lines
        assert "│ ├╴▾ docs  6" in lines


async def test_expansions_kept_after_pages_and_after_a_refresh_that_replaces_nodes() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.expand_node(node(tree, "demo://docs/guide"))
        view.select_prefix("demo://docs/guide/setup.md")
        await pilot.pause()
        tree.add_resources([res("alpha", "demo://docs/guide/zz.md"), res("alpha", "demo://aaa")])
        view.model_changed()
        assert view.is_expanded(node(tree, "demo://docs/guide"))
        assert any(label.endswith("zz.md") for label in labels(view))

        old_guide = node(tree, "demo://docs/guide")
        old_setup = view.cursor_node
        # A refresh that drops alpha and lists it again: every alpha node is a new object.
        listing = [
            res("alpha", "demo://docs/guide/intro.md"),
            res("alpha", "demo://docs/guide/setup.md", "Setup"),
            res("alpha", "demo://docs/guide/new.md"),
            res("alpha", "demo://src/explorer/model/uri_tree.py"),
        ]
        tree.remove_server("alpha")
        tree.replace_server("alpha", listing, [tpl("alpha", "demo://docs/{id}")])
        view.model_changed()
        await pilot.pause()
        guide = node(tree, "demo://docs/guide")
        assert guide is not old_guide
        assert view.is_expanded(guide)
        assert view.cursor_node is not old_setup
        assert view.cursor_node is node(tree, "demo://docs/guide/setup.md")
        lines = screen_lines(view)
        assert "│ │ ├╴▾ guide  3" in lines
        assert "│ │ │ ├╴  new.md" in lines
        assert not any("zz.md" in line for line in lines)
        rows = view.visible_rows()
        view.rebuild()
        assert view.visible_rows() == rows


async def test_removed_cursor_node_moves_the_cursor_to_the_nearest_ancestor() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.select_prefix("notes://inbox/today.txt")
        tree.remove_server("beta")
        view.model_changed()
        await pilot.pause()
        assert view.cursor_node is tree.root  # notes:// is gone entirely
        assert not any("notes" in label for label in labels(view))


async def test_chain_row_splits_when_a_page_adds_a_branch() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.expand_node(node(tree, "demo://src/explorer/model"))
        await pilot.pause()
        assert "src/explorer/model" in [label for _d, label, _n in view.visible_rows()]
        tree.add_resources([res("alpha", "demo://src/explorer/widgets/tree.py")])
        view.model_changed()
        await pilot.pause()
        rows = [(depth, label) for depth, label, _n in view.visible_rows()]
        # `src/explorer` is now a chain with two children; what was open stays open.
        assert (2, "src/explorer") in rows
        assert (3, "model") in rows and (4, "entries.py") in rows
        assert (3, "widgets/tree.py") in rows
        snapshot = view.visible_rows()
        view.rebuild()
        assert view.visible_rows() == snapshot


@pytest.mark.slow
async def test_incremental_updates_match_a_full_rebuild() -> None:
    """Random pages, refreshes, removals, filters, expansions, collapses: `model_changed` equals `rebuild`."""
    rng = random.Random(1234)
    tree = UriTree()
    app = TreeApp(tree)

    def random_uri() -> str:
        depth = rng.randint(1, 4)
        path = "/".join(rng.choice(["a", "b", "c", "", "d1", "d2"]) for _ in range(depth))
        tail = rng.choice(["", "", "", "?q=1", "#f"])
        return f"{rng.choice(['x://', 'y://', 'z:'])}{path}{tail}"

    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        listed: dict[str, list[ResourceEntry]] = {"s1": [], "s2": []}
        templates: dict[str, list[TemplateEntry]] = {"s1": [], "s2": []}
        answered = 0
        for step in range(400):
            action = rng.random()
            server = rng.choice(["s1", "s2"])
            rows = view.visible_rows()
            drillable = [i for i, (_d, _label, item) in enumerate(rows) if isinstance(item, PatternNode)]
            if action < 0.4:
                page = [res(server, random_uri()) for _ in range(rng.randint(1, 6))]
                listed[server].extend(page)
                tree.add_resources(page)
                if rng.random() < 0.4:
                    template = tpl(server, random_uri() + rng.choice(["{id}", "{id}/{v}"]))
                    templates[server].append(template)
                    tree.add_templates([template])
            elif action < 0.5:
                keep = [entry for entry in listed[server] if rng.random() < 0.6]
                listed[server] = keep
                templates[server] = [t for t in templates[server] if rng.random() < 0.8]
                tree.replace_server(server, keep, templates[server])
            elif action < 0.58:
                view.set_filter(rng.choice(["", "", "x://", "y://b", "z:a", "a", "d1", "?q", "x://b/"]))
            elif action < 0.61:
                listed[server] = []
                templates[server] = []
                tree.remove_server(server)
            elif action < 0.78 and (drillable or templates[server]):  # drill a template or a candidate
                if drillable and (rng.random() < 0.7 or not templates[server]):
                    view.action_cursor_home()
                    for _ in range(rng.choice(drillable)):
                        view.action_cursor_down()
                else:
                    view.select_prefix(rng.choice(templates[server]).uri_template)
                view.action_toggle_node()
                await pilot.pause()
                for ask in requested(app)[answered:]:
                    values = rng.sample(["a", "b", "c", "d"], rng.randint(0, 3))
                    view.set_drill_children(ask.node, ask.drill, values, total=rng.choice([None, 9]))
                answered = len(requested(app))
            elif action < 0.85 and view.row_count:
                view.action_cursor_home()
                for _ in range(rng.randrange(view.row_count)):
                    view.action_cursor_down()
                view.action_expand_or_child()
                if isinstance(view.cursor_node, PatternNode):  # a template drilled: answer it
                    await pilot.pause()
                    for ask in requested(app)[answered:]:
                        values = rng.sample(["a", "b", "c", "d"], rng.randint(0, 3))
                        view.set_drill_children(ask.node, ask.drill, values, total=rng.choice([None, 9]))
                    answered = len(requested(app))
            elif view.row_count:
                view.action_cursor_end()
                view.action_collapse_or_parent()
            view.model_changed()
            incremental = view.visible_rows()
            cursor = view.cursor_node
            drill = view.cursor_drill
            view.rebuild()
            assert view.visible_rows() == incremental, f"step {step}"
            assert view.cursor_drill == drill or drill is None
            assert view.cursor_node is cursor or not isinstance(cursor, UriNode) or not tree.attached(cursor)
            if step % 50 == 0:
                await pilot.pause()


# ---------------------------------------------------------------------------------- untrusted text


HOSTILE = ["[@click=app.quit]x[/]", "[/b]", "\x1b[2J", "a\u202eb", "\x9b31m", "[link=https://evil]y[/link]"]


@pytest.mark.slow
async def test_hostile_names_render_literally_and_do_nothing() -> None:
    tree = UriTree()
    tree.add_resources(res("[@click=app.quit]srv[/]", f"evil://h/{text}", text) for text in HOSTILE)
    tree.add_resources([res("[/b]", "evil://h/plain", "[@click=app.quit]x[/]")])
    tree.add_templates([tpl("[/b]", "evil://h/{[/b]}", "\x1b]8;;x\x07t")])
    app = TreeApp(tree, show_servers=True)
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(ResourceTree)
        view.expand_node(node(tree, "evil://h"))
        await pilot.pause()
        text = "\n".join(screen_lines(view))
        for shown in (
            "[@click=app.quit]x[/]",
            "[/b]",
            "\\x1b[2J",
            "a\\u202eb",
            "\\x9b31m",
            "[link=https://evil]y[/link]",
            "{[/b]}  \\x1b]8;;x\\x07t",
            "[/b]   [@click=app.quit]srv[/]",  # server badges, whole in a 120-column tree (`badge_cells`)
        ):
            assert shown in text, shown
        assert "\x1b" not in text and "\u202e" not in text and "\x9b" not in text
        for _ in range(12):
            await pilot.press("down")
        await pilot.press("enter", "space", "asterisk")
        await pilot.click(ResourceTree, offset=(10, 3))
        await pilot.pause()
        assert app.is_running
        svg = app.export_screenshot()
        assert "[@click=app.quit]x[/]" in svg
        assert "\\x1b[2J" in svg


# ------------------------------------------------------------------------------------------- filter


async def test_filter_by_substring_hides_rows_counts_matches_and_clears() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        summary = view.set_filter("setup")
        await pilot.pause()
        assert summary is not None and summary.total == 1 and summary.mode == "substring"
        assert screen_lines(view) == [
            "▾ All resources  1",
            "└╴▾ demo://  1",
            "  └╴▾ docs  1",
            "    └╴▾ guide  1",
            "      └╴  setup.md  Setting up",
        ]
        assert view.cursor_node is node(tree, "demo://docs/guide/setup.md")
        # The match is drawn in the match style.
        line = view.render_line(4)
        match_style = view.get_component_rich_style("resource-tree--match", partial=True)
        hits = [segment for segment in line if segment.style is not None and segment.style.underline]
        assert [segment.text for segment in hits] == ["setup"]  # the title "Setting up" does not match
        assert all(segment.style is not None and segment.style.color == match_style.color for segment in hits)
        filtered = of_type(app, ResourceTree.FilterApplied)
        assert filtered and isinstance(filtered[-1], ResourceTree.FilterApplied)
        assert filtered[-1].summary == summary

        assert view.set_filter("") is None
        await pilot.pause()
        assert view.filter_result is None
        # The cursor stays on the node it was on, now among all rows.
        assert view.cursor_node is node(tree, "demo://docs/guide/setup.md")
        assert "│ │ ├╴▸ ⟨T⟩ {id}  Doc by id" in screen_lines(view)


async def test_filter_by_prefix_uses_the_tree_and_shows_whole_subtrees() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        summary = view.set_filter("demo://docs/")
        await pilot.pause()
        assert summary is not None and summary.mode == "prefix"
        assert summary.total == tree.count_under("demo://docs/").total == 4
        assert screen_lines(view) == [
            "▾ All resources  4",
            "└╴▾ demo://  4",
            "  └╴▾ docs  4",
            "    ├╴▸ ⟨T⟩ {id}  Doc by id",
            "    ├╴▸ guide  2",
            "    └╴  readme.md  Readme",
        ]
        assert isinstance(view.cursor_node, PatternNode)  # the first match
        # Inside a whole matching subtree everything is shown.
        await pilot.press("down", "right")
        assert "    │ ├╴  intro.md" in screen_lines(view)
        # A page that adds a match under an open node shows up (prefix filters are recomputed).
        tree.add_resources([res("alpha", "demo://docs/new.md"), res("alpha", "demo://src/other.py")])
        view.model_changed()
        await pilot.pause()
        lines = screen_lines(view)
        assert "    ├╴  new.md" in lines
        assert not any("other.py" in line for line in lines)
        assert lines[0] == "▾ All resources  5"


async def test_large_substring_filter_runs_in_a_worker_and_drops_stale_results(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ResourceTree, "SYNC_FILTER_LIMIT", 10)
    # Every result goes through the event loop (none is handed over within the keystroke's wait).
    monkeypatch.setattr(filter_runs._Handoff, "offer", lambda self, result, painted: False)
    tree = UriTree()
    tree.add_resources(res("a", f"x://h/d{d}/file{i}.txt") for d in range(30) for i in range(40))
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        assert view.set_filter("file1") is None  # sent to the worker
        assert pending(view)
        assert view.set_filter("file39") is None  # makes the first result stale
        for _ in range(200):
            await pilot.pause(0.02)
            if not pending(view):
                break
        await pilot.pause()
        assert not pending(view)
        result = view.filter_result
        assert result is not None and result.text == "file39" and result.total == 30
        applied = [
            m for m in of_type(app, ResourceTree.FilterApplied) if isinstance(m, ResourceTree.FilterApplied)
        ]
        assert [m.summary.text for m in applied if m.summary is not None] == ["file39"]
        assert all("file39" in label or not label.startswith("      ") for label in labels(view))


async def test_select_prefix_of_a_deep_uri_expands_and_scrolls() -> None:
    tree = UriTree()
    deep = "deep://h/" + "/".join(f"level{i}" for i in range(12)) + "/leaf.txt"
    entries = [res("a", deep)]
    # Siblings at every level (no chains) and many rows before the target.
    parts = deep.split("/")
    for cut in range(3, len(parts)):
        entries.extend(res("a", "/".join(parts[:cut]) + f"/sib{j}") for j in range(3))
    entries.extend(res("a", f"deep://a{i:03d}") for i in range(60))
    tree.add_resources(entries)
    app = TreeApp(tree)
    async with app.run_test(size=(90, 20)) as pilot:
        view = app.query_one(ResourceTree)
        view.expand_node(node(tree, "deep://"))
        assert view.select_prefix(deep)
        await pilot.pause()
        assert view.cursor_node is node(tree, deep)
        top = view.scroll_offset.y
        assert top <= view.cursor_line < top + view.scrollable_content_region.height
        assert "leaf.txt" in view.render_line(view.cursor_line - top).text
        for cut in range(3, len(parts) - 1):
            assert view.is_expanded(node(tree, "/".join(parts[: cut + 1])))
        assert not view.select_prefix("deep://h/missing")
        tree.add_templates([tpl("a", "deep://h/level0/{x}")])
        view.model_changed()
        assert view.select_prefix("deep://h/level0/{x}")
        assert isinstance(cursor(view), PatternNode)


async def test_expand_children_and_collapse_all_keys() -> None:
    tree = demo_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        await pilot.press("down", "asterisk")
        assert view.is_expanded(node(tree, "demo://"))
        assert view.is_expanded(node(tree, "demo://docs"))
        assert view.is_expanded(node(tree, "demo://src/explorer/model"))
        assert not view.is_expanded(node(tree, "demo://docs/guide"))  # one level only
        await pilot.press("down", "down", "down", "minus")
        assert labels(view) == ["", "  demo://", "  notes://inbox/today.txt"]
        assert view.cursor_node is node(tree, "demo://")  # the top-level row it was under


# --------------------------------------------------------------------------------------- large model


def pages(entries: list[ResourceEntry], size: int) -> Iterable[list[ResourceEntry]]:
    for start in range(0, len(entries), size):
        yield entries[start : start + size]


@pytest.mark.slow
async def test_50000_resources_usable_while_pages_stream_in() -> None:
    rng = random.Random(7)
    entries = [
        res("big", f"big://host/area{a}/group{g}/item{i:04d}.json")
        for a in range(10)
        for g in range(10)
        for i in range(490)
    ] + [res("big", f"big://host/flat/f{i:04d}") for i in range(1000)]
    rng.shuffle(entries)  # a server lists in its own order
    tree = UriTree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        stream = iter(pages(entries, 1000))
        for page in [next(stream) for _ in range(3)]:  # listing has barely started
            tree.add_resources(page)
            view.model_changed()
        await pilot.press("down", "right")  # big://host/ (a chain) is there and expands
        assert view.is_expanded(view.cursor_node)  # type: ignore[arg-type]
        await pilot.press("down", "right", "down", "right")
        opened = view.cursor_node
        assert isinstance(opened, UriNode)
        rows_before = view.row_count
        for index, page in enumerate(stream):
            tree.add_resources(page)
            view.model_changed()
            if index % 10 == 0:
                await pilot.press("down", "up")  # keys keep working between pages
        await pilot.pause()
        assert tree.root.resource_count == 50_000
        assert screen_lines(view)[0] == "▾ All resources  50,000"
        assert view.row_count > rows_before  # new children of the open nodes appeared
        assert view.cursor_node is opened
        assert view.is_expanded(opened)
        rows = view.visible_rows()
        assert [label for depth, label, _n in rows if depth == 4] == [f"item{i:04d}.json" for i in range(490)]
        view.rebuild()
        assert view.visible_rows() == rows
        summary = view.set_filter("big://host/area3/group4/item00")
        assert summary is not None and summary.total == 100


# ------------------------------------------------------------------------------------- drill-down

METRICS = "metrics://{region}/{service}/latest"


def drill_tree() -> UriTree:
    tree = UriTree()
    tree.add_resources([res("demo", "metrics://live/clock"), res("demo", "metrics://eu-west/summary")])
    tree.add_templates([tpl("demo", METRICS, "Latest"), tpl("demo", "metrics://rollup{/segments*}")])
    return tree


def drill_labels(view: ResourceTree) -> list[str]:
    """Labels of the virtual rows (below templates), indented by depth."""
    return [
        "  " * depth + label
        for depth, label, item in view.visible_rows()
        if isinstance(item, PatternNode) and label != item.label
    ]


def requested(app: TreeApp) -> list[ResourceTree.DrillRequested]:
    return [m for m in app.messages if isinstance(m, ResourceTree.DrillRequested)]


@pytest.mark.slow
async def test_drill_keys_messages_and_virtual_rows() -> None:
    tree = drill_tree()
    app = TreeApp(tree)
    async with app.run_test(size=(110, 30)) as pilot:
        view = app.query_one(ResourceTree)
        assert view.select_prefix(METRICS)
        await pilot.pause()
        assert "├╴▸ ⟨T⟩ {region}/{service}/latest  Latest" in "\n".join(screen_lines(view))
        app.messages.clear()
        await pilot.press("enter")  # enter on a template still asks for the form
        assert [type(m) for m in app.messages] == [ResourceTree.NodeSelected]
        await pilot.press("right")
        (ask,) = requested(app)
        pattern = tree.pattern_for(METRICS)
        assert ask.node is pattern and ask.drill.next_variable == "region" and ask.drill.server == "demo"
        assert drill_labels(view) == ["      … {region}"]  # waiting
        assert "  ├╴▾ ⟨T⟩ {region}/{service}/latest  Latest" in screen_lines(view)
        assert "  │ └╴  … {region}" in screen_lines(view)
        assert pattern is not None
        assert view.set_drill_children(pattern, ask.drill, ["eu-west", "us-east", "eu-west", ""])
        await pilot.pause()
        assert drill_labels(view) == ["      {region} = eu-west", "      {region} = us-east"]
        await pilot.press("down")  # to eu-west
        assert view.cursor_drill is not None and view.cursor_drill.fixed == {"region": "eu-west"}
        assert isinstance(view.cursor_node, PatternNode)  # highlight and details stay on the template
        await pilot.press("enter")  # not concrete yet: enter drills it too
        second = requested(app)[-1]
        assert second.drill.next_variable == "service" and second.drill.context() == {"region": "eu-west"}
        view.set_drill_children(pattern, second.drill, ["checkout", "payments"], total=250, has_more=True)
        await pilot.pause()
        assert drill_labels(view) == [
            "      {region} = eu-west",
            "        {service} = checkout",
            "        {service} = payments",
            "        +248 more: type in the form to narrow",
            "      {region} = us-east",
        ]
        lines = screen_lines(view)
        assert "  │ │ ├╴  {service} = checkout  metrics://eu-west/checkout/latest" in lines
        assert "  │ ├╴▾ {region} = eu-west" in lines and "  │ └╴▸ {region} = us-east" in lines
        app.messages.clear()
        await pilot.press("down", "enter")  # checkout: concrete, a leaf
        (chosen,) = [m for m in app.messages if isinstance(m, ResourceTree.DrillSelected)]
        assert chosen.drill.uri == "metrics://eu-west/checkout/latest" and chosen.drill.server == "demo"
        await pilot.press("down", "down", "enter")  # "+N more": the form
        assert isinstance(app.messages[-1], ResourceTree.NodeSelected)
        await pilot.press("left")  # a leaf: to its parent
        assert view.cursor_drill is not None and view.cursor_drill.fixed == {"region": "eu-west"}
        await pilot.press("left")  # close it: its services go
        assert drill_labels(view) == ["      {region} = eu-west", "      {region} = us-east"]
        assert view.open_drills == [(METRICS, ())]
        await pilot.press("up", "space")  # the template: close the drill
        assert drill_labels(view) == [] and view.open_drills == []
        # An answer for a closed position is dropped.
        assert not view.set_drill_children(pattern, second.drill, ["late"])


async def test_drill_without_completions_says_so_with_the_reason_and_caps_candidates() -> None:
    tree = drill_tree()
    app = TreeApp(tree)
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(ResourceTree)
        view.select_prefix("metrics://rollup{/segments*}")
        await pilot.press("l")
        ask = requested(app)[-1]
        pattern = ask.node
        view.set_drill_children(pattern, ask.drill, [], "the server does not offer completions")
        await pilot.pause()
        assert drill_labels(view) == ["      no completions: press enter for the form"]
        shown = "no completions (the server does not offer completions): press enter for the form"
        assert any(line.endswith(shown) for line in screen_lines(view))
        await pilot.press("down", "enter")
        assert isinstance(app.messages[-1], ResourceTree.NodeSelected) and app.messages[-1].node is pattern
        view.set_drill_children(pattern, ask.drill, [])  # answered, but nothing suggested
        await pilot.pause()
        assert drill_labels(view) == ["      nothing suggested: press enter for the form"]
        many = [f"v{i:04d}" for i in range(1000)]
        view.set_drill_children(pattern, ask.drill, many)
        await pilot.pause()
        shown = drill_labels(view)
        assert len(shown) == 201 and shown[-1] == "      +800 more: type in the form to narrow"
        assert shown[0] == "      {/segments*} = v0000"


async def test_drill_candidates_are_untrusted_text() -> None:
    tree = drill_tree()
    app = TreeApp(tree)
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(ResourceTree)
        view.select_prefix(METRICS)
        await pilot.press("right")
        ask = requested(app)[-1]
        view.set_drill_children(ask.node, ask.drill, HOSTILE, "[@click=app.quit]why[/] \x1b[2J")
        await pilot.pause()
        text = "\n".join(screen_lines(view))
        for shown in ("[@click=app.quit]x[/]", "[/b]", "\\x1b[2J", "a\\u202eb", "[@click=app.quit]why[/]"):
            assert shown in text, shown
        assert "\x1b" not in text and "\u202e" not in text
        await pilot.press("down", "enter", "down", "right")
        assert app.is_running


async def test_virtual_rows_survive_pages_refreshes_and_rebuilds() -> None:
    tree = drill_tree()
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.select_prefix(METRICS)
        await pilot.press("right")
        ask = requested(app)[-1]
        view.set_drill_children(ask.node, ask.drill, ["eu-west", "us-east"])
        await pilot.press("down", "right")
        view.set_drill_children(ask.node, requested(app)[-1].drill, ["checkout"])
        await pilot.press("down")
        drilled = drill_labels(view)
        assert drilled == [
            "      {region} = eu-west",
            "        {service} = checkout",
            "      {region} = us-east",
        ]
        assert view.cursor_drill is not None and view.cursor_drill.uri == "metrics://eu-west/checkout/latest"

        # A page that adds siblings before the template: rows shift, the drill and the cursor stay.
        tree.add_resources([res("demo", "metrics://aaa/x"), res("demo", "metrics://ab")])
        view.model_changed()
        await pilot.pause()
        assert drill_labels(view) == drilled
        assert view.cursor_drill is not None and view.cursor_drill.fixed["service"] == "checkout"
        rows = view.visible_rows()
        view.rebuild()
        assert view.visible_rows() == rows
        assert view.cursor_drill is not None and view.cursor_drill.fixed["service"] == "checkout"

        # A refresh that replaces every node (a new PatternNode): rebuilt under the new template row.
        old_pattern = tree.pattern_for(METRICS)
        tree.remove_server("demo")
        tree.replace_server(
            "demo",
            [res("demo", "metrics://live/clock")],
            [tpl("demo", METRICS), tpl("demo", "metrics://{x}")],
        )
        view.model_changed()
        await pilot.pause()
        assert tree.pattern_for(METRICS) is not old_pattern
        assert drill_labels(view) == drilled
        assert view.cursor_drill is not None and view.cursor_drill.fixed["service"] == "checkout"
        rows = view.visible_rows()
        view.rebuild()
        assert view.visible_rows() == rows

        # A filter that hides the template and a clear: the drill is still there.
        view.set_filter("clock")
        await pilot.pause()
        assert drill_labels(view) == []
        view.set_filter("")
        await pilot.pause()
        assert drill_labels(view) == drilled

        # Collapsing the prefix above closes the drills below it, like nested expansions.
        assert view.select_prefix("metrics://")
        await pilot.press("left")
        await pilot.press("right")
        assert drill_labels(view) == [] and view.open_drills == []

        # The template disappears: its drills are dropped.
        view.select_prefix(METRICS)
        await pilot.press("right")
        assert view.open_drills == [(METRICS, ())]
        tree.replace_server("demo", [res("demo", "metrics://live/clock")], [])
        view.model_changed()
        await pilot.pause()
        assert view.open_drills == [] and drill_labels(view) == []
        assert not isinstance(view.cursor_node, PatternNode) or view.cursor_node.uri_template != METRICS


async def test_after_a_merge_the_screen_shows_what_a_fresh_tree_shows() -> None:
    """Only the lines whose look changed are repainted after a change: none may be left stale (an entry
    inserted between the lines on screen, the last child's guide, a count, lines left blank)."""
    from tests.test_preview import screen_lines

    def build(*servers: str) -> UriTree:
        tree = UriTree()
        for server in servers:
            tree.add_resources(res(server, f"t://a/x{i}") for i in range(0, 160, 2))  # taller than the view
        return tree

    async def shown(tree: UriTree) -> list[str]:
        app = TreeApp(tree)
        async with app.run_test(size=SIZE) as pilot:
            app.query_one(ResourceTree).expand_node(node(tree, "t://a"))
            await pilot.pause()
            return screen_lines(app)

    tree = build("s1")
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.expand_node(node(tree, "t://a"))
        await pilot.pause()
        before = screen_lines(app)
        tree.add_resources([res("s2", "t://a/x5"), res("s2", "t://a/x99")])  # in the view, and last
        view.model_changed()
        await pilot.pause()
        after_add = screen_lines(app)
        tree.remove_server("s1")  # most lines go: the two left move up, the rest turn blank
        view.model_changed()
        await pilot.pause()
        after_remove = screen_lines(app)

    expected_add = build("s1")
    expected_add.add_resources([res("s2", "t://a/x5"), res("s2", "t://a/x99")])
    assert after_add != before and after_add == await shown(expected_add)
    expected_remove = UriTree()
    expected_remove.add_resources([res("s2", "t://a/x5"), res("s2", "t://a/x99")])
    assert after_remove == await shown(expected_remove)


async def test_a_horizontal_scrollbar_only_for_lines_wider_than_the_view() -> None:
    """Rows taller than the view bring the vertical scrollbar, which takes two columns: that alone must
    not bring a horizontal one (it took a line of the view to scroll by those two columns)."""
    tree = UriTree()
    tree.add_resources(res("a", f"t://a/x{i}") for i in range(100))
    app = TreeApp(tree)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        view.expand_node(node(tree, "t://a"))
        await pilot.pause()
        assert view.show_vertical_scrollbar and not view.show_horizontal_scrollbar
        assert view.max_scroll_x == 0
        tree.add_resources([res("a", "t://a/" + "w" * 200)])  # a line wider than the view
        view.model_changed()
        view.action_cursor_end()
        await pilot.pause()
        await pilot.pause()
        assert view.show_horizontal_scrollbar and view.max_scroll_x > 100


async def test_typing_a_filter_shows_what_the_filter_shows_on_a_fresh_tree() -> None:
    """Each keystroke repaints only the lines that changed: the screen after each must be what a tree
    given that filter from the start shows."""
    from tests.test_preview import screen_lines

    def build() -> UriTree:
        tree = UriTree()
        tree.add_resources(
            res("a", f"t://h{h}/g{g}/item{i}") for h in range(3) for g in range(4) for i in range(12)
        )
        return tree

    async def fresh(text: str) -> list[str]:
        app = TreeApp(build())
        async with app.run_test(size=SIZE) as pilot:
            app.query_one(ResourceTree).set_filter(text)
            await pilot.pause()
            return screen_lines(app)

    texts = ["t", "t:", "t://h1", "t://h1/g2", "t://h1/g2/item1", "t://h1/g", "item1", "item", "item11"]
    tree = build()
    app = TreeApp(tree)
    typed: list[list[str]] = []
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ResourceTree)
        for text in texts:
            view.set_filter(text)
            await pilot.pause()
            typed.append(screen_lines(app))
    for text, shown in zip(texts, typed, strict=True):
        assert shown == await fresh(text), text
