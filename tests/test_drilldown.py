"""Template drill-down: the core `Drill` state, and the tree driven by real keys against real servers.

The Pilot tests drill `metrics://{region}/{service}/latest` of the demo server (services narrowed by the
chosen region through the completion context) and a fixture server without completions.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from explorer.demo import metrics
from explorer.model.drilldown import Drill
from explorer.model.templates import TemplateError, match
from explorer.model.tree_view import NO_COMPLETIONS
from explorer.model.uri_tree import PatternNode
from explorer.screens.template_form import TemplateFormScreen
from explorer.widgets.resource_tree import ResourceTree
from tests.app_helpers import (
    demo_spec,
    main_screen,
    preview_text,
    raw_spec,
    settled_app,
    tree_lines,
    wait_for,
)

LATEST = "metrics://{region}/{service}/latest"

# ------------------------------------------------------------------------------------------ the core


def test_variables_are_fixed_in_order_with_the_earlier_ones_as_context() -> None:
    drill = Drill.start(LATEST, "demo")
    assert drill.variables == ("region", "service") and drill.required == ("region", "service")
    assert drill.next_variable == "region" and drill.context() == {} and not drill.is_concrete
    assert drill.key == (LATEST, ()) and drill.children_drill is drill
    region = drill.with_value("eu-west")
    assert region.next_variable == "service" and region.context() == {"region": "eu-west"}
    assert not region.is_concrete and region.uri == "metrics://eu-west//latest"  # the hole shows
    service = region.with_value("checkout")
    assert service.is_concrete and service.next_variable is None and service.children_drill is None
    assert service.uri == "metrics://eu-west/checkout/latest"
    assert service.context() == {"region": "eu-west", "service": "checkout"}
    assert service.key == (LATEST, ("eu-west", "checkout")) and service.server == "demo"
    assert service.describe() == {"{region}": "eu-west", "{service}": "checkout"}
    assert drill.values == ()  # frozen: every step is a new drill
    with pytest.raises(ValueError):
        service.with_value("more")
    with pytest.raises(ValueError):
        drill.with_value("")


def test_concrete_uri_is_encoded_by_the_template_operator() -> None:
    assert Drill.start("docs://help/{id}", "s").with_value("a/b c").uri == "docs://help/a%2Fb%20c"
    assert Drill.start("file:///{+path}", "s").with_value("a/b c").uri == "file:///a/b%20c"
    uri = Drill.start("docs://help/{id}", "s").with_value("50%").uri
    assert uri == "docs://help/50%25" and match("docs://help/{id}", uri) == {"id": "50%"}
    # An explode variable takes a candidate as the form would: split at its separator.
    rollup = Drill.start("metrics://rollup{/segments*}", "s").with_value("eu-west/checkout")
    assert rollup.uri == "metrics://rollup/eu-west/checkout"


def test_optional_variables_may_stay_empty_but_can_be_drilled() -> None:
    search = Drill.start("docs://search{?q,limit}", "s")
    assert search.required == () and search.is_concrete and search.uri == "docs://search"
    assert search.next_variable == "q"
    with_q = search.with_value("cursor")
    assert with_q.is_concrete and with_q.next_variable == "limit" and with_q.uri == "docs://search?q=cursor"
    assert with_q.with_value("5").uri == "docs://search?q=cursor&limit=5"
    section = Drill.start("docs://handbook/{chapter}{#section}", "s")
    assert section.required == ("chapter",)
    chapter = section.with_value("intro")
    assert chapter.is_concrete and chapter.next_variable == "section"  # concrete, and can go on
    assert chapter.with_value("why").uri == "docs://handbook/intro#why"


def test_repeated_variable_is_one_step_and_templates_without_variables_cannot_drill() -> None:
    twice = Drill.start("x://{a}/{b}/{a}", "s")
    assert twice.variables == ("a", "b")
    assert twice.with_value("1").with_value("2").uri == "x://1/2/1"
    assert Drill.start("x://plain", "s").children_drill is None
    with pytest.raises(TemplateError):
        Drill.start("x://{broken", "s")


def test_folder_like_path_values_refine_the_same_variable() -> None:
    drill = Drill.start("file:///{+path}", "demo").with_value("src/")
    assert drill.is_concrete and drill.next_variable is None and drill.can_refine
    refined = drill.children_drill
    assert refined is not None and refined == drill.refined()
    assert refined.next_variable == "path" and refined.typed == "src/" and refined.key == drill.key
    assert refined.context() == {}
    deeper = refined.with_value("src/tidewater/app.py")
    assert deeper.uri == "file:///src/tidewater/app.py" and deeper.trail == ("src/", "src/tidewater/app.py")
    assert not deeper.can_refine and deeper.children_drill is None
    # Only path-like variables refine; a simple `{id}` ending in "/" is just a value.
    assert not Drill.start("x://{id}", "s").with_value("a/").can_refine
    assert Drill.start("x://r{/seg*}", "s").with_value("a/").can_refine
    assert Drill.start("x://{a}/{+b}", "s").with_value("a/").children_drill is not None  # next variable
    assert drill.on_server("other").key == drill.key


# ------------------------------------------------------------------------------------------- Pilot


def drill_rows(tree: ResourceTree) -> list[tuple[int, str]]:
    """(depth, label) of the rows below templates that are not templates themselves."""
    rows = []
    for depth, label, node in tree.visible_rows():
        if isinstance(node, PatternNode) and label != node.label:
            rows.append((depth, label))
    return rows


async def move_to(pilot: Pilot[object], tree: ResourceTree, label: str) -> None:
    """Move the cursor to the row with `label` by pressing down/up."""
    labels = [row_label for _depth, row_label, _node in tree.visible_rows()]
    steps = labels.index(label) - tree.cursor_line
    await pilot.press(*(["down"] * steps if steps > 0 else ["up"] * -steps))
    assert tree.visible_rows()[tree.cursor_line][1] == label


@pytest.mark.slow
@pytest.mark.anyio
async def test_drill_a_demo_template_region_then_service_then_read() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        tree = main_screen(app).tree_widget
        assert tree.select_prefix(LATEST)
        await pilot.press("right")  # drill the template
        await wait_for(pilot, lambda: any(label == "{region} = eu-west" for _d, label in drill_rows(tree)))
        regions = [label for _d, label in drill_rows(tree)]
        assert regions == [f"{{region}} = {region}" for region in metrics.REGIONS]
        assert tree.open_drills == [(LATEST, ())]

        await move_to(pilot, tree, "{region} = eu-west")
        await pilot.press("l")
        await wait_for(pilot, lambda: any(label.startswith("{service}") for _d, label in drill_rows(tree)))
        services = [label for _d, label in drill_rows(tree) if label.startswith("{service}")]
        # The context narrowed it: only eu-west's services, not every region's.
        assert services == [f"{{service}} = {s}" for s in metrics.REGION_SERVICES["eu-west"]]
        assert set(metrics.all_services()) - set(metrics.REGION_SERVICES["eu-west"])
        assert any("{service} = checkout" in line for line in tree_lines(app))

        await move_to(pilot, tree, "{service} = checkout")
        drill = tree.cursor_drill
        assert drill is not None and drill.is_concrete and drill.uri == "metrics://eu-west/checkout/latest"
        await pilot.press("enter")
        await wait_for(pilot, lambda: '"service": "checkout"' in preview_text(app))
        assert '"region": "eu-west"' in preview_text(app)

        # Left closes a drilled candidate, then goes up; the template's own enter still opens the form.
        await pilot.press("left")  # on checkout (a leaf): to its parent eu-west
        assert tree.visible_rows()[tree.cursor_line][1] == "{region} = eu-west"
        await pilot.press("left")  # close eu-west
        assert not any(label.startswith("{service}") for _d, label in drill_rows(tree))
        assert tree.open_drills == [(LATEST, ())]


@pytest.mark.slow
@pytest.mark.anyio
async def test_drilled_path_template_browses_like_a_directory() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        tree = main_screen(app).tree_widget
        assert tree.select_prefix("file:///{+path}")
        await pilot.press("space")
        await wait_for(pilot, lambda: any(label.startswith("{+path} = ") for _d, label in drill_rows(tree)))
        folders = [label for _d, label in drill_rows(tree) if label.endswith("/")]
        assert folders, drill_rows(tree)
        await move_to(pilot, tree, folders[0])
        depth = tree.visible_rows()[tree.cursor_line][0]
        await pilot.press("right")  # a folder-like value refines the same variable
        await wait_for(pilot, lambda: any(d == depth + 1 for d, _label in drill_rows(tree)))
        deeper = [label for d, label in drill_rows(tree) if d == depth + 1]
        assert deeper and all(label.startswith(folders[0]) and label != folders[0] for label in deeper), (
            deeper
        )


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_server_without_completions_says_so_and_enter_opens_the_form() -> None:
    async with settled_app(raw_spec("fx", resources=10)) as (app, pilot):
        tree = main_screen(app).tree_widget
        assert tree.select_prefix("fixture://items/{group}/item-{n}")
        await pilot.press("right")
        await wait_for(pilot, lambda: any(label == NO_COMPLETIONS for _d, label in drill_rows(tree)))
        assert [label for _d, label in drill_rows(tree)] == [NO_COMPLETIONS]
        # the reason first, then the key (a narrow pane cuts the key hint, never the reason)
        reason = "no completions (the server does not offer"  # the pane cuts the rest
        await wait_for(pilot, lambda: any(reason in line for line in tree_lines(app)))
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TemplateFormScreen))
