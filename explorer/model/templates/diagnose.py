"""Explain in plain sentences why a URI does or does not resolve through a template.

Why a module of its own: when `match` says no, the form and the CLI still need best-effort values to
prefill and the reasons (bad characters, parameter order, a missing literal); this is lenient, linear-time
text work, kept apart from the strict matcher.
"""

from __future__ import annotations

import urllib.parse
from itertools import pairwise

from explorer.model.templates.expansion import expand
from explorer.model.templates.matching import gave_up_after, match, one_or_list
from explorer.model.templates.percent import (
    RESERVED,
    UNRESERVED,
    URI_CHARS,
    is_triplet,
    normalize_pct,
    pct,
)
from explorer.model.templates.syntax import (
    OPERATOR_RULES,
    Expression,
    Literal,
    MatchReport,
    ParsedTemplate,
    TemplateError,
    TemplateTooLarge,
    Value,
    Values,
    Variable,
    as_map,
    coerce_value,
)
from explorer.sanitize import sanitize_line


def diagnose(template: str | ParsedTemplate, uri: str) -> MatchReport:
    """Explain whether `uri` resolves through `template`, and if not, why, in plain sentences.

    On a strict match: ``matched=True`` and the values. Otherwise a lenient match (values may hold
    raw reserved characters, parameters in any order, ...) gives best-effort ``values`` to prefill a
    form, ``problems`` says what is wrong, and ``expanded`` is what those values would expand to.
    A malformed template, or one too large to use, is reported as a problem, not raised.
    """
    try:
        parsed = coerce_value(template)
    except TemplateTooLarge as error:
        return MatchReport(False, None, [str(error)])
    except TemplateError as error:
        return MatchReport(False, None, [f"the template is malformed: {error}"])
    values = match(parsed, uri)
    if values is not None:
        return MatchReport(True, values, [], expand(parsed, values))
    normalized = normalize_pct(uri)
    problems = _encoding_problems(normalized)
    prefix = normalize_pct(parsed.literal_prefix)
    if not normalized.startswith(prefix):
        problems.append(f"the URI does not start with {prefix!r}, the template's text before its variables")
        return MatchReport(False, None, problems)
    texts, extra, layout = _lenient_split(parsed, normalized)
    problems.extend(layout)
    if texts is None:
        return MatchReport(False, None, problems)
    uses: list[tuple[Variable, Value]] = []  # each use of a variable and the value the URI gives it there
    for expr, text in zip(parsed.expressions, texts, strict=True):
        if text:
            problems.extend(_expression_problems(parsed, expr, text, uses))
    loose = _first_values(uses)
    problems.extend(_disagreements(parsed, uses))
    if extra:
        what = "a query" if extra.startswith("?") else "a fragment"
        problems.append(f"the URI has {what} {extra!r} that the template has no place for")
    expanded: str | None = None
    try:
        expanded = expand(parsed, loose)
    except (TemplateError, TypeError, UnicodeError):
        expanded = None
    if expanded is not None and normalize_pct(expanded) != normalized:
        problems.append(f"the value would not round-trip: expand gives {expanded}")
    if not problems:
        steps = gave_up_after(parsed, normalized)
        if steps is not None:
            problems.append(
                f"the matcher gave up after {steps:,} steps without finding how the URI fits the template "
                f"{parsed.text} (too many ways to split it between adjacent variables); it may still fit"
            )
        else:
            problems.append(f"the URI does not match the template {parsed.text}")
    return MatchReport(False, loose or None, list(dict.fromkeys(problems)), expanded)


def _first_values(uses: list[tuple[Variable, Value]]) -> Values:
    """One value per variable: its first use without a prefix, as `match` takes it, else its first."""
    values: Values = {}
    for prefixed in (False, True):
        for var, value in uses:
            if bool(var.prefix) == prefixed:
                values.setdefault(var.name, value)
    return values


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_SHOWN_CHARS = 40  # a value quoted in a sentence: sanitized and cut, the sentence is about where it differs


