"""Keep the cyclic garbage collector away from what a big listing leaves alive.

Why: a listing of a million resources leaves a few million tracked objects (entries, tree nodes) that live
until the end. Every full collection walks all of them (0.8 to 2.3 s measured, several times during one
listing), and the interpreter starts one whenever enough objects survived since the last, so the pauses
come back as long as anything allocates. After each page is merged, `after_ingest` collects the young
generations (cheap: only what this page allocated) and freezes everything alive (`gc.freeze`): frozen
objects are never walked again, so a collection costs what happened since the last page, not the size of
the catalogue. Frozen objects are still freed by reference counting as usual; the model holds no cycles
that outlive a removal (a pruned tree node is detached from its parent), so only garbage cycles that
were alive at a freeze would be kept, and the young collection before it leaves few of those.

Writing a big result makes caches that live on (each node's sorted children) and temporaries that are
freed by reference counting, never cycles: `collector_paused` keeps the collector out of that phase
altogether (it was 20 to 30 ms a pass, walking the fresh caches). Importing the MCP SDK builds some fifty
thousand objects that live as long as the process (pydantic models): the same, or a full collection in
the middle of the import takes 20 to 70 ms.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


def after_ingest() -> None:
    """After a page of a listing is merged: collect the young generations, freeze the rest."""
    if not gc.isenabled():
        return
    gc.collect(1)
    gc.freeze()


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection inside the block (for work that makes no reference cycles, or imports).

    What the block left alive is frozen at its end: else the first young collection after it would walk
    all of it at once (37 ms measured after writing a million rows).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.enable()
