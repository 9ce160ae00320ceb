"""Pilot tests: real keys against the demo server and fixture servers over stdio."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, OptionList

from explorer.config import ListingBounds
from explorer.model.uri_tree import UriNode
from explorer.screens.error_dialog import ErrorDialog
from explorer.screens.goto import GoToDialog, GoToTarget
from explorer.widgets.detail import DetailPane
from explorer.widgets.preview import ContentPreview
from explorer.widgets.resource_tree import ResourceTree
from explorer.widgets.server_bar import ServerBar
from tests.app_helpers import (
    SIZE,
    demo_spec,
    main_screen,
    make_app,
    preview_text,
    raw_spec,
    settled_app,
    tree_lines,
    wait_for,
    wait_settled,
)

pytestmark = pytest.mark.anyio


@pytest.mark.slow
async def test_demo_tree_browse_and_read_markdown() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        status = screen.catalogue.servers["demo"]
        assert status.state == "ready" and len(status.listing.resources) >= 2000  # type: ignore[union-attr]
        bar = str(screen.query_one(ServerBar).render())
        assert "mcp-url-explorer-demo" in bar and "complete" in bar
        lines = tree_lines(app)
        assert any("docs://" in line for line in lines) and any("metrics://" in line for line in lines)
        # Expand docs:// and walk to the handbook; nothing is read on highlight.
        await pilot.press("down", "right")
        assert screen.tree_widget.select_prefix("docs://handbook")
        await pilot.pause()
        assert "Nothing to preview" in preview_text(app) or preview_text(app).strip() == ""
        detail = str(screen.query_one(DetailPane).query_one("#detail-body").render())
        assert "docs://handbook" in detail and "text/markdown" in detail
        await pilot.press("enter")
        await wait_for(pilot, lambda: "The handbook" in preview_text(app))


def resolved(dialog: object, uri: str) -> bool:
    """The go-to box shows its (worker thread's) answer for `uri`."""
    return isinstance(dialog, GoToDialog) and dialog.resolution is not None and dialog.resolution.uri == uri


@pytest.mark.slow
async def test_go_to_a_templated_uri_reads_it_with_the_values() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await pilot.press("g")
        assert isinstance(app.screen, GoToDialog)
        dialog = app.screen
        dialog.query_one(Input).value = "metrics://eu-west/checkout/latest"
        await wait_for(pilot, lambda: resolved(dialog, "metrics://eu-west/checkout/latest"))
        options = app.screen.query_one("#goto-options")
        assert "region=eu-west" in str(options.get_option_at_index(0).prompt)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_for(pilot, lambda: '"service": "checkout"' in preview_text(app))


@pytest.mark.slow
async def test_go_to_unknown_uri_names_the_nearest_prefix() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await pilot.press("g")
        dialog = app.screen
        assert isinstance(dialog, GoToDialog)
        dialog.query_one(Input).value = "docs://handbook/welcome/nothing/here"
        await wait_for(pilot, lambda: resolved(dialog, "docs://handbook/welcome/nothing/here"))
        summary = str(app.screen.query_one("#goto-summary").render())
        assert "Nothing lists or matches" in summary or "template" in summary
        await pilot.press("escape")
        assert not isinstance(app.screen, GoToDialog)


@pytest.mark.slow
async def test_go_to_a_uri_nothing_lists_or_matches_offers_to_read_it_anyway() -> None:
    """Enter did nothing there: no choice, no message. Asking the server shows its own answer, which is
    what someone debugging why a URI does not resolve wants to see; text without a scheme is named so."""
    async with settled_app(demo_spec()) as (app, pilot):
        await pilot.press("g")
        dialog = app.screen
        assert isinstance(dialog, GoToDialog)
        dialog.query_one(Input).value = "not a uri"
        await wait_for(pilot, lambda: resolved(dialog, "not a uri"))
        assert "Not a URI: it has no scheme" in str(dialog.query_one("#goto-summary").render())
        dialog.query_one(Input).value = "foo://nothing"
        await wait_for(pilot, lambda: resolved(dialog, "foo://nothing"))
        first = dialog.query_one("#goto-options", OptionList).get_option_at_index(0)
        assert "read anyway" in str(first.prompt) and "[demo]" in str(first.prompt)
        await pilot.press("enter")
        preview = main_screen(app).query_one(ContentPreview)
        await wait_for(
            pilot, lambda: preview.uri == "foo://nothing" and preview.state == "error" and preview.shown
        )
        assert "Resource not found: foo://nothing" in preview_text(app)


@pytest.mark.slow
async def test_filter_keeps_matches_and_escape_clears() -> None:
    async with settled_app(demo_spec()) as (app, pilot):
        await pilot.press("slash")
        for key in "glossary":
            await pilot.press(key)
        tree = main_screen(app).query_one(ResourceTree)
        await wait_for(pilot, lambda: tree.filter_result is not None and not tree.filter_pending)
        lines = [line for line in tree_lines(app) if line.strip()]
        assert any("glossary" in line for line in lines)
        assert not any("metrics://" in line for line in lines)
        await pilot.press("escape")
        await pilot.pause()
        assert any("metrics://" in line for line in tree_lines(app))


@pytest.mark.slow
async def test_a_filter_that_matches_nothing_says_so_instead_of_the_whole_count() -> None:
    """The root row kept the count of the whole tree, which read as "everything matches"."""
    async with settled_app(demo_spec()) as (app, pilot):
        await pilot.press("slash", *"qqqzzz")
        tree = main_screen(app).query_one(ResourceTree)
        await wait_for(pilot, lambda: tree.filter_result is not None and not tree.filter_pending)
        await pilot.pause()
        lines = [line for line in tree_lines(app) if line.strip()]
        assert lines[0].split() == ["▾", "All", "resources", "0", "no", "match"]
        await pilot.press("backspace", "backspace", "backspace", "backspace", "backspace", "backspace")
        await wait_for(pilot, lambda: any("metrics://" in line for line in tree_lines(app)))
        assert "no match" not in tree_lines(app)[0]


@pytest.mark.slow
async def test_one_failing_server_leaves_the_other_working_and_shows_its_error() -> None:
    async with settled_app(raw_spec("good", resources=30), raw_spec("broken", "exit-at-start")) as (
        app,
        pilot,
    ):
        screen = main_screen(app)
        good, broken = screen.catalogue.servers["good"], screen.catalogue.servers["broken"]
        assert good.state == "ready" and broken.state == "failed"
        assert "could not open the database" in (broken.error or "") + broken.stderr_tail
        assert any("fixture://" in line for line in tree_lines(app))
        await pilot.press("e")
        assert isinstance(app.screen, ErrorDialog)
        report = str(app.screen.query_one("#error-report").render())
        assert "could not open the database" in report and "broken" in report
        await pilot.press("escape")
        assert app.is_running


async def test_server_dying_mid_listing_keeps_what_was_listed() -> None:
    async with settled_app(raw_spec("dies", "exit-mid-list")) as (app, _pilot):
        status = main_screen(app).catalogue.servers["dies"]
        assert status.state == "failed"
        assert main_screen(app).catalogue.tree.root.resource_count == 100
        assert any("fixture://" in line for line in tree_lines(app))


async def test_incomplete_listing_is_marked_and_continues_with_m() -> None:
    async with settled_app(raw_spec("big", resources=300), bounds=ListingBounds(max_pages=2)) as (app, pilot):
        screen = main_screen(app)
        status = screen.catalogue.servers["big"]
        assert status.state == "incomplete" and screen.catalogue.tree.root.resource_count == 200
        assert "incomplete" in str(screen.query_one(ServerBar).render())
        await pilot.press("m")
        await wait_for(pilot, lambda: screen.catalogue.tree.root.resource_count == 300)
        await wait_settled(pilot, app)


async def test_read_error_is_shown_in_the_preview() -> None:
    async with settled_app(raw_spec("fx", resources=5)) as (app, pilot):
        main_screen(app).read("fx", "fixture://does/not/exist")
        await wait_for(pilot, lambda: "-32002" in preview_text(app))
        assert app.is_running


async def test_refresh_keeps_the_listing_on_screen() -> None:
    async with settled_app(raw_spec("fx", resources=50)) as (app, pilot):
        screen = main_screen(app)
        await pilot.press("r")
        assert screen.catalogue.tree.root.resource_count == 50  # the old listing stays meanwhile
        await wait_settled(pilot, app)
        assert screen.catalogue.tree.root.resource_count == 50
        assert screen.catalogue.servers["fx"].state == "ready"


@pytest.mark.slow
@pytest.mark.interop
async def test_reference_and_demo_servers_together(reference_server: str) -> None:
    from tests.app_helpers import stdio_spec

    async with settled_app(demo_spec(), stdio_spec("everything", reference_server)) as (app, pilot):
        screen = main_screen(app)
        assert [s.state for s in screen.catalogue.servers.values()] == ["ready", "ready"]
        assert screen.tree_widget.show_servers
        lines = tree_lines(app)
        assert any("demo://resource" in line for line in lines) and any("docs://" in line for line in lines)
        assert screen.tree_widget.select_prefix("demo://resource/static/document/architecture.md")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Architecture" in preview_text(app))
        bar = str(screen.query_one(ServerBar).render())
        assert "2025-11-25" in bar and "2026-07-28" in bar


@pytest.mark.slow
async def test_tree_is_usable_while_50000_resources_stream_in() -> None:
    app = make_app(raw_spec("big", "slow-list", resources=50_000, page_size=500, delay=0.05))
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        tree = screen.catalogue.tree
        await wait_for(pilot, lambda: tree.root.resource_count >= 1000)
        status = screen.catalogue.servers["big"]
        assert status.state == "listing"  # still streaming
        widget = screen.tree_widget
        await pilot.press("down", "right")  # onto fixture:// and expand it
        await pilot.press("down", "right", "down")
        assert widget.cursor_line == 3
        assert status.state == "listing" and tree.root.resource_count < 50_000
        expanded_before = widget.row_count
        on_node = widget.cursor_node
        await wait_settled(pilot, app, timeout=60)
        assert status.state == "ready" and tree.root.resource_count == 50_000
        assert widget.row_count >= expanded_before  # expansions kept while pages arrived
        assert widget.cursor_node is on_node  # the cursor stayed on its node as siblings arrived


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_a_changed_list_refreshes_the_tree_in_both_eras(protocol: str) -> None:
    from explorer.config import ServerSpec

    spec = demo_spec()
    changing = ServerSpec(
        name="demo",
        transport="stdio",
        command=spec.command,
        args=spec.args,
        env={"EXPLORER_DEMO_CHANGE_SECONDS": "1"},
    )
    app = make_app(changing)
    app.protocol = "legacy" if protocol == "legacy" else "auto"
    async with app.run_test(size=SIZE) as pilot:
        await wait_settled(pilot, app)
        tree = main_screen(app).catalogue.tree
        era = main_screen(app).catalogue.servers["demo"].identity.era  # type: ignore[union-attr]
        assert era == ("handshake" if protocol == "legacy" else "modern")
        await wait_for(
            pilot,
            lambda: any(r.uri.startswith("docs://inbox/0") for r in tree.resources_under("docs://inbox/")),
        )


@pytest.mark.slow
async def test_a_go_to_is_read_once_even_when_a_key_follows_at_once() -> None:
    """With auto-preview on, a go-to reads its target itself; its own highlight is not read again, also
    when a key moves the cursor on before that highlight's message comes (which used to read it)."""
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        screen.auto_preview = True
        await pilot.press("g")
        dialog = app.screen
        uri = "file:///workspace/tidewater/README.md/zzz"  # by the {+path} template, under a resource
        dialog.query_one(Input).value = uri
        await wait_for(pilot, lambda: resolved(dialog, uri))
        match = dialog.resolution.matches[0]  # type: ignore[attr-defined]
        entry = match.entry
        target = GoToTarget(uri, entry.literal_prefix, entry.uri_template, "demo", dict(match.values))
        await pilot.press("escape")
        await pilot.pause()
        reads: list[str] = []
        read = screen.read
        screen.read = lambda server, uri, **options: (reads.append(uri), read(server, uri, **options))[1]  # type: ignore[method-assign]
        tree = screen.tree_widget
        screen._go_to(target)
        details = screen.query_one(DetailPane).query_one("#detail-body")
        assert uri in str(details.render())  # the details show the go-to's URI, not the node under it
        landed = tree.cursor_node
        assert isinstance(landed, UriNode) and landed.resources  # auto-preview would read it
        tree.action_cursor_up()  # before the go-to's highlight reaches the screen (to LICENSE)
        after = tree.cursor_node
        await pilot.pause()  # every pending message handled (the go-to's highlight among them)
        assert reads[0] == uri and landed.prefix not in reads
        assert uri not in str(details.render())  # the cursor moved on: its node's details
        assert isinstance(after, UriNode) and after.resources and reads[1:] == [after.prefix]

        reads.clear()  # a go-to to a listed resource: read once, not again for its highlight
        screen._go_to(GoToTarget("docs://inbox/README", "docs://inbox/README"))
        await pilot.pause()  # every pending message handled (the go-to's highlight among them)
        assert reads == ["docs://inbox/README"]


@pytest.mark.slow
async def test_back_after_go_tos_steps_one_go_to_at_a_time_and_shows_a_templates_target_again() -> None:
    """Each go-to is one place in the history (a go-to that reads was two: its node, then the read, so a
    first `[` seemed to do nothing), and going back to a URI a template produced shows it with its
    template and values again, not the details of the node nearest to it."""
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        preview = screen.query_one(ContentPreview)
        details = screen.query_one(DetailPane).query_one("#detail-body")
        templated = "metrics://eu-west/checkout/latest"
        values = {"region": "eu-west", "service": "checkout"}
        template = "metrics://{region}/{service}/latest"
        screen._go_to(GoToTarget(templated, "metrics://", template, "demo", values))
        await wait_for(
            pilot, lambda: preview.uri == templated and preview.state == "contents" and preview.shown
        )
        for uri in ("docs://about", "docs://faq", "docs://glossary"):
            screen._go_to(GoToTarget(uri, uri))
            await wait_for(pilot, lambda uri=uri: preview.uri == uri and preview.state == "contents")
        for uri in ("docs://faq", "docs://about"):
            await pilot.press("left_square_bracket")
            await wait_for(pilot, lambda uri=uri: preview.uri == uri and preview.state == "contents")
            assert screen.tree_widget.cursor_node.prefix == uri  # type: ignore[union-attr]
        await pilot.press("left_square_bracket")
        await wait_for(
            pilot, lambda: preview.uri == templated and preview.state == "contents" and preview.shown
        )
        await pilot.pause()
        shown = str(details.render())
        assert templated in shown and "eu-west" in shown  # the target, with its values
        await pilot.press("right_square_bracket")
        await wait_for(
            pilot, lambda: preview.uri == "docs://about" and preview.state == "contents" and preview.shown
        )


@pytest.mark.slow
async def test_load_all_works_from_the_tree_and_keeps_the_focus_in_the_preview() -> None:
    """The notice says "press a to load all": after a read the focus is in the tree, where `a` did
    nothing; pressed in the preview it worked, but the focus fell back to the tree, so the next keys
    moved the tree's cursor instead of scrolling what was loaded."""
    uri = "docs://handbook/welcome"
    async with settled_app(demo_spec()) as (app, pilot):
        screen = main_screen(app)
        preview = screen.query_one(ContentPreview)

        async def read_capped() -> None:
            screen.read("demo", uri, cap=10)
            await wait_for(pilot, lambda: preview.uri == uri and preview.can_load_all)

        await read_capped()
        screen.tree_widget.focus()
        await pilot.press("a")
        await wait_for(
            pilot, lambda: preview.state == "contents" and preview.shown and not preview.can_load_all
        )
        assert app.focused is screen.tree_widget  # asked from the tree: the focus stays there

        await read_capped()
        preview.focus_contents()
        await pilot.pause()
        assert preview.has_focus_within
        await pilot.press("a")
        await wait_for(
            pilot, lambda: preview.state == "contents" and preview.shown and not preview.can_load_all
        )
        await wait_for(pilot, lambda: preview.has_focus_within)
        await pilot.press("a")  # nothing more to load: said, not silent
        await wait_for(
            pilot, lambda: any("Nothing more to load" in str(n.message) for n in app._notifications)
        )


@pytest.mark.slow
async def test_a_screenshot_without_a_downloads_folder_goes_to_the_data_folder(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The palette's Screenshot said only "Failed to save screenshot" where there is no Downloads folder."""
    import platformdirs

    monkeypatch.setattr(platformdirs, "user_downloads_path", lambda: tmp_path / "no-downloads-here")
    async with settled_app(demo_spec()) as (app, pilot):
        app.action_screenshot()
        folder = isolated_home / "data" / "screenshots"
        await wait_for(pilot, lambda: folder.is_dir() and any(folder.glob("*.svg")))