def _shown(value: Value) -> str:
    if isinstance(value, str):
        text = value
    elif isinstance(value, dict):
        text = ",".join(f"{k}={v}" for k, v in value.items())
    elif isinstance(value, tuple):  # `Pairs`
        text = ",".join(f"{k}={v}" for k, v in value)
    else:
        text = ",".join(value)
    return "'" + sanitize_line(text, _SHOWN_CHARS) + "'"


def _one(value: Value) -> Value:
    """A list of one item is that item: ``{x}`` and ``{/x*}`` put the same into the URI for either."""
    return value[0] if isinstance(value, list) and len(value) == 1 else value


def _disagreements(parsed: ParsedTemplate, uses: list[tuple[Variable, Value]]) -> list[str]:
    """A variable the template uses more than once, to which the URI gives two values (``x://{id}/items/{id}``
    on ``x://1/items/2``): a variable has one value, so no values give the URI. One sentence per variable,
    naming its two places (its n-th use in the template) and the two values."""
    places: dict[int, int] = {}  # id of a use -> its place among the uses of its name in the template
    seen: dict[str, int] = {}
    for var in parsed.variables:
        places[id(var)] = seen[var.name] = seen.get(var.name, 0) + 1
    by_name: dict[str, list[tuple[Variable, Value]]] = {}
    for var, value in uses:
        by_name.setdefault(var.name, []).append((var, value))
    problems: list[str] = []
    for name, found in by_name.items():
        if len(found) < 2:
            continue
        ref_var, ref_value = next(((v, x) for v, x in found if not v.prefix), found[0])
        for var, value in found:
            if var is ref_var:
                continue
            problem = _disagreement(name, (ref_var, ref_value), (var, value), places, seen[name])
            if problem is not None:
                problems.append(problem)
                break
    return problems


def _disagreement(
    name: str,
    first: tuple[Variable, Value],
    other: tuple[Variable, Value],
    places: dict[int, int],
    count: int,
) -> str | None:
    """Why two uses of one variable cannot hold their values (None when they agree). `first` is the use
    `match` takes the value of (its first without a prefix); a use with a prefix holds the first
    characters of that value."""
    (ref_var, ref_raw), (var, raw) = first, other
    ref_value, value = _one(ref_raw), _one(raw)

    def where(v: Variable) -> str:
        n = places.get(id(v), 0)
        ordinal = _ORDINALS[n - 1] if 0 < n <= len(_ORDINALS) else f"#{n}"
        return f"its {ordinal} place ({{{v.operator}{v}}})"

    times = "twice" if count == 2 else f"{count} times"
    said = f"the template uses {sanitize_line(name, _SHOWN_CHARS)} {times}"
    if var.prefix or ref_var.prefix:
        keep = min(p for p in (var.prefix, ref_var.prefix) if p)
        if not (isinstance(ref_value, str) and isinstance(value, str)) or ref_value[:keep] == value[:keep]:
            return None
        if not ref_var.prefix:
            characters = "character" if keep == 1 else "characters"
            return (
                f"{said}: it is {_shown(ref_value)} at {where(ref_var)}, so {where(var)} holds its first "
                f"{keep} {characters}, {_shown(ref_value[:keep])}, but the URI has {_shown(value)} there"
            )
    elif ref_value == value:
        return None
    return (
        f"{said}, and the URI gives it two values: {_shown(ref_value)} at {where(ref_var)} and "
        f"{_shown(value)} at {where(var)} (a variable has one value wherever it is used)"
    )


def _encoding_problems(uri: str) -> list[str]:
    bad = dict.fromkeys(uri[i : i + 3] for i, c in enumerate(uri) if c == "%" and not is_triplet(uri, i))
    return [f"{b!r} is not valid percent-encoding (a literal '%' is written %25)" for b in bad]


