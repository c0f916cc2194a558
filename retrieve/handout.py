"""What a search hands out: the references chosen from the ranking, and which are weak.

Three cases, one pure function (``hand_out``):

* **The offline judge ran** (``kb.retrieve.judge``): the passages it passes, within
  ``HAND_OUT_SHARE`` of the best ``answer_p``, by ``answer_p`` plus ``RECENCY_BONUS`` times
  their decay factor (the newer may go first within ``RECENCY_BONUS``); when none passes, the
  closest few (``RELAX_KEEP``), each flagged weak, and the result is insufficient. A caller
  who asked for ``top_k`` explicitly (``SearchOptions.fill``) gets the list filled up to
  ``top_k``: the other passing passages first, then the ranking's next ones, flagged weak.
* **A cross-encoder or the LLM judged** the candidates: what it scores at least
  ``rerank_min_score``; if it rejects everything, the best few it judged, flagged weak.
* **Nothing judged** (judge switched off): the ranking's top; weak only when the floor would
  have dropped everything.

In every case ``rerank.select`` keeps near-duplicates and more than ``max_chunks_per_doc``
chunks of one document out of the list. A caller who asked for ``top_k`` explicitly
(``fill``) inside a scope (``SearchOptions.scoped``: a filter that may keep one long document)
gets ``top_k`` whenever the ranking holds that many distinct passages: when the cap is what
leaves the list short, it is lifted for the rest of the list, passing candidates first. An
unscoped search keeps the cap (diversity over length).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kb.config import SearchOptions
from kb.retrieve import rerank
from kb.retrieve.floor import RELAX_KEEP
from kb.retrieve.judge_data import Verdict
from kb.types import Candidate

# A passing passage is handed out when its answer_p is at least half the best one's: on the
# train split this took the share of handed-out passages holding the answer from 0.41 to 0.58
# and lost 1 answer in 100 (measured on kb's judge rows while fitting, see bench/README.md).
HAND_OUT_SHARE = 0.5
# Time decay orders passing passages only where they answer about as well: a passage's order
# key is its answer_p plus this much times its decay factor (1 today, 0.5 at 30 days, ~0 at a
# year), so a newer version of a note goes first when it matches as well, and an older
# passage shown at 87% is no longer listed below a new one at 48% (a trial: it was, as the
# key multiplied answer_p by the factor, 0.001 for a dated note ten months old).
RECENCY_BONUS = 0.1


def handed_out(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """The passing verdicts within ``HAND_OUT_SHARE`` of the best ``answer_p``, in order."""
    best = max((v.answer_p for v in verdicts if v.passed), default=0.0)
    return [v for v in verdicts if v.passed and v.answer_p >= HAND_OUT_SHARE * best]


@dataclass(frozen=True, slots=True)
class HandOut:
    """The references chosen, in order, and how they stand.

    Attributes:
        selected: the candidates handed out, in citation order.
        weak: chunk ids of those handed out without passing (flagged weak evidence).
        relevance: chunk id -> relevance in [0, 1] (``answer_p``, or the judging model's
            score, or the best of vector and keyword s_norm when nothing judged).
        insufficient: no candidate handed out passed.
        judged_out: candidates judged and not passed.
        capped_out: how many more passages the list would have held, up to the number
            wanted, without the ``max_chunks_per_doc`` cap (0: the cap did not shorten it).
    """

    selected: tuple[Candidate, ...]
    weak: frozenset[int]
    relevance: dict[int, float]
    insufficient: bool
    judged_out: int
    capped_out: int = 0


def hand_out(ordered: Sequence[Candidate], options: SearchOptions, *,
             verdicts: Mapping[int, Verdict] | None, judged: Mapping[int, float] | None,
             relaxed: bool, rerank_min_score: float, texts: Mapping[int, str],
             vectors: Mapping[int, np.ndarray], near_duplicate_cosine: float) -> HandOut:
    """Choose the references (see module docstring).

    Args:
        ordered: the ranking, best first (``kb.retrieve.ranked.Ranking.ordered``).
        options: ``top_k``, ``max_chunks_per_doc`` and ``fill``.
        verdicts: the offline judge's verdicts, or ``None`` when it did not run.
        judged: a cross-encoder's or the LLM's scores in [0, 1], or ``None``.
        relaxed: the floor would have dropped every candidate.
        rerank_min_score: the bar of a judging model.
        texts: chunk id -> text of the candidates that may be handed out.
        vectors: chunk id -> vector (near-duplicates).
        near_duplicate_cosine: the cosine above which two chunks are near-duplicates.
    """
    def select(candidates: Sequence[Candidate], k: int, *, capped: bool = True
               ) -> list[Candidate]:
        return rerank.select(candidates, texts, vectors, k=k,
                             max_per_doc=options.max_chunks_per_doc if capped else k,
                             near_duplicate_cosine=near_duplicate_cosine)

    def capped_out(selected: Sequence[Candidate], pool: Sequence[Candidate], want: int) -> int:
        """How many more of ``pool`` an uncapped selection of ``want`` would hold."""
        if len(selected) >= want:
            return 0
        return max(0, len(select(pool, want, capped=False)) - len(selected))

    def fill(selected: list[Candidate], pools: Sequence[Sequence[Candidate]], want: int
             ) -> list[Candidate]:
        """``selected`` topped up to ``want`` from ``pools`` in order, capped, then uncapped."""
        for capped in ((True, False) if options.fill and options.scoped else (True,)):
            for pool in pools:
                if len(selected) >= want:
                    return selected
                selected = select([*selected, *(c for c in pool if c not in selected)], want,
                                  capped=capped)
        return selected

    if verdicts is not None:
        relevance = {cid: v.answer_p for cid, v in verdicts.items()}
        # best answer_p first, plus RECENCY_BONUS times the decay factor (within it, the
        # newer may go first); time decay never hides a passage
        head = sorted((c for c in ordered if c.chunk_id in relevance),
                      key=lambda c: -(relevance[c.chunk_id] + RECENCY_BONUS * _age_factor(c)))
        chosen = {v.chunk_id for v in handed_out(list(verdicts.values()))}
        passed = {cid for cid, v in verdicts.items() if v.passed}
        pool = [c for c in head if c.chunk_id in chosen]
        selected = select(pool, options.top_k)
        want = (options.top_k if options.fill
                else 0 if selected else min(RELAX_KEEP, options.top_k))
        weak: set[int] = set()
        if len(selected) < want:  # passed but below the share, then the closest: flagged weak
            rest = [c for c in head if c.chunk_id in passed and c not in selected]
            # the rest in the ranking's order: a failed passage's answer_p says little; under
            # time decay a refusal's closest few by how well they match, whatever their age
            # (decay put a year-old near-topic note below undated noise)
            failed = [c for c in ordered if c.chunk_id not in passed and c not in selected]
            rest += sorted(failed, key=lambda c: -c.evidence) if not options.fill and any(
                _age_factor(c) < 1 for c in failed) else failed
            extra = fill(selected, (rest,), want)[len(selected):]
            weak = {c.chunk_id for c in extra if c.chunk_id not in passed}
            pool, selected = [*selected, *rest], selected + extra
        else:
            want = options.top_k
        return HandOut(tuple(selected), frozenset(weak), relevance,
                       not any(c.chunk_id in passed for c in selected),
                       len(verdicts) - len(passed), capped_out(selected, pool, want))
    cut = rerank.judge_cut(ordered, judged, min_score=rerank_min_score, relax_keep=RELAX_KEEP)
    selected = fill(select(list(cut.kept), options.top_k), (cut.kept,), options.top_k)
    all_weak = relaxed or cut.rejected_all
    relevance = dict(judged) if judged is not None else {
        c.chunk_id: min(1.0, max(c.vector, c.keyword)) for c in selected}
    return HandOut(tuple(selected),
                   frozenset(c.chunk_id for c in selected) if all_weak else frozenset(),
                   relevance, not selected or all_weak, cut.judged_out,
                   capped_out(selected, cut.kept, options.top_k))


def _age_factor(candidate: Candidate) -> float:
    """The time-decay factor applied to ``candidate`` in (0, 1] (1 when decay is off)."""
    return candidate.score / candidate.evidence if candidate.evidence > 0 else 1.0
