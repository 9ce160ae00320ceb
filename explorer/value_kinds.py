"""How a wrong value is named in an error message ("a string", "a list", "null").

Config files and theme files both tell users what they wrote instead of what was expected; one
wording for both.
"""

from __future__ import annotations


def value_kind(value: object, mapping: str = "object") -> str:
    """`a string`, `a number`, `an object` (or `a table`, `a mapping`: the file format's own word)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return f"an {mapping}" if mapping[0] in "aeiou" else f"a {mapping}"
    return f"a {type(value).__name__}"
