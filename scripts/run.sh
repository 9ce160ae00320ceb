#!/usr/bin/env bash
# Installs the explorer into a venv (first run only) and starts it. Without -s or a config it
# opens the built-in demo server. Arguments go to mcp-url-explorer.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
if [[ ! -x "$ROOT/.venv/bin/mcp-url-explorer" ]]; then
  "$PYTHON" -m venv "$ROOT/.venv"
  "$ROOT/.venv/bin/python" -m pip install --quiet --upgrade pip
  "$ROOT/.venv/bin/python" -m pip install --quiet -e "$ROOT"
fi
exec "$ROOT/.venv/bin/mcp-url-explorer" "$@"
