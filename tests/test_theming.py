"""Themes: built-in YAML files, loading and checking user themes, the remembered choice, no stray colours."""

from __future__ import annotations

import ast
import importlib.resources
import json
import re
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.color import Color
from textual.theme import Theme
from textual.widgets import Button, Footer, Input, Markdown, Static

from explorer import paths
from explorer.theming import (
    APP_VARIABLES,
    DEFAULT_THEME,
    ThemeError,
    all_theme_dirs,
    builtin_themes_dir,
    load_theme_choice,
    load_theme_file,
    load_themes,
    save_theme_choice,
    theme_variable_defaults,
    user_themes_dir,
)

ROOT = Path(__file__).resolve().parent.parent
THEMES = ROOT / "themes"
BUILTIN_FILES = sorted(THEMES.glob("*.yaml"))
BASE = 'name: t\nprimary: "#225588"\n'  # the smallest valid theme
TEXT_COLOUR_KEYS = ("foreground", "primary", "secondary", "accent", "warning", "error", "success")


class ThemedApp(App[None]):
    """A tiny app whose CSS uses every one of the explorer's theme variables."""

    CSS = "\n".join(f"#var-{name} {{ color: ${name}; }}" for name in APP_VARIABLES)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        for name in APP_VARIABLES:
            yield Static(name, id=f"var-{name}")
        # Widgets whose default CSS uses Textual's own variables, which some themes override.
        yield Input("text")
        yield Button("button")
        yield Markdown("# heading\n\n[link](https://example.com)")
        yield Footer()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------- built-ins


def test_the_builtin_folder_is_found_and_holds_the_required_themes() -> None:
    assert builtin_themes_dir() == THEMES
    themes, errors = load_themes([THEMES])
    assert errors == []
    by_name = {theme.name: theme for theme in themes}
    assert len(by_name) >= 4
    assert {DEFAULT_THEME, "explorer-light", "explorer-high-contrast"} <= set(by_name)
    assert by_name[DEFAULT_THEME].dark
    assert not by_name["explorer-light"].dark


@pytest.mark.parametrize("path", BUILTIN_FILES, ids=lambda path: path.stem)
def test_each_builtin_file_is_named_after_its_theme_and_defines_every_app_variable(path: Path) -> None:
    theme = load_theme_file(path)
    assert theme.name == path.stem
    assert set(APP_VARIABLES) <= set(theme.variables)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# Theme schema"), "each built-in file documents the schema in its header"


@pytest.mark.anyio
@pytest.mark.parametrize("path", BUILTIN_FILES, ids=lambda path: path.stem)
async def test_each_builtin_theme_registers_and_styles_a_textual_app(path: Path) -> None:
    theme = load_theme_file(path)
    app = ThemedApp()
    app.register_theme(theme)
    app.theme = theme.name
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.current_theme.name == theme.name
        variables = app.get_css_variables()
        for name in APP_VARIABLES:
            assert variables[name] == theme.variables[name]
            assert app.theme_variables[name] == theme.variables[name]
            widget = app.query_one(f"#var-{name}", Static)
            assert widget.styles.color == Color.parse(theme.variables[name])


@pytest.mark.anyio
async def test_switching_between_all_builtin_themes_while_running() -> None:
    themes, _ = load_themes([THEMES])
    app = ThemedApp()
    for theme in themes:
        app.register_theme(theme)
    app.theme = DEFAULT_THEME
    async with app.run_test() as pilot:
        for theme in [*themes, themes[0]]:
            app.theme = theme.name
            await pilot.pause()
            pattern = app.query_one("#var-tree-pattern", Static)
            assert pattern.styles.color == Color.parse(theme.variables["tree-pattern"])
            assert app.has_class("-light-mode") is not theme.dark


