"""Answer a question with a chat model from a search result's context block (``kb ask``).

``answer_question`` is a pure function of an LLM and a ``SearchResult``:

1. **Refuse without a model call** when the result has ``insufficient_evidence`` or no
   reference: the answer is ``REFUSAL`` and ``refused`` is true. kb does not ask a model to
   answer from evidence it has itself judged too weak; the weak references, if any, stay on the
   answer (flagged ``weak_evidence``) so a person can still read what came closest.
2. **Otherwise prompt the model** with the result's context block (the numbered, quoted
   references, ending with the instruction to answer only from them, cite them like [1] and
   say so when they are insufficient) and the question. The reply is the answer as given; the
   reference numbers it cites are collected in ``cited``.

A model may still decline in its own words (the context block asks it to when the references
do not hold the answer); ``refused`` stays false then, because telling such a reply from an
answer needs a judge (``kb.eval.faithfulness`` counts a reply without statements as a refusal).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.backends import LLM
from kb.errors import BackendError, SearchFailed
from kb.types import Reference, SearchResult

ANSWER_TIMEOUT_S = 120.0  # a local model writes a paragraph in tens of seconds on a laptop CPU
REFUSAL = ("The knowledge base does not hold enough evidence to answer this question, so no "
           "answer is given.")
PROMPT = (
    "Answer the question at the end from the numbered references below, in the language of the "
    "question, in a few sentences.\n\n{context}\n\nQuestion: {question}"
)
_CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer written from a knowledge base's references, or kb's refusal.

    Attributes:
        question: the question as asked.
        text: the model's answer, or ``REFUSAL``.
        references: the references the model was given, in citation order; when refused, the
            weak references the search returned (each ``weak_evidence``), possibly none.
        cited: the reference numbers the answer cites (``[2]``, ``[1, 3]``), in order of first
            citation, only numbers of ``references``.
        refused: ``True`` when kb declined for lack of evidence without calling the model.
        model: the model that wrote the answer (its ``model_id``), ``None`` when refused.
    """

    question: str
    text: str
    references: tuple[Reference, ...]
    cited: tuple[int, ...]
    refused: bool
    model: str | None


def answer_question(llm: LLM, result: SearchResult, *,
                    timeout_s: float = ANSWER_TIMEOUT_S) -> Answer:
    """Answer ``result.query`` from ``result.context`` (see module docstring).

    Args:
        llm: the chat model; not called when the evidence is insufficient.
        result: a search result for the question.
        timeout_s: the most the model may take to answer.

    Returns:
        The answer, or kb's refusal.

    Raises:
        kb.errors.SearchFailed: the search failed (``result.diagnostics.error``): kb does not
            answer "no evidence" for documents it could not search.
        kb.errors.BackendError: the model failed, timed out, or replied with nothing; the
            message names the backend.
    """
    if result.diagnostics.error:
        raise SearchFailed(result.diagnostics.error)
    if result.insufficient_evidence or not result.references:
        return Answer(result.query, REFUSAL, result.references, (), refused=True, model=None)
    prompt = PROMPT.format(context=result.context, question=result.query)
    try:
        text = llm.complete(prompt, timeout_s=timeout_s).strip()
    except BackendError as exc:
        raise BackendError(f"cannot answer: {exc}", backend=exc.backend or llm.model_id) from exc
    if not text:
        raise BackendError(f"cannot answer: {llm.model_id} replied with an empty answer",
                           backend=llm.model_id)
    numbers = {ref.number for ref in result.references}
    return Answer(result.query, text, result.references, cited_numbers(text, numbers),
                  refused=False, model=llm.model_id)


def cited_numbers(text: str, numbers: set[int]) -> tuple[int, ...]:
    """Reference numbers cited in ``text`` as ``[n]`` or ``[n, m]`` that are in ``numbers``.

    Returns:
        The numbers in order of first citation, without repeats.
    """
    seen: dict[int, None] = {}
    for match in _CITATION.finditer(text):
        for part in match.group(1).split(","):
            n = int(part)
            if n in numbers:
                seen.setdefault(n)
    return tuple(seen)
