#!/usr/bin/env bash
# Sets up everything the tests need (a venv with the project and its test extra, the npm reference
# server) and runs the whole test suite on both cores. Extra arguments go to pytest.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
if [[ ! -x .venv/bin/python ]]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[test]"
scripts/install-npm-servers.sh
scripts/install-conformance.sh
exec .venv/bin/python -m pytest -n 2 --dist loadgroup "$@"
