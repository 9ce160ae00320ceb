"""A request refused with HTTP 431 (Request Header Fields Too Large) says that its headers were too large
for the server, and names the headers the user gave (`-H`, a config's headers) by name, never their values
(they can be secrets), with their total size: they are the likely cause.

Before: "the server answered with an HTTP error (HTTP 431 Request Header Fields Too Large)", or, when the
first request was refused, that the legacy HTTP+SSE transport failed too and "is the URL right?".
"""

from __future__ import annotations

from typing import Any, ClassVar

from tests.helpers.loopback_http import JsonRpcHandler, tree_against

MOST_HEADERS = 8 * 1024  # what the server takes of a request's headers
SECRET = "s3cr3t-" + "x" * 12_000


class _SmallHeaders(JsonRpcHandler):
    """A request whose headers pass `MOST_HEADERS` bytes is answered 431, but only from `refused_from` on
    (empty: every request); a method not listed here is unknown (-32601)."""

    server_name = "small-headers"
    refused_from: ClassVar[str] = ""

    def answer(self, method: str, message: dict[str, Any]) -> None:
        if self.too_large() and (not self.refused_from or method == self.refused_from):
            self.send(431, b"<html><body>Request Header Fields Too Large</body></html>", "text/html")
        else:
            super().answer(method, message)

    def result(self, method: str, message: dict[str, Any]) -> object | None:
        return self.results().get(method)

    def results(self) -> dict[str, object]:
        return {**super().results(), "resources/list": {"resources": [{"uri": "x://a/1", "name": "one"}]}}

    def do_GET(self) -> None:
        self.send(431 if self.too_large() else 405)

    def too_large(self) -> bool:
        return sum(len(name) + len(value) + 4 for name, value in self.headers.items()) > MOST_HEADERS


def _tree(refused_from: str, *more: str) -> tuple[int, str]:
    """The exit code and stderr of `tree` with a big `-H` header, against a server refusing it from
    `refused_from` on."""

    class Handler(_SmallHeaders):
        pass

    Handler.refused_from = refused_from
    _, result = tree_against(Handler, "-H", f"X-Api-Token: {SECRET}", *more)
    assert SECRET[:20] not in result.stderr and SECRET[:20] not in result.stdout  # a value is never shown
    return result.code, result.stderr


def test_a_431_to_connecting_names_the_users_headers() -> None:
    code, said = _tree("", "-H", "X-Team: blue")
    assert code == 1
    assert "the server answered HTTP 431 Request Header Fields Too Large" in said, said
    assert "the request's headers were too large for the server" in said, said
    assert "the headers given with -H or in the config (X-Api-Token, X-Team: 12.0 kB in all) are the" in said
    assert "legacy HTTP+SSE" not in said, said  # headers too large are no reason to try another transport


def test_a_431_to_a_later_request_names_the_users_headers() -> None:
    code, said = _tree("resources/list")
    assert code == 1
    assert "listing resources: the server answered HTTP 431 Request Header Fields Too Large" in said, said
    assert "the request's headers were too large for the server" in said, said
    assert (
        "the headers given with -H or in the config (X-Api-Token: 12.0 kB in all) are the likely" in said
    ), said
    assert "answered with an HTTP error" not in said


def test_a_431_to_the_legacy_event_streams_get_names_the_users_headers() -> None:
    code, said = _tree("", "--sse")
    assert code == 1
    assert (
        "connecting: the server answered HTTP 431 Request Header Fields Too Large to the event stream's GET: "
        "the request's headers were too large for the server"
    ) in said, said
    assert "the headers given with -H or in the config (X-Api-Token: 12.0 kB in all) are the likely" in said
    assert "without --sse" not in said, said
