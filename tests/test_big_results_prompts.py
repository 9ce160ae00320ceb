"""A prompt result of 10,000 messages: a page of them is mounted, the rest on demand, page by page.

Counts the message widgets mounted and reads what the view shows (never time).
"""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from explorer.widgets.prompt_result import MESSAGE_PAGE, PromptResultView, ShowMoreMessages


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


pytestmark = pytest.mark.anyio


class ViewApp(App[None]):
    def compose(self) -> ComposeResult:
        yield PromptResultView()


def many(count: int) -> dict[str, object]:
    return {
        "messages": [
            {"role": "user" if i % 2 else "assistant", "content": {"type": "text", "text": f"message {i}"}}
            for i in range(count)
        ]
    }


async def test_10000_messages_mount_one_page_and_more_come_on_demand() -> None:
    app = ViewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(PromptResultView)
        view.show_result("srv", "many", many(10_000))
        await pilot.pause()
        assert len(view.query(".pr-message")) == MESSAGE_PAGE == 50
        assert "message 49" in view.text and "message 50" not in view.text
        assert "+9,950 more messages. Press enter here or m to show the next 50." in view.text

        view.focus()
        await pilot.press("m")
        await pilot.pause()
        assert len(view.query(".pr-message")) == 100
        assert "51. assistant" in view.text and "message 99" in view.text and "message 100" not in view.text
        assert "+9,900 more messages" in view.text and "+9,950" not in view.text

        more = view.query_one(ShowMoreMessages)
        more.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert len(view.query(".pr-message")) == 150
        assert app.focused is view.query_one(ShowMoreMessages)  # enter again shows the next page


async def test_the_last_page_leaves_no_more_line_and_a_new_result_starts_over() -> None:
    app = ViewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(PromptResultView)
        view.show_result("srv", "some", many(MESSAGE_PAGE + 3))
        await pilot.pause()
        assert "+3 more messages. Press enter here or m to show the next 3." in view.text
        view.action_show_more()
        await pilot.pause()
        assert len(view.query(".pr-message")) == MESSAGE_PAGE + 3 and not view.query(ShowMoreMessages)
        assert view.check_action("show_more", ()) is False
        view.show_result("srv", "few", many(2))
        await pilot.pause()
        assert len(view.query(".pr-message")) == 2 and "more messages" not in view.text
