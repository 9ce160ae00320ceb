"""RFC 6570 URI templates: parse, expand (through `uritemplate`), and match a URI back to its values.

Why: servers advertise resource templates; the explorer fills them in a form and resolves a typed URI
back to "which template of which server, with which values". Filling goes through `uritemplate`
(never string replacement), and matching is confirmed by re-expanding, so a match always round-trips.

API: `parse_template`, `expand`, `match`, `diagnose`, `match_all`, `round_trips` (see each docstring).
Values are ``str``, a list of ``str`` or a ``dict`` of ``str``; a variable that is missing or ``None`` is
undefined and expands to nothing, as are an empty list and an empty dict (RFC 6570 section 2.3).

Matching (one consistent decomposition, always confirmed by re-expansion)
-------------------------------------------------------------------------
Every template compiles to a pattern tree built from the RFC character classes: values of ``{x}``,
``{.x}``, ``{/x}``, ``{;x}``, ``{?x}`` and ``{&x}`` may hold unreserved characters and pct-encoded
triplets only, ``{+x}`` and ``{#x}`` may hold reserved characters too. A raw ``/`` or space in ``{id}``
is therefore not a match (`diagnose` explains why). Values come back percent-decoded, and a candidate
is returned only if its values re-expand to the URI. The tree becomes one anchored regex, used when
its expressions cannot run into each other (then Python's backtracking stays linear); otherwise, and
whenever the regex's parse does not re-expand, a memoized search walks the tree in the same
preference order, capped at 10,000 steps (a very long URI against a template like ``{a}{b}{c}`` may
then be reported as no match rather than hang the UI). Tie-breaking:

- Between expressions the earlier one is greedy: ``{a}{b}`` against ``xyz`` gives ``a="xyz"`` and leaves
  ``b`` undefined; ``{+path}/here`` gives ``path`` everything before the last ``/here``.
- Within one expression variables take one item each, in order, and the last one takes any surplus:
  ``{x,y}`` against ``1024,768`` gives ``x="1024", y="768"``; against ``a`` it gives ``x="a"`` only.
- An expression that expanded to nothing leaves all its variables undefined (``{x}`` against ``""``).
- Named operators (``;``, ``?``, ``&``) must list their parameters in the template's order; any of them
  may be absent; an unknown parameter is no match (unless an exploded variable can take it as a key,
  and never a key that names a later variable). ``{?q}`` needs ``q=``; ``{;x}`` accepts ``x`` for "".
- Non-exploded values come back as ``str`` (no ``,``) or ``list``; exploded ones as ``list``, or as
  ``dict`` when the items are ``key=value`` pairs (named operators: when the keys are not the name).
  ``{+x}`` and ``{#x}`` always give a ``str`` (``,`` and ``=`` are legal inside their values).
- ``{+x}``/``{#x}`` decode only the triplets that expansion would re-create (``%20`` -> space), and keep
  triplets of reserved characters as they are (``a%2Fb`` -> ``"a%2Fb"``, because ``"a/b"`` would
  expand to ``a/b``); ``%25`` becomes ``%`` unless two hex digits follow.
- A URI is compared after normalizing percent-encoding (hex case, triplets of unreserved characters).
- A variable repeated in the template (``{x}/{x}``, ``{/v:1,v}``) takes the value of its first
  occurrence without a prefix; re-expansion checks that the others agree.

Where RFC 6570 expansion is not recoverable (``match(t, expand(t, v))`` re-expands identically but can
differ from ``v``; `round_trips` tolerates the first group, which is representation only):

- representation only: an empty list or dict vs undefined; ``""`` vs undefined for ``{x}``/``{+x}``
  when the whole expression is empty; a list of one item vs a string; a non-exploded dict vs the flat
  list ``[k1, v1, ...]``; an exploded dict under ``;``/``?``/``&`` whose keys are all the variable's own
  name vs a list; for ``{+x}``/``{#x}`` any list or dict vs its joined string, and a value holding
  pct-encoded triplets vs its decoded form (``50%25`` and ``50%`` both expand to ``50%25``).
- information lost: adjacent expressions without a separating literal (``{a}{b}``), and a literal
  after an expression that occurs again from that expression's start on (``{a}-{b}`` with
  ``a="x-y"``, ``{+a}/x/{b}`` with ``a="1/x"``: the earlier expression is greedy); prefix modifiers
  ``{x:3}`` (the URI carries the truncated prefix only); in a multi-variable unnamed expression which
  variables are undefined (``{x,y}`` with only ``y`` gives ``x``) and how list items split between
  variables; under ``.`` a value or key containing ``.`` (the separator is unreserved, never encoded);
  under ``;``/``?``/``&`` an exploded dict whose keys name variables, or that follows another exploded
  variable (which may take its pairs).

Where `uritemplate` 4.2 deviates from RFC 6570 (tests pin each one):

1. Literal text is copied verbatim; RFC 3.1 pct-encodes characters not allowed in a URI. Fixed here:
   literals are encoded before joining (``a b/{x}`` -> ``a%20b/...``).
2. ``{+x}``/``{#x}``: a value holding any pct-encoded triplet is copied whole without encoding the rest
   (``a%20b c`` stays ``a%20b c``). Fixed here: values are pre-encoded (keeping valid triplets).
3. An empty list or dict is not treated as undefined for ``""``, ``+``, ``#`` and ``;`` (``{#list}``
   with ``[]`` gives ``#``). Fixed here: they are dropped before expansion.
4. Dict items are sorted by key; RFC examples keep the given order. Fixed here: passed as pairs.
5. ``{+x:n}`` truncates inside a pct-encoded triplet. Fixed here: truncation counts a triplet as one.
6. Not fixed: ``;`` with an exploded list item ``""`` or dict value ``""`` writes ``name=``; the RFC
   writes ``name``. `match` confirms against `expand`, so the RFC form does not match strictly
   (`diagnose` explains).
7. A prefix modifier on a list or dict value is silently ignored; RFC 2.4.1 says prefixes do not apply
   to composite values. Here `expand` raises `TypeError` for it.
8. `uritemplate` accepts malformed templates (unbalanced braces, ``{=x}``, defaults ``{x=1}``);
   `parse_template` rejects them first.
"""

