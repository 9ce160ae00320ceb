"""Themes: YAML files validated into Textual `Theme` objects, and the remembered choice of theme.

Built-in themes live in the repository's `themes/` folder (shipped in the wheel as `explorer/_themes`);
users add their own to the folder `mcp-url-explorer locate themes` prints. Both use one schema, and the
built-in files are the only place in the project where colour values are written down: the code and the
stylesheets name colours only through theme variables.

Schema of a theme file (one theme per file, `*.yaml` or `*.yml`, read with a YAML safe loader only)::

    name: explorer-dark        # required; letters, digits, "-", "_", "." and spaces, at most 64 characters
    dark: true                 # optional boolean; when missing, guessed from how dark `background` is
    primary: <colour>          # required
    secondary: <colour>        # optional, like every colour below
    accent: <colour>
    foreground: <colour>
    background: <colour>
    surface: <colour>
    panel: <colour>
    boost: <colour>
    warning: <colour>
    error: <colour>
    success: <colour>
    variables:                 # optional mapping of CSS variable name -> value
      tree-pattern: <colour>
      block-cursor-text-style: bold

A `<colour>` is anything `textual.color.Color.parse` accepts: a hex value in quotes (YAML reads an
unquoted `#` as the start of a comment), `rgb(...)`, `hsl(...)` or a colour name such as `tomato`.

Values under `variables:` are plain CSS values, because Textual does not resolve references such as
`$accent` inside theme variables (a reference there would break the stylesheet, so it is rejected):

- the explorer's own variables (`APP_VARIABLES`) take a colour, optionally with an alpha percentage
  (a colour followed by `40%`);
- variables with `style` as a word of their name (`block-cursor-text-style`, `link-style-hover`) take
  text-style words (`bold`, `not underline`, ...);
- any other variable takes a colour, optionally with an alpha percentage, or `auto 87%` (Textual's
  automatic contrast colour) or `initial`. These two fit only where the stylesheets use the variable as
  a text colour (`text`, `link-color`, ...): `auto` or `initial` in a border or a background (`panel`,
  `surface`, `border`) breaks them. So a user theme whose variables hold anything but plain colours is
  checked against the stylesheets of every widget before it is applied (`stylesheet_problem`); a theme
  that breaks them is refused with a warning naming its file, the variable and Textual's error.

Every built-in theme defines all of `APP_VARIABLES`; a user theme that leaves some out gets the values of
`theme_variable_defaults`, which the App returns from `get_theme_variable_defaults`.
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from importlib import resources
from pathlib import Path

import yaml
from rich.errors import MarkupError
from rich.text import Text
from textual.color import Color, ColorParseError
from textual.css.constants import VALID_STYLE_FLAGS
from textual.css.errors import StylesheetError
from textual.css.stylesheet import Stylesheet, StylesheetParseError
from textual.css.tokenize import tokenize_value
from textual.css.tokenizer import TokenError
from textual.css.types import CSSLocation
from textual.theme import Theme

from explorer import paths
from explorer.storage import FileTooLargeError, read_json_file, read_regular_file, write_json_atomically
from explorer.value_kinds import value_kind

__all__ = [
    "APP_VARIABLES",
    "DEFAULT_THEME",
    "ThemeError",
    "all_theme_dirs",
    "builtin_themes_dir",
    "load_theme_choice",
    "load_theme_file",
    "load_themes",
    "needs_stylesheet_check",
    "save_theme_choice",
    "stylesheet_error_text",
    "stylesheet_problem",
    "theme_variable_defaults",
    "ui_stylesheets",
    "unknown_theme_warning",
    "user_themes_dir",
]

log = logging.getLogger(__name__)

DEFAULT_THEME = "explorer-dark"

APP_VARIABLES: dict[str, str] = {
    "tree-pattern": "template (pattern) nodes such as {id} in the URI tree",
    "tree-count": "the count of resources and templates shown after a tree node",
    "tree-badge": "server badges on nodes listed by several servers",
    "tree-match": "the part of a node that matches the tree filter",
    "tree-incomplete": "the marker on a listing that stopped early (bound hit or error)",
    "status-ok": "a connected server whose listing is complete",
    "status-busy": "a server that is connecting or still listing",
    "status-failed": "a server that failed to connect or to list",
    "escape-marker": "visible escapes (such as \\x1b) that the sanitizer put in place of unsafe characters",
}
"""The explorer's own theme variables, each with what it colours."""

