"""Where things are: the repository, the test fixtures."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
LOOPBACK_PRELOAD = FIXTURES / "loopback.cjs"  # `node --require` it: test servers bind to 127.0.0.1 only
