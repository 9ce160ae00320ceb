"""The parts of OAuth support: the `[servers.NAME.oauth]` table, masking, the redirect listener, keys."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2
import pytest

from explorer.auth.login import signing_algorithm_of
from explorer.auth.redirect import (
    LoopbackListener,
    RedirectError,
    fetch_redirect,
    free_port,
    redirect_uri_for,
)
from explorer.config import ConfigError, ServerSpec, load_config, redact
from explorer.config.spec import add_runtime_secrets

SECRET = "s3cr3t-client-value"


def load(tmp_path: Path, table: str, **env: str) -> ServerSpec:
    path = tmp_path / "config.toml"
    path.write_text('[servers.remote]\nurl = "https://h.test/mcp"\n\n[servers.remote.oauth]\n' + table)
    from dataclasses import replace

    from explorer.config.variables import HostContext

    context = HostContext.current()
    context = replace(context, env={**context.env, **env})
    return load_config(path, context=context).servers["remote"]


def test_the_oauth_table_is_read_with_env_values(tmp_path: Path) -> None:
    key = tmp_path / "key.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n")
    spec = load(
        tmp_path,
        'grant = "client_credentials"\nclient_id = "svc"\nprivate_key_file = "key.pem"\n'
        'signing_algorithm = "ES256"\nscopes = ["read write", "admin"]\nissuer = "https://as.test"\n',
    )
    oauth = spec.oauth
    assert oauth is not None and oauth.private_key is not None
    assert oauth.grant == "client_credentials" and oauth.client_id == "svc"
    assert oauth.private_key.startswith("-----BEGIN PRIVATE KEY-----")
    assert oauth.scopes == ("read", "write", "admin") and oauth.signing_algorithm == "ES256"
    secret = load(tmp_path, 'client_id = "app"\nclient_secret = "${env:APP_SECRET}"\n', APP_SECRET=SECRET)
    assert secret.oauth is not None
    assert secret.oauth.client_secret == SECRET and secret.oauth.grant == "authorization_code"


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('grant = "password"\n', '"grant" must be one of authorization_code, client_credentials, identity_'),
        (
            'grant = "identity_assertion"\nclient_id = "a"\n',
            "needs client_secret, id_token, idp_token_endpoint",
        ),
        ('grant = "client_credentials"\n', 'the client_credentials grant needs "client_id"'),
        ('grant = "client_credentials"\nclient_id = "a"\n', 'needs "client_secret", or "private_key"'),
        ('private_key = "x"\n', 'a private key is used only with grant = "client_credentials"'),
        ("redirect_port = 70000\n", '"redirect_port" must be a port number'),
        ('client_metadata_url = "http://x.test/c.json"\n', '"client_metadata_url" must be an https:// URL'),
        ('token_endpoint_auth_method = "tls"\n', '"token_endpoint_auth_method" must be one of'),
        ('signing_algorithm = "HS256"\n', '"signing_algorithm" must be one of'),
    ],
)
def test_a_wrong_oauth_table_is_one_config_error(tmp_path: Path, table: str, problem: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load(tmp_path, table)
    assert problem in str(raised.value) and 'server "remote": oauth' in str(raised.value)


def test_oauth_secrets_are_masked_like_header_values(tmp_path: Path) -> None:
    spec = load(tmp_path, f'client_id = "app"\nclient_secret = "{SECRET}"\n')
    assert redact(f"the server said {SECRET}", spec) == "the server said ***"
    assert SECRET not in repr(spec) and SECRET not in spec.describe()
    assert "oauth: authorization_code" in spec.describe()


def test_tokens_learned_while_running_are_masked_everywhere(tmp_path: Path) -> None:
    spec = load(tmp_path, 'client_id = "app"\n')
    add_runtime_secrets(["at-learned-token-123"])
    assert redact("Bearer at-learned-token-123", spec) == "Bearer ***"


@pytest.mark.anyio
async def test_the_loopback_listener_answers_the_callback_and_nothing_else() -> None:
    port = free_port()
    listener = LoopbackListener(port)
    await listener.open()
    got: list[object] = []

    async def browser() -> None:
        async with httpx2.AsyncClient() as client:
            other = await client.get(f"http://127.0.0.1:{port}/favicon.ico")
            got.append(other.status_code)
            done = await client.get(redirect_uri_for(port) + "?code=abc&state=xyz")
            got.append(done.text)

    async with anyio.create_task_group() as group:
        group.start_soon(browser)
        result = await listener.wait(30)
    assert (result.code, result.state) == ("abc", "xyz")
    assert got[0] == 404 and "Logged in." in str(got[1])


@pytest.mark.anyio
async def test_fetch_says_when_the_authorization_server_wants_a_person() -> None:
    """A login page instead of a redirect: the fetch flow cannot go on, and says which flow to use."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    app = Starlette(routes=[Route("/authorize", lambda request: HTMLResponse("<form>log in</form>"))])
    port = free_port()
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    async with anyio.create_task_group() as group:
        group.start_soon(server.serve)
        while not server.started:  # noqa: ASYNC110  (uvicorn offers no event to wait on)
            await anyio.sleep(0.02)
        with pytest.raises(RedirectError) as raised:
            await fetch_redirect(f"http://127.0.0.1:{port}/authorize", redirect_uri_for(1), timeout=10)
        server.should_exit = True
    assert "answered HTTP 200 instead of redirecting back" in str(raised.value)
    assert "--auth-flow browser" in str(raised.value)


