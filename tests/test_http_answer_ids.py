"""Streamable HTTP answers that name another request, or none, and redirects the SDK does not follow: the
request fails at once with what the server did.

Before, a JSON answer naming another request (or an error naming none, id null) was dropped by the session
and its request waited for its timeout ("the server did not answer"), the server's own error lost; and
every redirect not followed was said to go to "another origin", its own URL and a 302 on the same origin
too.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest
from mcp import MCPError

from explorer.connection.errors import describe_exception, redirect_loop, redirect_refusal
from tests.helpers.loopback_http import JsonRpcHandler, tree_against


class _Answering(JsonRpcHandler):
    """`resources/list` is answered by `listed`."""

    server_name = "ids"
    listed: ClassVar[bytes] = b""  # the body of the answer to resources/list, `{id}` its request's id

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if "id" in message and method == "resources/list":
            self.send(200, self.listed.replace(b"{id}", json.dumps(message["id"]).encode()))
        elif "id" in message and method == "server/discover":  # an empty result, as to any other request
            self.reply(message["id"], result={})
        else:
            super().answer(method, message)


def _listed(answer: bytes) -> tuple[int, str, str]:
    """The exit code, stdout and stderr of `tree` against a server answering resources/list with `answer`."""

    class Handler(_Answering):
        listed = answer

    _, result = tree_against(Handler)
    return result.code, result.stdout, result.stderr


def test_an_answer_to_another_request_fails_the_request_at_once() -> None:
    code, _, said = _listed(b'{"jsonrpc": "2.0", "id": 9999, "result": {"resources": []}}')
    assert code == 1
    assert "listing resources: the server's answer to request " in said
    assert " is an answer to request 9999" in said and "timeout" not in said


def test_an_error_naming_no_request_fails_it_with_the_servers_own_error() -> None:
    error = (
        b'{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "\\u001b[2JInvalid Request"}}'
    )
    code, _, said = _listed(error)
    assert code == 1
    assert "listing resources: the server answered error -32600: \\x1b[2JInvalid Request" in said
    assert "\x1b" not in said and "timeout" not in said


def test_a_result_naming_no_request_fails_it_at_once() -> None:
    code, _, said = _listed(b'{"jsonrpc": "2.0", "id": null, "result": {"resources": []}}')
    assert code == 1
    assert "is a result naming no request (id null)" in said


@pytest.mark.parametrize(
    "answer",
    [
        b'{"jsonrpc": "2.0", "id": "{id}", "result": {"resources": [{"uri": "x://a", "name": "a"}]}}',
        b'{"result": {"resources": [{"uri": "x://a", "name": "a"}]}, "jsonrpc": "2.0", "id": {id}}',
        b'  {"id": {id}, "jsonrpc": "2.0", "result": {"resources": [{"uri": "x://a", "name": "a"}]}}',
    ],
    ids=["id-as-string", "id-at-the-end", "id-first"],
)
def test_answers_naming_their_request_otherwise_are_still_read(answer: bytes) -> None:
    """An id written as a string of the number (the SDK reads it as the number), or where the head is not
    looked at, is no refusal."""
    code, out, said = _listed(answer)
    assert code == 0, said
    assert "x://a" in out


# ------------------------------------------------------------------------------------------ redirects


class _Redirecting(_Answering):
    """Every POST to /mcp is redirected: `status` to `location`."""

    status: ClassVar[int] = 307
    location: ClassVar[str] = "/mcp"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send(self.status, headers=[("Location", self.location)])


def _redirected(status: int, location: str) -> tuple[str, str]:
    """The server's URL and what `tree` said when every POST is redirected so."""

    class Handler(_Redirecting):
        pass

    Handler.status, Handler.location = status, location
    url, result = tree_against(Handler)
    assert result.code == 1, result
    return url, result.stderr


def test_a_302_on_the_same_origin_says_the_post_would_become_a_get() -> None:
    url, said = _redirected(302, "/other")
    host = url.removesuffix("/mcp")
    assert f"the server redirected to {host}/other: not followed (the POST would become a GET)" in said
    assert "another origin" not in said


def test_a_redirect_to_itself_says_it_is_a_loop() -> None:
    url, said = _redirected(307, "/mcp")
    assert f"the server redirected to {url}: not followed (it redirects to itself, a loop)" in said
    assert "another origin" not in said


def test_a_redirect_elsewhere_says_another_origin() -> None:
    _, said = _redirected(307, "http://127.0.0.1:9/mcp")
    assert "the server redirected to http://127.0.0.1:9/mcp: not followed (another origin)" in said


@pytest.mark.parametrize(
    ("method", "url", "status", "location", "why"),
    [
        ("POST", "https://h/mcp", 308, "http://h/mcp", "it would downgrade HTTPS to plain HTTP"),
        ("POST", "http://h/mcp", 301, "http://h/other", "the POST would become a GET"),
        ("POST", "http://h/mcp", 303, "http://h/other", "the POST would become a GET"),
        ("GET", "http://h/sse", 302, "http://h:8080/sse", "another origin"),
        ("POST", "http://h/mcp", 307, "http://u:p@h/mcp", "it names a user of its own"),
        ("POST", "http://h/mcp", 307, "https://h/mcp", None),  # the upgrade the SDK follows
        ("GET", "http://h:80/sse", 302, "http://H/sse/", None),
    ],
)
def test_why_a_redirect_is_not_followed(
    method: str, url: str, status: int, location: str, why: str | None
) -> None:
    assert redirect_refusal(method, url, status, location) == why


def test_a_redirect_followed_until_the_budget_ran_out_is_a_loop() -> None:
    assert redirect_loop("http://h/mcp", "http://h/mcp") == "it redirects to itself, a loop"
    assert redirect_loop("http://h/mcp", "http://h/b") == "too many redirects, a loop?"


def test_the_sdks_downgrade_is_said_as_such() -> None:
    sdk_said = (
        "Redirect to http://h/mcp not followed: it would downgrade this HTTPS endpoint to plain HTTP.\n"
        "The server is likely behind a TLS-terminating proxy"
    )
    fault = describe_exception(MCPError(-32600, sdk_said), action="connecting")
    said = "the server redirected to http://h/mcp: not followed (it would downgrade HTTPS to plain HTTP)"
    assert fault.message == f"connecting: {said}"
