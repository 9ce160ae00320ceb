"""One server's OAuth login: the SDK's client auth (`mcp.client.auth`) fitted to the explorer.

The flow itself is the SDK's `OAuthClientProvider` (and its client-credentials and identity-assertion
extensions, the latter with the identity provider's leg in `identity_assertion.py`): protected
resource and authorization server discovery, dynamic registration or a pre-registered client or a client
ID metadata document, PKCE S256, the `resource` parameter, scope selection and step-up, refresh. What is
added here, and why:
- the store (`ServerTokens`) is restored into the provider, so a later run refreshes an expired token at
  the right token endpoint instead of logging in again;
- the authorization step (`redirect.py`): a loopback listener, the browser, or fetching the URL;
- a bound on authorizations per connection: a server that keeps answering `insufficient_scope` is
  reported after three logins instead of being asked forever;
- the requests the login makes are tagged (`AUTH_REQUEST` in their extensions) so the transport's error
  bookkeeping does not take a discovery 404 for the MCP endpoint refusing Streamable HTTP;
- a failure becomes one sentence (`problem`) the connection's error message quotes, a failed send of
  one of the login's own requests too, which the SDK's flow never sees (`login_requests.py`: the
  request, its URL and why); the answers to those requests are read within 1 MiB, and the code, the
  PKCE verifier and the state are masked as soon as the explorer holds them;
- a registration made for another redirect URI is set aside only when an authorization is needed,
  never its tokens (a refresh sends no redirect URI).

An HTTP server with a static `Authorization` header (from `-H` or the config), or credentials in its URL,
gets no login: the user manages those.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncGenerator, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx2

from explorer import __version__, sdk_door
from explorer.auth.identity_assertion import identity_assertion_auth
from explorer.auth.login_requests import (
    LoginRequestFailed,
    SendWatch,
    cap_answer,
    learn_request_secrets,
    shown_url,
    token_answer_problem,
)
from explorer.auth.options import AuthOptions
from explorer.auth.redirect import (
    STATE_MISMATCH,
    LoopbackListener,
    Redirected,
    RedirectError,
    fetch_redirect,
    free_port,
    host_of,
    open_browser,
    port_is_free,
    port_of,
    redirect_uri_for,
    state_matches,
    state_of,
)
from explorer.auth.store import ServerTokens
from explorer.config.spec import OAuthSettings, ServerSpec, add_runtime_secrets
from explorer.model.login_prompt import AuthFlow, LoginPrompt

if TYPE_CHECKING:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import AuthorizationCodeResult

AUTH_REQUEST = "mcp_url_explorer.auth_request"
MAX_AUTHORIZATIONS = 3  # per connection: the first login and up to two scope step-ups


_default_options: AuthOptions | None = None


def set_default_options(options: AuthOptions | None) -> None:
    """The options every `ServerConnection` made without its own uses (the CLI sets them once)."""
    global _default_options
    _default_options = options


def default_options() -> AuthOptions | None:
    return _default_options


def wants_login(spec: ServerSpec) -> bool:
    """An HTTP server without a static Authorization header nor credentials in its URL (which the HTTP
    client sends as Basic auth, and an auth of ours would replace): log in when it asks for it."""
    if spec.transport == "stdio" or any(name.lower() == "authorization" for name in spec.headers):
        return False
    try:
        return urlsplit(spec.url or "").username is None
    except ValueError:
        return False


@dataclass
class Login:
    """The login of one connection to one server: an `httpx2.Auth` and what became of it."""

    spec: ServerSpec
    options: AuthOptions
    problem: str | None = None  # why the login failed, one sentence
    authorizations: int = 0  # interactive (or client-credentials) authorizations this connection
    presented: bool = False  # a request of this connection went out with a token of the login
    tokens: ServerTokens = field(init=False)
    auth: httpx2.Auth = field(init=False)

    def __post_init__(self) -> None:
        assert self.spec.url is not None
        self.tokens = ServerTokens(self.spec.url)
        provider = _build_provider(self)
        self.tokens.context = getattr(provider, "context", None)  # the SDK's OAuthClientProvider has one
        self.auth = _Watched(provider, self)

    @property
    def logged_in(self) -> bool:
        """The connection presented a token (stored, refreshed or new)."""
        context = self.tokens.context
        return self.presented or (context is not None and context.current_tokens is not None)

    def failed(self, exc: BaseException) -> None:
        if self.problem is None:
            self.problem = describe_login_failure(exc)

    # -- the authorization step (authorization code grant)

    def redirect_uri(self) -> str:
        return self.tokens.redirect or redirect_uri_for(free_port())

    def flow(self) -> AuthFlow:
        """The server's own `flow` (config, connect dialog), else the run's."""
        own = self.spec.oauth.flow if self.spec.oauth is not None else None
        for known in ("browser", "print", "fetch"):
            if own == known:
                return known
        return self.options.chosen_flow()

    async def authorize(self, url: str) -> Redirected:
        """Get the code for `url` by the chosen flow (announcing the URL while the user is needed)."""
        flow = self.flow()
        redirect = self.redirect_uri()
        if flow == "fetch":
            got = await fetch_redirect(url, redirect, timeout=30.0)
        else:
            port = port_of(redirect)
            assert port is not None
            listener = LoopbackListener(port, expected_state=state_of(url), host=host_of(redirect))
            await listener.open()
            opened = open_browser(url) if flow == "browser" else False
            self._announce(LoginPrompt(self.spec.name, url, opened, flow))
            try:
                got = await listener.wait(self.options.login_timeout)
            finally:
                await listener.close()
                self._announce(None)
        # Masked from now on (not before: the URL shown to the user carries the state).
        add_runtime_secrets([got.code, got.state, state_of(url)])
        return got

    def drop_unfit_registration(self) -> None:
        """Before an authorization: a registration made for another redirect URI than this login's is
        set aside (in memory; the store keeps it and its tokens until a new one replaces it), so the SDK
        registers again. An authorization server compares the redirect URI of an authorization with the
        registered ones exactly; a refresh does not send one, which is why the old registration and its
        tokens were kept until now. A configured client (or CIMD) is the user's: never set aside."""
        settings = self.spec.oauth or OAuthSettings()
        context = self.tokens.context
        redirect = self.tokens.redirect
        if settings.grant != "authorization_code" or settings.client_id or settings.client_metadata_url:
            return
        if context is None or context.client_info is None or redirect is None:
            return
        if redirect not in {str(uri) for uri in context.client_info.redirect_uris or ()}:
            context.client_info = None

    def _announce(self, prompt: LoginPrompt | None) -> None:
        if self.options.on_pending is not None:
            self.options.on_pending(self.spec.name, prompt)

    def count_authorization(self) -> None:
        from mcp.client.auth import OAuthFlowError

        self.authorizations += 1
        if self.authorizations > MAX_AUTHORIZATIONS:
            raise OAuthFlowError(
                f"the server asked for a new authorization {MAX_AUTHORIZATIONS} times on one connection "
                "(it keeps refusing the scopes it was granted); stopped"
            )


