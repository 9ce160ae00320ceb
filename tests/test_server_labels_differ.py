"""Two long names that differ only in their middle get labels that show where they differ.

`tidewater-demo-server-for-the-staging-environment` and `…-production-environment` share a head and a
tail: cut at the end both read `tidewater-d…` (then one is numbered, `tidewater…#2`, a number never
explained), and cut in the middle they read `tidewater-demo…g-environment` and `…n-environment`, one letter
apart. A label keeps a little of the head and shows the part that differs (`ti…staging-…`).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from explorer.sanitize import is_clean
from explorer.widgets.server_labels import distinct_labels

STAGING = "tidewater-demo-server-for-the-staging-environment"
PRODUCTION = "tidewater-demo-server-for-the-production-environment"


def assert_good_labels(labels: dict[str, str], cells: int) -> None:
    """Every label fits, is safe for a terminal, and reads unlike every other."""
    shown = list(labels.values())
    assert len(set(shown)) == len(shown), labels
    for label in shown:
        assert cell_len(label) <= cells, label
        assert is_clean(label, multiline=False), label


@pytest.mark.parametrize("cells", [12, 20, 28])
def test_names_alike_but_for_their_middle_show_the_part_that_differs(cells: int) -> None:
    labels = distinct_labels([STAGING, PRODUCTION], cells)
    assert_good_labels(labels, cells)
    assert "stag" in labels[STAGING] and "prod" not in labels[STAGING], labels
    assert "prod" in labels[PRODUCTION] and "stag" not in labels[PRODUCTION], labels
    for label in labels.values():
        assert label.startswith("ti") and "#" not in label, labels  # a little of the head, no number


def test_names_whose_ends_differ_read_as_before() -> None:
    stem = "company-internal-search-cluster-europe-west-1-replica-set-a-"
    labels = distinct_labels([stem + "production", stem + "staging"], 12)
    assert labels == {stem + "production": "compan…ction", stem + "staging": "compan…aging"}
    labels = distinct_labels(["raw_server.py", "raw_server.py-2"], 12)
    assert labels == {"raw_server.py": "raw_se…er.py", "raw_server.py-2": "raw_se….py-2"}


def test_a_wide_or_hostile_middle_is_shown_sanitized_and_within_the_width() -> None:
    head, tail = "検索サーバー-of-the-team-", "-environment-of-the-team"
    names = [head + "本番" + tail, head + "検証" + tail, head + "\x1b]0;x\x07" + tail]
    for cells in (6, 12, 20, 28):
        labels = distinct_labels(names, cells)
        assert_good_labels(labels, cells)
        if cells in (12, 20):  # at 28 the end cut tells them apart (`…-team-本…`)
            assert "本番" in labels[names[0]] and "検証" in labels[names[1]], labels
            assert "\\x1b" in labels[names[2]], labels


def test_names_alike_once_sanitized_are_still_numbered() -> None:
    middle = "x" * 30
    names = ["long-shared-head-" + middle + "a\x1bb-tail", "long-shared-head-" + middle + "a\\x1bb-tail"]
    labels = distinct_labels(names, 12)
    assert_good_labels(labels, 12)
    assert labels[names[1]].endswith("#2"), labels


words = st.text(alphabet="abcdef-_.", min_size=0, max_size=12)


@settings(max_examples=300, deadline=None)
@given(
    head=st.text(alphabet="abcdefghij-", min_size=10, max_size=40),
    tail=st.text(alphabet="abcdefghij-", min_size=0, max_size=40),
    middles=st.lists(words, min_size=2, max_size=6, unique=True),
    cells=st.sampled_from([6, 12, 20, 28, 30]),
)
def test_names_with_long_shared_ends_get_distinct_labels_that_fit(
    head: str, tail: str, middles: list[str], cells: int
) -> None:
    names = [head + middle + tail for middle in middles]
    labels = distinct_labels(names, cells)
    assert_good_labels(labels, cells)
    if len(names) == 2:  # two names that differ somewhere can always be told apart without a number
        assert not any(label.endswith(("#2", "#3")) for label in labels.values()), labels
