"""An answer the strict parsers refuse: read by the standard library's when that is all it takes, else the
request it answers fails at once with what is wrong, instead of waiting for its timeout."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import MCPError

from explorer.config import ServerSpec
from explorer.connection.errors import BoundReached, ProtocolProblems, UnreadableAnswer, describe_exception
from explorer.connection.session import ServerConnection
from explorer.connection.sizes import ResponseSizes
from explorer.connection.stdio_lines import parse_line, refused_past_bound, refused_too_big
from tests.helpers.cli import raw_http_server, raw_server, run_cli


def parsed(obj: Any) -> tuple[Any, ProtocolProblems]:
    problems = ProtocolProblems()
    return parse_line(json.dumps(obj).encode(), problems), problems


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ({"jsonrpc": "2.0", "id": 5, "result": [1, 2]}, 'its "result" is a list, not an object'),
        ({"jsonrpc": "2.0", "id": 5, "result": "ok"}, 'its "result" is a string, not an object'),
        ({"jsonrpc": "2.0", "id": 5, "result": None}, 'its "result" is null, not an object'),
        ({"jsonrpc": "2.0", "id": "five", "result": 7}, 'its "result" is a number, not an object'),
        ({"jsonrpc": "1.0", "id": 5, "result": {}}, 'its "jsonrpc" is not "2.0"'),
        ({"id": 5, "result": {}}, 'its "jsonrpc" is not "2.0"'),
        ({"jsonrpc": "2.0", "id": 5}, 'it has no "result" or "error"'),
        ({"jsonrpc": "2.0", "id": 5, "result": [1], "error": {}}, 'it has both "result" and "error"'),
        ({"jsonrpc": "2.0", "id": 5, "error": "boom"}, 'its "error" is a string, not an object'),
        (
            {"jsonrpc": "2.0", "id": 5, "error": {"code": "x", "message": "m"}},
            'its "error" has no integer "code"',
        ),
        ({"jsonrpc": "2.0", "id": 5, "error": {"code": 1}}, 'its "error" has no "message" string'),
    ],
)
def test_a_broken_answer_fails_its_request_with_what_is_wrong(answer: dict[str, Any], why: str) -> None:
    message, problems = parsed(answer)
    error = message.message
    assert error.id == answer["id"]
    assert isinstance(error.error.data, UnreadableAnswer)
    assert (
        error.error.data.why
        == f"the server's answer to request {answer['id']!r} is not a JSON-RPC response ({why})"
    )
    assert problems.describe() is None  # the request says it: no second warning


def test_an_integral_float_id_answers_the_int_request() -> None:
    message, _ = parsed({"jsonrpc": "2.0", "id": 4.0, "result": [1]})
    assert message.message.id == 4 and type(message.message.id) is int


@pytest.mark.parametrize(
    "line",
    [
        {"jsonrpc": "2.0", "method": "notifications/message", "params": 5},  # a broken notification
        {"jsonrpc": "2.0", "id": 3, "method": 7},  # a broken request
        {"jsonrpc": "2.0", "id": [1], "result": {}},  # no id that a request could have
        {"jsonrpc": "2.0", "id": 4.5, "result": []},
        [1, 2, 3],
    ],
)
def test_what_answers_no_request_is_counted_and_dropped(line: Any) -> None:
    message, problems = parsed(line)
    assert message is None
    assert problems.not_json == 1


def test_a_lone_surrogate_is_read_as_u_fffd_not_dropped() -> None:
    """As bytes that are not UTF-8 are: the page is kept, and no string that cannot be encoded (to send it
    back, to a bookmark, to the clipboard) goes on. A pair written as two escapes stays one character."""
    line = (
        b'{"jsonrpc": "2.0", "id": 2, "result": {"resources": ['
        b'{"uri": "x://a/\\ud800", "name": "pair \\ud83d\\ude00", "\\udc00key": ["\\udfff"]}]}}'
    )
    problems = ProtocolProblems()
    message = parse_line(line, problems)
    [item] = message.message.result["resources"]
    assert item == {"uri": "x://a/\ufffd", "name": "pair \U0001f600", "\ufffdkey": ["\ufffd"]}
    assert problems.describe() is None


def test_a_request_of_the_servers_own_is_never_taken_for_an_answer() -> None:
    """Its id is in the server's own id space: a big `sampling/createMessage` with id 7 is not request 7's
    answer (its head has "method" where an answer has "result" or "error")."""
    request = json.dumps(
        {"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage", "params": {"x": "y" * 3_000_000}}
    )
    sizes = ResponseSizes()
    sizes.expect_at_most(7, 1000)
    assert refused_past_bound(request.encode(), sizes) is None
    assert refused_too_big(request.encode()[:512], 1024) is None


def test_a_padded_id_is_shown_cut() -> None:
    message, _ = parsed({"jsonrpc": "2.0", "id": " " * 1_000_000 + "3", "result": [1]})
    why = message.message.error.data.why
    assert len(why) < 200 and "… [+999,971 chars] is not" in why and why.endswith("not an object)")


def test_the_error_data_is_written_in_the_protocol_log_like_any() -> None:
    message, _ = parsed({"jsonrpc": "2.0", "id": 5, "result": [1, 2]})
    dumped = json.loads(message.message.model_dump_json(by_alias=True))
    assert dumped["error"]["data"] == {"why": message.message.error.message, "bound": None, "size": 0}


def test_the_fault_is_the_sentence_the_reader_wrote() -> None:
    why = (
        'the server\'s answer to request 5 is not a JSON-RPC response (its "result" is a list, not an object)'
    )
    fault = describe_exception(MCPError(-32603, why, UnreadableAnswer(why)), action="listing resources")
    assert str(fault) == f"listing resources: {why}"
    assert fault.code is None and fault.data is None  # nothing in it to serialize


@pytest.mark.slow
def test_the_cli_reports_a_broken_page_at_once_and_keeps_the_pages_before(tmp_path: Path) -> None:
    spec = raw_server("broken-answer", resources=150, page_size=100)
    result = run_cli("tree", "--json", "--timeout", "60", "-s", spec)
    [server] = json.loads(result.stdout)["servers"]
    assert result.code == 1 and not server["ok"]
    assert 'is not a JSON-RPC response (its "result" is a list, not an object)' in server["error"]
    assert "did not answer" not in server["error"] and "not a JSON-RPC message" not in result.stderr
    assert server["resources"] == 100  # page 1 is kept
    logged = run_cli(
        "tree", "--json", "--timeout", "60", "--wire-log", str(tmp_path / "wire.jsonl"), "-s", spec
    )
    assert json.loads(logged.stdout)["servers"][0]["error"] == server["error"]  # the log takes it too


@pytest.mark.slow
def test_the_cli_lists_a_lone_surrogate_as_u_fffd() -> None:
    spec = raw_server("lone-surrogate", resources=10, page_size=100)
    text = run_cli("tree", "-s", spec)
    assert text.code == 0, text
    assert "odd/\ufffdx  lone \ufffd low" in text.stdout
    data = run_cli("tree", "--json", "-s", spec)
    assert "fixture://odd/\ufffdx" in {item["uri"] for item in json.loads(data.stdout)["resources"]}


UNREADABLE_ITEMS = {  # what each mode adds to page 1, as the explorer shows it (stdio's way)
    "lone-surrogate": ("fixture://odd/\ufffdx", "lone \ufffd low"),
    "not-utf8": ("fixture://odd/\ufffd\ufffdx", "bad \ufffd\ufffd bytes"),
}


@pytest.mark.slow
@pytest.mark.parametrize("mode", sorted(UNREADABLE_ITEMS))
@pytest.mark.parametrize(
    ("transport", "words"),
    [
        ("stdio", ()),
        ("http", ("--http",)),
        ("http", ("--http", "--http-answers", "sse")),
        ("http", ("--http", "--http-answers", "sse-cr")),
        ("sse", ("--legacy-sse",)),
    ],
    ids=["stdio", "http-json", "http-events", "http-events-cr", "legacy-sse"],
)
def test_a_page_with_text_the_parsers_refuse_is_listed_with_u_fffd_over_every_transport(
    mode: str, transport: str, words: tuple[str, ...]
) -> None:
    """A page is not lost for one lone surrogate or one byte that is not UTF-8, whatever carries it."""
    options = ("--mode", mode, "--resources", "120", "--page-size", "100")
    uri, name = UNREADABLE_ITEMS[mode]
    with contextlib.ExitStack() as stack:
        if transport == "stdio":
            spec = raw_server(mode, resources=120, page_size=100)
        else:
            spec = stack.enter_context(raw_http_server(*options, *words))
        flags = ("--sse",) if transport == "sse" else ()
        result = run_cli("tree", "--json", "--protocol", "legacy", "--timeout", "20", *flags, "-s", spec)
        assert result.code == 0, result
        [server] = json.loads(result.stdout)["servers"]
        assert server["ok"] and server["complete"] and server["resources"] == 121
        listed = {item["uri"]: item["name"] for item in json.loads(result.stdout)["resources"]}
        assert listed[uri] == name


# --------------------------------------------------------------------- a page past the bytes bound alone


def big_page(ident: int | str, items: int = 20_000) -> bytes:
    resources = [{"uri": f"x://h/item{k}", "name": f"item {k}"} for k in range(items)]
    return json.dumps({"jsonrpc": "2.0", "id": ident, "result": {"resources": resources}}).encode()


@pytest.mark.parametrize("ident", [7, "page-7"])
def test_a_page_bigger_than_the_bound_is_refused_unread(ident: int | str) -> None:
    line = big_page(ident)
    sizes = ResponseSizes()
    sizes.expect_at_most(ident, len(line) - 1)
    message = refused_past_bound(line, sizes)
    unread = message.message.error.data
    assert message.message.id == ident and isinstance(unread, UnreadableAnswer)
    assert unread.bound == "max_bytes" and unread.size == len(line)
    assert "more than a listing reads in all" in unread.why and "it was not read" in unread.why


def test_a_page_within_the_bound_or_unasked_or_oddly_written_is_parsed() -> None:
    line = big_page(7)
    sizes = ResponseSizes()
    sizes.expect_at_most(7, len(line))
    assert refused_past_bound(line, sizes) is None  # within it
    assert refused_past_bound(line, ResponseSizes()) is None  # no bound asked for that id
    odd = json.dumps({"result": json.loads(line)["result"], "id": 7, "jsonrpc": "2.0"}).encode()
    sizes.expect_at_most(7, 10)
    assert refused_past_bound(odd, sizes) is None  # the id is not where servers put it: read as usual


def test_a_refused_page_is_a_bound_not_a_fault() -> None:
    why = "the server's answer to request 7 is 3.0 MB, more than a listing reads in all (1.0 MB, --max-bytes)"
    unread = UnreadableAnswer(why, bound="max_bytes", size=3_000_000)
    fault = describe_exception(MCPError(-32603, why, unread), action="listing resources")
    assert isinstance(fault, BoundReached) and fault.bound == "max_bytes" and fault.size == 3_000_000


@pytest.mark.slow
@pytest.mark.parametrize(
    ("words", "unread"),
    [
        ((), True),
        (("--http",), True),
        (("--http", "--http-no-length"), True),
        (("--http", "--http-answers", "sse", "--http-no-length"), False),
    ],
    ids=["stdio", "http-json", "http-json-unsized", "http-events-unsized"],
)
def test_the_cli_stops_at_the_bytes_bound_without_reading_a_page_bigger_than_it(
    words: tuple[str, ...], unread: bool
) -> None:
    """Over HTTP a JSON page is read no further than the bound (not at all when its length is said). An
    event stream's body is not one message (notifications, or only a priming event): its page is read,
    measured, and the listing stops after it."""
    options = {"resources": 20_100, "page_size": 20_000}  # a first page of about 1.8 MB
    with contextlib.ExitStack() as stack:
        if words:
            flags = ("--mode", "plain", "--resources", "20100", "--page-size", "20000", *words)
            spec = stack.enter_context(raw_http_server(*flags))
        else:
            spec = raw_server("plain", **options)
        result = run_cli("tree", "--json", "--protocol", "legacy", "--max-bytes", "1500000", "-s", spec)
        [server] = json.loads(result.stdout)["servers"]
        assert result.code == 3, result
        assert server["ok"] and not server["complete"] and server["stoppedBy"] == "max_bytes"
        assert server["resources"] == (0 if unread else 20_000) and server["bytes"] > 1_500_000
        whole = run_cli("tree", "--json", "--protocol", "legacy", "--max-bytes", "2500000", "-s", spec)
        assert whole.code == 0 and json.loads(whole.stdout)["servers"][0]["resources"] == 20_100


def test_a_line_over_the_message_limit_fails_the_request_its_head_names() -> None:
    refusal = refused_too_big(
        b'{"jsonrpc": "2.0", "id": 9, "result": {"contents": [{"text": "xxxx', 1024 * 1024
    )
    unread = refusal.message.error.data
    assert refusal.message.id == 9 and isinstance(unread, UnreadableAnswer) and unread.bound is None
    assert "request 9 is over 1 MiB, the most the explorer reads of one message" in unread.why
    assert (
        refused_too_big(b'{"result": {"contents": [{"text": "xxxx', 1024 * 1024) is None
    )  # no id at its head


@pytest.mark.slow
@pytest.mark.parametrize(
    ("words", "told"), [(("--http",), True), (("--http", "--http-answers", "sse"), False)]
)
def test_streamable_http_tells_each_json_answers_size_as_stdio_does(
    words: tuple[str, ...], told: bool
) -> None:
    """The listing's bytes bound counts what came over the wire, not a page serialized again to measure it.
    Not for an event stream: its body may hold notifications, or the answer may come on another stream."""
    with raw_http_server("--mode", "plain", "--resources", "30", "--page-size", "10", *words) as url:
        spec = ServerSpec(name="sized", transport="http", url=url)

        async def sizes() -> list[tuple[int | None, int]]:
            async with ServerConnection(spec, protocol="legacy", timeout=20.0) as conn:
                seen = []
                cursor = None
                for _ in range(3):
                    params = {"cursor": cursor} if cursor else None
                    raw, size = await conn.request_sized("resources/list", params, action="listing")
                    seen.append((size, len(json.dumps(raw))))
                    cursor = raw.get("nextCursor")
                return seen

        envelope = len('{"jsonrpc": "2.0", "id": , "result": }')  # the fixture's json.dumps around it
        for size, result_size in anyio.run(sizes):
            if not told:
                assert size is None
                continue
            assert size is not None
            assert 1 <= size - (result_size + envelope) <= 3  # the id's digits