def describe_login_failure(exc: BaseException) -> str:
    """One sentence for a failed login (the SDK's messages are kept: they name the step and the status)."""
    from mcp.client.auth import OAuthFlowError, OAuthRegistrationError, OAuthTokenError

    name = type(exc).__name__
    text = str(exc).strip() or "it gave no reason"
    if isinstance(exc, RedirectError | LoginRequestFailed):
        return text
    if isinstance(exc, OAuthRegistrationError):
        return f"registering the explorer with the authorization server failed: {text}"
    if isinstance(exc, OAuthTokenError):
        return f"the token request failed: {text}"
    if isinstance(exc, OAuthFlowError):
        return text
    if isinstance(exc, httpx2.HTTPError):
        if not str(exc).strip():  # the HTTP client's timeouts and resets say nothing: their kind does
            if isinstance(exc, httpx2.TimeoutException):
                text = "no answer came in time"
            elif isinstance(exc, httpx2.NetworkError | httpx2.RemoteProtocolError):
                text = "the connection broke off"
        return f"a request to the authorization server failed: {text}"
    if type(exc).__module__ == "builtins":  # a plain Python error: its name helps a report
        return f"{text} ({name})"
    return text  # another library's class name means nothing to a user (as `describe_exception`)


class _Watched(httpx2.Auth):
    """The SDK provider's flow, with its own requests tagged, watched and their answers capped, and its
    failure recorded on the Login.

    A request of the login that fails to go out or to be answered raises in the HTTP client, which only
    closes this flow (`GeneratorExit` at its `yield`): the watch on that request (`SendWatch`) says why.
    """

    def __init__(self, inner: httpx2.Auth, login: Login) -> None:
        self._inner = inner
        self._login = login

    def sync_auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        raise RuntimeError("the explorer's OAuth login runs on the async client only")

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = self._inner.async_auth_flow(request)
        last: httpx2.Response | None = None  # the answer to the login's last request
        answered = 0  # answers to the login's requests in this flow
        redirected: list[str] = []  # the URLs of those that were redirects
        try:
            outgoing = await flow.__anext__()
            while True:
                watch: SendWatch | None = None
                if outgoing is not request:
                    outgoing.extensions = {**outgoing.extensions, AUTH_REQUEST: True}
                    learn_request_secrets(outgoing)
                    watch = SendWatch.on(outgoing)
                elif "authorization" in outgoing.headers:
                    self._login.presented = True
                try:
                    response = yield outgoing
                except GeneratorExit:
                    if watch is not None:
                        why = watch.sentence(outgoing, redirected, answered)
                        self._login.failed(LoginRequestFailed(why))
                    raise
                if watch is not None:
                    cap_answer(response)
                    last = response
                    answered += 1
                    if response.is_redirect:
                        redirected.append(shown_url(outgoing.url))
                elif _authorizes_again(response):
                    self._login.drop_unfit_registration()
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        except Exception as exc:
            self._login.failed(_token_answer_failure(exc, last) or exc)
            raise
        finally:
            await flow.aclose()


