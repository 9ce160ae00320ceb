"""Small JSON files the explorer keeps between runs (history, bookmarks), written atomically.

Why one helper: a crash or a full disk must never leave half a file, and a broken file must never break
the feature that reads it. Writes go to a temporary file in the same folder, then `os.replace`; reads of a
missing or unreadable file give None. Nothing here raises on I/O errors.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def read_json(path: Path) -> Any:
    """The parsed file, or None when it is missing, unreadable or not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write_json_atomically(path: Path, data: Any) -> bool:
    """Write `data` as JSON; False (and the old file untouched) when that fails."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(data, ensure_ascii=False, indent=1)
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".tmp", dir=path.parent)
    except (OSError, ValueError):
        return False
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        return False
    return True
