"""What a connected server tells the explorer on its own, the same way in both protocol eras.

Why one vocabulary: in the handshake era (initialize, up to 2025-11-25) changes arrive as plain
notifications after `resources/subscribe`; in the modern era (2026-07-28) only on a `subscriptions/listen`
stream whose filter names what to deliver. Log entries and progress arrive as notifications in both. The
connection turns all of it into `News` records, so the screens and the CLI never look at the era. What a
record keeps of the server's text is cut at arrival (`voice_log`): the explorer keeps what it shows.

`Follower` keeps a connection's subscriptions: `follow(uri)` / `unfollow(uri)` send `resources/subscribe` /
`resources/unsubscribe` in the handshake era, and re-open the listen stream with the new set in the modern
era (the stream's filter is fixed when it opens, its log level too). A modern-era `follow` answers once the
server acknowledged the stream (or refused it, or let the request timeout pass), as the handshake era's
answers once `resources/subscribe` did. A server that refuses to listen, or drops the stream, costs live
updates only, never the connection: the reason is kept in `Follower.problem`; a stream the server ends is
opened again, paced and a bounded number of times, and `FollowTrouble` news says when following stopped.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import anyio

from explorer.connection.errors import CONNECTION_CLOSED, METHOD_NOT_FOUND, ServerFault
from explorer.connection.voice_log import KEPT_CHARS, TOKEN_CHARS, cut_text

if TYPE_CHECKING:
    from explorer.connection.session import ServerConnection

ListKind = Literal["resources", "prompts", "tools"]


@dataclass(frozen=True, slots=True)
class ResourceChanged:
    """A followed resource changed: read it again if it is shown."""

    uri: str


@dataclass(frozen=True, slots=True)
class ListChanged:
    """One of the server's lists changed: list it again."""

    kind: ListKind


@dataclass(frozen=True, slots=True)
class LogEntry:
    """A `notifications/message` entry: the server's own log, raw (callers sanitize).

    `text` is what the Log tab shows of its `data` (a string as it is, anything else as JSON), cut at
    arrival to its first `voice_log.KEPT_CHARS` characters (`cut`); `size` is the whole text's UTF-8 size.
    """

    level: str
    logger: str | None
    text: str
    size: int = 0
    cut: bool = False
    at: float = field(default_factory=time.time)


@dataclass(frozen=True, slots=True)
class Progress:
    """A `notifications/progress`. `request` says what the explorer asked with this token (from the
    connection's `issued_tokens`); None: a token the explorer never issued (unsolicited progress)."""

    token: str | int
    progress: float
    total: float | None
    message: str | None
    at: float = field(default_factory=time.time)
    request: str | None = None


@dataclass(frozen=True, slots=True)
class FollowTrouble:
    """Following stopped working on its own, with no `follow` call waiting to say it (modern era: the
    server refused the change stream, or closed it again and again): `message` says why, to be shown."""

    message: str


News = ResourceChanged | ListChanged | LogEntry | Progress | FollowTrouble
NewsHandler = Callable[[News], Awaitable[None] | None]
NO_TOKENS: Mapping[str | int, str] = MappingProxyType({})
_LABEL_CHARS = 200  # of a log entry's level and logger
LISTEN_ACTION = "listening for changes (subscriptions/listen)"
# A change stream the server closes or drops is opened again after these waits, one per end in a row;
# after one more end, live updates stop and the user is told. A stream open this long resets the count.
REOPEN_DELAYS: tuple[float, ...] = (1.0, 2.0, 4.0, 8.0, 16.0)
STEADY_SECONDS = 60.0

_LIST_METHODS: dict[str, ListKind] = {
    "notifications/resources/list_changed": "resources",
    "notifications/prompts/list_changed": "prompts",
    "notifications/tools/list_changed": "tools",
}


