"""Reverse matching: which values expand a template to a URI, and which templates produce a URI.

Why a module of its own: a typed URI resolves to "which template of which server, with which values";
every answer is confirmed by re-expansion, so a match always round-trips (rules in the package docstring).

How: one search over the template's parts, with an explicit stack (no recursion, whatever the size of
the template or the URI), that remembers the (part, position) pairs from which the rest cannot match.
An expression is tried at each end its characters allow, longest first; the values inside it are
read by a small search of their own: for named operators over the ``k=v`` pairs, split once and handed
to the variables in order by name (linear in the URI when the names are unambiguous).
"""

from __future__ import annotations

import urllib.parse
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from itertools import islice, product
from typing import Final, TypeAlias, TypeVar

from explorer.model.entries import TemplateEntry
from explorer.model.templates.expansion import expand, expand_expression
from explorer.model.templates.pattern import ExprPattern, Matcher, Part, Slot, matcher_for
from explorer.model.templates.percent import (
    NoMatch,
    decode_reserved,
    normalize_pct,
    pct_decode,
)
from explorer.model.templates.syntax import (
    OPERATOR_RULES,
    Expression,
    Pairs,
    ParsedTemplate,
    TemplateError,
    TemplateMatch,
    Value,
    Values,
    Variable,
    as_map,
    coerce_value,
    is_pairs,
    parse_template,
)

_SPLIT_CANDIDATES: Final = 256


def _split_pairs(text: str, sep: str) -> Iterator[list[tuple[str, str]]]:
    """Ways to split ``k=v<sep>k=v``; under ``.`` keys and values may contain the separator.

    "=" is always encoded inside keys and values, so each "=" starts a value; the separator before
    the next key is tried from the last one backwards (keys rarely hold dots, values more often).
    """
    chunks = text.split("=")
    if len(chunks) < 2:
        return
    segments = chunks[1:-1]  # each: a value, the separator, the next key
    cuts: list[list[int]] = []
    for segment in segments:
        found: list[int] = []
        at = segment.rfind(sep)
        while at >= 0:
            found.append(at)
            at = segment.rfind(sep, 0, at)
        cuts.append(found)
    for choice in islice(product(*cuts), _SPLIT_CANDIDATES):
        pairs: list[tuple[str, str]] = []
        key = chunks[0]
        for segment, cut in zip(segments, choice, strict=True):
            pairs.append((key, segment[:cut]))
            key = segment[cut + 1 :]
        pairs.append((key, chunks[-1]))
        yield pairs


def _exploded_dict(var: Variable, text: str) -> dict[str, str] | Pairs:
    """The first split of an exploded map's text that expands back to exactly that text."""
    spec = OPERATOR_RULES[var.operator]
    alone = Expression(var.operator, (Variable(var.name, var.operator, True),))
    for pairs in _split_pairs(text, spec.sep):
        try:
            candidate = _as_map(pairs)
        except NoMatch:
            continue
        if normalize_pct(expand_expression(alone, {var.name: candidate})) == spec.first + text:
            return candidate
    raise NoMatch


def _as_map(pairs: Iterable[tuple[str, str]]) -> dict[str, str] | Pairs:
    """The decoded pairs as a dict, or as `Pairs` when a key repeats (``?a=1&a=2``: both values kept)."""
    return as_map([(pct_decode(key), pct_decode(value)) for key, value in pairs])


def one_or_list(items: list[str]) -> Value:
    return items[0] if len(items) == 1 else items


def _parse_slot(slot: Slot, text: str) -> Value:
    """Turn the text one variable took into a value of the slot's shape."""
    var = slot.var
    spec = OPERATOR_RULES[var.operator]
    kind = slot.kind
    if kind == "raw":
        return decode_reserved(text)
    if kind == "str":
        return pct_decode(text)
    if kind == "list":
        return [pct_decode(p) for p in text.split(",")]
    if kind == "items":
        return one_or_list([pct_decode(p) for p in text.split(",")])
    if kind == "xlist":
        return [pct_decode(p) for p in text.split(spec.sep)]
    if kind == "xdict":
        return _exploded_dict(var, text)
    name_length = len(normalize_pct(var.name))
    if kind == "nval":
        rest = text[name_length:]
        if rest == "=" and spec.ifemp == "":  # `;x=`: "" would give a bare `;x`, so this is [""]
            return [""]
        return "" if not rest else one_or_list([pct_decode(p) for p in rest[1:].split(",")])
    if kind == "nxlist":
        if len(text) == name_length:  # a bare `;x`: uritemplate writes `x=` for [""], `x` for ""
            return ""
        return [pct_decode(p[name_length + 1 :]) for p in text.split(spec.sep)]
    pairs = [p.partition("=") for p in text.split(spec.sep)]
    return _as_map((k, v) for k, _, v in pairs)