def test_the_signing_algorithm_follows_the_key() -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    def pem(key: object) -> str:
        return key.private_bytes(  # type: ignore[attr-defined,no-any-return]
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()

    assert signing_algorithm_of(pem(ec.generate_private_key(ec.SECP256R1()))) == "ES256"
    assert signing_algorithm_of(pem(ec.generate_private_key(ec.SECP384R1()))) == "ES384"
    assert (
        signing_algorithm_of(pem(rsa.generate_private_key(public_exponent=65537, key_size=2048))) == "RS256"
    )


# ------------------------------------------------------------------------ enterprise-managed (SEP-990)

ID_TOKEN = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl"


def test_the_identity_assertion_grant_reads_its_id_token_from_a_file_and_masks_it(tmp_path: Path) -> None:
    (tmp_path / "id.jwt").write_text(ID_TOKEN + "\n")
    spec = load(
        tmp_path,
        'grant = "identity_assertion"\nclient_id = "app"\nclient_secret = "${env:APP_SECRET}"\n'
        'id_token_file = "id.jwt"\nidp_token_endpoint = "https://idp.test/token"\n'
        'idp_client_id = "idp-app"\n',
        APP_SECRET=SECRET,
    )
    oauth = spec.oauth
    assert oauth is not None and oauth.grant == "identity_assertion"
    assert oauth.id_token == ID_TOKEN and oauth.idp_client_id == "idp-app"  # the file's newline is gone
    said = redact(f"the IdP said {ID_TOKEN} and {SECRET}", spec)
    assert said == "the IdP said *** and ***"
    assert ID_TOKEN not in repr(spec) and "oauth: identity_assertion" in spec.describe()


def test_the_token_exchange_asks_the_idp_for_an_id_jag_for_this_server() -> None:
    from explorer.auth.identity_assertion import exchange_form
    from explorer.config.spec import OAuthSettings

    public = OAuthSettings(grant="identity_assertion", id_token=ID_TOKEN, idp_client_id="idp-app")
    form = exchange_form(public, "https://as.test", "https://h.test/mcp")
    assert form == {
        "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
        "subject_token": ID_TOKEN,
        "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
        "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
        "audience": "https://as.test",
        "resource": "https://h.test/mcp",
        "client_id": "idp-app",  # a public client names itself; a confidential one uses Basic auth
    }
    confidential = OAuthSettings(id_token=ID_TOKEN, idp_client_id="idp-app", idp_client_secret="x")
    assert "client_id" not in exchange_form(confidential, "https://as.test", "https://h.test/mcp")


def test_what_the_idp_answers_instead_of_an_id_jag_is_one_sentence() -> None:
    from mcp.client.auth import OAuthTokenError

    from explorer.auth.identity_assertion import ID_JAG_TYPE, id_jag_from

    assert id_jag_from(200, {"access_token": "jag", "issued_token_type": ID_JAG_TYPE}) == "jag"
    with pytest.raises(OAuthTokenError) as refused:
        id_jag_from(400, {"error": "invalid_grant", "error_description": "expired\x1b[31m"})
    message = str(refused.value)
    assert message.startswith("the identity provider refused the token exchange (400): invalid_grant")
    assert "\x1b" not in message  # the IdP's text is sanitized like any server string
    with pytest.raises(OAuthTokenError, match="issued a urn:ietf:params:oauth:token-type:access_token"):
        id_jag_from(
            200, {"access_token": "t", "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"}
        )
    with pytest.raises(OAuthTokenError, match="has no access_token"):
        id_jag_from(200, {"issued_token_type": ID_JAG_TYPE})


@pytest.mark.anyio
async def test_without_an_issuer_the_authorization_server_comes_from_the_resource_metadata() -> None:
    from explorer.auth.identity_assertion import IssuerFromResource

    asked: list[str] = []
    built: list[str] = []

    class Stamp(httpx2.Auth):
        async def async_auth_flow(self, request: httpx2.Request):  # type: ignore[no-untyped-def,override]
            request.headers["Authorization"] = "Bearer from-the-sdk"
            yield request

    def build(issuer: str) -> httpx2.Auth:
        built.append(issuer)
        return Stamp()

    def answer(request: httpx2.Request) -> httpx2.Response:
        asked.append(request.url.path)
        if request.url.path == "/.well-known/oauth-protected-resource/mcp":
            return httpx2.Response(
                200, json={"resource": "https://h.test/mcp", "authorization_servers": ["https://as.test/"]}
            )
        if request.url.path == "/mcp":
            return httpx2.Response(200, json={"auth": request.headers.get("authorization")})
        return httpx2.Response(404)

    auth = IssuerFromResource("https://h.test/mcp", build)
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(answer), auth=auth) as client:
        first = await client.post("https://h.test/mcp", json={})
        second = await client.post("https://h.test/mcp", json={})
    assert first.json() == second.json() == {"auth": "Bearer from-the-sdk"}
    assert built == ["https://as.test/"]  # looked up once per connection
    assert asked == ["/.well-known/oauth-protected-resource/mcp", "/mcp", "/mcp"]


