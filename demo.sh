#!/usr/bin/env bash
# Set up kb in .venv, ingest the bundled real documents (golden/demo/docs) and ask real questions.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
echo "demo: installing kb into .venv (a minute or two the first time)..."
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
QUERIES
printf '\n=== xylophone zeppelin quasar?\n(no passage holds these words: kb flags the result as weak evidence, insufficient)\n'
"${KB[@]}" search --no-decay "xylophone zeppelin quasar?"
printf '\n=== Where is DeepMind headquartered?\n'
printf '(near-topic and unanswerable: the article is about DeepMind and names London only in its\n'
printf ' example data. The offline judge refuses it: no passage holds "headquartered" or a place\n'
printf ' near what the question asks; kb search --explain prints the reasons.)\n'
"${KB[@]}" search --no-decay --explain "Where is DeepMind headquartered?"
printf '\n=== DeepMind计划什么时候把DNC用到商业产品中？ (when will DeepMind put DNC into products?)\n'
printf '(near-topic and unanswerable: the article only hopes DNC pushes computing forward; the judge\n'
printf ' lets it through at a low answer_p: the article'"'"'s dated byline reads as a "when" answer.)\n'
"${KB[@]}" search --no-decay "DeepMind计划什么时候把DNC用到商业产品中？"
printf '\n=== 谁创办了 DeepMind？ (who founded DeepMind?)\n'
printf '(near-topic and unanswerable too, but the judge lets it through: it cannot read that the\n'
printf ' passages about DeepMind never name a founder (measured limit: README, "The judge").\n'
printf ' With --llm or --reranker a model judges instead.)\n'
"${KB[@]}" search --no-decay "谁创办了 DeepMind？"
printf '\n=== context block for a model:\n'
"${KB[@]}" context --no-decay --top-k 2 "What are the four golden signals of monitoring?"
