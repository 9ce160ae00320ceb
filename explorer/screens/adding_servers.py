"""Adding and removing servers while the explorer runs: the configs found on this machine, VS Code
inputs, the connect dialog, and removing a server (its connection closed, its nodes dropped).

Why its own module: asking for input values in a dialog, checking that a server can start, opening a
found client config only once and naming its servers uniquely is one job, apart from the main screen's
view logic. The main screen owns one `ServerAdder` and asks it to connect servers whose specs still wait
for input values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from explorer.config import ConfigError, ServerSpec
from explorer.config.found import FoundConfig
from explorer.config.options import check_startable, unique_names
from explorer.sanitize import sanitize_line
from explorer.screens.input_dialog import InputAsker
from explorer.widgets.server_labels import middle_cut

if TYPE_CHECKING:
    from explorer.screens.main import MainScreen


class ServerAdder:
    """Found configs and input values for the main screen's servers."""

    def __init__(self, screen: MainScreen, found_configs: Sequence[FoundConfig]) -> None:
        self.screen = screen
        # Client configs found on this machine (offered in the palette, never connected unasked).
        self.found_configs = list(found_configs)
        self._opened: set[str] = set()
        self._asker: InputAsker | None = None

    @property
    def input_asker(self) -> InputAsker:
        if self._asker is None:
            self._asker = InputAsker(self.screen.app)
        return self._asker

    def ask_inputs_then(self, name: str, connect: Callable[[str], None]) -> None:
        """Ask for the input values a server's config needs, then `connect(name)`; a refusal fails it."""
        catalogue = self.screen.catalogue
        status = catalogue.servers[name]
        if name in self.input_asker.waiting:
            return  # already being asked for (a second reconnect while the dialog is open)

        def done(spec: ServerSpec | None, problem: str | None) -> None:
            if spec is not None:
                try:
                    check_startable(spec)  # a cwd that came from an input
                except ConfigError as exc:
                    spec, problem = None, str(exc)
            if spec is None:
                message = problem or "not connected"
                catalogue.failed(name, message, None, None, "")
                self.screen.events.statuses_changed()
                self.screen.notify(f"{middle_cut(name, 40)}: {sanitize_line(message, 200)}", markup=False)
            else:
                status.spec = spec
                connect(name)

        catalogue.reset(name)  # "connecting…" while the dialog asks, not the last failure
        self.screen.events.statuses_changed()
        self.input_asker.fill(status.spec, done)

    def add_servers(self, specs: Sequence[ServerSpec]) -> list[str]:
        """Add servers while running and connect them; names are made unique against those shown.

        A server that cannot even start (its cwd is missing) is shown failed with the reason.
        """
        screen = self.screen
        added = unique_names(list(specs), taken=set(screen.catalogue.servers))
        for spec in added:
            screen.supervisor.add(spec)
        for spec in added:
            try:
                check_startable(spec)
            except ConfigError as exc:
                screen.catalogue.failed(spec.name, str(exc), None, None, "")
                continue
            screen.connect(spec.name)
        screen.events.tree_changed()
        screen.events.statuses_changed()
        return [spec.name for spec in added]

    def open_connect_dialog(self) -> None:
        from explorer.screens.connect_dialog import ConnectDialog

        self.screen.app.push_screen(ConnectDialog(self.screen))

    def remove_server(self, name: str) -> None:
        """Disconnect `name` and drop it with its nodes; the other servers are not touched. What that
        means for the config files is said by the caller (`removing_servers`)."""
        screen = self.screen
        for worker in list(screen.workers):
            if worker.group == f"conn-{name}":
                worker.cancel()
        screen.supervisor.remove(name)
        screen.events.tree_changed()
        screen.events.statuses_changed()

    def open_config(self, client: str) -> None:
        """Add the servers of a found client config (the palette's "Open config: ...")."""
        screen = self.screen
        found = next((item for item in self.found_configs if item.client == client), None)
        if found is None or found.config is None:
            return
        if client in self._opened:
            screen.notify(f"{found.label} is already open.", markup=False)
            return
        self._opened.add(client)
        if found.config.warnings:
            screen.notify(
                "\n".join(sanitize_line(w, 300) for w in found.config.warnings[:8]),
                title=f"{found.label} config",
                severity="warning",
                markup=False,
            )
        self.add_servers(list(found.config.servers.values()))
        files = ", ".join(sanitize_line(f.location.label, 200) for f in found.files)
        screen.notify(f"Opened {found.summary()} from {files}", markup=False)

    def tell_found_configs(self) -> None:
        usable = [item for item in self.found_configs if item.config is not None and item.server_count]
        if usable:
            self.screen.notify(
                "Found configs: " + ", ".join(item.summary() for item in usable) + " (ctrl+p to open one)",
                title="Your MCP configs",
                markup=False,
                timeout=15,
            )
