"""RAGAS-style answer relevance and context relevance, judged by an LLM.

Following RAGAS (Es et al., "RAGAS: Automated Evaluation of Retrieval Augmented Generation",
EACL 2024 demo track, https://arxiv.org/abs/2309.15217), section 3:

**Answer relevance** (does the answer address the question asked?). The judge writes ``n``
(default ``N_QUESTIONS`` = 3) questions that the answer answers; with ``E`` the knowledge base's
query embedding and ``q`` the original question::

    AR = 1/n * sum_i cos(E(q), E(q_i))

Higher is better. Its range is that of the embedder's cosine, [-1, 1] in principle, and in
practice a band near the top for most models (multilingual-e5's cosines between unrelated
questions are already about 0.7), so values are comparable only within one embedder. If the
judge writes no question (the answer answers nothing) the score is 0.0, as RAGAS scores a
noncommittal answer. kb's addition: an answer that declines for lack of evidence is not scored
at all (``kb.eval.answer_gate`` leaves it out of the mean) — a refusal is not an answer to weigh;
refusals are counted instead, and faithfulness scores them 1.0.

**Context relevance** (is what retrieval handed the model about the question?). RAGAS extracts
the context sentences needed to answer and divides by the context's sentence count. kb judges
the unit it hands out and cites, the *reference* (a chunk of about 400 characters): the judge
marks each reference 1 if it holds information that helps answer the question, else 0::

    CR = references marked relevant / references

in [0, 1], higher is better. Judging whole references keeps the score comparable with the
precision gate's reference precision, and avoids splitting Chinese and English text into
sentences the same way in both languages. A near-topic distractor that was handed out lowers it.

Replies are parsed with ``kb.retrieve.jsonreply.json_array``; an unparseable reply, or a verdict
list of the wrong length, raises ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from kb.backends import LLM
from kb.eval.faithfulness import JUDGE_TIMEOUT_S, item_text, judge_verdicts
from kb.retrieve.jsonreply import json_array

N_QUESTIONS = 3  # RAGAS: questions generated per answer
PASSAGE_MAX_CHARS = 1500  # a reference is shown to the judge up to this length
QUESTIONS_PROMPT = (
    "Write {n} different questions that the answer below answers, each in the language of the "
    "answer. Reply with a JSON array of strings only ([] when the answer answers nothing)."
    "\n\nAnswer: {answer}"
)
CONTEXT_PROMPT = (
    "For each numbered passage, reply 1 if it contains information that helps answer the "
    "question, else 0 (a passage on the same topic that does not help answer it is 0). Reply "
    "with a JSON array of {n} integers only, in passage order.\n\nQuestion: {question}\n\n"
    "Passages:\n{passages}"
)


class QueryEmbedder(Protocol):
    """Anything that embeds a query: ``kb.backends.Embedder`` or ``EmbeddingService``."""

    def embed_query(self, text: str) -> np.ndarray:
        """One query's vector, shape (dimensions,)."""
        ...


@dataclass(frozen=True, slots=True)
class AnswerRelevance:
    """One answer's relevance to its question.

    Attributes:
        score: mean cosine between the question and the generated questions (see module
            docstring); 0.0 when the judge found nothing the answer answers.
        questions: the questions the judge wrote from the answer.
    """

    score: float
    questions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ContextRelevance:
    """How much of the handed-out context is about the question.

    Attributes:
        score: relevant references / references, in [0, 1].
        relevant: one verdict per reference, in the order given.
    """

    score: float
    relevant: tuple[bool, ...]


def judge_answer_relevance(llm: LLM, embedder: QueryEmbedder, question: str, answer: str, *,
                           n: int = N_QUESTIONS,
                           timeout_s: float = JUDGE_TIMEOUT_S) -> AnswerRelevance:
    """Answer relevance of ``answer`` to ``question`` (see module docstring).

    Args:
        llm: the judge.
        embedder: the knowledge base's embedder; questions are embedded as queries.
        question: the question asked.
        answer: the answer to judge (not a refusal: the caller leaves refusals unscored).
        n: questions to generate; extra ones in the reply are ignored.
        timeout_s: the most one judge call may take.

    Returns:
        The score and the generated questions.

    Raises:
        kb.errors.BackendError: the judge or the embedder failed.
        ValueError: ``n`` is below 1, or the reply holds no JSON array.
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    raw = json_array(llm.complete(QUESTIONS_PROMPT.format(n=n, answer=answer),
                                  timeout_s=timeout_s), replier="the judge")
    questions = tuple(t for t in map(item_text, raw) if t)[:n]
    if not questions:
        return AnswerRelevance(0.0, ())
    target = _unit(embedder.embed_query(question))
    cosines = [float(_unit(embedder.embed_query(q)) @ target) for q in questions]
    return AnswerRelevance(sum(cosines) / len(cosines), questions)


def judge_context_relevance(llm: LLM, question: str, passages: Sequence[str], *,
                            timeout_s: float = JUDGE_TIMEOUT_S) -> ContextRelevance:
    """Context relevance of the references handed out for ``question`` (see module docstring).

    Args:
        llm: the judge.
        question: the question asked.
        passages: the references' texts, in citation order; each is cut to
            ``PASSAGE_MAX_CHARS`` for the judge.
        timeout_s: the most the judge call may take.

    Returns:
        The score and one verdict per passage.

    Raises:
        kb.errors.BackendError: the judge failed.
        ValueError: no passage was given, or the reply holds no JSON array of one verdict per
            passage.
    """
    if not passages:
        raise ValueError("no passage to judge")
    listed = "\n\n".join(f"[{i + 1}] {p[:PASSAGE_MAX_CHARS]}" for i, p in enumerate(passages))
    relevant = judge_verdicts(
        llm, CONTEXT_PROMPT.format(n=len(passages), question=question, passages=listed),
        len(passages), "passages", timeout_s=timeout_s)
    return ContextRelevance(sum(relevant) / len(relevant), relevant)


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64).ravel()
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v
