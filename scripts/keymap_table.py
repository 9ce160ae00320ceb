"""Print the README's table of binding ids (`python scripts/keymap_table.py`).

The README lists every binding the `[keymap]` config table can change; `tests/test_readme.py` checks the
table is the one this script prints, so a new binding cannot be left undocumented.
"""

from __future__ import annotations

from explorer.keymap import explorer_bindings


def table() -> str:
    lines = ["| binding id | default keys | what it does |", "| --- | --- | --- |"]
    for ident, keys, description in explorer_bindings():
        lines.append(f"| `{ident}` | `{keys}` | {description} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
