"""Screens: the main explorer screen (the controller) and one dialog per module."""
