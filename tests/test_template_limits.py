"""Template limits and the matching that must never crash or blow up (issues 9 and 14).

- A template over 8,192 characters or 256 variables is refused whole: `TemplateTooLarge`, "too large
  to use (N variables; the limit is 256)", before `uritemplate` or the matcher sees it.
- Below the limits nothing recurses with the size of the template or the URI (checked under a tight
  recursion limit), and matching many query variables stays small (it used to be quadratic).
- When several readings re-expand to the URI, the one that defines the most variables comes first, and
  the others are kept as alternatives.
"""

from __future__ import annotations

import inspect
import pickle
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.model.entries import TemplateEntry
from explorer.model.templates import (
    MAX_TEMPLATE_CHARS,
    MAX_TEMPLATE_VARIABLES,
    TemplateError,
    TemplateTooLarge,
    diagnose,
    expand,
    match,
    match_all,
    match_readings,
    parse_template,
    round_trips,
    too_large,
)
from explorer.model.templates import expansion as expansion_module


def names(count: int) -> list[str]:
    return [f"v{i}" for i in range(count)]


# --------------------------------------------------------------------------------------------- limits


def test_the_limits_are_256_variables_and_8192_characters() -> None:
    assert (MAX_TEMPLATE_VARIABLES, MAX_TEMPLATE_CHARS) == (256, 8192)
    assert len(parse_template("x://{" + ",".join(names(256)) + "}").variables) == 256
    with pytest.raises(TemplateTooLarge) as raised:
        parse_template("x://{" + ",".join(names(257)) + "}")
    assert str(raised.value) == "the template is too large to use (257 variables; the limit is 256)"
    assert raised.value.detail == "257 variables; the limit is 256"
    assert isinstance(raised.value, TemplateError) and isinstance(raised.value, ValueError)
    assert str(pickle.loads(pickle.dumps(raised.value))) == str(raised.value)  # e.g. across processes
    fits = "x://" + "a" * (8192 - len("x://{id}")) + "{id}"
    assert parse_template(fits).names == ("id",)
    with pytest.raises(TemplateTooLarge, match=r"\(8,193 characters; the limit is 8,192\)"):
        parse_template(fits + "b")


def test_a_repeated_variable_counts_each_time_and_every_call_raises_afresh() -> None:
    template = "x://" + "{a}" * 257
    first = too_large(template)
    assert first is not None and first.detail == "257 variables; the limit is 256"
    second = too_large(template)
    assert second is not None and second is not first  # a new error each time (the parse is cached)


def test_too_large_is_none_for_usable_and_for_malformed_templates() -> None:
    assert too_large("x://{id}") is None
    assert too_large("x://{id") is None  # malformed: parse_template says why
    assert too_large("x://" + "a" * 9000) is not None


def test_every_entry_point_refuses_a_template_too_large(monkeypatch: pytest.MonkeyPatch) -> None:
    handed: list[str] = []
    monkeypatch.setattr(expansion_module, "_uritemplate", lambda text: handed.append(text))
    huge = "x://" + "".join(f"{{{name}}}" for name in names(300))
    for attempt in (
        lambda: expand(huge, {"v0": "a"}),
        lambda: match(huge, "x://a"),
        lambda: match_readings(huge, "x://a"),
        lambda: round_trips(huge, {"v0": "a"}),
    ):
        with pytest.raises(TemplateTooLarge, match=r"too large to use \(300 variables"):
            attempt()
    assert handed == []  # uritemplate never saw it
    monkeypatch.undo()
    report = diagnose(huge, "x://a")
    assert not report.matched
    assert report.problems == ["the template is too large to use (300 variables; the limit is 256)"]
    entries = [TemplateEntry("s", huge, "huge"), TemplateEntry("s", "x://{id}", "plain")]
    assert [m.entry.name for m in match_all(entries, "x://a")] == ["plain"]


# ------------------------------------------------------------------------------------- no recursion