from __future__ import annotations

import re
import string
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import islice, pairwise, product
from typing import Any, Final, TypeAlias

from uritemplate import URITemplate

from explorer.model.entries import TemplateEntry

__all__ = [
    "OPERATORS",
    "RESERVED",
    "UNRESERVED",
    "Expression",
    "InputValue",
    "Literal",
    "MatchReport",
    "ParsedTemplate",
    "TemplateError",
    "TemplateMatch",
    "Value",
    "Values",
    "Variable",
    "diagnose",
    "expand",
    "match",
    "match_all",
    "parse_template",
    "round_trips",
]

Value: TypeAlias = str | list[str] | dict[str, str]
Values: TypeAlias = dict[str, Value]
InputValue: TypeAlias = str | Sequence[str] | Mapping[str, str] | None

OPERATORS: Final = ("", "+", "#", ".", "/", ";", "?", "&")
_RESERVED_OPERATORS: Final = "=,!@|"
UNRESERVED: Final = string.ascii_letters + string.digits + "-._~"
RESERVED: Final = ":/?#[]@" + "!$&'()*+,;="
_URI_CHARS: Final = frozenset(UNRESERVED + RESERVED)
_HEX: Final = frozenset("0123456789ABCDEFabcdef")


@dataclass(frozen=True, slots=True)
class _OpSpec:
    """The RFC 6570 appendix A table row of one operator."""

    first: str
    sep: str
    named: bool
    ifemp: str
    allow_reserved: bool


