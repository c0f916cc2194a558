"""``kb reembed``: give every chunk a vector of the configured model, in place or by a switch.

With the stored model (or an index without vectors) missing vectors are backfilled in place
(``kb.ingest.embed.backfill_vectors``). With another model the index *switches*, never mixing
or deleting vectors on the way: every chunk is embedded into the staging area beside the live
vectors (``kb.ingest.embed.rebuild_vectors``), and only when every chunk has one do they replace
the live vectors, in one transaction that also records the new model and drops the old model's
calibrated floor (``kb.store.vectors.switch``).
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Literal

from kb.embedding import EmbedderState, EmbeddingService
from kb.errors import ReembedConflict
from kb.ingest.embed import backfill_vectors, rebuild_vectors
from kb.store import vectors
from kb.store.meta import MetaKey
from kb.types import ProgressFn

ReembedMode = Literal["backfill", "switch"]


@dataclass(frozen=True, slots=True)
class ReembedReport:
    """Summary of one ``kb reembed`` run.

    Attributes:
        mode: ``backfill`` (the configured model is the stored one: missing vectors are
            filled in place) or ``switch`` (another model: vectors built beside the old ones,
            swapped in when complete).
        embedder: the configured model's description.
        previous: the stored model a switch replaces (or replaced), else ``None``.
        embedded: vectors computed in this run (written, or staged for a switch).
        chunks: chunks in the index.
        pending: chunks still without a vector of the configured model (live or staged).
        switched: the configured model's vectors are live now (a switch by this run, or by
            a concurrent one).
        discarded: staged vectors of an unfinished re-embed dropped on request.
        warnings: why the run stopped early, and other notes.
    """

    mode: ReembedMode
    embedder: str
    previous: str | None = None
    embedded: int = 0
    chunks: int = 0
    pending: int = 0
    switched: bool = False
    discarded: int = 0
    warnings: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        """Every chunk has a live vector of the configured model."""
        return self.pending == 0 and (self.mode == "backfill" or self.switched)


def reembed(state: EmbedderState, service: EmbeddingService, *, discard_staged: bool = False,
            backfill_lock: AbstractContextManager[object] | None = None,
            on_progress: ProgressFn | None = None) -> ReembedReport:
    """Give every chunk of ``service``'s store a vector of ``service``'s model.

    Args:
        state: the store's embedder state (the live model, the spec to record).
        service: the configured model.
        discard_staged: first drop the staged vectors of an unfinished re-embed (to another
            model, or this one to start over); live vectors are never touched.
        backfill_lock: held while vectors are written in place (the caller's ingest lock);
            a switch stages outside it, so ingests go on meanwhile.
        on_progress: called with (phase, done, total) after each page.

    Returns:
        The summary; a model failure stops the run early with the reason in ``warnings``
        (staged vectors are kept for the next run), it does not raise.

    Raises:
        kb.errors.ReembedConflict: a re-embed to another model is unfinished and
            ``discard_staged`` is not set.
    """
    store, fp = service.store, service.fingerprint
    live, previous = state.stored()
    switching = live is not None and live != fp.key and vectors.has_vectors(store)
    target = vectors.reembed_target(store)
    others = sum(n for key, n in vectors.staged_counts(store).items() if key != fp.key)
    warnings: list[str] = []
    discarded = 0
    if discard_staged:
        discarded = vectors.discard_staged(store)
    elif others and switching:
        raise ReembedConflict(target.description if target else "another model", others,
                              target.spec if target else None)
    elif target is not None and target.key != fp.key:
        warnings.append(f"an unfinished re-embed to {target.description} has {others} "
                        "staged vectors; `kb reembed` with that embedder finishes it, "
                        "`kb reembed --discard-staged` drops them")
    if not switching:
        state.claim(service)
        with backfill_lock or nullcontext():
            written, error = backfill_vectors(service, on_progress)
        store.refresh_status()
        return ReembedReport("backfill", fp.description, embedded=written,
                             chunks=store.counts_chunks(),
                             pending=vectors.count_missing_live(store, fp.key),
                             discarded=discarded,
                             warnings=tuple(warnings + ([error] if error else [])))
    vectors.begin_reembed(store, vectors.ReembedTarget(fp.key, fp.description, state.spec))
    staged, switched, error = rebuild_vectors(
        service, drop_meta=(MetaKey.CALIBRATION.of(live or ""),), on_progress=on_progress)
    pending = (vectors.count_missing_live(store, fp.key) if switched
               else vectors.count_unstaged(store, fp.key))
    return ReembedReport("switch", fp.description, previous=previous, embedded=staged,
                         chunks=store.counts_chunks(), pending=pending, switched=switched,
                         discarded=discarded,
                         warnings=tuple(warnings + ([error] if error else [])))