@pytest.mark.anyio
async def test_a_server_without_resource_metadata_says_to_set_the_issuer() -> None:
    from mcp.client.auth import OAuthFlowError

    from explorer.auth.identity_assertion import IssuerFromResource

    auth = IssuerFromResource("https://h.test/mcp", lambda issuer: httpx2.Auth())
    transport = httpx2.MockTransport(lambda request: httpx2.Response(404))
    async with httpx2.AsyncClient(transport=transport, auth=auth) as client:
        with pytest.raises(OAuthFlowError, match=r'set "issuer" in its \[servers.NAME.oauth\] table'):
            await client.post("https://h.test/mcp", json={})


IDP_TABLE = 'grant = "identity_assertion"\nclient_id = "app"\nclient_secret = "x-secret-1"\nid_token = "t"\n'


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        ('idp_token_endpoint = "http://idp.test/token"\n', '"idp_token_endpoint" must be https://'),
        (
            'idp_token_endpoint = "idp.test/token"\n',
            '"idp_token_endpoint" must start with http:// or https://',
        ),
        (
            'idp_token_endpoint = "https://idp.test/t"\nissuer = "http://as.test"\n',
            '"issuer" must be https://',
        ),
        (
            'idp_token_endpoint = "https://idp.test/t"\nidp_client_secret = "s"\n',
            '"idp_client_secret" needs "idp_client_id"',
        ),
    ],
)
def test_the_identity_provider_is_reached_only_over_https(tmp_path: Path, extra: str, problem: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load(tmp_path, IDP_TABLE + extra)
    assert problem in str(raised.value)
    local = load(tmp_path, IDP_TABLE + 'idp_token_endpoint = "http://127.0.0.1:9/token"\n')  # this machine
    assert local.oauth is not None and local.oauth.idp_token_endpoint == "http://127.0.0.1:9/token"


def test_identity_provider_keys_under_another_grant_are_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[servers.remote]\nurl = "https://h.test/mcp"\n\n[servers.remote.oauth]\nid_token = "t"\n'
    )
    config = load_config(path)
    assert any("id_token ignored (used only with grant" in warning for warning in config.warnings)


