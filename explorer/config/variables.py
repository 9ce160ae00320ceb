"""`${...}` placeholders in config values: VS Code's variables and Claude Code's `${NAME:-default}`.

What each client writes: VS Code and Cursor `${env:NAME}`, `${userHome}`, `${workspaceFolder}`,
`${workspaceFolderBasename}`, `${pathSeparator}` (`${/}`) and `${input:ID}`; Claude Code `${NAME}` and
`${NAME:-default}`. An unset variable becomes an empty string, as VS Code does, with a warning (never the
placeholder sent literally). `${input:ID}` is left in place and recorded: the value is asked for later, by
the CLI or by the TUI just before that server connects. A kind the explorer cannot give a value
(`${command:...}`, `${file}`, a typo) is a config error naming it.

Everything read from the machine comes in through `HostContext`, so tests can give a fake home,
working directory, platform and environment.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from explorer.config.spec import InputPrompt

PLACEHOLDER = re.compile(r"\$\{([^}]*)\}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Folders whose `mcp.json` belongs to the folder above them (the workspace).
WORKSPACE_DIRS = (".vscode", ".cursor")
# VS Code variables that only have a value inside the editor (an open file, a selection, a task).
_EDITOR_ONLY = frozenset(
    {
        "file",
        "fileBasename",
        "fileBasenameNoExtension",
        "fileDirname",
        "fileDirnameBasename",
        "fileExtname",
        "fileWorkspaceFolder",
        "fileWorkspaceFolderBasename",
        "relativeFile",
        "relativeFileDirname",
        "lineNumber",
        "columnNumber",
        "selectedText",
        "execPath",
        "defaultBuildTask",
        "extensionInstallFolder",
    }
)


@dataclass(frozen=True)
class HostContext:
    """The user's home, working directory, platform (`sys.platform`) and environment variables."""

    home: Path
    cwd: Path
    platform: str
    env: Mapping[str, str] = field(default_factory=dict, hash=False)

    @classmethod
    def current(cls) -> HostContext:
        return cls(home=Path.home(), cwd=Path.cwd(), platform=sys.platform, env=dict(os.environ))


def _shown(placeholder: str) -> str:
    """A placeholder as messages show it: cut at 80 characters."""
    return placeholder if len(placeholder) <= 80 else placeholder[:77] + "..."


def workspace_of(config_file: Path) -> Path | None:
    """The workspace folder a config file belongs to: the folder holding its `.vscode/` (or `.cursor/`)."""
    folder = config_file.absolute().parent
    return folder.parent if folder.name in WORKSPACE_DIRS else None


class Expander:
    """Expands the placeholders of one server's values, and remembers the inputs they use.

    `warn` and `fail` are the loader's: `fail` returns the exception to raise (a ConfigError naming the
    file). `inputs` are the file's VS Code `inputs`, by id.
    """

    def __init__(
        self,
        where: str,
        context: HostContext,
        workspace: Path,
        inputs: Mapping[str, InputPrompt | str],
        *,
        warn: Callable[[str], None],
        fail: Callable[[str], Exception],
    ) -> None:
        self.where = where
        self.context = context
        self.workspace = workspace
        self.inputs = inputs
        self.warn = warn
        self.fail = fail
        self.used_inputs: dict[str, InputPrompt] = {}
        # Placeholders that gave an empty string, and why: a command or URL that is empty after
        # expansion is an error naming them (`empty_reasons`).
        self.emptied: dict[str, str] = {}
        # Values taken from the environment (`${env:NAME}`, `${NAME}`, a default), in order: the loader
        # masks those that land in `args` or the URL (a token passed as `--token ${env:TOKEN}`).
        self.from_env: list[str] = []

    def empty_reasons(self, raw: str) -> str:
        """`${env:NOPE} (unset)`: the placeholders of `raw` that expanded to nothing, and why."""
        found = [match.group(0) for match in PLACEHOLDER.finditer(raw)]
        return ", ".join(
            f"{_shown(placeholder)} ({self.emptied[placeholder]})"
            for placeholder in found
            if placeholder in self.emptied
        )

    def __call__(self, value: str) -> str:
        return PLACEHOLDER.sub(self._substitute, value)

    def _substitute(self, match: re.Match[str]) -> str:
        placeholder, inner = match.group(0), match.group(1).strip()
        shown = _shown(placeholder)
        kind, colon, argument = inner.partition(":")
        if inner == "userHome":
            return str(self.context.home)
        if inner in ("pathSeparator", "/"):
            return "\\" if self.context.platform.startswith("win") else "/"
        if inner == "cwd":
            return str(self.context.cwd)
        if kind in ("workspaceFolder", "workspaceRoot"):  # `:Name` picks a root of a multi-root workspace
            return str(self.workspace)
        if inner == "workspaceFolderBasename":
            return self.workspace.name
        if kind == "input" and colon:
            return self._input(argument.strip(), placeholder, shown)
        if inner in _EDITOR_ONLY:
            raise self.fail(f"{self.where}: {shown} only has a value inside the editor")
        if kind == "env" and colon:
            name, has_default, default = argument, False, ""
        elif _ENV_NAME.fullmatch(kind) and (not colon or argument.startswith("-")):
            # Claude Code's shell style: `${NAME}` or `${NAME:-default}`.
            name, has_default, default = kind, bool(colon), argument[1:]
        elif kind in ("command", "config") and colon:
            what = "runs a VS Code command" if kind == "command" else "reads a VS Code setting"
            raise self.fail(f"{self.where}: {shown} {what}, which only works inside VS Code")
        elif colon:
            raise self.fail(f'{self.where}: {shown} has an unknown variable kind "{kind[:40]}"')
        else:
            raise self.fail(f"{self.where}: {shown} is not a variable the explorer knows")
        if not _ENV_NAME.fullmatch(name):
            raise self.fail(f"{self.where}: {shown} does not name an environment variable")
        value = self.context.env.get(name)
        if value is not None:
            if not value.strip():
                self.emptied[placeholder] = "set to an empty string" if not value else "set to blanks only"
            self.from_env.append(value)
            return value
        if has_default:
            if not default.strip():
                self.emptied[placeholder] = "unset, and its default is empty"
            self.from_env.append(default)
            return default
        self.emptied[placeholder] = "unset"
        self.warn(
            f"{self.where}: {shown} is not set in the environment; the server gets an empty string there"
        )
        return ""

    def _input(self, input_id: str, placeholder: str, shown: str) -> str:
        prompt = self.inputs.get(input_id)
        if prompt is None:
            raise self.fail(f'{self.where}: {shown} names no entry of "inputs"')
        if isinstance(prompt, str):  # an input of a type the explorer cannot ask
            raise self.fail(f"{self.where}: {shown} is {prompt}")
        self.used_inputs[prompt.id] = prompt
        return placeholder
