"""The judge's plain data (``kb.retrieve.judge`` computes the verdicts).

A candidate as the judge sees it, the index statistics it reads, and its verdict with the
signals behind it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kb.retrieve.answer_types import AnswerType


@dataclass(frozen=True, slots=True)
class Passage:
    """One candidate as the judge sees it (plain data gathered by the orchestrator).

    Attributes:
        chunk_id: the chunk.
        doc_id: its document.
        text: the chunk text (as cited; a continued table's header row and rule before it).
        context: its document's title and heading path (no LLM situating sentence).
        cosine: best raw cosine to the query over the vector lists, or ``None``.
        vector: vector s_norm in [0, 1] (cosine above the query's baseline).
        keyword: keyword s_norm in [0, 1] (BM25 share of the query's idf).
        fused: fused score before time decay, >= 0.
        source: its document's file path or URI (its folders may name its subject), or "".
    """

    chunk_id: int
    doc_id: int
    text: str
    context: str
    cosine: float | None
    vector: float
    keyword: float
    fused: float
    source: str = ""


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What the judge reads about the index.

    Attributes:
        n_chunks: chunks in the index.
        df: index token -> chunks holding it (for the query terms' tokens and translations).
        doc_chunks: document id -> its number of chunks (for the documents judged).
        doc_term_chunks: (document id, term text) -> chunks of that document holding the term.
        complete: ``df`` was read (``False`` when FTS5 failed: then no term is known absent).
    """

    n_chunks: int
    df: Mapping[str, int]
    doc_chunks: Mapping[int, int]
    doc_term_chunks: Mapping[tuple[int, str], int]
    complete: bool = True


@dataclass(frozen=True, slots=True)
class Signals:
    """Why a passage got its ``answer_p`` (diagnostics; see module docstring).

    Attributes:
        focus_found: focus terms the passage holds (as the query wrote them).
        focus_missing: focus terms it lacks.
        topic: the question's terms its document is about (as the query wrote them): in
            neither ``focus_found`` nor ``focus_missing``.
        best_sentence: the sentence covering the most focus weight (``best_sentence``; for
            a passage failing the gate, its first sentence that is no heading).
        answer_type: the type the question asks for (``other``: none checkable).
        type_found: a filler of that type near the best sentence, if any.
        gate: the passage passed the evidence gate.
        features: feature name -> value, as the model saw them: shares in [0, 1] except
            ``focus_missing`` (idf mass over the log of the index size, >= 0), ``cosine_rel``
            (a cosine difference) and the 0/1 flags.
        numbers_missing: the numbers the question names when the passage writes none of
            them (``kb.retrieve.numbers``; then it fails the gate), else empty.
        type_missing: the question asks outright for a date or a number
            (``kb.retrieve.answer_types.gated_type``) and the passage holds none that the
            question does not name (then it fails the gate).
        events_apart: the question asks the date of an event (a birth, a founding, ...) and
            each of the passage's dated sentences tells of one of these others, or of
            another person's birth or death (``kb.retrieve.events``,
            ``kb.retrieve.relatives``; then it fails the gate), else empty.
        dimensions_apart: the same for a length asked in a dimension (depth, height, width)
            where each number in the unit asked measures another.
        subject_apart: the terms other judged documents are about, when the passage is in
            the question's script, its document (nor its path) writes none of them, and its
            title names another or a passage of a document about them passes the judge
            (``kb.retrieve.subject``; then it fails the gate), else empty.
        siblings_apart: each clause holding a date or number asked (or, asking neither, its
            focus) names a sibling of the numbered name asked ("Seahound 3" for the Seahound
            2: ``kb.retrieve.siblings``), the other side of a contrast asked ("first" for
            the last bus: ``kb.retrieve.contrasts``) or another item of a list the passage
            makes (``kb.retrieve.listmates``); then it fails the gate; else empty.
        asked_unnamed: the events (a birth, a founding, ...) and attributes (a headcount, a
            revenue, ...) the question asks of that the passage names in no word
            (``kb.retrieve.events.events_unnamed``, ``kb.retrieve.relations``; then it fails
            the gate; a yes-or-no question's focus names: ``kb.retrieve.relations``; a
            relative named only of someone else: ``kb.retrieve.relatives``), else empty.
        roles_swapped: the verb or role word whose sides the passage swaps ("The Lumo 3
            replaced ..." for "What will replace the Lumo 3?": ``kb.retrieve.roles``; then it
            fails the gate), else empty.
        subject_unwritten: the question's subject terms when the passage is in its script
            and its document, its title and its path write none of them
            (``kb.retrieve.subject.unwritten_subject``), else empty.
        about_subject: the passage's document is about one of the subject terms (its title,
            headings or frequent terms name it).
    """

    focus_found: tuple[str, ...]
    focus_missing: tuple[str, ...]
    topic: tuple[str, ...]
    best_sentence: str
    answer_type: AnswerType
    type_found: str | None
    gate: bool
    features: dict[str, float] = field(default_factory=dict)
    numbers_missing: tuple[str, ...] = ()
    type_missing: bool = False
    events_apart: tuple[str, ...] = ()
    dimensions_apart: tuple[str, ...] = ()
    subject_apart: tuple[str, ...] = ()
    siblings_apart: tuple[str, ...] = ()
    asked_unnamed: tuple[str, ...] = ()
    roles_swapped: tuple[str, ...] = ()
    subject_unwritten: tuple[str, ...] = ()
    about_subject: bool = False


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judge's word on one passage.

    Attributes:
        chunk_id: the chunk.
        answer_p: probability in [0, 1] that it holds the answer (higher is better).
        passed: past the gate and ``answer_p`` at least the threshold.
        signals: the evidence behind it.
    """

    chunk_id: int
    answer_p: float
    passed: bool
    signals: Signals


__all__ = ["IndexStats", "Passage", "Signals", "Verdict"]
