"""What stages 1-5 hand to citing: the ranking, and each stage's own small record."""

from __future__ import annotations

from dataclasses import dataclass

from kb.retrieve.evidence import Evidence
from kb.retrieve.expand import Expansion
from kb.retrieve.floor import FloorResult
from kb.retrieve.hybrid import Recalled
from kb.retrieve.rerank import Reordered
from kb.types import Candidate


@dataclass(frozen=True, slots=True)
class Ranking:
    """Candidates in final order, before the top-k selection, with what the stages saw.

    Attributes:
        ordered: the reranked candidates (``order.ordered``: the top ``RERANK_TOP_N``, plus
            the judge's ``JUDGE_TOP_N`` best matches before decay that decay pushed below
            it), then the remaining floor-passing candidates in fused order.
        expansion: stage 1, the queries searched.
        recall: stage 2, the lists (``recall.counts``), query terms and calibration.
        floor: stage 4, what the floor kept and dropped (``floor.floor`` is ``None`` when off).
        evidence: the chunk rows, vectors and documents of the reranked candidates.
        order: stage 5, a judging reranker's scores or the offline judge's verdicts.
    """

    ordered: tuple[Candidate, ...]
    expansion: Expansion
    recall: Recalled
    floor: FloorResult
    evidence: Evidence
    order: Reordered

    @classmethod
    def of(cls, expansion: Expansion, recall: Recalled, floor: FloorResult,
           evidence: Evidence, order: Reordered) -> Ranking:
        """The ranking the stages' records make: ``order.ordered``, then the rest kept."""
        reranked = {c.chunk_id for c in evidence.top}
        return cls((*order.ordered,
                    *(c for c in evidence.files.kept if c.chunk_id not in reranked)),
                   expansion, recall, floor, evidence, order)
