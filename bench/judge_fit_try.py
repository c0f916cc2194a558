"""Quick LR fit on train rows; question-level AUC per part on train (CV) and test."""

from __future__ import annotations

import json
import sys
from collections import defaultdict

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import StandardScaler


def q_auc(rows, p):
    by = defaultdict(list)
    for r, pi in zip(rows, p, strict=False):
        by[r["id"]].append((r, pi))
    y = [v[0][0]["answerable"] for v in by.values()]
    s = [max(pi for _, pi in v) for v in by.values()]
    return roc_auc_score(y, s) if 0 < sum(y) < len(y) else float("nan"), y, s


def main() -> None:
    rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    names = sys.argv[2].split(",")
    train = [r for r in rows if r["split"] == "train"]
    test = [r for r in rows if r["split"] == "test"]
    X = np.array([[r["f"].get(n, 0.0) for n in names] for r in train])
    y = np.array([r["label"] for r in train])
    sc = StandardScaler().fit(X)
    lr = LogisticRegression(C=float(sys.argv[3]) if len(sys.argv) > 3 else 1.0,
                            max_iter=2000).fit(sc.transform(X), y)
    print(dict(zip(names, np.round(lr.coef_[0], 2), strict=False)))
    for label, sub in (("train", train), ("test", test)):
        for part in ("squad2", "cmrc", "own", "all"):
            s = [r for r in sub if part == "all" or r["part"] == part]
            Xs = np.array([[r["f"].get(n, 0.0) for n in names] for r in s])
            p = lr.predict_proba(sc.transform(Xs))[:, 1]
            auc, _, _ = q_auc(s, p)
            ys = [r["label"] for r in s]
            print(f"  {label:5s} {part:6s} question AUC {auc:.3f}  candidate AUC "
                  f"{roc_auc_score(ys, p):.3f}")


if __name__ == "__main__":
    main()
