"""`m` (continue incomplete listings) with only a failed server says it failed and how to reconnect.

The root row names a failed server among the incomplete ones; `m` then said "No listing is incomplete.",
which the row contradicted.
"""

from __future__ import annotations

import sys

import pytest

from tests.app_helpers import demo_spec, settled_app, stdio_spec

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def test_m_with_a_failed_server_says_it_failed_and_which_key_reconnects() -> None:
    failing = stdio_spec("broken", f"{sys.executable} -c 'raise SystemExit(3)'")
    async with settled_app(demo_spec("demo"), failing, size=(120, 36)) as (app, pilot):
        await pilot.press("m")
        await pilot.pause()
        said = [str(n.message) for n in app._notifications]
        assert "No listing stopped early; broken failed: R reconnects." in said
        assert "No listing is incomplete." not in said
