"""OAuth tokens and client registrations, one file per server URL in the data folder, readable by you only.

Why a file per URL: a registration and its tokens belong to the server they were made with, whatever name
a config gives it, and `auth logout` must be able to forget one server without touching the others. Each
file holds the tokens with their absolute expiry (the SDK keeps only `expires_in`, so a token read back
in a later run would look valid forever and never be refreshed), the client registration, and the
authorization server metadata the tokens came from (a refresh in a later run must go to that server's
token endpoint, not to a guess at the MCP server's origin).

Files are written whole (a temporary file, then a rename) with mode 0600 in a 0700 folder. Every token
and registered client secret read or written here is handed to `add_runtime_secrets`, so the explorer
masks it in everything it shows or logs.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from explorer import paths
from explorer.config.spec import add_runtime_secrets, mask_url
from explorer.storage import FileTooLargeError, NotAFileError, read_regular_file

if TYPE_CHECKING:
    from mcp.client.auth.oauth2 import OAuthContext
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

_FOLDER = "oauth"
MAX_TOKEN_FILE_BYTES = 1024 * 1024  # a token file holds a few kilobytes (metadata included)
_LAST_TIME = 253402300799.0  # 9999-12-31 23:59:59 UTC


def store_dir(*, create: bool = False) -> Path:
    """Where the token files live (`<data dir>/oauth`)."""
    folder = paths.data_dir(create=create) / _FOLDER
    if create:
        folder.mkdir(mode=0o700, exist_ok=True)
        with contextlib.suppress(OSError):
            folder.chmod(0o700)
    return folder


def entry_path(server_url: str) -> Path:
    """The file of one server URL: its host (readable) and a hash of the whole URL (unique)."""
    host = urlsplit(server_url).hostname or "server"
    digest = hashlib.sha256(server_url.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return store_dir() / f"{paths.safe_file_stem(host, max_length=40)}-{digest}.json"


@dataclass(frozen=True)
class StoredLogin:
    """What `auth list` shows of one file; never a token or a secret."""

    path: Path
    server_url: str
    client_id: str | None
    scope: str | None
    expires_at: float | None
    refreshable: bool
    has_token: bool

    def state(self, now: float | None = None) -> str:
        """`valid for 52 min`, `expired (refreshable)`, `expired`, `no token (client registered)`;
        `expires at an invalid time (ignored)` for a time no server gives (1e308, NaN: `restore` ignores
        it too), never a 300-digit number of hours."""
        if not self.has_token:
            return "no token (client registered)"
        if self.expires_at is None:
            return "valid (no expiry given)"
        if not _plausible_time(self.expires_at):
            return "expires at an invalid time (ignored)"
        left = self.expires_at - (now if now is not None else time.time())
        if left > 0:
            return f"valid for {_duration(left)}"
        return "expired (refreshable)" if self.refreshable else "expired"


def _duration(seconds: float) -> str:
    if seconds >= 5400:
        return f"{seconds / 3600:,.0f} h"
    if seconds >= 90:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


def _plausible_time(when: float) -> bool:
    """A Unix time a token can expire at: after 1970 and before the year 10000 (False for NaN, inf)."""
    return 0 < when <= _LAST_TIME


def _time_value(value: Any) -> float | None:
    """A stored number as a float (an int too large for one is infinite); None when not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


@dataclass(frozen=True)
class BrokenLogin:
    """A token file `auth list` cannot show: its path and why (the end of a sentence after the path)."""

    path: Path
    problem: str


def _read_file(path: Path) -> tuple[dict[str, Any], str | None]:
    """The file's JSON object, or {} and why not; ({}, None) when there is no file. A FIFO or a device
    there is refused, never waited on."""
    try:
        text = read_regular_file(path, limit=MAX_TOKEN_FILE_BYTES).decode("utf-8")
    except FileNotFoundError:
        return {}, None
    except (NotAFileError, FileTooLargeError, IsADirectoryError) as error:  # "is a FIFO, not a file"
        return {}, str(error.strerror)
    except OSError as error:
        return {}, f"could not be read ({(error.strerror or str(error)).lower()})"
    except UnicodeDecodeError as error:
        return {}, f"is not UTF-8 text (invalid byte at offset {error.start})"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        what = error.msg.lower().removesuffix(" at")  # "invalid control character at"
        return {}, f"is not valid JSON ({what} at line {error.lineno}, column {error.colno})"
    except (ValueError, RecursionError) as error:
        return {}, f"is not valid JSON ({error})"
    if not isinstance(data, dict):
        return {}, "is not a token file (not a JSON object)"
    if not isinstance(data.get("server_url"), str):
        return {}, 'is not a token file (no "server_url")'
    return data, None


def _read(path: Path) -> dict[str, Any]:
    return _read_file(path)[0]


