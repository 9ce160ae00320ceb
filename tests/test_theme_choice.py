"""Which theme the app starts with: the palette's remembered choice, the config's `theme`, the default;
an unknown theme in the config is a warning; a theme's name is plain text."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer import paths
from explorer.app import ExplorerApp
from explorer.config import Config
from explorer.theming import DEFAULT_THEME, load_themes, save_theme_choice


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def started_theme(config_theme: str | None) -> tuple[str, list[str]]:
    app = ExplorerApp([], config=Config(theme=config_theme), remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.1)
        return app.theme, [str(note.message) for note in app._notifications if note.title == "Theme"]


@pytest.mark.anyio
async def test_a_theme_typo_in_the_config_is_warned_about_and_the_remembered_theme_is_used() -> None:
    save_theme_choice("explorer-dusk")
    theme, said = await started_theme("explorer-lite")
    assert theme == "explorer-dusk"
    assert len(said) == 1
    assert "'explorer-lite' is not a known theme (did you mean 'explorer-light'" in said[0]
    assert "explorer-high-contrast" in said[0]


@pytest.mark.anyio
async def test_a_theme_typo_without_a_remembered_theme_falls_back_to_the_default() -> None:
    theme, said = await started_theme("explorer-lite")
    assert theme == DEFAULT_THEME
    assert len(said) == 1


@pytest.mark.anyio
async def test_the_palettes_remembered_choice_wins_over_the_configs_theme() -> None:
    save_theme_choice("explorer-dusk")
    assert await started_theme("explorer-dark") == ("explorer-dusk", [])


@pytest.mark.anyio
async def test_the_configs_theme_is_used_until_one_is_chosen_in_the_palette() -> None:
    assert await started_theme("explorer-light") == ("explorer-light", [])
    assert await started_theme(None) == (DEFAULT_THEME, [])


@pytest.mark.parametrize(
    "name", ["[b red]EVIL[/] [@click=app.quit]x[/]", "a[b]", "x:y", "émoji 😀", "semi;colon", "a/b"]
)
def test_a_theme_name_with_markup_or_odd_characters_is_refused(tmp_path: Path, name: str) -> None:
    (tmp_path / "evil.yaml").write_text(f'name: "{name}"\nprimary: "#225588"\n', encoding="utf-8")
    (tmp_path / "fine.yaml").write_text('name: "My theme_2.0-b"\nprimary: "#225588"\n', encoding="utf-8")
    themes, errors = load_themes([tmp_path])
    assert [theme.name for theme in themes] == ["My theme_2.0-b"]
    assert len(errors) == 1
    assert "evil.yaml" in errors[0] and "may hold only letters, digits" in errors[0]


@pytest.mark.anyio
async def test_a_theme_with_markup_in_its_name_is_not_offered_and_is_said_once() -> None:
    folder = paths.themes_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "evil.yaml").write_text(
        'name: "[b red]EVIL[/] [@click=app.quit]x[/]"\nprimary: "#225588"\n', encoding="utf-8"
    )
    app = ExplorerApp([], remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.1)
        assert not any("EVIL" in name for name in app.available_themes)
        said = [str(note.message) for note in app._notifications if note.title == "Theme not loaded"]
        assert len(said) == 1 and "evil.yaml" in said[0]
