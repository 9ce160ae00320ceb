"""describe_exception: whatever a server or transport raised becomes one clear sentence."""

from __future__ import annotations

import asyncio
import shlex
import sys

import anyio
import pytest
from mcp import MCPError
from mcp.types import ListResourcesResult
from pydantic import ValidationError

from explorer.connection.errors import (
    CONNECTION_CLOSED,
    LEGACY_NOT_FOUND,
    METHOD_NOT_FOUND,
    REQUEST_TIMEOUT,
    ProtocolProblems,
    ServerFault,
    describe_exception,
    retry_hint,
)


def describe(exc: BaseException, timeout: float | None = None) -> ServerFault:
    return describe_exception(exc, action="listing resources", timeout=timeout)


# ------------------------------------------------------------------------------------------ MCPError


def test_request_timeout_code_says_timeout_with_the_limit() -> None:
    fault = describe(MCPError(REQUEST_TIMEOUT, "Request 'resources/list' timed out"), timeout=2.5)

    assert fault.message == (
        "listing resources: the server did not answer after 2.5 s (timeout; --timeout SECONDS waits longer)"
    )
    assert fault.code == REQUEST_TIMEOUT and fault.local and fault.request_timed_out


def test_timeout_without_a_known_limit_still_says_timeout() -> None:
    fault = describe(MCPError(REQUEST_TIMEOUT, "Request 'resources/list' timed out"))

    assert fault.message == (
        "listing resources: the server did not answer (timeout; --timeout SECONDS waits longer)"
    )


def test_timed_out_text_under_another_code_is_the_servers_error() -> None:
    """A server's upstream timed out: that is its error, not a timeout of ours."""
    fault = describe(MCPError(-32099, "Upstream Timed Out while waiting"), timeout=30)

    assert (
        fault.message
        == "listing resources: the server answered error -32099: Upstream Timed Out while waiting"
    )
    assert fault.code == -32099 and not fault.local


def test_connection_closed_says_the_server_closed_it() -> None:
    fault = describe(MCPError(CONNECTION_CLOSED, "Connection closed"))

    assert fault.message == "listing resources: the server closed the connection (did it exit?)"
    assert fault.code == CONNECTION_CLOSED and fault.local and fault.connection_closed


def test_minus_32000_for_another_reason_keeps_the_servers_message() -> None:
    fault = describe(MCPError(CONNECTION_CLOSED, "quota exceeded for tenant 7"))

    assert fault.message == "listing resources: the server answered error -32000: quota exceeded for tenant 7"


@pytest.mark.parametrize(
    ("sdk_said", "timeout", "said"),
    [
        (
            "Request 'resources/read' timed out",
            5.0,
            "the server did not answer after 5 s (timeout; --timeout SECONDS waits longer)",
        ),
        (
            'Request "it\'s" timed out',
            None,
            "the server did not answer (timeout; --timeout SECONDS waits longer)",
        ),
        ("Timed out after 5.0s waiting for 'resources/read'", 5.0, "the server did not answer after 5 s"),
    ],
)
def test_the_sdks_own_timeout_is_told_by_its_exact_words(
    sdk_said: str, timeout: float | None, said: str
) -> None:
    """The JSON-RPC dispatcher's and the in-process dispatcher's words for a request's timeout."""
    fault = describe(MCPError(REQUEST_TIMEOUT, sdk_said), timeout=timeout)

    assert fault.message.startswith(f"listing resources: {said}")
    assert fault.request_timed_out and not fault.connection_closed


