"""SIGHUP and SIGTERM stop the stdio servers before they end the process.

Their default action ends Python at once: no `finally`, no `atexit`, so the exit-time safety net
(`stdio.stop_leftover_servers`) never ran, and a server that ignores stdin EOF and SIGTERM outlived the
explorer when its terminal closed or someone ran `kill`. `install()` (the program's entry point calls it,
for the TUI and every command) replaces only a default action: a signal ignored (`nohup`) or handled by
someone else is left alone. The handler runs the safety net (bounded: SIGTERM, `TERM_GRACE`, SIGKILL),
then the signal's default action ends the process as before (a shell reports 129 or 143).

One exception, for the TUI (`graceful_exit`): on SIGTERM the terminal is still there, so after the
servers are stopped the app may end itself and restore the terminal; if it has not ended within
`GRACEFUL_LIMIT`, the default action ends it anyway. Never on SIGHUP: the terminal is gone, and writing
to it could block.

The handler runs in the main thread between two bytecodes of whatever ran there: it touches no event
loop (the graceful exit is scheduled with `call_soon_threadsafe`, which is safe there), imports nothing,
and takes only the registry's re-entrant lock.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType

GRACEFUL_LIMIT = 3.0  # for the TUI to end itself after SIGTERM, once its servers are stopped

_STOPPING_SERVERS = "explorer.connection.stdio"  # the registry lives there; never imported from here
_handling = False  # the servers are being stopped: a second signal waits for the first to end the process
_graceful: Callable[[int], bool] | None = None


def exit_signals() -> list[signal.Signals]:
    """The signals handled here, where the platform has them (none on Windows)."""
    if sys.platform == "win32":  # pragma: no cover - no SIGHUP, and SIGTERM cannot be caught there
        return []
    return [signal.SIGHUP, signal.SIGTERM]


def install() -> None:
    """Stop the servers on SIGHUP and SIGTERM before they end the process (main thread only; a signal
    ignored or handled by someone else keeps its handling)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in exit_signals():
        if signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, _on_exit_signal)


def graceful_exit(end: Callable[[int], bool] | None) -> None:
    """`end(code)` asks the running app to exit with `code` (128 + SIGTERM) and says whether it could;
    None: no app to ask (the default action ends the process)."""
    global _graceful
    _graceful = end


def stop_servers() -> None:
    """The safety net, if any server was ever started (else its module is not even imported)."""
    stdio = sys.modules.get(_STOPPING_SERVERS)
    stop = getattr(stdio, "stop_leftover_servers", None)
    if stop is not None:
        stop()


def _on_exit_signal(signum: int, _frame: FrameType | None) -> None:
    global _handling
    if _handling:  # the first signal is stopping the servers, and ends the process after
        return
    _handling = True
    try:
        stop_servers()
    except Exception:  # nothing may keep the process from ending
        pass
    finally:
        _handling = False
        signal.signal(signum, signal.SIG_DFL)  # the handler runs in the main thread, where this may be set
        if not (signum == signal.SIGTERM and _end_gracefully(signum)):
            end_by_default(signum)


def _end_gracefully(signum: int) -> bool:
    """Ask the app to exit; the default action follows if it has not within `GRACEFUL_LIMIT`."""
    end = _graceful
    try:
        if end is None or not end(128 + signum):
            return False
    except Exception:
        return False
    watchdog = threading.Timer(GRACEFUL_LIMIT, end_by_default, args=(signum,))
    watchdog.daemon = True
    watchdog.start()
    return True


def end_by_default(signum: int) -> None:
    """End the process by the signal's default action (already restored), so its parent sees what ended
    it; any thread may call it."""
    os.kill(os.getpid(), signum)
    os._exit(128 + signum)  # not reached: the signal ends the process before kill() returns
