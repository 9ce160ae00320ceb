"""The notice after removing a server names it cut in the middle, as the rest of the explorer does: cut at
its end, `...-production` and `...-staging` read alike, and the tail is often what tells them apart. The
name comes from a config file (anyone's): it is sanitized, and never cut inside an escape."""

from __future__ import annotations

from pathlib import Path

from explorer.config import ServerSpec
from explorer.config.removal import forget_server
from explorer.config.spec import SpecOrigin

HEAD = "company-internal-search-service-for-the-whole-organisation"


def notice_for(name: str, tmp_path: Path) -> str:
    """The notice for a server of another client's file (never edited), which names it and the file."""
    other = tmp_path / "claude_desktop_config.json"
    spec = ServerSpec(name=name, transport="stdio", command="x", origin=SpecOrigin(other, name))
    notice = forget_server(spec, tmp_path / "config.toml")
    suffix = f" for this session; it will come back from {other} at next start"
    suffix += " (the explorer never edits that file)."
    assert notice.message.startswith("Removed ") and notice.message.endswith(suffix), notice
    return notice.message.removeprefix("Removed ").removesuffix(suffix)


def test_a_long_name_keeps_its_head_and_its_tail(tmp_path: Path) -> None:
    production = notice_for(f"{HEAD}-production", tmp_path)
    staging = notice_for(f"{HEAD}-staging", tmp_path)
    assert production != staging
    assert production.startswith("company-internal-search") and production.endswith("-production")
    assert staging.endswith("-staging") and "…" in staging
    assert len(production) == len(staging) == 60


def test_a_short_name_is_whole(tmp_path: Path) -> None:
    assert notice_for("github", tmp_path) == "github"


def test_a_long_hostile_name_is_sanitized_at_both_ends(tmp_path: Path) -> None:
    name = "\x1b]0;pwned\x07" + "x" * 100 + "\x1b[2J-staging"
    shown = notice_for(name, tmp_path)
    assert "\x1b" not in shown and "\x07" not in shown
    assert shown.startswith("\\x1b]0;pwned\\x07x") and shown.endswith("x\\x1b[2J-staging")
    assert len(shown) <= 60


def test_a_huge_name_is_cut_from_its_ends(tmp_path: Path) -> None:
    shown = notice_for("a" * 1_000_000 + "-staging", tmp_path)
    assert shown == "a" * 30 + "…" + "a" * 21 + "-staging"
