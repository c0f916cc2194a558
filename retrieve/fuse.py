"""Stage 3, fusion then time decay (``fuse_and_decay``): score-weighted reciprocal rank fusion.

Plain RRF (Cormack, Clarke & Buettcher, "Reciprocal Rank Fusion outperforms Condorcet and
individual Rank Learning Methods", SIGIR 2009) scores a document ``d`` as
``sum_l 1 / (k + rank_l(d))`` with ``k = 60``. kb weights each contribution by the list's weight
and by the hit's score on an absolute per-query scale (``Hit.s_norm`` in [0, 1], see
``kb.retrieve.recall``)::

    fused(d) = sum over lists l containing d of  w_l * s_norm_l(d) / (rrf_k + rank_l(d))

so a lone weak match at rank 1 (s_norm near 0) adds almost nothing, while a strong match keeps
RRF's robustness to incomparable raw scores. ``weighted=False`` gives plain RRF (s_norm and
weights ignored), kept for evaluation side by side. Time decay (``kb.retrieve.decay``) then
orders the fused candidates by ``score * 0.5 ** (age_days / 30)`` unless the request switches it
off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from kb.config import RRF_K, PipelineSettings
from kb.retrieve.decay import apply_decay
from kb.retrieve.trace import Trace
from kb.types import Candidate, RecallList

EXPLAIN_TOP = 50  # fused candidates listed by ``--explain``


def fuse(lists: Sequence[RecallList], *, rrf_k: int = RRF_K, weighted: bool = True
         ) -> list[Candidate]:
    """Fuse recall lists into candidates, best first (ties broken by chunk id).

    Args:
        lists: recall lists (any number, any kinds).
        rrf_k: the RRF constant (60 by default).
        weighted: score-weighted RRF (True) or plain RRF (False).

    Returns:
        Candidates with fused ``score`` >= 0, best ``cosine`` and ``vector`` s_norm over
        vector lists and best ``keyword`` s_norm over BM25/LIKE lists.
    """
    score: dict[int, float] = {}
    doc: dict[int, int] = {}
    cosine: dict[int, float] = {}
    vector: dict[int, float] = {}
    keyword: dict[int, float] = {}
    seen_in: dict[int, list[str]] = {}
    for lst in lists:
        for hit in lst.hits:
            gain = lst.weight * hit.s_norm if weighted else 1.0
            score[hit.chunk_id] = score.get(hit.chunk_id, 0.0) + gain / (rrf_k + hit.rank)
            doc[hit.chunk_id] = hit.doc_id
            seen_in.setdefault(hit.chunk_id, []).append(lst.name)
            if lst.kind == "vector":
                cosine[hit.chunk_id] = max(cosine.get(hit.chunk_id, -1.0), hit.score)
                vector[hit.chunk_id] = max(vector.get(hit.chunk_id, 0.0), hit.s_norm)
            else:
                keyword[hit.chunk_id] = max(keyword.get(hit.chunk_id, 0.0), hit.s_norm)
    out = [Candidate(cid, doc[cid], s, cosine.get(cid), vector.get(cid, 0.0),
                     keyword.get(cid, 0.0),
                     tuple(seen_in[cid])) for cid, s in score.items()]
    out.sort(key=lambda c: (-c.score, c.chunk_id))
    return out


def fuse_and_decay(lists: Sequence[RecallList], created: Mapping[int, datetime],
                   now: datetime, *, settings: PipelineSettings, decay: bool, explain: bool,
                   trace: Trace) -> list[Candidate]:
    """Stage 3: ``fuse`` the lists, then ``apply_decay`` unless ``decay`` is off.

    Args:
        lists: the recall lists.
        created: document id -> creation time (timezone-aware).
        now: the reference time of decay.
        settings: ``rrf_k`` and ``weighted_fusion``.
        decay: the request's switch.
        explain: record the first ``EXPLAIN_TOP`` in ``trace.explain``: ``"fuse"`` as fused,
            ``"decay"`` after decay (when it ran).
        trace: times the ``fuse`` and ``decay`` stages.

    Returns:
        The candidates, best first by (decayed) score, ties by chunk id.
    """
    fused = trace.run("fuse", lambda: fuse(lists, rrf_k=settings.rrf_k,
                                           weighted=settings.weighted_fusion))
    if explain:
        trace.list_scores("fuse", ((c.chunk_id, c.score) for c in fused[:EXPLAIN_TOP]))
    if decay:
        fused = trace.run("decay", lambda: apply_decay(fused, created, now))
        if explain:  # a year-old document's factor is 2 ** -12: the decayed scores apart
            trace.list_scores("decay", ((c.chunk_id, c.score) for c in fused[:EXPLAIN_TOP]))
    else:
        trace.skip("decay", "switched off by the request")
    return fused