_OPS: Final = {
    "": _OpSpec("", ",", False, "", False),
    "+": _OpSpec("", ",", False, "", True),
    "#": _OpSpec("#", ",", False, "", True),
    ".": _OpSpec(".", ".", False, "", False),
    "/": _OpSpec("/", "/", False, "", False),
    ";": _OpSpec(";", ";", True, "", False),
    "?": _OpSpec("?", "&", True, "=", False),
    "&": _OpSpec("&", "&", True, "=", False),
}


class TemplateError(ValueError):
    """A malformed URI template; the message says what and where."""


@dataclass(frozen=True, slots=True)
class Variable:
    """One varspec: ``operator`` is the enclosing expression's, so a variable knows how it expands."""

    name: str
    operator: str = ""
    explode: bool = False
    prefix: int | None = None

    def __str__(self) -> str:
        return self.name + ("*" if self.explode else "") + (f":{self.prefix}" if self.prefix else "")


@dataclass(frozen=True, slots=True)
class Literal:
    """Literal template text, kept as written (expansion pct-encodes what a URI cannot hold)."""

    text: str

    @property
    def encoded(self) -> str:
        """The text as it appears in an expanded URI (RFC 6570 section 3.1)."""
        return _encode_keeping(self.text)


@dataclass(frozen=True, slots=True)
class Expression:
    """One ``{...}`` expression: an operator and its variables in order."""

    operator: str
    variables: tuple[Variable, ...]

    @property
    def text(self) -> str:
        return "{" + self.operator + ",".join(str(v) for v in self.variables) + "}"

    def __str__(self) -> str:
        return self.text


Part: TypeAlias = Literal | Expression


@dataclass(frozen=True, slots=True)
class ParsedTemplate:
    """A validated template; ``literal_length`` is the specificity used to rank matches.

    ``variables`` lists every varspec in order (a repeated name appears each time); ``names`` is the
    distinct names, one form field each.
    """

    text: str
    parts: tuple[Part, ...]
    variables: tuple[Variable, ...]
    literal_prefix: str
    literal_length: int

    @property
    def names(self) -> tuple[str, ...]:
        """Distinct variable names in order of first appearance (one form field each)."""
        return tuple(dict.fromkeys(v.name for v in self.variables))

    @property
    def expressions(self) -> tuple[Expression, ...]:
        return tuple(p for p in self.parts if isinstance(p, Expression))


@dataclass(frozen=True, slots=True)
class TemplateMatch:
    """One template (of one server) that produces a URI, with the values that produce it."""

    entry: TemplateEntry
    values: Values
    specificity: int


@dataclass(frozen=True, slots=True)
class MatchReport:
    """Why a URI does or does not resolve: strict values, or lenient ones plus human sentences."""

    matched: bool
    values: Values | None
    problems: list[str] = field(default_factory=list)
    expanded: str | None = None


# ---------------------------------------------------------------------------------------------- parsing

_VARCHAR = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})"
_VARNAME = re.compile(rf"{_VARCHAR}+(?:\.{_VARCHAR}+)*")
_PREFIX = re.compile(r"[1-9][0-9]{0,3}")


def parse_template(text: str) -> ParsedTemplate:
    """Parse and validate an RFC 6570 template (raises `TemplateError`); cached per text.

    Expressions are checked strictly (operators, varnames, prefixes); literal text is accepted as
    servers write it, and characters a URI cannot hold are pct-encoded when expanding.
    """
    return _parse_cached(text)