_Capture: TypeAlias = tuple[Slot | int, str]  # a variable's text, or an expression's whole text
_Move: TypeAlias = tuple[tuple[int, int], Sequence[_Capture]]  # the next (part, position), what it took


def _extract(captures: Iterable[_Capture], single: frozenset[str] = frozenset()) -> Values:
    """Values from one parse; a repeated variable takes its first unprefixed occurrence.

    A variable in `single` (used with a prefix somewhere) takes a string, as the form reads it: the lone
    item of an exploded use (`{/x*}/p/{x:3}`) is that string; a list there could never re-expand.
    """
    captured = list(captures)
    empty = {key for key, text in captured if isinstance(key, int) and not text}
    values: Values = {}
    for prefixed in (False, True):
        for key, text in captured:
            if isinstance(key, int) or key.expr_index in empty or bool(key.var.prefix) != prefixed:
                continue
            values.setdefault(key.var.name, _parse_slot(key, text))
    for name in single:
        value = values.get(name)
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
            values[name] = value[0]
    return values


def _confirmed(parsed: ParsedTemplate, captures: Iterable[_Capture], normalized: str) -> Values | None:
    """The parse's values if they decode and re-expand to the URI, else None."""
    try:
        values = _extract(captures, frozenset(v.name for v in parsed.variables if v.prefix))
        if normalize_pct(expand(parsed, values)) == normalized:
            return values
    except (NoMatch, UnicodeError, TypeError):  # `UnusableValue`: a repeated prefixed variable got a list
        pass
    return None


_SEARCH_STEPS: Final = 10_000
_MAX_READINGS: Final = 16


class _Budget:
    """Caps the search, so a pathological template or URI cannot hang the UI."""

    def __init__(self, steps: int) -> None:
        self.steps = steps

    def spend(self, steps: int = 1) -> None:
        self.steps -= steps
        if self.steps < 0:
            raise NoMatch


# ------------------------------------------------------------------------------------------------ search

_S = TypeVar("_S", bound=Hashable)
_C = TypeVar("_C")


def _paths(
    start: _S, moves: Callable[[_S], Iterator[tuple[_S, Sequence[_C]]]], done: Callable[[_S], bool]
) -> Iterator[list[_C]]:
    """Every path from `start` to a done state, in the order `moves` offers them, as its captures.

    Depth-first with an explicit stack: nothing recurses, however long the path. A state from which no
    done state was reached is remembered and never explored again, which keeps adjacent expressions
    (``{a}{b}{c}``) polynomial; the caller's budget caps the rest.
    """
    dead: set[_S] = set()
    completions = 0
    path: list[_C] = []
    if done(start):
        completions += 1
        yield []
    # (state, its moves, len(path) before the move into it, completions when it was entered)
    stack: list[tuple[_S, Iterator[tuple[_S, Sequence[_C]]], int, int]] = [(start, moves(start), 0, 0)]
    while stack:
        state, pending, length, seen = stack[-1]
        step = next(pending, None)
        if step is None:
            stack.pop()
            if completions == seen:
                dead.add(state)
            del path[length:]
            continue
        target, captured = step
        if target in dead:
            continue
        before = len(path)
        path.extend(captured)
        entered = completions
        if done(target):
            completions += 1
            yield list(path)
        stack.append((target, moves(target), before, entered))


def _defined(captures: Sequence[_Capture]) -> int:
    """How many variables a parse defines (before confirming it): to skip parses that cannot rank."""
    empty = {key for key, text in captures if isinstance(key, int) and not text}
    return len({key.var.name for key, _ in captures if isinstance(key, Slot) and key.expr_index not in empty})


