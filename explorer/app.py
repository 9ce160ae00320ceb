"""ExplorerApp: themes, keymap, palette commands; the main screen does the rest."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.css.errors import StylesheetError
from textual.css.stylesheet import Stylesheet
from textual.css.tokenizer import TokenError
from textual.theme import Theme
from textual.widget import Widget

from explorer import lock_handoff
from explorer.auth.options import AuthOptions
from explorer.config import Config, ListingBounds, ServerSpec
from explorer.config.found import FoundConfig, found_notes
from explorer.connection import exit_signals
from explorer.input_first import InputFirst
from explorer.keymap import binding_ids, binding_owners, binding_scopes, held_keys, validate_keymap
from explorer.model.heap import BetweenFrames
from explorer.model.idle_thaw import IdleThaw
from explorer.model.login_prompt import AuthFlow
from explorer.sanitize import sanitize_line
from explorer.theming import (
    DEFAULT_THEME,
    all_theme_dirs,
    builtin_themes_dir,
    load_theme_choice,
    load_themes,
    needs_stylesheet_check,
    save_theme_choice,
    stylesheet_error_text,
    stylesheet_problem,
    theme_variable_defaults,
    ui_stylesheets,
    unknown_theme_warning,
)

if TYPE_CHECKING:  # the connection layer is imported when servers connect, after the first frame
    from textual.message import Message

    from explorer.model.identity import ProtocolMode


USER_INPUT = (events.Key, events.MouseDown, events.Paste)
HELP_ID = "app.help"
CONFIG_WARNING_SECONDS = 30.0  # how long the start-up config warnings stay up (Textual: 5 s)
"""What the user does that asks for a frame: a running listing waits for it (`InputFirst`). Not the
wheel: a trackpad sends 60 to 120 steps a second, each would owe a frame, and a listing would run at
about 5% of its speed while the user scrolls (measured in a simulation)."""


class ThemeGuardedStylesheet(Stylesheet):
    """The app's stylesheet, whose failed parse asks `when_failed` (the app) before stopping the app.

    Every parse of the app's CSS comes here: a theme change (`refresh_css`), the CSS a widget adds when
    it is first mounted, a screen's CSS. `when_failed` may fall back to another theme and answer True:
    then the parse runs again with that theme's variables; False lets the error stop the app as before.
    """

    def __init__(self, when_failed: Callable[[Exception], bool], *, variables: dict[str, str]) -> None:
        super().__init__(variables=variables)
        self._when_failed = when_failed

    def parse(self) -> None:
        self._retried(super().parse)

    def reparse(self) -> None:
        self._retried(super().reparse)

    def _retried(self, parse: Callable[[], None]) -> None:
        while True:
            try:
                parse()
            except (StylesheetError, TokenError) as error:
                if not self._when_failed(error):
                    raise
            else:
                return


class ExplorerApp(App[int]):
    """A keyboard-driven explorer of what MCP servers expose."""

    TITLE = "mcp-url-explorer"
    CSS_PATH = "explorer.tcss"
    # Every screen gets a width class and a height class, so small terminals get their own layout in CSS
    # (`-narrow` under 100 columns, `-short` under 32 rows). Textual types these as plain attributes, so
    # a ClassVar annotation would not type-check.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]  # noqa: RUF012
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit", id="app.quit"),
        # `f1` too: `?` is a character, which a focused text input takes (a dialog's field, the filter).
        # Textual leaves the app's bindings out on a modal screen: each dialog binds `app.help` itself
        # (with these keys, so its key bar shows it), and `on_key` stands in for one that does not.
        Binding("question_mark,f1", "toggle_help", "Help", id=HELP_ID),
    ]

    def __init__(
        self,
        specs: list[ServerSpec],
        *,
        config: Config | None = None,
        protocol: ProtocolMode = "auto",
        timeout: float = 30.0,
        bounds: ListingBounds | None = None,
        remember_theme: bool = True,
        notices: Sequence[str] = (),
        found_configs: Sequence[FoundConfig] = (),
        wire_log: Path | None = None,
        auth: AuthOptions | None = None,
    ) -> None:
        super().__init__()
        self.auth = auth  # OAuth logins for servers that ask (None: no logins)
        # Lines the CLI would print on stderr (config warnings, which files were read): one notification.
        self.notices = list(notices)
        self.found_configs = list(found_configs)
        self.specs = specs
        self.config = config
        self.protocol: ProtocolMode = protocol
        self.timeout = timeout
        self.bounds = bounds or (config.listing if config is not None else ListingBounds())
        self.remember_theme = remember_theme
        self._theme_ready = False
        self._user_themes: dict[str, Path] = {}  # the user's themes by name: their files
        self._replaced_themes: dict[str, Theme] = {}  # what a user theme replaced under its name
        self._checked_themes: set[str] = set()  # user themes that parsed with every stylesheet
        self._good_theme: str | None = None  # the last theme the stylesheet parsed with
        self.stylesheet = ThemeGuardedStylesheet(self._stylesheet_failed, variables=self.get_css_variables())
        from explorer.connection.wire import WireLog

        # Every server's JSON-RPC frames, for the protocol log (`l`); bounded, serialized only when shown.
        self.wire = WireLog(sink=wire_log)
        self.input_first = InputFirst()
        self.collector = BetweenFrames(self._ask_collection)
        self._shortened = False  # `lock_handoff.shorten` was called (on mount): `restore` on unmount
        self.idle_thaw = IdleThaw()
        self.signal_exit_code: int | None = None  # 128 + SIGTERM once a SIGTERM ended the app
        self.exit_notes: list[str] = []  # warnings known only as the app closes, printed after it
        self._help_keys = _default_keys(type(self), HELP_ID)  # the keymap's, once it is applied

    def get_theme_variable_defaults(self) -> dict[str, str]:
        try:
            return theme_variable_defaults(self.current_theme)
        except Exception:  # early in start-up there may be no current theme yet
            return theme_variable_defaults()

    def on_mount(self) -> None:
        self._main_loop = asyncio.get_running_loop()  # `_ask_collection` may be called from other threads
        exit_signals.graceful_exit(self._exit_on_signal)
        self.collector.install()
        lock_handoff.shorten()
        self._shortened = True
        self.set_interval(IdleThaw.CHECK, self._thaw_if_away)
        self._load_themes()
        self._apply_keymap()
        from explorer.screens.main import MainScreen

        self.push_screen(
            MainScreen(
                self.specs,
                protocol=self.protocol,
                timeout=self.timeout,
                bounds=self.bounds,
                found_configs=self.found_configs,
                wire=self.wire,
                auth=self.auth,
                config=self.config,
                input_first=self.input_first,
            )
        )
        self._show_notices()

    def post_message(self, message: Message) -> bool:
        """Input is noted when it reaches the app, not when the app gets to it: a listing's parse and merge
        stop for a frame at their next slice, instead of running during the several turns of the loop the
        event takes to reach its handler (`benchmarks/README.md`, keys while pages stream). Once: a key
        the focused widget did not stop comes back to the app (bubbled, marked forwarded) after it ran."""
        if isinstance(message, (events.InputEvent, events.Paste)) and not message.is_forwarded:
            self.idle_thaw.note_activity()  # the wheel and the mouse's moves too: the user is here
            if isinstance(message, USER_INPUT):
                self.input_first.note_input()
        return super().post_message(message)

    def on_app_blur(self) -> None:
        """The terminal's window lost focus: the user is away, free the frozen garbage (`IdleThaw`), once
        the blur's own repaint is on screen."""
        self.call_after_refresh(self._thaw_if_away)

    def _thaw_if_away(self) -> None:
        if self.idle_thaw.run(away=not self.app_focus) is not None:
            self.collector.thawed()

    def _exit_on_signal(self, code: int) -> bool:
        """SIGTERM, its servers already stopped (`exit_signals`): exit as `q` does, so the terminal is
        restored. Called in a signal handler: only schedules the exit on the loop."""
        try:
            self._main_loop.call_soon_threadsafe(self.exit, None, code)
        except RuntimeError:  # the loop is closed: nothing left to restore
            return False
        self.signal_exit_code = code
        return True

    def on_unmount(self) -> None:
        exit_signals.graceful_exit(None)
        try:
            self.collector.uninstall()
        finally:
            if self._shortened:
                self._shortened = False
                lock_handoff.restore()

    def _ask_collection(self) -> None:
        """An older collection is due (called inside a young one, in any thread): run it after the frame."""
        with suppress(RuntimeError):  # a closed loop: the app is gone, `uninstall` restored the thresholds
            self._main_loop.call_soon_threadsafe(self._collect_after_frame)

    def _collect_after_frame(self) -> None:
        try:
            scheduled = self.screen.call_after_refresh(self.collector.run_due)
        except Exception:  # no screen (starting or closing): no frame to wait for
            scheduled = False
        if not scheduled:
            self.collector.run_due()

    def _show_notices(self) -> None:
        """The config's warnings and notes, once at start, and, as the CLI says on stderr, the client
        configs found that cannot be used (the palette offers only those that can: else nothing said why)."""
        unusable = found_notes([item for item in self.found_configs if item.error is not None])
        notices = [*self.notices, *(f"note: {text}" for text in unusable)]
        if not notices:
            return
        shown = [sanitize_line(line, 300) for line in notices[:8]]
        if len(notices) > len(shown):
            shown.append(f"… and {len(notices) - len(shown)} more")
        warned = any(line.startswith("warning:") for line in notices)
        # A warning stays up longer than Textual's 5 s: it is said once, at start, while the eye is on
        # the first rows (a click dismisses it).
        self.notify(
            "\n".join(shown),
            title="Config",
            severity="warning" if warned else "information",
            markup=False,
            timeout=CONFIG_WARNING_SECONDS if warned else None,
        )

    def _load_themes(self) -> None:
        themes: list[Theme] = []
        errors: list[str] = []
        builtin = builtin_themes_dir()
        for directory in all_theme_dirs():  # folder by folder, as `load_themes` does: to know the user's
            files: dict[str, Path] = {}
            found, problems = load_themes([directory], files)
            themes += found
            errors += problems
            for theme in found:
                if directory != builtin:
                    self._user_themes[theme.name] = files[theme.name]
                    replaced = self.available_themes.get(theme.name)
                    if replaced is not None:
                        self._replaced_themes.setdefault(theme.name, replaced)
                self.register_theme(theme)
        for problem in errors:
            self.notify(
                sanitize_line(problem, 300), title="Theme not loaded", severity="warning", markup=False
            )
        configured = self.config.theme if self.config is not None else None
        if configured is not None and configured not in self.available_themes:
            listed = [theme.name for theme in themes]
            self.notify(
                sanitize_line(unknown_theme_warning(configured, self.available_themes, listed), 600),
                title="Theme",
                severity="warning",
                markup=False,
            )
            configured = None
        # A theme chosen in the palette is remembered and wins; the config's `theme` is the one used until
        # a theme is chosen there (README, "Themes").
        for wanted in (load_theme_choice(), configured, DEFAULT_THEME):
            if wanted is not None and wanted in self.available_themes and self._theme_usable(wanted):
                self.theme = wanted
                break
        self._theme_ready = True

    def validate_theme(self, theme: str) -> str:
        """A theme is applied only when usable (`_theme_usable`): one chosen in the palette that is not
        keeps the current theme, and the choice is not remembered."""
        if theme == self.theme or self._theme_usable(theme):
            return theme
        return self.theme

    def watch_theme(self, theme: str) -> None:
        if self._theme_ready and self.remember_theme:
            save_theme_choice(theme)

    def _theme_usable(self, name: str) -> bool:
        """Whether the theme `name` can be applied without breaking the stylesheet (Textual stops the app
        when it does not parse: "CSS parsing failed").

        Only a user theme whose variables are not all plain colours can break it
        (`needs_stylesheet_check`): such a theme is parsed with the CSS of every widget once, the first
        time it is to be applied (some 0.1 to 0.3 s; never for built-in themes nor on the way to the
        first frame without one). One that breaks it is withdrawn with a warning, and the theme it
        replaced under its name, if any, comes back (then the name is usable).
        """
        theme = self.available_themes.get(name)
        path = self._user_themes.get(name)
        if theme is None or path is None or name in self._checked_themes or not needs_stylesheet_check(theme):
            return theme is not None
        stylesheets = ui_stylesheets()
        stylesheets.update((where, source.content) for where, source in self.stylesheet.source.items())
        problem = stylesheet_problem(theme, path, stylesheets)
        if problem is None:
            self._checked_themes.add(name)
            return True
        self._withdraw_theme(name, problem)
        return name in self.available_themes

    def _withdraw_theme(self, name: str, warning: str) -> None:
        """Take a user theme out of the app (and the palette), put back what it replaced, and say why."""
        self._user_themes.pop(name, None)
        replaced = self._replaced_themes.pop(name, None)
        if replaced is not None:
            self.register_theme(replaced)
        else:
            self.unregister_theme(name)
        self.notify(sanitize_line(warning, 600), title="Theme not used", severity="warning", markup=False)

    def refresh_css(self, animate: bool = True) -> None:
        super().refresh_css(animate)
        self._good_theme = self.theme  # the stylesheet parsed with it: a theme to fall back to

    def _stylesheet_failed(self, error: Exception) -> bool:
        """The last line behind `validate_theme` (`ThemeGuardedStylesheet`): the stylesheet does not parse
        with the current theme's variables. A user theme is withdrawn with a warning and the one used
        before comes back, with its variables (True: parse again), and is what is remembered, instead
        of Textual stopping the app (on every start once remembered). Any other theme: False (re-raise:
        the app's own CSS is wrong)."""
        name = self.theme
        path = self._user_themes.get(name)
        if path is None:
            return False
        detail = stylesheet_error_text(error, self.current_theme)
        back = (other for other in (self._good_theme, DEFAULT_THEME) if other not in (None, name))
        fallback = next(
            (other for other in back if other in self.available_themes),
            name if name in self._replaced_themes else "textual-dark",  # Textual's own default theme
        )
        self._withdraw_theme(name, f"Theme {name!r} ({path}) is not used: {detail}. Back to {fallback}.")
        if fallback != name:
            self.theme = fallback  # remembered in its place (`watch_theme`)
        self.stylesheet.set_variables(self.get_css_variables())
        return True

    def _apply_keymap(self) -> None:
        if self.config is None or not self.config.keymap:
            return
        owners = binding_owners()
        keymap, warnings = validate_keymap(
            self.config.keymap, binding_ids(owners), binding_scopes(owners), held_keys(type(self))
        )
        for warning in warnings:
            self.notify(sanitize_line(warning, 300), title="Keymap", severity="warning", markup=False)
        self.set_keymap(keymap)
        if HELP_ID in keymap:
            self._help_keys = frozenset(keymap[HELP_ID].split(","))

    def on_key(self, event: events.Key) -> None:
        """The help key on a dialog that has help but does not bind the key (Textual drops the app's
        bindings on a modal screen, so `?` did nothing there). A key a text input takes (`?`) never gets
        here; a dialog's own binding of the key runs as usual (`active_bindings`).

        Runs before Textual's binding check: a key the type-ahead takes (typed in one burst into an input
        that did not have the focus yet, or behind the `enter` that opens a form) runs no binding, the
        help key's included; and a key whose binding opens a form (the screen's `opens_form`) has the
        keys behind it wait for the form's field."""
        from explorer.screens.type_ahead import expect_form, will_type

        if will_type(self, event):
            event.prevent_default()
            return
        screen = self.screen
        opens_form = getattr(screen, "opens_form", None)
        if opens_form is not None and opens_form(event):
            expect_form(self, event)
            return
        if not screen.is_modal or not screen.HELP or event.key not in self._help_keys:
            return
        if event.key in screen.active_bindings:
            return
        event.prevent_default()  # not Textual's binding check on top
        self.action_toggle_help()

    def action_toggle_help(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_show_help_panel(self) -> None:
        """`?` and the palette's Keys: the explorer's help panel (`help_panel_class`), not Textual's."""
        if not self.screen.query("HelpPanel"):
            self.screen.mount(help_panel_class()())

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        """The palette's Screenshot: Textual saves to the Downloads folder, and said only "Failed to save
        screenshot" where there is none (a server, a container); then the explorer's data folder."""
        if path is None:
            from platformdirs import user_downloads_path

            from explorer.paths import data_dir

            if not user_downloads_path().is_dir():
                try:
                    folder = data_dir(create=True) / "screenshots"
                    folder.mkdir(exist_ok=True)
                    path = str(folder)
                except OSError:
                    pass  # Textual then says it failed, as before
        super().action_screenshot(filename, path)


def _default_keys(app_type: type[App[int]], binding_id: str) -> frozenset[str]:
    """The default keys of the app's binding `binding_id`."""
    bindings = Binding.make_bindings(app_type.BINDINGS)
    return frozenset(binding.key for binding in bindings if binding.id == binding_id)


@cache
def help_panel_class() -> type[Widget]:
    """Textual's help panel showed the help of the nearest focused widget that has one: with the tree
    focused, the main screen's (`b` bookmarks, `p`, `i`, `L`, `n`, `[`/`]`) never appeared. This one
    shows every help from the focused widget up to its screen, the widget's first; the help and the key
    list each scroll and take the focus (`tab`), so every line is in reach at any size, while the help
    stays that of the widget focused before. Built on first use: the panel imports the markdown parser,
    which start-up does without."""
    from textwrap import dedent

    from textual.containers import VerticalScroll
    from textual.widgets import HelpPanel, KeyPanel, Markdown

    class HelpKeys(KeyPanel, can_focus=True):
        pass

    class ExplorerHelpPanel(HelpPanel):
        # The help text scrolls in a container of its own (its keys are Textual's, remapped as theirs).
        DEFAULT_CSS = """
        ExplorerHelpPanel > #widget-help {
            height: auto;
            max-height: 50%;
            scrollbar-size-vertical: 1;
        }
        ExplorerHelpPanel > #widget-help > Markdown {
            height: auto;
            padding: 0;
            margin: 0;
        }
        """

        def compose(self) -> ComposeResult:
            with VerticalScroll(id="widget-help"):
                yield Markdown()
            yield HelpKeys(id="keys-help")

        def update_help(self, focused_widget: Widget | None) -> None:
            if not self.app.app_focus or not self.screen.is_active:
                return
            if focused_widget is not None and self in focused_widget.ancestors:
                return  # reading the help: it stays
            helps: list[str] = []
            for node in (focused_widget or self.screen).ancestors_with_self:
                text = dedent(node.HELP).strip() if isinstance(node, Widget) and node.HELP else ""
                if text and text not in helps:
                    helps.append(text)
            self.set_class(bool(helps), "-show-help")
            self.query_one("#widget-help > Markdown", Markdown).update("\n\n---\n\n".join(helps))
            self.query_one("#widget-help", VerticalScroll).scroll_home(animate=False)

    return ExplorerHelpPanel


def launch_tui(
    config: Config | None,
    specs: list[ServerSpec],
    *,
    protocol: str,
    timeout: float,
    notices: Sequence[str] = (),
    found_configs: Sequence[FoundConfig] = (),
    wire_log: Path | None = None,
    auth_flow: str | None = None,
) -> int:
    """Run the TUI until the user quits; returns the process exit code (0; 1 after an error that stopped
    the app, which Textual printed; 143 after a SIGTERM).

    `notices` are shown once as a notification; `found_configs` are offered in the palette.
    """
    from explorer.model.identity import parse_protocol_mode

    flow: AuthFlow | None = "fetch" if auth_flow == "fetch" else "print" if auth_flow == "print" else None
    flow = "browser" if auth_flow == "browser" else flow
    app = ExplorerApp(
        specs,
        config=config,
        protocol=parse_protocol_mode(protocol),
        timeout=timeout,
        notices=notices,
        found_configs=found_configs,
        wire_log=wire_log,
        auth=AuthOptions(flow=flow),
    )
    try:
        app.run()
    finally:
        # The connections were closed on unmount, within a bounded wait; whatever a server that ignores
        # EOF and SIGTERM (or its children) left running is terminated, then killed, here.
        from explorer.connection.stdio import stop_leftover_servers

        stop_leftover_servers()
        for note in app.exit_notes:
            print(f"warning: {note}", file=sys.stderr)
    return app.signal_exit_code or app.return_code or 0  # 1 when the app stopped on an error
