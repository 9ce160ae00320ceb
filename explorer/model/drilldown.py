"""Template drill-down: browse a resource template like a directory, one variable at a time.

Why: a template such as ``metrics://{region}/{service}/latest`` hides which URIs exist. Expanding it in
the tree asks the server's `completion/complete` for the first variable; each candidate fixes that value
and expands to the next variable (with the values fixed so far sent as context, so ``service`` narrows
to the services of the chosen region), until the URI is concrete and can be read. This module is the
state of one such path, with no UI in it.

    drill = Drill.start("metrics://{region}/{service}/latest", "demo")
    drill.next_variable                  # "region"
    drill = drill.with_value("eu-west")  # a candidate was chosen
    drill.context()                      # {"region": "eu-west"}: sent along when completing "service"
    drill = drill.with_value("checkout")
    drill.is_concrete, drill.uri         # True, "metrics://eu-west/checkout/latest"

Rules (the template form uses the same `explorer.model.fields.template_fields`):

- Variables are the template's distinct names in order of first appearance; they are fixed in that order.
- *Required* variables are those of simple and reserved expansion (``{x}``, ``{+x}``): leaving one out
  leaves a hole in the URI. Variables under an operator that brings its own prefix (``#``, ``.``, ``/``,
  ``;``, ``?``, ``&``) are optional: they may stay undefined. A drill `is_concrete` (readable) once every
  required variable has a value, even if optional ones follow; it can still go on to them
  (`next_variable` is the next unfixed variable of any kind). A template whose variables are all
  optional is concrete from the start.
- A candidate is taken as the user would type it into the form (`fields.parse_text`): an explode
  variable splits it at its separator (``eu-west/checkout`` fills ``{/segments*}`` as two segments).
  The URI is built by `templates.expand`, so a ``/`` inside ``{id}`` becomes ``%2F``; never by string
  replacement.
- Refining: servers that complete paths a segment at a time (``src/`` then ``src/tidewater/``) answer
  folder-like candidates ending in ``/``. When the last fixed variable is a path-like one (``{+x}``,
  ``{#x}``, ``{/x*}``), has no successor, and its value ends with ``/``, the drill can be `refined`:
  the same variable is completed again with that value typed (`typed`), and a chosen candidate replaces
  the value. So ``file:///{+path}`` browses like a directory tree.
- `trail` is the candidates chosen from the template down; with the template text it is the `key` of a
  position in the drill tree (two routes to the same values are two positions).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from explorer.model.fields import FieldSpec, parse_text, template_fields
from explorer.model.templates import ParsedTemplate, UnusableValue, expand, parse_template

__all__ = ["Drill", "DrillKey"]

DrillKey = tuple[str, tuple[str, ...]]
"""(template text, trail of chosen candidates): one position in the drill tree."""

_PATH_OPERATORS = frozenset("+#")


@lru_cache(maxsize=512)
def _fields(template: str) -> tuple[FieldSpec, ...]:
    return tuple(template_fields(parse_template(template)))


@dataclass(frozen=True, slots=True)
class Drill:
    """One position of a template drill: the template, the server asked, and the values fixed so far.

    `values` holds (name, value) pairs in variable order; `typed` is text already typed for
    `next_variable` (only set by `refined`).
    """

    template: str
    server: str
    values: tuple[tuple[str, str], ...] = ()
    typed: str = ""
    trail: tuple[str, ...] = ()

    @classmethod
    def start(cls, template: str, server: str) -> Drill:
        """The drill of a template with nothing fixed; raises `TemplateError` for a malformed template."""
        parse_template(template)
        return cls(template, server)

    # ------------------------------------------------------------------------------------ template

    @property
    def parsed(self) -> ParsedTemplate:
        return parse_template(self.template)  # cached per text

    @property
    def fields(self) -> tuple[FieldSpec, ...]:
        """One spec per distinct variable, in order (label, required, separator); cached per template."""
        return _fields(self.template)

    @property
    def variables(self) -> tuple[str, ...]:
        """Distinct variable names in order of first appearance: the order they are fixed in."""
        return self.parsed.names

    @property
    def required(self) -> tuple[str, ...]:
        """The variables a URI needs (simple and reserved expansion); see the module docstring."""
        return tuple(spec.name for spec in self.fields if spec.required)

    def field(self, name: str) -> FieldSpec:
        for spec in self.fields:
            if spec.name == name:
                return spec
        raise KeyError(name)

    # ------------------------------------------------------------------------------------- state

    @property
    def key(self) -> DrillKey:
        return (self.template, self.trail)

    @property
    def fixed(self) -> dict[str, str]:
        """name -> value fixed so far (the raw candidate text)."""
        return dict(self.values)

    @property
    def next_variable(self) -> str | None:
        """The first variable without a value (optional ones included), None when all are fixed."""
        fixed = self.fixed
        for name in self.variables:
            if name not in fixed:
                return name
        return None

    @property
    def is_concrete(self) -> bool:
        """Every required variable has a value: `uri` is a URI that can be read."""
        fixed = self.fixed
        return all(name in fixed for name in self.required)

    @property
    def can_refine(self) -> bool:
        """The last value is a folder-like prefix of a path-like variable with nothing after it."""
        if not self.values or self.next_variable is not None:
            return False
        name, value = self.values[-1]
        if not value.endswith("/"):
            return False
        var = self.field(name).variable
        assert var is not None
        return var.operator in _PATH_OPERATORS or (var.explode and var.operator == "/")

    @property
    def children_drill(self) -> Drill | None:
        """The drill whose candidates lie below this position: the next variable, else a refinement."""
        if self.next_variable is not None:
            return self
        if self.can_refine:
            return self.refined()
        return None

    def with_value(self, value: str) -> Drill:
        """Fix `next_variable` to `value` (a refinement replaces the refined value). "" is refused."""
        name = self.next_variable
        if name is None:
            raise ValueError(f"every variable of {self.template!r} has a value")
        if not value:
            raise ValueError(f"an empty value does not fix {name!r}")
        return Drill(self.template, self.server, (*self.values, (name, value)), "", (*self.trail, value))

    def refined(self) -> Drill:
        """Complete the last variable again, with its value typed (see `can_refine`). Same `key`."""
        if not self.can_refine:
            raise ValueError("this drill cannot be refined")
        return Drill(self.template, self.server, self.values[:-1], self.values[-1][1], self.trail)

    def on_server(self, server: str) -> Drill:
        """The same position, asking another server (one that lists the same template)."""
        return Drill(self.template, server, self.values, self.typed, self.trail)

    def context(self) -> dict[str, str]:
        """The fixed values, sent as `context.arguments` when completing the next variable."""
        return self.fixed

    def expansion_values(self) -> dict[str, Any]:
        """The fixed values as `expand` takes them (explode variables split at their separator)."""
        out: dict[str, Any] = {}
        for name, value in self.values:
            parsed = parse_text(self.field(name), value)
            if parsed is not None:
                out[name] = parsed
        return out

    @property
    def uri(self) -> str:
        """The template expanded with the fixed values (RFC 6570 encoding; unfixed ones left out).

        Raises `UnusableValue` when a value cannot be expanded (`problem` says why): ask that first.
        """
        return expand(self.parsed, self.expansion_values())

    @property
    def problem(self) -> str | None:
        """Why the template cannot be expanded with the fixed values, or None: a value no expansion can
        take (a list for a variable a prefix such as ``{x:3}`` also uses, RFC 6570 2.4.1; the fields give
        such a variable one string, so only a value set from elsewhere can be one). The row says so, and
        nothing that reads, copies or follows it may crash."""
        try:
            expand(self.parsed, self.expansion_values())
        except UnusableValue as error:
            return str(error)
        return None

    def describe(self) -> Mapping[str, str]:
        """Labels for display: ``{"{region}": "eu-west", ...}`` in order."""
        return {self.field(name).label: value for name, value in self.values}
