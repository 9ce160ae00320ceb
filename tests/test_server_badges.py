"""Server names cut to a width never read alike: the tree's badges and the server bar's names.

The same command given twice is `raw_server.py` and `raw_server.py-2`; cut at the end to the badge's 12
cells both read `raw_server.…`, and the rows could not tell which server lists what.
"""

from __future__ import annotations

import shlex
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from textual.app import App, ComposeResult

from explorer.config import ServerSpec
from explorer.config.options import select_servers
from explorer.model.catalogue import ServerStatus
from explorer.sanitize import is_clean
from explorer.theming import theme_variable_defaults
from explorer.widgets.server_bar import NAME_CELLS, ServerBar
from explorer.widgets.server_labels import distinct_labels
from tests.app_helpers import demo_spec, main_screen, settled_app, tree_lines, wait_for
from tests.helpers.paths import FIXTURES

BADGE = 12


def assert_good_labels(labels: dict[str, str], cells: int) -> None:
    """Every label fits, is safe for a terminal, and reads unlike every other."""
    shown = list(labels.values())
    assert len(set(shown)) == len(shown), labels
    for label in shown:
        assert cell_len(label) <= cells, label
        assert is_clean(label, multiline=False), label


# ------------------------------------------------------------------------------------------ the cutting


def test_a_repeated_command_keeps_its_number_where_the_end_cut_would_lose_it() -> None:
    labels = distinct_labels(["raw_server.py", "raw_server.py-2"], BADGE)
    assert labels["raw_server.py"] != labels["raw_server.py-2"]
    assert labels["raw_server.py-2"].endswith("py-2") and "…" in labels["raw_server.py-2"]
    assert_good_labels(labels, BADGE)


def test_names_that_fit_or_are_cut_alone_read_as_before() -> None:
    labels = distinct_labels(["demo", "a-long-server-name", "demo-2"], BADGE)
    assert labels == {"demo": "demo", "a-long-server-name": "a-long-serv…", "demo-2": "demo-2"}


def test_long_names_alike_but_for_their_middle_are_numbered() -> None:
    names = ["a" * 300 + "x" + "z" * 300, "a" * 300 + "y" + "z" * 300, "a" * 300 + "w" + "z" * 300]
    labels = distinct_labels(names, BADGE)
    assert_good_labels(labels, BADGE)
    assert sum(label.endswith(("#2", "#3")) for label in labels.values()) == 2


def test_a_huge_name_is_cut_without_reading_it_whole() -> None:
    names = ["x" * 5_000_000 + "-1", "x" * 5_000_000 + "-2"]
    labels = distinct_labels(names, BADGE)
    assert_good_labels(labels, BADGE)
    assert labels[names[0]].endswith("-1") and labels[names[1]].endswith("-2")


def test_wide_characters_are_counted_as_two_cells() -> None:
    names = ["数据库服务器一号-1", "数据库服务器一号-2", "🦊" * 20]
    labels = distinct_labels(names, BADGE)
    assert_good_labels(labels, BADGE)
    assert labels["数据库服务器一号-2"].endswith("-2")
    assert cell_len(labels["🦊" * 20]) in (BADGE - 1, BADGE)  # never half a wide character


def test_control_and_invisible_characters_are_shown_escaped_and_still_tell_names_apart() -> None:
    names = [
        "evil\x1b]8;;http://x\x07server-1",
        "evil\x1b]8;;http://x\x07server-2",
        "\u202edrawkcab-server",
        "zero\u200bwidth\u200bname",
        "a\x1bb",
        "a\\x1bb",  # reads like the escape of the one above: still told apart
        "tab\there\nnew-line",
    ]
    labels = distinct_labels(names, BADGE)
    assert_good_labels(labels, BADGE)
    assert labels["a\x1bb"] == "a\\x1bb"


def test_many_servers_of_one_command_are_all_told_apart() -> None:
    names = ["raw_server.py"] + [f"raw_server.py-{n}" for n in range(2, 40)]
    assert_good_labels(distinct_labels(names, BADGE), BADGE)
    assert_good_labels(distinct_labels(names, NAME_CELLS), NAME_CELLS)


