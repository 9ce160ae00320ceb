"""The palette's "Disconnect and remove": the server's connection closed, its nodes dropped, and its
entry removed from the explorer's own config.toml when it came from there (`config/removal.py`).

Why its own module: the config side (which file, whether to edit it, what to say) is the config
package's; here is only the screen's side, and the one notice that says both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer import paths
from explorer.config.removal import forget_server

if TYPE_CHECKING:
    from explorer.screens.main import MainScreen


def disconnect_and_remove(screen: MainScreen, name: str, *, delete: bool = False) -> None:
    """Disconnect `name` and drop it with its nodes (the other servers are not touched); with `delete`,
    then its entry in the explorer's config.toml. The notice says which file, if any, brings it back."""
    status = screen.catalogue.servers.get(name)
    if status is None:
        return
    spec = status.spec
    screen.adder.remove_server(name)
    outcome = forget_server(spec, paths.config_file(), delete=delete)
    if outcome.failed:
        screen.notify(outcome.message, severity="warning", markup=False, timeout=10)
    else:
        screen.notify(outcome.message, markup=False)
