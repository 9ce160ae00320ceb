"""`auth logout` beside an explorer config.toml that cannot be read (not TOML).

A URL needs no config: the logout works, and nothing is said of the file (none of it would be used).
A NAME needs it to find the URL. Found: the error was the bare TOML error (`error: PATH: invalid TOML
(...)`), which did not say that NAME could not be looked up, nor what to type instead. It now says both,
with the stored logins to choose from; exit 2, as for a NAME the config does not have.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from mcp.shared.auth import OAuthToken

from explorer.auth.store import ServerTokens, entry_path
from tests.helpers.cli import run_cli_at_home
from tests.test_config_broken_entries import own_config
from tests.test_config_global_keys_resilience import NOT_TOML, TOML_ERROR

URL = "https://mcp.example.invalid/mcp"


def _stored_login(url: str) -> Path:
    """A login of `url` in the test's token store, as a real login leaves it (no network)."""
    asyncio.run(ServerTokens(url).set_tokens(OAuthToken(access_token="secret-token", token_type="Bearer")))
    path = entry_path(url)
    assert path.is_file()
    return path


def test_logout_of_a_url_works_and_forgets_the_login(tmp_path: Path) -> None:
    own_config(NOT_TOML)
    path = _stored_login(URL)
    result = run_cli_at_home(tmp_path, "auth", "logout", URL)
    forgot = f"forgot the OAuth login of {URL}\n"
    assert (result.code, result.stdout, result.stderr) == (0, forgot, ""), result
    assert not path.exists()


def test_logout_of_a_url_with_nothing_stored_says_so_and_succeeds(tmp_path: Path) -> None:
    """Logged out already is what was asked: exit 0, so a CI clean-up step may run it every time."""
    own_config(NOT_TOML)
    other = _stored_login("https://other.example.invalid/mcp")
    result = run_cli_at_home(tmp_path, "auth", "logout", URL)
    nothing = f"nothing to forget: no stored login for {URL}\n"
    stored = "stored logins: https://other.example.invalid/mcp\n"
    assert (result.code, result.stdout, result.stderr) == (0, nothing, stored), result
    assert other.exists()  # another server's login is left alone


def test_logout_of_a_name_says_it_cannot_be_looked_up_and_what_to_give(tmp_path: Path) -> None:
    config = own_config(NOT_TOML)
    path = _stored_login(URL)
    result = run_cli_at_home(tmp_path, "auth", "logout", "work")
    assert result.code == 2, result
    assert result.stderr == (
        f"error: work: cannot be looked up, the config cannot be read: {config}: {TOML_ERROR}; "
        f"give the server's URL instead; stored logins: {URL}\n"
    ), result
    assert path.exists()  # nothing forgotten
