"""VS Code `inputs`: values asked of the user (often tokens) that `${input:ID}` puts into a server's config.

Reading a config leaves `${input:ID}` in place and lists the inputs on the server's spec, so nothing is
asked for a server that is never started, and the TUI can ask in a dialog just before it connects that
server. `fill_inputs` then puts the values in and checks again what a value can break (a URL, a header).
Filled-in values are listed in `ServerSpec.secrets`, so they are masked wherever the spec is shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from explorer.config.checks import header_value_problem, url_problem
from explorer.config.spec import ConfigError, InputPrompt, ServerSpec, quoted
from explorer.config.variables import PLACEHOLDER
from explorer.value_kinds import value_kind

_SUPPORTED = ("promptString", "pickString")


def parse_inputs(raw: object, fail: Callable[[str], Exception]) -> dict[str, InputPrompt | str]:
    """A file's `"inputs"` list, by id: an `InputPrompt`, or why that input cannot be asked (a string).

    An input of a type the explorer cannot ask (`command`) is only an error for a server that uses it.
    """
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise fail(f'"inputs" must be a list of inputs, not {value_kind(raw)}')
    inputs: dict[str, InputPrompt | str] = {}
    for index, entry in enumerate(raw, start=1):
        if not isinstance(entry, dict):
            raise fail(f'"inputs" entry {index} must be an object, not {value_kind(entry)}')
        input_id = entry.get("id")
        if not isinstance(input_id, str) or not input_id.strip():
            raise fail(f'"inputs" entry {index} has no "id" string')
        input_type = entry.get("type", "promptString")
        where = f"input {quoted(input_id)}"
        if input_type not in _SUPPORTED:
            inputs[input_id] = f'an input of type "{str(input_type)[:40]}", which the explorer cannot ask'
            continue
        description = _text(entry, "description", where, fail) or ""
        default = _text(entry, "default", where, fail)
        password = entry.get("password", False)
        if not isinstance(password, bool):
            raise fail(f'{where}: "password" must be true or false, not {value_kind(password)}')
        options = _options(entry.get("options"), where, fail) if input_type == "pickString" else ()
        if input_type == "pickString" and not options:
            raise fail(f'{where}: a pickString input needs a non-empty "options" list')
        inputs[input_id] = InputPrompt(
            id=input_id, description=description, password=password, default=default, options=options
        )
    return inputs


def _text(entry: dict[str, Any], key: str, where: str, fail: Callable[[str], Exception]) -> str | None:
    value = entry.get(key)
    if value is not None and not isinstance(value, str):
        raise fail(f'{where}: "{key}" must be a string, not {value_kind(value)}')
    return value


def _options(raw: object, where: str, fail: Callable[[str], Exception]) -> tuple[str, ...]:
    """pickString options: strings, or `{"label": ..., "value": ...}` objects (the value counts)."""
    if not isinstance(raw, list):
        raise fail(f'{where}: "options" must be a list, not {value_kind(raw)}')
    options: list[str] = []
    for option in raw:
        value = option.get("value") if isinstance(option, dict) else option
        if not isinstance(value, str):
            raise fail(f'{where}: "options" must hold strings or objects with a "value" string')
        options.append(value)
    return tuple(options)


def parse_input_options(words: Iterable[str]) -> dict[str, str]:
    """`--input ID=VALUE` words; a word without `=` or with an empty id is a ConfigError (exit 2)."""
    values: dict[str, str] = {}
    for word in words:
        input_id, sep, value = word.partition("=")
        if not sep or not input_id.strip():
            raise ConfigError("--input: expected ID=VALUE (the id of a VS Code input, then its value)")
        values[input_id.strip()] = value
    return values


def missing_inputs(specs: Sequence[ServerSpec], values: Mapping[str, str]) -> list[tuple[InputPrompt, str]]:
    """The inputs `specs` need that `values` does not give, each once, with the first server using it."""
    missing: dict[str, tuple[InputPrompt, str]] = {}
    for spec in specs:
        for prompt in spec.inputs:
            if prompt.id not in values and prompt.id not in missing:
                missing[prompt.id] = (prompt, spec.name)
    return list(missing.values())


def fill_inputs(spec: ServerSpec, values: Mapping[str, str]) -> ServerSpec:
    """`spec` with the inputs `values` gives put in; those it does not give stay pending on the spec.

    Raises ConfigError when a value is not one of a pickString's options, or when the filled-in URL or a
    header value is not usable (the message never quotes the value).
    """
    given = [prompt for prompt in spec.inputs if prompt.id in values]
    if not given:
        return spec
    where = f"server {quoted(spec.name)}"
    for prompt in given:
        problem = prompt.problem(values[prompt.id])
        if problem is not None:
            raise ConfigError(f"{where}: {problem}")
    ids = {prompt.id for prompt in given}

    def fill(text: str) -> str:
        def substitute(match: re.Match[str]) -> str:
            kind, colon, argument = match.group(1).strip().partition(":")
            input_id = argument.strip()
            if kind == "input" and colon and input_id in ids:
                return values[input_id]
            return str(match.group(0))

        return PLACEHOLDER.sub(substitute, text)

    try:
        filled = _filled(spec, fill, values, ids)
    except ValueError:  # the spec's own check: a command or URL that an input left empty
        what = "command" if spec.transport == "stdio" else "url"
        raise ConfigError(f'{where}: "{what}" is empty once its inputs are filled in') from None
    if filled.url is not None and spec.url != filled.url:
        problem = url_problem(filled.url)
        if problem is not None:
            raise ConfigError(f'{where}: "url" with its inputs filled in: {problem}')
    for name, value in filled.headers.items():
        if value != spec.headers.get(name):
            problem = header_value_problem(value)
            if problem is not None:
                raise ConfigError(f"{where}: header {quoted(name)} with its inputs filled in: {problem}")
    return filled


def _filled(
    spec: ServerSpec, fill: Callable[[str], str], values: Mapping[str, str], ids: set[str]
) -> ServerSpec:
    """Every value of `spec` through `fill`; the filled-in inputs leave `inputs` for `secrets`."""
    return replace(
        spec,
        command=None if spec.command is None else fill(spec.command),
        args=tuple(fill(arg) for arg in spec.args),
        env={name: fill(value) for name, value in spec.env.items()},
        cwd=None if spec.cwd is None else fill(spec.cwd),
        url=None if spec.url is None else fill(spec.url),
        headers={name: fill(value) for name, value in spec.headers.items()},
        inputs=tuple(prompt for prompt in spec.inputs if prompt.id not in ids),
        secrets=(*spec.secrets, *(values[input_id] for input_id in sorted(ids))),
    )
