"""The stdio transport: a server subprocess speaking newline-delimited JSON-RPC on stdin/stdout.

Why not the SDK's `stdio_client` as is: its reader joins text chunks by string concatenation, so one
50 MB answer costs seconds of quadratic copying (about 20 s measured), and a server that never ends a
line grows memory without limit. This reader keeps one byte buffer (linear), caps a message at
`MAX_MESSAGE_BYTES`, and records instead of raising what a server wrote that is not a message
(`ProtocolProblems`), so a connection that otherwise works keeps working and a later fault can say why.
Its output ends at EOF, or when the server's process exited and its last output is read (`_next_chunk`):
a child it left may hold the pipe open for ever.
Starting and stopping the process need no SDK (`server_process`), so a server can boot while the SDK
imports (`start_server`, then `stdio_transport(started=...)`).

What a line is (a message, an error answer made here, nothing) is `stdio_lines`. Each response's size on
the wire is recorded by id (`ResponseSizes`) for the listing's bytes bound.

Stopping is ours (`stop_server_process`), because a server may ignore both stdin EOF and SIGTERM, and
fork children that do the same: the SDK's sequence can take 6 s, longer than the TUI waits for its
connections when the user quits, and it kills the group only when the leader itself did not exit, so a
leader that exits on EOF left its children behind. Here: close stdin, wait `EOF_GRACE`, SIGTERM the
whole group, wait `TERM_GRACE`, SIGKILL the group; the group is checked and terminated even when the
leader exited on its own; every wait is bounded (under 3 s in all), and the stop runs as a task of its
own, so a caller cancelled mid-way cannot abandon the server between SIGTERM and SIGKILL. As a last
resort every live group is kept in a registry: `stop_leftover_servers()` terminates and then kills what
is left of them, and runs after the TUI's `app.run()` returns, at interpreter exit, and on a SIGHUP or
SIGTERM that would end the process (`exit_signals`).

A server's stderr goes to its log file. When the spec carries secrets (env values), it passes through
`StderrPump`, which masks them (in every encoding `secret_forms` knows) before they reach the disk.
"""

from __future__ import annotations

import asyncio
import atexit
import math
import os
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import anyio
import anyio.lowlevel
import anyio.to_thread

from explorer.config import MASK, ServerSpec
from explorer.config.spec import masked_forms
from explorer.connection import server_process
from explorer.connection.errors import ProtocolProblems
from explorer.connection.flood import FloodGate, notification_method
from explorer.connection.sizes import MAX_MESSAGE_BYTES, ResponseSizes
from explorer.connection.stdio_lines import parse_line, refused_past_bound, refused_too_big

if TYPE_CHECKING:
    from explorer.sdk_door import TransportStreams

_CHUNK = 1024 * 1024
_RELEASE_AFTER_BYTES = 1024 * 1024
_TEXT_KEPT_FROM = 8 * 1024  # a line this size or more, up to the next, is handed on as bytes too
_TEXT_KEPT_UP_TO = 1024 * 1024
_WRITER_FLUSH_SECONDS = 0.5
EOF_GRACE = 1.0  # for the server to exit on its own once its stdin is closed
TERM_GRACE = 1.0  # after SIGTERM to the group, before SIGKILL
_KILL_REAP = 0.3  # for the event loop to see the leader die after SIGKILL
_POLL = 0.02
_EXIT_POLL = 0.1  # how often the exit is looked for where the OS gives no process descriptor (`_exit_of`)
EXIT_DRAIN = 0.25  # once it exited: how long its output may stay silent before the connection ends

_live_groups: dict[int, str] = {}  # process group id -> server name, until the group is stopped
_live_lock = threading.RLock()  # re-entrant: the exit-signal handler may run while this thread holds it
_atexit_registered = False
_stopping: set[Any] = set()  # stop tasks running on their own (a reference keeps them alive)


@dataclass
class StartedServer:
    """A stdio server's process, started (`start_server`), before its transport reads and writes it."""

    process: Any
    name: str