@pytest.mark.parametrize(
    ("code", "message", "data"),
    [
        (REQUEST_TIMEOUT, "Database quota exceeded", None),
        (-32603, "Upstream API timed out (GitHub)", None),
        (CONNECTION_CLOSED, "Connection to upstream database closed", None),
        (CONNECTION_CLOSED, "connection closed", None),
        (CONNECTION_CLOSED, "Connection closed", {"upstream": "postgres"}),
        (REQUEST_TIMEOUT, "Request 'resources/read' timed out", {"upstream": "github"}),
        (REQUEST_TIMEOUT, "Request to the upstream timed out", None),
    ],
)
def test_a_servers_own_minus_32000_and_minus_32001_are_its_errors(
    code: int, message: str, data: object
) -> None:
    """Many servers answer -32000/-32001 for errors of their own: only the SDK's exact shape (code, words,
    no data) is a closed connection or a timeout; anything else is the server's own error, said as such."""
    fault = describe(MCPError(code, message, data), timeout=30)

    assert fault.message == f"listing resources: the server answered error {code}: {message}"
    assert (fault.code, fault.data, fault.local) == (code, data, False)
    assert not fault.connection_closed and not fault.request_timed_out


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (METHOD_NOT_FOUND, "Method not found"),
        (LEGACY_NOT_FOUND, "Resource not found: x://1"),
        (-32602, "Unknown prompt: nope"),
        (0, "missing argument: who"),
        (1234, "custom failure \x1b[31m kept raw"),
    ],
)
def test_other_codes_name_the_code_and_the_message(code: int, message: str) -> None:
    fault = describe(MCPError(code, message, {"detail": 1}))

    assert fault.message == f"listing resources: the server answered error {code}: {message}"
    assert fault.code == code
    assert fault.data == {"detail": 1}
    assert str(fault) == fault.message


@pytest.mark.parametrize(
    ("code", "sdk_said", "said"),
    [
        (
            -32700,
            "Failed to parse JSON response: 4 validation errors for union[JSONRPCRequest]\nresult\n  Input "
            "should be a valid dictionary [type=dict_type, input_value=[1, 2, 3], input_type=list]",
            "the server's answer is not a JSON-RPC response (4 validation errors for union[JSONRPCRequest])",
        ),
        (
            -32600,
            "Unexpected content type: text/html",
            "the server answered with content type 'text/html', neither",
        ),
        (-32600, "Unexpected content type: ", "the server answered with no content type, neither JSON nor"),
        (
            -32600,
            "Redirect to http://elsewhere.test/mcp not followed; use that URL as the endpoint",
            "the server redirected to http://elsewhere.test/mcp: not followed (another origin)",
        ),
        (
            -32000,
            "SSE stream failed: Server-sent event exceeded",
            "the server's event stream failed: Server-sent",
        ),
        (-32603, "Server returned an error response", "the server answered with an HTTP error"),
    ],
)
def test_the_sdks_own_words_for_an_answer_it_could_not_use_are_one_sentence_of_ours(
    code: int, sdk_said: str, said: str
) -> None:
    """The SDK fails a request with an error of its own making: not `the server answered error -32700`
    and a pydantic dump of the server's bytes on several lines."""
    fault = describe(MCPError(code, sdk_said))
    assert fault.message.startswith(f"listing resources: {said}")
    assert "\n" not in fault.message and "answered error" not in fault.message


def test_an_empty_error_message_is_named_as_such() -> None:
    fault = describe(MCPError(-32603, ""))

    assert fault.message == "listing resources: the server answered error -32603: (no message)"


# ------------------------------------------------------------------------------------------ groups


def test_nested_exception_groups_pick_the_mcp_error() -> None:
    inner = BaseExceptionGroup(
        "transport",
        [anyio.ClosedResourceError(), BaseExceptionGroup("deeper", [MCPError(-32002, "Resource not found")])],
    )
    exc = BaseExceptionGroup("task group", [RuntimeError("secondary"), inner])

    fault = describe(exc)

    assert fault.code == -32002
    assert fault.message == "listing resources: the server answered error -32002: Resource not found"


def test_noise_is_ignored_for_the_real_cause() -> None:
    exc = BaseExceptionGroup(
        "teardown",
        [
            asyncio.CancelledError(),
            anyio.ClosedResourceError(),
            ExceptionGroup("inner", [anyio.BrokenResourceError(), ValueError("bad frame from server")]),
        ],
    )

    fault = describe(exc)

    assert fault.message == "listing resources: bad frame from server (ValueError)"


