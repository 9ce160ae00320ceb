"""The prompts screen keeps the highlighted prompt where the user put it when the list is drawn again.

Before, `r` and every `prompts/list_changed` (of any server) emptied every server's listing, drew the
list blank, and put the highlight back by its row number: the highlight went to the first prompt, and the
details pane with it, so it no longer matched the result shown. A list change of one server re-listed
every server. Now the highlighted prompt (same server and name) stays highlighted wherever it moved, a
prompt that is gone hands the highlight to its server's prompt now at its place, a change re-lists only
the server that announced it, what was shown stays until the new listing comes, and a form open over the
screen is left alone.

A change also listed the server's prompts twice, one after the other: the app's own re-list, then the
screen's, which began only once the first had ended (the screen said nothing meanwhile). The screen now
says "listing again…" as the app's re-list begins, and shows what that re-list got.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Static

from explorer.app import ExplorerApp
from explorer.screens.prompts import PromptFormScreen, PromptsScreen
from explorer.widgets.argument_form import ArgumentForm
from tests.app_helpers import demo_spec, main_screen, settled_app, stdio_spec, wait_for
from tests.helpers.tiny_server import tiny_server

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

# Prompts that change at each `test/change` request, which announces it (notifications/prompts/list_changed):
# two prompts come before "gamma", then "gamma" goes. While the file HOLD exists, `prompts/list` waits.
SERVER = """
import os, sys, time
CAPABILITIES = {"resources": {}, "prompts": {"listChanged": True}}
NAME = sys.argv[1]
HOLD = sys.argv[2]
LISTS = [
    ["alpha", "beta", "gamma", "delta"],
    ["new-one", "new-two", "alpha", "beta", "gamma", "delta"],
    ["new-one", "new-two", "alpha", "beta", "delta"],
]
STATE = {"at": 0}
def answer(method, params):
    if method in ("resources/list", "resources/templates/list"):
        return {"resources": [], "resourceTemplates": []}
    if method == "prompts/list":
        while os.path.exists(HOLD):
            time.sleep(0.02)
        names = LISTS[STATE["at"]]
        return {"prompts": [
            {"name": n, "description": f"the {n} prompt",
             "arguments": [{"name": "topic", "required": True}] if n == "gamma" else []}
            for n in names
        ]}
    if method == "prompts/get":
        said = f"{params['name']} on {params.get('arguments', {}).get('topic', '')}"
        return {"messages": [{"role": "user", "content": {"type": "text", "text": said}}]}
    if method == "test/change":
        STATE["at"] += 1
        send({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
        return {}
    return None
"""


def servers(tmp_path: Path) -> tuple[str, str, Path]:
    """Two tiny servers, `t` (whose prompts change) and `u` (which never changes), and t's hold file."""
    hold = tmp_path / "hold"
    t = tiny_server(tmp_path, SERVER, "t", str(hold), name="t_server.py")
    u = tiny_server(tmp_path, SERVER, "u", str(tmp_path / "never"), name="u_server.py")
    return t, u, hold


def prompts_screen(app: ExplorerApp) -> PromptsScreen:
    for screen in app.screen_stack:
        if isinstance(screen, PromptsScreen):
            return screen
    raise AssertionError("no prompts screen")


def option_texts(screen: PromptsScreen) -> list[str]:
    options = screen.query_one("#prompt-list", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def highlighted(screen: PromptsScreen) -> str | None:
    """The highlighted prompt as the list shows it: `server/name` (the server from the header above it)."""
    options = screen.query_one("#prompt-list", OptionList)
    index = options.highlighted
    if index is None:
        return None
    texts = option_texts(screen)
    name = texts[index].strip().split()[0]
    header = next(texts[i] for i in range(index, -1, -1) if options.get_option_at_index(i).disabled)
    return f"{header.split()[0]}/{name}"


def details(screen: PromptsScreen) -> str:
    return str(screen.query_one("#prompt-detail-body", Static).render())


def shows(screen: PromptsScreen, server: str, name: str) -> bool:
    """The highlight and the details pane both on `server/name`."""
    text = details(screen)
    return highlighted(screen) == f"{server}/{name}" and text.startswith(name) and f"[{server}]" in text


def names_of(screen: PromptsScreen, server: str) -> list[str]:
    listing = screen.listings.get(server)
    return [p.name for p in listing.prompts] if listing is not None else []


def listed(screen: PromptsScreen) -> bool:
    return bool(screen.listings) and all(s.state != "listing" for s in screen.listings.values())


def prompt_lists(app: ExplorerApp, server: str) -> int:
    return sum(
        1
        for f in app.wire.frames
        if f.server == server and f.direction == "send" and f.method == "prompts/list"
    )


async def open_prompts(pilot: Pilot[int], app: ExplorerApp) -> PromptsScreen:
    await pilot.press("p")
    await wait_for(pilot, lambda: isinstance(app.screen, PromptsScreen))
    screen = prompts_screen(app)
    await wait_for(pilot, lambda: listed(screen) and len(screen.listings) == len(screen.server_names))
    return screen


async def move_to(pilot: Pilot[int], screen: PromptsScreen, target: str) -> None:
    """Press down until `target` (server/name) is highlighted, as a user would."""
    for _ in range(30):
        if highlighted(screen) == target:
            break
        await pilot.press("down")
    server, name = target.split("/")
    await wait_for(pilot, lambda: shows(screen, server, name))


async def change(app: ExplorerApp, server: str) -> None:
    """Make `server`'s prompts change; it announces it with notifications/prompts/list_changed."""
    conn = main_screen(app).supervisor.connection(server)
    assert conn is not None
    await conn.request("test/change", None, action="changing the prompts")


async def test_r_keeps_the_highlighted_prompt_of_the_second_server() -> None:
    async with settled_app(demo_spec("a"), demo_spec("b")) as (app, pilot):
        screen = await open_prompts(pilot, app)
        assert shows(screen, "a", "summarize-chapter")  # opened on the first prompt
        await move_to(pilot, screen, "b/incident-review")
        before = prompt_lists(app, "b")
        await pilot.press("r")
        await wait_for(pilot, lambda: prompt_lists(app, "b") > before and listed(screen))
        await pilot.pause(0.2)
        assert shows(screen, "b", "incident-review")


async def test_a_list_change_keeps_the_prompt_wherever_it_moved_and_lists_only_its_server(
    tmp_path: Path,
) -> None:
    t, u, _hold = servers(tmp_path)
    async with settled_app(stdio_spec("t", t), stdio_spec("u", u)) as (app, pilot):
        screen = await open_prompts(pilot, app)
        await move_to(pilot, screen, "t/gamma")
        t_lists, u_lists = prompt_lists(app, "t"), prompt_lists(app, "u")
        await change(app, "t")  # two prompts now come before gamma
        await wait_for(pilot, lambda: "new-one" in "\n".join(option_texts(screen)) and listed(screen))
        await pilot.pause(0.2)
        assert shows(screen, "t", "gamma")
        assert prompt_lists(app, "u") == u_lists  # u did not list again
        assert prompt_lists(app, "t") == t_lists + 1  # the screen shows the app's re-list: no second one
        # gamma goes: the highlight takes its server's prompt now at its place, not the top of the list.
        await change(app, "t")
        await wait_for(
            pilot,
            lambda: (
                names_of(screen, "t") == ["new-one", "new-two", "alpha", "beta", "delta"] and listed(screen)
            ),
        )
        await pilot.pause(0.2)
        assert shows(screen, "t", "delta")
        assert prompt_lists(app, "u") == u_lists


async def test_u_keeps_its_highlight_when_t_changes_above_it(tmp_path: Path) -> None:
    t, u, _hold = servers(tmp_path)
    async with settled_app(stdio_spec("t", t), stdio_spec("u", u)) as (app, pilot):
        screen = await open_prompts(pilot, app)
        await move_to(pilot, screen, "u/beta")
        await change(app, "t")
        await wait_for(pilot, lambda: "new-one" in "\n".join(option_texts(screen)) and listed(screen))
        await pilot.pause(0.2)
        assert shows(screen, "u", "beta")


async def test_the_list_stays_shown_while_it_is_listed_again(tmp_path: Path) -> None:
    t, u, hold = servers(tmp_path)
    async with settled_app(stdio_spec("t", t), stdio_spec("u", u)) as (app, pilot):
        screen = await open_prompts(pilot, app)
        await move_to(pilot, screen, "t/gamma")
        hold.write_text("")  # t's next prompts/list waits until the file is gone
        try:
            await change(app, "t")
            await wait_for(pilot, lambda: screen.listings["t"].state == "listing")
            await pilot.pause(0.2)
            texts = option_texts(screen)
            t_part = texts[: next(i for i, text in enumerate(texts) if text.startswith("u "))]
            assert t_part[0] == "t  4 prompts · listing again…"
            assert [text.split()[0] for text in t_part[1:]] == ["alpha", "beta", "gamma", "delta"]
            assert shows(screen, "t", "gamma")
        finally:
            hold.unlink()
        await wait_for(pilot, lambda: listed(screen))
        await pilot.pause(0.2)
        assert shows(screen, "t", "gamma")


async def test_a_form_open_over_the_screen_is_left_alone(tmp_path: Path) -> None:
    t, u, _hold = servers(tmp_path)
    async with settled_app(stdio_spec("t", t), stdio_spec("u", u)) as (app, pilot):
        screen = await open_prompts(pilot, app)
        await move_to(pilot, screen, "t/gamma")
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: isinstance(app.screen, PromptFormScreen) and bool(app.screen.query(Input))
        )
        form_screen = app.screen
        assert isinstance(form_screen, PromptFormScreen)
        form = form_screen.query_one(ArgumentForm)
        await wait_for(pilot, lambda: isinstance(app.focused, Input))
        await pilot.press(*"caching")
        await change(app, "t")
        await wait_for(pilot, lambda: "new-one" in "\n".join(option_texts(screen)) and listed(screen))
        await pilot.pause(0.2)
        assert app.screen is form_screen
        assert form.texts["topic"] == "caching"
        focused = app.focused
        assert isinstance(focused, Input) and focused.value == "caching"
        await pilot.press("enter")  # gets gamma
        await wait_for(pilot, lambda: app.screen is screen and screen.result_view.state == "result")
        await wait_for(pilot, lambda: "gamma on caching" in screen.result_view.text)
        assert shows(screen, "t", "gamma")  # the details match the result shown