@lru_cache(maxsize=2048)
def _parse_cached(text: str) -> ParsedTemplate:
    parts: list[Part] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "}":
            raise TemplateError(f"'}}' at position {i} has no matching '{{' in {text!r}")
        if char != "{":
            literal.append(char)
            i += 1
            continue
        end = text.find("}", i + 1)
        if end < 0:
            raise TemplateError(f"unclosed '{{' at position {i} in {text!r}")
        nested = text.find("{", i + 1, end)
        if nested >= 0:
            raise TemplateError(f"unclosed '{{' at position {i} in {text!r}: another '{{' comes first")
        if literal:
            parts.append(Literal("".join(literal)))
            literal = []
        parts.append(_parse_expression(text[i + 1 : end], i, text))
        i = end + 1
    if literal:
        parts.append(Literal("".join(literal)))
    variables = tuple(v for p in parts if isinstance(p, Expression) for v in p.variables)
    brace = text.find("{")
    return ParsedTemplate(
        text=text,
        parts=tuple(parts),
        variables=variables,
        literal_prefix=text if brace < 0 else text[:brace],
        literal_length=sum(len(p.text) for p in parts if isinstance(p, Literal)),
    )


def _parse_expression(body: str, position: int, text: str) -> Expression:
    where = f"{{{body}}} at position {position} of {text!r}"
    if not body:
        raise TemplateError(f"empty expression {where}")
    operator = body[0] if body[0] in OPERATORS[1:] else ""
    if body[0] in _RESERVED_OPERATORS:
        raise TemplateError(f"operator {body[0]!r} in {where} is reserved by RFC 6570, not usable")
    specs = body[len(operator) :]
    if not specs:
        raise TemplateError(f"expression {where} has an operator but no variable")
    variables: list[Variable] = []
    for spec in specs.split(","):
        if not spec:
            raise TemplateError(f"empty variable name in {where}")
        explode = spec.endswith("*")
        name = spec[:-1] if explode else spec
        prefix: int | None = None
        if ":" in name:
            name, _, length = name.partition(":")
            if explode:
                raise TemplateError(f"{spec!r} in {where} has both a prefix and '*' (RFC allows one)")
            if not _PREFIX.fullmatch(length):
                raise TemplateError(f"bad prefix length ':{length}' for {name!r} in {where} (1-9999)")
            prefix = int(length)
        if not _VARNAME.fullmatch(name):
            raise TemplateError(
                f"bad variable name {name!r} in {where} (letters, digits, '_', %XX and inner dots)"
            )
        variables.append(Variable(name, operator, explode, prefix))
    return Expression(operator, tuple(variables))


def _coerce(template: str | ParsedTemplate) -> ParsedTemplate:
    return template if isinstance(template, ParsedTemplate) else parse_template(template)


# ----------------------------------------------------------------------------------------- percent codes


def _is_triplet(text: str, i: int) -> bool:
    return text[i] == "%" and i + 2 < len(text) and text[i + 1] in _HEX and text[i + 2] in _HEX


def _pct(char: str) -> str:
    return "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))