@contextmanager
def shallow_stack(frames: int = 120) -> Iterator[None]:
    """Allow only `frames` more frames than the caller has: recursion with the input's size fails."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


ALL_A = {name: "a" for name in names(256)}
ALL_1 = {name: "1" for name in names(256)}
BIG_TEMPLATES: dict[str, tuple[str, str, Callable[[dict[str, Any] | None], bool]]] = {
    # (template, URI, what the match must be)
    "adjacent": ("x://" + "".join(f"{{{n}}}" for n in names(256)), "x://" + "ab" * 300, bool),
    "one expression": ("x://{" + ",".join(names(256)) + "}", "x://" + ",".join(["a"] * 300), bool),
    "path segments": ("x://" + "".join(f"{{/{n}}}" for n in names(256)), "x://" + "/a" * 256, ALL_A.__eq__),
    "query": (
        "x://s{?" + ",".join(names(256)) + "}",
        "x://s?" + "&".join(f"v{i}=1" for i in range(256)),
        ALL_1.__eq__,
    ),
    "exploded": (
        "x://s{?" + ",".join(f"{n}*" for n in names(256)) + "}",
        "x://s?" + "&k=1" * 1000,
        lambda v: v is None,
    ),
    "long literal": (
        "x://" + "l/" * 4000 + "{x}{y}",
        "x://" + "l/" * 4000 + "ab",
        {"x": "a", "y": "b"}.__eq__,
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BIG_TEMPLATES))
def test_templates_at_the_limits_never_recurse(name: str) -> None:
    template, uri, expected = BIG_TEMPLATES[name]
    parsed = parse_template(template)  # outside: warms the caches, as any first use does
    with shallow_stack():
        values = match(parsed, uri)
        report = diagnose(parsed, uri)
        if values is not None:
            assert expand(parsed, values) == uri
    assert expected(values)
    assert report.matched == (values is not None)


def test_matching_250_query_variables_stays_small() -> None:
    """It was quadratic: 100 variables took 104 MB, 400 took 1.5 GB (timings: the benchmark script)."""
    template = "x://s{?" + ",".join(names(250)) + "}"
    values = {name: f"value {name}" for name in names(250)}
    uri = expand(template, values)
    parsed = parse_template(template)
    tracemalloc.start()
    try:
        found = match(parsed, uri)
        missing = match(parsed, uri + "&unknown=1")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == values and missing is None
    assert peak < 16 * 1024 * 1024


# ------------------------------------------------------------------------- many variables round-trip


@st.composite
def named_cases(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A template with up to 256 query (or ; or &) variables, some exploded, and values for a subset."""
    count = draw(st.integers(1, MAX_TEMPLATE_VARIABLES))
    operator = draw(st.sampled_from("?&;"))
    exploded = draw(st.sets(st.integers(0, count - 1), max_size=8)) if operator != ";" else set()
    specs = [f"v{i}*" if i in exploded else f"v{i}" for i in range(count)]
    template = "x://s{" + operator + ",".join(specs) + "}"
    text = st.text("abc -_~%/?&=;,é", max_size=5)
    values: dict[str, Any] = {}
    for i in draw(st.sets(st.integers(0, count - 1), max_size=count)):
        values[f"v{i}"] = draw(st.lists(text, min_size=1, max_size=3)) if i in exploded else draw(text)
    return template, values


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(named_cases())
def test_many_named_variables_come_back_exactly(case: tuple[str, dict[str, Any]]) -> None:
    template, values = case
    uri = expand(template, values)
    assert match(template, uri) == values
    if "*" not in template:  # else an exploded variable may take it as a key
        assert match(template, uri + ("&" if "{;" not in template else ";") + "zz=1") is None


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text("abc-._~ /é%", min_size=1, max_size=4), min_size=1, max_size=MAX_TEMPLATE_VARIABLES))
def test_many_path_segments_come_back_exactly(segments: list[str]) -> None:
    template = "x://" + "/".join(f"{{{n}}}" for n in names(len(segments)))
    values = dict(zip(names(len(segments)), segments, strict=True))
    assert match(template, expand(template, values)) == values


# ------------------------------------------------------------------------------- several readings


READINGS: list[tuple[str, str, list[dict[str, Any]]]] = [
    ("docs://{name}{.ext}", "docs://readme.md", [{"name": "readme", "ext": "md"}, {"name": "readme.md"}]),
    ("{a}{b}", "xyz", [{"a": "xy", "b": "z"}, {"a": "x", "b": "yz"}, {"a": "xyz"}, {"b": "xyz"}]),
    (
        "{a}.{b}",
        "archive.tar.gz",  # equally many variables: the earlier expression is greedy
        [{"a": "archive.tar", "b": "gz"}, {"a": "archive", "b": "tar.gz"}],
    ),
    ("{x,y}", "a", [{"x": "a"}, {"y": "a"}]),
    (
        "{?a*,b*}",
        "?a=1&a=2",  # a dict key naming another variable comes last, even with more variables
        [{"a": ["1", "2"]}, {"a": ["1"], "b": {"a": "2"}}, {"b": (("a", "1"), ("a", "2"))}],
    ),
    ("{?keys*}{&q}", "?a=1&q=2", [{"keys": {"a": "1"}, "q": "2"}, {"keys": {"a": "1", "q": "2"}}]),
    ("x://{id}", "x://7", [{"id": "7"}]),
    ("x://{id}", "x://a/b", []),
]


@pytest.mark.parametrize(("template", "uri", "readings"), READINGS)
def test_readings_most_variables_first(template: str, uri: str, readings: list[dict[str, Any]]) -> None:
    assert match_readings(template, uri) == readings
    assert match(template, uri) == (readings[0] if readings else None)
    for values in readings:
        assert expand(template, values) == uri


def test_three_adjacent_variables_read_one_character_each() -> None:
    assert match("{a}{b}{c}", "xyz") == {"a": "x", "b": "y", "c": "z"}
    assert match("x://" + "".join(f"{{{n}}}" for n in names(200)), "x://abc") == {
        "v0": "a",
        "v1": "b",
        "v2": "c",
    }


def test_match_all_gives_the_other_readings_as_alternatives() -> None:
    entries = [TemplateEntry("s", "docs://{name}{.ext}", "doc"), TemplateEntry("t", "docs://{+path}", "any")]
    found = {m.entry.name: (m.values, m.alternatives) for m in match_all(entries, "docs://readme.md")}
    assert found == {
        "doc": ({"name": "readme", "ext": "md"}, ({"name": "readme.md"},)),
        "any": ({"path": "readme.md"}, ()),
    }


def test_match_all_stops_when_asked() -> None:
    entries = [TemplateEntry("s", f"x://{{a{i}}}", str(i)) for i in range(5)]
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 2

    assert [m.entry.name for m in match_all(entries, "x://7", stop=stop)] == ["0", "1"]
