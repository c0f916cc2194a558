#!/usr/bin/env bash
# Set up kb with its development extras in .venv, then lint, type-check and run the tests.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q -e '.[dev]' 2>&1 | grep -v -E '^(WARNING|DEPRECATION)' || true
.venv/bin/ruff check .
# Mypy cannot follow setuptools' package-dir mapping (kb.ingest is the folder ingest/, ...):
# give it the installed layout as a tree of links, built from pyproject.toml's mapping, and
# report its findings under the repository's own paths.
.venv/bin/python - <<'PY'
import shutil
import tomllib
from pathlib import Path

tree = Path("build/typecheck")
shutil.rmtree(tree, ignore_errors=True)
mapping = tomllib.loads(Path("pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
for name, folder in sorted(mapping.items()):
    target = tree.joinpath(*name.split("."))
    if "." not in name:  # a top-level package: a real folder of links, so others can nest in it
        target.mkdir(parents=True)
        for entry in Path(folder).iterdir():
            if entry.name != "__pycache__":
                (target / entry.name).symlink_to(entry.resolve())
    else:
        target.symlink_to(Path(folder).resolve())
PY
.venv/bin/mypy | sed -E -e 's#^build/typecheck/kb/(ingest|retrieve|eval)/#\1/#' \
                        -e 's#^build/typecheck/kb/#kb/#'
.venv/bin/python -m pytest "$@"
