"""The one parser of prompt data (issue 9): every malformed shape becomes a record that says what is wrong."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.model.prompt_data import (
    PromptArgument,
    decoded_size,
    parse_prompt,
    parse_prompt_result,
    text_head,
)


def test_a_well_formed_prompt() -> None:
    info = parse_prompt(
        {
            "name": "greet",
            "title": "Greeting",
            "description": "Say hello",
            "arguments": [{"name": "who", "required": True, "description": "whom"}, {"name": "tone"}],
        }
    )
    assert info is not None
    assert info.name == "greet" and info.title == "Greeting" and info.description == "Say hello"
    assert info.arguments == (PromptArgument("who", True, description="whom"), PromptArgument("tone"))
    assert info.required == ["who"] and info.problems == ()


def test_arguments_that_are_not_a_list_are_named_and_ignored() -> None:
    for value, kind in [
        ("who", "a string"),
        (42, "a number"),
        ({"name": "who"}, "an object"),
        (True, "a boolean"),
    ]:
        info = parse_prompt({"name": "p", "arguments": value})
        assert info is not None and info.arguments == ()
        assert info.problems == (f"its 'arguments' is {kind}, not a list: ignored",)
    assert parse_prompt({"name": "p", "arguments": None}).problems == ()  # type: ignore[union-attr]


def test_malformed_arguments_are_skipped_one_by_one() -> None:
    info = parse_prompt(
        {
            "name": "p",
            "arguments": [
                "who",
                7,
                {"required": True},
                {"name": "a"},
                {"name": "a"},
                {"name": "b", "required": "yes"},
            ],
        }
    )
    assert info is not None
    assert [a.name for a in info.arguments] == ["a", "b"] and info.required == []
    assert info.problems == (
        "argument 1 is a string, not an object: ignored",
        "argument 2 is a number, not an object: ignored",
        "argument 3 has no name: ignored",
        "argument 'a' is declared twice: the first one counts",
        "argument 'b' has a 'required' that is a string: optional",
    )


def test_items_without_a_usable_name_cannot_be_asked_for() -> None:
    for raw in [None, "greet", [], {}, {"name": ""}, {"name": 3}]:
        assert parse_prompt(raw) is None


def test_an_embedded_resource_of_every_wrong_shape_is_shown_not_raised() -> None:
    result = parse_prompt_result(
        {
            "messages": [
                {"role": "user", "content": {"type": "resource", "resource": "the text itself"}},
                {"role": "user", "content": {"type": "resource", "resource": ["a", "list"]}},
                {"role": "user", "content": {"type": "resource", "resource": {"text": "no uri"}}},
                {"role": "user", "content": {"type": "resource", "resource": {"uri": "x://y"}}},
                {"role": "user", "content": {"type": "resource", "resource": {"uri": "x://z", "text": "ok"}}},
            ]
        }
    )
    blocks = [m.blocks[0] for m in result.messages]
    assert blocks[0].kind == "invalid" and blocks[0].text == "the text itself"
    assert blocks[0].problem == "an embedded resource whose 'resource' is a string, not an object"
    assert blocks[1].problem == "an embedded resource whose 'resource' is a list, not an object"
    assert blocks[2].kind == "resource" and blocks[2].problem == "an embedded resource without a URI"
    assert blocks[3].problem == "an embedded resource with neither text nor blob"
    assert blocks[4].problem is None and blocks[4].resource is not None and blocks[4].resource.text == "ok"
    assert result.resource_uris == ["x://y", "x://z"]


def test_roles_content_types_and_messages_of_every_wrong_shape() -> None:
    result = parse_prompt_result(
        {
            "description": 5,
            "messages": [
                {"role": "narrator", "content": {"type": "text", "text": "t"}},
                {"role": 7, "content": {"type": "text", "text": "t"}},
                {"content": {"type": "text", "text": "t"}},
                {"role": "user", "content": {"type": "hologram"}},
                {"role": "user", "content": {"text": "no type"}},
                {"role": "user", "content": {"type": "text", "text": ["x"]}},
                {"role": "user", "content": {"type": "audio", "mimeType": "audio/wav"}},
                {"role": "user", "content": {"type": "resource_link", "name": "no uri"}},
                {"role": "user", "content": [{"type": "text", "text": "a"}, "b", None]},
                {"role": "assistant"},
                "not a message",
            ],
        }
    )
    assert result.description is None
    assert result.problems == ("its 'description' is a number, not a string: ignored",)
    m = result.messages
    assert m[0].role == "narrator" and not m[0].known_role and m[0].problem is not None
    assert "unknown role" in m[0].problem
    assert m[1].role is None and m[1].problem == "its role is a number, not a string"
    assert m[2].role is None and m[2].problem == "it has no role"
    assert (
        m[3].blocks[0].kind == "unknown"
        and m[3].blocks[0].problem == "a content block of unknown type hologram"
    )
    assert m[4].blocks[0].problem == "a content block without a type"
    assert m[5].blocks[0].problem == "a text block whose text is a list"
    assert m[6].blocks[0].kind == "invalid" and m[6].blocks[0].problem == "audio without data"
    assert m[7].blocks[0].problem == "a resource link without a URI"
    assert [b.kind for b in m[8].blocks] == ["text", "invalid", "invalid"]
    assert m[9].blocks[0].problem == "a message without content"
    assert m[10].problem == "it is a string, not an object" and m[10].blocks == ()


def test_a_result_that_is_not_an_object_or_has_no_message_list() -> None:
    assert parse_prompt_result(["x"]).problems == ("the result is a list, not an object",)
    assert parse_prompt_result({"messages": "hi"}).problems == ("its 'messages' is a string, not a list",)


def test_decoded_size() -> None:
    assert decoded_size("AAEC") == 3 and decoded_size("%%%") is None
    # read as the TUI's preview reads a blob: whitespace and missing padding are fine
    assert decoded_size("aGVs\nbG8g\nd29y\nbGQ=") == 11 and decoded_size("aGVsbG8") == 5
    assert decoded_size("aGVs=bG8") is None and decoded_size("aGVsbG8é") is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
shaped = st.fixed_dictionaries(
    {},
    optional={
        "name": st.one_of(st.text(max_size=5), json_values),
        "arguments": st.one_of(json_values, st.lists(json_values, max_size=4)),
        "messages": st.one_of(
            json_values,
            st.lists(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "role": json_values,
                        "content": st.one_of(
                            json_values,
                            st.fixed_dictionaries(
                                {
                                    "type": st.sampled_from(
                                        ["text", "image", "audio", "resource", "resource_link", "x"]
                                    )
                                },
                                optional={
                                    "text": json_values,
                                    "data": json_values,
                                    "uri": json_values,
                                    "resource": json_values,
                                    "mimeType": json_values,
                                },
                            ),
                        ),
                    },
                ),
                max_size=4,
            ),
        ),
        "description": json_values,
    },
)


@pytest.mark.slow
@given(st.one_of(json_values, shaped))
def test_no_input_makes_the_parser_raise(raw: Any) -> None:
    parse_prompt(raw)
    result = parse_prompt_result(raw)
    for message in result.messages:
        for block in message.blocks:
            assert block.kind in ("text", "image", "audio", "resource", "resource_link", "unknown", "invalid")
            assert block.kind not in ("unknown", "invalid") or block.problem


def test_an_empty_role_is_said_empty() -> None:
    [message] = parse_prompt_result(
        {"messages": [{"role": "", "content": {"type": "text", "text": "t"}}]}
    ).messages
    assert message.role is None and message.problem == "its role is empty"


def test_text_head_keeps_whole_lines_and_counts_bytes() -> None:
    head = text_head("one\ntwo\nthree\n", chars=100, lines=2)
    assert (head.text, head.shown_bytes, head.size, head.cut) == ("one\ntwo\n", 8, 14, True)
    whole = text_head("one\ntwo", chars=100, lines=2)
    assert (whole.text, whole.cut) == ("one\ntwo", False)
    wide = text_head("é" * 10, chars=4, lines=5)  # bytes, not characters: 8 of 20
    assert (wide.text, wide.shown_bytes, wide.size) == ("éééé", 8, 20)
    held = text_head("abc", chars=2, lines=5, size=1_000)  # the start of a capped text: the whole's size
    assert (held.text, held.shown_bytes, held.size) == ("ab", 2, 1_000)
    assert text_head("abc", chars=10, lines=5, size=1_000).cut  # all that is held is still not all of it
