"""Widgets: one per module; they post messages, never import screens or the app."""
