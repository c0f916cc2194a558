"""Time decay (DESIGN 4.3): ``score * 0.5 ** (age_days / half_life_days)``.

An exponential half-life decay as used by recency-aware rankers; a request switches it off for
evergreen documents. Age is measured from the document's ``created_at`` (timezone-aware) to
``now``; a document dated in the future counts as age 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from kb.config import HALF_LIFE_DAYS
from kb.types import Candidate


def decay_factor(created_at: datetime, now: datetime, *, half_life_days: float) -> float:
    """``0.5 ** (age_days / half_life_days)`` in (0, 1]; both datetimes timezone-aware."""
    age_days = max((now - created_at).total_seconds() / 86_400, 0.0)
    return float(0.5 ** (age_days / half_life_days))


def apply_decay(candidates: Sequence[Candidate], created_at: Mapping[int, datetime],
                now: datetime, *, half_life_days: float = HALF_LIFE_DAYS) -> list[Candidate]:
    """Multiply each candidate's score by its document's decay factor; re-sort best first.

    Args:
        candidates: fused candidates.
        created_at: document id -> creation time.
        now: the reference time.
        half_life_days: days after which a score is halved.
    """
    out = [replace(c, fused=c.evidence,
                   score=c.evidence * decay_factor(created_at[c.doc_id], now,
                                                   half_life_days=half_life_days))
           for c in candidates]
    out.sort(key=lambda c: (-c.score, c.chunk_id))
    return out