def test_a_group_of_only_noise_still_gives_a_sentence() -> None:
    fault = describe(ExceptionGroup("teardown", [anyio.ClosedResourceError(), anyio.BrokenResourceError()]))

    assert fault.message == "listing resources: the connection to the server broke (did it exit?)"


def test_a_server_fault_inside_a_group_comes_out_unchanged() -> None:
    original = ServerFault("listing resources: already explained", 7, {"x": 1})

    assert describe(ExceptionGroup("g", [original])) is original


# ------------------------------------------------------------------------------------------ OS and transport


def test_missing_command_says_command_not_found() -> None:
    exc = FileNotFoundError(2, "No such file or directory", "my-mcp-server")

    fault = describe_exception(exc, action="connecting")

    assert fault.message == "connecting: command not found: my-mcp-server"
    assert fault.code is None


def test_missing_command_without_a_filename_still_says_command_not_found() -> None:
    fault = describe_exception(FileNotFoundError("spawn failed"), action="connecting")

    assert fault.message.startswith("connecting: command not found: ")
    assert "spawn failed" in fault.message


def test_permission_denied_names_the_file() -> None:
    fault = describe_exception(PermissionError(13, "Permission denied", "/opt/server"), action="connecting")

    assert fault.message == "connecting: permission denied: /opt/server"


def test_a_plain_timeout_error_is_a_timeout() -> None:
    fault = describe(TimeoutError(), timeout=1)

    assert fault.message == (
        "listing resources: the server did not answer after 1 s (timeout; --timeout SECONDS waits longer)"
    )


def test_a_pydantic_validation_error_says_not_valid_mcp_and_where() -> None:
    with pytest.raises(ValidationError) as info:
        ListResourcesResult.model_validate({"resources": [{"uri": "x://1"}]})

    fault = describe(info.value)

    assert fault.message.startswith("listing resources: the server sent a result that is not valid MCP (")
    assert "resources.0.name" in fault.message
    assert "\n" not in fault.message


def test_a_connect_error_says_cannot_connect() -> None:
    class ConnectError(Exception):
        """Shaped like httpx2.ConnectError: only the class name matters."""

    fault = describe_exception(ConnectError("[Errno 111] Connection refused"), action="connecting")

    assert fault.message == "connecting: cannot connect: [Errno 111] Connection refused"


def test_the_real_httpx2_connect_error_says_cannot_connect() -> None:
    httpx2 = pytest.importorskip("httpx2")

    fault = describe_exception(httpx2.ConnectError("All connection attempts failed"), action="connecting")

    assert fault.message == (
        "connecting: cannot connect: nothing accepted the connection (is the server running, at that host "
        "and port?)"
    )


def test_an_http_status_error_says_http_error() -> None:
    class HTTPStatusError(Exception):
        pass

    fault = describe_exception(HTTPStatusError("401 Unauthorized for https://h/mcp"), action="connecting")

    assert fault.message == "connecting: HTTP error: 401 Unauthorized for https://h/mcp"


def test_end_of_stream_means_the_connection_broke() -> None:
    fault = describe(anyio.EndOfStream())

    assert fault.message == "listing resources: the connection to the server broke (did it exit?)"


def test_anything_else_names_the_text_and_the_type() -> None:
    assert describe(KeyError("resources")).message == "listing resources: 'resources' (KeyError)"
    assert describe(RuntimeError()).message == "listing resources: RuntimeError (RuntimeError)"


def test_server_fault_is_an_exception_with_its_message_as_text() -> None:
    fault = ServerFault("reading x://1: nope", -32002, {"uri": "x://1"})

    with pytest.raises(ServerFault, match="nope") as info:
        raise fault
    assert str(info.value) == "reading x://1: nope"
    assert (info.value.code, info.value.data) == (-32002, {"uri": "x://1"})


# ------------------------------------------------------------------------------------------ protocol problems


def test_protocol_problems_say_nothing_when_all_was_well() -> None:
    assert ProtocolProblems().describe() is None