def news_from_notification(message: Any) -> News | None:
    """An SDK notification model (or anything with `method` and `params`) as News, or None."""
    method = getattr(message, "method", None)
    params = getattr(message, "params", None)
    if method in _LIST_METHODS:
        return ListChanged(_LIST_METHODS[method])
    if method == "notifications/resources/updated":
        uri = getattr(params, "uri", None)
        return ResourceChanged(uri) if isinstance(uri, str) else None
    if method == "notifications/message":
        level = getattr(params, "level", None)
        logger = getattr(params, "logger", None)
        text, size, cut = cut_text(getattr(params, "data", None))
        return LogEntry(
            str(level or "info")[:_LABEL_CHARS],
            logger[:_LABEL_CHARS] if isinstance(logger, str) else None,
            text,
            size,
            cut,
        )
    if method == "notifications/progress":
        token = getattr(params, "progress_token", None)
        progress = getattr(params, "progress", None)
        if (
            isinstance(token, bool)
            or not isinstance(token, str | int)
            or not isinstance(progress, int | float)
        ):
            return None
        total = getattr(params, "total", None)
        message_text = getattr(params, "message", None)
        return Progress(
            token[:TOKEN_CHARS] if isinstance(token, str) else token,
            float(progress),
            float(total) if isinstance(total, int | float) else None,
            message_text[:KEPT_CHARS] if isinstance(message_text, str) else None,
        )
    return None


def issued_tokens(conn: object) -> Mapping[str | int, str]:
    """The progress tokens `conn` sent with its requests, each with what the request is
    ("resources/read x://a"), as `ServerConnection.issued_tokens` keeps them while the request runs;
    none when it keeps none. A progress notification is labelled by this at arrival (`labelled`), never
    by request ids: a server's token that equals a request's id is not that request's progress."""
    found = getattr(conn, "issued_tokens", None)
    return found if isinstance(found, Mapping) else NO_TOKENS


def labelled(progress: Progress, issued: Mapping[str | int, str]) -> Progress:
    """`progress` with the request its token was issued for, or None (unsolicited)."""
    request = issued.get(progress.token)
    return replace(progress, request=request if isinstance(request, str) else None)


def news_from_event(event: object) -> News | None:
    """A `subscriptions/listen` event (modern era) as News."""
    from mcp.client.subscriptions import (
        PromptsListChanged,
        ResourcesListChanged,
        ResourceUpdated,
        ToolsListChanged,
    )

    if isinstance(event, ResourceUpdated):
        return ResourceChanged(event.uri)
    if isinstance(event, ResourcesListChanged):
        return ListChanged("resources")
    if isinstance(event, PromptsListChanged):
        return ListChanged("prompts")
    if isinstance(event, ToolsListChanged):
        return ListChanged("tools")
    return None


