"""How logins happen in one run (`AuthOptions`), apart from the login itself.

Why a module of its own: the TUI builds its options before its first frame, and `login.py` imports the
HTTP client (about 50 ms), which the first frame should not wait for (the MCP stack comes after it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from explorer.model.login_prompt import AuthFlow, LoginPrompt

__all__ = ["AuthOptions", "PendingHandler"]

PendingHandler = Callable[[str, LoginPrompt | None], None]
"""`on_pending(server, prompt)`: a login waits for the user (prompt), or no longer does (None)."""


@dataclass
class AuthOptions:
    """How logins happen in this run: the same for every server."""

    flow: AuthFlow | None = None  # None: `default_flow()` (the browser where one can be opened)
    login_timeout: float = 300.0  # how long to wait for the user to finish in the browser
    on_pending: PendingHandler | None = None
    client_name: str = "mcp-url-explorer"

    def chosen_flow(self) -> AuthFlow:
        if self.flow is not None:
            return self.flow
        from explorer.auth.redirect import default_flow  # at login time only: sockets, subprocess

        return default_flow()