_COLOUR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
    "warning",
    "error",
    "success",
)
_KNOWN_KEYS = frozenset({"name", "dark", "variables", *_COLOUR_KEYS})
_MAX_FILE_BYTES = 256 * 1024
_MAX_NAME = 64
_VARIABLE_NAME = re.compile(r"[A-Za-z0-9_-]+")
_NAME_PUNCTUATION = frozenset("-_. ")  # with letters and digits: what a theme's name may hold
_STYLE_VARIABLE = re.compile(r"(?:^|-)style(?:-|$)")  # text-style, link-style-hover, ...
_ALPHA = re.compile(r"(?:100|[0-9]{1,2})(?:\.[0-9]+)?%")
_CHOICE_FILE = "theme.json"

# Fallbacks when there is no theme to derive from (CSS colour names, never hex: see the module docstring).
_STATIC_DEFAULTS: dict[str, str] = {
    "tree-pattern": "mediumpurple",
    "tree-count": "gray",
    "tree-badge": "steelblue",
    "tree-match": "gold",
    "tree-incomplete": "orange",
    "status-ok": "limegreen",
    "status-busy": "deepskyblue",
    "status-failed": "tomato",
    "escape-marker": "hotpink",
}
# With a theme: each app variable follows one of the variables Textual derives from the theme's colours.
_DERIVED_FROM: dict[str, str] = {
    "tree-pattern": "text-secondary",
    "tree-count": "foreground-muted",
    "tree-badge": "text-primary",
    "tree-match": "text-accent",
    "tree-incomplete": "text-warning",
    "status-ok": "text-success",
    "status-busy": "text-primary",
    "status-failed": "text-error",
    "escape-marker": "text-error",
}


class ThemeError(ValueError):
    """A theme file that cannot be used; the message is one sentence naming the file and the problem."""


# ---------------------------------------------------------------------------------------------- defaults


def theme_variable_defaults(theme: Theme | None = None) -> dict[str, str]:
    """Values for the explorer's own variables that a theme leaves out.

    Without a theme these are fixed CSS colour names. Given the current theme (the App can pass
    `self.current_theme`), they follow that theme's generated colours instead (the pattern colour
    follows its secondary, a failed status its error colour, ...), so a user theme that sets only a few
    colours still looks consistent.
    """
    if theme is None:
        return dict(_STATIC_DEFAULTS)
    try:
        generated = theme.to_color_system().generate()
    except Exception:  # a theme that got past validation should not fail here, but never crash the UI
        log.exception("could not derive variable defaults from theme %r", theme.name)
        return dict(_STATIC_DEFAULTS)
    return {name: generated.get(source, _STATIC_DEFAULTS[name]) for name, source in _DERIVED_FROM.items()}


# ---------------------------------------------------------------------------------------------- folders


def builtin_themes_dir() -> Path | None:
    """The folder of the built-in themes: package data in a wheel, else the repository's `themes/`."""
    package = __name__.rpartition(".")[0]
    packaged = resources.files(package) / "_themes"
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / "themes"
    if checkout.is_dir():
        return checkout
    return None


def user_themes_dir() -> Path:
    """The user's own themes (it may not exist)."""
    return paths.themes_dir()


def all_theme_dirs() -> list[Path]:
    """Built-in themes first, then the user's: a user theme with a built-in name replaces it."""
    builtin = builtin_themes_dir()
    return [*([builtin] if builtin is not None else []), user_themes_dir()]


# ---------------------------------------------------------------------------------------------- loading


