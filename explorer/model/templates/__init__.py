"""RFC 6570 URI templates: parse, expand (through `uritemplate`), and match a URI back to its values.

Why: servers advertise resource templates; the explorer fills them in a form and resolves a typed URI
back to "which template of which server, with which values". Filling goes through `uritemplate`
(never string replacement), and matching is confirmed by re-expanding, so a match always round-trips.

API: `parse_template`, `too_large`, `expand`, `match`, `match_readings`, `diagnose`, `match_all`,
`round_trips` (see each docstring). Modules: `percent` (RFC 3986 characters, pct-encoding both ways),
`syntax` (types, parsing, limits), `expansion` (`expand`, the `uritemplate` fixes), `pattern` (template
-> parts and value shapes), `matching` (`match`, `match_readings`, `match_all`), `round_trip` (`round_trips`),
`diagnose` (why a URI does not match).
Values are ``str``, a list of ``str`` or a ``dict`` of ``str``, or, for a map in which a key repeats, its
(key, value) pairs in order (`Pairs`, a tuple of 2-tuples: ``{?q*}`` with ``(("a", "1"), ("a", "2"))``
expands to ``?a=1&a=2``; RFC 6570 2.3 calls a map "a list of name-value pairs", and a query string may
name a key twice); a variable that is missing or ``None`` is undefined and expands to nothing, as are an
empty list and an empty dict (RFC 6570 section 2.3).

Limits (a hostile server cannot crash or freeze the explorer)
-------------------------------------------------------------
A template longer than ``MAX_TEMPLATE_CHARS`` (8,192) characters or with more than
``MAX_TEMPLATE_VARIABLES`` (256) variables is refused by `parse_template` with `TemplateTooLarge`
("too large to use"), so nothing parses, expands or matches it. Below the limits nothing recurses with
the size of the template or the URI: parsing and expansion are loops, `uritemplate` is handed one
expression at a time, and matching is an explicit-stack search with a step budget linear in the URI.

Matching (readings confirmed by re-expansion, the one defining the most variables first)
-----------------------------------------------------------------------------------------
Values are read with the RFC character classes: values of ``{x}``, ``{.x}``, ``{/x}``, ``{;x}``, ``{?x}`` and
``{&x}`` may hold unreserved characters and pct-encoded triplets only, ``{+x}`` and ``{#x}`` may hold
reserved characters too. A raw ``/`` or space in ``{id}`` is therefore not a match (`diagnose` explains
why). Values come back percent-decoded, and a reading counts only if its values re-expand to the URI.

The search walks the template's parts left to right, trying each expression at every end its
values' characters and the next literal allow; (part, position) pairs from which the rest cannot
match are remembered, and a first pass learns from each pair how many variables can still be defined,
so the reading that defines the most comes first. Named operators (``;``, ``?``, ``&``) split their
``k=v`` pairs once and hand each to the next variable of that name, which is linear in the URI. The
search stops at a budget of 10,000 steps plus the URI's length: a long URI against many adjacent
expressions (``{a}{b}{c}...``) may then be reported as no match, or, when the first pass does not fit,
be read in plain search order without meeting the reading with the most variables, rather than hang
the UI. `match_readings` keeps the best 16 readings; `match` returns the first; `match_all` gives the
rest as ``alternatives``.

Preference, in this order:

- A reading in which an exploded dict takes a pair named after another variable of the template
  comes after every reading without one (``{?a*,b*}`` on ``?a=1&a=2`` gives ``a=["1", "2"]``, not
  ``a=["1"], b={"a": "2"}``).
- Then the reading that defines the most variables: ``docs://{name}{.ext}`` on ``docs://readme.md`` gives
  ``name="readme", ext="md"`` (the alternative is ``name="readme.md"``); ``{a}{b}`` on ``xyz`` gives
  ``a="xy", b="z"``.
- Then the order of the search. Between expressions the earlier one is greedy: ``{a}.{b}`` on
  ``archive.tar.gz`` gives ``a="archive.tar"``; ``{+path}/here`` gives ``path`` everything before the
  last ``/here``. Within one expression variables take one item each, in order, and the last one takes
  any surplus: ``{x,y}`` against ``1024,768`` gives ``x="1024", y="768"``; against ``a`` it gives ``x="a"``
  (and the alternative ``y="a"``).
- An expression that expanded to nothing leaves all its variables undefined (``{x}`` against ``""``).
- Named operators (``;``, ``?``, ``&``) must list their parameters in the template's order; any of them
  may be absent; an unknown parameter is no match unless an exploded variable takes it as a key. A
  pair named after a later variable goes to that variable first. ``{?q}`` needs ``q=``; ``{;x}``
  accepts ``x`` for "".
- Non-exploded values come back as ``str`` (no ``,``) or ``list``; exploded ones as ``list``, or as
  ``dict`` when the items are ``key=value`` pairs (named operators: when the keys are not the name),
  `Pairs` when a key repeats (``{?q*}`` on ``?a=1&a=2`` gives ``q=(("a", "1"), ("a", "2"))``).
  ``{+x}`` and ``{#x}`` always give a ``str`` (``,`` and ``=`` are legal inside their values).
- ``{+x}``/``{#x}`` decode only the triplets that expansion would re-create (``%20`` -> space), and keep
  triplets of reserved characters as they are (``a%2Fb`` -> ``"a%2Fb"``, because ``"a/b"`` would
  expand to ``a/b``); ``%25`` becomes ``%`` unless two hex digits follow.
- A URI is compared after normalizing percent-encoding (hex case, triplets of unreserved characters).
- A variable repeated in the template (``{x}/{x}``, ``{/v:1,v}``) takes the value of its first
  occurrence without a prefix; re-expansion checks that the others agree. One used with a prefix
  anywhere comes back as a ``str`` (``{/x*}/p/{x:3}``: the lone item of the exploded use), as the forms
  and `expand` of the CLI read it (`explorer.model.fields`).

Where RFC 6570 expansion is not recoverable (``match(t, expand(t, v))`` re-expands identically but can
differ from ``v``; `round_trips` tolerates the first group, which is representation only):

- representation only: an empty list or dict vs undefined; ``""`` vs undefined for ``{x}``/``{+x}``
  when the whole expression is empty; a list of one item vs a string; a non-exploded dict vs the flat
  list ``[k1, v1, ...]``; an exploded dict under ``;``/``?``/``&`` whose keys are all the variable's own
  name vs a list; `Pairs` whose keys do not repeat vs a dict; for ``{+x}``/``{#x}`` any list or dict
  vs its joined string, and a value holding pct-encoded triplets vs its decoded form (``50%25`` and
  ``50%`` both expand to ``50%25``).
- information lost: adjacent expressions without a separating literal (``{a}{b}``: the reading
  defining the most variables wins, ``a="x", b="yz"`` comes back as ``a="xy", b="z"``), and a literal
  after an expression that occurs again from that expression's start on (``{a}-{b}`` with
  ``a="x-y"``, ``{+a}/x/{b}`` with ``a="1/x"``: the earlier expression is greedy); prefix modifiers
  ``{x:3}`` (the URI carries the truncated prefix only); in a multi-variable unnamed expression which
  variables are undefined (``{x,y}`` with only ``y`` gives ``x``) and how list items split between
  variables; under ``.`` a value or key containing ``.`` (the separator is unreserved, never encoded);
  under ``;``/``?``/``&`` an exploded dict whose keys name variables, or that follows another exploded
  variable (which may take its pairs), or that has several pairs and comes before another exploded
  variable (which takes some of them: that reading defines more variables).

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
7. A prefix modifier on a list or dict value is silently ignored; RFC 2.4.1 says "Prefix modifiers are
   not applicable to variables that have composite values". Here `expand` raises `UnusableValue` (a
   `TemplateError`, and a `TypeError`) naming the variable: a variable used twice (``{/x*}/p/{x:3}``)
   may be given a list for one use that the other cannot take, and every caller says so, never crashes
   (the forms and the CLI give such a variable one string: `explorer.model.fields`).
8. `uritemplate` accepts malformed templates (unbalanced braces, ``{=x}``, defaults ``{x=1}``);
   `parse_template` rejects them first.
"""

