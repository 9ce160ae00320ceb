"""Enterprise-managed authorization (SEP-990): the user's identity provider vouches for them.

Two legs. Leg 1 is here: the user's ID token from their identity provider (IdP) is exchanged at the IdP's
token endpoint (RFC 8693 token exchange) for an Identity Assertion Authorization Grant (an ID-JAG),
addressed to the MCP server's authorization server (`audience`) and to the MCP server (`resource`). Leg 2
is the SDK's `IdentityAssertionOAuthProvider`: the ID-JAG goes to the authorization server's token
endpoint (RFC 7523 jwt-bearer grant) with the explorer's client credentials there, for an access token,
which is stored and reused like any other.

The SDK takes the authorization server as configuration (`issuer`), never from the MCP server, so a server
cannot have the ID-JAG and the client secret sent elsewhere; `issuer` in the config pins it that way.
Without it the explorer reads the server's protected resource metadata (RFC 9728) once per connection and
uses the first authorization server listed there, if the metadata is this server's (`resource`) and the
authorization server is https (or loopback): convenient, and weaker (the README says so). The identity
provider's endpoint comes only from the config, must be https (or loopback), and its redirects are not
followed, so the ID token goes nowhere else. The ID token and the ID-JAG are masked like any secret.

Getting the ID token (logging in at the IdP) is the identity provider's business: the config takes one
(`id_token`, `${env:NAME}` or `id_token_file`), e.g. printed by the IdP's own command-line tool.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncGenerator, Callable, Generator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import httpx2

from explorer.config.checks import is_loopback_url
from explorer.config.spec import OAuthSettings, add_runtime_secrets, mask_url
from explorer.sanitize import sanitize_line
from explorer.storage import read_regular_file

_MAX_ID_TOKEN_BYTES = 1024 * 1024  # a JWT of a few kilobytes; a FIFO or a device is refused, not waited on

TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
EXCHANGE_TIMEOUT = 30.0


def exchange_form(settings: OAuthSettings, audience: str, resource: str) -> dict[str, str]:
    """The RFC 8693 request body that asks the IdP for an ID-JAG (client auth aside)."""
    assert settings.id_token is not None
    form = {
        "grant_type": TOKEN_EXCHANGE_GRANT,
        "subject_token": settings.id_token,
        "subject_token_type": ID_TOKEN_TYPE,
        "requested_token_type": ID_JAG_TYPE,
        "audience": audience,
        "resource": resource,
    }
    if settings.idp_client_id is not None and settings.idp_client_secret is None:
        form["client_id"] = settings.idp_client_id  # a public client names itself in the body
    return form


def id_jag_from(status: int, body: Any) -> str:
    """The ID-JAG out of the IdP's answer, or `OAuthTokenError` saying what the IdP said instead."""
    from mcp.client.auth import OAuthTokenError

    if status != 200 or not isinstance(body, dict):
        said = ""
        if isinstance(body, dict):
            parts = [body.get("error"), body.get("error_description")]
            said = ": " + sanitize_line(" - ".join(p for p in parts if isinstance(p, str)), 200)
        raise OAuthTokenError(f"the identity provider refused the token exchange ({status}){said}")
    token = body.get("access_token")
    issued = body.get("issued_token_type")
    if not isinstance(token, str) or not token:
        raise OAuthTokenError("the identity provider's token exchange answer has no access_token")
    if issued is not None and issued != ID_JAG_TYPE:
        kind = sanitize_line(str(issued), 100)
        raise OAuthTokenError(f"the identity provider issued a {kind}, not an ID-JAG")
    return token


def basic_credentials(client_id: str, client_secret: str) -> str:
    """An `Authorization: Basic` value as RFC 6749 section 2.3.1 has it (each part form-encoded first),
    the same way the SDK's leg 2 sends its client's."""
    pair = f"{quote(client_id, safe='')}:{quote(client_secret, safe='')}"
    return "Basic " + base64.b64encode(pair.encode()).decode()


