#!/usr/bin/env bash
# Sets up everything the tests need (a venv with the project and its test extra, the npm reference
# server) and runs the whole test suite in three workers on a 2-core machine: many tests wait on the
# servers and processes they start, and a third worker fills that time (the whole suite 804 s with two
# workers, 625 s with three, measured on the same machine). Extra arguments go to pytest, e.g. the fast lane:
#   scripts/test.sh -m "not interop and not slow"
# The pip step runs only when pyproject.toml changed since the last install into this venv (a stamp in
# .venv keyed on its hash); the npm installs keep their own stamps and return at once when done.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
if [[ ! -x .venv/bin/python ]]; then
  "$PYTHON" -m venv .venv
fi
KEY="$(.venv/bin/python -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()[:16])' pyproject.toml)"
STAMP=".venv/.test-sh-installed-$KEY"
if [[ ! -f "$STAMP" ]]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[test]"
  rm -f .venv/.test-sh-installed-*
  touch "$STAMP"
fi
scripts/install-npm-servers.sh
scripts/install-conformance.sh
exec .venv/bin/python -m pytest -n 3 --dist loadgroup "$@"