def _luminance(colour: Color) -> float:
    def channel(value: int) -> float:
        scaled = value / 255
        return scaled / 12.92 if scaled <= 0.03928 else ((scaled + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.r) + 0.7152 * channel(colour.g) + 0.0722 * channel(colour.b)


def _contrast(text: str, background: str) -> float:
    back = Color.parse(background)
    front = back + Color.parse(text.split()[0])  # blends a translucent colour over the background
    high, low = sorted((_luminance(front), _luminance(back)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _text_colours(theme: Theme) -> dict[str, str]:
    colours = {key: getattr(theme, key) for key in TEXT_COLOUR_KEYS if getattr(theme, key)}
    colours.update({name: theme.variables[name] for name in APP_VARIABLES})
    return colours


@pytest.mark.parametrize("path", BUILTIN_FILES, ids=lambda path: path.stem)
def test_builtin_text_colours_are_readable_on_every_background(path: Path) -> None:
    theme = load_theme_file(path)
    minimum = 7.0 if "high-contrast" in theme.name else 4.5  # WCAG AAA / AA for normal text
    for surface_key in ("background", "surface", "panel"):
        surface = getattr(theme, surface_key)
        assert surface, f"{theme.name} sets {surface_key}"
        for key, value in _text_colours(theme).items():
            ratio = _contrast(value, surface)
            assert ratio >= minimum, f"{theme.name}: {key} on {surface_key} has contrast {ratio:.2f}"


def test_high_contrast_is_white_on_pure_black_without_grey_text() -> None:
    theme = load_theme_file(THEMES / "explorer-high-contrast.yaml")
    black, white = Color(0, 0, 0), Color(255, 255, 255)
    assert Color.parse(theme.background or "") == black
    assert Color.parse(theme.foreground or "") == white
    assert Color.parse(theme.variables["tree-count"]) == white
    for key, value in _text_colours(theme).items():
        colour = Color.parse(value)
        spread = max(colour.r, colour.g, colour.b) - min(colour.r, colour.g, colour.b)
        assert colour == white or spread > 64, f"{key} is a grey ({value}), not white and not a hue"


def test_builtin_app_variables_are_told_apart() -> None:
    for path in BUILTIN_FILES:
        theme = load_theme_file(path)
        marker = Color.parse(theme.variables["escape-marker"])
        plain = Color.parse(theme.foreground or "")
        assert marker != plain, f"{theme.name}: escapes must stand out from plain text"
        assert theme.variables["tree-pattern"] != theme.foreground


# ------------------------------------------------------------------------------------------- defaults


def test_defaults_cover_every_app_variable_with_colours() -> None:
    defaults = theme_variable_defaults()
    assert set(defaults) == set(APP_VARIABLES)
    for value in defaults.values():
        Color.parse(value)
    derived = theme_variable_defaults(load_theme_file(THEMES / "explorer-light.yaml"))
    assert set(derived) == set(APP_VARIABLES)
    for value in derived.values():
        Color.parse(value)


@pytest.mark.anyio
async def test_a_user_theme_without_variables_gets_the_defaults(tmp_path: Path) -> None:
    theme = load_theme_file(write(tmp_path, "bare.yaml", 'name: bare\nprimary: "#336699"\nerror: "red"\n'))
    app = ThemedApp()
    app.register_theme(theme)
    app.theme = "bare"
    async with app.run_test() as pilot:
        await pilot.pause()
        failed = app.query_one("#var-status-failed", Static)
        assert failed.styles.color == Color.parse(app.get_css_variables()["text-error"])
        for name in APP_VARIABLES:
            assert name in app.theme_variables


# ------------------------------------------------------------------------------------------- loading


def test_a_user_folder_with_one_good_and_three_broken_files() -> None:
    folder = user_themes_dir()
    write(folder, "good.yaml", 'name: mine\ndark: false\nprimary: "#225588"\nbackground: "white"\n')
    write(folder, "bad-yaml.yaml", 'name: broken\nprimary: "#225588"\nvariables: [unclosed\n')
    write(folder, "bad-colour.yml", 'name: odd\nprimary: "#225588"\nbackground: "#12345"\n')
    write(folder, "no-primary.yaml", 'name: lacking\naccent: "#ffaa00"\n')
    write(folder, "notes.txt", "not a theme")

    themes, errors = load_themes([folder])

    assert [theme.name for theme in themes] == ["mine"]
    assert not themes[0].dark
    assert len(errors) == 3
    stems = ("bad-yaml", "bad-colour", "no-primary")
    by_file = {next(stem for stem in stems if stem in error): error for error in errors}
    assert "is not valid YAML" in by_file["bad-yaml"] and "line " in by_file["bad-yaml"]
    assert '"background" is not a colour' in by_file["bad-colour"] and "#12345" in by_file["bad-colour"]
    assert '"primary"' in by_file["no-primary"]
    for error in errors:
        assert str(folder) in error
        assert error.endswith(".") and error.count(". ") == 0, f"one sentence: {error}"


def test_yaml_line_number_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "t.yaml", 'name: t\nprimary: "#225588"\naccent: [\n')
    with pytest.raises(ThemeError, match=r"line \d+, column \d+"):
        load_theme_file(path)


def test_python_tags_are_refused_and_nothing_is_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    path = write(
        tmp_path,
        "evil.yaml",
        f'name: !!python/object/apply:os.mkdir ["{marker}"]\nprimary: "#225588"\n',
    )
    with pytest.raises(ThemeError, match="is not valid YAML") as caught:
        load_theme_file(path)
    assert "evil.yaml" in str(caught.value)
    assert not marker.exists()
    path = write(tmp_path, "object.yaml", "!!python/object:explorer.theming.ThemeError {}\n")
    with pytest.raises(ThemeError, match="constructor"):
        load_theme_file(path)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "is empty"),
        ("- a\n- b\n", "must be a mapping"),
        ('primary: "#225588"\n', 'no "name"'),
        ('name: 12\nprimary: "#225588"\n', '"name" must be a non-empty string'),
        ('name: "a,b"\nprimary: "#225588"\n', "commas"),
        ('name: "x\\u001b[31m"\nprimary: "#225588"\n', "control characters"),
        ("name: t\nprimary: #225588\n", "put hex colours in quotes"),
        ("name: t\nprimary: 225588\n", "must be a colour string"),
        (BASE + 'primry: "red"\n', "unknown key 'primry'"),
        (BASE + 'dark: "yes please"\n', '"dark" must be true or false'),
        (BASE + "variables: [a]\n", '"variables" must be a mapping'),
        (BASE + 'variables: {"$x": red}\n', "variable name"),
        (BASE + 'variables: {tree-match: "$accent"}\n', "refers to another variable"),
        (BASE + 'variables: {tree-match: "auto 50%"}\n', '"tree-match" is not a colour'),
        (BASE + 'variables: {tree-match: "red 150%"}\n', '"tree-match" is not a colour'),
        (BASE + 'variables: {block-cursor-text-style: "shiny"}\n', "not a text style"),
        (BASE + 'variables: {border: "{{{"}\n', '"border" is not a colour'),
        (BASE + "variables: {border: 3}\n", "must be a string"),
    ],
)
def test_schema_problems_are_one_clear_sentence(tmp_path: Path, text: str, problem: str) -> None:
    path = write(tmp_path, "theme.yaml", text)
    with pytest.raises(ThemeError) as caught:
        load_theme_file(path)
    message = str(caught.value)
    assert problem in message
    assert str(path) in message
    assert isinstance(caught.value, ValueError)


