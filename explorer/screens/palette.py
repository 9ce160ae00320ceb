"""The main screen's command palette: the explorer's verbs, and a fuzzy jump to any URI or template.

The providers live with their screen (`MainScreen.COMMANDS`), so Textual hands them that screen: they
call its public actions and never reach into other screens.

Labels shown in the palette are server strings, so they are sanitized and wrapped in Content
(never markup). The jump search stops after a bounded number of candidates so a server with a
million resources cannot freeze the palette.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape

from explorer import paths
from explorer.config.removal import deletable
from explorer.sanitize import sanitize_line
from explorer.screens.removing_servers import disconnect_and_remove
from explorer.widgets.server_labels import distinct_labels

if TYPE_CHECKING:
    from explorer.screens.main import MainScreen

SCAN_LIMIT = 20_000
HIT_LIMIT = 50


def _main_screen(provider: Provider) -> MainScreen | None:
    """The screen the palette was opened on, when it is the main screen."""
    from explorer.screens.main import MainScreen

    return provider.screen if isinstance(provider.screen, MainScreen) else None


class ExplorerCommands(Provider):
    """The app's verbs by name (every one also has a key)."""

    def _verbs(self, screen: MainScreen) -> list[tuple[str, str, Callable[[], object]]]:
        verbs = self._verbs_without_servers(screen)
        # Two servers' verbs never read the same (`raw_server.py` and `raw_server.py-2` cut alike).
        labels = distinct_labels([*screen.catalogue.servers, *screen.places.bookmarks.servers], 40)
        for name, status in screen.catalogue.servers.items():
            shown = labels[name]
            verbs.append(
                (
                    f"Server overview: {shown}",
                    "Identity, capabilities, instructions, counts, listing health, tools",
                    partial(screen.show_overview, name),
                )
            )
            verbs.append(
                (
                    f"Disconnect and remove: {shown}",
                    "Close its connection and drop its nodes for this session (the other servers stay)",
                    partial(disconnect_and_remove, screen, name),
                )
            )
            if deletable(status.spec, paths.config_file()):
                verbs.append(
                    (
                        f"Delete from config.toml: {shown}",
                        "Disconnect and remove it, and delete its entry from the explorer's config.toml "
                        "(the rest of the file stays as it is)",
                        partial(disconnect_and_remove, screen, name, delete=True),
                    )
                )
            if status.login is not None:
                verbs.append(
                    (
                        f"Copy login URL: {shown}",
                        "The OAuth authorization URL this server waits on (OSC 52)",
                        partial(_copy_login_url, screen, name),
                    )
                )
        for found in screen.found_configs:
            if found.config is not None and found.server_count:
                files = ", ".join(sanitize_line(f.location.label, 120) for f in found.files)
                verbs.append(
                    (
                        f"Open config: {found.summary()}",
                        escape(f"Connect its servers ({files})"),  # help is parsed as markup
                        partial(screen.open_config, found.client),
                    )
                )
        for server, uri in screen.places.bookmarks.all():
            verbs.append(
                (
                    f"Bookmark: {sanitize_line(uri, 120)} ({labels[server]})",
                    "Go to this bookmark (b toggles one on the highlighted node)",
                    partial(screen.places.open_bookmark, server, uri),
                )
            )
        for status in screen.failed_servers():
            name = labels[status.name]
            verbs.append(
                (
                    f"Show error: {name}",
                    "Error code, message, data, stderr",
                    partial(screen.action_show_error, status.name),
                )
            )
            verbs.append(
                (f"Reconnect: {name}", "Connect this server again", partial(screen.connect, status.name))
            )
        return verbs

    def _verbs_without_servers(self, screen: MainScreen) -> list[tuple[str, str, Callable[[], object]]]:
        return [
            ("Go to URI", "Type or paste a URI; see which server or template serves it", screen.action_goto),
            ("Filter tree", "Filter by URI prefix or text", screen.action_filter),
            ("Copy highlighted URI", "Copy the URI under the cursor (OSC 52)", screen.action_copy_uri),
            (
                "Refresh listings",
                "List every server again; the old listing stays until done",
                screen.action_refresh,
            ),
            (
                "Continue incomplete listings",
                "Go past the bound that stopped a listing",
                screen.action_continue_listing,
            ),
            ("Toggle auto-preview", "Read resources on highlight", screen.action_toggle_auto_preview),
            ("Protocol log", "Every JSON-RPC frame of every server (L)", screen.action_protocol_log),
            (
                "Reconnect failed servers",
                "A new session for every failed server (R)",
                screen.action_reconnect,
            ),
            ("Prompts", "List every server's prompts; fill one and get its messages", screen.action_prompts),
            ("Fill template…", "Open the form of the highlighted template", screen.action_fill_template),
            (
                "Connect a server…",
                "By URL or command line, with headers, env and OAuth login",
                screen.action_connect_server,
            ),
        ]

    async def discover(self) -> Hits:
        screen = _main_screen(self)
        if screen is None:
            return
        for title, help_text, callback in self._verbs(screen):
            yield DiscoveryHit(Content(title), callback, text=title, help=help_text)

    async def search(self, query: str) -> Hits:
        screen = _main_screen(self)
        if screen is None:
            return
        matcher = self.matcher(query)
        fixed = {title for title, _, _ in self._verbs_without_servers(screen)}
        for title, help_text, callback in self._verbs(screen):
            score = matcher.match(title)
            if score > 0:
                # `Matcher.highlight` parses its argument as markup: only our own titles go through it;
                # a title holding a server name is shown as plain Content.
                display = matcher.highlight(title) if title in fixed else Content(title)
                yield Hit(score, display, callback, text=title, help=help_text)


def _copy_login_url(screen: MainScreen, name: str) -> None:
    status = screen.catalogue.servers.get(name)
    if status is None or status.login is None:
        screen.notify("No login is waiting.", markup=False)
        return
    screen.app.copy_to_clipboard(status.login.url)
    screen.notify("Login URL copied.", markup=False)


class UriJumpCommands(Provider):
    """Jump to any URI or template by fuzzy match (bounded scan)."""

    async def search(self, query: str) -> Hits:
        screen = _main_screen(self)
        if screen is None or not query.strip():
            return
        tree = screen.catalogue.tree
        matcher = self.matcher(query)
        hits = 0
        for entry in tree.templates_under(""):
            score = matcher.match(entry.uri_template)
            if score > 0:
                label = sanitize_line(entry.uri_template, 200)
                yield Hit(
                    score,
                    Content.styled(label, "$tree-pattern"),
                    partial(screen.jump_to, entry.uri_template),  # the template's own row
                    text=label,
                    help="template",
                )
        # A query that is a URI prefix goes straight to the trie; anything else scans a bounded slice.
        source = tree.resources_under(query) if "://" in query or ":" in query else tree.resources_under("")
        for scanned, resource in enumerate(source):
            if scanned >= SCAN_LIMIT or hits >= HIT_LIMIT:
                break
            score = matcher.match(resource.uri)
            if score > 0:
                hits += 1
                label = sanitize_line(resource.uri, 200)
                yield Hit(
                    score,
                    Content(label),
                    partial(screen.jump_to, resource.uri),
                    text=label,
                    help=escape(sanitize_line(resource.name, 100)),  # the palette parses help as markup
                )
