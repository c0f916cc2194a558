#!/usr/bin/env bash
# Set up kb with its development extras in .venv, then lint, type-check and run the tests.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q -e '.[dev]' 2>&1 | grep -v -E '^(WARNING|DEPRECATION)' || true
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
