"""The precision gate: near-topic distractors and unanswerable questions (DESIGN 7.2).

For each query of a set with ``distractors.tsv`` the engine's *references* (what the assistant
would be handed, after floor, rerank and top-k) are judged at document level:

* precision@k = relevant references among the first k / number of references among the first k
  (a query answered with no reference scores 0; answerable queries only);
* distractor pass-through = references that are planted distractors / references returned,
  over all queries (weak ones included: a refused question's closest passages count);
* distractor evidence rate = the same over the references handed out as evidence only (not
  flagged ``weak_evidence``): what an assistant told to answer from them would read as
  support;
* refusal rate = share of unanswerable queries (no qrels) whose result has
  ``insufficient_evidence`` true (higher is better);
* false refusal rate = share of answerable queries whose result has ``insufficient_evidence``
  true (lower is better): the price of the refusals, measured beside them.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from kb.api import KnowledgeBase
from kb.config import PipelineSettings, SearchOptions
from kb.eval.datasets import load_qrels, load_queries
from kb.eval.retrieval import FIXED_TIME, SOURCE_PREFIX, engines_for
from kb.retrieve.pipeline import Engines
from kb.retrieve.pipeline import search as run_search


@dataclass(frozen=True, slots=True)
class PrecisionReport:
    """Precision-gate metrics, all in [0, 1].

    Higher is better except for ``distractor_pass_through`` and ``false_refusal_rate``.
    """

    precision_at_k: float
    k: int
    distractor_pass_through: float
    distractor_evidence_rate: float
    refusal_rate: float
    false_refusal_rate: float
    answerable: int
    unanswerable: int
    per_query: dict[str, dict[str, object]]


def load_distractors(dataset: Path) -> dict[str, set[str]]:
    """Query id -> distractor document ids (empty when the set has no distractors.tsv)."""
    path = dataset / "distractors.tsv"
    out: dict[str, set[str]] = {}
    if path.is_file():
        with path.open(encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                out.setdefault(row["query-id"], set()).add(row["corpus-id"])
    return out


def evaluate_precision(kb: KnowledgeBase, dataset: Path, *, k: int = 3,
                       engines: Engines | None = None) -> PrecisionReport:
    """Run every query through the full search (top_k = k, decay off) and score references."""
    qrels = load_qrels(dataset)
    distractors = load_distractors(dataset)
    if engines is None:
        engines = engines_for(kb, PipelineSettings())
    precisions, refusals, false_refusals = [], [], []
    returned = passed = evidence = evidence_passed = 0
    per_query: dict[str, dict[str, object]] = {}
    for q in load_queries(dataset, searchable=True):
        result = run_search(kb.store, q.text, SearchOptions(top_k=k, decay=False),
                            engines=engines, now=FIXED_TIME)
        refs = result.references[:k]
        docs = [r.source.removeprefix(SOURCE_PREFIX) for r in refs]
        relevant = {d for d, g in qrels.get(q._id, {}).items() if g > 0}
        planted = distractors.get(q._id, set())
        returned += len(docs)
        passed += sum(d in planted for d in docs)
        strong = [d for d, r in zip(docs, refs, strict=True) if not r.weak_evidence]
        evidence += len(strong)
        evidence_passed += sum(d in planted for d in strong)
        if relevant:
            p = sum(d in relevant for d in docs) / len(docs) if docs else 0.0
            precisions.append(p)
            false_refusals.append(1.0 if result.insufficient_evidence else 0.0)
        else:
            refusals.append(1.0 if result.insufficient_evidence else 0.0)
        per_query[q._id] = {"docs": docs, "relevant": sorted(relevant),
                            "insufficient": result.insufficient_evidence}
    return PrecisionReport(
        precision_at_k=sum(precisions) / len(precisions) if precisions else 0.0, k=k,
        distractor_pass_through=passed / returned if returned else 0.0,
        distractor_evidence_rate=evidence_passed / evidence if evidence else 0.0,
        refusal_rate=sum(refusals) / len(refusals) if refusals else 0.0,
        false_refusal_rate=sum(false_refusals) / len(false_refusals) if false_refusals else 0.0,
        answerable=len(precisions), unanswerable=len(refusals), per_query=per_query)
