"""Rendered markdown shows nothing raw that parsing decoded: entities, percent escapes in link texts.

The preview sanitized the markdown source, and markdown-it then made new characters of it: `&#x202e;`
became an RTL override in a heading, `<http://x/%1B]52;c;...%07>` showed its text decoded, a raw ESC that
set the terminal's clipboard (OSC 52). What is checked is what a terminal would be sent: the text of
every segment on screen, the link targets in their styles, and the OSC sequences of the bytes written.
"""

from __future__ import annotations

import asyncio
import base64
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.app import App
from textual.dom import DOMNode
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBlock

from explorer.model.contents import classify
from explorer.sanitize import escaped_code_points
from explorer.widgets.preview import ContentPreview
from tests.app_helpers import main_screen, settled_app, stdio_spec, wait_for
from tests.helpers.tiny_server import tiny_server
from tests.test_big_results_preview import PreviewApp

SIZE = (120, 40)

# The payloads the hunt found, as a server sends them.
OSC52 = "Docs: <http://x/%1B]52;c;ZWNobyBQV05FRAo=%1B\\> end"
TITLE = "T <http://x/%1B]0;PWNED-TITLE%1B\\> <http://y/%1B[2J%1B[H%1B[5mBLINK>"
PCTLINK = (
    "A <http://x/%1B[31mRED%1B[0m> B <http://x/%1B]52;c;cm0gLXJmIH4K%07> C <http://x/%E2%80%AEgnp.exe> "
    "D <mailto:a%E2%80%AE@b> E http://y/%E2%80%AEz F www.z.com/%E2%80%AEq"
)
ENT2 = (
    "A&#13;B C&#12;D E&#x2028;F G&#x200b;H I&#x2066;J K&#xE0041;L M&#x061C;N O&#x115F;P Q&#xFFF9;R "
    "S&#x1D173;T U&#x2029;V"
)
ENT3 = (
    "# Head &#x202e;lmth.exe\n\n| a&#x202e;b | c |\n|---|---|\n"
    "| d&#x200f;e | [l&#x202e;k](http://x&#x202e;y) |\n\n`code &#x202e; span`\n\n*em &#x202e;ph*"
)
NAMED = "N &rlm;1 &zwnj;2 &ZeroWidthSpace;3 &shy;4 &#x1b;5 &#27;6 &#x9b;7 ![i&#x202e;mg](http://x/a.png)"
FENCE = "```py&#x202e;\nfenced \u202e \x1b[2J\n```\n\n- item &#x2067;x\n\n> quote &#x2068;y"

CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    # name: (markdown, escapes that must be on screen)
    "osc52": (OSC52, ("http://x/\\x1b]52;c;ZWNobyBQV05FRAo=\\x1b\\",)),
    "title": (TITLE, ("http://x/\\x1b]0;PWNED-TITLE\\x1b\\", "http://y/\\x1b[2J\\x1b[H\\x1b[5mBLINK")),
    "pctlink": (
        PCTLINK,
        (
            "http://x/\\x1b[31mRED\\x1b[0m",
            "http://x/\\x1b]52;c;cm0gLXJmIH4K\\x07",
            "http://x/\\u202egnp.exe",
            "mailto:a\\u202e@b",
            "http://y/\\u202ez",
            "www.z.com/\\u202eq",
        ),
    ),
    "ent2": (
        ENT2,
        (
            "A\\rB",
            "C\\x0cD",
            "E\\u2028F",
            "G\\u200bH",
            "I\\u2066J",
            "K\\U000e0041L",
            "M\\u061cN",
            "O\\u115fP",
            "Q\\ufff9R",
            "S\\U0001d173T",
            "U\\u2029V",
        ),
    ),
    "ent3": (ENT3, ("Head \\u202elmth.exe", "a\\u202eb", "d\\u200fe", "l\\u202ek", "em \\u202eph")),
    "named": (NAMED, ("\\u200f1", "\\u200c2", "\\u200b3", "\\xad4", "i\\u202emg")),
    "fence": (FENCE, ("fenced \\u202e \\x1b[2J", "item \\u2067x", "quote \\u2068y")),
}


