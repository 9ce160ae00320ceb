"""Give the memory of a big message back to the system once it is freed.

Why: Python frees a 50 MB read as soon as nothing refers to it, but the C allocator (glibc's malloc) may
keep the pages: once a big block has been freed, it serves blocks of up to 32 MB from its heap instead of
mapping them, and returns heap memory only when more than 64 MB is free at its top. The pieces of one big
message (the bytes read, the line, the parsed text) then stay in the process for good, 30 to 50 MB
measured after one 50 MB read. `malloc_trim` hands every free page back. It walks the allocator's free
lists (a few milliseconds), so it runs only after a message this big, never per page or per key.
Elsewhere than glibc (musl, macOS) it does nothing: those allocators return big blocks themselves.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

BIG_MESSAGE_BYTES = 4 * 1024 * 1024  # a message at least this big is worth the trim


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None where there is no glibc."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):
        return None  # musl and others have no malloc_trim
    return trim


def give_back_freed_memory() -> bool:
    """Return the allocator's free pages to the system; True when it could (glibc)."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


def read_result_size(raw: Mapping[str, Any]) -> int:
    """About how many bytes a `resources/read` result's texts and blobs take (to tell a big one)."""
    contents = raw.get("contents")
    if not isinstance(contents, list):
        return 0
    size = 0
    for item in contents:
        if isinstance(item, Mapping):
            for key in ("text", "blob"):
                value = item.get(key)
                if isinstance(value, str):
                    size += len(value)
    return size
