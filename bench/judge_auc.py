"""AUC of each judge signal (experiment): candidate level and question level, per part.

Usage: python bench/judge_auc.py bench/out/judge-rows.jsonl [split]
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

import numpy as np
from sklearn.metrics import roc_auc_score


def main() -> None:
    rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    split = sys.argv[2] if len(sys.argv) > 2 else "train"
    rows = [r for r in rows if r["split"] == split]
    names = sorted({k for r in rows for k in r["f"]})
    for part in ("squad2", "cmrc", "own", "all"):
        sub = [r for r in rows if part == "all" or r["part"] == part]
        by_q = defaultdict(list)
        for r in sub:
            by_q[r["id"]].append(r)
        y_q = [qs[0]["answerable"] for qs in by_q.values()]
        y_c = [r["label"] for r in sub]
        print(f"\n== {part} ({split}): {len(by_q)} questions ({sum(y_q)} answerable), "
              f"{len(sub)} candidates ({sum(y_c)} hold the answer)")
        for name in names:
            xs = [r["f"].get(name) for r in sub]
            if any(x is None for x in xs):
                ok = [i for i, x in enumerate(xs) if x is not None]
                xc = np.array([xs[i] for i in ok])
                yc = np.array([y_c[i] for i in ok])
            else:
                xc, yc = np.array(xs), np.array(y_c)
            auc_c = roc_auc_score(yc, xc) if 0 < yc.sum() < len(yc) else float("nan")
            # question level: the best candidate's value (max), for answerable vs not
            xq = [max((r["f"].get(name, -1e9) for r in qs), default=0) for qs in by_q.values()]
            auc_q = roc_auc_score(y_q, xq) if 0 < sum(y_q) < len(y_q) else float("nan")
            print(f"  {name:14s} cand {auc_c:.3f}  question(max) {auc_q:.3f}")


if __name__ == "__main__":
    main()
