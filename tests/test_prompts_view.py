"""Pilot tests of the prompts view: listing, the argument form, results with resources and images,
errors; against the demo server, a failing server, and the reference server's completable-prompt."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import OptionList, Static

from explorer.app import ExplorerApp
from explorer.demo.prompts import PROMPTS
from explorer.screens.prompts import PromptFormScreen, PromptsScreen
from explorer.widgets.argument_form import ArgumentForm
from explorer.widgets.preview import ImageView
from explorer.widgets.prompt_result import PromptResultView, ResourceLink, describe_error
from explorer.widgets.resource_tree import ResourceTree
from tests.app_helpers import (
    SIZE,
    demo_spec,
    main_screen,
    raw_spec,
    settled_app,
    stdio_spec,
    wait_for,
)

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def prompts_screen(app: ExplorerApp) -> PromptsScreen:
    for screen in app.screen_stack:
        if isinstance(screen, PromptsScreen):
            return screen
    raise AssertionError("no prompts screen")


def list_text(screen: PromptsScreen) -> str:
    options = screen.query_one("#prompt-list", OptionList)
    return "\n".join(str(options.get_option_at_index(i).prompt) for i in range(options.option_count))


def listed(screen: PromptsScreen) -> bool:
    return bool(screen.listings) and all(s.state != "listing" for s in screen.listings.values())


async def open_prompts(pilot: object, app: ExplorerApp) -> PromptsScreen:
    await pilot.press("p")  # type: ignore[attr-defined]
    await wait_for(
        pilot, lambda: isinstance(app.screen, PromptsScreen) and bool(app.screen.query(PromptResultView))
    )  # type: ignore[arg-type]
    screen = prompts_screen(app)
    await wait_for(pilot, lambda: listed(screen))  # type: ignore[arg-type]
    return screen


async def fill_prompt(pilot: object, app: ExplorerApp, name: str) -> PromptFormScreen:
    screen = prompts_screen(app)
    index = next(i for i, e in enumerate(screen._options) if e is not None and e.name == name)
    options = screen.query_one("#prompt-list", OptionList)
    options.highlighted = index
    await pilot.pause()  # type: ignore[attr-defined]
    await pilot.press("enter")  # type: ignore[attr-defined]
    await wait_for(
        pilot, lambda: isinstance(app.screen, PromptFormScreen) and bool(app.screen.query("#pf-status"))
    )  # type: ignore[arg-type]
    form_screen = app.screen
    assert isinstance(form_screen, PromptFormScreen)
    return form_screen


def result_text(app: ExplorerApp) -> str:
    return prompts_screen(app).result_view.text


async def test_lists_every_prompt_and_a_failing_server_line() -> None:
    async with settled_app(demo_spec(), raw_spec("broken", "exit-at-start")) as (app, pilot):
        screen = await open_prompts(pilot, app)
        text = list_text(screen)
        for prompt in PROMPTS:
            assert prompt.name in text
        assert "4 prompts" in text
        assert "broken" in text and "error" in text
        assert {p.name for p in screen.prompts} == {p.name for p in PROMPTS}
        # Nothing ran: the result view still shows its hint.
        assert screen.result_view.state == "empty"
        details = str(screen.query_one("#prompt-detail-body", Static).render())
        assert "summarize-chapter" in details or "review-file" in details
        await pilot.press("escape")
        assert not isinstance(app.screen, PromptsScreen)


async def test_embedded_resource_renders_and_opens_in_the_tree() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await open_prompts(pilot, app)
        form_screen = await fill_prompt(pilot, app, "summarize-chapter")
        form = form_screen.query_one(ArgumentForm)
        # chapter is required; completion offers the chapters
        await wait_for(pilot, lambda: "pagination" in form.suggestion_values)
        await pilot.press(*"pagi")
        await wait_for(pilot, lambda: form.suggestion_values[:1] == ["pagination"])
        await pilot.press("down", "enter")
        assert form.texts["chapter"] == "pagination"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        view = prompts_screen(app).result_view
        await wait_for(pilot, lambda: view.state == "result" and view.shown)
        text = result_text(app)
        assert "docs://handbook/pagination" in text and "embedded resource" in text
        assert "text/markdown" in text and "1. user" in text
        assert view.resource_uris == ["docs://handbook/pagination"]
        assert view.query(ResourceLink)
        await pilot.press("t")
        await wait_for(pilot, lambda: not isinstance(app.screen, PromptsScreen))
        node = main_screen(app).query_one(ResourceTree).cursor_node
        assert node is not None and getattr(node, "prefix", "") == "docs://handbook/pagination"


async def test_image_prompt_shows_format_dimensions_and_picture() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await open_prompts(pilot, app)
        await fill_prompt(pilot, app, "describe-logo")
        await pilot.press("enter")  # no required argument: enter gets it
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        view = prompts_screen(app).result_view
        await wait_for(pilot, lambda: view.state == "result" and view.shown)
        text = result_text(app)
        assert "image" in text and "image/png" in text and "PNG 64×64" in text
        images = list(view.query(ImageView))
        assert images
        await wait_for(pilot, lambda: images[0].raster is not None)


async def test_missing_required_argument_is_caught_before_sending() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await open_prompts(pilot, app)
        form_screen = await fill_prompt(pilot, app, "incident-review")
        labels = "\n".join(str(w.render()) for w in form_screen.query(".field-label").results(Static))
        assert "required" in labels and "optional" in labels
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, PromptFormScreen)
        status = str(form_screen.query_one("#pf-status", Static).render())
        assert "Missing required" in status and "region" in status and "service" in status
        assert prompts_screen(app).result_view.state == "empty"  # nothing was sent
        form = form_screen.query_one(ArgumentForm)
        assert app.focused is form.input_for("region")
        form.set_text("region", "eu-west")  # the message follows: what is still missing, then nothing

        def status_text() -> str:
            return str(form_screen.query_one("#pf-status", Static).render())

        await wait_for(pilot, lambda: "region" not in status_text())
        assert "Missing required argument(s): service" in status_text()
        form.set_text("service", "checkout")
        await wait_for(pilot, lambda: "Missing" not in status_text())
        form.set_text("region", "")
        form.set_text("service", "")
        form.focus_field("region")
        await wait_for(pilot, lambda: form.suggestions_shown)  # escape hides them first, then cancels
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        assert prompts_screen(app).result_view.state == "empty"


async def test_server_error_is_shown_with_its_code() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await open_prompts(pilot, app)
        form_screen = await fill_prompt(pilot, app, "summarize-chapter")
        form_screen.query_one(ArgumentForm).set_text("chapter", "no-such-chapter")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        view = prompts_screen(app).result_view
        await wait_for(pilot, lambda: view.state == "error" and view.shown)
        text = result_text(app)
        assert "-32602" in text and "invalid parameters" in text and "unknown chapter" in text


async def test_incident_review_service_suggestions_follow_region() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await open_prompts(pilot, app)
        form_screen = await fill_prompt(pilot, app, "incident-review")
        form = form_screen.query_one(ArgumentForm)
        from explorer.demo.metrics import REGION_SERVICES

        form.set_text("region", "eu-west")
        form.focus_field("service")
        await wait_for(pilot, lambda: set(form.suggestion_values) == set(REGION_SERVICES["eu-west"]))


def test_error_headlines() -> None:
    assert describe_error(-32602) == "Prompt failed: invalid parameters (-32602)"
    assert "(0)" in describe_error(0) and "code 0" in describe_error(0)
    assert describe_error(None) == "Prompt failed"


async def test_reference_completable_prompt_names_depend_on_department(reference_server: str) -> None:
    async with settled_app(stdio_spec("everything", reference_server), timeout=20) as (app, pilot):
        screen = await open_prompts(pilot, app)
        assert "completable-prompt" in list_text(screen)
        form_screen = await fill_prompt(pilot, app, "completable-prompt")
        form = form_screen.query_one(ArgumentForm)
        await pilot.press(*"Eng")
        await wait_for(pilot, lambda: form.suggestion_values == ["Engineering"])
        await pilot.press("down", "enter")
        assert form.texts["department"] == "Engineering"
        form.focus_field("name")
        await wait_for(pilot, lambda: form.suggestion_values == ["Alice", "Bob", "Charlie"])
        form.set_text("department", "Sales")
        await pilot.press("ctrl+space")
        await wait_for(pilot, lambda: form.suggestion_values == ["David", "Eve", "Frank"])
        await pilot.press("down", "enter")
        assert form.texts["name"] == "David"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        view = prompts_screen(app).result_view
        await wait_for(pilot, lambda: view.state == "result" and view.shown)
        assert "Please promote David to the head of the Sales team." in result_text(app)


async def test_reference_prompt_error_is_shown(reference_server: str) -> None:
    async with settled_app(stdio_spec("everything", reference_server), timeout=20) as (app, pilot):
        await open_prompts(pilot, app)
        form_screen = await fill_prompt(pilot, app, "resource-prompt")
        form = form_screen.query_one(ArgumentForm)
        form.set_text("resourceType", "nonsense")
        form.set_text("resourceId", "1")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        view = prompts_screen(app).result_view
        await wait_for(pilot, lambda: view.state == "error" and view.shown)
        assert view.error is not None and view.error[1] is not None
        assert "Prompt failed" in result_text(app) and "Invalid resourceType" in result_text(app)


class _ViewApp(App[None]):
    def compose(self) -> ComposeResult:
        yield PromptResultView()


HOSTILE = "[@click=app.quit]x[/] [/b] \x1b[2J \u202eevil\u202c zero\u200bwidth"


async def test_result_view_renders_every_block_kind_safely() -> None:
    wav = base64.b64encode(b"RIFF" + b"\x00" * 60).decode()
    result = {
        "description": HOSTILE,
        "messages": [
            {"role": "user", "content": {"type": "text", "text": HOSTILE}},
            {"role": "assistant", "content": {"type": "audio", "data": wav, "mimeType": "audio/wav"}},
            {
                "role": "user",
                "content": {"type": "resource_link", "uri": "docs://x/" + HOSTILE, "name": HOSTILE},
            },
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "bin://b", "blob": "AAEC"}}},
            {"role": "user", "content": {"type": "image", "data": "%%%", "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "mystery"}},
            "not a message",
        ],
    }
    app = _ViewApp()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(PromptResultView)
        view.show_result("srv", HOSTILE, result)
        await pilot.pause()
        text = view.text
        assert "\\x1b" in text and "\\u202e" in text and "\\u200b" in text and "\x1b" not in text
        assert "[@click=app.quit]x[/]" in text  # shown as text, never run as markup
        assert "audio  ·  audio/wav  ·  64 B" in text
        assert "resource link" in text and "docs://x/" in text
        assert "bin://b" in text and "binary" in text
        assert "not base64" in text or "invalid" in text or "character" in text
        assert "unknown type mystery" in text and "not an object" in text
        assert view.resource_uris == ["docs://x/" + HOSTILE, "bin://b"]
        view.show_error("srv", "p", "missing argument: who", 0, {"argument": "who"})
        await pilot.pause()
        assert view.state == "error" and view.resource_uris == []
        text = view.text
        assert "Prompt failed: error code 0" in text and "(0)" in text and "missing argument: who" in text
        assert '"argument": "who"' in text


async def test_hostile_server_prompt_is_listed_and_shown_escaped() -> None:
    async with settled_app(raw_spec("hostile", "hostile")) as (app, pilot):
        screen = await open_prompts(pilot, app)
        assert "greet" in list_text(screen) and "who*" in list_text(screen)
        form_screen = await fill_prompt(pilot, app, "greet")
        header = str(form_screen.query_one("#pf-header", Static).render())
        assert "does not offer completions" in header
        await pilot.press(*"Ann")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        view = prompts_screen(app).result_view
        await wait_for(pilot, lambda: view.state == "result" and view.shown)
        assert "Hello Ann" in view.text and "\\x1b" in view.text and "\x1b" not in view.text
        assert app.is_running


async def test_copy_as_gives_the_command_line_that_runs_the_prompt_again() -> None:
    import shlex

    from explorer.screens.copy_as import CopyAsDialog
    from tests.helpers.cli import run_cli

    async with settled_app(demo_spec()) as (app, pilot):
        await open_prompts(pilot, app)
        await fill_prompt(pilot, app, "describe-logo")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
        await wait_for(
            pilot,
            lambda: (
                prompts_screen(app).result_view.state == "result" and prompts_screen(app).result_view.shown
            ),
        )
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, CopyAsDialog))
        dialog = app.screen
        assert isinstance(dialog, CopyAsDialog)
        labels = [label for label, _ in dialog.forms]
        assert labels == ["Prompt name", "JSON-RPC request", "Command line"]
        request = json.loads(dict(dialog.forms)["JSON-RPC request"])  # the demo speaks the modern era
        assert request["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
        options = dialog.query_one(OptionList)
        options.highlighted = 2
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.clipboard.startswith("mcp-url-explorer prompt describe-logo"))
    words = shlex.split(app.clipboard)
    result = run_cli(*words[1:])
    assert result.code == 0 and "[image: image/png" in result.stdout


async def test_the_prompts_listing_is_paced_by_the_apps_input_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server with many prompts is listed beside the user's keys like the tree's listing: its parse
    pauses for a key's frame (the app's input gate is its pace)."""
    import explorer.screens.prompts as prompts_module

    paces: list[object] = []
    original = prompts_module.list_server

    async def recording(*args: Any, **kwargs: Any) -> Any:
        paces.append(kwargs.get("pace"))
        return await original(*args, **kwargs)

    monkeypatch.setattr(prompts_module, "list_server", recording)
    async with settled_app(demo_spec()) as (app, pilot):
        screen = await open_prompts(pilot, app)
        assert {p.name for p in screen.prompts} == {p.name for p in PROMPTS}
    assert paces == [app.input_first.gate]
