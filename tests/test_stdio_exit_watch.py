"""The stdio reader learns that its server exited without looking every tenth of a second
(`stdio._ExitWatch`): an idle connection makes one receive and sleeps in it, and an exit while a child
holds the pipe still ends the output, through the OS's process descriptor or, where there is none, by
looking at the return code."""

from __future__ import annotations

import os
import sys
from contextlib import suppress
from typing import Any

import anyio
import pytest

from explorer.connection import stdio

pytestmark = pytest.mark.anyio


class _SilentOutput:
    """A stdout that never has anything to say, counting how often it is asked."""

    def __init__(self) -> None:
        self.receives = 0

    async def receive(self, max_bytes: int) -> bytes:
        self.receives += 1
        await anyio.sleep_forever()
        raise AssertionError("unreachable")


class _RunningProcess:
    returncode = None
    pid = os.getpid()  # alive for as long as the test runs

    def __init__(self) -> None:
        self.stdout = _SilentOutput()


async def test_an_idle_reader_asks_for_output_once() -> None:
    process = _RunningProcess()
    watch = stdio._ExitWatch()
    with anyio.move_on_after(0.6):
        await stdio._next_chunk(process, watch)
    assert process.stdout.receives == 1


@pytest.mark.skipif(sys.platform != "linux", reason="a POSIX shell and its job control")
@pytest.mark.parametrize("descriptors", [True, False], ids=["process descriptor", "return code"])
async def test_an_exit_ends_the_output_while_a_child_holds_the_pipe(
    descriptors: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not descriptors:
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    process: Any = await anyio.open_process(
        ["sh", "-c", "sleep 60 & echo ready; sleep 0.2"], start_new_session=True
    )
    watch = stdio._ExitWatch()
    chunks: list[bytes | None] = []
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(watch.run, process)
            with anyio.fail_after(30):  # a hang guard: the exit comes after 0.2 s
                while True:
                    chunk = await stdio._next_chunk(process, watch)
                    chunks.append(chunk)
                    if chunk is None:
                        break
            group.cancel_scope.cancel()
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, 9)
        await process.aclose()
    assert watch.exited
    assert b"".join(c for c in chunks if c) == b"ready\n"
