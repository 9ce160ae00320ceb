"""`python -m explorer` and the `mcp-url-explorer` console script."""

from typing import NoReturn

from explorer.cli.main import main as run_command_line
from explorer.connection import exit_signals


def main() -> NoReturn:
    """The command line, with its servers stopped even when SIGHUP or SIGTERM ends it (`exit_signals`)."""
    exit_signals.install()
    run_command_line()


if __name__ == "__main__":
    main()
