"""OAuth on the command line: logins announced on stderr, and `auth list` / `auth logout`.

A command that talks to servers logs in to an OAuth-protected HTTP server on its own (`--auth-flow`);
while a login waits for the user, stderr says so with the authorization URL on a line of its own (to
copy), never a token. `auth list` shows what is stored without any secret; `auth logout` forgets one
server's tokens and client registration.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.cli.output import EXIT_FAILED, EXIT_OK, EXIT_USAGE, error, note, out, safe_line
from explorer.config import ConfigError

if TYPE_CHECKING:
    from explorer.model.login_prompt import LoginPrompt


def use_cli_logins(flow: str | None) -> None:
    """Every connection of this command logs in when a server asks, by `flow` (None: the default)."""
    from explorer.auth.login import set_default_options
    from explorer.auth.options import AuthOptions
    from explorer.auth.redirect import AUTH_FLOWS

    chosen = flow if flow in AUTH_FLOWS else None
    set_default_options(AuthOptions(flow=chosen, on_pending=announce_on_stderr))


def announce_on_stderr(server: str, prompt: LoginPrompt | None) -> None:
    if prompt is None:
        return
    where = (
        "opened in your browser; if it did not open, visit" if prompt.opened else "open this URL to log in"
    )
    note(f"server {server}: OAuth login needed: {where}:")
    note(prompt.url)
    note(f"server {server}: waiting for the login to finish (Ctrl-C to stop)")


def list_command() -> int:
    from explorer.auth.store import scan_logins, shown_url

    logins, broken = scan_logins()
    for bad in broken:  # said, not left out: a truncated file looked like no login at all
        note(f"warning: token file {bad.path} {bad.problem}: left out (log in again, or delete it)")
    if not logins:
        note("note: no stored OAuth logins" + (" that can be read" if broken else ""))
        return EXIT_OK
    now = time.time()
    for login in logins:
        parts = [shown_url(login.server_url), login.state(now)]
        if login.client_id:
            parts.append(f"client {login.client_id}")
        if login.scope:
            parts.append(f"scopes {login.scope}")
        out(safe_line("  ".join(parts), limit=400))
    return EXIT_OK


def logout_command(server: str, config_path: Path | None) -> int:
    """Forget `server` (a URL, or a configured server's name) and say what was forgotten."""
    from explorer.auth.store import forget, shown_url

    # A URL needs no config: an unreadable config.toml does not stop it, and is not said (nothing of it
    # would be used). A NAME needs it: when it cannot be read, say so, and what to type instead.
    url = server if server.lower().startswith(("http://", "https://")) else None
    if url is None:
        try:
            url = _configured_url(server, config_path)
        except ConfigError as exc:
            error(
                f"{server}: cannot be looked up, the config cannot be read: {exc}; "
                f"give the server's URL instead; {_stored_logins()}"
            )
            return EXIT_USAGE
    if url is None:
        error(f"{server}: not a configured HTTP server nor a URL; {_stored_logins()}")
        return EXIT_USAGE
    try:
        forgotten = forget(url)
    except OSError as exc:
        error(f"the stored login of {shown_url(url)} could not be deleted ({exc.strerror or exc})")
        return EXIT_FAILED
    if forgotten is None:
        # Already logged out is the state asked for: exit 0, so a clean-up step can run it every time.
        # The stored logins go to stderr, for the one who typed a URL a little off the stored one.
        out(safe_line(f"nothing to forget: no stored login for {shown_url(url)}", limit=600))
        note(_stored_logins())
        return EXIT_OK
    why = f" (its token file {forgotten.path} {forgotten.broken}: deleted)" if forgotten.broken else ""
    out(safe_line(f"forgot the OAuth login of {shown_url(url)}{why}", limit=600))
    return EXIT_OK


def _stored_logins() -> str:
    """The URLs a logout can be given (and the token files that cannot be read), for an error."""
    from explorer.auth.store import scan_logins, shown_url

    logins, broken = scan_logins()
    known = ", ".join(shown_url(login.server_url) for login in logins) or "none"
    unread = ", ".join(str(bad.path) for bad in broken)
    return f"stored logins: {known}" + (f"; token files that cannot be read: {unread}" if unread else "")


def _configured_url(name: str, config_path: Path | None) -> str | None:
    from explorer.config import Config, default_config_path, load_config
    from explorer.config.found import load_config_option

    config: Config | None
    if config_path is not None:
        config = load_config_option(config_path, None)
    else:
        path = default_config_path()
        config = load_config(path) if path is not None else None
    spec = config.servers.get(name) if config is not None else None
    return spec.url if spec is not None and spec.transport != "stdio" else None