@pytest.mark.slow
def test_pathological_yaml_is_an_error_not_a_crash(tmp_path: Path) -> None:
    with pytest.raises(ThemeError, match="nested too deeply"):
        load_theme_file(write(tmp_path, "deep.yaml", "[" * 100_000))
    with pytest.raises(ThemeError, match="character 8"):
        load_theme_file(write(tmp_path, "bell.yaml", "name: t\x07\nprimary: red\n"))


def test_not_utf8_unreadable_and_huge_files(tmp_path: Path) -> None:
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"name: \xff\n")
    with pytest.raises(ThemeError, match="not UTF-8"):
        load_theme_file(latin)
    with pytest.raises(ThemeError, match="could not be read"):
        load_theme_file(tmp_path / "missing.yaml")
    huge = write(tmp_path, "huge.yaml", "# " + "x" * 300_000 + "\n")
    with pytest.raises(ThemeError, match="too large"):
        load_theme_file(huge)


def test_accepted_values_beyond_hex(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "rich.yaml",
        "name: '  spaced  '\nprimary: rgb(10, 20, 30)\nbackground: hsl(200, 30%, 95%)\n"
        "variables:\n  tree-match: tomato 50%\n  text-muted: auto 70%\n"
        "  link-style-hover: bold not underline\n  link-background: initial\n",
    )
    theme = load_theme_file(path)
    assert theme.name == "spaced"
    assert not theme.dark, "a light background makes the theme light when `dark` is missing"
    assert theme.variables["tree-match"] == "tomato 50%"


def test_user_themes_override_builtins_and_duplicates_in_one_folder_are_reported() -> None:
    folder = user_themes_dir()
    write(folder, "a.yaml", f'name: {DEFAULT_THEME}\nprimary: "#ff0000"\n')
    write(folder, "b.yaml", 'name: twin\nprimary: "#00ff00"\n')
    write(folder, "c.yaml", 'name: twin\nprimary: "#0000ff"\n')
    themes, errors = load_themes(all_theme_dirs())
    by_name = {theme.name: theme for theme in themes}
    assert by_name[DEFAULT_THEME].primary == "#ff0000"
    assert by_name["twin"].primary == "#00ff00"
    assert len(errors) == 1 and "c.yaml" in errors[0] and "b.yaml" in errors[0]


def test_missing_folders_are_skipped(tmp_path: Path) -> None:
    assert load_themes([tmp_path / "nowhere"]) == ([], [])


