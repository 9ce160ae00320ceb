"""ServerConnection: one live MCP connection, the facade the CLI and the TUI share.

Enter and exit it in the same task (anyio cancel scopes); the TUI holds it in one long-lived worker.
Every failure leaves here as a `ServerFault` with one clear sentence, never a raw SDK exception.
"""

from __future__ import annotations

import re
import sys
import warnings
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from explorer import __version__, sdk_door
from explorer.config import ServerSpec, redact, redact_value
from explorer.connection.discover_wait import DiscoverWait
from explorer.connection.errors import (
    CLOSED,
    CONNECTION_CLOSED,
    METHOD_NOT_FOUND,
    BoundReached,
    ProtocolProblems,
    ServerFault,
    connection_ended,
    describe_exception,
    retry_hint,
    timed_out,
)
from explorer.connection.listen_level import stamp_listen_level
from explorer.connection.live import (
    Follower,
    ListChanged,
    News,
    NewsHandler,
    ResourceChanged,
    news_from_notification,
)
from explorer.connection.liveness import LOST, Liveness
from explorer.connection.progress_tokens import IssuedTokens, ignore_progress, progress_description
from explorer.connection.sdk_logs import route_sdk_logs
from explorer.connection.server_messages import ServerMessages
from explorer.connection.sizes import ResponseSizes
from explorer.connection.stderr_log import begin_run
from explorer.connection.stderr_summary import quotes_stderr, stderr_clause
from explorer.connection.transports import HttpAnswer, HttpAnswers, open_transport, tail
from explorer.connection.wire import WireLog, tap_streams
from explorer.model.heap import collector_paused
from explorer.model.identity import ProtocolMode, ServerIdentity
from explorer.model.input_required import describe_unfinished, unfinished_data

if TYPE_CHECKING:
    from mcp import Client

    from explorer.auth.login import Login
    from explorer.auth.options import AuthOptions
    from explorer.connection.stdio import StartedServer, StderrPump

MessageHandler = Callable[[Any], Awaitable[None]]
_LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel"
_HANDSHAKE_ADVICE = "use --protocol auto or --protocol legacy"
_MODERN_ADVICE = "use --protocol auto or --protocol 2026-07-28"
# A server's own error to `server/discover` that says it wants the handshake first ("Server not
# initialized", "No valid session ID provided", "Mcp-Session-Id header is required").
_WANTS_HANDSHAKE = re.compile(r"initiali[sz]|session", re.IGNORECASE)
# The SDK's stand-in for a 404 whose body is no JSON-RPC error (a legacy HTTP+SSE server's, a wrong URL).
_SDK_NOT_FOUND = "the server answered error -32601: Not Found"


class ConnectNote(str):
    """A note on how a connection was made that ends in advice naming a command-line option: the string
    itself, which `tree` and `servers` print (and right for a server given with `-s`). A server read from
    a config file is set there instead (`in_config`), so the TUI says that for one."""

    head: str  # the note without its advice
    setting: str  # the config key's value that skips the first attempt

    def __new__(cls, head: str, option: str, setting: str) -> ConnectNote:
        note = super().__new__(cls, f"{head} (pass {option} to skip the first attempt)")
        note.head = head
        note.setting = setting
        return note

    def in_config(self, file_name: str) -> str:
        """The note for a server whose entry is in `file_name`: the explorer's TOML names its transport
        `transport`, the other clients' JSON `type`."""
        key = "transport =" if file_name.endswith(".toml") else '"type":'
        return (
            f'{self.head} (set {key} "{self.setting}" in its entry in {file_name} to skip the first attempt)'
        )


def note_for(note: str, spec: ServerSpec) -> str:
    """`note` as its server's user can act on it: the config entry's setting for a server read from a
    file, the command-line option for one given with `-s`."""
    if isinstance(note, ConnectNote) and spec.origin is not None:
        return note.in_config(spec.origin.file.name)
    return note


