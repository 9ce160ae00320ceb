"""Hostile and broken servers against the headless commands (issue 5): nothing crashes, leaks or lies.

Each test runs `python -m explorer` as a user would, against `tests/fixtures/raw_server.py` in one or
more `--mode`s. What every test checks, besides its own point: no Python traceback on stderr, every
error is one line naming what the server did wrong, and text output never carries a raw control
sequence (JSON output keeps the exact strings). Modes already covered by `test_cli_fixture.py`
(repeat-cursor, endless, empty-cursor, malformed, duplicates, no-templates, exit-mid-list, hang-list,
exit-at-start) get the text-output and hostile-string variants here, not the same assertions again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.cli import CliResult, raw_server, run_cli
from tests.helpers.paths import FIXTURES

pytestmark = pytest.mark.slow

HOSTILE = (
    "[@click=app.quit]x[/] [/b] \x1b[2J\x1b]0;pwned\x07 \x1b]8;;http://evil.test\x1b\\link\x1b]8;;\x1b\\ "
    "\x9b31m c1 \u202eevil\u202c zero\u200bwidth nul\x00"
)
LONG = "D" * 200_000
RAW_CONTROLS = ("\x1b", "\x9b", "\u202e", "\u202c", "\u200b", "\x00", "\x07")
PROTOCOL = ("--protocol", "legacy")  # one round trip fewer; the eras are covered by test_cli_fixture


def assert_clean(text: str) -> None:
    """Nothing a terminal would act on or hide reached the output."""
    found = [repr(c) for c in RAW_CONTROLS if c in text]
    assert not found, f"raw control characters in the output: {found}"


def assert_one_clear_error(result: CliResult, *needles: str) -> None:
    """No traceback; every stderr line is one `error:`/`warning:` sentence; the needles are in it."""
    assert "Traceback" not in result.stderr, result
    assert_clean(result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines, result
    assert all(line.startswith(("error: ", "warning: ")) for line in lines), result
    for needle in needles:
        assert needle in result.stderr, result


def tree_json(*args: str) -> tuple[CliResult, dict[str, object]]:
    result = run_cli("tree", "--json", *PROTOCOL, *args)
    return result, json.loads(result.stdout)


# --------------------------------------------------------------------------------------------- hostile


def test_hostile_strings_text_tree_is_escaped_and_markup_literal() -> None:
    result = run_cli("tree", *PROTOCOL, "-s", raw_server("hostile", resources=21))
    assert result.code == 0, result
    assert_clean(result.stdout)
    assert "Traceback" not in result.stderr and result.stderr == ""
    assert "[@click=app.quit]x[/] [/b]" in result.stdout  # markup is printed as the text it is
    assert "\\x1b[2J" in result.stdout and "\\u202e" in result.stdout and "\\x00" in result.stdout
    assert "[text/plain\\x1b[31m]" in result.stdout  # the mime type, escaped
    assert max(len(line) for line in result.stdout.splitlines()) < 2000  # long fields are capped


def test_hostile_strings_json_keeps_every_exact_string() -> None:
    result, data = tree_json("-s", raw_server("hostile", resources=21))
    assert result.code == 0, result
    assert_clean(result.stdout)  # JSON escapes them: \u001b, \u009b, \u202e ...
    [server] = data["servers"]  # type: ignore[misc]
    assert server["serverInfo"] == {"name": "raw-fixture " + HOSTILE, "version": "1.0 " + HOSTILE}
    hostile = [r for r in data["resources"] if r["uri"].startswith("fixture://hostile/")]  # type: ignore[attr-defined]
    assert [r["uri"] for r in hostile] == [f"fixture://hostile/{i}/{HOSTILE}" for i in (0, 10, 20)]
    first = hostile[0]
    assert first["name"] == first["title"] == HOSTILE
    assert first["description"] == HOSTILE + LONG  # all 200,000 characters
    assert first["mimeType"] == "text/plain\x1b[31m"
    [evil] = [t for t in data["templates"] if t["uriTemplate"].startswith("fixture://evil/")]  # type: ignore[attr-defined]
    assert evil["uriTemplate"] == "fixture://evil/" + HOSTILE + "/{x}"
    assert evil["name"] == evil["title"] == HOSTILE and evil["description"] == HOSTILE + LONG
    assert evil["mimeType"] == "text/plain\x1b]0;pwned\x07"


def test_hostile_contents_read_text_is_escaped_json_is_exact() -> None:
    spec = raw_server("hostile")
    uri = "fixture://items/0/item-3"  # argv cannot carry the NUL of the hostile URIs; the text can
    text = run_cli("read", uri, *PROTOCOL, "-s", spec)
    assert text.code == 0, text
    assert_clean(text.stdout)
    assert "[@click=app.quit]x[/] [/b] \\x1b[2J" in text.stdout
    assert "\\x1b]8;;http://evil.test" in text.stdout  # the OSC 8 link is visible text, not a link
    as_json = run_cli("read", uri, "--json", *PROTOCOL, "-s", spec)
    assert as_json.code == 0, as_json
    assert_clean(as_json.stdout)
    [content] = json.loads(as_json.stdout)["result"]["contents"]
    assert content["text"] == f"contents of {uri}\n{HOSTILE}"
    assert content["mimeType"] == "text/plain " + HOSTILE


def test_hostile_error_message_is_one_escaped_line() -> None:
    result = run_cli("read", "err://-32603", *PROTOCOL, "-s", raw_server("hostile"))
    assert result.code == 1
    assert_one_clear_error(result, "the server answered error -32603: [@click=app.quit]x[/]", "\\x1b[2J")
    assert len(result.stderr.splitlines()) == 1


def test_hostile_listing_error_and_repeated_cursor_name_the_fault_escaped() -> None:
    spec = raw_server("hostile", "repeat-cursor", "templates-error")
    result = run_cli("tree", *PROTOCOL, "-s", spec)
    assert result.code == 1, result
    assert_clean(result.stdout)
    assert_one_clear_error(result, "repeated cursor '[@click=app.quit]x[/]", "pagination loop")
    assert len(result.stderr.splitlines()) == 1
    assert "100 resources" in result.stdout  # what came before the loop is kept and shown
    errors = run_cli("tree", *PROTOCOL, "-s", raw_server("hostile", "templates-error", resources=5))
    assert errors.code == 1
    assert_one_clear_error(errors, "listing templates: the server answered error -32603: [@click")


def test_hostile_prompts_and_prompt_texts_are_escaped() -> None:
    spec = raw_server("hostile")
    listed = run_cli("prompts", *PROTOCOL, "-s", spec)
    assert listed.code == 0, listed
    assert_clean(listed.stdout)
    assert "evil [@click=app.quit]x[/]" in listed.stdout
    got = run_cli("prompt", "greet", "who=Ada", *PROTOCOL, "-s", spec)
    assert got.code == 0, got
    assert_clean(got.stdout)
    assert "Hello Ada [@click=app.quit]x[/]" in got.stdout


# ------------------------------------------------------------------------------------------ pagination


def test_text_tree_endless_stops_at_the_bound_exit_3_and_says_so() -> None:
    result = run_cli("tree", *PROTOCOL, "--max-pages", "3", "-s", raw_server("endless", page_size=20))
    assert result.code == 3, result
    assert_one_clear_error(result, "incomplete (resources): stopped at the max-pages bound")
    assert "60 resources" in result.stdout


def test_uris_thousands_of_segments_deep_cost_what_their_bytes_do() -> None:
    """A node per segment made 5,000 nodes of each such URI (1,500 of them took 42 s and 2.7 GB) and a
    `--json` tree quadratic in the depth (6 GB for one URI 20,000 deep): the path is cut at
    `MAX_PATH_SEGMENTS`, the rest one segment."""
    spec = raw_server("deep-uris", resources=300, page_size=100)
    text = run_cli("tree", *PROTOCOL, "-s", spec)
    assert text.code == 0, text
    assert "300 resources" in text.stdout and text.stderr == ""
    result, data = tree_json("-s", spec)
    uris = [item["uri"] for item in data["resources"]]  # type: ignore[index, union-attr]
    assert len(uris) == 300 and all(uri.count("/") > 5000 for uri in uris)
    assert len(result.stdout) < 200 * sum(map(len, uris))  # linear in what the server sent


def test_text_tree_counts_malformed_and_duplicate_items() -> None:
    result = run_cli("tree", *PROTOCOL, "-s", raw_server("malformed", "duplicates", resources=150))
    assert result.code == 0, result
    assert (
        "150 resources · 2 templates · 1 prompt in 4 pages, 4 malformed items skipped, 3 duplicates"
        in result.stdout
    )
    assert result.stderr == ""


def test_text_tree_follows_the_empty_string_cursor() -> None:
    result = run_cli("tree", *PROTOCOL, "-s", raw_server("empty-cursor", resources=150))
    assert result.code == 0, result
    assert "150 resources · 2 templates" in result.stdout and "incomplete" not in result.stdout


def test_duplicate_uris_within_one_page_and_across_pages_are_one_entry() -> None:
    _, data = tree_json("-s", raw_server("duplicates", resources=150))
    uris = [r["uri"] for r in data["resources"]]  # type: ignore[attr-defined]
    # Page 2 lists item-100 twice (within the page) and item-0, item-1 again (across pages).
    assert uris.count("fixture://items/2/item-100") == 1 and uris.count("fixture://items/0/item-0") == 1
    assert data["servers"][0]["duplicates"] == 3  # type: ignore[index]


# ----------------------------------------------------------------------------------------- process faults


def test_text_tree_exit_mid_list_names_the_exit_and_the_last_stderr_line() -> None:
    result = run_cli("tree", *PROTOCOL, "-s", raw_server("exit-mid-list"))
    assert result.code == 1, result
    assert_one_clear_error(
        result,
        "closed the connection",
        "panic: index out of range",
        "kept what was listed before: 100 resources",
    )
    assert len(result.stderr.splitlines()) == 1
    assert "item-99" in result.stdout


def test_hang_at_initialize_times_out_in_one_sentence() -> None:
    # The sentence names the 1 s timeout, so it is that timeout that ended the run (run_cli's own
    # timeout only stops a CLI that would hang for good).
    result = run_cli("tree", *PROTOCOL, "--timeout", "1", "-s", raw_server("hang-init"))
    assert result.code == 1, result
    assert_one_clear_error(
        result, "connecting: the server did not answer after 1 s (timeout; --timeout SECONDS waits longer)"
    )


def test_answer_after_the_timeout_is_a_timeout_not_a_crash() -> None:
    result = run_cli("tree", *PROTOCOL, "--timeout", "0.5", "-s", raw_server("late-answer", delay=1.2))
    assert result.code == 1, result
    assert_one_clear_error(
        result,
        "listing resources: the server did not answer after 0.5 s (timeout; --timeout SECONDS waits longer)",
    )


def test_stderr_flood_goes_to_the_log_not_the_terminal(isolated_home: Path) -> None:
    result = run_cli("tree", *PROTOCOL, "-s", raw_server("stderr-flood", resources=5))
    assert result.code == 0, result
    assert result.stderr == "" and "flood" not in result.stdout
    [log] = (isolated_home / "logs").glob("raw_server*.log")
    assert log.stat().st_size >= 5 * 1024 * 1024


@pytest.mark.parametrize("mode", ["garbage-stdout", "random-stdout"])
def test_junk_on_stdout_is_ignored_and_reported_once(mode: str) -> None:
    result = run_cli("tree", *PROTOCOL, "-s", raw_server(mode, resources=150, page_size=50))
    assert result.code == 0, result
    assert "150 resources · 2 templates" in result.stdout
    assert_clean(result.stdout)
    assert_one_clear_error(result, "not JSON-RPC messages", "which it ignored")
    assert len(result.stderr.splitlines()) == 1
    data = json.loads(run_cli("tree", "--json", *PROTOCOL, "-s", raw_server(mode, resources=5)).stdout)
    assert "not JSON-RPC messages" in data["servers"][0]["warning"]


def test_response_with_an_unknown_id_is_ignored_and_said_once() -> None:
    """The listing is whole; the answers to ids never sent are one warning (before, nothing said the
    server answered requests the explorer never made)."""
    result = run_cli("tree", *PROTOCOL, "-s", raw_server("unknown-id", resources=150))
    assert result.code == 0, result
    assert "150 resources · 2 templates" in result.stdout
    [warning] = result.stderr.splitlines()
    assert (
        warning.startswith("warning: server raw_server.py sent ")
        and " answers to requests never sent (first: id 987654), which it ignored" in warning
    ), warning


# ---------------------------------------------------------------------------------------- protocol quirks


@pytest.mark.parametrize("code", [-32602, -32002, -32603, 0])
def test_read_errors_are_one_sentence_with_the_code(code: int) -> None:
    result = run_cli("read", f"err://{code}", *PROTOCOL, "-s", raw_server("read-errors"))
    assert result.code == 1, result
    assert_one_clear_error(result, f"reading err://{code}: the server answered error {code}: read failed")
    assert len(result.stderr.splitlines()) == 1 and result.stdout == ""


def test_a_big_read_prints_all_of_it() -> None:
    """20 MB here (the TUI test reads the full 50 MB and checks memory): the CLI prints it whole."""
    size = 20 * 1024 * 1024
    result = run_cli("read", "big://text", *PROTOCOL, "-s", raw_server("big-read", big_bytes=size))
    assert result.code == 0, result.stderr
    assert result.stdout == "x" * size + "\n"


def test_blob_with_invalid_base64_is_named_not_decoded() -> None:
    spec = raw_server("bad-base64")
    result = run_cli("read", "bin://bad", *PROTOCOL, "-s", spec)
    assert result.code == 0, result
    assert "INVALID base64" in result.stdout and "Traceback" not in result.stderr
    as_json = run_cli("read", "bin://bad", "--json", *PROTOCOL, "-s", spec)
    assert json.loads(as_json.stdout)["result"]["contents"][0]["blob"] == "%%% not base64 %%%"


def test_notification_storm_does_not_disturb_a_listing() -> None:
    result = run_cli("tree", *PROTOCOL, "-s", raw_server("notify-storm", resources=150, storm=5000))
    assert result.code == 0, result
    assert result.stderr == "" and "150 resources · 2 templates" in result.stdout


# --------------------------------------------------------------------------------------------- secrets

STDIO_SECRET = "SECRET456"
HEADER_SECRET = "SECRET123"


def secret_config(tmp_path: Path, *modes: str) -> Path:
    args = [str(FIXTURES / "raw_server.py"), *(w for m in modes for w in ("--mode", m))]
    path = tmp_path / "servers.toml"
    path.write_text(
        "[servers.leaky]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f"args = {json.dumps(args)}\n"
        f'env = {{ TOKEN = "{STDIO_SECRET}" }}\n'
    )
    return path


def assert_no_secret(secret: str, *texts: str, home: Path) -> None:
    for text in texts:
        assert secret not in text
    for log in home.rglob("*.log"):
        assert secret not in log.read_text(errors="replace"), log


def test_env_token_never_reaches_stderr_json_errors_or_logs(tmp_path: Path, isolated_home: Path) -> None:
    config = secret_config(tmp_path, "echo-secrets", "templates-error", "read-errors")
    as_json = run_cli("tree", "--json", *PROTOCOL, "-c", str(config), "-s", "leaky")
    assert as_json.code == 1, as_json
    assert_one_clear_error(as_json, "credentials *** rejected")
    assert "credentials *** rejected" in json.loads(as_json.stdout)["servers"][0]["error"]
    read = run_cli("read", "err://-32603", "--json", *PROTOCOL, "-c", str(config), "-s", "leaky")
    assert "credentials *** rejected" in json.loads(read.stdout)["error"]["message"]
    exits = secret_config(tmp_path, "echo-secrets", "exit-at-start")
    dead = run_cli("tree", *PROTOCOL, "-c", str(exits), "-s", "leaky")
    assert dead.code == 1
    log_text = "".join(p.read_text() for p in (isolated_home / "logs").glob("leaky*.log"))
    assert "starting with TOKEN=*** (fixture)" in log_text  # the server's stderr, masked on its way
    assert_no_secret(STDIO_SECRET, *(r.stdout + r.stderr for r in (as_json, read, dead)), home=isolated_home)


@pytest.fixture
def http_server() -> Iterator[str]:
    """The raw fixture over Streamable HTTP (echo-secrets: errors repeat the Authorization header)."""
    proc = subprocess.Popen(
        [
            sys.executable,
            str(FIXTURES / "raw_server.py"),
            "--http",
            "--mode",
            "echo-secrets",
            "--mode",
            "templates-error",
            "--mode",
            "read-errors",
            "--resources",
            "5",
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_header_token_never_reaches_stderr_json_or_logs(http_server: str, isolated_home: Path) -> None:
    header = ("-H", f"Authorization: Bearer {HEADER_SECRET}")
    tree = run_cli("tree", *PROTOCOL, *header, "-s", http_server)
    assert tree.code == 1, tree
    assert_one_clear_error(tree, "credentials *** rejected")  # "Bearer SECRET123" masked whole
    read = run_cli("read", "err://-32602", "--json", *PROTOCOL, *header, "-s", http_server)
    assert read.code == 1
    assert "credentials *** rejected" in json.loads(read.stdout)["error"]["message"]
    assert_no_secret(HEADER_SECRET, tree.stdout + tree.stderr, read.stdout + read.stderr, home=isolated_home)
