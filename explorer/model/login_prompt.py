"""A login waiting for the user: what the server row and the CLI show while an OAuth login is pending.

A plain record in the model because the catalogue (a server's status) holds it and the auth layer makes
it; the status must not depend on how logins are done.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

AuthFlow = Literal["browser", "print", "fetch"]


@dataclass(frozen=True)
class LoginPrompt:
    """A login waiting for the user: the URL to open, and whether the browser was asked to open it."""

    server: str
    url: str
    opened: bool
    flow: AuthFlow