def _encode_keeping(text: str) -> str:
    """Pct-encode what a URI cannot hold, keeping valid triplets (literals, and `+`/`#` values)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if _is_triplet(text, i):
            out.append(text[i : i + 3])
            i += 3
            continue
        out.append(text[i] if text[i] in _URI_CHARS else _pct(text[i]))
        i += 1
    return "".join(out)


def _truncate_units(text: str, length: int) -> str:
    """First `length` characters, counting a pct-encoded triplet as one (never split it)."""
    i = 0
    for _ in range(length):
        if i >= len(text):
            break
        i += 3 if _is_triplet(text, i) else 1
    return text[:i]


_TRIPLET = re.compile(r"%([0-9A-Fa-f]{2})")


def _normalize(uri: str) -> str:
    """RFC 3986 6.2.2 normalization of pct-encoding: upper-case hex, decode unreserved characters."""

    def fix(m: re.Match[str]) -> str:
        char = chr(int(m[1], 16))
        return char if char in UNRESERVED else "%" + m[1].upper()

    return _TRIPLET.sub(fix, uri)


class _NoMatch(Exception):
    """Raised while decoding a regex match that cannot be a real expansion."""


def _decode(text: str) -> str:
    try:
        return urllib.parse.unquote(text, errors="strict")
    except UnicodeDecodeError as error:
        raise _NoMatch from error


def _decode_reserved(text: str) -> str:
    """Decode a `+`/`#` value so it re-expands to `text`.

    Keeps triplets of reserved characters, of bytes that are not UTF-8, and of ``%`` when two hex
    digits follow (all of them pass through `+` expansion as they are).
    """
    pieces: list[str] = []
    percents: set[int] = set()
    i = 0
    while i < len(text):
        if text[i] != "%":
            pieces.append(text[i])
            i += 1
            continue
        j = i
        while j < len(text) and text[j] == "%":
            j += 3
        # bytes that are not UTF-8 can only have come through as triplets: keep them so
        decoded = bytes.fromhex(text[i:j].replace("%", "")).decode("utf-8", errors="surrogateescape")
        for char in decoded:
            if char == "%":
                percents.add(len(pieces))
            if "\udc80" <= char <= "\udcff":
                pieces.append(f"%{ord(char) - 0xDC00:02X}")
            else:
                pieces.append(_pct(char) if char in RESERVED or char == "%" else char)
        i = j
    tail = ""
    for index in range(len(pieces) - 1, -1, -1):
        if index in percents and not (len(tail) >= 2 and tail[0] in _HEX and tail[1] in _HEX):
            pieces[index] = "%"
        tail = (pieces[index] + tail)[:2]
    return "".join(pieces)


# -------------------------------------------------------------------------------------------- expansion


def expand(template: str | ParsedTemplate, values: Mapping[str, InputValue]) -> str:
    """Expand through `uritemplate`, one expression at a time, with the fixes listed in the docstring.

    Missing or ``None`` variables, empty lists and empty dicts are undefined (omitted).
    Raises `TemplateError` for a malformed template and `TypeError` for a value of the wrong type.
    """
    parsed = _coerce(template)
    out: list[str] = []
    for part in parsed.parts:
        if isinstance(part, Literal):
            out.append(part.encoded)
            continue
        out.append(_expand_expression(part, values))
    return "".join(out)


def _expand_expression(expr: Expression, values: Mapping[str, object]) -> str:
    reserved = _OPS[expr.operator].allow_reserved
    args: dict[str, Any] = {}
    for var in expr.variables:
        prepared = _prepare(var, values.get(var.name), reserved)
        if prepared is not None:
            args[var.name] = prepared
    return _uritemplate(_uritemplate_text(expr)).expand(args) if args else ""


def _uritemplate_text(expr: Expression) -> str:
    """The expression for `uritemplate`; `+`/`#` prefixes are applied here instead (deviation 5)."""
    reserved = _OPS[expr.operator].allow_reserved
    specs = [
        v.name + ("*" if v.explode else "") + (f":{v.prefix}" if v.prefix and not reserved else "")
        for v in expr.variables
    ]
    return "{" + expr.operator + ",".join(specs) + "}"


@lru_cache(maxsize=1024)
def _uritemplate(text: str) -> URITemplate:
    return URITemplate(text)


def _prepare(var: Variable, value: object, reserved: bool) -> object:
    """Turn one value into what `uritemplate` expands per the RFC (None means undefined)."""
    if value is None:
        return None
    if isinstance(value, str):
        if reserved:
            return _encode_keeping(_truncate_units(value, var.prefix) if var.prefix else value)
        return value
    if var.prefix:
        raise TypeError(f"{{{var.operator}{var}}} takes a str: a prefix does not apply to a list or dict")
    if isinstance(value, Mapping):
        pairs = [(_check(var, k), _check(var, v)) for k, v in value.items()]
        if not pairs:
            return None
        if reserved:
            return [(_encode_keeping(k), _encode_keeping(v)) for k, v in pairs]
        return pairs
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        items = [_check(var, item) for item in value]
        if not items:
            return None
        return [_encode_keeping(item) for item in items] if reserved else items
    raise TypeError(f"value of {var.name} must be a str, a sequence of str or a mapping of str")


def _check(var: Variable, item: object) -> str:
    if not isinstance(item, str):
        raise TypeError(f"value of {var.name} holds {type(item).__name__}, expected str")
    return item


# ------------------------------------------------------------------------------------ matching: compile


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


# ------------------------------------------------------------------------------------ matching: extract


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
    """Values that expand `template` to `uri` (percent-decoded), or None; see the module docstring.

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
    """A value up to the representation-only ambiguities listed in the module docstring."""
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


