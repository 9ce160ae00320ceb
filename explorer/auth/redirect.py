"""The authorization step of a login: getting the code from the authorization server's redirect.

Three ways (`--auth-flow`):
- `browser`: open the authorization URL in the user's browser (and show it, in case it did not open),
  then wait for the redirect on a loopback listener (`127.0.0.1`, RFC 8252 section 7.3; `localhost`'s
  loopback addresses where the client was registered with a `localhost` redirect URI).
- `print`: show the URL and wait for the redirect the same way.
- `fetch`: the explorer requests the URL itself and takes the code from the redirect's `Location`, for
  authorization servers that approve at once (test servers, CI); a page in between (a login form) is
  an error that says to use another flow.

The browser is opened with its output sent nowhere: a browser that writes to the terminal would wreck
the TUI. Where no graphical browser can be opened (no display on Linux, no opener), `browser` is not the
default; `default_flow()` says which is.
"""

from __future__ import annotations

import contextlib
import errno
import hmac
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, urljoin, urlsplit

import anyio
import anyio.abc

from explorer.model.login_prompt import AuthFlow

AUTH_FLOWS: tuple[AuthFlow, ...] = ("browser", "print", "fetch")
CALLBACK_PATH = "/callback"
_MAX_REQUEST_HEAD = 16 * 1024
_MAX_HOPS = 10
_PAGE = (
    "<!doctype html><meta charset=utf-8><title>mcp-url-explorer</title>"
    "<body style='font-family:sans-serif'><p>{message}</p><p>You can close this tab.</p></body>"
)


STATE_MISMATCH = (
    "the login's answer came back with another state than it was sent with (an old tab, or another "
    "login): log in again"
)


class RedirectError(Exception):
    """The authorization step failed; the message is one sentence for the user."""


@dataclass(frozen=True)
class Redirected:
    """What the authorization server's redirect carried."""

    code: str | None
    state: str | None
    iss: str | None
    error: str | None = None
    error_description: str | None = None


def default_flow() -> AuthFlow:
    """`browser` where one can be opened (a desktop session), else `print`."""
    return "browser" if can_open_browser() else "print"


def can_open_browser() -> bool:
    if sys.platform == "darwin":
        return shutil.which("open") is not None
    if sys.platform == "win32":
        return True
    has_display = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return has_display and shutil.which("xdg-open") is not None


