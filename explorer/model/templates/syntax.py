"""URI template syntax: the value and template types, and the strict RFC 6570 parser.

Why a module of its own: every other part (expansion, matching, diagnosis, the form) works on a
`ParsedTemplate`; parsing is cached per text and rejects malformed templates before `uritemplate` sees them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final, TypeAlias, TypeGuard

from explorer.model.entries import TemplateEntry
from explorer.model.templates.percent import encode_keeping

Pairs: TypeAlias = tuple[tuple[str, str], ...]
"""A map in which a key repeats (``?a=1&a=2``), as its (key, value) pairs in order; a dict otherwise."""
Value: TypeAlias = str | list[str] | dict[str, str] | Pairs
Values: TypeAlias = dict[str, Value]
InputValue: TypeAlias = str | Sequence[str] | Mapping[str, str] | Sequence[tuple[str, str]] | None


def is_pairs(value: object) -> TypeGuard[Sequence[tuple[str, str]]]:
    """Whether `value` is a map given as (key, value) pairs (`Pairs`), not a list of strings."""
    return (
        isinstance(value, tuple | list)
        and bool(value)
        and all(isinstance(pair, tuple) and len(pair) == 2 for pair in value)
    )


def as_map(pairs: Sequence[tuple[str, str]]) -> dict[str, str] | Pairs:
    """A dict when every key is new, else the pairs themselves: a repeated key keeps all its values."""
    result = dict(pairs)
    return result if len(result) == len(pairs) else tuple(pairs)


OPERATORS: Final = ("", "+", "#", ".", "/", ";", "?", "&")
_RESERVED_OPERATORS: Final = "=,!@|"


@dataclass(frozen=True, slots=True)
class _OpSpec:
    """The RFC 6570 appendix A table row of one operator."""

    first: str
    sep: str
    named: bool
    ifemp: str
    allow_reserved: bool


OPERATOR_RULES: Final = {
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
    """A malformed URI template, or values it cannot be expanded with; the message says what and where."""


class UnusableValue(TemplateError, TypeError):
    """A value that one use of its variable cannot take: a list or a map where ``{x:3}`` needs a string.

    Why its own class: a variable may be used twice (``{/x*}/{x:3}``), so a value right for one use can
    be wrong for another, and only `expand` sees both. Every caller then says why instead of crashing
    (it is a `TemplateError`); it stays a `TypeError` for callers that catch a value of the wrong kind.
    ``variable`` is the variable's name.
    """

    def __init__(self, variable: str, detail: str) -> None:
        super().__init__(detail)
        self.variable = variable

    def __reduce__(self) -> tuple[type[UnusableValue], tuple[str, str]]:
        return (type(self), (self.variable, str(self)))


MAX_TEMPLATE_CHARS: Final = 8192
MAX_TEMPLATE_VARIABLES: Final = 256


class TemplateTooLarge(TemplateError):
    """A template over `MAX_TEMPLATE_CHARS` characters or `MAX_TEMPLATE_VARIABLES` variables.

    Why: no real template comes near either limit, and a hostile one should cost nothing; such a
    template is refused whole ("too large to use") rather than parsed, expanded or matched.
    ``detail`` says by how much, e.g. "3,000 variables; the limit is 256".
    """

    def __init__(self, detail: str) -> None:
        super().__init__(detail)  # args stay (detail,): a copy or a pickle rebuilds the same error
        self.detail = detail

    def __str__(self) -> str:
        return f"the template is too large to use ({self.detail})"


def too_large(text: str) -> TemplateTooLarge | None:
    """Why `text` is too large to use, or None (a malformed template of a sane size gives None)."""
    try:
        parse_template(text)
    except TemplateTooLarge as error:
        return error
    except TemplateError:
        return None
    return None


def malformed(text: str) -> TemplateError | None:
    """Why `text` is not a template at all (`{unclosed`, `{a b}`), or None: one that parses, or one only
    too large to use (`too_large` says that). Cached with the parse: a tree row may ask at every paint."""
    try:
        parse_template(text)
    except TemplateTooLarge:
        return None
    except TemplateError as error:
        return error
    return None


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
        return encode_keeping(self.text)


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
    distinct names, one form field each. ``literal_prefix`` is the text before the first ``{`` as every
    expansion writes it (pct-encoded as `Literal.encoded`): ``a b/{x}`` gives ``a%20b/``.
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
    """One template (of one server) that produces a URI, with the values that produce it.

    ``values`` is the preferred reading; ``alternatives`` are the other readings that re-expand to the
    same URI (``docs://{name}{.ext}`` on ``docs://readme.md``: ``name=readme, ext=md``, and the
    alternative ``name=readme.md``).
    """

    entry: TemplateEntry
    values: Values
    specificity: int
    alternatives: tuple[Values, ...] = ()


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
    """Parse and validate an RFC 6570 template (raises `TemplateError`); cached per text, errors too.

    Expressions are checked strictly (operators, varnames, prefixes); literal text is accepted as
    servers write it, and characters a URI cannot hold are pct-encoded when expanding. A template over
    the limits raises `TemplateTooLarge`, without being parsed when it is too long.
    """
    if len(text) > MAX_TEMPLATE_CHARS:
        raise TemplateTooLarge(f"{len(text):,} characters; the limit is {MAX_TEMPLATE_CHARS:,}")
    parsed = _parse_cached(text)
    if isinstance(parsed, TemplateTooLarge):
        raise TemplateTooLarge(parsed.detail)  # a fresh one: the cached error is shared between threads
    if isinstance(parsed, TemplateError):
        raise TemplateError(*parsed.args)
    return parsed


@lru_cache(maxsize=2048)
def _parse_cached(text: str) -> ParsedTemplate | TemplateError:
    try:
        parsed = _parse(text)
    except TemplateError as error:
        return error
    count = len(parsed.variables)
    if count > MAX_TEMPLATE_VARIABLES:
        return TemplateTooLarge(f"{count:,} variables; the limit is {MAX_TEMPLATE_VARIABLES}")
    return parsed


def _parse(text: str) -> ParsedTemplate:
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
        literal_prefix=encode_keeping(text if brace < 0 else text[:brace]),
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
            if explode or name.endswith("*"):  # `{x:3*}`, or `{x*:3}` (the `*` before the prefix)
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


def coerce_value(template: str | ParsedTemplate) -> ParsedTemplate:
    return template if isinstance(template, ParsedTemplate) else parse_template(template)
