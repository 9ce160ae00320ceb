"""Progress is labelled by the tokens the explorer issued; any other is said to be unsolicited.

Before, every `notifications/progress` was shown as the progress of "request <token>": a token the
explorer never sent read `progress 1/2 ... (request never-sent)`, and a token equal to the id of a request
in flight passed for that request's progress. Now the connection's `issued_tokens` (token -> what the
request is) labels it as it arrives; anything else is "unsolicited progress (token X)".
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.widgets import Log, TabbedContent

from explorer.config import ServerSpec
from explorer.connection.live import Progress, news_from_notification
from explorer.connection.supervisor import Settings, Supervisor
from explorer.model.catalogue import ServerStatus
from explorer.screens.server_overview import ServerOverview, voice_line
from tests.app_helpers import main_screen, settled_app, stdio_spec, wait_for
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.anyio

# Progress for a token never sent, and, while answering logging/setLevel (a request that asks for no
# progress), for a token equal to that request's own id.
SERVER = """
CAPABILITIES = {"resources": {}, "logging": {}}
NAME = "chatty"
def progress(token, message):
    send({"jsonrpc": "2.0", "method": "notifications/progress",
          "params": {"progressToken": token, "progress": 1, "total": 2, "message": message}})
def answer(method, params):
    if method == "logging/setLevel":
        progress(_id, "during setLevel %s" % _id)
        return {}
    if method == "resources/list":
        progress("never-sent", "out of nowhere")
        return {"resources": [{"uri": "x://quiet/one", "name": "one"}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": []}
    return None
"""


class Quiet:
    def __getattr__(self, name: str) -> Any:
        return lambda *args: None


def progress_news(token: object) -> Progress:
    params = SimpleNamespace(progress_token=token, progress=1, total=2, message="step")
    news = news_from_notification(SimpleNamespace(method="notifications/progress", params=params))
    assert isinstance(news, Progress)
    return news


def test_progress_is_labelled_by_the_tokens_the_connection_issued() -> None:
    spec = ServerSpec(name="s", transport="stdio", command="true")
    supervisor = Supervisor([spec], Settings(), Quiet())
    # What the connection keeps while its requests run (`ServerConnection.issued_tokens`).
    connection = SimpleNamespace(issued_tokens={7: "resources/read x://a"})
    supervisor._lives["s"].conn = connection  # type: ignore[assignment]
    for token in (7, 8, "never-sent"):
        supervisor._news("s", progress_news(token))
    status = ServerStatus(spec)
    lines = [voice_line(news, status) for news in supervisor.voice("s")]
    assert lines[0].endswith(" progress 1/2 (resources/read x://a) step")
    assert lines[1].endswith(" unsolicited progress (token 8) 1/2 step")
    assert lines[2].endswith(" unsolicited progress (token never-sent) 1/2 step")


def test_without_issued_tokens_every_progress_is_unsolicited() -> None:
    supervisor = Supervisor([ServerSpec(name="s", transport="stdio", command="true")], Settings(), Quiet())
    supervisor._news("s", progress_news(1))
    [news] = supervisor.voice("s")
    assert isinstance(news, Progress) and news.request is None


@pytest.mark.slow
async def test_the_log_tab_says_progress_nobody_asked_for_is_unsolicited(tmp_path: Path) -> None:
    async with settled_app(stdio_spec("chatty", tiny_server(tmp_path, SERVER))) as (app, pilot):
        main_screen(app).show_overview("chatty")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerOverview))
        await wait_for(pilot, lambda: bool(app.screen.query(TabbedContent)))
        app.screen.query_one(TabbedContent).active = "tab-log"

        def lines() -> list[str]:
            logs = list(app.screen.query("#voice").results(Log))
            return [str(line) for line in logs[0].lines] if logs else []

        await wait_for(pilot, lambda: len(lines()) >= 2)
        shown = lines()
        assert any("unsolicited progress (token never-sent) 1/2 out of nowhere" in line for line in shown)
        during = [
            re.search(r"unsolicited progress \(token (\d+)\) 1/2 during setLevel (\d+)", s) for s in shown
        ]
        found = [m for m in during if m is not None]
        assert found and found[0].group(1) == found[0].group(2), shown
        assert not any("(request " in line for line in shown), shown
