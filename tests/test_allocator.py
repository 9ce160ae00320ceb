"""The allocator trim after a big message: which results count as big, and that the trim is safe to call."""

from __future__ import annotations

import platform

import pytest

from explorer.model.allocator import BIG_MESSAGE_BYTES, give_back_freed_memory, read_result_size


def test_a_read_result_is_as_big_as_its_texts_and_blobs() -> None:
    raw = {"contents": [{"uri": "a://1", "text": "x" * 10}, {"uri": "a://2", "blob": "QUJD"}]}
    assert read_result_size(raw) == 14


def test_whatever_a_server_sent_the_size_is_a_number() -> None:
    for raw in ({}, {"contents": None}, {"contents": "text"}, {"contents": [None, 3, {"text": 5}]}):
        assert read_result_size(raw) == 0


def test_a_50_mb_text_is_big_and_a_page_of_text_is_not() -> None:
    assert read_result_size({"contents": [{"text": "x" * (50 * 1024 * 1024)}]}) >= BIG_MESSAGE_BYTES
    assert read_result_size({"contents": [{"text": "x" * 100_000}]}) < BIG_MESSAGE_BYTES


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_on_glibc_the_trim_runs() -> None:
    freed = b"x" * (40 * 1024 * 1024)
    del freed
    assert give_back_freed_memory()
