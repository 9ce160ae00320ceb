"""The form's hint for a variable used several ways, one of them with a prefix modifier.

Found: such a variable takes one string (`explorer.model.fields`), but its hint came from its first use
alone. In ``d://r{/x*}/p/{x:3}`` the hint was empty (the explode's list hint no longer applies), and in
``d://r/p/{x:3}{/x*}`` it said "only the first 3 characters go into the URI", though ``{/x*}`` carries
the whole value. The hint now names every use. Single-use hints are as they were.
"""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from explorer.model.fields import template_fields
from explorer.model.templates import parse_template
from explorer.widgets.argument_form import ArgumentForm, FieldInput
from tests.app_helpers import SIZE

pytestmark = pytest.mark.anyio

CASES = [
    ("d://r{/x*}/p/{x:3}", "{/x*}", "one value; {/x*} keeps the whole, {x:3} its first 3 characters"),
    ("d://r/p/{x:3}{/x*}", "{x:3}", "one value; {x:3} keeps its first 3 characters, {/x*} the whole"),
    ("d://r/p/{x:3}/{x:3}", "{x:3}", "only the first 3 characters go into the URI"),  # one use, twice
    ("d://r/p/{x:3}", "{x:3}", "only the first 3 characters go into the URI"),
    ("d://r{/x*}", "{/x*}", "several values: separate them with /"),
    ("d://q{?x*}", "{?x*}", "several values: separate them with , (key=value items make pairs)"),
    ("d://r/{x}/{x}", "{x}", ""),
]


class FormApp(App[None]):
    def __init__(self, form: ArgumentForm) -> None:
        super().__init__()
        self.form = form

    def compose(self) -> ComposeResult:
        yield self.form


async def _complete(name: str, value: str, context: dict[str, str]) -> object:
    raise AssertionError("no completion in this test")


@pytest.mark.parametrize(("template", "label", "hint"), CASES)
async def test_the_form_shows_the_hint_of_every_use(template: str, label: str, hint: str) -> None:
    [spec] = template_fields(parse_template(template))
    assert spec.hint == hint
    form = ArgumentForm([spec], complete=_complete)  # type: ignore[arg-type]
    async with FormApp(form).run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = str(form.query_one(".field-label").render())
        marker = "required" if spec.required else "optional"
        assert shown == f"{label}  {marker}" + (f"  · {hint}" if hint else "")
        assert form.query_one(FieldInput).placeholder == hint
