"""Stage 4, the relevance floor: drop candidates whose only evidence is a weak vector match.

A candidate is *dropped* when it has no keyword evidence (best BM25/LIKE ``s_norm`` below
``keyword_min``) and its vector evidence (best vector ``s_norm``: how far its cosine rises above
the query's baseline, in calibrated units, see ``kb.retrieve.recall``) is below ``floor``. The floor
is calibrated per embedding model (``kb calibrate``) and stored with the index. If the floor
would drop every candidate, the best ``relax_keep`` are kept anyway and flagged as weak
evidence, so the caller sees *why* the answer is thin rather than an unexplained empty list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from kb.config import KEYWORD_MIN, PipelineSettings
from kb.retrieve.trace import Trace
from kb.types import Candidate

RELAX_KEEP = 3  # candidates kept, flagged weak, when the floor would drop everything


@dataclass(frozen=True, slots=True)
class FloorResult:
    """What the floor kept.

    Attributes:
        kept: candidates passing the floor, order preserved.
        dropped: how many were removed.
        best_below: best vector s_norm among the dropped, or ``None``.
        relaxed: ``True`` when everything would have been dropped and the best few were kept.
        floor: the floor applied, or ``None`` when it was not (``floor_stage``).
    """

    kept: tuple[Candidate, ...]
    dropped: int
    best_below: float | None
    relaxed: bool
    floor: float | None = None


def passes(c: Candidate, *, floor: float, keyword_min: float = KEYWORD_MIN) -> bool:
    """Whether one candidate has keyword evidence or vector evidence at or above the floor."""
    return c.keyword >= keyword_min or (c.cosine is not None and c.vector >= floor)


def apply_floor(candidates: Sequence[Candidate], *, floor: float,
                keyword_min: float = KEYWORD_MIN, relax_keep: int = RELAX_KEEP) -> FloorResult:
    """Apply the relevance floor (see module docstring).

    Args:
        candidates: fused candidates, best first.
        floor: minimum vector s_norm in [0, 1] for a candidate without keyword evidence.
        keyword_min: minimum keyword s_norm that counts as keyword evidence.
        relax_keep: how many to keep, flagged, when all would be dropped.
    """
    kept = tuple(c for c in candidates if passes(c, floor=floor, keyword_min=keyword_min))
    dropped = [c for c in candidates if not passes(c, floor=floor, keyword_min=keyword_min)]
    best_below = max((c.vector for c in dropped), default=None)
    if not kept and candidates:
        return FloorResult(tuple(candidates[:relax_keep]), max(0, len(candidates) - relax_keep),
                           best_below, True)
    return FloorResult(kept, len(dropped), best_below, False)


def floor_stage(fused: Sequence[Candidate], *, floor: float, vectors_used: bool,
                settings: PipelineSettings, trace: Trace) -> FloorResult:
    """Stage 4: ``apply_floor`` when vectors were searched and the setting is on.

    Args:
        fused: the fused candidates, best first.
        floor: the calibrated floor of the embedding model.
        vectors_used: whether any recall list was a vector list (else there are no cosines).
        settings: ``floor`` (the switch) and ``keyword_min``.
        trace: times the ``floor`` stage; a relaxed floor is a degraded note.

    Returns:
        What the floor kept, with ``floor`` set when it was applied; everything, unflagged,
        when it was skipped.
    """
    if not (vectors_used and settings.floor):
        trace.skip("floor", "switched off by settings" if vectors_used
                   else "no vectors: the floor needs cosine scores")
        return FloorResult(tuple(fused), 0, None, False)
    result = trace.run("floor", lambda: apply_floor(fused, floor=floor,
                                                       keyword_min=settings.keyword_min))
    if result.relaxed:
        trace.degraded.append("floor: every candidate was below it; best few kept, flagged")
    return replace(result, floor=floor)