def test_an_id_token_file_is_read_again_at_each_exchange(tmp_path: Path) -> None:
    from explorer.auth.identity_assertion import current_id_token

    token_file = tmp_path / "id.jwt"
    token_file.write_text("first-id-token\n")
    spec = load(
        tmp_path,
        'grant = "identity_assertion"\nclient_id = "app"\nclient_secret = "x-secret-1"\n'
        'id_token_file = "id.jwt"\nidp_token_endpoint = "https://idp.test/token"\n',
    )
    assert spec.oauth is not None and spec.oauth.id_token == "first-id-token"
    token_file.write_text("second-id-token\n")  # the identity provider's tool logged in again
    assert current_id_token(spec.oauth).id_token == "second-id-token"
    assert redact("sent second-id-token", spec) == "sent ***"  # the new one is masked too


def test_the_identity_providers_basic_credentials_are_form_encoded_like_the_sdks() -> None:
    import base64

    from explorer.auth.identity_assertion import basic_credentials

    header = basic_credentials("idp app", "p%ss:wörd")
    assert base64.b64decode(header.removeprefix("Basic ")).decode() == "idp%20app:p%25ss%3Aw%C3%B6rd"


@pytest.mark.anyio
async def test_an_identity_provider_that_cannot_be_reached_is_named() -> None:
    import socket

    from mcp.client.auth import OAuthTokenError

    from explorer.auth.identity_assertion import assertion_provider
    from explorer.config.spec import OAuthSettings

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}/token"
    fetch = assertion_provider(OAuthSettings(id_token=ID_TOKEN, idp_token_endpoint=endpoint))
    with pytest.raises(OAuthTokenError) as failed:
        await fetch("https://as.test", "https://h.test/mcp")
    assert str(failed.value).startswith(f"could not reach the identity provider at {endpoint}: ")


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("metadata", "problem"),
    [
        (
            {"resource": "https://other.test/mcp", "authorization_servers": ["https://as.test"]},
            "no protected",
        ),
        ({"resource": "https://h.test/mcp", "authorization_servers": ["http://as.test"]}, "not https"),
    ],
)
async def test_an_authorization_server_from_metadata_must_be_this_servers_and_https(
    metadata: dict[str, object], problem: str
) -> None:
    from mcp.client.auth import OAuthFlowError

    from explorer.auth.identity_assertion import IssuerFromResource

    built: list[str] = []

    def build(issuer: str) -> httpx2.Auth:
        built.append(issuer)
        return httpx2.Auth()

    def answer(request: httpx2.Request) -> httpx2.Response:
        return (
            httpx2.Response(200, json=metadata) if "well-known" in request.url.path else httpx2.Response(200)
        )

    auth = IssuerFromResource("https://h.test/mcp", build)
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(answer), auth=auth) as client:
        with pytest.raises(OAuthFlowError, match=problem):
            await client.post("https://h.test/mcp", json={})
    assert built == []  # no provider: nothing is sent to that authorization server


@pytest.mark.anyio
async def test_a_localhost_redirect_listens_on_127_0_0_1_when_the_machine_has_no_ipv6(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`localhost` names ::1 too; with IPv6 off that bind fails, and the login goes on over IPv4."""
    import errno

    import explorer.auth.redirect as redirect

    real = anyio.create_tcp_listener
    asked: list[str] = []

    async def without_ipv6(*, local_host: str, local_port: int) -> object:
        asked.append(local_host)
        if local_host == "localhost":
            raise OSError(errno.EADDRNOTAVAIL, "Cannot assign requested address")
        return await real(local_host=local_host, local_port=local_port)

    monkeypatch.setattr(redirect.anyio, "create_tcp_listener", without_ipv6)
    port = free_port()
    listener = LoopbackListener(port, host="localhost")
    await listener.open()

    async def browser() -> None:
        async with httpx2.AsyncClient() as client:
            await client.get(f"http://127.0.0.1:{port}/callback?code=abc&state=xyz")

    async with anyio.create_task_group() as group:
        group.start_soon(browser)
        result = await listener.wait(30)
    assert result.code == "abc" and asked == ["localhost", "127.0.0.1"]


@pytest.mark.anyio
async def test_a_localhost_port_in_use_is_said_not_routed_around(monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    import explorer.auth.redirect as redirect

    async def busy(*, local_host: str, local_port: int) -> object:
        raise OSError(errno.EADDRINUSE, "Address already in use")

    monkeypatch.setattr(redirect.anyio, "create_tcp_listener", busy)
    with pytest.raises(RedirectError, match="localhost:8765 \\(Address already in use\\)"):
        await LoopbackListener(8765, host="localhost").open()
