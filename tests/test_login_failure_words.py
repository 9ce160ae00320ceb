"""A failed login is said in words: a library's class name means nothing to a user.

The fallback said "ClosedResourceError: ClosedResourceError" for a stream error with no text.
"""

from __future__ import annotations

import anyio

from explorer.auth.login import describe_login_failure


def test_a_library_error_without_words_is_said_without_its_class() -> None:
    said = describe_login_failure(anyio.ClosedResourceError())
    assert said == "it gave no reason"


def test_a_library_error_keeps_its_words_only() -> None:
    assert describe_login_failure(anyio.BrokenResourceError("the pipe is gone")) == "the pipe is gone"


def test_a_plain_python_error_keeps_its_name_for_a_report() -> None:
    assert describe_login_failure(ValueError("bad state")) == "bad state (ValueError)"


def test_an_http_error_without_words_says_what_happened() -> None:
    import httpx2

    failed = "a request to the authorization server failed"
    said = describe_login_failure(httpx2.ReadTimeout(""))
    assert said == f"{failed}: no answer came in time"
    assert describe_login_failure(httpx2.ReadError("")) == f"{failed}: the connection broke off"