from __future__ import annotations

from explorer.model.templates.diagnose import diagnose
from explorer.model.templates.expansion import expand
from explorer.model.templates.matching import match, match_all, match_readings
from explorer.model.templates.percent import RESERVED, UNRESERVED
from explorer.model.templates.round_trip import round_trips
from explorer.model.templates.syntax import (
    MAX_TEMPLATE_CHARS,
    MAX_TEMPLATE_VARIABLES,
    OPERATORS,
    Expression,
    InputValue,
    Literal,
    MatchReport,
    Pairs,
    ParsedTemplate,
    TemplateError,
    TemplateMatch,
    TemplateTooLarge,
    UnusableValue,
    Value,
    Values,
    Variable,
    as_map,
    is_pairs,
    malformed,
    parse_template,
    too_large,
)

__all__ = [
    "MAX_TEMPLATE_CHARS",
    "MAX_TEMPLATE_VARIABLES",
    "OPERATORS",
    "RESERVED",
    "UNRESERVED",
    "Expression",
    "InputValue",
    "Literal",
    "MatchReport",
    "Pairs",
    "ParsedTemplate",
    "TemplateError",
    "TemplateMatch",
    "TemplateTooLarge",
    "UnusableValue",
    "Value",
    "Values",
    "Variable",
    "as_map",
    "diagnose",
    "expand",
    "is_pairs",
    "malformed",
    "match",
    "match_all",
    "match_readings",
    "parse_template",
    "round_trips",
    "too_large",
]
