#!/usr/bin/env bash
# Installs the pinned npm reference server (@modelcontextprotocol/server-everything) into a cache
# folder inside the checkout, for the interop tests. Idempotent: a finished install is kept.
set -euo pipefail
VERSION="2026.8.31"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${MCP_REFERENCE_SERVER_DIR:-$ROOT/.cache/reference-server}"
ENTRY="$DEST/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
STAMP="$DEST/.installed-$VERSION"
if [[ -f "$ENTRY" && -f "$STAMP" ]]; then
  exit 0
fi
mkdir -p "$DEST"
echo "installing @modelcontextprotocol/server-everything@$VERSION into $DEST" >&2
npm install --prefix "$DEST" --no-audit --no-fund --loglevel=error \
  "@modelcontextprotocol/server-everything@$VERSION" >&2
test -f "$ENTRY"
touch "$STAMP"
