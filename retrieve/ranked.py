"""What stages 1-6 hand to the hand-out and citing: the ranking and what each stage saw."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kb.retrieve.calibration import Calibration
from kb.retrieve.freshness import FileCheck
from kb.retrieve.judge import Verdict
from kb.types import Candidate, Chunk


@dataclass(frozen=True, slots=True)
class Ranking:
    """Candidates in final order, before the top-k selection, with what the stages saw.

    Attributes:
        ordered: the reranked candidates (top ``RERANK_TOP_N``, plus the judge's
            ``JUDGE_TOP_N`` best matches before decay that decay pushed below it), then the
            remaining floor-passing candidates in fused order.
        queries: the queries searched.
        counts: hits per recall list.
        calibration: the score anchors used.
        floor, dropped, best_below, relaxed: the floor applied (``None`` when off), the
            candidates it removed, the best cosine among them, whether it would have
            dropped everything.
        vectors: chunk id -> vector for the reranked candidates.
        chunks: chunk id -> chunk row for the reranked candidates (what is cited).
        judged: chunk id -> relevance in [0, 1] from a judging reranker (cross-encoder or
            LLM) for the candidates it scored, or ``None`` when MMR (or nothing) ordered them.
        verdicts: chunk id -> the offline judge's verdict for the candidates it judged (the
            first ``JUDGE_TOP_N``), or ``None`` when it did not run.
        files: the reranked candidates' documents, which of them are stale, and which were
            left out because their files are gone.
    """

    ordered: tuple[Candidate, ...]
    queries: tuple[str, ...]
    counts: tuple[tuple[str, int], ...]
    calibration: Calibration
    floor: float | None
    dropped: int
    best_below: float | None
    relaxed: bool
    vectors: dict[int, np.ndarray]
    chunks: dict[int, Chunk]
    judged: dict[int, float] | None = None
    verdicts: dict[int, Verdict] | None = None
    files: FileCheck = field(default_factory=lambda: FileCheck((), {}, frozenset(), ()))
