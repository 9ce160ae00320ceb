"""Reverse matching: which values expand a template to a URI, and which templates produce a URI.

Why a module of its own: a typed URI resolves to "which template of which server, with which values";
every answer is confirmed by re-expansion, so a match always round-trips (rules in the package docstring).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import islice, pairwise, product
from typing import Final, TypeAlias

from explorer.model.entries import TemplateEntry
from explorer.model.templates.expansion import _expand_expression, expand
from explorer.model.templates.pattern import _Alt, _Cap, _Lit, _Matcher, _matcher, _Node, _Opt, _Seq, _Slot
from explorer.model.templates.percent import (
    UNRESERVED,
    _decode,
    _decode_reserved,
    _encode_keeping,
    _NoMatch,
    _normalize,
)
from explorer.model.templates.syntax import (
    _OPS,
    Expression,
    InputValue,
    ParsedTemplate,
    TemplateError,
    TemplateMatch,
    Value,
    Values,
    Variable,
    _coerce,
    parse_template,
)

_SPLIT_CANDIDATES: Final = 256


def _split_pairs(text: str, sep: str) -> Iterator[list[tuple[str, str]]]:
    """Ways to split ``k=v<sep>k=v``; under ``.`` keys and values may contain the separator.

    "=" is always encoded inside keys and values, so each "=" starts a value; the separator before
    the next key is tried from the last one backwards (keys rarely hold dots, values more often).
    """
    equals = [i for i, c in enumerate(text) if c == "="]
    segments = [text[here + 1 : nxt] for here, nxt in pairwise(equals)]
    cuts = [[i for i in range(len(seg) - 1, -1, -1) if seg[i] == sep] for seg in segments]
    for choice in islice(product(*cuts), _SPLIT_CANDIDATES):
        pairs: list[tuple[str, str]] = []
        key = text[: equals[0]]
        for segment, cut in zip(segments, choice, strict=True):
            pairs.append((key, segment[:cut]))
            key = segment[cut + 1 :]
        pairs.append((key, text[equals[-1] + 1 :]))
        yield pairs


def _exploded_dict(var: Variable, text: str) -> dict[str, str]:
    """The first split of an exploded dict's text that expands back to exactly that text."""
    spec = _OPS[var.operator]
    alone = Expression(var.operator, (Variable(var.name, var.operator, True),))
    for pairs in _split_pairs(text, spec.sep):
        try:
            candidate = _as_dict(pairs)
        except _NoMatch:
            continue
        if _normalize(_expand_expression(alone, {var.name: candidate})) == spec.first + text:
            return candidate
    raise _NoMatch


