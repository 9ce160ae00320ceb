"""The TUI's exit code says when the app stopped on an error: a crash exited 0, as if all went well."""

from __future__ import annotations

from typing import Any

import pytest

from explorer.app import ExplorerApp, launch_tui


def test_an_app_stopped_by_an_error_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    run = ExplorerApp.run

    def headless(self: ExplorerApp, *args: Any, **kwargs: Any) -> Any:
        return run(self, headless=True, size=(80, 24))

    def broken_mount(self: ExplorerApp) -> None:
        raise RuntimeError("a bug in the app")

    monkeypatch.setattr(ExplorerApp, "run", headless)
    monkeypatch.setattr(ExplorerApp, "on_mount", broken_mount)
    assert launch_tui(None, [], protocol="auto", timeout=5) == 1


def test_an_app_quit_by_the_user_exits_0(monkeypatch: pytest.MonkeyPatch) -> None:
    run = ExplorerApp.run

    async def quit_at_once(pilot: Any) -> None:
        await pilot.press("q")

    def headless(self: ExplorerApp, *args: Any, **kwargs: Any) -> Any:
        return run(self, headless=True, size=(80, 24), auto_pilot=quit_at_once)

    monkeypatch.setattr(ExplorerApp, "run", headless)
    assert launch_tui(None, [], protocol="auto", timeout=5) == 0
