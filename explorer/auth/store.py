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
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from explorer import paths
from explorer.config.spec import add_runtime_secrets, mask_url

if TYPE_CHECKING:
    from mcp.client.auth.oauth2 import OAuthContext
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

_FOLDER = "oauth"


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
        """`valid for 52 min`, `expired (refreshable)`, `expired`, `no token (client registered)`."""
        if not self.has_token:
            return "no token (client registered)"
        if self.expires_at is None:
            return "valid (no expiry given)"
        left = self.expires_at - (now if now is not None else time.time())
        if left > 0:
            return f"valid for {_duration(left)}"
        return "expired (refreshable)" if self.refreshable else "expired"


def _duration(seconds: float) -> str:
    if seconds >= 5400:
        return f"{seconds / 3600:.0f} h"
    if seconds >= 90:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s"


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


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
        expires_at = data.get("expires_at")
        if context.current_tokens is not None and isinstance(expires_at, int | float):
            context.token_expiry_time = float(expires_at)
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
    """Every stored login, by server URL."""
    folder = store_dir()
    if not folder.is_dir():
        return []
    found: list[StoredLogin] = []
    for path in sorted(folder.glob("*.json")):
        data = _read(path)
        url = data.get("server_url")
        if not isinstance(url, str):
            continue
        tokens = _table(data, "tokens")
        client = _table(data, "client_info")
        expires_at = data.get("expires_at")
        found.append(
            StoredLogin(
                path=path,
                server_url=url,
                client_id=client.get("client_id") if isinstance(client.get("client_id"), str) else None,
                scope=tokens.get("scope") if isinstance(tokens.get("scope"), str) else None,
                expires_at=float(expires_at) if isinstance(expires_at, int | float) else None,
                refreshable=isinstance(tokens.get("refresh_token"), str),
                has_token=isinstance(tokens.get("access_token"), str),
            )
        )
    return sorted(found, key=lambda login: login.server_url)


def forget(server_url: str) -> bool:
    """Delete the stored login of `server_url`; False when there was none."""
    path = entry_path(server_url)
    if _read(path).get("server_url") != server_url:
        return False
    path.unlink(missing_ok=True)
    return True


def shown_url(url: str) -> str:
    """A server URL as `auth list` prints it (credentials in it masked)."""
    return mask_url(url)