def test_theme_dirs() -> None:
    assert user_themes_dir() == paths.themes_dir()
    assert all_theme_dirs() == [THEMES, paths.themes_dir()]
    assert not paths.themes_dir().exists(), "asking where themes are creates nothing"


def test_package_data_is_preferred_over_the_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "_themes").mkdir()
    monkeypatch.setattr(importlib.resources, "files", lambda package: tmp_path)
    assert builtin_themes_dir() == tmp_path / "_themes"


# ------------------------------------------------------------------------------------------- choice


def test_theme_choice_round_trip() -> None:
    assert load_theme_choice() is None
    save_theme_choice("explorer-dusk")
    assert load_theme_choice() == "explorer-dusk"
    save_theme_choice("explorer-light")
    assert load_theme_choice() == "explorer-light"
    assert [path.name for path in paths.data_dir().iterdir()] == ["theme.json"], "no temporary files left"


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"\xff\xfe", b"[1, 2]", b'{"theme": 3}', b'{"theme": ""}', b'{"theme": "a\\u001bb"}', b""],
)
def test_a_corrupt_choice_file_is_ignored(content: bytes) -> None:
    folder = paths.data_dir(create=True)
    (folder / "theme.json").write_bytes(content)
    assert load_theme_choice() is None
    save_theme_choice("explorer-dark")
    assert json.loads((folder / "theme.json").read_text(encoding="utf-8")) == {"theme": "explorer-dark"}


def test_saving_the_choice_never_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setattr(paths, "data_dir", lambda create=False: blocker / "sub")
    save_theme_choice("explorer-dark")
    assert load_theme_choice() is None


# ------------------------------------------------------------------------------------------- no stray colours

_HEX = re.compile(r"(?<![\w&#])#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3,4})(?![\w-])")
_ISSUE_REF = re.compile(r"(?:issue|issues|pr|pull|bug|ticket|see|fixes|closes)\s*$", re.IGNORECASE)
_DECLARATION = re.compile(r"(?P<prop>\$?[\w-]+)\s*:\s*(?P<value>[^;{}]*)(?=[;}])")
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def _hex_in_plain_text(text: str) -> list[str]:
    """Hex colours in a string that is not CSS (markup, style strings, a bare colour); issue refs skipped."""
    found = []
    for match in _HEX.finditer(text):
        digits = match.group()[1:]
        if digits.isdecimal() and _ISSUE_REF.search(text[max(0, match.start() - 12) : match.start()]):
            continue
        found.append(match.group())
    return found


def _hex_in_css(css: str) -> list[str]:
    """Hex colours in declaration values only, so `#facade { ... }` (an id selector) is not one."""
    css = _CSS_COMMENT.sub("", css)
    return [hit.group() for decl in _DECLARATION.finditer(css) for hit in _HEX.finditer(decl["value"])]


def _hex_in_python(source: str) -> list[str]:
    """Hex colours in string literals (comments are not looked at); CSS-looking strings as CSS."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            found += _hex_in_css(text) if "{" in text and ":" in text else _hex_in_plain_text(text)
    return found


def test_the_colour_checker_itself() -> None:
    assert _hex_in_css("Tree { color: #fff; background: $panel; }\n$x: #a0b1c2;") == ["#fff", "#a0b1c2"]
    selectors_and_comments = (
        "#facade { color: $accent; }\n/* old: #ffffff; */\n#add:focus { border: tall red; }"
    )
    assert _hex_in_css(selectors_and_comments) == []
    assert _hex_in_css("Static { color: red 50%; text-style: bold }") == []
    assert _hex_in_python('X = "#ff0000"\nY = "[#abc]hi[/]"\nZ = "bold #ffffff on red"') == [
        "#ff0000",
        "#abc",
        "#ffffff",
    ]
    assert _hex_in_python('CSS = """\nTree { color: #123456; }\n"""') == ["#123456"]
    assert _hex_in_python('# see issue #123 and #fff in a comment\nS = "fixed in issue #1024"\n') == []
    assert _hex_in_python('CSS = "#facade { color: $accent; }"\nT = "#x1 and #deface-id"') == []


@pytest.mark.slow
def test_no_hex_colour_outside_the_themes_folder() -> None:
    offenders = []
    for path in sorted((ROOT / "explorer").rglob("*")):
        if path.suffix == ".py":
            hits = _hex_in_python(path.read_text(encoding="utf-8"))
        elif path.suffix == ".tcss":
            hits = _hex_in_css(path.read_text(encoding="utf-8"))
        else:
            continue
        offenders += [f"{path.relative_to(ROOT)}: {hit}" for hit in hits]
    assert offenders == [], "colours belong in themes/*.yaml; use theme variables instead"