class Follower:
    """The set of followed resources of one connection, kept on the server in either era."""

    def __init__(self, conn: ServerConnection, deliver: NewsHandler) -> None:
        self.conn = conn
        self.deliver = deliver
        self.following: set[str] = set()
        self.honored: set[str] = set()  # modern era: what the open listen stream agreed to deliver
        self.problem: str | None = None  # why live updates do not work, when they do not
        self._changed = anyio.Event()
        self.listening = False
        # Modern era: each change of the wanted set is a new generation; an attempt to open the stream
        # settles the generation it opened with (acknowledged, refused, timed out), which `follow` awaits.
        self._asked = 0
        self._settled_generation = -1
        self._settled = anyio.Event()
        self._failure: str | None = None  # why the last settled attempt opened no stream, or None
        self._agreed: frozenset[str] = frozenset()  # what the last settled attempt's stream agreed to
        self._awaited = 0  # follow() calls waiting for a settlement: they say the failure themselves
        self._unsupported: str | None = None  # modern era: the server has no listen streams (-32601)

    @property
    def modern(self) -> bool:
        identity = self.conn.identity
        return identity is not None and identity.era == "modern"

    def can_follow(self) -> bool:
        identity = self.conn.identity
        return identity is not None and identity.can_subscribe

    async def follow(self, uri: str) -> bool:
        """Start following `uri`; False (with `problem` set) when the server cannot.

        Modern era: True only once the server acknowledged a listen stream that includes `uri`; a
        refusal, a stream the server closed before acknowledging, an acknowledgement without `uri`, or
        none within the request timeout is False, and `uri` is not followed. False without a `problem`
        when `unfollow(uri)` came while it waited (the caller's own state says what it wants now).
        """
        if not self.can_follow():
            self.problem = "the server does not offer resource subscriptions"
            return False
        if self.modern:
            if uri in self.following and self.listening and uri in self.honored:
                return True
            if self._unsupported is not None:  # said once; not asked again at every preview
                self.problem = self._unsupported
                return False
            self.following.add(uri)
            return await self._follow_on_stream(uri)
        if uri in self.following:
            return True
        self.following.add(uri)
        try:
            await self.conn.request("resources/subscribe", {"uri": uri}, action=f"subscribing to {uri}")
        except ServerFault as fault:
            self.following.discard(uri)
            self.problem = fault.message
            return False
        return True

    async def _follow_on_stream(self, uri: str) -> bool:
        self._wake()
        wanted = self._asked
        self._awaited += 1
        try:
            # The listen loop's own wait for an acknowledgement is the request timeout (the SDK's read
            # timeout); an attempt already waiting may come first. This bound only guards a loop gone.
            with anyio.move_on_after(2 * self.conn.timeout + 5):
                while self._settled_generation < wanted:
                    await self._settled.wait()
        finally:
            self._awaited -= 1
        if uri not in self.following:
            return False  # unfollowed meanwhile: nothing of the server's to report
        if self._settled_generation < wanted:
            failure: str | None = "the server did not acknowledge the change stream (subscriptions/listen)"
        else:
            failure = self._failure
        if failure is None and uri not in self._agreed:
            failure = "the server did not agree to send its changes (its change stream left it out)"
        if failure is None:
            return True
        self.following.discard(uri)
        if self.listening:
            self._wake()  # the open stream asked for it: open it again without
        self.problem = failure
        return False

    async def unfollow(self, uri: str) -> None:
        """Stop following `uri` (the server is told; a failure to tell it is only recorded)."""
        if uri not in self.following:
            return
        self.following.discard(uri)
        if self.modern:
            self._wake()
            return
        try:
            await self.conn.request("resources/unsubscribe", {"uri": uri}, action=f"unsubscribing from {uri}")
        except ServerFault as fault:
            self.problem = fault.message

    def relisten(self) -> None:
        """Modern era: open the listen stream again (its log level changed: it is fixed when it opens)."""
        if self.modern:
            self._wake()

    def _wake(self) -> None:
        self._asked += 1
        self._changed.set()

    def _settle(self, generation: int, failure: str | None) -> None:
        """An attempt to open the stream with the set of `generation` came to an end or was acknowledged."""
        self._failure = failure
        self._agreed = frozenset(self.honored) if failure is None else frozenset()
        self._settled_generation = max(self._settled_generation, generation)
        self._settled.set()
        self._settled = anyio.Event()

    async def _tell(self, message: str) -> None:
        """Following stopped on its own (no `follow` call waits to say it): what was followed no longer
        is, and whoever shows news is told; with nothing followed, it is only kept in `problem` (a
        server that keeps no change stream open is not worth a warning at every connect)."""
        self.problem = message
        if not self.following:
            return
        self.following.clear()
        try:
            await _call(self.deliver, FollowTrouble(message))
        except Exception:  # whoever shows it failed: following has stopped all the same
            return

    async def run_listen_loop(self) -> None:
        """Modern era: keep one listen stream open with the current filter until cancelled.

        A stream the server refuses (an error answer, or no acknowledgement within the request timeout)
        is not asked for again until the wanted set changes. One it closes or drops after acknowledging
        is opened again after `REOPEN_DELAYS`; after that many ends in a row (none open for
        `STEADY_SECONDS`), live updates stop and `FollowTrouble` says so.
        """
        identity = self.conn.identity
        if identity is None or identity.era != "modern":
            return
        wants_lists = (
            identity.announces_resource_changes
            or identity.announces_prompt_changes
            or identity.announces_tool_changes
        )
        ends = 0  # the stream's ends in a row, since the set changed or a stream stayed open
        while True:
            self._changed = anyio.Event()
            generation = self._asked
            if not wants_lists and not self.following:
                self.honored = set()
                self._settle(generation, None)
                await self._changed.wait()
                ends = 0
                continue
            if self._unsupported is not None:
                self._settle(generation, self._unsupported)
                await self._changed.wait()
                continue
            uris = sorted(self.following)
            opened_at: float | None = None
            refusal: str | None = None
            try:
                async with anyio.create_task_group() as group:

                    async def restart_on_change() -> None:
                        # Also while the server has not acknowledged yet: the new set is asked at once,
                        # not after this attempt's full wait.
                        await self._changed.wait()
                        group.cancel_scope.cancel()

                    group.start_soon(restart_on_change)
                    async with self.conn.client.listen(
                        resources_list_changed=identity.announces_resource_changes,
                        prompts_list_changed=identity.announces_prompt_changes,
                        tools_list_changed=identity.announces_tool_changes,
                        resource_subscriptions=uris,
                    ) as subscription:
                        self.listening = True
                        self.problem = None
                        opened_at = time.monotonic()
                        honored = getattr(subscription.honored, "resource_subscriptions", None) or []
                        self.honored = {u for u in honored if isinstance(u, str)}
                        self._settle(generation, None)
                        async for event in subscription:
                            news = news_from_event(event)
                            if news is not None:
                                await _call(self.deliver, news)
                    group.cancel_scope.cancel()
                ended = "the server closed it"
            except Exception as raised:  # a lost stream costs live updates only, never the connection
                exc = _unwrapped(raised)  # the task group's wrapping of the stream's own failure
                self.honored = set()
                if opened_at is None and _refused(exc):
                    refusal = self._fault_sentence(exc)
                    if getattr(exc, "code", None) == METHOD_NOT_FOUND:
                        self._unsupported = refusal
                ended = self._ended_reason(exc)
            finally:
                self.listening = False
            if self._changed.is_set():
                ends = 0
                continue  # the wanted set changed: open it again with the new set at once
            if refusal is not None:
                self.problem = refusal
                awaited = self._awaited
                self._settle(generation, refusal)
                if not awaited:
                    await self._tell(refusal)
                await self._changed.wait()
                ends = 0
                continue
            if opened_at is None:
                # Ended before it was acknowledged (SubscriptionLost): an attempt that opened nothing.
                self._settle(generation, f"the server's change stream ended before it began ({ended})")
            if opened_at is not None and time.monotonic() - opened_at >= STEADY_SECONDS:
                ends = 0
            ends += 1
            if ends > len(REOPEN_DELAYS):
                await self._tell(f"the server's change stream ended {ends} times in a row ({ended})")
                await self._changed.wait()
                ends = 0
                continue
            self.problem = f"the server's change stream ended ({ended}); opening it again"
            with anyio.move_on_after(REOPEN_DELAYS[ends - 1]):
                await self._changed.wait()
            if self._changed.is_set():
                ends = 0  # the wanted set changed: counted afresh

    def _fault_sentence(self, exc: BaseException) -> str:
        """What the server's refusal of the listen stream is said as (masked like every fault)."""
        from explorer.config import redact
        from explorer.connection.errors import describe_exception

        fault = describe_exception(exc, action=LISTEN_ACTION, timeout=self.conn.timeout)
        return redact(fault.message, self.conn.spec)

    def _ended_reason(self, exc: BaseException) -> str:
        """Why the stream ended, said as every fault is (masked, never a library's class name: an
        exception with no text read "(ClosedResourceError)"), without the action the message names."""
        said = self._fault_sentence(exc)
        prefix = f"{LISTEN_ACTION}: "
        return said[len(prefix) :] if said.startswith(prefix) else said


def _unwrapped(exc: Exception) -> Exception:
    """The one failure inside (nested) groups of one, else `exc` itself."""
    while isinstance(exc, ExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def _refused(exc: BaseException) -> bool:
    """An answer that refuses the stream (an error, or no acknowledgement in time), not a dropped one."""
    from mcp.client.subscriptions import SubscriptionLost

    if isinstance(exc, SubscriptionLost):
        return False
    if isinstance(exc, TimeoutError):
        return True
    code = getattr(exc, "code", None)
    return isinstance(code, int) and code != CONNECTION_CLOSED


async def _call(handler: NewsHandler, news: News) -> None:
    result = handler(news)
    if result is not None:
        await result
