#!/usr/bin/env bash
# Installs the pinned npm MCP servers the interop tests run against into a cache folder inside the
# checkout: the reference server (@modelcontextprotocol/server-everything) and two servers people really
# run, server-filesystem (tools only) and server-memory. Idempotent: a finished install is kept.
set -euo pipefail
VERSION="2026.8.31"
PACKAGES=(
  "@modelcontextprotocol/server-everything@$VERSION"
  "@modelcontextprotocol/server-filesystem@$VERSION"
  "@modelcontextprotocol/server-memory@$VERSION"
)
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${MCP_NPM_SERVERS_DIR:-$ROOT/.cache/npm-servers}"
STAMP="$DEST/.installed-$VERSION-${#PACKAGES[@]}"
if [[ -f "$STAMP" ]]; then
  exit 0
fi
mkdir -p "$DEST"
echo "installing ${PACKAGES[*]} into $DEST" >&2
npm install --prefix "$DEST" --no-audit --no-fund --loglevel=error "${PACKAGES[@]}" >&2
for name in server-everything server-filesystem server-memory; do
  test -f "$DEST/node_modules/@modelcontextprotocol/$name/dist/index.js"
done
touch "$STAMP"
