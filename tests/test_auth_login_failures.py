"""What a user reads when an OAuth login fails: the request, its URL and why, in one sentence (never the
bare "HTTP 401 ... pass a valid token" that says nothing of the login)."""

from __future__ import annotations

import socket

import pytest

from tests.helpers.cli import CliResult, run_cli
from tests.helpers.oauth_loopback import auth_server, login_in_print_flow

pytestmark = pytest.mark.slow

STATE_MISMATCH = (
    "the login's answer came back with another state than it was sent with (an old tab, or another "
    "login): log in again"
)


def _tree(url: str, *more: str) -> CliResult:
    result = run_cli("tree", "-s", url, "--auth-flow", "fetch", "--timeout", "10", *more, timeout=60)
    assert "Traceback" not in result.stderr, result
    return result


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_token_endpoint_is_named_with_why(isolated_home: object) -> None:
    token_ep = f"http://127.0.0.1:{_closed_port()}/token"
    with auth_server(token_ep=token_ep) as (url, _state):
        result = _tree(url)
    assert result.code == 1
    said = f"logging in with OAuth failed: the token request to {token_ep} failed (connection refused)"
    assert said in result.stderr, result


def test_a_token_endpoint_that_never_answers_says_it_timed_out(isolated_home: object) -> None:
    with auth_server("token_hang") as (url, _state):
        result = run_cli("tree", "-s", url, "--auth-flow", "fetch", "--timeout", "3", timeout=60)
    assert result.code == 1
    assert f"the token request to {url.removesuffix('/mcp')}/token failed (no answer came within 3 s)" in (
        result.stderr
    ), result


def test_a_metadata_redirect_loop_is_said(isolated_home: object) -> None:
    with auth_server("prm_loop") as (url, _state):
        result = _tree(url)
    assert result.code == 1
    assert "logging in with OAuth failed: the token request to" in result.stderr, result
    assert "was not sent: the login's requests were redirected" in result.stderr
    assert f"(first by {url.removesuffix('/mcp')}/.well-known/oauth-protected-resource/mcp)" in result.stderr


def test_a_token_answer_that_is_not_json_is_one_sentence(isolated_home: object) -> None:
    with auth_server("token_nonjson") as (url, _state):
        result = _tree(url)
    assert result.code == 1
    assert "the token endpoint answered text/plain, not JSON (it begins 'access_token=" in result.stderr, (
        result
    )
    assert "pydantic" not in result.stderr and "validation error" not in result.stderr
    assert "abcdef123456" not in result.stdout + result.stderr  # the token in it is masked


def test_a_huge_metadata_document_is_refused_unread(isolated_home: object) -> None:
    with auth_server("prm_huge") as (url, _state):
        result = _tree(url)
    assert result.code == 1
    assert "the answer to the request for the protected resource metadata at" in result.stderr, result
    assert "is larger than 1,024 KiB" in result.stderr


def test_another_state_fails_the_login_in_the_browser_and_the_message(isolated_home: object) -> None:
    with auth_server() as (url, state):
        run = login_in_print_flow(url, browser="wrongstate")
    assert run.result.code == 1
    assert "Login failed" in run.page and "Logged in." not in run.page
    assert f"logging in with OAuth failed: {STATE_MISMATCH}" in run.result.stderr, run.result
    sent_state = next(e["state"] for e in state.events if e["event"] == "authorize")
    assert sent_state not in run.result.stdout + run.result.stderr.split("\n", 2)[-1]
