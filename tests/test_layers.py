"""The layers of the package, checked on every import edge inside `explorer/` (parsed, not imported).

From the top: the entry point; the commands; the app; its keymap and themes; screens (the palette lives
with its screen); then two peers that must not know each other, widgets and the connection layer; the
model; config; paths; the sanitizer, the file writer and the package itself. A module may import its own
group and anything below its layer, never above it and never a peer. The demo server is an island: it
stands in for a third-party server, so it imports nothing of the explorer but the package version. A
wrong-way import fails here with the edge named.
"""

from __future__ import annotations

import ast
from pathlib import Path

import explorer

PACKAGE = Path(explorer.__file__).resolve().parent

# (layer, groups): groups of one layer are peers. A group is a module or a package prefix.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("entry", ("explorer.__main__",)),
    ("commands", ("explorer.cli",)),
    ("app", ("explorer.app",)),
    ("keys, themes", ("explorer.keymap", "explorer.theming")),
    ("screens", ("explorer.screens",)),
    ("views and wire", ("explorer.widgets", "explorer.connection")),
    ("auth", ("explorer.auth",)),
    ("model", ("explorer.model", "explorer.history", "explorer.bookmarks")),
    ("config", ("explorer.config",)),
    ("paths", ("explorer.paths", "explorer.value_kinds")),
    ("base", ("explorer.sanitize", "explorer.storage", "explorer")),
]
ISLANDS = ("explorer.demo",)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def group_of(module: str) -> tuple[int, str]:
    """(layer index, group) of a module: the longest group prefix that names it."""
    best: tuple[int, str] | None = None
    for index, (_layer, groups) in enumerate(LAYERS):
        for group in groups:
            names_it = module == group or module.startswith(group + ".")
            if names_it and (best is None or len(group) > len(best[1])):
                best = (index, group)
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "explorer":
                found.update(f"explorer.{alias.name}" for alias in node.names)
            elif node.module.startswith("explorer."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("explorer"))
    return found


def wrong_edges() -> list[str]:
    problems: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = module_name(path)
        for target in sorted(imports_of(path)):
            if target == "explorer.__version__":
                continue  # the version is for everyone
            if any(source.startswith(island) for island in ISLANDS):
                if not target.startswith(source.split(".")[0] + ".demo"):
                    problems.append(f"{source} -> {target}: the demo imports nothing of the explorer")
                continue
            if any(target.startswith(island) for island in ISLANDS):
                if group_of(source)[1] != "explorer.cli":
                    problems.append(f"{source} -> {target}: only the command line starts the demo")
                continue
            (s_layer, s_group), (t_layer, t_group) = group_of(source), group_of(target)
            if t_layer < s_layer:
                problems.append(f"{source} -> {target}: {LAYERS[s_layer][0]} imports {LAYERS[t_layer][0]}")
            elif t_layer == s_layer and t_group != s_group:
                problems.append(f"{source} -> {target}: {s_group} and {t_group} are peers")
    return problems


def test_every_import_edge_respects_the_layers() -> None:
    problems = wrong_edges()
    assert problems == [], "\n".join(problems)


def test_every_module_has_a_layer() -> None:
    for path in PACKAGE.rglob("*.py"):
        module = module_name(path)
        if not module.startswith(ISLANDS):
            group_of(module)


def test_the_check_catches_a_wrong_way_import(tmp_path: Path) -> None:
    """The checker itself: a widget importing the connection layer is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("from explorer.connection.session import ServerConnection\n")
    assert imports_of(bad) == {"explorer.connection.session"}
    (s_layer, s_group), (t_layer, t_group) = group_of("explorer.widgets.x"), group_of("explorer.connection.x")
    assert s_layer == t_layer and s_group != t_group


def test_no_private_name_is_imported_from_another_module() -> None:
    """A name with a leading underscore stays in its module: make it public or keep it home."""
    imported: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("explorer"):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        imported.append(f"{module_name(path)} imports {node.module}.{alias.name}")
    assert imported == [], "\n".join(imported)


def test_docstrings_cite_only_files_in_the_repository() -> None:
    """The design notes outside the repository are not shipped: the code cites `docs/architecture.md`."""
    outside = ("design.md", "shared/notes", "landscape.md", "mcp-sdk.md")
    cited = [
        f"{module_name(path)}: {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for name in outside
        if name in path.read_text(encoding="utf-8")
    ]
    assert cited == [], "\n".join(cited)