def _lenient_split(parsed: ParsedTemplate, uri: str) -> tuple[list[str] | None, str, list[str]]:
    """Each expression's text, lined up by the literals only (linear time, no backtracking).

    Returns (texts or None, extra query/fragment the template has no place for, problems).
    A literal is placed at its last possible occurrence (earlier expressions are greedy); within a
    run of adjacent expressions, a later one starts at its operator character (``?``, ``/``, ...).
    """
    parts = parsed.parts
    starts: dict[int, int] = {}
    limit = len(uri)
    for i in range(len(parts) - 1, -1, -1):
        part = parts[i]
        if not isinstance(part, Literal):
            continue
        literal = normalize_pct(part.encoded)
        if i == len(parts) - 1 and i > 0:
            if not uri.endswith(literal):
                return None, "", [f"the URI does not end with {literal!r} as the template {parsed.text} does"]
            start = len(uri) - len(literal)
        else:
            start = 0 if i == 0 else uri.rfind(literal, 0, limit)
        if start < 0 or start + len(literal) > limit:
            return None, "", [f"the URI has no {literal!r} where the template {parsed.text} needs it"]
        starts[i] = start
        limit = start
    texts: list[str] = []
    extra = ""
    problems: list[str] = []
    position = 0
    i = 0
    while i < len(parts):
        part = parts[i]
        if isinstance(part, Literal):
            position = starts[i] + len(normalize_pct(part.encoded))
            i += 1
            continue
        j = i
        while j < len(parts) and isinstance(parts[j], Expression):
            j += 1
        run = [p for p in parts[i:j] if isinstance(p, Expression)]
        region = uri[position : starts[j] if j < len(parts) else len(uri)]
        if j == len(parts):
            operators = {e.operator for e in run}
            cuts = [len(region)]
            if not operators & {"?", "&", "+", "#"} and "?" in region:
                cuts.append(region.index("?"))
            if not operators & {"+", "#"} and "#" in region:
                cuts.append(region.index("#"))
            region, extra = region[: min(cuts)], region[min(cuts) :]
        current = 0
        for k, expr in enumerate(run):
            end = len(region)
            if k + 1 < len(run) and OPERATOR_RULES[run[k + 1].operator].first:
                found = region.find(
                    OPERATOR_RULES[run[k + 1].operator].first,
                    current + len(OPERATOR_RULES[expr.operator].first),
                )
                end = found if found >= 0 else len(region)
            texts.append(region[current:end])
            current = end
        i = j
    return texts, extra, problems


def _char_problems(who: str, expr: Expression, body: str, allowed: set[str]) -> list[str]:
    problems: list[str] = []
    for char in dict.fromkeys(body):
        if char in allowed or char == "%":
            continue
        if char in URI_CHARS:
            problems.append(
                f"value of {who} contains {char!r}, which {expr.text} would encode as {pct(char)}"
            )
        else:
            problems.append(
                f"value of {who} contains {char!r}, which is not allowed in a URI "
                f"({expr.text} would encode it as {pct(char)})"
            )
    try:
        urllib.parse.unquote(body, errors="strict")
    except UnicodeDecodeError:
        problems.append(f"the percent-encoded bytes in the value of {who} are not valid UTF-8")
    return problems


def _loose(text: str) -> str:
    return urllib.parse.unquote(text, errors="replace")


def _loose_value(var: Variable, body: str) -> Value:
    spec = OPERATOR_RULES[var.operator]
    if spec.allow_reserved:
        return _loose(body)
    if var.explode:
        items = body.split(spec.sep)
        if all("=" in item for item in items):
            return as_map([(_loose(k), _loose(v)) for k, _, v in (item.partition("=") for item in items)])
        return [_loose(item) for item in items]
    return one_or_list([_loose(item) for item in body.split(",")])