class ServerConnection:
    """A connected MCP server: identity, raw requests for listing, reads, completion, prompts."""

    def __init__(
        self,
        spec: ServerSpec,
        *,
        protocol: ProtocolMode = "auto",
        timeout: float = 30.0,
        stderr_log: Path | None = None,
        message_handler: MessageHandler | None = None,
        on_news: NewsHandler | None = None,
        log_level: str | None = None,
        wire: WireLog | None = None,
        probe: bool = False,
        auth: AuthOptions | None = None,
    ) -> None:
        self.spec = spec
        self.protocol = protocol
        self.timeout = timeout
        self.stderr_log = stderr_log
        self._message_handler = message_handler
        self.news_handler = on_news  # may be set after creation (a watch sets it before following)
        self.log_level = log_level  # the server's log entries at or above it; None: none asked for
        self.wire = wire
        if wire is not None:
            wire.register(spec)
        self._probe = probe  # a second, diagnostic connection: no fallbacks, no log of its own
        self._discover_wait = timeout  # how long `server/discover` is waited for (`bound_discover_timeout`)
        self._connect_watch = DiscoverWait()  # the last connect attempt's `server/discover` and `initialize`
        self._stack: AsyncExitStack | None = None
        self._client: Client | None = None
        self._pumps: list[StderrPump] = []
        self._early: StartedServer | None = None  # a stdio server started before the SDK was imported
        self._started: list[StartedServer] = []  # the stdio server's process of each attempt (the last: now)
        self._stderr_start = 0
        self.identity: ServerIdentity | None = None
        self.problems = ProtocolProblems()  # what the server sent that was not a message
        self.http_answers = HttpAnswers()  # an HTTP server's error statuses
        self.notes: list[str] = []  # what the user should know about how we connected (a fallback)
        self.sizes = ResponseSizes()  # wire bytes of responses, where the transport can tell
        # The progress tokens of the requests in flight that asked for progress, and what each request is
        # (`progress_tokens`): a `Progress` news' token is looked up here as it arrives.
        self.issued_tokens = IssuedTokens()
        self.prefix_rejected = False  # the server answered -32602 to SEP-1269's `prefix`: never sent again
        self.follower = Follower(self, self._deliver)
        self.lost = anyio.Event()  # set when the server's side of the connection ends
        self.liveness: Liveness | None = None  # Streamable HTTP: pings in quiet spells (`liveness`)
        self.login: Login | None = None if probe else _login_for(spec, auth)  # OAuth, when asked for

    @property
    def name(self) -> str:
        return self.spec.name

    async def __aenter__(self) -> ServerConnection:
        if self.stderr_log is not None and self.spec.transport == "stdio":
            self._stderr_start = begin_run(self.stderr_log)
        try:
            if not sdk_imported():
                # A stdio server boots while the SDK imports (a second of imports, in a thread so an
                # event loop, the TUI's, keeps painting meanwhile): the demo's first rows came 0.8 s
                # sooner. A server that fails to start is left to the usual start, which says why.
                self._early = await self._start_early()
                await anyio.to_thread.run_sync(import_sdk)
            route_sdk_logs(self.spec)
            self._discover_wait = sdk_door.bound_discover_timeout(self.timeout)
            try:
                await self._open(self.spec)
            except ServerFault as fault:
                if self._probe:
                    raise
                await self._recover(fault)
        finally:
            await self._stop_early()  # not taken by a transport: the connection failed before it
        await self._start_live()
        return self

    async def _start_early(self) -> StartedServer | None:
        """Start a stdio server now (POSIX), or None (another transport, or it failed to start)."""
        if self.spec.transport != "stdio" or self.spec.command is None or sys.platform == "win32":
            return None
        from explorer.connection.stdio import start_server

        try:
            return await start_server(self.spec, stderr_log=self.stderr_log, pump_holder=self._pumps)
        except Exception:
            return None

    def _take_early(self) -> StartedServer | None:
        early, self._early = self._early, None
        return early

    async def _stop_early(self) -> None:
        early = self._take_early()
        if early is not None:
            from explorer.connection.stdio import stop_server_process

            with anyio.CancelScope(shield=True):
                await stop_server_process(early.process, eof_grace=0.0)  # never spoken to

    async def _start_live(self) -> None:
        """Ask for the server's log entries, and keep the modern era's change stream open while connected."""
        assert self._stack is not None and self.identity is not None
        if (
            self.log_level is not None
            and self.identity.era == "handshake"
            and self.identity.offers("logging")
        ):
            await self.set_log_level(self.log_level)
        if self.identity.era == "modern" and not self._probe:
            group = await self._stack.enter_async_context(anyio.create_task_group())
            group.start_soon(self.follower.run_listen_loop)
            self._stack.callback(group.cancel_scope.cancel)
        if self.liveness is not None and not self._probe:
            pings = await self._stack.enter_async_context(anyio.create_task_group())
            pings.start_soon(self.liveness.run, self.client.session, self.timeout, self.lost, self._may_ping)
            self._stack.callback(pings.cancel_scope.cancel)

    def _session_renewed(self) -> None:
        """The server ended the HTTP session and a new one was started (it restarted on the same port):
        requests go on in it, but what is followed is not followed there, and the event stream that
        brought the changes is gone. With something followed, the connection is said lost (a reconnect
        follows it again: the TUI's `R`; `read --watch` ends, exit 1) rather than left deaf."""
        if self.follower.following:
            why = (
                "the server started over (it ended the session and a new one was needed), so what was "
                "followed is followed no more: reconnect to follow it again"
            )
            if self.liveness is not None:
                self.liveness.why = why
            self.lost.set()

    def _may_ping(self) -> bool:
        """No liveness ping over a connection logged in with OAuth: refused once its token expired, it
        would start an authorization (a browser opening) that no user action asked for."""
        return self.login is None or not self.login.logged_in

    async def set_log_level(self, level: str) -> str | None:
        """Which log entries the server sends; returns why it could not be changed, or None.

        Handshake era: `logging/setLevel`. Modern era: every request asks for its own entries at this
        level (there is no connection-wide level), and so does the listen stream, for what the server says
        outside a request: it is opened again with the new level (`listen_level`).
        """
        self.log_level = level
        identity = self.identity
        if identity is None:
            return None
        if identity.era == "modern":
            self.follower.relisten()
            return None
        if not identity.offers("logging"):
            return "the server does not offer logging"
        try:
            await self.request("logging/setLevel", {"level": level}, action="setting the log level")
        except ServerFault as fault:
            return fault.message
        return None

    async def _deliver(self, news: News) -> None:
        if self.news_handler is not None:
            result = self.news_handler(news)
            if result is not None:
                await result

    async def follow(self, uri: str) -> bool:
        """Follow changes of `uri` (subscribe); False when the server cannot (see `follower.problem`)."""
        return await self.follower.follow(uri)

    async def unfollow(self, uri: str) -> None:
        await self.follower.unfollow(uri)

    async def _open(self, spec: ServerSpec) -> None:
        """Connect over `spec`'s transport and learn the server's identity; raises one ServerFault."""
        from mcp import Client
        from mcp.types import Implementation
        from mcp.types.version import MODERN_PROTOCOL_VERSIONS

        stack = AsyncExitStack()
        self.lost = anyio.Event()  # a fallback's second attempt starts with a live connection
        watch = self._connect_watch = DiscoverWait()
        self.http_answers.on_renewed = self._session_renewed
        try:
            streams = await stack.enter_async_context(
                open_transport(
                    spec,
                    timeout=self.timeout,
                    stderr_log=self.stderr_log,
                    problems=self.problems,
                    pump_holder=self._pumps,
                    http_answers=self.http_answers,
                    auth=self.login.auth if self.login is not None else None,
                    sizes=self.sizes,
                    started=self._take_early() if spec.transport == "stdio" else None,
                    started_holder=self._started,
                )
            )
            streams = tap_streams(streams, self.wire, spec.name, on_end=self.lost.set)
            self.liveness = Liveness() if spec.transport == "http" else None  # no stream ends there
            if self.liveness is not None:
                streams = self.liveness.watching(streams)
            # What the server sends on its own that the SDK mishandles (a cancel of our request, a request
            # or a log entry it cannot read), after the tap: the log shows the frames as they came.
            messages = ServerMessages(self.problems, count_strays=spec.transport == "stdio")
            streams = await stack.enter_async_context(messages.watching(streams))
            if self.protocol == "auto":
                streams = watch.watching(streams)  # how many waits a timeout cost (`_connect_timeout`)
            # The one place a listen stream's `_meta` gets its log level (the SDK stamps the rest).
            streams = stamp_listen_level(streams, lambda: self.log_level)
            client = Client(
                _StreamsTransport(streams),
                mode=self.protocol,
                read_timeout_seconds=self.timeout,
                message_handler=self._handle_message,
                client_info=Implementation(name="mcp-url-explorer", version=__version__),
                cache=None,  # an explorer must always see what the server says now
            )
            await stack.enter_async_context(client)
            if self.protocol not in ("auto", "legacy"):
                # A pinned modern version makes the SDK skip server/discover entirely, which would
                # leave us without the server's name, capabilities and instructions: ask once.
                from mcp.types import DiscoverResult

                raw_discover = await client.session.send_discover(self.protocol)
                client.session.adopt(DiscoverResult.model_validate(raw_discover))
        except BaseException as exc:
            cause = await _close_collecting(stack)
            await self.settle_stderr()
            timed_out_as = self._connect_timeout(watch, over_http=spec.transport == "http")
            if isinstance(exc, Exception | BaseExceptionGroup):
                raise self._fault(exc, "connecting", timed_out_as=timed_out_as) from None
            if cause is not None:
                # The transport's own task group failed (e.g. connection refused) and cancelled us:
                # that failure, not the cancellation, is what the user must see.
                raise self._fault(cause, "connecting", timed_out_as=timed_out_as) from None
            raise
        self._stack = stack
        self._client = client
        info = client.server_info
        version = client.protocol_version
        self.identity = ServerIdentity(
            name=info.name if info is not None else None,
            version=info.version if info is not None else None,
            protocol_version=version,
            era="modern" if version in MODERN_PROTOCOL_VERSIONS else "handshake",
            capabilities=client.server_capabilities.model_dump(by_alias=True, mode="json", exclude_none=True),
            instructions=client.instructions,
            transport=spec.transport,
        )

    def _connect_timeout(self, watch: DiscoverWait, *, over_http: bool = False) -> str | None:
        """What a connect that timed out waited for, when the SDK's timeout alone would not say it right.

        `auto` over stdio: the SDK went on to `initialize` after `server/discover` went unanswered, two
        waits. A pinned modern version: its one request is `server/discover`, waited for at most the SDK's
        probe time; a handshake-era server may ignore that method, which only the advice can tell (a
        server that answers nothing would not answer a second connection in the other era either).
        Streamable HTTP: the HTTP request of `server/discover` ends the transport when `--timeout` runs
        out, so an `initialize` that reached the server had the rest of it (one held back is sent again).
        """
        if watch.waited_out:
            if over_http and not self._initialize_held(watch):
                return _neither_answered(self._discover_wait, self.timeout - self._discover_wait)
            return _neither_answered(self._discover_wait, self.timeout)
        if self.protocol not in ("auto", "legacy"):
            # `--timeout` waits longer only where it set the wait (under the SDK's own probe time).
            waited = timed_out() if self._discover_wait >= self.timeout else "(timeout)"
            return (
                f"the server did not answer server/discover after {self._discover_wait:g} s {waited}; "
                f"if it speaks only the handshake era, {_HANDSHAKE_ADVICE}"
            )
        return None

    async def _recover(self, fault: ServerFault) -> None:
        """Turn a failed connect into advice, or into a working connection by the spec's fallback rules.

        HTTP: credentials refused -> say so with the challenge; a 4xx to the Streamable HTTP POST -> try the
        legacy SSE transport on the same URL (the spec's backwards-compatibility procedure). Wrong era -> a
        second, diagnostic connection in the other era tells which version the server speaks.
        """
        if self.spec.transport in ("http", "sse"):
            refusal = self.http_answers.auth_refusal()
            if refusal is not None:
                said = auth_advice(refusal, self.spec, self.login)
                raise ServerFault(said, fault.code, fault.data, local=fault.local)
        if self.spec.transport == "http":
            refused = self.http_answers.post_refusal()
            if refused is not None:
                if self.protocol not in ("auto", "legacy"):
                    await self._refused_modern(refused, fault)  # raises the era advice when it is that
                await self._fall_back_to_sse(refused, fault)
                return
            # Not when `initialize` already reached the server: after `server/discover` was answered, or
            # while its POST was unanswered with nothing to hold it back. A second one cannot be answered
            # sooner than the first, and would only wait again (two on the wire, twice the wait).
            watch = self._connect_watch
            tried = watch.initialize_sent and not self._initialize_held(watch)
            if self.protocol == "auto" and fault.request_timed_out and not self._probe and not tried:
                await self._fall_back_to_initialize(fault)
                return
        if self.spec.transport == "sse" and self.http_answers.get_refusal() is not None:
            raise ServerFault(
                f"{fault.message}; the legacy HTTP+SSE transport opens its stream with GET, which this URL "
                "refused: if it is a Streamable HTTP endpoint, connect without --sse",
                fault.code,
                fault.data,
                local=fault.local,
            )
        advice = await self._era_advice(fault)
        if advice is not None:
            raise ServerFault(f"connecting: {advice}", fault.code, fault.data, local=fault.local)
        raise fault

    def _initialize_held(self, watch: DiscoverWait) -> bool:
        """Whether the SDK's `initialize`, sent while the HTTP request of `server/discover` was unanswered,
        may never have left the HTTP client: an OAuth login's lock holds each request until the one before
        it is answered, here until the discover's request gave up and failed the transport (the wire shows
        no initialize then), and one sent as that request gave up (the probe waited all of `--timeout`)
        went with the transport."""
        return watch.waited_out and (self.login is not None or self._discover_wait >= self.timeout)

    async def _refused_modern(self, refused: HttpAnswer, fault: ServerFault) -> None:
        """A pinned modern version's `server/discover` refused with an HTTP error: when the server wants the
        handshake (its error says it is not initialized or has no session, or it knows no such method),
        raise the era advice, as over stdio, never "is the URL right?" after trying the legacy SSE
        transport. A 400, 404 or 405 whose body is no JSON-RPC error (no words to go by: a server routing
        by method answers so, as do a wrong URL and a legacy HTTP+SSE server) asks a second connection in
        the handshake era first; when that fails too, return: the SSE fallback is tried as before."""
        wants = _wants_handshake(fault)
        if not wants and refused.status not in (400, 404, 405):
            return
        advice = await self._era_advice(fault)
        if advice is None and wants:  # the second connection failed: the refusal's own words still tell
            said = fault.message.removeprefix("connecting: ").removeprefix("the server answered ")
            status = f"HTTP {refused.status}{' ' + refused.reason if refused.reason else ''}"
            advice = (
                f"the server refused server/discover with {status} ({said}): it expects initialize first, "
                f"as servers of the handshake era do; {_HANDSHAKE_ADVICE}"
            )
        if advice is not None:
            raise ServerFault(f"connecting: {advice}", fault.code, fault.data, local=fault.local)

    async def _fall_back_to_sse(self, refused: HttpAnswer, fault: ServerFault) -> None:
        """Connect again over the legacy SSE transport after Streamable HTTP was `refused`; when that fails
        too, the fault says both answers, each with what the server said in its body (the POST's
        {"error": "missing tenant header"} may be the real reason, not a URL without Streamable HTTP)."""
        status = f"HTTP {refused.status}{' ' + refused.reason if refused.reason else ''}"
        words = f": {redact(refused.words, self.spec)!r}" if refused.words else ""
        self.http_answers = HttpAnswers()
        try:
            await self._open(replace(self.spec, transport="sse"))
        except ServerFault as second:
            raise ServerFault(
                f"connecting: the server answered {status} to the Streamable HTTP request{words}, and the "
                f"legacy HTTP+SSE transport failed too ({second.message}); is the URL right?",
                fault.code,
                fault.data,
                local=fault.local,
            ) from None
        self.notes.append(
            ConnectNote(
                f"the server answered {status} to Streamable HTTP, so the explorer connected with the legacy "
                "HTTP+SSE transport",
                "--sse",
                "sse",
            )
        )

    async def _fall_back_to_initialize(self, fault: ServerFault) -> None:
        """`server/discover` went unanswered over HTTP: the wait ended the transport itself (the HTTP
        client's read timeout, which the OAuth lock makes the first to fire), so the SDK could not go on to
        `initialize` as it does when discover is refused. Connect again with `initialize` alone. The
        discover's request was waited for all of `--timeout` (the SDK's probe gave up sooner, but what it
        sent next waited behind that request): that is the first wait the messages name."""
        first = self.timeout
        self.http_answers = HttpAnswers()
        self.protocol = "legacy"
        try:
            await self._open(self.spec)
        except ServerFault as second:
            self.protocol = "auto"
            if second.request_timed_out:
                said = _neither_answered(first, self.timeout)
            else:
                said = f"the server did not answer server/discover within {first:g} s, and " + (
                    f"then initialize failed: {second.message.removeprefix('connecting: ')}"
                )
            raise ServerFault(f"connecting: {said}", second.code, second.data, local=second.local) from None
        self.notes.append(
            f"the server did not answer server/discover within {first:g} s, so the explorer "
            "connected with initialize (pass --protocol legacy to skip the first attempt)"
        )

    async def _era_advice(self, fault: ServerFault) -> str | None:
        """When the pinned era is the wrong one, which era the server speaks; None when that is not it.

        Only an answer can say so: an error names the versions, or a second connection in the other era
        (a new server process, for stdio) learns the one it speaks. A server that went away or answered
        nothing in time is no sign of the wrong era, and would cost that second connection a full wait.
        """
        supported = _supported_versions(fault.data)
        if supported and fault.code is not None:  # the versions it names are the answer, in any mode
            sentence = _era_sentence(supported, self.protocol) if self.protocol != "auto" else None
            return sentence or f"{fault.message.removeprefix('connecting: ')}; {_named_versions(supported)}"
        if (
            self.protocol == "auto"
            or fault.code is None
            or fault.connection_closed
            or fault.request_timed_out
        ):
            return None
        other: ProtocolMode = "legacy" if self.protocol == "2026-07-28" else "2026-07-28"
        probe = ServerConnection(self.spec, protocol=other, timeout=self.timeout, probe=True)
        try:
            async with probe:
                assert probe.identity is not None
                version = probe.identity.protocol_version
        except (ServerFault, Exception):
            return None
        return _era_sentence([version], self.protocol)

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        stack, self._stack, self._client = self._stack, None, None
        if stack is None:
            return
        cause = await _close_collecting(stack)
        if cause is not None and isinstance(exc, anyio.get_cancelled_exc_class()):
            # A transport that died mid-session cancels the caller; report why instead.
            raise self._fault(cause, "talking to the server") from None

    @property
    def client(self) -> Client:
        if self._client is None:
            raise ServerFault(f"{self.name}: not connected")
        return self._client

    async def _handle_message(self, message: Any) -> None:
        """Transport errors (an HTTP server's unparsable event) are counted; notifications become News."""
        if isinstance(message, Exception):
            self.problems.transport_error(message)
            return
        news = news_from_notification(message)
        modern = self.identity is not None and self.identity.era == "modern"
        if news is not None and not (modern and isinstance(news, ResourceChanged | ListChanged)):
            # Modern-era changes come on the listen stream, which the follower delivers: not twice.
            await self._deliver(news)
        if self._message_handler is not None:
            await self._message_handler(message)

    async def settle_stderr(self) -> None:
        """Let the stderr pump write what a server said before dying, and the loop reap it, so the fault
        can quote its last words and say how it ended (`exit_clause`)."""
        for pump in self._pumps:
            await pump.settle()
        if self._started:
            from explorer.connection.stdio import settle_exit

            await settle_exit(self._started[-1])

    async def loss_fault(self) -> ServerFault:
        """What a connection the server ended (`lost`) is said as, once its last words (a traceback) are
        out of the pipe and its process reaped: "the server closed the connection ...; it exited with code 1;
        its stderr ends with: ...". Over Streamable HTTP, what a ping found (`liveness`)."""
        if self.liveness is not None:  # no process, no stderr, no stream the server closed
            return ServerFault(redact(self.liveness.why or f"{LOST} (did the server stop?)", self.spec))
        await self.settle_stderr()
        parts = [CLOSED, self.exit_clause()]
        parts.append(stderr_clause(self.stderr_tail(2048)))
        return ServerFault(redact("; ".join(part for part in parts if part), self.spec))

    def _ended_why(self) -> str | None:
        """Why the connection ended, when it knows (Streamable HTTP: the session renewed with something
        followed, a ping that found the transport gone), else None: a request that failed as it ended
        says this, as the server bar does (`loss_fault`), not "the server closed the connection". Over
        stdio `_fault` adds how the process ended and its stderr, as `loss_fault` does."""
        if self.liveness is None or not self.lost.is_set():
            return None
        return self.liveness.why

    def exit_clause(self) -> str:
        """How the stdio server's process ended ("it was killed by signal SIGKILL"), or "" (running, HTTP)."""
        if not self._started:
            return ""
        from explorer.connection.stdio import exit_clause

        return exit_clause(self._started[-1])

    def _fault(self, exc: BaseException, action: str, *, timed_out_as: str | None = None) -> ServerFault:
        """One sentence for the failure, with the stderr line or stdout problems that explain it.

        `timed_out_as`: what the explorer's own wait that ran out is said as, in place of the one wait of
        `--timeout` `describe_exception` names. Masked here, at the one place every fault passes: a server
        may echo a token back in an error.
        """
        redirects = self.http_answers.redirect_refusal  # why a redirect the SDK names was not followed
        fault = describe_exception(exc, action=action, timeout=self.timeout, redirects=redirects)
        if isinstance(fault, BoundReached):  # the listing stops at its bound: nothing of the server's to add
            return BoundReached(redact(fault.message, self.spec), fault.bound, fault.size)
        message = fault.message
        if timed_out_as is not None and fault.request_timed_out:
            message = f"{action}: {timed_out_as}"
        ended = self._ended_why()
        if ended is not None and connection_ended(fault):  # the request failed as the connection ended
            message = f"{action}: {ended}"
        if message.endswith("the server answered with an HTTP error") and self.http_answers.errors:
            answer = self.http_answers.errors[-1]
            message = f"{message} (HTTP {answer.status} {answer.reason})".replace(" )", ")")
            message += retry_hint(answer.retry_after)
        if (fault.code is None or fault.connection_closed) and self.spec.transport == "stdio":
            ended = self.exit_clause() if fault.connection_closed else ""
            if ended and ended not in message:
                message = f"{message}; {ended}"
            clause = "" if quotes_stderr(message) else stderr_clause(self.stderr_tail(2048))
            if clause:
                message = f"{message}; {clause}"
        problems = self.problems.describe()
        if problems is not None and _explained_by_problems(fault):
            message = f"{message}; the server also {problems}"
        return ServerFault(
            redact(message, self.spec), fault.code, redact_value(fault.data, self.spec), local=fault.local
        )

    def stderr_tail(self, max_bytes: int = 4096) -> str:
        """The end of what a stdio server wrote to stderr since this connection began (empty for HTTP)."""
        return tail(self.stderr_log, max_bytes, start=self._stderr_start)

    async def request(self, method: str, params: Mapping[str, Any] | None, *, action: str) -> dict[str, Any]:
        """Send one request and return the result JSON object exactly as the server sent it.

        Listing uses this instead of the typed calls so one malformed item does not cost the whole
        page (the SDK validates a page as a unit) and so unknown fields survive into JSON output.
        It goes through the session's own stamping (protocol version `_meta` in the modern era).
        """
        raw, _size = await self.request_sized(method, params, action=action)
        return raw

    async def request_sized(
        self, method: str, params: Mapping[str, Any] | None, *, action: str, most: int | None = None
    ) -> tuple[dict[str, Any], int | None]:
        """`request`, and the response's size in bytes on the wire when the transport can tell (stdio,
        Streamable HTTP).

        The request id is taken from the dispatcher's own counter (the id it would have chosen), so the
        size the transport recorded under that id can be found again. With `most` (a listing's bytes
        bound), an answer the transport knows to be bigger is refused unread (`BoundReached`).
        """
        session = self.client.session
        data: dict[str, Any] = {"method": method}
        if params is not None:
            data["params"] = dict(params)
        if self.log_level is not None and self.identity is not None and self.identity.era == "modern":
            # Modern-era logging is asked for per request (its `_meta`), at the level chosen now.
            data.setdefault("params", {}).setdefault("_meta", {})[_LOG_LEVEL_META_KEY] = self.log_level
        opts: dict[str, Any] = {"timeout": self.timeout}
        ident = sdk_door.allocate_request_id(session)
        described = progress_description(method, params) if ident is not None else None
        if ident is not None:
            opts["request_id"] = ident
            if most is not None:
                self.sizes.expect_at_most(ident, most)
            if described is not None:
                # The SDK sends the request's id as its `_meta.progressToken`; the server's progress
                # reaches `_handle_message` as news, labelled by `issued_tokens`.
                opts["on_progress"] = ignore_progress
                self.issued_tokens.issue(ident, described)
        try:
            raw = await sdk_door.send_raw_request(session, method, data, opts)
        except Exception as exc:
            unread = self.sizes.refusal(ident) if ident is not None else None
            if unread is not None and unread.bound is not None:  # HTTP: refused past `most`, unread
                raise BoundReached(f"{action}: {unread.why}", unread.bound, unread.size) from None
            if getattr(exc, "code", CONNECTION_CLOSED) == CONNECTION_CLOSED:
                await self.settle_stderr()
            raise self._fault(exc, action) from None
        finally:
            if described is not None:
                self.issued_tokens.drop(ident)
        size = self.sizes.take(ident) if ident is not None else None
        if not isinstance(raw, dict):
            raise ServerFault(f"{action}: the server's result is not a JSON object")
        return raw, size

    async def read_resource(self, uri: str) -> dict[str, Any]:
        """resources/read; returns the raw result, checked to have a `contents` list."""
        raw = await self.request("resources/read", {"uri": uri}, action=f"reading {uri}")
        self._check_final(raw, f"reading {uri}")
        contents = raw.get("contents")
        if not isinstance(contents, list):
            raise ServerFault(f"reading {uri}: the server's result has no 'contents' list")
        return raw

    async def complete(
        self,
        ref: Mapping[str, Any],
        argument: str,
        value: str,
        context: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """completion/complete for a template variable or prompt argument (raw `completion` object)."""
        params: dict[str, Any] = {"ref": dict(ref), "argument": {"name": argument, "value": value}}
        if context:
            params["context"] = {"arguments": dict(context)}
        raw = await self.request("completion/complete", params, action=f"completing {argument}")
        self._check_final(raw, f"completing {argument}")
        completion = raw.get("completion")
        if not isinstance(completion, dict):
            raise ServerFault(f"completing {argument}: the server's result has no 'completion' object")
        return completion

    async def list_prompts(self, max_pages: int = 100) -> list[dict[str, Any]]:
        """Every prompt over all pages (prompts lists are small; a repeated cursor stops it)."""
        prompts: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(max_pages):
            params = {"cursor": cursor} if cursor is not None else None
            raw = await self.request("prompts/list", params, action="listing prompts")
            self._check_final(raw, "listing prompts")
            page = raw.get("prompts")
            if not isinstance(page, list):
                raise ServerFault("listing prompts: the server's result has no 'prompts' list")
            prompts.extend(p for p in page if isinstance(p, dict) and isinstance(p.get("name"), str))
            nxt = raw.get("nextCursor")
            if not isinstance(nxt, str):
                break
            if nxt in seen:
                raise ServerFault(f"listing prompts: the server repeated cursor {nxt!r} (a pagination loop)")
            seen.add(nxt)
            cursor = nxt
        return prompts

    async def get_prompt(self, name: str, arguments: Mapping[str, str]) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = dict(arguments)
        raw = await self.request("prompts/get", params, action=f"getting prompt {name}")
        self._check_final(raw, f"getting prompt {name}")
        if not isinstance(raw.get("messages"), list):
            raise ServerFault(f"getting prompt {name}: the server's result has no 'messages' list")
        return raw

    def _check_final(self, raw: Mapping[str, Any], action: str) -> None:
        """An "input required" (or other unfinished) result is a fault that says what the server wants."""
        unfinished = describe_unfinished(raw)
        if unfinished is not None:
            data = redact_value(unfinished_data(raw), self.spec)
            raise ServerFault(redact(f"{action}: {unfinished}", self.spec), None, data)


def sdk_imported() -> bool:
    return "mcp.client.session" in sys.modules


def import_sdk() -> None:
    """Import the MCP SDK with the cyclic collector paused: it builds some fifty thousand objects that live
    as long as the process, and a full collection in the middle of that took up to 70 ms (see
    `explorer.model.heap`)."""
    with collector_paused():
        import mcp
        import mcp.client.session  # noqa: F401


def _supported_versions(data: Any) -> list[str]:
    """The versions a -32022 (unsupported protocol version) error names in `data.supported`."""
    supported = data.get("supported") if isinstance(data, dict) else None
    if not isinstance(supported, list):
        return []
    return [v for v in supported if isinstance(v, str)]


def _named_versions(versions: list[str]) -> str:
    """What a refusal's `data.supported` names, said with whether the explorer speaks any of it."""
    from mcp.types.version import SUPPORTED_PROTOCOL_VERSIONS

    shown = ", ".join(v[:40] for v in versions[:8]) + (", …" if len(versions) > 8 else "")
    if any(v in SUPPORTED_PROTOCOL_VERSIONS for v in versions):
        return f"it names the versions it supports: {shown}"
    spoken = ", ".join(SUPPORTED_PROTOCOL_VERSIONS)
    return f"it supports only {shown}, which this explorer does not speak (it speaks {spoken})"


def _wants_handshake(fault: ServerFault) -> bool:
    """Whether the server's error to `server/discover` says it speaks the handshake era: -32601 (it knows
    no such method; not the SDK's stand-in for a 404 without a JSON-RPC body), or an error of its own that
    says it is not initialized or has no session."""
    said = fault.message.removeprefix("connecting: ").split("; ", 1)[0]
    if fault.code == METHOD_NOT_FOUND:
        return said != _SDK_NOT_FOUND
    return fault.code is not None and not fault.local and _WANTS_HANDSHAKE.search(said) is not None


def _era_sentence(versions: list[str], asked: ProtocolMode) -> str | None:
    """`this server speaks only 2025-11-25 (handshake era); use ...`, when `asked` is the other era.
    Versions the explorer does not know belong to neither era: left out (`_named_versions` says them)."""
    from mcp.types.version import MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS

    versions = [v for v in versions if v in SUPPORTED_PROTOCOL_VERSIONS]  # what it names that we speak
    modern = [v for v in versions if v in MODERN_PROTOCOL_VERSIONS]
    handshake = [v for v in versions if v not in MODERN_PROTOCOL_VERSIONS]
    if asked == "2026-07-28" and handshake and not modern:
        return f"this server speaks only {', '.join(handshake)} (the handshake era); {_HANDSHAKE_ADVICE}"
    if asked == "legacy" and modern and not handshake:
        return f"this server speaks only {', '.join(modern)} (the modern era); {_MODERN_ADVICE}"
    return None


def _neither_answered(discover_wait: float, initialize_wait: float) -> str:
    """`auto`'s two waits, said with what they cost in all (`--timeout` is per request)."""
    each = (
        f"{initialize_wait:g} s for each"
        if discover_wait == initialize_wait
        else f"{discover_wait:g} s for server/discover and {initialize_wait:g} s for initialize"
    )
    waited = f"waited {each}, {discover_wait + initialize_wait:g} s in all"
    return f"the server answered neither server/discover nor initialize {timed_out(waited)}"


def _login_for(spec: ServerSpec, options: AuthOptions | None) -> Login | None:
    """An OAuth login for an HTTP server without a static Authorization header (`options`, else the
    run's defaults; none when neither is set)."""
    if spec.transport == "stdio":
        # Never a login (`wants_login`), and the login's module imports the HTTP client (60 ms): a stdio
        # server starts that much sooner without it (the SDK's import, in a thread, brings it anyway).
        return None
    from explorer.auth.login import Login, default_options, wants_login

    options = options or default_options()
    if options is None or not wants_login(spec):
        return None
    return Login(spec, options)


def auth_advice(refusal: HttpAnswer, spec: ServerSpec, login: Login | None = None) -> str:
    """What a 401/403 means and what to do: the status, what the server said in its body (quoted, its
    secrets masked: a server may echo the token back), the challenge's realm, scope and metadata URL,
    and how an OAuth login went."""
    from explorer.connection.challenge import parse_challenge

    status = f"HTTP {refusal.status}{' ' + refusal.reason if refusal.reason else ''}"
    challenge = parse_challenge(refusal.challenge or "")
    details = []
    for key in ("error", "error_description", "scope", "resource_metadata", "realm"):
        if key in challenge.params:
            details.append(f"{key}={challenge.params[key]}")
    said = f" ({challenge.scheme}{': ' + ', '.join(details) if details else ''})" if challenge.scheme else ""
    sent_auth = any(name.lower() == "authorization" for name in spec.headers)
    if refusal.status == 401:
        what = "the credentials sent were not accepted" if sent_auth else "the server wants credentials"
        todo = "pass a valid token with -H 'Authorization: Bearer <token>'"
    else:
        what = "the credentials sent are not allowed to do this"
        todo = "use a token with the scopes the server asks for (-H 'Authorization: Bearer <token>')"
    if login is not None and login.problem is not None:
        todo = f"logging in with OAuth failed: {login.problem}; or {todo}"
    elif login is not None and login.logged_in:
        what = "the server refused the OAuth token" if refusal.status == 401 else what
        todo = f"run 'mcp-url-explorer auth logout {spec.name}' to log in again, or {todo}"
    words = f"{redact(refusal.words, spec)!r}; " if refusal.words else ""  # "missing X-API-Key header"
    return f"connecting: {status}: {words}{what}{said}; {todo}"


class _StreamsTransport:
    """Hands already-open streams to `mcp.Client` (which wants a transport context manager)."""

    def __init__(self, streams: Any) -> None:
        self._streams = streams

    async def __aenter__(self) -> Any:
        return self._streams

    async def __aexit__(self, *exc: object) -> None:
        return None


async def _close_collecting(stack: AsyncExitStack) -> BaseException | None:
    """Close a transport; return the real error its tasks died of (if any), never raise it.

    Cancellations are not causes; an exception group counts when it holds a non-cancellation error.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            await stack.aclose()
        except BaseException as exc:
            _cut_context_loops(exc)
            if _has_real_error(exc):
                return exc
            if not isinstance(exc, Exception | BaseExceptionGroup):
                raise
    return None


def _cut_context_loops(exc: BaseException) -> None:
    """Cut a loop in the `__context__` chain of `exc` (and of what a group holds).

    Why: closing an exit stack while a cancellation is being handled can leave an exception that is its
    own context. An earlier exit (a task group) raises a new cancellation, a later one (the SDK's task
    group) re-raises that same object, Python chains it to the cancellation being handled, and
    contextlib's fix-up points that link back at the object itself. anyio's task bookkeeping follows
    the chain of a cancelled task's exception and would spin at 100% CPU forever (a quit or reconnect
    of a modern-era server that never ends)."""
    seen: set[int] = set()
    link = exc
    while link.__context__ is not None:
        seen.add(id(link))
        if id(link.__context__) in seen:
            link.__context__ = None
            break
        link = link.__context__
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            _cut_context_loops(inner)


def _has_real_error(exc: BaseException) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return any(_has_real_error(inner) for inner in exc.exceptions)
    return isinstance(exc, Exception)


def _explained_by_problems(fault: ServerFault) -> bool:
    """Whether what the server wrote that was not a message may be why it failed: when it went silent or
    away, or the explorer gave up (no code), never when it answered with an error of its own."""
    return fault.code is None or fault.connection_closed or fault.request_timed_out
