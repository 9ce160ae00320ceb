"""`python -m explorer` and the `mcp-url-explorer` console script."""

from explorer.cli.main import main

if __name__ == "__main__":
    main()
