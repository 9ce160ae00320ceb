"""The protocol log's rows keep their columns whatever a server is called: a long name is cut to its
column with an ellipsis (the sanitizer's `[+N chars]` mark was wider than the one character it hid, and
shifted every column after it), and a hostile one stays escaped."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from explorer.model.frames import Frame
from explorer.widgets.frame_list import frame_columns


def row(server: str) -> str:
    frame = Frame(
        seq=1, at=0.0, server=server, direction="send", message={}, method="ping", id=1, kind="request"
    )
    return frame_columns(frame, {})


@pytest.mark.parametrize(
    "server",
    ["demo", "server-everything", "a-very-long-server-name-indeed", "日本語のサーバー名前", "x\x1b[2Jy"],
)
def test_the_columns_after_the_server_start_at_the_same_cell(server: str) -> None:
    line = row(server)
    clock_and_gap = len("00:00:00.000  ")
    rest = line[clock_and_gap:]
    server_cells = rest.split(" → ")[0] if " → " in rest else rest[:16]
    assert cell_len(server_cells) == 16
    assert line.endswith("ping #1")
    assert "\x1b" not in line and "[+" not in line


def test_a_long_name_ends_with_an_ellipsis_and_a_short_one_whole() -> None:
    assert row("server-everything")[14:31] == "server-everythi… "
    assert row("demo")[14:31] == "demo             "
