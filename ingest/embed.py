"""Vectors for stored chunks, computed outside any transaction: backfill and re-embed.

* ``backfill_vectors`` fills in chunks lacking a live vector of the service's fingerprint
  (after an ingest, or ``kb reembed`` with the stored model).
* ``rebuild_vectors`` switches models (``kb reembed`` with another model): every chunk is
  embedded into the staging area beside the live vectors, page by page, each page committed in
  its own short transaction; when every chunk has a staged vector,
  ``kb.store.vectors.switch`` makes them live in one transaction. Searches keep reading
  the old vectors until then.
  Resumable: staged pages survive an interruption and a new run embeds only the chunks
  without one; chunks ingested meanwhile are picked up by the next pass.

Text is always committed before this runs, so a failing embedder costs vectors, never text.
A vector is written only where its chunk still holds the prefix and text that were embedded
(``kb.store.vectors.put_live``): a document replaced meanwhile (by a concurrent
``kb ingest``, or the second write of an ingest with model stages) has new chunks under new
ids, and the old text's vector goes nowhere. Such chunks are counted and left for the next
pass.

One process at a time embeds an index's missing chunks (``embedding_turn``: a lock file beside
the database, ``<db>.embed-lock``, held with ``filelock``): two ``kb ingest`` runs at once had
each embedded the chunks the other wrote too, the model's work done twice. The second waits;
the first's pass reads missing vectors by ascending chunk id, and a new chunk's id lies above
every id given before (``kb.store.documents``), so it also embeds what the second committed
meanwhile, and the second then embeds what is left (often nothing). The lock is the operating
system's (``flock``), released when its process ends; the empty file stays.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from kb.embedding import EmbeddingService
from kb.store import vectors
from kb.store.codec import EmbeddedChunk, vector_to_blob
from kb.store.meta import MetaKey
from kb.types import WAITING, ProgressFn

if TYPE_CHECKING:
    from filelock import BaseFileLock

log = logging.getLogger(__name__)
EMBED_PAGE = 64  # chunks read, embedded and committed per round trip (the unit of resumption)
SMALL_DOC_CHUNKS = 256  # documents of at most this many chunks are embedded first
SWITCH_ROUNDS = 3  # staging passes before giving up when chunks keep arriving at the switch
EMBED_LOCK_SUFFIX = ".embed-lock"  # the embedding turn's lock file: beside the database



def _texts(rows: Sequence[tuple[int, str, str]]) -> list[str]:
    return [f"{prefix}\n{text}" for _, prefix, text in rows]


def _embedded(rows: Sequence[tuple[int, str, str]], matrix: np.ndarray
              ) -> list[EmbeddedChunk]:
    """(chunk id, prefix, text, BLOB): each vector with the prefix and text it was made from."""
    return [(cid, prefix, text, vector_to_blob(v))
            for (cid, prefix, text), v in zip(rows, matrix, strict=True)]


def _changed(n: int) -> str:
    return (f"{n} chunks changed while they were embedded (their document was ingested "
            "again); their vectors were not stored: `kb reembed` embeds the new text")


@contextmanager
def embedding_turn(database: Path | str, on_progress: ProgressFn | None = None
                   ) -> Iterator[None]:
    """Hold the index's embedding turn: no other process or thread embeds its chunks meanwhile.

    Waits (without a timeout; Ctrl-C ends the wait) while another holds it, calling
    ``on_progress(WAITING, 0, 0)`` when the wait begins and ``on_progress(WAITING, 1, 1)``
    when it ends. Re-entrant in one thread (the lock is one object per file and process). A
    lock the file system cannot give (no ``flock``, a read-only folder, a folder where the
    lock file should be) is not waited for: the embedding goes ahead as before, and the log
    says so.

    Args:
        database: the index's SQLite file; the lock is ``<database>.embed-lock`` beside its
            real path (a symlink to the index takes the same lock).
        on_progress: told when the turn is not free at once, and when it comes.
    """
    from filelock import FileLock

    path = f"{Path(database).resolve()}{EMBED_LOCK_SUFFIX}"
    # no soft fallback: a lock file left by a killed process would block every later ingest
    lock = FileLock(path, fallback_to_soft=False, is_singleton=True)
    held = _take(lock, database, on_progress)
    try:
        yield
    finally:
        if held:
            lock.release()


def _take(lock: BaseFileLock, database: Path | str, on_progress: ProgressFn | None) -> bool:
    """Acquire ``lock``, waiting for it if another holds it; ``False`` if none can be had."""
    from filelock import Timeout

    try:
        lock.acquire(timeout=0)
        return True
    except Timeout:  # (a TimeoutError, an OSError: caught first)
        log.info("waiting for another kb process embedding %s", database)
    except OSError as exc:
        return _no_lock(database, exc)
    if on_progress:  # outside the OSError handlers: a display's own error is no lock error
        on_progress(WAITING, 0, 0)
    try:
        lock.acquire()
    except OSError as exc:
        held = _no_lock(database, exc)
    else:
        held = True
    if on_progress:  # the wait is over, with the lock or without
        on_progress(WAITING, 1, 1)
    return held


def _no_lock(database: Path | str, exc: OSError) -> bool:
    """Log that the file system gives no lock here (the embedding goes ahead); ``False``."""
    log.info("no embedding lock for %s (%s): embedding without it", database, exc)
    return False


def backfill_vectors(service: EmbeddingService, on_progress: ProgressFn | None = None
                     ) -> tuple[int, str | None]:
    """Embed every chunk lacking a live vector of ``service``'s fingerprint.

    Each page of vectors is committed in its own short transaction after the model call.
    ``on_progress`` is called with (``"vectors"``, done, total) before the first page and
    after each. Vectors are
    written only where ``kb.store.vectors.destination`` says they are live: during a
    re-embed to this model, new chunks are left to ``kb reembed`` (which stages them).

    One pass, by chunk id (the chunks of documents of at most ``SMALL_DOC_CHUNKS`` first,
    so a huge file does not hold up the notes of its batch), in the index's embedding turn
    (``embedding_turn``: another process embedding the same index is waited for, and its
    chunks are not embedded twice): a chunk whose document was replaced while it was embedded
    gets no vector of its old text and waits for the next pass (the message counts such
    chunks).

    Returns:
        (vectors written, message or ``None``). On a model failure the remaining chunks keep
        NULL vectors and the message says why; nothing is raised.
    """
    store, fp = service.store, service.fingerprint.key
    destination = vectors.destination(store, fp)
    if destination == "staged":
        return 0, (f"a re-embed to {service.fingerprint.description} is in progress: "
                   "`kb reembed` builds these chunks' vectors (keyword search finds them now)")
    if destination is None:
        stored = store.get_meta(MetaKey.LIVE_DESCRIPTION) or "another model"
        return 0, (f"the index holds vectors of {stored}, not {service.fingerprint.description}"
                   "; run `kb reembed` to switch")
    if not vectors.count_missing_live(store, fp):
        return 0, None  # nothing to embed: no turn to take (and no lock file made)
    with embedding_turn(store.path, on_progress):
        return _backfill(service, on_progress)


def _backfill(service: EmbeddingService, on_progress: ProgressFn | None
              ) -> tuple[int, str | None]:
    """``backfill_vectors``'s pass, in the embedding turn.

    The missing vectors are counted again: another process may have embedded them meanwhile.
    """
    store, fp = service.store, service.fingerprint.key
    total = vectors.count_missing_live(store, fp)
    if on_progress and total:  # at once: the first page can take a while
        on_progress("vectors", 0, total)
    written = changed = cursor = 0
    passes = [SMALL_DOC_CHUNKS, None]  # small documents first: a huge one does not hold up
    while True:  # the notes of its batch (Ctrl-C during it left them all without vectors)
        rows = vectors.missing_live(store, fp, EMBED_PAGE, after_id=cursor,
                                    max_doc_chunks=passes[0])
        if not rows and len(passes) > 1:
            passes, cursor = passes[1:], 0
            continue
        if not rows:
            # a changed chunk of pass 1 may have been embedded by pass 2: count what is left
            left = min(changed, vectors.count_missing_live(store, fp)) if changed else 0
            return written, _changed(left) if left else None
        try:
            matrix = service.embed_documents(_texts(rows))
        except Exception as exc:  # any backend failure leaves NULL vectors, never lost text
            log.info("embedding failed: %s", exc)  # the returned message reports it
            return written, f"embedding failed ({type(exc).__name__}: {exc}); run `kb reembed`"
        n = vectors.put_live(store, _embedded(rows, matrix), fp)
        if n is None:
            return written, ("the index switched to another model while embedding; "
                             "run `kb reembed`")
        cursor = rows[-1][0]
        written += n
        changed += len(rows) - n
        if on_progress:
            on_progress("vectors", written, total)


def stage_vectors(service: EmbeddingService, on_progress: ProgressFn | None = None
                  ) -> tuple[int, str | None]:
    """Stage a vector of ``service``'s fingerprint for each chunk without one (one pass).

    A re-embed to that fingerprint must be in progress (``kb.store.vectors.begin_reembed``).
    ``on_progress`` is called with (``"re-embed"``, chunks staged in all, chunks) per page.

    A chunk whose document was replaced while it was embedded is not staged; it stays for
    the next pass.

    Returns:
        (vectors staged in this pass, message or ``None``); a model failure stops the pass
        (what is staged stays staged) and the message says why; nothing is raised.
    """
    store, fp = service.store, service.fingerprint.key
    total = store.counts_chunks()
    done = total - vectors.count_unstaged(store, fp)
    staged, cursor = 0, 0
    while True:
        rows = vectors.unstaged_chunks(store, fp, EMBED_PAGE, after_id=cursor)
        if not rows:
            return staged, None
        try:
            matrix = service.embed_documents(_texts(rows))
        except Exception as exc:  # staged pages stay: the next run resumes after them
            log.info("embedding failed: %s", exc)  # the returned message reports it
            return staged, (f"embedding failed ({type(exc).__name__}: {exc}); run `kb reembed` "
                            "again to resume")
        stored = vectors.put_staged(store, _embedded(rows, matrix), fp)
        if stored is None:
            return staged, "the re-embed was finished or discarded by another process"
        if stored < len(rows):
            log.info("%d chunks changed while they were embedded; the next pass stages them",
                     len(rows) - stored)
        cursor = rows[-1][0]
        staged += stored
        done += stored
        if on_progress:
            on_progress("re-embed", done, max(done, total))


def rebuild_vectors(service: EmbeddingService, *, drop_meta: Sequence[str] = (),
                    on_progress: ProgressFn | None = None) -> tuple[int, bool, str | None]:
    """Stage a vector of ``service``'s model for every chunk, then switch to them.

    A re-embed to the service's fingerprint must be in progress. Passes repeat (at most
    ``SWITCH_ROUNDS``) while chunks ingested meanwhile keep the switch from completing.

    Args:
        service: the new model.
        drop_meta: meta keys the switch deletes (the old model's calibration).
        on_progress: called with (``"re-embed"``, done, total) per page.

    Returns:
        (vectors staged in this run, whether the model's vectors are live now, message or
        ``None`` when it stopped early).
    """
    store, fp = service.store, service.fingerprint.key
    staged = 0
    for _ in range(SWITCH_ROUNDS):
        target = vectors.reembed_target(store)
        if target is None or target.key != fp:
            return staged, vectors.live_fingerprint(store) == fp, (
                "the re-embed was finished or discarded by another process")
        n, error = stage_vectors(service, on_progress)
        staged += n
        if error:
            return staged, vectors.live_fingerprint(store) == fp, error
        if vectors.switch(store, fp, drop_meta=drop_meta):
            return staged, True, None
    return staged, False, ("chunks kept arriving while switching; run `kb reembed` again "
                           "to finish")
