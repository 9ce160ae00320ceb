"""Benchmark: markdown in the preview, rendered against shown as source, by its count of blocks (a script).

Run: python benchmarks/bench_markdown.py [--blocks 50,150,300,600,1200,2400] [--rounds 5]

The preview renders markdown with Textual's Markdown widget (a widget per block, list item and table
cell, mounted on the event loop) unless it has over `MARKDOWN_BLOCK_LIMIT` blocks (`markdown_blocks`)
or 20,000 characters; then it shows the highlighted source (`TextView`: only the rows on screen are
drawn). This script times both on the same documents, with the bound forced for the measurement (the
module constant is set in this process: above every N to render, to 0 to show the source, as the app
shows it past the bound). The documents are generated API reference pages, what servers send as
markdown: per endpoint a heading, a sentence, a table of parameters, a list of answers, often a JSON
example; a heading and a sentence per group; padded with one-line paragraphs to exactly N blocks as
`markdown_blocks` counts them. Up to 2,400 blocks they stay under the 20,000-character limit (the
table gives their sizes; a larger N is measured too, its row marked `>limit`).

Per N, each in a fresh headless app (Pilot, 100x30, one `ContentPreview`), times to painted frames
taken by the frame probe of `bench_tui.py` (every update rendered to a terminal's bytes and timestamped):

- first frame: from calling `show_contents` to the first frame that paints the document's first block
  (rendered: the Markdown widget mounts its top-level blocks in batches of 200; source: the text view,
  its rows laid out);
- complete: to the last frame before the preview settles (every block mounted, the table cells and
  list items they compose too, highlighting painted: then 0.5 s without a frame). The event loop is
  busy mounting until then: a key pressed meanwhile waits;
- pagedown: the key sent through the driver once it is complete, to the frame that shows it scrolled:
  the first (what a user meets first), then the median of the next 2 (fewer when the end comes first).

Baseline: the same document shown as source, in the same run (one after the other in every round, so a
busy machine slows them alike); the ratio is rendered / source. Medians of --rounds rounds, with the
spread (lowest to highest). What a user feels: about 100 ms to show something, a frame (16.7 ms at
60 Hz) for a key; rows past either are marked.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_tui import GAP, FrameProbe, timed_key  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402

import explorer.widgets.preview as preview_module  # noqa: E402
from explorer.model.contents import classify  # noqa: E402
from explorer.model.contents.markdown_cost import markdown_blocks  # noqa: E402
from explorer.widgets.preview import MARKDOWN_RENDER_LIMIT as CHARACTER_LIMIT  # noqa: E402
from explorer.widgets.preview import ContentPreview, TextView  # noqa: E402

SIZE = (100, 30)
SHOW_FELT_MS = 100.0  # showing a document: past this a user waits
KEY_FELT_MS = 1000 / 60  # a key: past one frame at 60 Hz a user sees the lag
QUIET = 0.5  # seconds without a frame after which the preview is taken as settled
BLANK_GUARD = 5.0
"""Seconds after which a source view that shows no text is taken as left blank: its `Resize` never
came, so it never laid its rows out (about one view in 4 to 12 here, text/plain too: a bug of `TextView`,
reported, not a cost). Such a round is shown again; the count is printed."""
KEYS = 3  # pagedowns per app: the first, and the next ones (they may cost less: blocks already drawn)
VERBS = ("get", "list", "create", "update", "delete", "search")
NOUNS = ("user", "team", "repo", "issue", "label", "hook", "token", "file")


def endpoint(i: int) -> str:
    """One endpoint of a generated API reference (a group heading before every eighth)."""
    verb, noun = VERBS[i % len(VERBS)], NOUNS[(i // len(VERBS)) % len(NOUNS)]
    parts = []
    if i % 8 == 0:
        parts.append(f"## {noun.title()}s\n\nEndpoints on {noun}s. All need a token with `{noun}:read`.\n")
    parts.append(f"### `{verb}_{noun}`\n\n{verb.title()} a {noun} by id. Rate limit: 60/min.\n")
    parts.append(
        "| name | type | req | note |\n|---|---|---|---|\n"
        f"| id | str | yes | {noun} id |\n| page | int | no | from 1 |\n| fields | list | no | to keep |\n"
    )
    parts.append(f"- `200`: the {noun}\n- `404`: not found\n- `429`: slow down\n")
    if i % 3 == 0:
        parts.append(f'```json\n{{"id": "{noun[0]}{i}", "name": "x"}}\n```\n')
    return "\n".join(parts) + "\n"


def document(blocks: int) -> str:
    """An API reference of exactly `blocks` blocks (`markdown_blocks`): endpoints while they fit, then
    one-line paragraphs."""
    text = "# API reference\n\nGenerated from the server's schema.\n\n"
    i = 0
    while markdown_blocks(text + endpoint(i)) <= blocks:
        text += endpoint(i)
        i += 1
    while markdown_blocks(text) < blocks:
        text += f"See also `{VERBS[i % len(VERBS)]}`.\n\n"
        i += 1
    return text


class PreviewApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.animation_level = "none"

    def compose(self) -> ComposeResult:
        yield ContentPreview()


async def show(text: str, rendered: bool) -> tuple[float, float, float, float] | None:
    """Seconds from `show_contents` to the first frame with the document's first block, to the last
    frame before it settles (every block mounted, nothing left to paint), and from pagedown to the frame
    that shows it scrolled (the first key, the median of the next ones: nan when the end came first).
    None when the source view was left blank (`BLANK_GUARD`): the caller shows it again."""
    from textual.widgets import Markdown
    from textual.widgets._markdown import MarkdownBlock

    preview_module.MARKDOWN_BLOCK_LIMIT = 10**9 if rendered else 0
    preview_module.MARKDOWN_RENDER_LIMIT = 10**9  # a larger --blocks may pass it: say so, measure anyway
    app = PreviewApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        probe = FrameProbe(app)
        frames: list[float] = []
        probe.on_frame.append(lambda _: frames.append(time.perf_counter()))
        pane = app.query_one(ContentPreview)

        def markdown() -> Any:
            found = pane.query(Markdown)
            return found.first() if found else None

        def first_painted() -> bool:
            if rendered:
                widget = markdown()
                blocks = widget.query_children(MarkdownBlock) if widget is not None else []
                return bool(blocks) and blocks[0].region.height > 0
            views = pane.query(TextView)  # its rows laid out (it lays them out once it has a size)
            return bool(views) and views.first().region.height > 0 and views.first().virtual_size.height > 0

        def complete() -> bool:
            if not rendered:
                return first_painted()
            widget = markdown()
            return widget is not None and not widget.lock.is_locked and bool(widget.children)

        item = {"uri": "bench://api.md", "mimeType": "text/markdown", "text": text}
        started = time.perf_counter()
        shown = pane.show_contents("bench://api.md", classify({"contents": [item]}, cap=None))
        painting = asyncio.gather(probe.until(first_painted), probe.until(complete))
        try:
            first, mounted = await asyncio.wait_for(painting, None if rendered else BLANK_GUARD)
        except TimeoutError:
            return None
        await shown
        while True:  # settled: the last frame before QUIET seconds without one
            await pilot.pause()
            painted = len(frames)
            await asyncio.sleep(QUIET)
            if len(frames) == painted:
                break
        done = max(frames[-1], mounted)
        scroller: Any = pane.query_one(preview_module._MarkdownBody) if rendered else pane.query_one(TextView)
        assert rendered == (markdown() is not None), "the bound was not forced"
        scroller.focus()
        await pilot.pause()
        await asyncio.sleep(GAP)  # the focus's frame is painted: the key does not wait for the frame clock
        keys = []
        for _ in range(KEYS):
            before = scroller.scroll_y
            if before >= scroller.max_scroll_y:  # at the end: the key would paint nothing
                break
            keys.append(await timed_key(app, probe, "pagedown", scrolled_past(scroller, before)))
    next_keys = statistics.median(keys[1:]) if len(keys) > 1 else math.nan
    return first - started, done - started, keys[0] if keys else math.nan, next_keys


def scrolled_past(widget: Any, y: float) -> Callable[[], bool]:
    """A test for the probe: `widget` is scrolled below `y`."""
    return lambda: widget.scroll_y > y


def spread(values: list[float]) -> str:
    """`median (lowest-highest)` in ms; `-` when nothing was timed (a document that fits on screen)."""
    ms = sorted(1000 * v for v in values if not math.isnan(v))
    if not ms:
        return "-"
    return f"{statistics.median(ms):.0f} ({ms[0]:.0f}-{ms[-1]:.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", default="50,150,300,600,1200,2400", help="comma-separated N")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sizes = [int(n) for n in args.blocks.split(",")]
    docs = {n: document(n) for n in sizes}
    times: dict[tuple[int, bool], list[tuple[float, float, float, float]]] = {
        (n, r): [] for n in sizes for r in (True, False)
    }
    blank = 0
    for _ in range(args.rounds):  # every contender once per round: a busy machine slows them alike
        for n in sizes:
            for rendered in (False, True):
                while (result := asyncio.run(show(docs[n], rendered))) is None:
                    blank += 1
                times[n, rendered].append(result)
    print_table(sizes, docs, times, args.rounds)
    print(f"source views left blank and shown again: {blank}")


def ratio(rendered: list[float], source: list[float]) -> str:
    """Median of `rendered` over the median of `source`, `-` when either has nothing timed."""
    rendered, source = [v for v in rendered if not math.isnan(v)], [v for v in source if not math.isnan(v)]
    if not rendered or not source:
        return "-"
    return f"{statistics.median(rendered) / statistics.median(source):.1f}x"


def print_table(
    sizes: list[int],
    docs: dict[int, str],
    times: dict[tuple[int, bool], list[tuple[float, float, float, float]]],
    rounds: int,
) -> None:
    """Two tables, showing then pagedown: per N, markdown and source (ms) and their ratio."""
    print(
        f"{'blocks':>6}{'chars':>8}{'first frame: markdown':>23}{'source':>15}{'ratio':>7}"
        f"{'complete: markdown':>21}{'source':>15}{'ratio':>7}"
    )
    for n in sizes:
        md, src = times[n, True], times[n, False]
        first_md, first_src, done_md, done_src = ([t[i] for t in rows] for i in (0, 1) for rows in (md, src))
        felt = " *" if 1000 * statistics.median(done_md) > SHOW_FELT_MS else ""
        over = " >limit" if len(docs[n]) > CHARACTER_LIMIT else ""
        print(
            f"{n:>6}{len(docs[n]):>8,}{spread(first_md):>23}{spread(first_src):>15}"
            f"{ratio(first_md, first_src):>7}{spread(done_md):>21}{spread(done_src):>15}"
            f"{ratio(done_md, done_src):>7}{felt}{over}"
        )
    print(
        f"\n{'blocks':>6}{'pagedown, first: markdown':>27}{'source':>15}{'ratio':>7}"
        f"{'next ones: markdown':>21}{'source':>15}{'ratio':>7}"
    )
    for n in sizes:
        md, src = times[n, True], times[n, False]
        key_md, key_src, next_md, next_src = ([t[i] for t in rows] for i in (2, 3) for rows in (md, src))
        timed = [v for v in key_md + next_md if not math.isnan(v)]
        felt = " +" if timed and 1000 * statistics.median(timed) > KEY_FELT_MS else ""
        print(
            f"{n:>6}{spread(key_md):>27}{spread(key_src):>15}{ratio(key_md, key_src):>7}"
            f"{spread(next_md):>21}{spread(next_src):>15}{ratio(next_md, next_src):>7}{felt}"
        )
    print(
        f"ms: median of {rounds} rounds (lowest-highest); ratio: markdown / the same document shown as "
        f"source (the baseline, same run); * complete past {SHOW_FELT_MS:.0f} ms, + pagedown past a frame "
        f"({KEY_FELT_MS:.1f} ms); - nothing to time (the document fits on the screen)"
    )


if __name__ == "__main__":
    main()