def _authorizes_again(response: httpx2.Response) -> bool:
    """The SDK's flow goes on to a full authorization after this answer to the request it authenticates:
    a 401, or a 403 asking for more scopes."""
    if response.status_code == 401:
        return True
    challenge = response.headers.get("www-authenticate", "")
    return response.status_code == 403 and "insufficient_scope" in challenge


def _token_answer_failure(exc: Exception, last: httpx2.Response | None) -> LoginRequestFailed | None:
    """The SDK's "Invalid token response: <a pydantic dump>" as one sentence on what the answer was."""
    from mcp.client.auth import OAuthTokenError

    if not isinstance(exc, OAuthTokenError) or last is None or not str(exc).startswith("Invalid token"):
        return None
    return LoginRequestFailed(token_answer_problem(last))


# ------------------------------------------------------------------------------------------------ providers


def _build_provider(login: Login) -> httpx2.Auth:
    settings = login.spec.oauth or OAuthSettings()
    with warnings.catch_warnings():
        # Omitting the issuer of client credentials is deprecated in the SDK; it stays optional here.
        warnings.simplefilter("ignore")
        if settings.grant == "client_credentials":
            return _client_credentials_provider(login, settings)
        if settings.grant == "identity_assertion":
            assert login.spec.url is not None
            return identity_assertion_auth(login.spec.url, settings, login.tokens)
        return _code_provider(login, settings)


def _scope(settings: OAuthSettings) -> str | None:
    return " ".join(settings.scopes) or None


def _client_credentials_provider(login: Login, settings: OAuthSettings) -> OAuthClientProvider:
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
        PrivateKeyJWTOAuthProvider,
        SignedJWTParameters,
    )

    assert settings.client_id is not None and login.spec.url is not None
    storage = login.tokens

    if settings.private_key is not None:
        parameters = SignedJWTParameters(
            issuer=settings.client_id,
            subject=settings.client_id,
            signing_key=settings.private_key,
            signing_algorithm=settings.signing_algorithm or signing_algorithm_of(settings.private_key),
        )

        key_provider = sdk_door.hooked_provider(
            PrivateKeyJWTOAuthProvider,
            after_initialize=lambda provider: storage.restore(provider.context),
            before_authorization=lambda _provider: login.count_authorization(),
        )
        return key_provider(
            login.spec.url,
            storage,
            settings.client_id,
            parameters.create_assertion_provider(),
            scope=_scope(settings),
            issuer=settings.issuer,
        )

    assert settings.client_secret is not None

    secret_provider = sdk_door.hooked_provider(
        ClientCredentialsOAuthProvider,
        after_initialize=lambda provider: storage.restore(provider.context),
        before_authorization=lambda _provider: login.count_authorization(),
    )
    post = settings.token_endpoint_auth_method == "client_secret_post"
    return secret_provider(
        login.spec.url,
        storage,
        settings.client_id,
        settings.client_secret,
        token_endpoint_auth_method="client_secret_post" if post else "client_secret_basic",
        scope=_scope(settings),
        issuer=settings.issuer,
    )