def current_id_token(settings: OAuthSettings) -> OAuthSettings:
    """The settings with the ID token as it is now: a token file is read again at each exchange, since
    ID tokens live about an hour and the identity provider's tool rewrites the file."""
    from mcp.client.auth import OAuthTokenError

    if settings.id_token_file is None:
        return settings
    try:
        data = read_regular_file(Path(settings.id_token_file), limit=_MAX_ID_TOKEN_BYTES)
        token = data.decode("utf-8").strip()
    except OSError as exc:
        raise OAuthTokenError(f"could not read the ID token file: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise OAuthTokenError("the ID token file is not UTF-8 text") from exc
    if not token:
        raise OAuthTokenError("the ID token file is empty")
    add_runtime_secrets([token])
    return replace(settings, id_token=token)


def assertion_provider(settings: OAuthSettings) -> Callable[[str, str], Any]:
    """Leg 1 as the SDK's `assertion_provider(audience, resource)`: a fresh ID-JAG for each exchange."""

    async def fetch_id_jag(audience: str, resource: str) -> str:
        from mcp.client.auth import OAuthTokenError

        now = current_id_token(settings)
        endpoint = now.idp_token_endpoint
        assert endpoint is not None
        headers = {"Accept": "application/json"}
        if now.idp_client_id is not None and now.idp_client_secret is not None:
            headers["Authorization"] = basic_credentials(now.idp_client_id, now.idp_client_secret)
        form = exchange_form(now, audience, resource)
        try:
            async with httpx2.AsyncClient(timeout=EXCHANGE_TIMEOUT) as client:  # redirects not followed
                response = await client.post(endpoint, data=form, headers=headers)
        except httpx2.HTTPError as exc:
            said = sanitize_line(str(exc) or type(exc).__name__, 200)
            where = mask_url(endpoint)
            raise OAuthTokenError(f"could not reach the identity provider at {where}: {said}") from exc
        try:
            body: Any = response.json()
        except ValueError:
            if response.status_code == 200:
                raise OAuthTokenError("the identity provider's token exchange answer is not JSON") from None
            body = None
        jag = id_jag_from(response.status_code, body)
        add_runtime_secrets([jag])  # an authorization server that echoes it in an error gets it masked
        return jag

    return fetch_id_jag


class IssuerFromResource(httpx2.Auth):
    """The SDK provider, built once the authorization server is known from the server's own metadata.

    Used only when the config names no `issuer`: the first request of a connection is preceded by the
    protected resource metadata lookups (path-based, then root well-known), then everything is the SDK's.
    """

    requires_response_body = True

    def __init__(self, server_url: str, build: Callable[[str], httpx2.Auth]) -> None:
        self._server_url = server_url
        self._build = build
        self._inner: httpx2.Auth | None = None
        self._lock = anyio.Lock()  # two first requests at once look it up once

    def sync_auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        raise RuntimeError("the explorer's OAuth login runs on the async client only")

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        from mcp.client.auth import OAuthFlowError
        from mcp.client.auth.utils import (
            build_protected_resource_metadata_discovery_urls,
            create_oauth_metadata_request,
            handle_protected_resource_response,
        )

        async with self._lock:
            if self._inner is None:
                issuer: str | None = None
                for url in build_protected_resource_metadata_discovery_urls(None, self._server_url):
                    response = yield create_oauth_metadata_request(url)
                    metadata = await handle_protected_resource_response(response)
                    if metadata is None or not metadata.authorization_servers:
                        continue
                    if not resource_matches(str(metadata.resource), self._server_url):
                        continue  # RFC 9728 section 3.3: metadata for another resource is not this server's
                    issuer = str(metadata.authorization_servers[0])
                    break
                if issuer is None:
                    raise OAuthFlowError(
                        "the server publishes no protected resource metadata naming its authorization "
                        'server; set "issuer" in its [servers.NAME.oauth] table'
                    )
                if not issuer.lower().startswith("https://") and not is_loopback_url(issuer):
                    raise OAuthFlowError(
                        "the server names an authorization server that is not https "
                        f"({sanitize_line(mask_url(issuer), 200)}); "
                        'the client secret is not sent there in clear: set "issuer" to pin one'
                    )
                self._inner = self._build(issuer)
        flow = self._inner.async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()


def resource_matches(published: str, server_url: str) -> bool:
    """Whether protected resource metadata's `resource` covers this server's URL (same origin, its path
    at or above the server's)."""
    from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url

    return check_resource_allowed(resource_url_from_server_url(server_url), published)


def identity_assertion_auth(server_url: str, settings: OAuthSettings, storage: Any) -> httpx2.Auth:
    """The whole SEP-990 login for one server: leg 1 here, leg 2 the SDK's, tokens in `storage`."""
    from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

    assert settings.client_id is not None and settings.client_secret is not None
    client_id, client_secret = settings.client_id, settings.client_secret
    post = settings.token_endpoint_auth_method == "client_secret_post"
    scope = " ".join(settings.scopes) or None

    def build(issuer: str) -> httpx2.Auth:
        return IdentityAssertionOAuthProvider(
            server_url,
            storage,
            client_id,
            client_secret,
            issuer,
            assertion_provider(settings),
            scope=scope,
            # RFC 8414's default for a token endpoint that says nothing; `client_secret_post` on request.
            token_endpoint_auth_method="client_secret_post" if post else "client_secret_basic",
        )

    if settings.issuer is not None:
        return build(settings.issuer)
    return IssuerFromResource(server_url, build)
