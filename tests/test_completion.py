"""Completer: suggestions from completion/complete with context; every failure degrades to []."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from explorer.connection.completion import Completer
from explorer.connection.errors import ServerFault
from explorer.connection.session import ServerConnection
from explorer.demo.metrics import REGION_SERVICES
from explorer.model.suggestions import MAX_SUGGESTIONS
from tests.app_helpers import demo_spec, raw_spec

pytestmark = pytest.mark.anyio

LATEST = "metrics://{region}/{service}/latest"


@pytest.mark.slow
async def test_template_suggestions_follow_the_context() -> None:
    regions = [r for r in REGION_SERVICES if set(REGION_SERVICES[r]) != set(REGION_SERVICES["eu-west"])]
    async with ServerConnection(demo_spec(), timeout=20) as conn:
        completer = Completer(conn)
        assert completer.unavailable is None
        found = await completer.template(LATEST, "region", "eu-w")
        assert found.ok and found.values == ["eu-west"]
        west = await completer.template(LATEST, "service", "", {"region": "eu-west"})
        other = await completer.template(LATEST, "service", "", {"region": regions[0]})
        assert set(west.values) == set(REGION_SERVICES["eu-west"])
        assert set(other.values) == set(REGION_SERVICES[regions[0]])
        assert west.values != other.values
        # the argument itself and empty values never travel as context
        same = await completer.template(LATEST, "service", "", {"region": "eu-west", "service": "x", "y": ""})
        assert same.values == west.values


@pytest.mark.slow
async def test_prompt_suggestions_follow_the_context() -> None:
    async with ServerConnection(demo_spec(), timeout=20) as conn:
        completer = Completer(conn)
        chapters = await completer.prompt("summarize-chapter", "chapter", "pag")
        assert chapters.values == ["pagination"]
        services = await completer.prompt("incident-review", "service", "", {"region": "eu-west"})
        assert set(services.values) == set(REGION_SERVICES["eu-west"])
        nothing = await completer.prompt("no-such-prompt", "x", "")
        assert nothing.ok and nothing.values == []


@pytest.mark.slow
async def test_reserved_and_explode_variables_complete_segment_wise() -> None:
    async with ServerConnection(demo_spec(), timeout=20) as conn:
        completer = Completer(conn)
        rollup = await completer.template("metrics://rollup{/segments*}", "segments", "eu-w")
        assert "eu-west/" in rollup.values
        files = await completer.template("file:///{+path}", "path", "")
        assert files.values and all(v.count("/") <= 1 for v in files.values)


async def test_server_without_completions_gives_nothing_with_a_reason() -> None:
    async with ServerConnection(raw_spec("raw"), timeout=20) as conn:
        completer = Completer(conn)
        assert completer.unavailable == "the server does not offer completions"
        found = await completer.template("fixture://items/{group}/item-{n}", "group", "")
        assert found.values == [] and found.reason == "the server does not offer completions"
        # Even when a server claims the capability, an error answer is only a reason.
        assert conn.identity is not None
        conn.identity = dataclasses.replace(
            conn.identity, capabilities={**conn.identity.capabilities, "completions": {}}
        )
        found = await completer.prompt("greet", "who", "")
        assert found.values == [] and found.reason is not None and "-32601" in found.reason


async def test_not_connected() -> None:
    found = await Completer(None).template("x://{a}", "a", "")
    assert found.values == [] and found.reason == "the server is not connected"


class _Identity:
    def has(self, capability: str) -> bool:
        return capability == "completions"


class FakeSource:
    """Answers with whatever it is given, records what it was asked."""

    def __init__(self, answer: Any = None, error: Exception | None = None, delay: float = 0) -> None:
        self.identity = _Identity()
        self.answer = answer
        self.error = error
        self.delay = delay
        self.calls: list[tuple[dict[str, Any], str, str, Mapping[str, str] | None]] = []

    async def complete(
        self, ref: Mapping[str, Any], argument: str, value: str, context: Mapping[str, str] | None = None
    ) -> Any:
        self.calls.append((dict(ref), argument, value, context))
        if self.delay:
            await anyio.sleep(self.delay)
        if self.error is not None:
            raise self.error
        return self.answer


@pytest.mark.parametrize(
    ("answer", "reason_part"),
    [
        ({}, "no 'values' list"),
        ({"values": "abc"}, "no 'values' list"),
        ({"values": [1, 2]}, "not text"),
        ({"values": ["", "  "]}, "not text"),
        ("nonsense", "not a JSON object"),
    ],
)
async def test_malformed_answers_give_nothing(answer: Any, reason_part: str) -> None:
    found = await Completer(FakeSource(answer)).template("x://{a}", "a", "")
    assert found.values == [] and found.reason is not None and reason_part in found.reason


async def test_values_are_cleaned_and_capped() -> None:
    many = [f"v{i}" for i in range(250)]
    found = await Completer(FakeSource({"values": [*many, 3, "v1"], "total": 251})).template(
        "x://{a}", "a", ""
    )
    assert found.ok and len(found.values) == MAX_SUGGESTIONS and found.values[:2] == ["v0", "v1"]
    assert found.has_more and found.total == 251


async def test_refs_and_context_sent() -> None:
    source = FakeSource({"values": []})
    completer = Completer(source)
    await completer.template("x://{a}/{b}", "b", "q", {"a": "1", "b": "self", "c": ""})
    await completer.prompt("p", "arg", "", {})
    assert source.calls[0] == ({"type": "ref/resource", "uri": "x://{a}/{b}"}, "b", "q", {"a": "1"})
    assert source.calls[1] == ({"type": "ref/prompt", "name": "p"}, "arg", "", None)


async def test_errors_never_escape_but_cancellation_does() -> None:
    fault = await Completer(FakeSource(error=ServerFault("boom", -32603))).template("x://{a}", "a", "")
    assert fault.values == [] and fault.reason == "boom"
    odd = await Completer(FakeSource(error=RuntimeError("odd"))).template("x://{a}", "a", "")
    assert odd.values == [] and odd.reason is not None and "odd" in odd.reason
    broken = await Completer(FakeSource(error=anyio.BrokenResourceError())).template("x://{a}", "a", "")
    assert broken.reason == "completion failed: the connection to the server broke (did it exit?)"
    with anyio.move_on_after(0.05) as scope:
        await Completer(FakeSource({"values": ["late"]}, delay=5)).template("x://{a}", "a", "")
    assert scope.cancelled_caught


async def test_values_that_offer_nothing_are_dropped_and_counted() -> None:
    """An empty value emptied the field when picked, and a number was dropped without a word."""
    found = await Completer(FakeSource({"values": ["a", "", " ", 3, None, "b"]})).template("x://{a}", "a", "")
    assert found.ok and found.values == ["a", "b"] and found.dropped == 4
