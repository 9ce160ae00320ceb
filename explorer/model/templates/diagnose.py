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
    coerce_value,
)


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
    loose: Values = {}
    for expr, text in zip(parsed.expressions, texts, strict=True):
        if text:
            problems.extend(_expression_problems(parsed, expr, text, loose))
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
            return {_loose(k): _loose(v) for k, _, v in (item.partition("=") for item in items)}
        return [_loose(item) for item in items]
    return one_or_list([_loose(item) for item in body.split(",")])


def _expression_problems(parsed: ParsedTemplate, expr: Expression, text: str, loose: Values) -> list[str]:
    """Problems of one unnamed expression's text; fills `loose` with best-effort values."""
    spec = OPERATOR_RULES[expr.operator]
    if spec.first and not text.startswith(spec.first):
        return [f"{expr.text} writes {spec.first!r} first, the URI has {text[:1]!r} there"]
    if spec.named:
        return _named_problems(parsed, expr, text[1:], loose)
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
        loose.setdefault(var.name, value)
        if var.prefix and isinstance(value, str) and len(value) > var.prefix:
            problems.append(
                f"value of {var.name} has {len(value)} characters but {expr.text} keeps only the first "
                f"{var.prefix}"
            )
    return problems


def _named_problems(parsed: ParsedTemplate, expr: Expression, body: str, loose: Values) -> list[str]:
    """Parameters in any order, unknown names, missing '=', repeats; fills `loose`."""
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
    for piece in body.split(spec.sep):
        if not piece:
            continue
        raw_name, eq, raw = piece.partition("=")
        name = _loose(raw_name)
        if name not in order:
            if exploded:
                keyed = loose.setdefault(exploded[0].name, {})
                if isinstance(keyed, dict):
                    keyed[name] = _loose(raw)
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
    for name, raws in collected.items():
        _, var, owner = order[name]
        if var.explode:
            loose.setdefault(name, [_loose(r) for r in raws])
            continue
        if len(raws) > 1:
            problems.append(f"{noun} {name!r} appears {len(raws)} times but {owner.text} writes it once")
        value = one_or_list([_loose(item) for item in raws[0].split(",")])
        loose.setdefault(name, value)
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
