"""RAGAS-style faithfulness of an answer to its retrieved context, judged by an LLM.

Following RAGAS (Es et al., "RAGAS: Automated Evaluation of Retrieval Augmented Generation",
EACL 2024 demo track, https://arxiv.org/abs/2309.15217):

1. the judge splits the answer into atomic factual *statements*;
2. for each statement it decides whether the context supports it (a verdict of 1 or 0);
3. ``faithfulness = supported statements / statements``, in [0, 1] (higher is better).

kb's addition: an answer that declines for lack of evidence asserts nothing, so it has no
statement to contradict and scores 1.0 — an honest refusal is never penalised. Unsupported
statements are listed so a release report can show *what* was made up.

Judge replies are parsed tolerantly (``kb.retrieve.jsonreply.json_array``: the longest JSON array
anywhere in the reply, of one verdict per statement where there is one, so code fences, prose
and a wrapping object do not matter; verdicts may be 1/0, true/false or yes/no); a reply that
cannot be parsed raises ``ValueError`` rather than guessing a score. The relevance judges
(``kb.eval.relevance``) share these parsers.
"""

from __future__ import annotations

from dataclasses import dataclass

from kb.backends import LLM
from kb.retrieve.jsonreply import json_array

JUDGE_TIMEOUT_S = 120.0  # evaluation is offline: a slow local judge gets the backends'
# full read timeout (kb.backends.http.READ_TIMEOUT_S)
STATEMENTS_PROMPT = (
    "Break the answer below into short, self-contained factual statements. A sentence that "
    "only says the information is unavailable, or declines to answer, is not a statement. "
    "Reply with a JSON array of strings only ([] when there is none).\n\n"
    "Question: {question}\nAnswer: {answer}"
)
VERDICTS_PROMPT = (
    "For each statement, reply 1 if the context below supports it directly, else 0. Reply "
    "with a JSON array of {n} integers only, in statement order.\n\nContext:\n{context}\n\n"
    "Statements:\n{statements}"
)
YES = frozenset({"1", "yes", "true", "supported", "relevant"})  # verdict words read as 1


@dataclass(frozen=True, slots=True)
class Faithfulness:
    """One judged answer.

    Attributes:
        score: supported statements / statements, in [0, 1]; 1.0 when the answer asserts
            nothing (an honest refusal).
        statements: the statements the judge extracted.
        unsupported: the statements the context does not support.
    """

    score: float
    statements: tuple[str, ...]
    unsupported: tuple[str, ...]


def item_text(value: object) -> str:
    """A listed item as one line of text: a string, or an object's first string value."""
    if isinstance(value, dict):
        value = next((v for v in value.values() if isinstance(v, str)), "")
    return " ".join(str(value).split())  # one line each: the verdict prompt numbers lines


def verdict(value: object) -> bool:
    """A judge's yes/no verdict: 1, ``true``, ``"yes"``... are yes; anything else is no."""
    if isinstance(value, bool | int | float):
        return value == 1
    return str(value).strip().lower() in YES


def judge_verdicts(llm: LLM, prompt: str, n: int, items: str, *, timeout_s: float
                   ) -> tuple[bool, ...]:
    """The judge's yes/no verdict on each of ``n`` numbered ``items`` (``verdict`` per value).

    Raises:
        kb.errors.BackendError: the judge call failed.
        ValueError: the reply holds no JSON array of ``n`` verdicts (the message counts them).
    """
    verdicts = json_array(llm.complete(prompt, timeout_s=timeout_s), length=n,
                          replier="the judge")
    if len(verdicts) != n:
        raise ValueError(f"the judge gave {len(verdicts)} verdicts for {n} {items}")
    return tuple(verdict(v) for v in verdicts)


def judge_faithfulness(llm: LLM, question: str, answer: str, context: str, *,
                       timeout_s: float = JUDGE_TIMEOUT_S) -> Faithfulness:
    """Judge how far ``answer`` is supported by ``context`` (see module docstring).

    Raises:
        kb.errors.BackendError: a judge call failed.
        ValueError: a judge reply could not be parsed, or has the wrong length.
    """
    raw = json_array(llm.complete(STATEMENTS_PROMPT.format(question=question, answer=answer),
                                   timeout_s=timeout_s), replier="the judge")
    statements = tuple(t for t in map(item_text, raw) if t)
    if not statements:
        return Faithfulness(1.0, (), ())
    listed = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(statements))
    supported = judge_verdicts(  # anything but a yes is "not supported"
        llm, VERDICTS_PROMPT.format(n=len(statements), context=context, statements=listed),
        len(statements), "statements", timeout_s=timeout_s)
    unsupported = tuple(s for s, ok in zip(statements, supported, strict=True) if not ok)
    return Faithfulness(sum(supported) / len(statements), statements, unsupported)


__all__ = ["Faithfulness", "item_text", "json_array", "judge_faithfulness", "judge_verdicts",
           "verdict"]