# --------------------------------------------------------------------------------------------- diagnose


def diagnose(template: str | ParsedTemplate, uri: str) -> MatchReport:
    """Explain whether `uri` resolves through `template`, and if not, why, in plain sentences.

    On a strict match: ``matched=True`` and the values. Otherwise a lenient match (values may hold
    raw reserved characters, parameters in any order, ...) gives best-effort ``values`` to prefill a
    form, ``problems`` says what is wrong, and ``expanded`` is what those values would expand to.
    A malformed template is reported as a problem, not raised.
    """
    try:
        parsed = _coerce(template)
    except TemplateError as error:
        return MatchReport(False, None, [f"the template is malformed: {error}"])
    values = match(parsed, uri)
    if values is not None:
        return MatchReport(True, values, [], expand(parsed, values))
    normalized = _normalize(uri)
    problems = _encoding_problems(normalized)
    prefix = _normalize(_encode_keeping(parsed.literal_prefix))
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
    except (TypeError, UnicodeError):
        expanded = None
    if expanded is not None and _normalize(expanded) != normalized:
        problems.append(f"the value would not round-trip: expand gives {expanded}")
    if not problems:
        problems.append(f"the URI does not match the template {parsed.text}")
    return MatchReport(False, loose or None, list(dict.fromkeys(problems)), expanded)


def _encoding_problems(uri: str) -> list[str]:
    bad = dict.fromkeys(uri[i : i + 3] for i, c in enumerate(uri) if c == "%" and not _is_triplet(uri, i))
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
        literal = _normalize(part.encoded)
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
            position = starts[i] + len(_normalize(part.encoded))
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
            if k + 1 < len(run) and _OPS[run[k + 1].operator].first:
                found = region.find(_OPS[run[k + 1].operator].first, current + len(_OPS[expr.operator].first))
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
        if char in _URI_CHARS:
            problems.append(
                f"value of {who} contains {char!r}, which {expr.text} would encode as {_pct(char)}"
            )
        else:
            problems.append(
                f"value of {who} contains {char!r}, which is not allowed in a URI "
                f"({expr.text} would encode it as {_pct(char)})"
            )
    try:
        urllib.parse.unquote(body, errors="strict")
    except UnicodeDecodeError:
        problems.append(f"the percent-encoded bytes in the value of {who} are not valid UTF-8")
    return problems


def _loose(text: str) -> str:
    return urllib.parse.unquote(text, errors="replace")


def _loose_value(var: Variable, body: str) -> Value:
    spec = _OPS[var.operator]
    if spec.allow_reserved:
        return _loose(body)
    if var.explode:
        items = body.split(spec.sep)
        if all("=" in item for item in items):
            return {_loose(k): _loose(v) for k, _, v in (item.partition("=") for item in items)}
        return [_loose(item) for item in items]
    return _one_or_list([_loose(item) for item in body.split(",")])


def _expression_problems(parsed: ParsedTemplate, expr: Expression, text: str, loose: Values) -> list[str]:
    """Problems of one unnamed expression's text; fills `loose` with best-effort values."""
    spec = _OPS[expr.operator]
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
    spec = _OPS[expr.operator]
    noun = "query parameter" if spec.sep == "&" else "parameter"
    order: dict[str, tuple[int, Variable, Expression]] = {}
    for e in parsed.expressions:
        if _OPS[e.operator].named:
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
        if not eq and _OPS[owner.operator].ifemp == "=":
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
        value = _one_or_list([_loose(item) for item in raws[0].split(",")])
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
