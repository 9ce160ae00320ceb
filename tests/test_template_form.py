"""Pilot tests of the template form: suggestions with context, live preview, submit, errors, history."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from explorer.app import ExplorerApp
from explorer.connection.completion import Completer
from explorer.demo.metrics import REGION_SERVICES
from explorer.model.entries import TemplateEntry
from explorer.paths import history_file
from explorer.screens.template_form import TemplateFormScreen
from explorer.widgets.argument_form import ArgumentForm
from tests.app_helpers import (
    SIZE,
    demo_spec,
    main_screen,
    make_app,
    preview_text,
    raw_spec,
    settled_app,
    stdio_spec,
    wait_for,
)

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

LATEST = "metrics://{region}/{service}/latest"


def form_ready(app: ExplorerApp) -> bool:
    return isinstance(app.screen, TemplateFormScreen) and bool(app.screen.query("#tf-status"))


def form_screen(app: ExplorerApp) -> TemplateFormScreen:
    screen = app.screen
    assert isinstance(screen, TemplateFormScreen), type(screen)
    return screen


def static(screen: TemplateFormScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def field_errors(screen: TemplateFormScreen) -> str:
    return "\n".join(str(w.render()) for w in screen.query(".field-error.-shown").results(Static))


async def open_form(pilot: object, app: ExplorerApp, template: str) -> TemplateFormScreen:
    screen = main_screen(app)
    assert screen.tree_widget.select_prefix(template)
    await pilot.pause()  # type: ignore[attr-defined]
    await pilot.press("enter")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: form_ready(app))  # type: ignore[arg-type]
    return form_screen(app)


async def test_suggestions_use_the_other_values_as_context() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = await open_form(pilot, app, LATEST)
        form = screen.query_one(ArgumentForm)
        assert "latest-metrics" in static(screen, "#tf-header")
        assert "application/json" in static(screen, "#tf-meta")
        # The focused, empty region field is offered every region.
        await wait_for(pilot, lambda: "eu-west" in form.suggestion_values)
        await pilot.press(*"eu-w")
        await wait_for(pilot, lambda: form.suggestion_values == ["eu-west"])
        await pilot.press("down", "enter")  # pick and accept
        assert form.texts["region"] == "eu-west"
        await pilot.press("tab")
        assert app.focused is form.input_for("service")
        await wait_for(pilot, lambda: set(form.suggestion_values) == set(REGION_SERVICES["eu-west"]))
        # Another region, other services: the context follows the form.
        other = next(r for r in REGION_SERVICES if set(REGION_SERVICES[r]) != set(REGION_SERVICES["eu-west"]))
        form.set_text("region", other)
        await pilot.press("ctrl+space")
        await wait_for(pilot, lambda: set(form.suggestion_values) == set(REGION_SERVICES[other]))
        await pilot.press("escape")  # hides the suggestions, keeps the form
        assert not form.suggestions_shown and isinstance(app.screen, TemplateFormScreen)


async def test_preview_encodes_and_submit_reads_into_the_preview() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = await open_form(pilot, app, LATEST)
        form = screen.query_one(ArgumentForm)
        form.set_text("region", "eu-west")
        form.set_text("service", "a/b c")
        await pilot.pause()
        assert "metrics://eu-west/a%2Fb%20c/latest" in static(screen, "#tf-preview")
        service = next(iter(REGION_SERVICES["eu-west"]))
        form.set_text("service", service)
        form.focus_field("service")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, TemplateFormScreen))
        await wait_for(pilot, lambda: f'"service": "{service}"' in preview_text(app))


async def test_empty_required_field_blocks_submit() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = await open_form(pilot, app, LATEST)
        form = screen.query_one(ArgumentForm)
        form.set_text("region", "eu-west")
        await pilot.pause()
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, TemplateFormScreen)
        assert "required" in field_errors(screen)
        assert app.focused is form.input_for("service")
        assert "to fix" in static(screen, "#tf-status")
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, TemplateFormScreen))


async def test_explode_variable_takes_several_values() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = await open_form(pilot, app, "metrics://rollup{/segments*}")
        form = screen.query_one(ArgumentForm)
        label = "\n".join(str(w.render()) for w in screen.query(".field-label").results(Static))
        assert "{/segments*}" in label and "optional" in label
        await pilot.press(*"eu-w")
        await wait_for(pilot, lambda: "eu-west/" in form.suggestion_values)
        index = form.suggestion_values.index("eu-west/")
        await pilot.press(*["down"] * (index + 1))
        await pilot.press("tab")  # tab accepts the picked suggestion
        assert form.texts["segments"] == "eu-west/"
        # segment-wise completion goes on from the accepted value
        await wait_for(
            pilot, lambda: any(v.startswith("eu-west/") and v != "eu-west/" for v in form.suggestion_values)
        )
        form.set_text("segments", "eu-west/" + next(iter(REGION_SERVICES["eu-west"])))
        await pilot.pause()
        assert f"metrics://rollup/eu-west/{next(iter(REGION_SERVICES['eu-west']))}" in static(
            screen, "#tf-preview"
        )


async def test_value_that_cannot_round_trip_is_a_field_error() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        entry = TemplateEntry("none", "x://{code:3}/{a}{b}", "short code")
        app.push_screen(TemplateFormScreen(entry, Completer(None)))
        await wait_for(pilot, lambda: form_ready(app))
        screen = form_screen(app)
        assert "not connected" in static(screen, "#tf-meta")
        form = screen.query_one(ArgumentForm)
        await pilot.press(*"abcdef")
        await wait_for(pilot, lambda: "keeps only the first 3" in field_errors(screen))
        form.set_text("code", "abc")
        form.set_text("a", "x")
        form.set_text("b", "yz")  # read back as a="xy", b="z": the reading that defines both
        await wait_for(pilot, lambda: "runs into" in field_errors(screen))  # checked on a worker
        errors = field_errors(screen)
        assert "keeps only" not in errors and "runs into" in errors
        await pilot.press("enter")
        await wait_for(pilot, lambda: "to fix" in static(screen, "#tf-status"))
        assert isinstance(app.screen, TemplateFormScreen)


async def test_history_is_offered_next_time() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = await open_form(pilot, app, LATEST)
        service = next(iter(REGION_SERVICES["eu-west"]))
        form = screen.query_one(ArgumentForm)
        form.set_text("region", "eu-west")
        form.set_text("service", service)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, TemplateFormScreen))
        await wait_for(pilot, lambda: history_file().exists())
        screen = await open_form(pilot, app, LATEST)
        form = screen.query_one(ArgumentForm)
        await wait_for(pilot, lambda: bool(form.history))
        assert form.history[0] == {"region": "eu-west", "service": service}
        await wait_for(pilot, lambda: bool(form.suggestion_values) and form.suggestion_values[0] == "eu-west")
        await pilot.press("ctrl+r")
        assert form.texts == {"region": "eu-west", "service": service}
        await pilot.pause()
        assert f"metrics://eu-west/{service}/latest" in static(screen, "#tf-preview")


async def test_server_without_completions_and_hostile_metadata() -> None:
    async with settled_app(raw_spec("raw", "hostile")) as (app, pilot):
        tree = main_screen(app).catalogue.tree
        evil = next(
            e.uri_template for e in tree.templates_under("") if e.uri_template.startswith("fixture://evil")
        )
        screen = await open_form(pilot, app, evil)
        header = static(screen, "#tf-header") + static(screen, "#tf-meta")
        assert "[@click=app.quit]x[/]" in header and "\\x1b" in header and "\x1b" not in header
        assert "does not offer completions" in header
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, TemplateFormScreen))
        screen = await open_form(pilot, app, "fixture://items/{group}/item-{n}")
        form = screen.query_one(ArgumentForm)
        await pilot.press(*"a b", "tab", "1")
        assert form.texts == {"group": "a b", "n": "1"} and not form.suggestions_shown
        assert "fixture://items/a%20b/item-1" in static(screen, "#tf-preview")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "contents of fixture://items/a%20b/item-1" in preview_text(app))
        assert app.is_running


async def test_reference_server_templates_fill_and_read(reference_server: str) -> None:
    async with settled_app(stdio_spec("everything", reference_server), timeout=20) as (app, pilot):
        screen = await open_form(pilot, app, "demo://resource/dynamic/text/{resourceId}")
        assert "from the server's completions" in static(screen, "#tf-meta")
        await pilot.press("3")
        await wait_for(pilot, lambda: "demo://resource/dynamic/text/3" in static(screen, "#tf-preview"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Resource 3: This is a plaintext resource" in preview_text(app))
