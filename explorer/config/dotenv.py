"""VS Code's `envFile`: a dotenv file whose variables go into a stdio server's environment.

The format as dotenv tools write it: `KEY=VALUE` lines, `#` comments and blank lines, an optional
`export ` prefix, values in double quotes (with `\\n`, `\\t`, `\\"` and `\\\\` escapes), single quotes (taken
as written) or bare (a ` #` starts a comment). Values are taken literally: no `${...}` expansion.
A line that is none of these is skipped with a warning naming its line number, never its text, which
may hold a token.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from explorer.config.spec import ConfigError
from explorer.storage import FileTooLargeError, NotAFileError, read_regular_file

MAX_ENV_FILE_BYTES = 4 * 1024 * 1024  # far more than any environment takes
_LINE = re.compile(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def parse_dotenv(text: str, *, warn: Callable[[int, str], None]) -> dict[str, str]:
    """The variables of a dotenv text; `warn(line_number, problem)` is told about each skipped line."""
    values: dict[str, str] = {}
    for number, raw_line in enumerate(text.splitlines(), start=1):
        line = raw_line.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.fullmatch(line)
        if match is None:
            warn(number, "is not KEY=VALUE and is skipped")
            continue
        key, rest = match.group(1), match.group(2)
        value = _value(rest)
        if value is None:
            warn(number, "has an unterminated quoted value and is skipped")
            continue
        values[key] = value
    return values


def _value(rest: str) -> str | None:
    if rest[:1] == '"':
        out: list[str] = []
        index = 1
        while index < len(rest):
            char = rest[index]
            if char == "\\" and index + 1 < len(rest):
                following = rest[index + 1]
                out.append(_ESCAPES.get(following, "\\" + following))
                index += 2
                continue
            if char == '"':
                return "".join(out)
            out.append(char)
            index += 1
        return None
    if rest[:1] == "'":
        end = rest.find("'", 1)
        return rest[1:end] if end > 0 else None
    comment = re.search(r"\s#", rest)
    return (rest[: comment.start()] if comment else rest).strip()


def load_env_file(path: Path, where: str, *, warn: Callable[[str], None]) -> dict[str, str]:
    """Read an `envFile`; a missing or unreadable file is a ConfigError starting with `where`."""
    try:
        data = read_regular_file(path, limit=MAX_ENV_FILE_BYTES)  # a FIFO or /dev/zero: refused
    except FileNotFoundError:
        raise ConfigError(f"{where}: envFile {path} does not exist") from None
    except IsADirectoryError:
        raise ConfigError(f"{where}: envFile {path} is a directory") from None
    except (NotAFileError, FileTooLargeError) as exc:  # "is a FIFO, not a file", "is too large (...)"
        raise ConfigError(f"{where}: envFile {path} {exc.strerror}") from None
    except OSError as exc:
        raise ConfigError(f"{where}: envFile {path} cannot be read ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{where}: envFile {path} is not UTF-8 text (invalid byte at offset {exc.start})"
        ) from None
    return parse_dotenv(
        text, warn=lambda number, problem: warn(f"{where}: envFile {path} line {number} {problem}")
    )
