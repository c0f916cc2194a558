"""A search: recall lists, fused candidates, the references handed out and how it went."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kb.types.documents import page_span

ListKind = Literal["bm25", "vector", "like"]


@dataclass(frozen=True, slots=True)
class Hit:
    """One entry of one recall list.

    Attributes:
        chunk_id: the chunk.
        doc_id: its document.
        rank: 1-based rank in its list.
        score: the list's raw score, higher is better (negated FTS5 bm25, cosine, or the share
            of query terms found by the LIKE scan).
        s_norm: the score on the list's absolute per-query scale, in [0, 1].
    """

    chunk_id: int
    doc_id: int
    rank: int
    score: float
    s_norm: float


@dataclass(frozen=True, slots=True)
class RecallList:
    """The hits of one search (one query x one method), best first.

    Attributes:
        name: ``bm25:0``, ``vector:2``... (method and query number; 0 is the original query).
        kind: the method.
        weight: the list's weight in fusion.
        hits: hits, best first.
    """

    name: str
    kind: ListKind
    weight: float
    hits: tuple[Hit, ...]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A chunk after fusion, with the evidence the later stages judge.

    Attributes:
        chunk_id: the chunk.
        doc_id: its document.
        score: fused (and possibly time-decayed) score, higher is better, >= 0.
        cosine: best raw cosine to any query over the vector lists, or ``None`` if in none.
        vector: best vector ``s_norm`` (cosine above the query's baseline, see
            ``kb.retrieve.recall``), 0.0 if in no vector list.
        keyword: best BM25/LIKE ``s_norm`` over the keyword lists, 0.0 if in none.
        lists: names of the lists it appeared in.
        fused: the fused score before time decay, or ``None`` when ``score`` is undecayed.
    """

    chunk_id: int
    doc_id: int
    score: float
    cosine: float | None
    vector: float
    keyword: float
    lists: tuple[str, ...] = ()
    fused: float | None = None

    @property
    def evidence(self) -> float:
        """The fused score before time decay: how well the chunk matches, whatever its age."""
        return self.score if self.fused is None else self.fused


@dataclass(frozen=True, slots=True)
class Reference:
    """One cited passage handed to the model; also its JSON (``kb.shapes.ReferenceJSON``).

    Attributes:
        number: 1-based citation number, as in ``[1]``.
        chunk_id: the chunk's id in the index.
        doc_id: its document's id (``kb docs``).
        relevance: the judge's ``answer_p`` in percent, 0-100 (higher is better): its
            calibrated probability that this passage holds the answer (a cross-encoder's or
            the LLM's score when one judged instead).
        title: the document's title.
        source: the document's absolute file path or URI.
        source_type: txt, md, html, pdf or docx.
        page: 1-based page (PDF) the passage starts on, or null.
        page_end: 1-based page it ends on: ``page`` itself unless it runs across a page
            break (``pages 3-4``); null when ``page`` is.
        heading_path: the headings enclosing the passage, outermost first.
        text: the quoted passage (the raw chunk, without its context prefix); equals
            ``extracted_text[char_start:char_end]``.
        char_start: start offset of ``text`` in the document's extracted text (code points).
        char_end: end offset, exclusive.
        created_at: the document's creation time (RFC 3339).
        weak_evidence: the passage did not pass the judge; listed only to show what came
            closest (or, to fill a long list, asked with ``fill``).
        stale: the document's file changed on disk (size or modification time, checked at
            query time by ``os.stat``, never by hashing) since it was indexed: the text may no
            longer be in it.
        flags: instruction-like text found in the passage or its header fields
            (``ignore_instructions``, ``role_marker``, ``persona_change``, ``prompt_request``,
            ``format_override``).
        page_end: the last page (see ``page``).
        table_header: the header row of the table the passage opens inside, when the
            header is in an earlier chunk (a long table cut into chunks: the passage's rows
            and the columns they fill), else null (``kb.retrieve.tables``).
        table_row_start: with ``table_header``, the beginning of the row the passage opens
            in the middle of (from the chunk before: the row is this, then ``text``), else
            null.
    """

    number: int
    chunk_id: int
    doc_id: int
    relevance: int
    title: str
    source: str
    source_type: str
    page: int | None
    heading_path: tuple[str, ...]
    text: str
    char_start: int
    char_end: int
    created_at: str
    weak_evidence: bool
    stale: bool
    flags: tuple[str, ...]
    page_end: int | None = None  # last, defaulted: positional construction keeps working
    table_header: str | None = None
    table_row_start: str | None = None

    @property
    def locator(self) -> str:
        """``page N`` (``pages N-M`` across a page break) and/or ``Heading > Sub``, or empty."""
        parts = [page_span(self.page, self.page_end)] if self.page is not None else []
        if self.heading_path:
            parts.append(" > ".join(self.heading_path))
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class StageTrace:
    """What one pipeline stage did.

    Attributes:
        stage: stage name (``expand``, ``recall``, ``fuse``, ``decay``, ``floor``, ``rerank``,
            ``cite``).
        status: ``ran``, ``skipped`` or ``failed``.
        reason: why it was skipped or failed, or a short note.
        ms: wall time in milliseconds.
    """

    stage: str
    status: Literal["ran", "skipped", "failed"]
    reason: str = ""
    ms: float = 0.0