hostile_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)) | st.sampled_from("…#-\\x1b\x1b"),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(names=st.lists(hostile_text, max_size=12, unique=True), cells=st.sampled_from([6, 12, 30]))
def test_any_names_get_distinct_safe_labels_that_fit(names: list[str], cells: int) -> None:
    assert_good_labels(distinct_labels(names, cells), cells)


@settings(max_examples=100, deadline=None)
@given(stem=hostile_text, count=st.integers(2, 12))
def test_any_repeated_name_gets_distinct_labels(stem: str, count: int) -> None:
    names = [stem] + [f"{stem}-{n}" for n in range(2, count + 1)]
    assert_good_labels(distinct_labels(names, BADGE), BADGE)


# ------------------------------------------------------------------------------------------- on screen


class BarApp(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults()

    def compose(self) -> ComposeResult:
        yield ServerBar()


@pytest.mark.anyio
async def test_the_server_bar_tells_apart_long_names_that_differ_at_their_end() -> None:
    stem = "knowledge-base-of-the-platform-team"  # past the bar's 30 cells
    statuses = [
        ServerStatus(ServerSpec(name=name, transport="stdio", command="server"), state="ready")
        for name in (f"{stem}-eu", f"{stem}-us", f"evil\x1b]0;{stem}\x07-1")
    ]
    async with BarApp().run_test(size=(160, 10)) as pilot:
        bar = pilot.app.query_one(ServerBar)
        bar.update_statuses(statuses)
        await pilot.pause()
        names = [line.split("  ")[0][2:] for line in str(bar.render()).splitlines()]
    assert len(set(names)) == 3, names
    assert names[0].endswith("-eu") and names[1].endswith("-us"), names
    assert all(cell_len(name) <= NAME_CELLS and is_clean(name, multiline=False) for name in names), names


def badges_in(line: str) -> list[str]:
    """The badges a tree line shows (`… raw_se…er.py   raw_se….py-2 `), by the two spaces around each."""
    return [part.strip() for part in line.split("  ") if "raw_se" in part]


@pytest.mark.anyio
@pytest.mark.slow
async def test_the_same_command_twice_shows_two_badges_that_read_differently() -> None:
    command = shlex.join([sys.executable, str(FIXTURES / "raw_server.py"), "--resources", "3"])
    specs = select_servers(None, [command, command], sse=False, headers={}, default=demo_spec())
    assert [spec.name for spec in specs] == ["raw_server.py", "raw_server.py-2"]
    async with settled_app(*specs) as (app, pilot):
        screen = main_screen(app)
        assert all(s.state == "ready" for s in screen.catalogue.servers.values())
        tree = screen.tree_widget
        await wait_for(pilot, lambda: tree.show_servers)
        tree.focus()
        await pilot.press("l")  # open the first prefix: its rows are each served by both servers
        await wait_for(pilot, lambda: any(len(badges_in(line)) == 2 for line in tree_lines(app)))
        shown = [badges_in(line) for line in tree_lines(app)]
        pairs = [badges for badges in shown if len(badges) == 2]
        assert pairs, tree_lines(app)
        for first, second in pairs:
            assert first != second, (first, second)
            assert "raw_server.…" not in (first, second)
        assert any(badges[1].endswith("py-2") for badges in pairs)
        bar = [line for line in str(screen.query_one("ServerBar").render()).splitlines() if line]
        assert any(" raw_server.py  " in line for line in bar)
        assert any(" raw_server.py-2  " in line for line in bar)


@pytest.mark.anyio
async def test_the_palettes_verbs_of_two_long_names_never_read_the_same() -> None:
    """`Reconnect: NAME` cut at 40 characters read alike for a long name and its repeat (`-2`)."""
    from explorer.screens.palette import ExplorerCommands
    from tests.app_helpers import main_screen, make_app, raw_spec, wait_settled

    long = "a-server-with-a-name-longer-than-forty-characters"
    app = make_app(raw_spec(long, "exit-at-start"), raw_spec(long + "-2", "exit-at-start"))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_settled(pilot, app)
        hits = [hit async for hit in ExplorerCommands(main_screen(app)).search("Reconnect: ")]
        shown = sorted(
            str(hit.match_display) for hit in hits if str(hit.match_display).startswith("Reconnect: ")
        )
        assert len(shown) == 2 and shown[0] != shown[1], shown
        assert any(label.endswith("-2") for label in shown), shown
