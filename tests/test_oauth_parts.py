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
        ('grant = "password"\n', '"grant" must be "authorization_code" or "client_credentials"'),
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
