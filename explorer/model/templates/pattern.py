"""Compile a template into the pattern tree that matching walks, and into one anchored regex.

Why a module of its own: the tree is built once per template (cached) from the RFC character classes, and
both the fast regex path and the bounded backtracking search in `matching` read it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeAlias

from explorer.model.templates.percent import _URI_CHARS, UNRESERVED, _normalize
from explorer.model.templates.syntax import _OPS, Expression, Literal, Variable, parse_template


def _char_class(chars: Iterable[str]) -> str:
    return "[" + "".join("\\" + c if c in "\\]^-[" else c for c in sorted(set(chars))) + "]"


def _item(chars: Iterable[str]) -> str:
    """Zero or more allowed characters or pct-encoded triplets."""
    return rf"(?:{_char_class(chars)}|%[0-9A-F]{{2}})*"


def _chars_upto(chars: Iterable[str], low: int, high: int, passthrough: bool = False) -> str:
    """Between low and high characters, a UTF-8 pct-encoded sequence counting as one (prefixes).

    With `passthrough` (``+``/``#``) any single triplet also counts as one: the value held it as is.
    """
    single = "%[0-9A-F]{2}" if passthrough else "%[0-7][0-9A-F]"
    unit = rf"(?:{_char_class(chars)}|%[C-F][0-9A-F](?:%[89AB][0-9A-F]){{1,3}}|{single})"
    return f"{unit}{{{low},{high}}}"


@dataclass(frozen=True, slots=True)
class _Slot:
    """What one capture holds: which expression, which variable, in which shape."""

    expr_index: int
    var: Variable
    kind: str


# The pattern tree: compiled once into one regex (fast path) and walked by a bounded backtracking
# search (fallback) when the regex's decomposition does not survive decoding and re-expansion.


@dataclass(frozen=True, slots=True)
class _Lit:
    text: str


@dataclass(frozen=True, slots=True)
class _Cap:
    pattern: str
    slot: _Slot
    lazy: bool
    regex: re.Pattern[str]


@dataclass(frozen=True, slots=True)
class _Seq:
    items: tuple[_Node, ...]


@dataclass(frozen=True, slots=True)
class _Alt:
    options: tuple[_Node, ...]


@dataclass(frozen=True, slots=True)
class _Opt:
    node: _Node


@dataclass(frozen=True, slots=True)
class _Expr:
    index: int
    node: _Node


_Node: TypeAlias = _Lit | _Cap | _Seq | _Alt | _Opt | _Expr


@dataclass(frozen=True, slots=True)
class _Matcher:
    tree: _Seq
    regex: re.Pattern[str]
    groups: tuple[tuple[str, _Slot], ...]
    expression_count: int
    safe: bool  # the regex cannot backtrack badly (see `_matcher`)
    alphabet: frozenset[str]  # every character an expansion can contain
    literals: tuple[str, ...]  # in order, as they appear in a URI
    suffix: str  # the trailing literal, if the template ends with one


def _alphabet(expr: Expression) -> frozenset[str]:
    """Characters an expansion of `expr` can contain (a URI is normalized: `%` only in triplets)."""
    spec = _OPS[expr.operator]
    if spec.allow_reserved:
        return frozenset(_URI_CHARS | {"%"})
    return frozenset(UNRESERVED + "%,=" + spec.first + spec.sep)


def _var_shapes(
    var: Variable, last: bool, later: frozenset[str], relaxed: bool
) -> list[tuple[str, str, bool]]:
    """(kind, pattern, lazy) alternatives for one variable, most preferred first.

    The last variable of an expression is greedy; an earlier one prefers a single item (so that
    ``{x,y}`` reads ``1024,768`` as two values) and takes more only if the rest cannot match.
    """
    spec = _OPS[var.operator]
    unreserved = set(UNRESERVED)
    if spec.allow_reserved:
        if var.prefix:
            bounded = [("raw", _chars_upto(_URI_CHARS, 0, var.prefix, True), False)]
            return (
                bounded
                if last
                else [("raw", _chars_upto(_URI_CHARS - {","}, 0, var.prefix, True), False), *bounded]
            )
        if last:
            return [("raw", _item(_URI_CHARS), False)]
        return [("raw", _item(_URI_CHARS - {","}), False), ("raw", _item(_URI_CHARS), False)]
    item = _item(unreserved)
    sep = re.escape(spec.sep)
    if not spec.named:
        if var.prefix:
            bounded = [("str", _chars_upto(unreserved, 0, var.prefix), False)]
            if last or spec.sep not in unreserved:
                return bounded
            return [("str", _chars_upto(unreserved - {spec.sep}, 0, var.prefix), False), *bounded]
        part = _item(unreserved - {spec.sep})
        if not var.explode:
            if last:
                return [("items", f"{item}(?:,{item})*", False)]
            return [("str", part, False), ("str", item, False), ("list", f"{item}(?:,{item})+?", True)]
        pair = f"{item}={item}"
        if last:
            return [("xlist", f"{part}(?:{sep}{part})*", False), ("xdict", f"{pair}(?:{sep}{pair})*", False)]
        return [("xlist", f"{part}(?:{sep}{part})*?", True), ("xdict", f"{pair}(?:{sep}{pair})*?", True)]
    name = re.escape(_normalize(var.name))

    def valued(head: str, value: str) -> str:
        """`;` writes a bare name for "", `?` and `&` always write ``name=`` (RFC ifemp)."""
        return f"{head}(?:={value})?" if spec.ifemp == "" else f"{head}={value}"

    if not var.explode:
        if var.prefix:
            upto = _chars_upto(unreserved, 1 if spec.ifemp == "" else 0, var.prefix)
            return [("nval", valued(name, upto), False)]
        return [("nval", valued(name, f"{item}(?:,{item})*"), False)]
    guard = ""
    if later:
        names = "|".join(re.escape(_normalize(n)) for n in sorted(later))
        guard = f"(?!(?:{names})(?![A-Za-z0-9\\-._~%]))"
    key = f"{guard}(?:{_char_class(unreserved)}|%[0-9A-F]{{2}})*"
    listed = valued(name, item)
    keyed = valued(key, item)
    listed_shape = ("nxlist", f"{listed}(?:{sep}{listed})*", False)
    if relaxed and guard:  # second attempt: keys may name later variables, take as few as possible
        keyed = valued(key[len(guard) :], item)
        return [listed_shape, ("nxdict", f"{keyed}(?:{sep}{keyed})*?", True)]
    return [listed_shape, ("nxdict", f"{keyed}(?:{sep}{keyed})*", False)]


def _expression_node(index: int, expr: Expression, later_named: set[str], relaxed: bool) -> _Node:
    """``(first (x1 (sep x2)? ... | x2 (sep x3)? ... | ...))?``: any subset may be undefined."""
    spec = _OPS[expr.operator]
    count = len(expr.variables)

    def var(j: int) -> _Node:
        v = expr.variables[j]
        later = frozenset(later_named | {w.name for w in expr.variables[j + 1 :]}) - {v.name}
        shapes = _var_shapes(v, j == count - 1, later, relaxed)
        caps = [_Cap(p, _Slot(index, v, kind), lazy, re.compile(p)) for kind, p, lazy in shapes]
        return caps[0] if len(caps) == 1 else _Alt(tuple(caps))

    branches = [
        _Seq((var(i), *(_Opt(_Seq((_Lit(spec.sep), var(j)))) for j in range(i + 1, count))))
        for i in range(count)
    ]
    body = branches[0] if count == 1 else _Alt(tuple(branches))
    return _Expr(index, _Opt(_Seq((_Lit(spec.first), body))))


def _regex_text(node: _Node, groups: list[tuple[str, _Slot]]) -> str:
    if isinstance(node, _Lit):
        return re.escape(node.text)
    if isinstance(node, _Cap):
        name = f"g{len(groups)}"
        groups.append((name, node.slot))
        return f"(?P<{name}>{node.pattern})"
    if isinstance(node, _Seq):
        return "".join(_regex_text(item, groups) for item in node.items)
    if isinstance(node, _Alt):
        return "(?:" + "|".join(_regex_text(option, groups) for option in node.options) + ")"
    if isinstance(node, _Opt):
        return f"(?:{_regex_text(node.node, groups)})?"
    return f"(?P<e{node.index}>{_regex_text(node.node, groups)})"


@lru_cache(maxsize=1024)
def _matcher(text: str, relaxed: bool = False) -> _Matcher:
    """The pattern tree and its regex; `relaxed` lets exploded dict keys name later variables."""
    parsed = parse_template(text)
    expressions = parsed.expressions
    named = [{v.name for v in e.variables} if _OPS[e.operator].named else set() for e in expressions]
    nodes: list[_Node] = []
    index = 0
    for part in parsed.parts:
        if isinstance(part, Literal):
            nodes.append(_Lit(_normalize(part.encoded)))
            continue
        nodes.append(_expression_node(index, part, set().union(*named[index + 1 :]), relaxed))
        index += 1
    tree = _Seq(tuple(nodes))
    groups: list[tuple[str, _Slot]] = []
    regex = re.compile(_regex_text(tree, groups))
    # Python's regex engine backtracks without memory: two expressions whose texts can run into each
    # other make a failing match polynomial in the URI length with a large degree. Such templates are
    # matched by the bounded search only; "safe" ones have every expression single-variable (or named)
    # and followed by the end or by a literal whose first character the expression cannot contain.
    safe = True
    alphabet = set().union(*(_alphabet(e) for e in expressions))
    for i, part in enumerate(parsed.parts):
        if isinstance(part, Literal):
            alphabet |= set(_normalize(part.encoded))
            continue
        if len(part.variables) > 1 and not _OPS[part.operator].named:
            safe = False
        following = parsed.parts[i + 1] if i + 1 < len(parsed.parts) else None
        if isinstance(following, Expression) or (
            isinstance(following, Literal) and _normalize(following.encoded)[0] in _alphabet(part)
        ):
            safe = False
    literals = tuple(_normalize(p.encoded) for p in parsed.parts if isinstance(p, Literal))
    last = parsed.parts[-1] if parsed.parts else None
    suffix = _normalize(last.encoded) if isinstance(last, Literal) else ""
    return _Matcher(tree, regex, tuple(groups), len(expressions), safe, frozenset(alphabet), literals, suffix)