@dataclass
class Screen:
    """What the terminal is sent for the whole screen."""

    lines: list[str]  # the text of each line
    texts: list[str]  # the text of every segment
    links: list[str]  # link targets in the segments' styles: OSC 8 URLs and the click actions
    written: str  # the bytes a terminal would get (Rich's rendering of the full update)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def unsafe(text: str) -> list[str]:
    """Every character of `text` the sanitizer escapes: controls (ESC too), bidi, zero-width, tags..."""
    ranges = escaped_code_points()
    return sorted({f"U+{ord(c):04X}" for c in text if any(low <= ord(c) <= high for low, high in ranges)})


def capture(app: App[Any]) -> Screen:
    compositor = app.screen._compositor  # what the driver paints from
    strips: list[Strip] = compositor.render_strips()
    lines: list[str] = []
    texts: list[str] = []
    links: list[str] = []
    for strip in strips:
        segments = list(strip)
        lines.append("".join(segment.text for segment in segments))
        for segment in segments:
            texts.append(segment.text)
            style = segment.style
            if style is None:
                continue
            if style.link:
                links.append(style.link)
            click = style.meta.get("@click") if style._meta else None
            if isinstance(click, str):
                links.append(click)
    written = compositor.render_full_update().render_segments(app.console)
    return Screen(lines, texts, links, written)


def markdown_settled(where: DOMNode) -> bool:
    """The Markdown widget under `where` has mounted every block (its lock is free once it has)."""
    found = where.query(Markdown)
    if not found:
        return False
    widget = found.first()
    return not widget.lock.is_locked and bool(widget.query(MarkdownBlock))


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def render(entry: dict[str, Any]) -> Screen:
    """`entry` (one content of a read) shown in the preview, as a user would see it."""
    app = PreviewApp()
    async with app.run_test(size=SIZE) as pilot:
        preview = app.query_one(ContentPreview)
        await preview.show_contents("md://t", classify({"contents": [entry]}), server="fixture")
        await wait_for(pilot, lambda: markdown_settled(app))
        await settle(pilot)
        return capture(app)


def assert_nothing_raw(screen: Screen) -> None:
    raw = unsafe("".join(screen.texts))
    assert not raw, f"raw {raw} on screen:\n{screen.text}"
    bad_links = [link for link in screen.links if unsafe(link)]
    assert not bad_links, f"link targets with raw characters: {bad_links!r}"
    # Every OSC sequence the terminal gets is an OSC 8 hyperlink whose target is clean.
    for osc in re.finditer(r"\x1b\](.*?)(?:\x1b\\|\x07|$)", screen.written, re.S):
        body = osc.group(1)
        assert body.startswith("8;"), f"an OSC sequence other than a hyperlink was written: {body[:80]!r}"
        assert not unsafe(body), f"an OSC 8 target with raw characters: {body[:80]!r}"


def markdown_entry(text: str) -> dict[str, Any]:
    return {"uri": "md://t", "mimeType": "text/markdown", "text": text}


@pytest.mark.anyio
@pytest.mark.parametrize("case", sorted(CASES))
async def test_rendered_markdown_shows_decoded_characters_as_escapes(case: str) -> None:
    source, escapes = CASES[case]
    screen = await render(markdown_entry(source))
    assert_nothing_raw(screen)
    for escape in escapes:
        assert escape in screen.text, f"{escape!r} is not shown:\n{screen.text}"


@pytest.mark.anyio
async def test_a_markdown_blob_is_rendered_just_as_safely() -> None:
    blob = base64.b64encode(b"# Title &#x202e;x\n\n<http://x/%1B]0;T%07>").decode()
    screen = await render({"uri": "b://mdblob", "mimeType": "text/markdown", "blob": blob})
    assert_nothing_raw(screen)
    assert "Title \\u202ex" in screen.text and "http://x/\\x1b]0;T\\x07" in screen.text


SERVER = f"""
import base64
TEXTS = {{"md://osc52": {OSC52!r}, "md://ent3": {ENT3!r}}}
BLOB = base64.b64encode(b"# Blob &#x202e;x").decode()
CAPABILITIES = {{"resources": {{}}}}
def answer(method, params):
    if method == "resources/list":
        return {{"resources": [{{"uri": uri, "name": uri, "mimeType": "text/markdown"}} for uri in [*TEXTS, "b://mdblob"]]}}
    if method == "resources/read":
        uri = params["uri"]
        if uri == "b://mdblob":
            return {{"contents": [{{"uri": uri, "mimeType": "text/markdown", "blob": BLOB}}]}}
        return {{"contents": [{{"uri": uri, "mimeType": "text/markdown", "text": TEXTS[uri]}}]}}
    if method == "resources/templates/list":
        return {{"resourceTemplates": []}}
    return None
"""


