#!/usr/bin/env bash
# Installs the MCP conformance suite (@modelcontextprotocol/conformance, pinned) and the Node 22 it needs
# (the npm package node@22 ships a Node binary; no system install) into a cache folder inside the
# checkout. The conformance tests run the suite's client scenarios with the explorer as the client.
# Idempotent: a finished install is kept.
set -euo pipefail
CONFORMANCE_VERSION="0.1.16"
NODE_VERSION="22.23.3"  # npm package node@22.23.3: a Node 22 binary (the suite needs >= 22)
PACKAGES=("node@$NODE_VERSION" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION")
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${MCP_CONFORMANCE_DIR:-$ROOT/.cache/conformance}"
STAMP="$DEST/.installed-$CONFORMANCE_VERSION-node$NODE_VERSION"
if [[ -f "$STAMP" ]]; then
  exit 0
fi
mkdir -p "$DEST"
echo "installing ${PACKAGES[*]} into $DEST" >&2
npm install --prefix "$DEST" --no-audit --no-fund --loglevel=error "${PACKAGES[@]}" >&2
test -x "$DEST/node_modules/node/bin/node"
test -f "$DEST/node_modules/@modelcontextprotocol/conformance/dist/index.js"
"$DEST/node_modules/node/bin/node" --version >&2
touch "$STAMP"
