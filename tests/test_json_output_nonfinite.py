"""A number JSON cannot hold (a server's `1e400` reads as infinity) is written as null with one warning on
stderr, whichever encoder wrote the document: orjson (most output) wrote null without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.cli.tree_render import write_document
from explorer.model.uri_tree import UriTree
from tests.factories import res
from tests.helpers.cli import run_cli
from tests.helpers.tiny_server import tiny_server

WARNING = "too large for JSON (or not a number) written as null."

# `send` writes the marker strings as the bare numbers 1e400 and -1e400 (json.dumps cannot write them).
_BODY = """
def send(obj):
    text = json.dumps(obj).replace('"HUGE"', "1e400").replace('"-HUGE"', "-1e400")
    sys.stdout.write(text + "\\n")
    sys.stdout.flush()
def answer(method, params):
    if method == "resources/list":
        return {"resources": [{"uri": "x://n", "name": "n"}]}
    if method == "resources/read":
        return {"contents": [{"uri": "x://n", "text": "null"}], "_meta": META}
    return None
"""


def _read(tmp_path: Path, meta: str) -> tuple[dict[str, object], list[str]]:
    """`read --json` of a server whose answer's `_meta` is `meta`: that `_meta` and the warning lines."""
    server = tiny_server(tmp_path, f"META = {meta}\n" + _BODY)
    result = run_cli("read", "x://n", "--json", "-s", server)
    assert result.code == 0, result
    data = json.loads(result.stdout)  # strict: Infinity is not JSON
    assert "Infinity" not in result.stdout
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    return data["result"]["_meta"], warnings


def test_orjson_path_warns_about_an_infinity_written_as_null(tmp_path: Path) -> None:
    meta, warnings = _read(tmp_path, '{"score": "HUGE", "none": None}')
    assert meta == {"score": None, "none": None}
    assert warnings == [f"warning: a number {WARNING}"]


def test_orjson_path_counts_them_in_one_warning(tmp_path: Path) -> None:
    meta, warnings = _read(tmp_path, '{"a": "HUGE", "b": ["-HUGE", 1.5, {"c": "HUGE"}]}')
    assert meta == {"a": None, "b": [None, 1.5, {"c": None}]}
    assert warnings == [f"warning: 3 numbers {WARNING}"]


def test_fallback_path_warns_the_same_way_once(tmp_path: Path) -> None:
    """An integer beyond 64 bits sends the document to the standard library's encoder."""
    meta, warnings = _read(tmp_path, '{"big": 10**100, "inf": "HUGE"}')
    assert meta == {"big": 10**100, "inf": None}
    assert warnings == [f"warning: a number {WARNING}"]


def test_finite_numbers_and_nulls_warn_nothing(tmp_path: Path) -> None:
    meta, warnings = _read(tmp_path, '{"x": 1e300, "y": None}')
    assert meta == {"x": 1e300, "y": None}
    assert warnings == []


def test_a_streamed_tree_document_warns_once_for_all_its_pieces(capsys: pytest.CaptureFixture[str]) -> None:
    """`tree --json` is encoded piece by piece (servers, each batch of resources): one warning for all."""
    tree = UriTree(keep_order=False)
    tree.add_resources([res("s", "x://h/a")])
    chunks: list[bytes] = []
    servers = [{"name": "s", "capabilities": {"experimental": {"x": float("inf")}}}]
    resources = [{"uri": f"x://h/{n}", "size": float("nan")} for n in range(5000)]  # three batches
    write_document(servers, resources, [], tree, chunks.append)
    data = json.loads(b"".join(chunks))
    assert data["servers"][0]["capabilities"] == {"experimental": {"x": None}}
    assert data["resources"][4999] == {"uri": "x://h/4999", "size": None}
    assert capsys.readouterr().err == f"warning: 5,001 numbers {WARNING}\n"