@pytest.mark.anyio
async def test_the_app_reading_hostile_markdown_from_a_server_shows_only_escapes(tmp_path: Path) -> None:
    command = tiny_server(tmp_path, SERVER)
    async with settled_app(stdio_spec("md", command), size=SIZE) as (app, pilot):
        screen = main_screen(app)
        preview = screen.query_one(ContentPreview)
        expected = {
            "md://osc52": "http://x/\\x1b]52;c;ZWNobyBQV05FRAo=\\x1b\\",
            "md://ent3": "Head \\u202elmth.exe",
            "b://mdblob": "Blob \\u202ex",
        }
        for uri, escape in expected.items():
            screen.read("md", uri)
            await wait_for(
                pilot,
                lambda: preview.state == "contents" and preview.shown and preview.uri == uri,  # noqa: B023
            )
            await wait_for(pilot, lambda: markdown_settled(preview))
            await pilot.pause()  # not `settle`: the app's connection workers never complete
            await pilot.pause()
            shown = capture(app)
            assert_nothing_raw(shown)
            assert escape in shown.text, f"{escape!r} is not shown for {uri}:\n{shown.text}"
        assert app.is_running


# ------------------------------------------------------------------------------------------ property

ENTITIES = (
    "&#x202e;", "&#x200b;", "&#27;", "&#x1b;", "&#x9b;", "&#x85;", "&#x2066;", "&#xE0041;", "&#x061C;",
    "&#x115F;", "&#xFFF9;", "&#x1D173;", "&#x2028;", "&#13;", "&#7;", "&rlm;", "&lrm;", "&zwj;", "&zwnj;",
    "&ZeroWidthSpace;", "&shy;", "&#xfeff;", "&#xfe0f;", "&#x3164;",
)  # fmt: skip
PERCENT = (
    "%1B", "%1B]52;c;eA==%07", "%1B]0;T%1B%5C", "%1B[2J", "%1B%5B31m", "%E2%80%AE", "%E2%80%8B", "%C2%9B",
    "%F3%A0%81%81", "%07", "%0D", "%E2%81%A6", "%00", "%7F", "%C2%85",
)  # fmt: skip
RAW = ("\x1b", "\x9b", "\u202e", "\u200b", "\x07", "\x00", "\r", "\U000e0041", "\u2066", "\x7f", "\u115f")
WORDS = ("a", "b1", "x.y", "é", "日本", "-")

text_piece = st.sampled_from(ENTITIES + RAW + WORDS + ("x y", "*", "_"))
url_piece = st.sampled_from(PERCENT + ENTITIES + WORDS)
text_part = st.lists(text_piece, min_size=1, max_size=4).map("".join)
url_part = st.lists(url_piece, min_size=1, max_size=4).map("".join)

BLOCKS = (
    "# {t}",
    "{t} plain",
    "*{t}* and **{t}** and ~~{t}~~",
    "[{t}](http://h/{u})",
    "<http://h/{u}>",
    "see http://h/{u} now",
    "www.h.com/{u}",
    "<mailto:a{u}@b.c>",
    "`{t}`",
    "![{t}](http://h/{u}.png)",
    "| {t} | b |\n|---|---|\n| c | {t} |",
    "```{t}\n{t}\n```",
    "- {t}\n- [{t}](<http://h/{u}>)",
    "> {t} <http://h/{u}>",
)


@st.composite
def hostile_markdown(draw: st.DrawFn) -> str:
    shapes = draw(st.lists(st.sampled_from(BLOCKS), min_size=1, max_size=4))
    return "\n\n".join(shape.format(t=draw(text_part), u=draw(url_part)) for shape in shapes)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(source=hostile_markdown())
def test_any_markdown_of_hostile_pieces_reaches_the_terminal_escaped(source: str) -> None:
    screen = asyncio.run(render(markdown_entry(source)))
    assert_nothing_raw(screen)