def _expression_problems(
    parsed: ParsedTemplate, expr: Expression, text: str, uses: list[tuple[Variable, Value]]
) -> list[str]:
    """Problems of one unnamed expression's text; adds to `uses` each variable's best-effort value."""
    spec = OPERATOR_RULES[expr.operator]
    if spec.first and not text.startswith(spec.first):
        return [f"{expr.text} writes {spec.first!r} first, the URI has {text[:1]!r} there"]
    if spec.named:
        return _named_problems(parsed, expr, text[1:], uses)
    body = text[len(spec.first) :]
    variables = expr.variables
    allowed = set(UNRESERVED) | (set(RESERVED) if spec.allow_reserved else set())
    if not spec.allow_reserved:
        if len(variables) > 1 or any(v.explode for v in variables):
            allowed.add(spec.sep)
        if any(not v.explode for v in variables):
            allowed.add(",")
        if any(v.explode for v in variables):
            allowed.add("=")
    who = variables[0].name if len(variables) == 1 else " / ".join(v.name for v in variables)
    problems = _char_problems(who, expr, body, allowed)
    chunks = [body] if len(variables) == 1 else body.split(spec.sep)
    if len(chunks) > len(variables):
        chunks[len(variables) - 1 :] = [spec.sep.join(chunks[len(variables) - 1 :])]
    for var, chunk in zip(variables, chunks, strict=False):
        value = _loose_value(var, chunk)
        uses.append((var, value))
        if var.prefix and isinstance(value, str) and len(value) > var.prefix:
            problems.append(
                f"value of {var.name} has {len(value)} characters but {expr.text} keeps only the first "
                f"{var.prefix}"
            )
    return problems


def _named_problems(
    parsed: ParsedTemplate, expr: Expression, body: str, uses: list[tuple[Variable, Value]]
) -> list[str]:
    """Parameters in any order, unknown names, missing '=', repeats; adds to `uses`."""
    spec = OPERATOR_RULES[expr.operator]
    noun = "query parameter" if spec.sep == "&" else "parameter"
    order: dict[str, tuple[int, Variable, Expression]] = {}
    for e in parsed.expressions:
        if OPERATOR_RULES[e.operator].named:
            for v in e.variables:
                order.setdefault(v.name, (len(order), v, e))
    exploded = [v for v in expr.variables if v.explode]
    problems: list[str] = []
    collected: dict[str, list[str]] = {}
    keyed: list[tuple[str, str]] = []  # pairs an exploded variable takes as its map (a key may repeat)
    for piece in body.split(spec.sep):
        if not piece:
            continue
        raw_name, eq, raw = piece.partition("=")
        name = _loose(raw_name)
        if name not in order:
            if exploded:
                keyed.append((name, _loose(raw)))
                continue
            names = ", ".join(v.name for v in expr.variables)
            problems.append(f"unknown {noun} {name!r} ({expr.text} has {names})")
            continue
        _, var, owner = order[name]
        if not eq and OPERATOR_RULES[owner.operator].ifemp == "=":
            problems.append(f"{noun} {name!r} has no '=': {owner.text} always writes {name}=")
        allowed = set(UNRESERVED) | {","}
        problems.extend(_char_problems(name, owner, raw, allowed))
        collected.setdefault(name, []).append(raw)
    if keyed:
        uses.append((exploded[0], as_map(keyed)))
    for name, raws in collected.items():
        _, var, owner = order[name]
        mine = next((v for v in expr.variables if v.name == name), var)  # else a parameter of another
        if var.explode:
            uses.append((mine, [_loose(r) for r in raws]))
            continue
        if len(raws) > 1:
            problems.append(f"{noun} {name!r} appears {len(raws)} times but {owner.text} writes it once")
        value = one_or_list([_loose(item) for item in raws[0].split(",")])
        uses.append((mine, value))
        if var.prefix and isinstance(value, str) and len(value) > var.prefix:
            problems.append(
                f"value of {name} has {len(value)} characters but {owner.text} keeps only the first "
                f"{var.prefix}"
            )
    seen = list(collected)
    for first, second in pairwise(seen):
        if order[first][0] > order[second][0]:
            expected = ", ".join(sorted(collected, key=lambda n: order[n][0]))
            problems.append(
                f"{noun} {first!r} comes before {second!r}; the template expands them in the order {expected}"
            )
            break
    return problems