async def start_server(
    spec: ServerSpec, *, stderr_log: Path | None, pump_holder: list[StderrPump] | None = None
) -> StartedServer:
    """Start `spec`'s server (POSIX; it needs no MCP SDK, so it can boot while the SDK imports). Stop it
    with `stop_server_process` unless a transport takes it (`stdio_transport(started=...)`)."""
    assert spec.command is not None
    log_path = stderr_log if stderr_log is not None else Path(os.devnull)
    if log_path != Path(os.devnull):
        log_path.parent.mkdir(parents=True, exist_ok=True)
    secrets = masked_forms(spec)  # every encoding of every secret (see secret_forms)
    env = server_process.inherited_environment() | dict(spec.env)
    pump = StderrPump(log_path, secrets) if secrets else None
    errlog: IO[Any] = pump.child_end() if pump is not None else log_path.open("ab")
    try:
        # errlog is a binary file: only its fileno() is used
        process = await server_process.open_server(spec.command, list(spec.args), env, errlog, spec.cwd)
    except BaseException:
        errlog.close()
        if pump is not None:
            pump.close_reader()
        raise
    errlog.close()  # the child holds its own copy
    _register_group(process.pid, spec.name)  # start_new_session: the leader's pid is the group id
    if pump is not None:
        pump.start()
        if pump_holder is not None:
            pump_holder.append(pump)
    return StartedServer(process, spec.name)


@asynccontextmanager
async def stdio_transport(
    spec: ServerSpec,
    *,
    stderr_log: Path | None,
    problems: ProtocolProblems,
    pump_holder: list[StderrPump] | None = None,
    max_message_bytes: int | None = None,
    sizes: ResponseSizes | None = None,
    started: StartedServer | None = None,
    started_holder: list[StartedServer] | None = None,
) -> AsyncIterator[TransportStreams]:
    """Start the server (or take the one `started`) and yield (read, write) streams of `SessionMessage`s
    for `mcp.Client`; the server is stopped when the block ends. `started_holder` receives the server's
    process, so a fault can say how it ended (`exit_clause`)."""
    assert spec.command is not None
    if sys.platform == "win32":  # pragma: no cover - the SDK's own transport (its Windows process wrapper)
        assert started is None  # nothing is started ahead of it there
        from mcp import StdioServerParameters
        from mcp.client import stdio as sdk

        log_path = stderr_log if stderr_log is not None else Path(os.devnull)
        if log_path != Path(os.devnull):
            log_path.parent.mkdir(parents=True, exist_ok=True)
        params = StdioServerParameters(
            command=spec.command,
            args=list(spec.args),
            env=dict(spec.env) or None,
            cwd=spec.cwd,
            encoding_error_handler="replace",
        )
        with log_path.open("a", encoding="utf-8", errors="replace") as errlog:
            async with sdk.stdio_client(params, errlog=errlog) as streams:
                yield streams
        return

    if started is None:
        started = await start_server(spec, stderr_log=stderr_log, pump_holder=pump_holder)
    if started_holder is not None:
        started_holder.append(started)
    limit = max_message_bytes if max_message_bytes is not None else MAX_MESSAGE_BYTES
    async with _streams(started.process, problems, limit, sizes) as streams:
        yield streams