class _Search:
    """One match of one URI against one template: the moves of the search, and what they share."""

    def __init__(self, matcher: Matcher, uri: str, budget: _Budget) -> None:
        self.parts = matcher.parts
        self.uri = uri
        self.budget = budget
        self._seps: dict[tuple[int, int], tuple[int, list[int]]] = {}

    def readings(self) -> Iterator[list[_Capture]]:
        """Every decomposition of the URI into the template's parts: most variables first, then in
        preference order (an earlier expression greedy, ...).

        A first pass visits every reachable (part, position) once and learns how many variables can
        still be defined from it; the second walks the moves best first. When the first pass runs out
        of budget, the second walks them in plain preference order.
        """
        end = len(self.parts), len(self.uri)

        def done(state: tuple[int, int]) -> bool:
            return state == end

        budget = self.budget.steps
        try:
            table = self._plan(done)
        except NoMatch:
            self.budget.steps = budget  # the walk gets a budget of its own
            return _paths((0, 0), self._moves, done)

        def planned(state: tuple[int, int]) -> Iterator[tuple[tuple[int, int], Sequence[_Capture]]]:
            for move in table.get(state, ()):
                self.budget.spend()
                yield move

        return _paths((0, 0), planned, done)

    def _plan(self, done: Callable[[tuple[int, int]], bool]) -> dict[tuple[int, int], list[_Move]]:
        """Every state's moves that can reach the end, ordered by the variables they lead to defining.

        Iterative post-order over the states (the parts only move forward, so there is no cycle).
        """
        best: dict[tuple[int, int], int | None] = {}
        table: dict[tuple[int, int], list[_Move]] = {}
        start = (0, 0)
        stack: list[tuple[tuple[int, int], Iterator[_Move], list[tuple[_Move, int]]]] = [
            (start, self._moves(start), [])
        ]
        while stack:
            state, pending, collected = stack[-1]
            step = next(pending, None)
            if step is not None:
                target = step[0]
                collected.append((step, _defined(step[1])))
                if target not in best:
                    stack.append((target, self._moves(target), []))
                continue
            stack.pop()
            scored = [
                (weight + reach, n, move)
                for n, (move, weight) in enumerate(collected)
                if (reach := best[move[0]]) is not None
            ]
            if done(state):
                best[state] = 0
            elif scored:
                best[state] = max(score for score, _, _ in scored)
            else:
                best[state] = None
            scored.sort(key=lambda item: (-item[0], item[1]))
            table[state] = [move for _, _, move in scored]
        return table

    def _moves(self, state: tuple[int, int]) -> Iterator[tuple[tuple[int, int], Sequence[_Capture]]]:
        i, pos = state
        if i == len(self.parts):
            return
        part = self.parts[i]
        self.budget.spend()
        if isinstance(part, str):
            if self.uri.startswith(part, pos):
                yield (i + 1, pos + len(part)), ()
            return
        following = self.parts[i + 1] if i + 1 < len(self.parts) else None
        for end, captures in self._expression(part, pos, following):
            yield (i + 1, end), captures

    def _fits(self, following: Part | None, end: int) -> bool:
        """Whether the part after an expression can start at `end` (a cheap necessary condition)."""
        if following is None:
            return end == len(self.uri)
        if isinstance(following, str):
            return self.uri.startswith(following, end)
        return True

    def _ends(self, low: int, high: int, following: Part | None) -> Iterator[int]:
        """Where an expression whose text may span [.., high] can end, from `low` up, longest first."""
        uri = self.uri
        if following is None:
            if high == len(uri):
                yield high
        elif isinstance(following, str):
            found = uri.rfind(following, low, high + len(following))
            while found >= 0:
                yield found
                found = uri.rfind(following, low, found + len(following) - 1)
        else:
            yield from range(high, low - 1, -1)

    def _separators(self, expr: ExprPattern, start: int) -> tuple[int, list[int]]:
        """How far the expression's text can reach from `start`, and where its separators are."""
        key = (expr.index, start)
        known = self._seps.get(key)
        if known is None:
            reach = expr.body.match(self.uri, start)
            high = reach.end() if reach is not None else start
            seps: list[int] = []
            found = self.uri.find(expr.sep, start, high)
            while found >= 0:
                seps.append(found)
                found = self.uri.find(expr.sep, found + 1, high)
            known = self._seps[key] = (high, seps)
        return known

    def _expression(
        self, expr: ExprPattern, pos: int, following: Part | None
    ) -> Iterator[tuple[int, list[_Capture]]]:
        """(end, captures) for each reading of the expression from `pos`, longest text first."""
        uri = self.uri
        if uri.startswith(expr.first, pos):
            start = pos + len(expr.first)
            high, seps = self._separators(expr, start)
            for end in self._ends(start, high, following):
                if end == pos:
                    continue  # an empty text is the expression left undefined (below)
                self.budget.spend()
                inner = (
                    self._named(expr, start, end, seps)
                    if expr.named
                    else self._unnamed(expr, start, end, seps)
                )
                for captures in islice(inner, _MAX_READINGS):
                    captures.append((expr.index, uri[pos:end]))
                    yield end, captures
        if self._fits(following, pos):
            yield pos, [(expr.index, "")]

    # ------------------------------------------------------------------------------ inside an expression

    def _valid(self, slot: Slot, start: int, end: int) -> bool:
        """Whether a variable's text reads as a value (decodes).

        Checked as soon as the text is chosen, so a parse that cannot be confirmed is not multiplied
        by everything after it; the cost of reading a long text is charged to the budget.
        """
        self.budget.spend((end - start) // 16)
        try:
            _parse_slot(slot, self.uri[start:end])
        except (NoMatch, UnicodeError):
            return False
        return True

    def _named(self, expr: ExprPattern, start: int, end: int, seps: list[int]) -> Iterator[list[_Capture]]:
        """Readings of ``k=v<sep>k=v`` in [start, end): each pair goes to the next variable of its name.

        A pair whose key names the current exploded variable stays with it; one that names a later
        variable goes to it first; any pair can also go to an exploded variable as a dict entry.
        """
        uri = self.uri
        starts = [start] + [s + 1 for s in seps[: bisect_left(seps, end)]]
        count = len(starts)
        variables = expr.variables

        def stop(i: int) -> int:
            return starts[i + 1] - 1 if i + 1 < count else end

        def key(i: int) -> str:
            equals = uri.find("=", starts[i], stop(i))
            return uri[starts[i] : equals if equals >= 0 else stop(i)]

        def moves(state: tuple[int, int]) -> Iterator[tuple[tuple[int, int], Sequence[tuple[int, int]]]]:
            i, j = state
            if i == count:
                return
            self.budget.spend()
            k = key(i)
            current = variables[j] if j >= 0 else None
            exploded = current is not None and current.var.explode
            if exploded and current is not None and k == current.key:
                yield (i + 1, j), ((j, i),)
            named = expr.keyed.get(k, ())
            at = bisect_right(named, j)
            target = named[at] if at < len(named) else -1
            if target >= 0:
                yield (i + 1, target), ((target, i),)
            if exploded and current is not None and k != current.key:
                yield (i + 1, j), ((j, i),)
            for other in expr.exploded[bisect_right(expr.exploded, j) :]:
                if other != target:
                    yield (i + 1, other), ((other, i),)

        for path in _paths((0, -1), moves, lambda state: state[0] == count):
            captures: list[_Capture] = []
            run_start = 0
            for n, (j, i) in enumerate(path):
                if n + 1 < len(path) and path[n + 1][0] == j:
                    continue
                var = variables[j]
                pieces = range(path[run_start][1], i + 1)
                kind = "nval"
                if var.var.explode:
                    kind = "nxlist" if all(key(p) == var.key for p in pieces) else "nxdict"
                slot = Slot(expr.index, var.var, kind)
                if not self._valid(slot, starts[pieces[0]], stop(i)):
                    break
                captures.append((slot, uri[starts[pieces[0]] : stop(i)]))
                run_start = n + 1
            else:
                yield captures

    def _unnamed(self, expr: ExprPattern, start: int, end: int, seps: list[int]) -> Iterator[list[_Capture]]:
        """Readings of ``v<sep>v`` in [start, end): variables in order, any of them undefined."""
        uri = self.uri
        variables = expr.variables
        last = len(variables) - 1
        sep = expr.sep

        def moves(
            state: tuple[int, int],
        ) -> Iterator[tuple[tuple[int, int], Sequence[tuple[Slot, int, int]]]]:
            p, j = state
            if j >= 0:
                if p >= end or uri[p] != sep:
                    return
                p += 1
            for t in range(j + 1, last + 1):
                for shape in variables[t].shapes:
                    self.budget.spend()
                    reach = shape.reach.match(uri, p, end)
                    limit = reach.end() if reach is not None else p
                    ends: list[int] = [end] if limit == end else []
                    if t < last:
                        ends = seps[bisect_left(seps, p) : bisect_right(seps, min(limit, end - 1))] + ends
                    for stop in ends if shape.lazy else reversed(ends):
                        self.budget.spend()
                        if shape.regex.fullmatch(uri, p, stop) and self._valid(shape.slot, p, stop):
                            yield (stop, t), ((shape.slot, p, stop),)

        for path in _paths((start, -1), moves, lambda state: state[0] == end and state[1] >= 0):
            yield [(slot, uri[a:b]) for slot, a, b in path]


# ---------------------------------------------------------------------------------------------- matching


def _plausible(matcher: Matcher, uri: str) -> bool:
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


def _names_another(parsed: ParsedTemplate, values: Values) -> bool:
    """Whether an exploded named variable holds a dict entry whose key names another variable."""
    names = {v.name for v in parsed.variables} | {urllib.parse.unquote(v.name) for v in parsed.variables}
    for var in parsed.variables:
        value = values.get(var.name)
        if not (var.explode and OPERATOR_RULES[var.operator].named):
            continue
        keys = value if isinstance(value, dict) else [key for key, _ in value] if is_pairs(value) else ()
        if any(key in names and key != var.name for key in keys):
            return True
    return False


def match_readings(template: str | ParsedTemplate, uri: str) -> list[Values]:
    """Every reading of `uri` through `template` (values that re-expand to it), the preferred first.

    Preference: readings whose exploded dicts take no pair named after another variable, then the
    readings that define the most variables, then the order of the search (see the package docstring).
    The search runs to its end or to a step budget linear in the URI's length, and keeps the best 16
    readings. A malformed template raises `TemplateError` (one too large, `TemplateTooLarge`).
    """
    parsed = coerce_value(template)
    normalized = normalize_pct(uri)
    matcher = matcher_for(parsed.text)
    if not _plausible(matcher, normalized):
        return []
    # (rank, values); rank, lower first: a dict key naming another variable, fewer variables, then the
    # plain preference order (earlier expressions longer; the search's own order after that)
    kept: list[tuple[tuple[bool, int, tuple[int, ...], int], Values]] = []
    search = _Search(matcher, normalized, _Budget(_SEARCH_STEPS + len(normalized)))
    try:
        for order, captures in enumerate(search.readings()):
            if len(kept) >= _MAX_READINGS and -_defined(captures) >= max(rank[1] for rank, _ in kept):
                continue  # cannot displace any kept reading: not worth confirming
            values = _confirmed(parsed, captures, normalized)
            if values is None or any(values == other for _, other in kept):
                continue
            greedy = tuple(-len(text) for key, text in captures if isinstance(key, int))
            kept.append(((_names_another(parsed, values), -len(values), greedy, order), values))
            if len(kept) > _MAX_READINGS:
                kept.remove(max(kept, key=lambda item: item[0]))
    except NoMatch:
        pass  # out of budget: what was found so far stands
    kept.sort(key=lambda item: item[0])
    return [values for _, values in kept]


def match(template: str | ParsedTemplate, uri: str) -> Values | None:
    """Values that expand `template` to `uri` (percent-decoded), or None; see the package docstring.

    The preferred reading of `match_readings`. A malformed template raises `TemplateError`. The
    result always re-expands to `uri` (up to percent-encoding normalization).
    """
    readings = match_readings(template, uri)
    return readings[0] if readings else None


def match_all(
    templates: Iterable[TemplateEntry], uri: str, *, stop: Callable[[], bool] | None = None
) -> list[TemplateMatch]:
    """Every template (of every server) that produces `uri`, most specific first.

    Order: longest literal text, then fewer distinct variables, then the order given. Malformed
    templates, and templates too large to use, are skipped (they cannot produce anything). Each match
    carries its preferred values and the other readings as `alternatives`. `stop`, asked before each
    template, ends the work early (a UI whose answer is no longer wanted); what was found is returned.
    """
    normalized = normalize_pct(uri)
    found: list[tuple[tuple[int, int, int], TemplateMatch]] = []
    for position, entry in enumerate(templates):
        if stop is not None and stop():
            break
        try:
            parsed = parse_template(entry.uri_template)
        except TemplateError:
            continue
        if not normalized.startswith(normalize_pct(parsed.literal_prefix)):
            continue
        readings = match_readings(parsed, uri)
        if not readings:
            continue
        key = (-parsed.literal_length, len(parsed.names), position)
        found.append((key, TemplateMatch(entry, readings[0], parsed.literal_length, tuple(readings[1:]))))
    found.sort(key=lambda item: item[0])
    return [item for _, item in found]


def gave_up_after(parsed: ParsedTemplate, uri: str) -> int | None:
    """The step budget when `match` stopped at it without a reading (so "no match" is unknown), else None.

    Runs the same search as `match_readings`, with the same budget: linear in the URI, and only asked
    when nothing else explains the failure.
    """
    matcher = matcher_for(parsed.text)
    if not _plausible(matcher, uri):
        return None
    steps = _SEARCH_STEPS + len(uri)
    try:
        for _ in _Search(matcher, uri, _Budget(steps)).readings():
            return None  # a reading was found within the budget: the answer "no" is the matcher's own
    except NoMatch:
        return steps
    return None
