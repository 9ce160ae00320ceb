"""The headless commands: the same core as the TUI, answers for scripts and CI."""