@dataclass(frozen=True, slots=True)
class JudgeRecord:
    """Why the offline judge gave one reference its relevance (``kb.retrieve.judge``).

    Attributes:
        number: the reference's number.
        answer_p: probability in [0, 1] that the passage holds the answer.
        passed: ``answer_p`` reached the calibrated threshold.
        focus_found: the question's focus terms the passage holds.
        focus_missing: the focus terms it lacks.
        topic_terms: the question's terms its document is about (its title, headings and
            frequent terms): not focus, so in neither list above.
        best_sentence: the passage's sentence covering the most focus weight (a passage
            failing the evidence gate: its first sentence that is no heading).
        answer_type: what the question asks for: ``date``, ``number``, ``person``,
            ``place`` or ``other``.
        type_found: a filler of that type near the best sentence, or ``None``.
        numbers_missing: numbers the question names, none of which the passage writes (it
            then fails: "in 1066" against a passage about 1067), else empty.
        type_missing: the question asks outright for a date or a number
            (``kb.retrieve.answer_types.gated_type``) and the passage holds none that the
            question does not name (it then fails).
        events_apart: the question asks the date of an event (a birth, a founding, a death,
            a marriage, a launch) and each of the passage's dated sentences tells of one of
            these others, or of another person's birth or death ("Edith Pallister" for
            "When was Arthur Pallister born?"; it then fails), else empty.
        dimensions_apart: the question asks a length in a dimension (depth, height, width)
            and each number of the passage in that unit measures one of these others (it
            then fails), else empty.
        subject_apart: the terms other candidates' documents are about when the passage's
            document, in the question's script, writes none of them (nor its path) and its
            title names another, or a passage of a document about them passes the judge: it
            tells of another subject (it then fails), else empty.
        siblings_apart: the question asks a date or a number of a numbered name ("the
            Seahound 2") and each of the passage's clauses holding one names a sibling
            ("seahound 3"), or asks one side of a contrast ("the last bus") and each names
            the other ("first"), or asks one item of a list the passage makes and each names
            another ("血橙" for 脐橙); it then fails; else empty.
        asked_unnamed: the events (a birth, a death, a marriage, a founding, a launch, an
            acquisition, a joining, a departure) and attributes (a headcount, a revenue, a
            price, a weight, a screen, a capital city, ...) the question asks of that the
            passage names in no word ("When was Ossian Velt born?" against board minutes
            listing him: ``birth``), a role or relative (a chief executive, a CFO, a son,
            ...) it names in no word or only of someone else ("Tobias is married to Priya"
            for Marian's husband), or, for a yes-or-no question, its focus names ("Does the
            Lumo 2 support Matter?" against a note never naming it: ``Matter``; it then
            fails), else empty.
        roles_swapped: the verb or role word the question asks the other side of ("What
            will replace the Lumo 3?" against "The Lumo 3 replaced the Lumo 2": ``replace``;
            it then fails), else empty.
    """

    number: int
    answer_p: float
    passed: bool
    focus_found: tuple[str, ...]
    focus_missing: tuple[str, ...]
    best_sentence: str
    answer_type: str
    type_found: str | None
    numbers_missing: tuple[str, ...] = ()
    type_missing: bool = False
    events_apart: tuple[str, ...] = ()
    dimensions_apart: tuple[str, ...] = ()
    subject_apart: tuple[str, ...] = ()
    siblings_apart: tuple[str, ...] = ()
    asked_unnamed: tuple[str, ...] = ()
    roles_swapped: tuple[str, ...] = ()
    topic_terms: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Diagnostics:
    """How a search went: stages, degraded rungs, pool sizes, floor effect.

    Attributes:
        stages: one trace per stage in order.
        degraded: degradation rungs taken (e.g. ``vectors: embedder unavailable``).
        candidates: per recall list name, the number of hits.
        floor: the relevance floor used (vector s_norm in [0, 1]), or ``None`` when off.
        floor_dropped: candidates the floor removed.
        best_below_floor: best vector s_norm among dropped candidates, or ``None``.
        queries: the queries searched (original first).
        error: the reason when the search failed and returned nothing.
        explain: per-stage candidate traces when asked for (``--explain``), else empty.
        judged_out: candidates judged and not passed: by the offline judge (below its
            threshold) or a judging reranker (cross-encoder or LLM, below
            ``PipelineSettings.rerank_min_score``); 0 when none judged.
        judge: per reference, the offline judge's reasons (empty when it did not run).
        best_answer_p: the best ``answer_p`` among the candidates the offline judge scored
            (0 when none passed its evidence gate), or ``None`` when it did not run.
        judge_threshold: the ``answer_p`` from which the offline judge passed a passage (the
            shipped one, or one ``kb calibrate`` stored), or ``None`` when it did not run.
        gone: sources of documents left out because their files are gone from disk since
            they were indexed (``kb sync`` of their folder removes them).
        notes: why the list is empty or short, when a filter or a cap is the reason (e.g.
            ``no document carries tag 'x'``, ``at most 3 passages per document; 4 more were
            left out``); they never change ``insufficient_evidence``.
    """

    stages: tuple[StageTrace, ...] = ()
    degraded: tuple[str, ...] = ()
    candidates: tuple[tuple[str, int], ...] = ()
    floor: float | None = None
    floor_dropped: int = 0
    best_below_floor: float | None = None
    queries: tuple[str, ...] = ()
    error: str | None = None
    explain: tuple[tuple[str, tuple[tuple[int, float], ...]], ...] = ()
    judged_out: int = 0
    judge: tuple[JudgeRecord, ...] = ()
    best_answer_p: float | None = None
    judge_threshold: float | None = None
    gone: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The answer of ``search``.

    Attributes:
        query: the query as given.
        references: cited chunks, most relevant first (may be empty).
        context: the context block for a model, ending with the answer-only-from-these
            instruction (when the search failed: that it failed, and not to read that as
            missing evidence).
        insufficient_evidence: ``True`` when the search ran and nothing relevant enough was
            found; ``False`` when it failed (``diagnostics.error`` set): a failure says
            nothing about what the documents hold.
        diagnostics: how the search went.
    """

    query: str
    references: tuple[Reference, ...]
    context: str
    insufficient_evidence: bool
    diagnostics: Diagnostics
