"""A Streamable HTTP server that gives no session id and answers a later request HTTP 404 is said to have
answered HTTP 404 to that request (its endpoint is gone, or the URL is wrong), not "-32601: Not Found",
the error the SDK makes up for it (as if the method did not exist). A 404 to `resources/templates/list`
is that failure too, never "no templates"; a JSON-RPC -32601 answer still means the server has none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from tests.helpers.loopback_http import METHOD_NOT_FOUND, JsonRpcHandler, tree_against


class _NoSession(JsonRpcHandler):
    """A request `gone` says is answered 404 (with an HTML page), one `unknown` says with a JSON-RPC -32601
    (in a 200, or `unknown_status`)."""

    server_name = "no-session"
    gone: ClassVar[Callable[[str], bool]]
    unknown: ClassVar[Callable[[str], bool]] = staticmethod(lambda method: False)
    unknown_status: ClassVar[int] = 200

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if "id" in message and type(self).gone(method):
            self.send(404, b"<html><body>Not Found</body></html>", "text/html")
        elif "id" in message and method != "server/discover" and type(self).unknown(method):
            self.reply(message["id"], error=METHOD_NOT_FOUND, status=self.unknown_status)
        else:
            super().answer(method, message)

    def results(self) -> dict[str, object]:
        return {**super().results(), "resources/list": {"resources": [{"uri": "x://a/1", "name": "one"}]}}


def _tree(
    gone: Callable[[str], bool],
    unknown: Callable[[str], bool] = lambda method: False,
    unknown_status: int = 200,
) -> tuple[int, str, str, str]:
    """The exit code, stdout, stderr of `tree`, and the URL, against a server 404ing what `gone` says."""

    class Handler(_NoSession):
        pass

    Handler.gone = staticmethod(gone)
    Handler.unknown = staticmethod(unknown)
    Handler.unknown_status = unknown_status
    url, result = tree_against(Handler)
    return result.code, result.stdout, result.stderr, url


def test_a_404_to_a_later_request_says_the_server_answered_404() -> None:
    code, _, said, url = _tree(lambda method: method == "resources/list")
    assert code == 1
    assert (
        f"listing resources: the server answered HTTP 404 Not Found to resources/list: there is no MCP "
        f"endpoint at {url} (any more), or the URL is wrong; check the URL, then reconnect"
    ) in said, said
    assert "-32601" not in said and "error" not in said.split("listing resources:")[1]


def test_a_404_to_the_templates_listing_is_a_failure_not_no_templates() -> None:
    code, _, said, url = _tree(lambda method: method == "resources/templates/list")
    assert code == 1
    assert (
        "listing templates: the server answered HTTP 404 Not Found to resources/templates/list: there is no "
        f"MCP endpoint at {url} (any more)"
    ) in said, said


@pytest.mark.parametrize("status", [200, 404])
def test_a_json_rpc_method_not_found_to_the_templates_listing_still_means_no_templates(status: int) -> None:
    """A JSON-RPC -32601 error naming the request, in a 200 or as the body of a 404 (some servers say it
    so), is the server's answer: it has no templates."""
    code, out, said, _ = _tree(
        lambda method: False, lambda method: method == "resources/templates/list", status
    )
    assert code == 0, said
    assert "x://a/1" in out
