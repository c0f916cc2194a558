"""The one store read behind stages 5 and 6: what rerank, judge and cite look at.

``gather`` takes the candidates the floor kept and reads, in the search's snapshot:

* the documents behind the top ``RERANK_TOP_N`` (``kb.retrieve.freshness``, one ``stat`` per
  file): a gone file's passages are dropped, a changed file's flagged stale;
* the candidates to rerank: the top ``RERANK_TOP_N`` kept, plus the judge's ``JUDGE_TOP_N``
  best matches before time decay that decay pushed below them (the judge judges the best
  matches whatever their age; decay orders only);
* their chunk rows and stored vectors (``Store.chunk_rows``, one query per 500 chunks);
* for a chunk that opens inside a table, the header row of that table from the chunks before
  it (``kb.retrieve.tables``; cited beside the rows);
* for the offline judge, when it may run: its passages, the index statistics of the query
  terms (FTS5 vocabulary, per-document chunk counts; ``kb.retrieve.indexstats``, whose reader
  holds what recall read ahead) and its model.

What it returns is plain data, so the stages after it (``kb.retrieve.rerank``,
``kb.retrieve.cite``) are pure functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from kb.config import RERANK_TOP_N
from kb.retrieve.calibration import load_judge_model
from kb.retrieve.freshness import FileCheck, check_files
from kb.retrieve.indexstats import IndexStatsReader
from kb.retrieve.judge import JUDGE_TOP_N
from kb.retrieve.judge_data import IndexStats, Passage
from kb.retrieve.judge_model import JudgeModel
from kb.retrieve.tables import (
    LOOKBACK_CHARS,
    LOOKBACK_CHUNKS,
    TableContext,
    continued_header,
    header_lines,
    opens_with_row,
    row_start,
)
from kb.retrieve.terms import Term
from kb.retrieve.trace import Trace
from kb.store import Store
from kb.store.reading import text_before
from kb.types import Candidate, Chunk, Document


@dataclass(frozen=True, slots=True)
class JudgeInput:
    """What the offline judge reads (``kb.retrieve.judge.judge``).

    Attributes:
        passages: the candidates to judge, best match (before decay) first.
        stats: the index statistics of the query terms and the passages' documents.
        problem: why the FTS5 statistics are missing (then every term counts as rare), or
            ``None`` when they are complete.
        model: the judge's model and threshold.
    """

    passages: tuple[Passage, ...]
    stats: IndexStats
    problem: str | None
    model: JudgeModel


@dataclass(frozen=True, slots=True)
class Evidence:
    """The candidates stages 5 and 6 work on, with everything they read about them.

    Attributes:
        files: the floor's candidates without those whose files are gone (``files.kept``,
            order preserved), the documents of the reranked ones, which are stale, which gone.
        top: the candidates to rerank, best first by score (``RERANK_TOP_N``, then the
            judge's late ones).
        chunks: chunk id -> chunk row for ``top`` (what is cited).
        vectors: chunk id -> stored vector for ``top`` (MMR, near-duplicates); empty when
            the search used no vectors.
        judge: the offline judge's input, or ``None`` when it is switched off or has nothing
            to judge.
        table_headers: chunk id -> the header row of the table the chunk opens inside and
            the beginning of the row it opens in (``kb.retrieve.tables.TableContext``), for
            the chunks of ``top`` that do.
    """

    files: FileCheck
    top: tuple[Candidate, ...]
    chunks: dict[int, Chunk]
    vectors: dict[int, np.ndarray]
    judge: JudgeInput | None
    table_headers: dict[int, TableContext]


def gather(store: Store, kept: Sequence[Candidate], *, fingerprint: str | None,
           model_id: str | None, terms: Sequence[Term], judge: bool,
           judge_model: JudgeModel | None, trace: Trace,
           stats: IndexStatsReader | None = None, confined: bool = False) -> Evidence:
    """Read the evidence for the floor's candidates (see module docstring).

    Args:
        store: the open store, inside the search's snapshot.
        kept: the floor's candidates, best first.
        fingerprint: the vectors' fingerprint, or ``None`` when the search used none.
        model_id: the embedding model's id, or ``None`` (which judge is shipped for it).
        terms: the query's content terms (the judge's statistics).
        judge: whether the offline judge may run (its input is read only then).
        judge_model: the judge's model, or ``None`` for the shipped one with the threshold
            ``kb calibrate`` stored in the index, if any.
        trace: receives a degraded note when files are gone.
        stats: the search's reader of the judge's index statistics, holding what recall
            read ahead (``kb.retrieve.indexstats``); ``None``: a fresh one.
        confined: the search may see only some documents (``SearchOptions.doc_ids``: a
            scoped server). The statistics count the whole index, so the checks that read
            what the rest of it writes are off (``IndexStats.complete`` false): a name
            written only outside would otherwise pass a passage that one written nowhere
            fails, telling a caller what hidden documents hold.

    Raises:
        sqlite3.OperationalError: a statement was interrupted (the search is cancelled).
    """
    files = check_files(kept, store.documents_by_id, n=RERANK_TOP_N)
    kept = list(files.kept)
    head = sorted(kept, key=lambda c: (-c.evidence, c.chunk_id))[:JUDGE_TOP_N]
    top = kept[:RERANK_TOP_N]
    late = [c for c in head if c not in top]
    if late:
        files, late = files.extended(late, store.documents_by_id)
        head = [c for c in head if c in top or c in late]
    if files.gone:
        shown = ", ".join(files.gone[:2]) + (", ..." if len(files.gone) > 2 else "")
        trace.degraded.append(f"files: {len(files.gone)} document(s) left out, their files are "
                              f"gone ({shown}); mount the drive or share they were on, if "
                              "it is not, or `kb sync` their folder to remove them")
    top += late
    chunks, vectors = store.chunk_rows([c.chunk_id for c in top], fingerprint)
    headers = table_headers(store, chunks, files.documents)
    judged = None
    if judge and top:
        passages = judge_passages(head, chunks, headers, files.documents)
        reader = stats if stats is not None else IndexStatsReader(store)
        index, problem = reader.stats(terms, [p.doc_id for p in passages])
        if confined:
            index = replace(index, complete=False)
        judged = JudgeInput(tuple(passages), index, problem,
                            judge_model or load_judge_model(store, fingerprint, model_id))
    return Evidence(files, tuple(top), chunks, vectors, judged, headers)


def table_headers(store: Store, chunks: Mapping[int, Chunk],
                  documents: Mapping[int, Document]) -> dict[int, TableContext]:
    """Chunk id -> its table's header row and the row start, for the chunks opening in one.

    Only a chunk whose first lines hold a cell separator costs a read (the text before it,
    at most ``LOOKBACK_CHUNKS`` chunks); ``documents`` gives each one's source type.
    """
    out = {}
    for cid, ch in chunks.items():
        doc = documents.get(ch.doc_id)
        if doc is not None and opens_with_row(ch.text):
            before, from_start = text_before(store, ch, LOOKBACK_CHARS, LOOKBACK_CHUNKS)
            header = continued_header(before, ch.text, from_start=from_start,
                                      source_type=doc.source_type)
            if header is not None:
                out[cid] = TableContext(header, row_start(before))
    return out


def chunk_table_header(store: Store, chunk_id: int, document: Document) -> str | None:
    """The header row of the table chunk ``chunk_id`` of ``document`` opens inside, or ``None``.

    As a search cites it (``table_headers``): ``kb show``, ``GET /chunks/{id}`` and the MCP
    ``get_chunk`` tool give it with the chunk (a trial read a cited row's cells unlabelled).
    """
    chunk = store.chunks([chunk_id]).get(chunk_id)
    if chunk is None or chunk.doc_id != document.id:
        return None
    found = table_headers(store, {chunk_id: chunk}, {document.id: document}).get(chunk_id)
    return found.header if found else None


def judge_passages(candidates: Sequence[Candidate], chunks: Mapping[int, Chunk],
                   headers: Mapping[int, TableContext] | None = None,
                   documents: Mapping[int, Document] | None = None) -> list[Passage]:
    """The judge's view of ``candidates`` (those without a chunk row are left out).

    A chunk continuing a table (``headers``) is judged as it is cited: its table's header row
    (and rule) first, the columns its rows fill, and the beginning of a row it opens inside.
    ``documents`` (id -> row) gives each passage its document's source path.
    """
    headers = headers or {}
    documents = documents or {}

    def text(cid: int) -> str:
        table = headers.get(cid)
        lead = f"{header_lines(table.header)}\n{table.row_start}" if table else ""
        return lead + chunks[cid].text

    return [Passage(c.chunk_id, c.doc_id, text(c.chunk_id),
                    # title and heading path: an LLM's situating sentence follows them
                    chunks[c.chunk_id].context_prefix.split("\n", 1)[0], c.cosine,
                    c.vector, c.keyword, c.evidence,
                    doc.source if (doc := documents.get(c.doc_id)) else "")
            for c in candidates if c.chunk_id in chunks]