# libyaml's safe loader when the wheel has it: the same safe constructor (no Python objects from tags)
# with a parser in C, which took the four built-in themes from 26 ms to a few ms of start-up.
_SAFE_LOADER: type[yaml.SafeLoader] | type[yaml.CSafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_theme_file(path: Path) -> Theme:
    """Read and validate one theme file; raise `ThemeError` with one sentence when it is unusable."""
    where = f"Theme file {path}"
    try:
        raw = read_regular_file(path, limit=_MAX_FILE_BYTES)  # a FIFO is refused, never waited on
    except FileTooLargeError:
        too_large = f"{where} is larger than {_MAX_FILE_BYTES // 1024} KiB, too large for a theme."
        raise ThemeError(too_large) from None
    except OSError as error:
        raise ThemeError(f"{where} could not be read ({error.strerror or error}).") from error
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ThemeError(f"{where} is not UTF-8 text (byte {error.start}).") from error
    try:
        document = yaml.load(text, Loader=_SAFE_LOADER)
    except yaml.YAMLError as error:
        if "maximum nesting depth" in str(error):  # libyaml's own bound on nesting
            raise ThemeError(f"{where} is nested too deeply to be a theme.") from None
        raise ThemeError(f"{where} is not valid YAML ({_describe_yaml_error(error)}).") from error
    except RecursionError:  # the pure-Python parser's
        raise ThemeError(f"{where} is nested too deeply to be a theme.") from None
    return _theme_from_document(document, where)


def load_themes(
    dirs: Sequence[Path], found_in: MutableMapping[str, Path] | None = None
) -> tuple[list[Theme], list[str]]:
    """Load every `*.yaml` / `*.yml` file of each folder (folders in order, files sorted by name).

    Returns the themes and one error sentence per file that could not be used; a broken file never raises.
    A missing folder is skipped. A theme whose name was already loaded from an earlier folder replaces
    it (user themes override built-in ones); two files of one folder with the same name are an error
    for the second one. `found_in`, when given, gets each returned theme's file (for later warnings).
    """
    themes: dict[str, Theme] = {}
    errors: list[str] = []
    for directory in dirs:
        try:
            files = sorted(
                entry for entry in directory.iterdir() if entry.suffix.lower() in (".yaml", ".yml")
            )
        except FileNotFoundError:
            continue
        except OSError as error:
            errors.append(f"Theme folder {directory} could not be read ({error.strerror or error}).")
            continue
        seen_here: dict[str, Path] = {}
        for file in files:
            try:
                theme = load_theme_file(file)
            except ThemeError as error:
                errors.append(str(error))
                continue
            if theme.name in seen_here:
                errors.append(
                    f"Theme file {file} names its theme {theme.name!r}, "
                    f"which {seen_here[theme.name].name} in the same folder already uses."
                )
                continue
            seen_here[theme.name] = file
            themes[theme.name] = theme
            if found_in is not None:
                found_in[theme.name] = file
    return list(themes.values()), errors


def _describe_yaml_error(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or getattr(error, "reason", None) or str(error)
    if mark is not None:
        return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"
    position = getattr(error, "position", None)
    if isinstance(position, int):
        return f"character {position + 1}: {problem}"
    return str(problem)


def _theme_from_document(document: object, where: str) -> Theme:
    if document is None:
        raise ThemeError(f"{where} is empty; a theme needs at least a name and a primary colour.")
    if not isinstance(document, dict):
        raise ThemeError(
            f"{where} must be a mapping with keys such as name and primary, not {value_kind(document)}."
        )
    for key in document:
        if not isinstance(key, str) or key not in _KNOWN_KEYS:
            raise ThemeError(
                f"{where} has an unknown key {key!r} (known keys: {', '.join(sorted(_KNOWN_KEYS))})."
            )

    name = _theme_name(document.get("name"), where)
    colours: dict[str, str] = {}
    for key in _COLOUR_KEYS:
        if key in document:
            colours[key] = _colour(document[key], f'"{key}"', where)
    if "primary" not in colours:
        raise ThemeError(f'{where} has no "primary" colour, which every theme needs.')

    dark = document.get("dark")
    if dark is None:
        background = colours.get("background")
        dark = Color.parse(background).brightness < 0.5 if background else True
    elif not isinstance(dark, bool):
        raise ThemeError(f'{where}: "dark" must be true or false, not {value_kind(dark)}.')

    variables = _variables(document.get("variables"), where)
    theme = Theme(
        name=name,
        primary=colours["primary"],
        secondary=colours.get("secondary"),
        accent=colours.get("accent"),
        foreground=colours.get("foreground"),
        background=colours.get("background"),
        surface=colours.get("surface"),
        panel=colours.get("panel"),
        boost=colours.get("boost"),
        warning=colours.get("warning"),
        error=colours.get("error"),
        success=colours.get("success"),
        dark=dark,
        variables=variables,
    )
    _check_generates(theme, where)
    return theme


def _theme_name(value: object, where: str) -> str:
    if value is None:
        raise ThemeError(f'{where} has no "name"; every theme needs one to be selected by.')
    if not isinstance(value, str) or not value.strip():
        raise ThemeError(f'{where}: "name" must be a non-empty string, not {value_kind(value)}.')
    name = value.strip()
    if len(name) > _MAX_NAME:
        raise ThemeError(f'{where}: "name" is longer than {_MAX_NAME} characters.')
    if not name.isprintable() or "," in name:
        raise ThemeError(f'{where}: "name" may not contain commas or control characters.')
    # The palette's theme picker reads a name as markup (`[b]`, `[@click=...]`): only plain characters.
    odd = [character for character in name if not (character.isalnum() or character in _NAME_PUNCTUATION)]
    if odd:
        raise ThemeError(
            f'{where}: "name" may hold only letters, digits, "-", "_", "." and spaces, not {odd[0]!r}.'
        )
    return name


def _colour(value: object, label: str, where: str) -> str:
    if value is None:
        raise ThemeError(
            f"{where}: {label} is empty; put hex colours in quotes, since YAML reads an unquoted # as "
            "the start of a comment."
        )
    if not isinstance(value, str):
        raise ThemeError(f"{where}: {label} must be a colour string, not {value_kind(value)}.")
    try:
        Color.parse(value.strip())
    except ColorParseError:
        raise ThemeError(
            f"{where}: {label} is not a colour ({value!r}); use a quoted hex value, rgb(...), hsl(...) "
            "or a colour name."
        ) from None
    return value.strip()


def _variables(value: object, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ThemeError(
            f'{where}: "variables" must be a mapping of variable names to values, not {value_kind(value)}.'
        )
    variables: dict[str, str] = {}
    for name, raw in value.items():
        if not isinstance(name, str) or not _VARIABLE_NAME.fullmatch(name):
            raise ThemeError(
                f"{where}: variable name {name!r} may only hold letters, digits, '-' and '_' (no leading $)."
            )
        variables[name] = _variable_value(name, raw, where)
    return variables


def _variable_value(name: str, raw: object, where: str) -> str:
    label = f'variable "{name}"'
    if raw is None:
        return _colour(raw, label, where)  # raises, with the hint about unquoted hex colours
    if not isinstance(raw, str):
        raise ThemeError(f"{where}: {label} must be a string, not {value_kind(raw)}.")
    value = raw.strip()
    if "$" in value:
        raise ThemeError(
            f"{where}: {label} refers to another variable ({value!r}), which Textual does not resolve "
            "in theme variables; give the value itself."
        )
    words = value.split()
    if name in APP_VARIABLES:
        if not _is_colour_value(words, allow_auto=False):
            raise ThemeError(
                f"{where}: {label} is not a colour ({raw!r}); use a quoted hex value, rgb(...), a colour "
                "name, optionally followed by an alpha percentage."
            )
    elif _STYLE_VARIABLE.search(name):
        if not words or any(word not in VALID_STYLE_FLAGS for word in words):
            raise ThemeError(
                f"{where}: {label} is not a text style ({raw!r}); use words such as bold or reverse."
            )
    elif not _is_colour_value(words, allow_auto=True):
        raise ThemeError(
            f"{where}: {label} is not a colour ({raw!r}); use a quoted hex value, rgb(...), a colour name "
            "or auto, optionally followed by an alpha percentage."
        )
    return value


def _is_colour_value(words: list[str], *, allow_auto: bool) -> bool:
    if not words or len(words) > 2:
        return False
    if len(words) == 2 and not _ALPHA.fullmatch(words[1]):
        return False
    first = words[0]
    if allow_auto and (first == "auto" or (first == "initial" and len(words) == 1)):
        return True
    try:
        Color.parse(first)
    except ColorParseError:
        return False
    return True


def _check_generates(theme: Theme, where: str) -> None:
    """Last line of defence: build the colour system and tokenize every variable as Textual will."""
    try:
        generated = theme.to_color_system().generate()
        for name, value in {**generated, **theme.variables}.items():
            list(tokenize_value(value, ("theme", name)))
    except Exception as error:
        raise ThemeError(f"{where} cannot be turned into Textual colours ({error}).") from error


# ---------------------------------------------------------------------------------------------- stylesheets

_UI_PACKAGES = ("explorer.screens", "explorer.widgets")
_LAZY_TEXTUAL_WIDGETS = ("Markdown", "HelpPanel")  # the UI imports these only when first shown
_MAX_DECLARATION = 120


def needs_stylesheet_check(theme: Theme) -> bool:
    """Whether a theme's variables can break a stylesheet, which only a parse of it tells.

    Textual derives its own variables from the theme's colours as plain colours, and a plain colour fits
    wherever a colour does; a value that is anything else (`auto 87%`, `initial`, an alpha percentage,
    text-style words) fits in some places and not in others (`initial` in `border-bottom: solid $panel`).
    So a theme of plain colours, like most, costs no parse at all.
    """
    return any(not _is_plain_colour(value) for value in theme.variables.values())


def _is_plain_colour(value: str) -> bool:
    if len(value.split()) != 1:
        return False
    try:
        Color.parse(value)
    except ColorParseError:
        return False
    return True


def ui_stylesheets() -> dict[CSSLocation, str]:
    """The CSS of every widget and screen class the explorer can show, keyed as Textual keys its sources.

    A widget adds its `DEFAULT_CSS` to the app's stylesheet when it is first mounted, and a stylesheet
    that does not parse then stops the app: a theme is checked against all of them up front. Imports
    every module of the explorer's screens and widgets (dialogs too) and the Textual widgets the UI
    imports only when first shown, then takes the `DEFAULT_CSS` and `CSS` of every `DOMNode` class loaded.
    """
    import importlib
    import inspect
    import pkgutil

    import textual.widgets
    from textual.dom import DOMNode

    for package_name in _UI_PACKAGES:
        package = importlib.import_module(package_name)
        for module in pkgutil.walk_packages(package.__path__, package_name + "."):
            importlib.import_module(module.name)
    for name in _LAZY_TEXTUAL_WIDGETS:
        getattr(textual.widgets, name)  # textual.widgets imports its widgets on first access
    found: dict[CSSLocation, str] = {}
    pending: list[type[DOMNode]] = [DOMNode]
    seen: set[type[DOMNode]] = set()
    while pending:
        for sub in pending.pop().__subclasses__():
            if sub in seen:
                continue
            seen.add(sub)
            pending.append(sub)
            for attribute in ("DEFAULT_CSS", "CSS"):
                css = sub.__dict__.get(attribute)
                if isinstance(css, str) and css.strip():
                    try:
                        where = inspect.getfile(sub)
                    except (TypeError, OSError):
                        where = ""
                    found[(where, f"{sub.__name__}.{attribute}")] = css
    return found


def stylesheet_problem(theme: Theme, path: Path, stylesheets: Mapping[CSSLocation, str]) -> str | None:
    """Why `theme`, read from `path`, cannot be applied: `stylesheets` do not parse with its variables.

    The variables are built as the App builds them (`get_css_variables`: the explorer's defaults, then
    Textual's from the theme's colours, then the theme's own). Returns one sentence naming the file, the
    variable and Textual's error, or None when every stylesheet parses.
    """
    try:
        generated = theme.to_color_system().generate()
        sheet = Stylesheet(variables={**theme_variable_defaults(theme), **generated, **theme.variables})
        for read_from, css in stylesheets.items():
            sheet.add_source(css, read_from=read_from, is_default_css=True)
        sheet.parse()
    except Exception as error:  # whatever the parse raises, the theme is not usable: never crash on it
        return f"Theme file {path} is not used: {stylesheet_error_text(error, theme)}."
    return None


def stylesheet_error_text(error: Exception, theme: Theme) -> str:
    """Textual's error about a stylesheet that does not parse with `theme`'s variables, in one clause: the
    theme's variable and its value, the declaration it broke, and Textual's own summary."""
    if isinstance(error, StylesheetParseError):
        for rule in error.errors.rules:
            for token, message in rule.errors:
                summary = _plain(str(getattr(message, "summary", message)))
                reference = token.referenced_by
                if reference is None:
                    return f"the stylesheet does not parse with it (Textual: {summary})"
                lines = reference.code.splitlines()
                row = reference.location[0]
                declaration = lines[row].strip() if 0 <= row < len(lines) else f"${reference.name}"
                value = theme.variables.get(reference.name)
                name = reference.name
                what = f"${name}" if value is None else f'its variable "{name}" = {value!r}'
                return f"{what} breaks `{declaration[:_MAX_DECLARATION]}` (Textual: {summary})"
    if isinstance(error, (StylesheetError, TokenError)):
        return f"the stylesheet does not parse with it ({_plain(str(error))})"
    return f"the stylesheet does not parse with it ({type(error).__name__}: {error})"


def _plain(text: str) -> str:
    """Textual's error summaries hold Rich markup (`[i]border-bottom[/]`): the text without it."""
    try:
        return Text.from_markup(text).plain
    except MarkupError:
        return text


# ---------------------------------------------------------------------------------------------- choice


def unknown_theme_warning(name: str, known: Iterable[str], listed: Iterable[str]) -> str:
    """The warning for a config's `theme` that names none of the `known` themes: the closest ones (of all
    `known`, Textual's own too), then the `listed` ones (the explorer's and the user's theme files)."""
    close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.8)
    guess = " (did you mean " + " or ".join(repr(candidate) for candidate in close) + "?)" if close else ""
    return (
        f"The config's theme {name!r} is not a known theme{guess}; known themes: "
        f"{', '.join(sorted(listed))}, and Textual's own. Using the theme chosen in the palette, or the "
        "default."
    )


def _choice_path() -> Path:
    return paths.data_dir() / _CHOICE_FILE


def load_theme_choice() -> str | None:
    """The theme name chosen last time, or None (never chosen, or the file is unreadable or corrupt)."""
    try:
        document = read_json_file(_choice_path()).data  # a FIFO there is refused, never waited on
    except OSError:
        return None
    name = document.get("theme") if isinstance(document, dict) else None
    if not isinstance(name, str) or not name.strip() or len(name) > _MAX_NAME or not name.isprintable():
        return None
    return name.strip()


def save_theme_choice(name: str) -> None:
    """Remember `name` for the next start (best effort: a failure to write is logged, never raised).

    Written like every saved file (`storage.write_json_atomically`): atomically, through a symlink to the
    user's dotfiles, keeping the file's permissions."""
    try:
        path = _choice_path()
    except OSError:
        log.warning("could not remember the theme choice %r", name, exc_info=True)
        return
    if not write_json_atomically(path, {"theme": name}):
        log.warning("could not remember the theme choice %r: %s could not be written", name, path)
