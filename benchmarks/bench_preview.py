"""Benchmark: the preview showing and scrolling a 1 MB text and a 200,000-character line (a script).

Run: python benchmarks/bench_preview.py [--rounds 3]

The text view renders only the rows on screen (Textual's Line API), so showing a 1 MB text should cost
the wrap of its lines once and then a few rows per key. Baseline in the same run: the same steps on a
1 KB text, so the ratio is what the size adds. A full repaint of the visible rows is also timed against
repainting the 1 KB text. Medians of --rounds runs, each in a fresh headless app (Pilot, 100x30).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual.app import App, ComposeResult

from explorer.model.contents import classify
from explorer.widgets.preview import ContentPreview, TextView

MEGABYTE_TEXT = "".join(f"line {i:06d} " + "lorem ipsum dolor sit amet " * 3 + "\n" for i in range(11_000))
SMALL_TEXT = MEGABYTE_TEXT[:1_000]
LONG_LINE = "".join(chr(ord("a") + i % 26) for i in range(200_000))


class PreviewApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.animation_level = "none"

    def compose(self) -> ComposeResult:
        yield ContentPreview()


async def show_and_scroll(text: str) -> tuple[float, float]:
    """Seconds to show `text` and press pagedown x5 and end; seconds per full repaint of the rows shown."""
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        started = time.perf_counter()
        item = {"uri": "bench://r", "mimeType": "text/plain", "text": text}
        await app.query_one(ContentPreview).show_contents(
            "bench://r", classify({"contents": [item]}, cap=None)
        )
        await pilot.pause()
        view = app.query_one(TextView)
        view.focus()
        for _ in range(5):
            await pilot.press("pagedown")
        await pilot.press("end")
        await pilot.pause()
        shown = time.perf_counter() - started
        started = time.perf_counter()
        for _ in range(30):
            view._cache.clear()
            for y in range(view.size.height):
                view.render_line(y)
        repaint = (time.perf_counter() - started) / 30
    return shown, repaint


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    results: dict[str, list[tuple[float, float]]] = {"1 KB": [], "1 MB": [], "200k-char line": []}
    texts = {"1 KB": SMALL_TEXT, "1 MB": MEGABYTE_TEXT, "200k-char line": LONG_LINE}
    for _ in range(args.rounds):  # every contender once per round: a busy machine slows them alike
        for name, text in texts.items():
            results[name].append(asyncio.run(show_and_scroll(text)))
    base_show = statistics.median(r[0] for r in results["1 KB"])
    base_paint = statistics.median(r[1] for r in results["1 KB"])
    print(f"{'text':<16}{'show + 6 keys ms':>18}{'x 1 KB':>8}{'repaint ms':>12}{'x 1 KB':>8}")
    for name, rows in results.items():
        shown = statistics.median(r[0] for r in rows)
        paint = statistics.median(r[1] for r in rows)
        ratios = f"{shown / base_show:>7.2f}x{1000 * paint:>12.2f}{paint / base_paint:>7.2f}x"
        print(f"{name:<16}{1000 * shown:>18.1f}{ratios}")
    print("baseline: the same steps on a 1 KB text, in the same run")


if __name__ == "__main__":
    main()
