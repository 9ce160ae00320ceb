"""Keys typed in one burst with the key that opens an input go into that input, in order (`type_ahead`).

Each test posts all its keys at once, as a terminal delivers a burst (a fast typist, keys typed while the
app is busy): Pilot's `press` waits for the app to be idle between keys, so the keys after the first
would find the input open and focused, and nothing would be lost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.command import CommandPalette
from textual.keys import _character_to_key
from textual.pilot import Pilot
from textual.widgets import Input, Static

from explorer.app import ExplorerApp
from explorer.config import InputPrompt
from explorer.connection.completion import Completer
from explorer.model.entries import TemplateEntry
from explorer.screens.connect_dialog import ConnectDialog
from explorer.screens.goto import GoToDialog
from explorer.screens.input_dialog import InputDialog
from explorer.screens.main import MainScreen
from explorer.screens.prompts import PromptFormScreen, PromptsScreen
from explorer.screens.template_form import TemplateFormResult, TemplateFormScreen
from explorer.widgets.filter_box import FilterBox
from tests.app_helpers import SIZE, demo_spec, main_screen, make_app, settled_app, stdio_spec, wait_for
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.anyio


def key_event(key: str) -> events.Key:
    """A key as the terminal driver makes it (`benchmarks/bench_tui.py` `send_key`)."""
    char = key if len(key) == 1 else None
    return events.Key(_character_to_key(key) if char is not None else key, char)


def post(app: ExplorerApp, *keys: str | events.Key) -> None:
    """Keys as the driver delivers a burst: each queued for the app, none waiting for the one before."""
    driver = app._driver
    assert driver is not None
    for key in keys:
        event = key_event(key) if isinstance(key, str) else key
        event.set_sender(app)
        driver.send_message(event)


async def until(pilot: Pilot[Any], holds: Callable[[], bool], seen: Callable[[], object]) -> None:
    """Wait (a hang guard, not a timing) until `holds()`; fail showing what the screen holds instead."""
    try:
        await wait_for(pilot, holds, timeout=10)
    except AssertionError:
        raise AssertionError(f"not reached; the app shows: {seen()!r}") from None


def focused_text(app: ExplorerApp) -> tuple[str, str | None]:
    focused = app.focused
    return type(app.screen).__name__, focused.value if isinstance(focused, Input) else repr(focused)


async def test_slash_then_a_word_in_one_burst_filters_by_the_word() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        post(app, "/", *"docs")
        box = main_screen(app).query_one("#filter", FilterBox)
        await until(pilot, lambda: box.value == "docs", lambda: focused_text(app))
        assert app.focused is box
        post(app, *"/x")  # typed once the box has the focus: Textual's way, as before
        await until(pilot, lambda: box.value == "docs/x", lambda: focused_text(app))


@pytest.mark.slow
async def test_slash_file_types_file_and_opens_no_overview() -> None:
    """The `i` of `/file` opened the server overview (the tree still had the focus, the screen's `i`)."""
    async with settled_app(demo_spec()) as (app, pilot):
        post(app, "/", *"file")
        box = main_screen(app).query_one("#filter", FilterBox)
        await until(pilot, lambda: box.value == "file", lambda: focused_text(app))
        await pilot.pause()
        assert isinstance(app.screen, MainScreen), app.screen


@pytest.mark.slow
async def test_keys_after_the_escape_that_closes_the_filter_move_the_tree() -> None:
    """`escape` closes the box when it comes back to the screen; the focus went back to the tree only after
    the keys typed behind it had been handled, so they were typed into the hidden box (the tree filtered
    by "jj") or lost, and the tree did not move."""
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        tree = screen.tree_widget
        box = screen.query_one("#filter", FilterBox)
        post(app, "/", *"docs", "escape", "j", "j")
        # `escape` leaves the cursor on the filter's match, docs:// (line 1); `j j` go two lines down.
        await until(pilot, lambda: tree.cursor == 3, lambda: (box.value, focused_text(app), tree.cursor))
        await pilot.pause()
        assert box.value == "" and not box.display and app.focused is tree
        assert tree.cursor == 3


async def test_backspace_in_the_burst_deletes_the_letter_typed_before_it() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        post(app, "/", *"docx", "backspace", "s")
        box = main_screen(app).query_one("#filter", FilterBox)
        await until(pilot, lambda: box.value == "docs", lambda: focused_text(app))
        await pilot.press("escape")  # clears and closes the box; `/` opens it again, empty
        post(app, "/", *"ab")
        await until(pilot, lambda: box.value == "ab" and app.focused is box, lambda: focused_text(app))


async def test_a_reopened_filter_box_takes_the_burst_as_slow_keys_would() -> None:
    """The box selects its text when it gets the focus: the first key of the burst replaces the old
    filter (as it does typed slowly), and the keys after it add to it."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        box = screen.query_one("#filter", FilterBox)
        await pilot.press("slash", *"old")
        await pilot.press("tab")  # the focus leaves the box, which stays open with its text
        await until(pilot, lambda: app.focused is not box and box.value == "old", lambda: focused_text(app))
        post(app, "/", *"new")
        await until(pilot, lambda: box.value == "new", lambda: focused_text(app))
        await pilot.pause()
        assert box.value == "new" and box.selection.is_empty, (box.value, box.selection)


async def test_keys_made_before_the_box_had_the_focus_and_sent_after_are_typed_once() -> None:
    """Keys still queued (not yet sent anywhere) when the box gets the focus go to the box as Textual
    sends them; they are typed by the type-ahead and stopped there, not twice."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        early = [key_event(key) for key in "docs"]  # made (typed) now: before the box opens
        await pilot.press("slash")
        box = main_screen(app).query_one("#filter", FilterBox)
        assert app.focused is box
        post(app, *early)
        await until(pilot, lambda: box.value == "docs", lambda: focused_text(app))
        await pilot.pause()
        assert box.value == "docs"


async def test_g_then_a_uri_in_one_burst_goes_into_the_go_to_box() -> None:
    """Its `?` included: the help key, but in a URI typed in one burst with `g` it is text, nothing else
    (it opened the help panel over the box too)."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        post(app, "g", *"docs://search?q=mcp")
        await until(
            pilot,
            lambda: isinstance(app.screen, GoToDialog) and focused_text(app)[1] == "docs://search?q=mcp",
            lambda: focused_text(app),
        )
        await pilot.pause()
        assert not app.screen.query("HelpPanel")
        post(app, *"&x?y")  # `?` is typed into the URI once the field has the focus too
        await until(
            pilot, lambda: focused_text(app)[1] == "docs://search?q=mcp&x?y", lambda: focused_text(app)
        )


async def test_g_a_uri_and_escape_in_one_burst_closes_the_go_to_box() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        post(app, "g", *"docs://", "escape")
        await until(pilot, lambda: isinstance(app.screen, MainScreen), lambda: focused_text(app))
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert main_screen(app).query_one("#filter", FilterBox).value == ""


async def test_n_then_a_url_in_one_burst_goes_into_the_connect_field() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        post(app, "n", *"http://")
        await until(
            pilot,
            lambda: isinstance(app.screen, ConnectDialog) and focused_text(app)[1] == "http://",
            lambda: focused_text(app),
        )


async def test_keys_before_a_forms_field_has_the_focus_are_typed_there_and_enter_reads() -> None:
    """The form focuses its first field once it is mounted: keys that came before wait for it, and an
    `enter` after them is sent again after the text, so it reads the URI with the text."""
    app = make_app()
    results: list[TemplateFormResult | None] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        entry = TemplateEntry("none", "x://d/{id}", "item")
        app.call_later(lambda: app.push_screen(TemplateFormScreen(entry, Completer(None)), results.append))
        post(app, *"a1", "enter")
        await until(pilot, lambda: bool(results), lambda: focused_text(app))
    [result] = results
    assert result is not None and result.uri == "x://d/a1"


def sent(app: ExplorerApp, method: str) -> int:
    return sum(1 for f in app.wire.frames if f.direction == "send" and f.method == method)


async def prompts_listed(pilot: Pilot[Any], app: ExplorerApp, count: int) -> PromptsScreen:
    """`p`, then the prompts screen once at least `count` prompts are listed."""
    await pilot.press("p")
    await until(pilot, lambda: isinstance(app.screen, PromptsScreen), lambda: focused_text(app))
    prompts = app.screen
    assert isinstance(prompts, PromptsScreen)
    await until(pilot, lambda: len(prompts.prompts) >= count, lambda: focused_text(app))
    await pilot.pause()
    return prompts


async def burst_fills_prompt_form(
    pilot: Pilot[Any], app: ExplorerApp, keys: list[str], text: str, name: str
) -> None:
    """`keys` in one burst open the form of prompt `name` with `text` in its first field, and list nothing."""
    lists = sent(app, "prompts/list")
    post(app, *keys)
    await until(
        pilot,
        lambda: isinstance(app.screen, PromptFormScreen) and focused_text(app)[1] == text,
        lambda: (focused_text(app), [type(s).__name__ for s in app.screen_stack]),
    )
    assert isinstance(app.screen, PromptFormScreen) and app.screen.entry.name == name
    assert sent(app, "prompts/list") == lists


@pytest.mark.slow
async def test_keys_behind_the_enter_that_opens_a_templates_form_go_into_its_field() -> None:
    """They reached the tree before the form opened and ran its bindings: `r` refreshed the server,
    `e` opened the error dialog, `m` asked for more; the form opened empty."""
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        assert screen.tree_widget.select_prefix("docs://search{?q,limit}")
        await pilot.pause()
        lists = sent(app, "resources/list")
        post(app, "enter", *"rem")
        await until(
            pilot,
            lambda: isinstance(app.screen, TemplateFormScreen) and focused_text(app)[1] == "rem",
            lambda: (focused_text(app), [type(s).__name__ for s in app.screen_stack]),
        )
        await pilot.pause()
        assert [type(s).__name__ for s in app.screen_stack][1:] == ["MainScreen", "TemplateFormScreen"]
        assert sent(app, "resources/list") == lists  # `r` refreshed nothing


@pytest.mark.slow
@pytest.mark.parametrize("turns", [2, 9])
async def test_a_second_enter_just_behind_the_first_submits_the_form_it_opened(turns: int) -> None:
    """`enter`, then `a b enter` a moment later (a second packet over ssh): the second `enter` opened a
    second, empty form, and `ab` was typed into the first one and never read; 9 turns of the event loop
    later, the `a` was typed twice (the app handles a key again as it comes back up: taken again)."""
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        assert screen.tree_widget.select_prefix("docs://search{?q,limit}")
        await pilot.pause()
        reads = sent(app, "resources/read")
        post(app, "enter")
        for _ in range(turns):  # the first `enter` is on its way when the rest comes
            await asyncio.sleep(0)
        post(app, *"ab", "enter")
        await until(pilot, lambda: sent(app, "resources/read") > reads, lambda: focused_text(app))
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and len(app.screen_stack) == 2
        read = [f for f in app.wire.frames if f.direction == "send" and f.method == "resources/read"][-1]
        assert read.json()["params"]["uri"] == "docs://search?q=ab", read.json()


@pytest.mark.slow
async def test_keys_behind_a_forms_enter_keep_their_order_when_they_come_apart() -> None:
    """Keys a few turns of the event loop apart (as they come over a slow link): one already on its way
    to the tree when the `enter` was seen came back after the next, and `ab` was typed `ba`."""
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        assert screen.tree_widget.select_prefix("docs://search{?q,limit}")
        await pilot.pause()
        reads = sent(app, "resources/read")
        for key in ("enter", "a", "b", "enter"):
            post(app, key)
            for _ in range(3):
                await asyncio.sleep(0)
        await until(pilot, lambda: sent(app, "resources/read") > reads, lambda: focused_text(app))
        read = [f for f in app.wire.frames if f.direction == "send" and f.method == "resources/read"][-1]
        assert read.json()["params"]["uri"] == "docs://search?q=ab", read.json()


NO_FIELDS = """
def answer(method, params):
    if method == "resources/list":
        return {"resources": []}
    if method == "resources/templates/list":
        return {"resourceTemplates": [{"uriTemplate": "x://static/plain", "name": "plain"}]}
    return None
"""


@pytest.mark.slow
async def test_escape_behind_the_enter_that_opens_a_form_without_fields_closes_it(tmp_path: Path) -> None:
    """A template without variables: its form has no field, and the keys held for one were never let go."""
    async with settled_app(stdio_spec("s", tiny_server(tmp_path, NO_FIELDS))) as (app, pilot):
        screen = main_screen(app)
        assert screen.tree_widget.select_prefix("x://static/plain")
        await pilot.pause()
        post(app, "enter", "escape")
        await until(pilot, lambda: isinstance(app.screen, MainScreen), lambda: focused_text(app))
        await pilot.pause()
        assert len(app.screen_stack) == 2


NO_ARGUMENTS = """
CAPABILITIES = {"resources": {}, "prompts": {}}
def answer(method, params):
    if method in ("resources/list", "resources/templates/list"):
        return {"resources": [], "resourceTemplates": []}
    if method == "prompts/list":
        return {"prompts": [{"name": "plain", "description": "no arguments"}]}
    return None
"""


TWO_PROMPTS = """
CAPABILITIES = {"resources": {}, "prompts": {}}
def answer(method, params):
    if method in ("resources/list", "resources/templates/list"):
        return {"resources": [], "resourceTemplates": []}
    if method == "prompts/list":
        return {"prompts": [
            {"name": "plain", "description": "no arguments"},
            {"name": "weather", "arguments": [{"name": "city", "required": True}]},
        ]}
    return None
"""


@pytest.mark.slow
async def test_a_key_before_the_enter_that_moves_onto_a_prompt_with_arguments_counts(tmp_path: Path) -> None:
    """`down enter Paris` in one burst from a prompt without arguments (server-everything's first): the
    `enter` was judged before `down` had moved the highlight, so `Paris` was not held: lost, its `r`
    listing the prompts again."""
    async with settled_app(stdio_spec("s", tiny_server(tmp_path, TWO_PROMPTS))) as (app, pilot):
        await prompts_listed(pilot, app, 2)
        await burst_fills_prompt_form(pilot, app, ["down", "enter", *"Paris"], "Paris", "weather")


@pytest.mark.slow
async def test_the_help_key_on_a_prompts_form_without_fields_opens_the_help(tmp_path: Path) -> None:
    """The form waited for a field to type into that it does not have: every printable key was held,
    `?` (its help key) included, typed slowly."""
    async with settled_app(stdio_spec("s", tiny_server(tmp_path, NO_ARGUMENTS))) as (app, pilot):
        await prompts_listed(pilot, app, 1)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PromptFormScreen), lambda: focused_text(app))
        await pilot.press("question_mark")
        await until(pilot, lambda: bool(app.screen.query("HelpPanel")), lambda: focused_text(app))


@pytest.mark.slow
async def test_escape_behind_the_enter_that_opens_a_templates_form_closes_it() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        assert screen.tree_widget.select_prefix("docs://search{?q,limit}")
        await pilot.pause()
        post(app, "enter", *"ab", "escape")
        await until(
            pilot,
            lambda: isinstance(app.screen, MainScreen) and screen.focused is screen.tree_widget,
            lambda: (focused_text(app), [type(s).__name__ for s in app.screen_stack]),
        )
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and len(app.screen_stack) == 2
        assert screen.query_one("#filter", FilterBox).value == ""


@pytest.mark.slow
async def test_keys_behind_the_enter_that_opens_a_prompts_form_go_into_its_field() -> None:
    """They went to the prompts list before the form opened: `j` moved it, `r` listed the prompts again."""
    async with settled_app(demo_spec()) as (app, pilot):
        listed = await prompts_listed(pilot, app, 4)
        assert listed.prompts[0].name == "summarize-chapter"  # it asks for a chapter
        await burst_fills_prompt_form(pilot, app, ["enter", *"jar"], "jar", "summarize-chapter")


async def test_enter_after_the_text_waits_for_the_field_and_submits_the_text() -> None:
    """An `enter` that comes back to the app before the connect dialog's field has the focus (the dialog
    binds no `enter`) is sent again after the text: it connects to what was typed, not to nothing."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        post(app, "n", *"http://", "enter")
        await until(
            pilot,
            lambda: isinstance(app.screen, ConnectDialog) and "the URL has no host" in status_of(app),
            lambda: (focused_text(app), status_of(app)),
        )
        assert '"http://"' in status_of(app) and focused_text(app)[1] == "http://"


def status_of(app: ExplorerApp) -> str:
    if not isinstance(app.screen, ConnectDialog):
        return ""
    return str(app.screen.query_one("#connect-status", Static).content)


async def test_keys_on_their_way_as_a_dialog_opens_by_itself_go_into_its_field() -> None:
    """A server asks for a value while keys are on their way to the tree: they come back to the app with
    the dialog's field focused, and go into the field."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        post(app, *"xy")
        behind_the_keys(app, lambda: app.push_screen(InputDialog(InputPrompt("token"), "srv")))
        await until(
            pilot,
            lambda: isinstance(app.screen, InputDialog) and focused_text(app)[1] == "xy",
            lambda: focused_text(app),
        )


def behind_the_keys(app: ExplorerApp, callback: Callable[[], object]) -> None:
    """`callback` run by the app once it has taken the keys posted so far off its queue (and sent them
    on), as when a server's request for a value comes in while keys are on their way."""

    async def queue_it() -> None:
        app.call_later(callback)

    asyncio.run_coroutine_threadsafe(queue_it(), asyncio.get_running_loop())


async def test_ctrl_p_then_a_word_in_one_burst_goes_into_the_palette() -> None:
    """Checked, nothing to do: `ctrl+p` is a priority binding, run before the keys after it are sent
    anywhere, so they go to the palette's input."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        post(app, "ctrl+p", *"filter")
        await until(
            pilot,
            lambda: isinstance(app.screen, CommandPalette) and focused_text(app)[1] == "filter",
            lambda: focused_text(app),
        )