def _code_provider(login: Login, settings: OAuthSettings) -> OAuthClientProvider:
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.auth.utils import union_scopes
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata
    from pydantic import AnyUrl

    assert login.spec.url is not None
    storage = login.tokens
    storage.redirect = _choose_redirect(login, settings)
    configured_scope = _scope(settings)
    metadata = OAuthClientMetadata(
        redirect_uris=[AnyUrl(storage.redirect)],
        client_name=login.options.client_name,
        client_uri=None,
        software_id="mcp-url-explorer",
        software_version=__version__,
        token_endpoint_auth_method="none" if settings.client_secret is None else None,
        grant_types=["authorization_code", "refresh_token"],
        scope=configured_scope,
    )
    pending: list[tuple[Redirected, str | None]] = []  # the redirect, and the state the login sent

    async def redirect_handler(url: str) -> None:
        pending.clear()
        pending.append((await login.authorize(url), state_of(url)))

    async def callback_handler() -> AuthorizationCodeResult:
        from mcp.client.auth import OAuthFlowError

        if not pending:
            raise OAuthFlowError("no authorization response was received")
        got, sent_state = pending.pop()
        if got.error:
            detail = f" ({got.error_description})" if got.error_description else ""
            raise OAuthFlowError(f"the authorization server refused the login: {got.error}{detail}")
        if not state_matches(got.state, sent_state):
            raise OAuthFlowError(STATE_MISMATCH)
        if not got.code:
            raise OAuthFlowError("the authorization server's redirect carried no code")
        return AuthorizationCodeResult(code=got.code, state=got.state, iss=got.iss)

    def after_initialize(provider: OAuthClientProvider) -> None:
        if settings.client_id is not None:
            provider.context.client_info = OAuthClientInformationFull(
                client_id=settings.client_id,
                client_secret=settings.client_secret,
                redirect_uris=[AnyUrl(storage.redirect or "")],
                token_endpoint_auth_method=(
                    settings.token_endpoint_auth_method or "client_secret_basic"
                    if settings.client_secret
                    else "none"
                ),
            )
        storage.restore(provider.context)

    def before_authorization(provider: OAuthClientProvider) -> None:
        login.count_authorization()
        if configured_scope:
            metadata = provider.context.client_metadata
            metadata.scope = union_scopes(metadata.scope, configured_scope)

    code_provider = sdk_door.hooked_provider(
        OAuthClientProvider, after_initialize=after_initialize, before_authorization=before_authorization
    )
    return code_provider(
        login.spec.url,
        metadata,
        storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        client_metadata_url=settings.client_metadata_url,
    )


def _choose_redirect(login: Login, settings: OAuthSettings) -> str:
    """The loopback redirect URI: the configured port, else the one the stored registration was made
    with (while it is free, as the listener binds it), else a new free port. Nothing stored is dropped
    here: the tokens of the stored registration stay good for refreshing, which sends no redirect URI;
    only an authorization needs a registration of the new URI (`Login.drop_unfit_registration`)."""
    if settings.redirect_port is not None:
        return redirect_uri_for(settings.redirect_port, settings.redirect_host)
    stored = login.tokens.registered_redirect() or login.tokens.redirect_uri()
    port = port_of(stored) if stored is not None else None
    fetching = login.flow() == "fetch"
    if stored is not None and port is not None and (fetching or port_is_free(port)):
        return stored
    return redirect_uri_for(free_port())


def signing_algorithm_of(pem: str) -> str:
    """The JWS algorithm a private key signs with: ES256/384/512 by curve, RS256, EdDSA."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        key: Any = load_pem_private_key(pem.encode("utf-8"), password=None)
    except (ValueError, TypeError):
        return "RS256"
    if isinstance(key, ec.EllipticCurvePrivateKey):
        return {"secp384r1": "ES384", "secp521r1": "ES512"}.get(key.curve.name, "ES256")
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return "EdDSA"
    if isinstance(key, rsa.RSAPrivateKey):
        return "RS256"
    return "RS256"
