"""The text tree's counts read like every other count the explorer prints: `2,244`, not `2244`."""

from __future__ import annotations

import re

import pytest

from tests.helpers.cli import demo_server, run_cli

pytestmark = pytest.mark.slow

COUNT = re.compile(r"^(\S+)  \(([\d,]+)\)$", re.MULTILINE)


def test_text_tree_counts_have_thousands_separators() -> None:
    result = run_cli("tree", "--depth", "1", "-s", demo_server())
    assert result.code == 0, result
    counts = {prefix: text for prefix, text in COUNT.findall(result.stdout)}
    assert "metrics://" in counts and "docs://" in counts, result.stdout
    for prefix, text in counts.items():
        assert text == f"{int(text.replace(',', '')):,}", (prefix, text)
    assert "," in counts["metrics://"], counts  # the demo lists thousands of metrics
