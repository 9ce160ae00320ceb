"""The hex dump of the preview uses a wide pane: 32 bytes a line where they fit (144 cells), 16 at 80
columns, and the byte at the top of the view stays at the top when the width changes. Before, 16 bytes
was the most, and a 200-column pane showed a dump in its left half."""

from __future__ import annotations

import re

import pytest

from tests.test_preview import PreviewApp, item, screen_lines, settle, show

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

DUMP_LINE = re.compile(r"^[0-9a-f]{8}  ")
DATA = bytes(range(256)) * 16  # 4 KiB: the most the preview dumps


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def dump_lines(app: PreviewApp) -> list[str]:
    """The dump's lines on screen, top first."""
    return [line for line in screen_lines(app) if DUMP_LINE.match(line)]


async def test_bytes_per_line_follow_the_width_and_the_top_byte_stays() -> None:
    app = PreviewApp()
    async with app.run_test(size=(80, 30)) as pilot:
        await show(pilot, item(blob=DATA, mime="application/octet-stream"))
        lines = dump_lines(app)
        assert lines[0].startswith("00000000  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  |"), lines[0]
        assert lines[1].startswith("00000010  "), lines[1]  # 16 bytes a line at 80 columns

        await pilot.resize_terminal(200, 30)
        await settle(pilot)
        lines = dump_lines(app)
        assert lines[1].startswith("00000020  "), lines[1]  # 32 bytes a line
        groups = "  ".join(" ".join(f"{b:02x}" for b in range(at, at + 8)) for at in range(0, 32, 8))
        assert lines[0] == f"00000000  {groups}  |{'.' * 32}|", lines[0]

        await pilot.resize_terminal(80, 30)
        await settle(pilot)
        assert dump_lines(app)[1].startswith("00000010  ")

        app.preview.query_one("HexView").scroll_to(y=100, animate=False, immediate=True)  # byte 0x640
        await settle(pilot)
        assert dump_lines(app)[0].startswith("00000640  ")
        for width, second in ((200, "00000660"), (40, "00000644"), (80, "00000650")):
            await pilot.resize_terminal(width, 30)
            await settle(pilot)
            top, following = dump_lines(app)[:2]
            assert top.startswith("00000640  ") and following.startswith(f"{second}  "), (width, top)