@asynccontextmanager
async def _streams(
    process: Any, problems: ProtocolProblems, max_message_bytes: int, sizes: ResponseSizes | None = None
) -> AsyncIterator[TransportStreams]:
    from mcp.shared.message import SessionMessage

    read_send, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()
    gate = FloodGate(problems)
    exit_watch = _ExitWatch()

    async def deliver(line: bytes | bytearray, *, cut: bool = False) -> bool:
        """Parse one line and pass it on (each message of a batch in turn); False once nobody reads any
        more. `cut`: the output ended before the line did."""
        size = len(line)
        big = size > _RELEASE_AFTER_BYTES
        refused = refused_past_bound(line, sizes) if sizes is not None else None
        # 50 MB parse in ~0.4 s (a thread would not help: GIL held)
        parsed = refused if refused is not None else parse_line(line, problems, cut=cut)
        if parsed is None:
            return True
        messages = parsed if isinstance(parsed, list) else [parsed]
        if any(notification_method(message) is not None for message in messages):
            messages = [message for message in messages if gate.admits(message)]
            if not messages:
                return True
        if sizes is not None:
            for message in messages:  # a batch's answers each count the whole line: none is smaller
                _record_size(message, size, sizes)
        if not isinstance(parsed, list):  # a batch's messages are not lines: the log measures each
            # For the protocol log (`explorer.connection.wire`): the size, and a listing page's own bytes.
            parsed.wire_size = size
            if _TEXT_KEPT_FROM <= size <= _TEXT_KEPT_UP_TO and getattr(parsed, "plain", False):
                parsed.wire_text = bytes(line)  # only what orjson read: the log decodes it the same way
        try:
            for message in messages:
                await read_send.send(message)
            if big:
                # The SDK's read loop keeps its last message referenced until the next one arrives: a
                # 50 MB answer would stay in memory while the connection idles. A response to an id
                # nobody uses is dropped at once (debug log) and releases it.
                await read_send.send(_release_marker())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return False
        return True

    async def hand_on(message: Any) -> bool:
        """Pass a message made here on; False once nobody reads any more."""
        try:
            await read_send.send(message)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return False
        return True

    async def read_stdout() -> None:
        buffer = bytearray()
        dropping = False  # inside a line that went over the limit: skip to its end
        async with read_send:
            while True:
                chunk = await _next_chunk(process, exit_watch)
                if chunk is None:
                    break
                start = 0
                while True:
                    end = chunk.find(b"\n", start)
                    piece = chunk[start:] if end < 0 else chunk[start:end]
                    if not dropping:
                        if len(buffer) + len(piece) > max_message_bytes:
                            refusal = refused_too_big(bytes((buffer or piece)[:512]), max_message_bytes)
                            buffer = bytearray()
                            dropping = True
                            if refusal is None:  # no request to fail: said when one times out
                                problems.oversized_message(max_message_bytes)
                            elif not await hand_on(refusal):
                                await _discard(process)
                                return
                        else:
                            buffer += piece
                    if end < 0:
                        break
                    start = end + 1
                    if dropping:
                        dropping = False
                        continue
                    line, buffer = buffer, bytearray()
                    delivered = await deliver(line)
                    del line  # not kept while waiting for the next chunk
                    if not delivered:
                        await _discard(process)
                        return
            if buffer and not dropping:
                await deliver(buffer, cut=True)

    async def write_stdin() -> None:
        try:
            async with write_receive:
                async for item in write_receive:
                    data = item.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await process.stdin.send(data.encode("utf-8", errors="replace"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server stopped reading: end the read side so no request waits forever.
            await read_send.aclose()
        finally:
            writer_done.set()

    async with anyio.create_task_group() as group:
        group.start_soon(exit_watch.run, process)
        group.start_soon(read_stdout)
        group.start_soon(write_stdin)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                read_stream.close()
                write_stream.close()
                try:
                    with anyio.move_on_after(_WRITER_FLUSH_SECONDS):
                        await writer_done.wait()
                finally:
                    await stop_server_process(process)
                for stream in (read_stream, write_stream, read_send, write_receive):
                    await stream.aclose()
                await anyio.lowlevel.checkpoint()
            group.cancel_scope.cancel()


async def settle_exit(started: StartedServer, timeout: float = 0.5) -> None:
    """Wait (briefly) for the event loop to reap a server that closed its side, so `exit_clause` knows
    how it ended; a server still running (it closed stdout only) is not waited for longer."""
    with anyio.move_on_after(timeout):
        while started.process.returncode is None:  # noqa: ASYNC110 (no event is set when it changes)
            await anyio.sleep(_POLL)


def exit_clause(started: StartedServer) -> str:
    """How the server's process ended, for a fault: "it was killed by signal SIGKILL" (the OOM killer,
    a supervisor, a `kill`), "it exited with code 3", or "" while it runs."""
    code = started.process.returncode
    if code is None:
        return ""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return f"it was killed by signal {name}"
    return f"it exited with code {code}"


class _ExitWatch:
    """Wakes the stdout reader once the server's process exits (`_next_chunk`), so an idle connection
    sleeps until something happens instead of looking every tenth of a second."""

    __slots__ = ("_reading", "exited")

    def __init__(self) -> None:
        self.exited = False
        self._reading: anyio.CancelScope | None = None  # the receive in progress, if any

    async def run(self, process: Any) -> None:
        """Wait for the process to exit, then give the reader at most `EXIT_DRAIN` more to finish."""
        with suppress(Exception):  # a wait that fails tells nothing: the reader still ends at EOF
            await _exit_of(process)
            self.exited = True
            reading = self._reading
            if reading is not None:
                reading.deadline = min(reading.deadline, anyio.current_time() + EXIT_DRAIN)

    def reading(self, scope: anyio.CancelScope | None) -> None:
        """The reader's receive in progress (None between receives)."""
        self._reading = scope


async def _exit_of(process: Any) -> None:
    """Return once the process exited: woken by the OS through a process descriptor (Linux), else by
    looking at its return code every `_EXIT_POLL`. Not `process.wait()`: on asyncio that also waits for
    the pipes, which a child left behind holds open (`server_process.wait_for_exit`)."""
    open_descriptor = getattr(os, "pidfd_open", None)
    descriptor: int | None = None
    if open_descriptor is not None and process.returncode is None:
        with suppress(OSError):  # reaped already, or a kernel without them
            descriptor = open_descriptor(process.pid)
    if descriptor is None:
        while process.returncode is None:  # noqa: ASYNC110 (no event is set when it changes)
            await anyio.sleep(_EXIT_POLL)
        return
    try:
        await anyio.wait_readable(descriptor)
    finally:
        os.close(descriptor)


async def _next_chunk(process: Any, watch: _ExitWatch) -> bytes | None:
    """The next chunk the server wrote to stdout, or None once its output ended.

    It ends at EOF, and also once the server's process (the one started: a wrapper script, or the server
    it exec'd) exited and nothing more came for `EXIT_DRAIN`: a child it left behind (`sleep 120 &` in a
    script) holds the pipe open, and the requests pending would else wait for their timeout, then be
    reported as not answered. What the server wrote before it exited is in the pipe, readable at once,
    so its last answers are still read. A receive cut by the deadline loses nothing: anyio does not
    cancel a task whose read has completed, and trio's cancelled receive read nothing.
    """
    exited = watch.exited or process.returncode is not None  # returncode: set by the loop's child watcher
    deadline = anyio.current_time() + EXIT_DRAIN if exited else math.inf
    with anyio.CancelScope(deadline=deadline) as scope:
        watch.reading(scope)
        try:
            chunk: bytes = await process.stdout.receive(_CHUNK)
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            return None
        finally:
            watch.reading(None)
        return chunk
    return None  # the deadline: the process exited and its output stayed silent for `EXIT_DRAIN`


async def stop_server_process(process: Any, eof_grace: float = EOF_GRACE) -> None:
    """Stop a stdio server and everything in its process group; bounded, never raises.

    Close stdin and give the server `eof_grace` to exit; then (and also when the leader exited but its
    group did not) SIGTERM the group, wait `TERM_GRACE`, SIGKILL the group. A server that was never
    spoken to has nothing to finish, and may still be booting (not reading stdin yet): no grace for it.

    On asyncio the work runs as a task of its own, awaited through `asyncio.shield`: an anyio shield does
    not stop a native `task.cancel()` (Textual cancels its workers that way, more than once at exit), so a
    cancelled caller would otherwise abandon the server between SIGTERM and SIGKILL. The task runs on
    while the loop runs; if the loop closes first, the group stays registered for the exit-time net.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # another event loop (trio): its shield is real
        await _stop_server_process(process, eof_grace)
        return
    task = loop.create_task(_stop_server_process(process, eof_grace))
    _stopping.add(task)
    task.add_done_callback(_stopping.discard)
    await asyncio.shield(task)


async def settle_server_stops(seconds: float = EOF_GRACE + TERM_GRACE + _KILL_REAP) -> None:
    """Wait (at most `seconds`) for the stops still running on their own to finish.

    A caller that was cancelled left its stop running (see `stop_server_process`); the app waits here at
    unmount, while its loop still runs, so a quit stops the servers itself instead of leaving them to the
    exit-time net.
    """
    pending = set(_stopping)
    if pending:
        await asyncio.wait(pending, timeout=seconds)


async def _stop_server_process(process: Any, eof_grace: float) -> None:
    pgid = process.pid
    stopped = False
    try:
        await server_process.close_pipe(process.stdin)
        await server_process.wait_for_exit(process, eof_grace)
        if process.returncode is None or _group_alive(pgid):
            await _terminate_group(process, pgid)
        stopped = True  # exited, or SIGKILLed: at most zombies are left for their parent to reap
        await server_process.close_pipe(process.stdout)  # a kill survivor may hold the pipe: poison it
        server_process.close_transport(process)
    finally:
        if stopped or not _group_alive(pgid):
            _forget_group(pgid)  # else the exit-time safety net tries again


async def _terminate_group(process: Any, pgid: int) -> None:
    """SIGTERM the group, wait until it is gone (at most TERM_GRACE), SIGKILL whatever is left."""
    _signal_group(pgid, signal.SIGTERM)
    deadline = anyio.current_time() + TERM_GRACE
    while _group_alive(pgid) and anyio.current_time() < deadline:
        _ = process.returncode  # reading it lets the loop reap the leader, which ends the group sooner
        await anyio.sleep(_POLL)
    if _group_alive(pgid):
        _signal_group(pgid, signal.SIGKILL)
    await server_process.wait_for_exit(process, _KILL_REAP)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    """True while any process (a zombie too) is in the group; only ESRCH proves it is gone."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _register_group(pgid: int, name: str) -> None:
    global _atexit_registered
    with _live_lock:
        _live_groups[pgid] = name
        if not _atexit_registered:
            atexit.register(stop_leftover_servers)
            _atexit_registered = True


def _forget_group(pgid: int) -> None:
    with _live_lock:
        _live_groups.pop(pgid, None)


def live_server_groups() -> dict[int, str]:
    """Process groups of stdio servers not (yet) known to be stopped: group id -> server name."""
    with _live_lock:
        return dict(_live_groups)


def stop_leftover_servers(grace: float = TERM_GRACE) -> list[str]:
    """The safety net: SIGTERM every registered group, wait up to `grace`, SIGKILL what is left.

    Synchronous, for after the event loop is gone (after `app.run()`, at interpreter exit) and for a
    signal about to end the process (`exit_signals`). Returns the names of the servers that were still
    running. A group stays registered until it was killed: a signal that interrupts this net runs it
    again in full, and the process it ends leaves nothing behind.
    """
    with _live_lock:
        groups = dict(_live_groups)
    alive = {pgid: name for pgid, name in groups.items() if _group_alive(pgid)}
    for pgid in alive:
        _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while any(_group_alive(pgid) for pgid in alive) and time.monotonic() < deadline:
        _reap_leaders(alive)
        time.sleep(_POLL)
    for pgid in alive:
        if _group_alive(pgid):
            _signal_group(pgid, signal.SIGKILL)
    _reap_leaders(alive)
    with _live_lock:
        for pgid in groups:
            _live_groups.pop(pgid, None)
    return list(alive.values())


def _reap_leaders(pgids: Iterable[int]) -> None:
    """Collect exited group leaders (our children: a leader's pid is its group id), so their zombies do
    not keep a group looking alive once no event loop reaps them. Only these pids, never any child."""
    for pid in pgids:
        with suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def _record_size(message: Any, size: int, sizes: ResponseSizes) -> None:
    """Note an answer's size on the wire by its id, for the listing's bytes bound."""
    inner = getattr(message, "message", None)  # none in an `UnreadableMessage`
    ident = getattr(inner, "id", None)
    if ident is not None and not hasattr(inner, "method"):
        sizes.record(ident, size)


def _release_marker() -> Any:
    """A response to an id no request has: the SDK drops it (see `deliver`)."""
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    return SessionMessage(types.JSONRPCResponse(jsonrpc="2.0", id="mcp-url-explorer:release", result={}))


async def _discard(process: Any) -> None:
    """Keep reading (and dropping) stdout after the session is gone, so the server never blocks writing."""
    with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        while True:
            await process.stdout.receive(_CHUNK)


class StderrPump:
    """Copies a server's stderr to its log file with the spec's secrets masked.

    A thread, because the child writes into a pipe at its own pace and a 5 MB flood must not cost the
    event loop anything. A secret split across two reads is still masked: the tail that could begin a
    secret is held back until the next read decides it.
    """

    def __init__(self, log_path: Path, secrets: Sequence[str]) -> None:
        self.log_path = log_path
        self.secrets = [s.encode("utf-8", errors="replace") for s in secrets]
        self.finished = threading.Event()
        self._read_fd, self._write_fd = os.pipe()
        self._thread = threading.Thread(target=self._run, name="stderr-pump", daemon=True)

    def child_end(self) -> IO[Any]:
        """The write end, as a file object for the child's stderr (closed by the caller after spawning)."""
        return open(self._write_fd, "wb", closefd=True)

    def close_reader(self) -> None:
        os.close(self._read_fd)
        self.finished.set()

    def start(self) -> None:
        self._thread.start()

    async def settle(self, timeout: float = 0.5) -> None:
        """Wait (briefly) until everything the server wrote so far is in the log: it exited, pipe at EOF."""
        if not self.finished.is_set():
            await anyio.to_thread.run_sync(self.finished.wait, timeout)

    def _run(self) -> None:
        held = b""
        try:
            with self.log_path.open("ab") as log:
                while True:
                    chunk = os.read(self._read_fd, 65536)
                    if not chunk:
                        break
                    ready, held = mask_secrets(held + chunk, self.secrets)
                    log.write(ready)
                    log.flush()
                log.write(mask_secrets(held, self.secrets, final=True)[0])
        except OSError:
            pass
        finally:
            with suppress(OSError):
                os.close(self._read_fd)
            self.finished.set()


def mask_secrets(data: bytes, secrets: Sequence[bytes], *, final: bool = False) -> tuple[bytes, bytes]:
    """`(ready, held)`: `ready` has every whole secret replaced by `***`; `held` might begin one.

    Secrets are replaced longest first (a value containing another is masked whole). Unless `final`,
    the longest tail of `data` that is a proper prefix of a secret is held back for the next chunk.
    """
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            data = data.replace(secret, MASK.encode())
    keep = 0
    if not final:
        for secret in secrets:
            for size in range(min(len(secret) - 1, len(data)), keep, -1):
                if data.endswith(secret[:size]):
                    keep = size
                    break
    return data[: len(data) - keep], data[len(data) - keep :]
