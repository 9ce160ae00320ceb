"""The key a message names for an action: the default, or what the user's keymap made of it.

Why: a notice that says "press R" is wrong for a user whose keymap moved that action elsewhere.
"""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding

__all__ = ["shown_key"]


def shown_key(app: App[object], binding_id: str, default: str) -> str:
    """The first key bound to `binding_id` (the keymap's, else `default`), as the key bar shows keys."""
    keymap = getattr(app, "_keymap", None) or {}  # Textual keeps the keymap privately
    key = str(keymap.get(binding_id, default)).split(",")[0].strip() or default
    return app.get_key_display(Binding(key, binding_id))
