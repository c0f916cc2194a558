#!/usr/bin/env bash
# Set up kb in .venv, ingest the bundled real documents (golden/demo/docs) and ask real questions.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q -e . 2>&1 | grep -v -E '^(WARNING|DEPRECATION)' || true
KB=(.venv/bin/kb --db demo.db)
"${KB[@]}" ingest golden/demo/docs
while IFS= read -r q; do
  printf '\n=== %s\n' "$q"
  "${KB[@]}" search --no-decay --top-k 3 "$q"
done <<'QUERIES'
What are the four golden signals of monitoring?
Who came up with the name "Mozilla"?
Which open source licence is described as viral?
What should you do in the face of ambiguity, according to the Zen of Python?
DeepMind 的 DNC 是什么？
东北电气 2018 年第一季度营业收入是多少？
谁创办了 DeepMind？
QUERIES
printf '\n=== context block for a model:\n'
"${KB[@]}" context --no-decay --top-k 2 "What are the four golden signals of monitoring?"