def open_browser(url: str) -> bool:
    """Open `url` in the desktop's browser, its output discarded; False when that could not be done."""
    if not can_open_browser():
        return False
    if sys.platform == "win32":
        try:
            os.startfile(url)  # type: ignore[attr-defined,unused-ignore]
        except OSError:
            return False
        return True
    opener = "open" if sys.platform == "darwin" else "xdg-open"
    try:
        subprocess.Popen(
            [opener, url],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return False
    return True


def free_port() -> int:
    """A loopback port nobody listens on now (the redirect listener binds it when a login starts)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def port_is_free(port: int) -> bool:
    """Whether the redirect listener could bind `port` now: probed the way it binds (anyio sets
    SO_REUSEADDR off Windows), so a port whose last login's connections wait in TIME_WAIT is free."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        if sys.platform != "win32":
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def redirect_uri_for(port: int, host: str = "127.0.0.1") -> str:
    return f"http://{host}:{port}{CALLBACK_PATH}"


def host_of(redirect_uri: str) -> str:
    """Where the listener for `redirect_uri` binds: `localhost` (every loopback address it names, so a
    browser that tries ::1 first finds it too) or 127.0.0.1."""
    return "localhost" if urlsplit(redirect_uri).hostname == "localhost" else "127.0.0.1"


def port_of(redirect_uri: str) -> int | None:
    parts = urlsplit(redirect_uri)
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost"):
        return None
    try:
        return parts.port
    except ValueError:
        return None


def state_of(url: str) -> str | None:
    """The `state` an authorization URL sends (what its answer must bring back)."""
    values = parse_qs(urlsplit(url).query).get("state")
    return values[0] if values else None


def state_matches(got: str | None, sent: str | None) -> bool:
    """The answer brought back the state the login sent (compared in constant time)."""
    if sent is None:
        return True  # the URL sent none: the SDK's own check decides
    return got is not None and hmac.compare_digest(got.encode("utf-8"), sent.encode("utf-8"))


def parse_redirect(url: str) -> Redirected:
    query = parse_qs(urlsplit(url).query)

    def one(name: str) -> str | None:
        values = query.get(name)
        return values[0] if values else None

    return Redirected(
        code=one("code"),
        state=one("state"),
        iss=one("iss"),
        error=one("error"),
        error_description=one("error_description"),
    )


async def fetch_redirect(authorization_url: str, redirect_uri: str, *, timeout: float) -> Redirected:
    """Request the authorization URL and follow redirects until one goes to `redirect_uri`."""
    import httpx2

    url = authorization_url
    async with httpx2.AsyncClient(timeout=timeout, follow_redirects=False) as client:
        for _ in range(_MAX_HOPS):
            try:
                response = await client.get(url)
            except httpx2.HTTPError as exc:
                raise RedirectError(f"requesting the authorization URL failed ({exc})") from None
            location = response.headers.get("location")
            if response.is_redirect and location:
                url = urljoin(url, location)
                if url.startswith(redirect_uri):
                    return parse_redirect(url)
                continue
            raise RedirectError(
                f"the authorization server answered HTTP {response.status_code} instead of redirecting back "
                "(it wants a person to log in); use --auth-flow browser or --auth-flow print"
            )
    raise RedirectError(f"the authorization server redirected more than {_MAX_HOPS} times")


_NO_SUCH_ADDRESS = {errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT}  # an address family the machine lacks


class LoopbackListener:
    """The redirect listener on `127.0.0.1:port` (or every address of `localhost`): answers the browser
    and hands over the first callback."""

    def __init__(self, port: int, *, expected_state: str | None = None, host: str = "127.0.0.1") -> None:
        self.port = port
        self.host = host
        self.expected_state = expected_state  # the state the login sent: the page says a mismatch
        self._listener: anyio.abc.Listener[anyio.abc.SocketStream] | None = None
        self._result: Redirected | None = None

    async def open(self) -> None:
        try:
            self._listener = await anyio.create_tcp_listener(local_host=self.host, local_port=self.port)
        except OSError as exc:
            if self.host == "localhost" and exc.errno in _NO_SUCH_ADDRESS:
                # `localhost` names ::1 too, and a machine with IPv6 off cannot bind it: the browser then
                # reaches 127.0.0.1 alone. A port in use is not that: it is said, never routed around.
                await self._open_ipv4_only(exc)
                return
            raise RedirectError(
                f"cannot listen for the login redirect on {self.host}:{self.port} ({exc.strerror or exc})"
            ) from None

    async def _open_ipv4_only(self, first: OSError) -> None:
        try:
            self._listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=self.port)
        except OSError as exc:
            raise RedirectError(
                f"cannot listen for the login redirect on localhost:{self.port} ({first.strerror or first}; "
                f"on 127.0.0.1 alone: {exc.strerror or exc})"
            ) from None

    async def wait(self, timeout: float) -> Redirected:
        """The first request to the callback path with a code or an error; others get a 404."""
        assert self._listener is not None, "open() first"
        listener = self._listener
        try:
            with anyio.move_on_after(timeout) as scope:
                async with anyio.create_task_group() as group:

                    async def handle(stream: anyio.abc.SocketStream) -> None:
                        result = await _answer(stream, self.expected_state)
                        if result is not None and self._result is None:
                            self._result = result
                            group.cancel_scope.cancel()

                    group.start_soon(listener.serve, handle)
        finally:
            await listener.aclose()
            self._listener = None
        if self._result is None:
            if scope.cancelled_caught:
                raise RedirectError(f"no login redirect arrived within {timeout:g} s")
            raise RedirectError("the login redirect listener stopped")
        return self._result

    async def close(self) -> None:
        if self._listener is not None:
            await self._listener.aclose()
            self._listener = None


async def _answer(stream: anyio.abc.SocketStream, expected_state: str | None) -> Redirected | None:
    """Read one HTTP request head; the callback gets a page saying how the login went, as far as the
    redirect tells (an error, or another state than the login sent, fails it)."""
    async with stream:
        head = b""
        with anyio.move_on_after(10):
            while b"\r\n\r\n" not in head and len(head) < _MAX_REQUEST_HEAD:
                try:
                    chunk = await stream.receive(4096)
                except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                    break
                head += chunk
        line = head.split(b"\r\n", 1)[0].decode("latin-1", errors="replace")
        parts = line.split(" ")
        target = parts[1] if len(parts) >= 2 and parts[0] == "GET" else ""
        result = parse_redirect(target) if urlsplit(target).path == CALLBACK_PATH else None
        if result is not None and (result.code or result.error):
            if result.error:
                message = "Login failed: the authorization server refused."
            elif not state_matches(result.state, expected_state):
                message = f"Login failed: {STATE_MISMATCH}."
            else:
                message = "Logged in."
            await _respond(stream, 200, _PAGE.format(message=message))
            return result
        await _respond(stream, 404, _PAGE.format(message="Not the login callback."))
        return None


async def _respond(stream: anyio.abc.SocketStream, status: int, body: str) -> None:
    data = body.encode("utf-8")
    reason = "OK" if status == 200 else "Not Found"
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(data)}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n"
    )
    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        await stream.send(head.encode("ascii") + data)


Announce = Callable[[str, str | None], None]
"""`announce(authorization_url, how)`: a login is waiting for the user; `how` says what was done
(`opened in your browser` or None when the URL must be opened by hand)."""
