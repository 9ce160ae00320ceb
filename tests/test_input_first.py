"""A listing's next page waits one frame after the user's input (and only then), noted as soon as the input
reaches the app; a filter scan keeps the cyclic collector off while it runs, and the collector comes back
when the last scan ends."""

from __future__ import annotations

import gc

import pytest

from explorer.input_first import InputFirst
from explorer.model.heap import scan_without_collector

pytestmark = pytest.mark.anyio


async def test_a_page_waits_a_frame_once_per_input() -> None:
    gate = InputFirst()
    assert gate.gate() is None  # nothing pressed: pages flow
    gate.note_input()
    pause = gate.gate()
    assert pause is not None
    await pause
    assert gate.gate() is None  # that input was served: the next pages flow again
    gate.note_input()
    gate.note_input()
    second = gate.gate()
    assert second is not None
    await second
    assert gate.gate() is None


def test_a_key_posted_to_the_app_is_noted_before_the_app_handles_it() -> None:
    """The listing's gate must see a key from the moment it reaches the app's queue: a page's parse and
    merge then stop at their next slice instead of running while the key waits its turns of the loop."""
    from textual import events

    from explorer.app import ExplorerApp

    app = ExplorerApp([], remember_theme=False)
    assert app.input_first.owed() == 0.0
    app.post_message(events.Key("down", None))  # queued, not handled: the app is not even running
    assert app.input_first.owed() > 0.0


def test_nested_scans_keep_the_collector_off_until_the_last_ends() -> None:
    assert gc.isenabled()
    with scan_without_collector():
        assert not gc.isenabled()
        with scan_without_collector():  # another scan (another thread, in the app)
            assert not gc.isenabled()
        assert not gc.isenabled()  # the first one still runs
    assert gc.isenabled()


def test_a_scan_leaves_a_disabled_collector_disabled() -> None:
    gc.disable()
    try:
        with scan_without_collector():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