def _write(path: Path, data: dict[str, Any]) -> None:
    store_dir(create=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
    os.replace(temporary, path)


class ServerTokens:
    """The SDK's `TokenStorage` for one server URL, plus what a later run needs to refresh.

    `context` is set by the provider once built, so that saving tokens also saves the authorization
    server metadata they came from.
    """

    def __init__(self, server_url: str) -> None:
        self.server_url = server_url
        self.path = entry_path(server_url)
        self.context: OAuthContext | None = None
        self.redirect: str | None = None  # the redirect URI in use, saved with what it was used for

    def load(self) -> dict[str, Any]:
        data = _read(self.path)
        if data.get("server_url") != self.server_url:
            return {}
        _learn_secrets(data)
        return data

    def _update(self, **changes: Any) -> None:
        data = self.load() or {"server_url": self.server_url}
        data.update(changes)
        if self.redirect is not None:
            data["redirect_uri"] = self.redirect
        _learn_secrets(data)
        _write(self.path, data)

    # -- TokenStorage

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken
        from pydantic import ValidationError

        raw = self.load().get("tokens")
        if not isinstance(raw, dict):
            return None
        try:
            return OAuthToken.model_validate(raw)
        except ValidationError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires_at = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        changes: dict[str, Any] = {
            "tokens": tokens.model_dump(mode="json", exclude_none=True),
            "expires_at": expires_at,
            "saved_at": time.time(),
        }
        context = self.context
        if context is not None:
            if context.oauth_metadata is not None:
                changes["oauth_metadata"] = context.oauth_metadata.model_dump(mode="json", exclude_none=True)
            if context.protected_resource_metadata is not None:
                changes["protected_resource_metadata"] = context.protected_resource_metadata.model_dump(
                    mode="json", exclude_none=True
                )
            changes["auth_server_url"] = context.auth_server_url
        self._update(**changes)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull
        from pydantic import ValidationError

        raw = self.load().get("client_info")
        if not isinstance(raw, dict):
            return None
        try:
            return OAuthClientInformationFull.model_validate(raw)
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._update(client_info=client_info.model_dump(mode="json", exclude_none=True))

    # -- what the SDK does not keep

    def redirect_uri(self) -> str | None:
        value = self.load().get("redirect_uri")
        return value if isinstance(value, str) else None

    def registered_redirect(self) -> str | None:
        """The first redirect URI of the stored registration (what an authorization must send)."""
        uris = _table(self.load(), "client_info").get("redirect_uris")
        first = uris[0] if isinstance(uris, list) and uris else None
        return first if isinstance(first, str) else None

    def restore(self, context: OAuthContext) -> None:
        """Give a fresh provider what an earlier run learned: expiry, metadata, authorization server."""
        from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
        from pydantic import ValidationError

        data = self.load()
        expires_at = _time_value(data.get("expires_at"))  # 10**400 raised OverflowError here
        if context.current_tokens is not None and expires_at is not None and _plausible_time(expires_at):
            context.token_expiry_time = expires_at
        with contextlib.suppress(ValidationError, TypeError):
            if isinstance(data.get("oauth_metadata"), dict) and context.oauth_metadata is None:
                context.oauth_metadata = OAuthMetadata.model_validate(data["oauth_metadata"])
        with contextlib.suppress(ValidationError, TypeError):
            prm = data.get("protected_resource_metadata")
            if isinstance(prm, dict) and context.protected_resource_metadata is None:
                context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(prm)
        if isinstance(data.get("auth_server_url"), str) and context.auth_server_url is None:
            context.auth_server_url = data["auth_server_url"]


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _learn_secrets(data: dict[str, Any]) -> None:
    tokens = _table(data, "tokens")
    client = _table(data, "client_info")
    add_runtime_secrets(
        value
        for value in (tokens.get("access_token"), tokens.get("refresh_token"), client.get("client_secret"))
        if isinstance(value, str)
    )


def list_logins() -> list[StoredLogin]:
    """Every stored login that can be read, by server URL."""
    return scan_logins()[0]


def scan_logins() -> tuple[list[StoredLogin], list[BrokenLogin]]:
    """Every stored login, by server URL, and every token file that cannot be read (truncated, not
    JSON, a FIFO), by path: these were left out of `auth list` without a word."""
    folder = store_dir()
    if not folder.is_dir():
        return [], []
    found: list[StoredLogin] = []
    broken: list[BrokenLogin] = []
    for path in sorted(folder.glob("*.json")):
        data, problem = _read_file(path)
        if problem is not None:
            broken.append(BrokenLogin(path, problem))
            continue
        tokens = _table(data, "tokens")
        client = _table(data, "client_info")
        found.append(
            StoredLogin(
                path=path,
                server_url=data["server_url"],
                client_id=client.get("client_id") if isinstance(client.get("client_id"), str) else None,
                scope=tokens.get("scope") if isinstance(tokens.get("scope"), str) else None,
                expires_at=_time_value(data.get("expires_at")),
                refreshable=isinstance(tokens.get("refresh_token"), str),
                has_token=isinstance(tokens.get("access_token"), str),
            )
        )
    return sorted(found, key=lambda login: login.server_url), broken


@dataclass(frozen=True)
class Forgotten:
    """What `forget` deleted: the file, and why it could not be read when it was broken."""

    path: Path
    broken: str | None = None


def forget(server_url: str) -> Forgotten | None:
    """Delete the stored login of `server_url`; None when there was none. A broken file of that URL (its
    name is made from the URL: `entry_path`) is deleted too, unread, and said so; OSError if it cannot be."""
    path = entry_path(server_url)
    data, problem = _read_file(path)
    if problem is None and data.get("server_url") != server_url:
        return None
    path.unlink(missing_ok=True)
    return Forgotten(path, problem)


def shown_url(url: str) -> str:
    """A server URL as `auth list` prints it (credentials in it masked)."""
    return mask_url(url)