def _as_dict(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    result: dict[str, str] = {}
    for key, value in pairs:
        k = _decode(key)
        if k in result:
            raise _NoMatch
        result[k] = _decode(value)
    return result


def _one_or_list(items: list[str]) -> Value:
    return items[0] if len(items) == 1 else items


def _parse_slot(slot: _Slot, text: str) -> Value:
    """Turn the text one capture group matched into a value of the slot's shape."""
    var = slot.var
    spec = _OPS[var.operator]
    kind = slot.kind
    if kind == "raw":
        return _decode_reserved(text)
    if kind == "str":
        return _decode(text)
    if kind == "list":
        return [_decode(p) for p in text.split(",")]
    if kind == "items":
        return _one_or_list([_decode(p) for p in text.split(",")])
    if kind == "xlist":
        return [_decode(p) for p in text.split(spec.sep)]
    if kind == "xdict":
        return _exploded_dict(var, text)
    name_length = len(_normalize(var.name))
    if kind == "nval":
        rest = text[name_length:]
        if rest == "=" and spec.ifemp == "":  # `;x=`: "" would give a bare `;x`, so this is [""]
            return [""]
        return "" if not rest else _one_or_list([_decode(p) for p in rest[1:].split(",")])
    if kind == "nxlist":
        if len(text) == name_length:  # a bare `;x`: uritemplate writes `x=` for [""], `x` for ""
            return ""
        return [_decode(p[name_length + 1 :]) for p in text.split(spec.sep)]
    pairs = [p.partition("=") for p in text.split(spec.sep)]
    return _as_dict((k, v) for k, _, v in pairs)


_Capture: TypeAlias = tuple[_Slot | int, str]  # a variable's text, or an expression's whole text


def _extract(captures: Iterable[_Capture]) -> Values:
    """Values from one parse; a repeated variable takes its first unprefixed occurrence."""
    captured = list(captures)
    empty = {key for key, text in captured if isinstance(key, int) and not text}
    values: Values = {}
    for prefixed in (False, True):
        for key, text in captured:
            if isinstance(key, int) or key.expr_index in empty or bool(key.var.prefix) != prefixed:
                continue
            values.setdefault(key.var.name, _parse_slot(key, text))
    return values


def _confirmed(parsed: ParsedTemplate, captures: Iterable[_Capture], normalized: str) -> Values | None:
    """The parse's values if they decode and re-expand to the URI, else None."""
    try:
        values = _extract(captures)
        if _normalize(expand(parsed, values)) == normalized:
            return values
    except (_NoMatch, UnicodeError, TypeError):  # TypeError: a repeated prefixed variable got a list
        pass
    return None


class _Budget:
    """Caps the backtracking fallback, so a pathological template cannot hang the UI."""

    def __init__(self, steps: int) -> None:
        self.steps = steps

    def spend(self) -> None:
        self.steps -= 1
        if self.steps < 0:
            raise _NoMatch


_STOP: Final = frozenset(UNRESERVED + "%,=;&./")


def _parses(node: _Node, uri: str, pos: int, caps: list[_Capture], budget: _Budget) -> Iterator[int]:
    """Every end position of `node` from `pos`, in the regex's preference order, with captures."""
    if isinstance(node, _Lit):
        if uri.startswith(node.text, pos):
            yield pos + len(node.text)
    elif isinstance(node, _Cap):
        reach = pos
        if _OPS[node.slot.var.operator].allow_reserved:
            reach = len(uri)
        else:
            while reach < len(uri) and uri[reach] in _STOP:
                reach += 1
        for end in range(pos, reach + 1) if node.lazy else range(reach, pos - 1, -1):
            budget.spend()
            if node.regex.fullmatch(uri, pos, end):
                caps.append((node.slot, uri[pos:end]))
                yield end
                caps.pop()
    elif isinstance(node, _Seq):
        yield from _chain(node.items, 0, uri, pos, caps, budget)
    elif isinstance(node, _Alt):
        for option in node.options:
            yield from _parses(option, uri, pos, caps, budget)
    elif isinstance(node, _Opt):
        yield from _parses(node.node, uri, pos, caps, budget)
        yield pos
    else:
        for end in _parses(node.node, uri, pos, caps, budget):
            caps.append((node.index, uri[pos:end]))
            yield end
            caps.pop()


def _chain(
    items: tuple[_Node, ...], i: int, uri: str, pos: int, caps: list[_Capture], budget: _Budget
) -> Iterator[int]:
    if i == len(items):
        yield pos
        return
    for middle in _parses(items[i], uri, pos, caps, budget):
        yield from _chain(items, i + 1, uri, middle, caps, budget)


def _complete_parses(
    items: tuple[_Node, ...],
    i: int,
    uri: str,
    pos: int,
    caps: list[_Capture],
    budget: _Budget,
    dead: set[int],
) -> Iterator[None]:
    """Parses of the top-level parts that end exactly at the end of the URI.

    `dead` remembers (part, position) pairs from which no parse reaches the end, so each is
    explored once: this is what keeps adjacent expressions from exploding.
    """
    if i == len(items):
        if pos == len(uri):
            yield None
        return
    key = i * (len(uri) + 1) + pos
    if key in dead:
        return
    reached = False
    for middle in _parses(items[i], uri, pos, caps, budget):
        for done in _complete_parses(items, i + 1, uri, middle, caps, budget, dead):
            reached = True
            yield done
    if not reached:
        dead.add(key)


_FALLBACK_STEPS: Final = 10_000


def match(template: str | ParsedTemplate, uri: str) -> Values | None:
    """Values that expand `template` to `uri` (percent-decoded), or None; see the package docstring.

    A malformed template raises `TemplateError`. The result always re-expands to `uri`
    (up to percent-encoding normalization).
    """
    parsed = _coerce(template)
    normalized = _normalize(uri)
    strict = _matcher(parsed.text)
    relaxed = _matcher(parsed.text, relaxed=True)
    for matcher in (strict,) if relaxed.regex.pattern == strict.regex.pattern else (strict, relaxed):
        values = _match_with(parsed, matcher, normalized)
        if values is not None:
            return values
    return None


def _plausible(matcher: _Matcher, uri: str) -> bool:
    """Cheap necessary conditions: characters, literals in order, the trailing literal."""
    if not set(uri) <= matcher.alphabet or not uri.endswith(matcher.suffix):
        return False
    position = 0
    for literal in matcher.literals:
        found = uri.find(literal, position)
        if found < 0:
            return False
        position = found + len(literal)
    return True


def _match_with(parsed: ParsedTemplate, matcher: _Matcher, normalized: str) -> Values | None:
    """The regex's parse if it confirms, else the first confirmed parse of a bounded search."""
    if not _plausible(matcher, normalized):
        return None
    if matcher.safe:
        m = matcher.regex.fullmatch(normalized)
        if m is None:
            return None  # no parse at all: the search cannot find one either
        captures: list[_Capture] = [(slot, m[name]) for name, slot in matcher.groups if m[name] is not None]
        captures += [(i, m[f"e{i}"]) for i in range(matcher.expression_count)]
        values = _confirmed(parsed, captures, normalized)
        if values is not None:
            return values
    caps: list[_Capture] = []
    items = matcher.tree.items
    try:
        for _ in _complete_parses(items, 0, normalized, 0, caps, _Budget(_FALLBACK_STEPS), set()):
            values = _confirmed(parsed, caps, normalized)
            if values is not None:
                return values
    except _NoMatch:
        pass  # out of budget: reported as no match
    return None


def match_all(templates: Iterable[TemplateEntry], uri: str) -> list[TemplateMatch]:
    """Every template (of every server) that produces `uri`, most specific first.

    Order: longest literal text, then fewer distinct variables, then the order given. Malformed
    templates are skipped (they cannot produce anything).
    """
    normalized = _normalize(uri)
    found: list[tuple[tuple[int, int, int], TemplateMatch]] = []
    for position, entry in enumerate(templates):
        try:
            parsed = parse_template(entry.uri_template)
        except TemplateError:
            continue
        if not normalized.startswith(_normalize(_encode_keeping(parsed.literal_prefix))):
            continue
        values = match(parsed, uri)
        if values is None:
            continue
        key = (-parsed.literal_length, len(parsed.names), position)
        found.append((key, TemplateMatch(entry, values, parsed.literal_length)))
    found.sort(key=lambda item: item[0])
    return [item for _, item in found]


# ------------------------------------------------------------------------------------------ round trips


def _canonical(var: Variable, value: object) -> object:
    """A value up to the representation-only ambiguities listed in the package docstring."""
    spec = _OPS[var.operator]
    unbounded = Variable(var.name, var.operator, var.explode, None)
    if value is None or (not isinstance(value, str) and not value):
        return None
    if spec.allow_reserved:
        return _normalize(_expand_expression(Expression(var.operator, (unbounded,)), {var.name: value}))
    if var.operator == "" and value in ("", [""]):
        return None
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Mapping):
        items = [(str(k), str(v)) for k, v in value.items()]
        if not var.explode:
            return tuple(x for pair in items for x in pair)
        if spec.named and all(k == var.name for k, _ in items):
            return tuple(v for _, v in items)
        return ("=", tuple(items))
    assert isinstance(value, Sequence)
    return tuple(str(item) for item in value)


def round_trips(template: str | ParsedTemplate, values: Mapping[str, InputValue]) -> bool:
    """Whether `match(expand(t, v))` gives `v` back, up to representation-only ambiguity.

    False means the URI cannot carry these values faithfully (adjacent variables swallowing each
    other, a value longer than its prefix, list items that would split differently, ...), so a form
    can flag the field. Raises like `expand` for a malformed template or wrong value types.
    """
    parsed = _coerce(template)
    uri = expand(parsed, values)
    matched = match(parsed, uri)
    if matched is None:
        return False
    for var in parsed.variables:
        if _canonical(var, values.get(var.name)) != _canonical(var, matched.get(var.name)):
            return False
    return True
