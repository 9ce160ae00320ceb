"""mcp-url-explorer: explore what MCP servers expose, as one URI-prefix tree."""

__version__ = "0.1.0"
