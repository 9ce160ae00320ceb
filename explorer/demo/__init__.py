"""The built-in demo MCP server: `explorer.demo.server.build_server()`, or `main()` on stdio."""