def test_protocol_problems_count_bad_lines_and_quote_the_first() -> None:
    problems = ProtocolProblems()
    problems.bad_line("this is not JSON {{{")
    problems.bad_line("second bad line")

    assert (
        problems.describe()
        == "sent 2 lines that are not JSON-RPC messages (first: 'this is not JSON {{{'), which it ignored"
    )


def test_protocol_problems_use_the_singular_and_cap_the_sample() -> None:
    problems = ProtocolProblems()
    problems.bad_line("x" * 500)

    described = problems.describe()
    assert described is not None
    assert described.startswith("sent 1 line that is not a JSON-RPC message (first: 'xxx")
    assert len(described) < 200


def test_protocol_problems_name_oversized_messages_and_transport_errors() -> None:
    problems = ProtocolProblems()
    problems.oversized_message(256 * 2**20)
    problems.transport_error(ValueError("bad SSE event\nsecond line"))

    assert problems.describe() == (
        "sent 1 line that is not a JSON-RPC message (first: 'bad SSE event'), which it ignored, and "
        "1 message over the 256 MiB limit, which the explorer dropped"
    )


def test_headers_too_large_for_the_http_client_are_said_so() -> None:
    class RemoteProtocolError(Exception):
        pass

    fault = describe(RemoteProtocolError("Receive buffer too long"))
    assert fault.message == (
        "listing resources: the server's answer headers are too large for the HTTP client (over 100 KiB)"
    )


def test_the_http_clients_own_timeouts_and_breaks_are_said_in_words() -> None:
    """They read "ReadTimeout (ReadTimeout)" and "ReadError (ReadError)" before: the class names only."""
    read_timeout = type("ReadTimeout", (Exception,), {})
    read_error = type("ReadError", (Exception,), {})
    cut = type("RemoteProtocolError", (Exception,), {})

    waited = describe_exception(read_timeout(""), action="connecting", timeout=3)
    assert (
        waited.message
        == "connecting: the server did not answer within 3 s over HTTP (no answer came in time; "
        "--timeout SECONDS waits longer)"
    )
    assert waited.request_timed_out  # our wait: what stops the other lists, and what a fallback looks for
    broke = describe(read_error(""))
    assert broke.message == "listing resources: the HTTP connection broke off (reading the answer failed)"
    body = describe(cut("peer closed connection without sending complete message body"))
    assert body.message == (
        "listing resources: the HTTP connection broke off (the server broke the HTTP protocol or closed "
        "the connection: peer closed connection without sending complete message body)"
    )


def test_a_protocol_version_the_sdk_does_not_speak_is_said_with_the_ones_it_does() -> None:
    """It read "Unsupported protocol version from the server: 1999-01-01 (RuntimeError)"."""
    fault = describe_exception(
        RuntimeError("Unsupported protocol version from the server: 1999-01-01"), action="connecting"
    )
    assert fault.message.startswith(
        "connecting: the server answered initialize with protocol version 1999-01-01, which the explorer "
        "does not speak (it speaks 2024-11-05, "
    )
    assert "2026-07-28 by server/discover" in fault.message and "RuntimeError" not in fault.message


def test_a_retry_after_is_said_in_seconds_or_as_sent() -> None:
    """A 429 or 503 with `Retry-After` said only its status: when to try again is what the user needs."""
    assert retry_hint("3600") == "; it asks to be retried after 3,600 s"
    assert (
        retry_hint("Wed, 21 Oct 2026 07:28:00 GMT")
        == "; it asks to be retried after Wed, 21 Oct 2026 07:28:00 GMT"
    )
    assert retry_hint(None) == retry_hint("") == ""


def test_a_missing_demo_command_names_the_built_in_demo_server() -> None:
    """`-s demo` is neither a command nor a configured name; the demo is `mcp-url-explorer demo-server`."""
    fault = describe_exception(FileNotFoundError(2, "No such file or directory", "demo"), action="connecting")

    demo = shlex.join([sys.executable, "-m", "explorer", "demo-server"])
    assert (
        fault.message
        == f"connecting: command not found: demo (the built-in demo server is -s {shlex.quote(demo)})"
    )
