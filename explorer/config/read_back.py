"""A server typed into the connect dialog, as a restart would read it back from the config it is saved in.

Why: the dialog saves what the user typed, and reading a config expands its placeholders
(`${env:NAME}`, `${NAME:-default}`, `${userHome}`...). Connected as typed, a header `Authorization: Bearer
${env:TOKEN}` reached the server as those words (refused), while the same server saved and read back at
the next start sent the token: the server that connected was not the one saved, and a placeholder the
loader refuses (`${file}`) made the saved entry unusable. Here the typed server goes through the loader
itself, so what connects is what a restart reads; what is saved keeps the placeholder (a token typed as
`${env:TOKEN}` never lands in the file).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from explorer.config.loaders import read_entry
from explorer.config.spec import ConfigError, ServerSpec, quoted
from explorer.config.variables import HostContext
from explorer.config.writer import saved_table

__all__ = ["as_read_back"]


def as_read_back(
    spec: ServerSpec, config_file: Path, *, context: HostContext | None = None
) -> tuple[ServerSpec, list[str]]:
    """`spec` with its values as the loader makes them from its saved table in `config_file`, and the
    loader's warnings (an unset variable); ConfigError (one sentence, about the values) when the loader
    would leave the entry out. The result is no entry of the file (`origin` None): it is not saved yet."""
    label = str(config_file)
    where = f"{label}: server {quoted(spec.name)}: "
    try:
        read, warnings = read_entry(label, config_file, spec.name, saved_table(spec), context)
    except ConfigError as exc:
        said = str(exc).removeprefix(where)
        # The loader's words for a file: here there is no file, so no "inputs" to define one in.
        said = said.replace('names no entry of "inputs"', "asks for an input; only a config file defines one")
        raise ConfigError(said) from None
    return replace(read, origin=None), [warning.removeprefix(where) for warning in warnings]
