"""`match`'s text output feeds back to `expand`: each value is written as `expand` reads it for that template.

`match t://dot.a.b` against `t://dot{.x*}` printed `x=a,b`, which `expand` reads as one value `a,b`, and a
list of two in `{/segs*}` (`a,b` and `c`) printed as `segs=a,b,c`, three. Now the words after the template
(one shell word per NAME=VALUE) given to `expand TEMPLATE ...` give the URI back, for every RFC 6570
operator, with values holding the operators' separators, commas, spaces and non-ASCII text.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

pytestmark = pytest.mark.slow

CASES: dict[str, tuple[str, ...]] = {
    "simple://v/{x}": ("x=a b,c/é",),
    "plus://v/{+path}": ("path=a/b,c d?é",),
    "hash://v{#frag}": ("frag=x,y é/z",),
    "dot://v{.x*}": ("x=a.b",),
    "dotone://v{.x}": ("x=a,b é",),
    "seg://v{/segs*}": ("segs=a,b/c",),
    "segone://v{/seg}": ("seg=a,b c",),
    "semi://v{;p*}": ("p=a b,c;d",),
    "query://v{?q,lang}": ("q=tide, tables", "lang=日本"),
    "querylist://v{?tags*}": ("tags=a b,c&d",),
    "amp://v?fixed=1{&params*}": ("params=k=v w,x=y",),
    "prefix://v/{name:3}{/rest}": ("name=été", "rest=a,b"),
}

SERVER = """
TEMPLATES = {templates!r}
def answer(method, params):
    if method == "resources/list":
        return {{"resources": []}}
    if method == "resources/templates/list":
        return {{"resourceTemplates": [{{"uriTemplate": t, "name": t}} for t in TEMPLATES]}}
    return None
"""


def expand(template: str, *words: str) -> str:
    result = run_cli("expand", template, *words)
    assert result.code == 0, result
    return result.stdout.strip()


@pytest.mark.parametrize("template", list(CASES))
def test_match_text_gives_expand_back_the_uri(tmp_path: Path, template: str) -> None:
    uri = expand(template, *CASES[template])
    server = tiny_server(tmp_path, SERVER.format(templates=list(CASES)))
    result = run_cli("-s", server, "match", uri)
    assert result.code == 0, result
    [line] = [line for line in result.stdout.splitlines() if f"  {template}  " in line]
    words = shlex.split(line.split(f"  {template}  ", 1)[1])
    assert expand(template, *words) == uri, line


def test_the_reported_cases_print_what_expand_reads(tmp_path: Path) -> None:
    server = tiny_server(tmp_path, SERVER.format(templates=["t://dot{.x*}", "t://seg{/segs*}"]))
    dot = run_cli("-s", server, "match", "t://dot.a.b")
    assert dot.stdout.rstrip().endswith("t://dot{.x*}  x=a.b"), dot
    seg = run_cli("-s", server, "match", "t://seg/a%2Cb/c")
    assert seg.stdout.rstrip().endswith("t://seg{/segs*}  segs=a,b/c"), seg
