"""The ingest orchestrator.

Stages, per file (each one call into one module):

1. **Discover** files under the given paths (``kb.ingest.discover``) under the ignore rules
   (``kb.ingest.ignore``: built-in excludes, ``.gitignore``, ``.kbignore``; the report counts
   what they left out, by reason); an unreadable folder becomes a failed outcome, a symlink
   loop or dangling symlink a skipped one.
2. **Hash** the bytes; an unchanged file (same source, same content hash) is skipped, and so,
   unread, is a file that failed before and has not changed since (``kb.ingest.problems``).
3. **Extract** text with structure (``kb.ingest.extract``); a failure is that file's alone, and
   an empty file (0 bytes, or whitespace only) is skipped. PDF, DOCX and HTML files are
   extracted in a worker process within a time and memory budget (``kb.ingest.worker``), so
   a file that keeps a parser busy is stopped and fails alone.
4. **Chunk** structure-first with a recursive fallback (``kb.ingest.chunk``), each chunk with its
   context prefix (title + heading path). A plain-text file (without an LLM stage) is read,
   decoded, chunked and written in bounded pieces inside the transaction of step 5, so its
   size does not bound memory.
5. **Write text first**: document, chunks and FTS rows replace any older version in one
   transaction (``kb.store.Store.replace_if_changed``: one indexed meanwhile is kept). With a
   model stage to come (6 or 7) the row is marked ``pending_models``, so an ingest
   interrupted during the model calls redoes the file next time.
6. **Images** (``kb.ingest.images``): with a vision model, pictures in PDF/DOCX files are
   described and the descriptions become text blocks where the pictures were (then the text
   is chunked again); without one the report says "image content not indexed (N images)".
7. **Contextualise** (``kb.ingest.contextualize``): with an LLM, one situating sentence per chunk
   within the DESIGN 3.3 budget, appended to its prefix; then the final version replaces the
   one of step 5. Model replies are cached in ``llm_cache``; a failing or slow model costs
   sentences or descriptions (the report counts them), never the file. When a model call
   failed the final version stays ``pending_models`` and the next ingest redoes the file
   (the replies received come from ``llm_cache``); what the DESIGN 3.3 budget or the image
   cap leaves out is final.

Then, once for the batch:

8. **Prune**: documents under a folder given whose files are gone are removed with their chunks,
   FTS rows and vectors; a folder that holds no files at all keeps its documents and fails
   (``kb.ingest.empty_folders``: an unmounted drive looks empty; so does a subfolder one was
   mounted on) unless ``allow_empty``. A file reached through a symlink out of a folder is
   reported (its document's source is its real path) and the link recorded
   (``kb.store.links``); a sync also removes such documents once their files are gone. With
   ``inside`` (a project's roots), one out of it is skipped. Then ``on_outcomes`` is called.
9. **Embed** every chunk without a current vector, outside any transaction
   (``kb.ingest.embed``); a failure leaves NULL vectors and a warning, and ``kb reembed`` backfills.

Ctrl-C raises ``kb.ingest.report.IngestInterrupted`` with what was committed (files whole,
vectors by page); the next run resumes: unchanged files are skipped, missing vectors embedded.
Model calls are made outside any write transaction. An unchanged file is skipped by its content
hash whatever models are configured now: a file ingested without an LLM keeps its plain prefixes
until it changes. The report says so: a batch without an LLM counts indexed documents with
situating sentences (the prefixes are mixed); a batch with one, those without.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from kb.backends import DESCRIBE_IMAGE_PROMPT, LLM, VisionModel
from kb.config import EXTRACT_TIMEOUT_S, ChunkSettings
from kb.embedding import EmbeddingService
from kb.errors import EmptyDocumentError, ExtractError, StoreError
from kb.ingest.chunk import chunk_document
from kb.ingest.contextualize import SITUATE_TIMEOUT_S, situate_chunks
from kb.ingest.discover import MAX_FILE_BYTES, discover
from kb.ingest.embed import backfill_vectors
from kb.ingest.empty_folders import guard_folders, split_gone
from kb.ingest.extract import SUPPORTED_SUFFIXES, extract, read_as
from kb.ingest.extract.common import one_line
from kb.ingest.extract.text import EMPTY_DOCUMENT, EMPTY_FILE, FRONT_MATTER_ONLY
from kb.ingest.images import DESCRIBE_TIMEOUT_S, Describe, index_images
from kb.ingest.problems import ProblemLog, not_utf8, storable
from kb.ingest.prune import remove_ignored, remove_links_out, remove_missing
from kb.ingest.report import (
    NOT_ATTEMPTED,
    WRITTEN_MEANWHILE,
    IngestInterrupted,
    batch_notes,
    committed_meanwhile,
    noted_large,
    stopped_report,
)
from kb.ingest.stream import no_text_outcome, write_text_stream
from kb.ingest.walk import LINKED_FOLDER
from kb.ingest.worker import RISKY_SUFFIXES, ExtractionWorker
from kb.store import Store, vectors
from kb.store.links import record_links
from kb.store.llm_cache import cached_reply
from kb.types import ChunkDraft, DocumentRow, FileOutcome, IngestReport, ProgressFn

log = logging.getLogger(__name__)

PENDING_NOTE = "image descriptions or situating sentences not finished; the next ingest redoes it"
REMOVED_DURING_INGEST = "removed or moved while the ingest ran"
EMPTY_REASONS = (EMPTY_FILE, FRONT_MATTER_ONLY, EMPTY_DOCUMENT)
RETRY_NOTE = ("model calls failed: the next ingest redoes this file (replies already received "
              "come from the cache)")


def write_document(store: Store, row: DocumentRow, drafts: Sequence[ChunkDraft]) -> int | None:
    """Replace any stored version of ``row.source`` with ``row`` and ``drafts``.

    Nothing is written when there is no chunk (the caller reports why), nor when another
    process indexed this very version meanwhile (``Store.replace_if_changed``).

    Returns:
        The chunks written; ``None`` when the version another process wrote was kept.
    """
    if drafts and store.replace_if_changed(row, drafts) is None:
        return None
    return len(drafts)


def _describer(store: Store, vision: VisionModel) -> Describe:
    """Cached, ingest-time calls of the vision model."""
    def describe(image: bytes, mime_type: str) -> str:
        request = f"{DESCRIBE_IMAGE_PROMPT}\0{mime_type}\0{hashlib.sha256(image).hexdigest()}"
        return cached_reply(store, vision.model_id, request, lambda: vision.describe_image(
            image, mime_type, timeout_s=DESCRIBE_TIMEOUT_S))
    return describe


def _completer(store: Store, llm: LLM) -> Callable[[str], str]:
    """Cached, ingest-time calls of the LLM."""
    def complete(prompt: str) -> str:
        return cached_reply(store, llm.model_id, prompt,
                            lambda: llm.complete(prompt, timeout_s=SITUATE_TIMEOUT_S))
    return complete


def _ingest_file(store: Store, path: Path, chunk: ChunkSettings, worker: ExtractionWorker, *,
                 llm: LLM | None = None, vision: VisionModel | None = None) -> FileOutcome:
    source = str(path)
    if (misnamed := not_utf8(path)) is not None:  # bytes decoded with surrogateescape
        return misnamed
    try:
        stat = path.stat()
        if path.suffix.lower() not in SUPPORTED_SUFFIXES:
            return FileOutcome(source, "skipped", reason=f"unsupported file type {path.suffix!r}")
        if stat.st_size > MAX_FILE_BYTES:
            return FileOutcome(source, "failed",
                               reason=f"larger than the {MAX_FILE_BYTES // 2**20} MiB budget")
        if stat.st_size == 0:  # nothing to index is not a failure (a new, blank note)
            return FileOutcome(source, "skipped", reason=EMPTY_FILE)
        with path.open("rb") as fh:  # in pieces: a large file is never held whole
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
    except FileNotFoundError:  # deleted or moved before its turn (remove_missing drops it)
        return FileOutcome(source, "skipped", reason=REMOVED_DURING_INGEST)
    except OSError as exc:
        return FileOutcome(source, "failed", reason=f"cannot read: {exc.strerror or exc}")
    old = store.get_document(source=source)
    if old is not None and old.content_hash == digest and old.status != "pending_models":
        if (old.size, old.mtime) != (stat.st_size, stat.st_mtime):  # touched: not stale
            store.record_file_stat(source, stat.st_size, stat.st_mtime, digest)
        return FileOutcome(source, "unchanged")
    read = read_as(path)  # a web page saved as .txt is read as HTML
    if read == ".txt" and llm is None:  # streamed: no stage needs it whole
        row = DocumentRow(source=source, source_type="txt",
                          title=one_line(path.stem) or one_line(path.name),
                          content_hash=digest, size=stat.st_size, mtime=stat.st_mtime,
                          created_at=datetime.fromtimestamp(stat.st_mtime, UTC))
        return write_text_stream(store, path, row, chunk, updated=old is not None)
    try:
        doc = worker.extract(path) if read in RISKY_SUFFIXES else extract(path)
    except EmptyDocumentError as exc:  # whitespace only is empty, skipped; a scan fails
        return no_text_outcome(source, path, exc.reason)
    except ExtractError as exc:
        return FileOutcome(source, "failed", reason=exc.reason)
    except Exception as exc:  # an extractor bug must not abort the batch
        log.exception("extractor crashed on %s", path)
        return FileOutcome(source, "failed", reason=f"unexpected {type(exc).__name__}: {exc}")
    row = DocumentRow(source=source, source_type=doc.source_type, title=doc.title,
                      content_hash=digest, size=stat.st_size, mtime=stat.st_mtime,
                      created_at=doc.created_at or datetime.fromtimestamp(stat.st_mtime, UTC),
                      warnings=doc.warnings, tags=doc.tags)
    drafts = chunk_document(doc, chunk)
    if not drafts:
        return no_text_outcome(source, path, "no text to index")
    describe = _describer(store, vision) if vision is not None else None
    if llm is not None or (describe is not None and doc.images):  # 5. text first, pending
        if write_document(store, dataclasses.replace(
                row, warnings=(*doc.warnings, PENDING_NOTE), models_pending=True), drafts) is None:
            return FileOutcome(source, "unchanged", reason=WRITTEN_MEANWHILE)
    images = index_images(path, doc, describe)  # 6
    described, failed = images.document, images.failed
    if described.blocks is not doc.blocks:
        drafts = chunk_document(described, chunk)
    warnings = described.warnings
    if llm is not None:  # 7
        situated = situate_chunks(described.text, drafts, _completer(store, llm))
        drafts, warnings = list(situated.chunks), (*warnings, *situated.warnings)
        failed += situated.failed
    if failed:  # a failed call is tried again next time; a budget cut is final
        warnings = (*warnings, RETRY_NOTE)
    written = write_document(store, dataclasses.replace(
        row, warnings=warnings, models_pending=bool(failed)), drafts)
    if written is None:
        return FileOutcome(source, "unchanged", reason=WRITTEN_MEANWHILE)
    return FileOutcome(source, "updated" if old else "added", chunks=written,
                       warnings=warnings)


def _ingest_found(store: Store, found: Sequence[Path | FileOutcome], chunk: ChunkSettings,
                  worker: ExtractionWorker, outcomes: list[FileOutcome], problems: ProblemLog, *,
                  llm: LLM | None, vision: VisionModel | None, on_progress: ProgressFn | None,
                  on_file: Callable[[str], None] | None,
                  current: list[tuple[Path, datetime | None]]) -> StoreError | None:
    """Stages 2-7 for each file found, appending to ``outcomes``; the fault that stopped them.

    ``current``: the file in progress and its ``ingested_at`` before, until its outcome is
    appended (``kb.ingest.report.committed_meanwhile``).
    """
    total = sum(1 for item in found if isinstance(item, Path))
    done = 0
    fault: StoreError | None = None
    for item in found:
        if isinstance(item, FileOutcome):  # what the walk could not read or follow
            if item.action == "failed":
                problems.folder_failed(item)
            outcomes.append(item)
            continue
        if fault is not None:
            outcomes.append(FileOutcome(str(item), "failed", reason=NOT_ATTEMPTED))
            continue
        if on_file:
            on_file(str(item))
        outcome = problems.known(item)
        if outcome is None:
            before = store.get_document(source=str(item)) if storable(str(item)) else None
            current[:] = [(item, before.ingested_at if before else None)]
            try:
                outcome = _ingest_file(store, item, chunk, worker, llm=llm, vision=vision)
            except StoreError as exc:  # disk full, I/O error: the next writes would fail too
                fault = exc
                outcome = FileOutcome(str(item), "failed", reason=f"{exc}; the ingest stopped")
            problems.file_done(item, outcome, remember=fault is None)
        if (outcome.action == "failed" or outcome.reason in EMPTY_REASONS) and storable(
                str(item)) and store.get_document(source=outcome.path):
            outcome = dataclasses.replace(outcome, reason=(
                f"{outcome.reason}; the version indexed earlier is still searched (`kb rm` it "
                "to drop it)"))
        outcomes.append(outcome)
        current.clear()
        done += 1
        if on_progress:
            on_progress("files", done, total)
    return fault



def ingest_paths(store: Store, paths: Iterable[Path | str], *, chunk: ChunkSettings,
                 service: EmbeddingService | None, sync: bool = False,
                 on_progress: ProgressFn | None = None,
                 no_vectors_reason: str = "no embedder configured", llm: LLM | None = None,
                 vision: VisionModel | None = None,
                 extract_timeout_s: float = EXTRACT_TIMEOUT_S,
                 allow_empty: bool = False, ignore: Sequence[str] = (),
                 on_file: Callable[[str], None] | None = None,
                 inside: Path | None = None, named: Iterable[Path] | None = None,
                 on_outcomes: Callable[[tuple[FileOutcome, ...]], None] | None = None
                 ) -> IngestReport:
    """Ingest files and folders into ``store``.

    Args:
        store: the open store.
        paths: files and/or folders (walked recursively).
        chunk: chunk sizes.
        service: the embedding service, or ``None`` to store text only (BM25).
        sync: also remove documents reached through symlinks in the given folders (recorded
            by earlier ingests) whose files are gone; documents under the folders whose files
            are gone are removed either way; a folder given that is gone while the index
            has documents from it is a failed outcome, its documents kept (``split_gone``).
        on_progress: called with (phase, done, total) for ``files`` and ``vectors``, and
            ``waiting`` ((0, 0), then (1, 1)) while another process holds the index's
            embedding turn (``kb.ingest.embed.embedding_turn``).
        no_vectors_reason: why ``service`` is ``None``, for the report's warning.
        llm: the chat model writing situating sentences (ingest-time: long timeouts,
            retries, a circuit breaker), or ``None`` for title + heading prefixes only.
        vision: the model describing images in PDF and DOCX files, or ``None``.
        extract_timeout_s: the wall-clock budget for extracting one PDF, DOCX or HTML file.
        allow_empty: a folder given that holds no files loses its documents too;
            without it they are kept and the folder is a failed outcome.
        ignore: extra gitignore patterns for folder walks, relative to each folder given
            (``kb.ingest.ignore``; ``.gitignore``, ``.kbignore`` and built-in excludes apply
            whatever they are).
        on_file: called with each file's path before it is read.
        on_outcomes: called with every file's outcome once all are known, before embedding.
        inside: files whose real path is outside it are skipped (``kb.ingest.discover``);
            with ``sync``, documents a link under the folders brought in from outside go.
        named: files given by name, read again though they failed before and are unchanged
            (``kb.ingest.problems``); ``None``: the files among ``paths``.

    Returns:
        The batch report; a failed file is an outcome, never an exception, and so is a
        folder the walk could not read (failed), a folder kept because it holds no
        files (failed), or a broken symlink the walk met (skipped).

        A storage fault (disk full, I/O error) stops the batch: the file being written fails
        with SQLite's reason, the files after it are "not attempted", and no later stage
        (sync, embedding) runs; what the report lists as added is committed.

    Raises:
        FileNotFoundError: a given path does not exist (with ``sync``: and held no
            document), is a dangling symlink or a symlink loop: before anything is written
            (the message names the path, and says so when other paths were given).
        StoreError: the index is read-only (nothing is read or written).
        IngestInterrupted: Ctrl-C; it carries the report of what was committed.
    """
    if store.read_only:
        raise StoreError(f"{store.path}: read-only (the file or its folder cannot be written): "
                         "cannot ingest; searching works", path=store.path)
    # as given (discover names "" no such file: Path("") is "."); a sync fails a gone folder
    paths, gone = split_gone(store, paths) if sync else (list(paths), [])
    roots = [Path(p) for p in paths]
    links: list[tuple[Path, Path, Path]] = []
    ignored: Counter[str] = Counter()
    unfollowed: list[Path] = []  # symlinked folders a walk met: named, since a user may expect them

    def on_ignored(path: Path, why: str) -> None:
        ignored.update((why,))
        unfollowed.extend([path] if why == LINKED_FOLDER else [])

    try:
        found = list(discover(paths, SUPPORTED_SUFFIXES, on_link=lambda *link: links.append(link),
                              ignore=ignore, on_ignored=on_ignored, inside=inside))
    except FileNotFoundError as exc:
        if len(roots) == 1:
            raise  # else say that the other paths were not read either
        raise FileNotFoundError(f"{exc}; nothing was written: every path given is checked "
                                "before any file is read") from None
    resolved = [r.expanduser().resolve() for r in roots]
    given = resolved if named is None else [Path(n).expanduser().resolve() for n in named]
    problems = ProblemLog(store, {r for r in given if r.is_file()}, timeout_s=extract_timeout_s)
    outcomes: list[FileOutcome] = []
    embedded = [0]  # chunks embedded and committed, for an interrupted run's report
    current: list[tuple[Path, datetime | None]] = []
    try:
        with ExtractionWorker(timeout_s=extract_timeout_s) as worker:
            fault = _ingest_found(store, found, chunk, worker, outcomes, problems, llm=llm,
                                  vision=vision, on_progress=on_progress, on_file=on_file,
                                  current=current)
    except KeyboardInterrupt:
        if (meanwhile := committed_meanwhile(store, current)) is not None:
            outcomes.append(meanwhile)  # committed between its write and its report line
        problems.save([])
        raise IngestInterrupted(IngestReport(outcomes=tuple(outcomes)), phase="files",
                                files_left=len(found) - len(outcomes)) from None
    if fault is not None:
        return stopped_report(store, outcomes, service)
    record_links(store, ((str(link), str(real)) for link, real, _ in links))
    kept = guard_folders(store, roots, found, allow_empty=allow_empty,
                         added=(o.path for o in outcomes if o.action == "added"))
    for folder in (*gone, *kept):
        problems.folder_failed(folder)
    held = {o.path for o in kept}  # folders kept: their documents and their files' records
    synced = [r for r in resolved if str(r) not in held]
    problems.save(synced, keep=held)
    outcomes[:0] = gone
    outcomes += kept
    removed = remove_missing(store, synced, links=sync, keep=held)
    if sync:  # a plain ingest never drops what the user added by hand under ignored paths
        removed += remove_ignored(store, resolved, ignore)
        removed += remove_links_out(store, resolved, inside) if inside else ()
    warnings = batch_notes(store, resolved, ignore=None if sync else ignore, links=links,
                           unfollowed=unfollowed, llm=llm, written=any(
                               o.action in ("added", "updated") for o in outcomes))
    outcomes = noted_large(outcomes) if service is not None else outcomes
    if on_outcomes:  # said before an embedding of hours
        on_outcomes(tuple(outcomes))
    pending = 0
    if service is not None:
        def count(phase: str, done: int, total: int) -> None:
            if phase == "vectors":  # not the wait for the embedding turn
                embedded[0] = done
            if on_progress:
                on_progress(phase, done, total)
        try:
            _, error = backfill_vectors(service, count)
        except KeyboardInterrupt:
            raise IngestInterrupted(IngestReport(outcomes=tuple(outcomes), removed=removed,
                                                 vectors_written=embedded[0]),
                                    phase="vectors", files_left=0) from None
        if error:
            warnings.append(error)
        pending = vectors.count_missing_live(store, service.fingerprint.key)
    else:
        warnings.append(f"{no_vectors_reason}: text indexed for BM25 only")
        counts = store.counts()
        pending = counts["chunks"] - counts["vectors"]
    store.refresh_status()
    return IngestReport(outcomes=tuple(outcomes), removed=removed, vectors_pending=pending,
                        embedder=service.fingerprint.description if service else "none",
                        warnings=tuple(warnings), ignored=tuple(ignored.most_common()),
                        vectors_written=embedded[0], new_problems=tuple(problems.new))

