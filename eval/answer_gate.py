"""The faithfulness gate (DESIGN 7.3): answer a set's questions with the LLM, judge each answer.

It runs on sets with answerable and unanswerable questions (those with ``distractors.tsv``,
e.g. ``precision``). For each question (all of them, or ``limit`` chosen by
``pick_questions``):

1. **Search** with the set's engines as ``kb ask`` does (``top_k`` = ``kb.config.TOP_K``),
   decay off at ``kb.eval.retrieval.FIXED_TIME``.
2. **Answer** (``kb.answer.answer_question``): kb refuses without calling the model when the
   evidence is insufficient.
3. **Judge**:

   * faithfulness (``kb.eval.faithfulness``) against the text of the references the model was
     given. kb's refusal asserts nothing and scores 1.0 without a judge call; a reply in which
     the judge finds no statement (the model declined in its own words) also scores 1.0. Both
     count as *refusals*.
   * answer relevance and context relevance (``kb.eval.relevance``) for the answers that are not
     refusals; answer relevance needs an embedder (a BM25-only index leaves it unscored).

Per set, ``metrics`` holds the mean of each score over the questions it was scored on (a score
with no scored question is absent, so a gate on it fails as "not measured"), ``refusals`` and
``errors``: questions whose answer or judgement failed (a backend error, an unparseable judge
reply); they are listed with the reason and left out of the means.

Every model call, answers and judgements alike, goes through the set index's ``llm_cache``
(keyed by model id and prompt), so a rerun is deterministic and costs no model time. The key
does not hold the server's URL: after changing the model behind a name, clear the eval cache
(``$KB_CACHE_DIR/eval``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from kb.answer import answer_question
from kb.api import KnowledgeBase
from kb.backends import LLM
from kb.config import TOP_K, PipelineSettings, SearchOptions
from kb.errors import KbError
from kb.eval.datasets import Query, load_qrels, load_queries
from kb.eval.faithfulness import judge_faithfulness
from kb.eval.relevance import QueryEmbedder, judge_answer_relevance, judge_context_relevance
from kb.eval.retrieval import FIXED_TIME, engines_for
from kb.retrieve.pipeline import search as run_search
from kb.store.llm_cache import CachedLLM
from kb.types import ProgressFn, Reference, SearchResult

SCORES = ("faithfulness", "answer_relevance", "context_relevance")  # means reported per set



@dataclass(frozen=True, slots=True)
class AnswerGateConfig:
    """What the faithfulness gate runs with.

    Attributes:
        judge: the judge model, or ``None`` to judge with the knowledge base's own LLM.
        limit: judge at most this many questions per set (see ``pick_questions``), or all.
        ragas: judge with the ``ragas`` package's own metrics (``kb.eval.ragas_judge``) at this
            OpenAI-compatible endpoint, as ``(base_url, model, api_key)``, instead of kb's
            judges; ``judge`` is then unused.
    """

    judge: LLM | None = None
    limit: int | None = None
    ragas: tuple[str, str, str | None] | None = None


@dataclass(frozen=True, slots=True)
class JudgedAnswer:
    """One question, its answer and the judgements.

    Attributes:
        query_id: the question's id in the set.
        question: the question.
        answerable: the set has a relevant document for it.
        answer: the answer text (kb's refusal text when kb refused; empty when answering
            failed).
        refused: the answer asserts nothing: kb refused, or the judge found no statement.
        references: references handed to the model (0 when kb refused).
        faithfulness: in [0, 1], ``None`` when the judgement failed.
        statements: the statements the judge extracted.
        unsupported: the statements the references do not support.
        answer_relevance: see ``kb.eval.relevance``; ``None`` for refusals, without an embedder,
            or when the judgement failed.
        context_relevance: in [0, 1]; ``None`` for refusals or when the judgement failed.
        error: why answering or judging failed, else ``None``.
    """

    query_id: str
    question: str
    answerable: bool
    answer: str
    refused: bool
    references: int
    faithfulness: float | None
    statements: tuple[str, ...] = ()
    unsupported: tuple[str, ...] = ()
    answer_relevance: float | None = None
    context_relevance: float | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class AnswerGateReport:
    """The faithfulness gate on one set.

    Attributes:
        answerer: the model that answered (``model_id``).
        judge: the model that judged.
        available: questions in the set (answerable, unanswerable).
        items: the judged questions, in set order.
        metrics: ``faithfulness``, ``answer_relevance``, ``context_relevance`` (means, when
            scored on at least one question), ``refusals`` and ``errors`` (counts); the names
            ``gates.toml``'s ``[faithfulness]`` table uses.
        notes: why a score was not measured (e.g. no embedder for answer relevance).
    """

    answerer: str
    judge: str
    available: tuple[int, int]
    items: tuple[JudgedAnswer, ...]
    metrics: dict[str, float]
    notes: tuple[str, ...] = field(default=())

    def refused(self) -> tuple[int, int]:
        """Refusals among the (answerable, unanswerable) questions judged."""
        return (sum(i.refused for i in self.items if i.answerable),
                sum(i.refused for i in self.items if not i.answerable))


def pick_questions(queries: Sequence[Query], answerable: set[str],
                   limit: int | None) -> list[Query]:
    """The questions to judge: all, or ``limit`` of them spread over the set.

    Answerable and unanswerable questions are picked in proportion to their counts (at least
    one unanswerable when the set has one and ``limit`` >= 2), each evenly spaced through the
    set's order, so a small limit still covers several topics and both kinds.

    Returns:
        The chosen questions in set order.

    Raises:
        ValueError: ``limit`` is below 1.
    """
    if limit is None or limit >= len(queries):
        return list(queries)
    if limit < 1:
        raise ValueError("the faithfulness limit must be at least 1")
    yes = [q for q in queries if q._id in answerable]
    no = [q for q in queries if q._id not in answerable]
    n_no = min(len(no), max(1 if no and limit >= 2 else 0, round(limit * len(no) / len(queries))))
    n_yes = min(len(yes), limit - n_no)
    n_no = min(len(no), limit - n_yes)
    chosen = {q._id for q in _spread(yes, n_yes) + _spread(no, n_no)}
    return [q for q in queries if q._id in chosen]


def judge_answers(kb: KnowledgeBase, dataset_queries: Sequence[Query], answerable: set[str], *,
                  settings: PipelineSettings, config: AnswerGateConfig,
                  on_progress: ProgressFn | None = None, label: str = "answers"
                  ) -> AnswerGateReport:
    """Answer and judge the chosen questions (steps 1-3 of the module docstring).

    Args:
        kb: the set's open index, with the LLM that answers (``kb.llm``).
        dataset_queries: the set's questions.
        answerable: ids of the questions that have a relevant document.
        settings: the pipeline configuration searched with.
        config: the judge and the question limit.
        on_progress: called with ``(label, done, total)`` after each question.
        label: the progress label.

    Returns:
        The set's report.

    Raises:
        ValueError: ``kb`` has no LLM, or the limit is below 1.
    """
    if kb.llm is None:
        raise ValueError("the faithfulness gate needs an LLM to answer with")
    answerer = CachedLLM(kb.store, kb.llm)
    judge = CachedLLM(kb.store, config.judge or kb.llm)
    engines = engines_for(kb, settings)
    service, problem = engines.embedding, engines.embedding_problem
    chosen = pick_questions(dataset_queries, answerable, config.limit)
    items = []
    for done, q in enumerate(chosen, 1):
        result = run_search(kb.store, q.text, SearchOptions(top_k=TOP_K, decay=False),
                            engines=engines, now=FIXED_TIME)
        items.append(_judge_one(q, q._id in answerable, result, answerer, judge, service,
                                config.ragas))
        if on_progress:
            on_progress(label, done, len(chosen))
    notes = () if service is not None else (
        f"answer relevance not measured: it needs an embedder ({problem or 'none configured'})",)
    n_yes = sum(q._id in answerable for q in dataset_queries)
    judge_id = judge.model_id if config.ragas is None else f"ragas:{config.ragas[1]}"
    return AnswerGateReport(answerer.model_id, judge_id,
                            (n_yes, len(dataset_queries) - n_yes), tuple(items),
                            summarise(items), notes)


def judge_dataset(kb: KnowledgeBase, dataset: Path, *, settings: PipelineSettings,
                  config: AnswerGateConfig, on_progress: ProgressFn | None = None
                  ) -> AnswerGateReport:
    """``judge_answers`` over a set's directory: its queries, answerable by its qrels.

    Raises:
        FileNotFoundError: the set lacks its queries or qrels.
        ValueError: as ``judge_answers``.
    """
    answerable = {qid for qid, docs in load_qrels(dataset).items()
                  if any(g > 0 for g in docs.values())}
    return judge_answers(kb, load_queries(dataset, searchable=True), answerable, settings=settings,
                         config=config, on_progress=on_progress, label=f"{dataset.name} answers")


def summarise(items: Sequence[JudgedAnswer]) -> dict[str, float]:
    """The set's metrics from its judged questions (see ``AnswerGateReport.metrics``)."""
    metrics: dict[str, float] = {}
    for name in SCORES:
        values = [v for v in (getattr(i, name) for i in items) if v is not None]
        if values:
            metrics[name] = sum(values) / len(values)
    metrics["refusals"] = float(sum(i.refused for i in items))
    metrics["errors"] = float(sum(i.error is not None for i in items))
    return metrics


def references_text(references: Sequence[Reference]) -> str:
    """The references as the faithfulness judge reads them: ``[n] title`` then the text."""
    return "\n\n".join(f"[{r.number}] {r.title}\n{r.text}" for r in references)


def _judge_one(q: Query, answerable: bool, result: SearchResult, answerer: LLM, judge: LLM,
               embedder: QueryEmbedder | None,
               ragas: tuple[str, str, str | None] | None = None) -> JudgedAnswer:
    item = JudgedAnswer(q._id, q.text, answerable, "", False, 0, None)
    try:
        answer = answer_question(answerer, result)
    except (KbError, ValueError) as exc:
        return replace(item, error=f"answering failed: {exc}")
    if answer.refused:
        return replace(item, answer=answer.text, refused=True, faithfulness=1.0)
    item = replace(item, answer=answer.text, references=len(answer.references))
    if ragas is not None:
        return _judge_with_ragas(item, answer.text, answer.references, embedder, ragas)
    try:
        faith = judge_faithfulness(judge, q.text, answer.text,
                                   references_text(answer.references))
        if not faith.statements:  # the model declined in its own words
            return replace(item, refused=True, faithfulness=1.0)
        answer_rel = None if embedder is None else judge_answer_relevance(
            judge, embedder, q.text, answer.text).score
        context_rel = judge_context_relevance(
            judge, q.text, [r.text for r in answer.references]).score
    except (KbError, ValueError) as exc:
        return replace(item, error=f"judging failed: {exc}")
    return replace(item, faithfulness=faith.score, statements=faith.statements,
                   unsupported=faith.unsupported, answer_relevance=answer_rel,
                   context_relevance=context_rel)


def _judge_with_ragas(item: JudgedAnswer, answer: str, references: Sequence[Reference],
                      embedder: QueryEmbedder | None,
                      ragas: tuple[str, str, str | None]) -> JudgedAnswer:
    """Judge one answer with ragas' own metrics (the optional ``ragas`` extra)."""
    from kb.eval.ragas_judge import ragas_scores

    base_url, model, api_key = ragas
    embedding = getattr(embedder, "embedder", None)  # the service's Embedder
    if embedding is None:
        return replace(item, error="judging failed: the ragas judge needs an embedder "
                                   "(answer relevance)")
    try:
        (scores,) = ragas_scores([(item.question, answer, [r.text for r in references])],
                                 base_url=base_url, model=model, embedder=embedding,
                                 api_key=api_key)
    except (KbError, ValueError) as exc:
        return replace(item, error=f"judging failed: {exc}")
    if not scores.statements:  # the model declined in its own words
        return replace(item, refused=True, faithfulness=1.0)
    if scores.faithfulness is None or scores.context_relevance is None:
        return replace(item, error="judging failed: ragas returned no verdict "
                                   "(faithfulness or context relevance)")
    return replace(item, faithfulness=scores.faithfulness, statements=scores.statements,
                   unsupported=scores.unsupported, answer_relevance=scores.answer_relevance,
                   context_relevance=scores.context_relevance)


def _spread(items: Sequence[Query], n: int) -> list[Query]:
    return [items[i * len(items) // n] for i in range(n)] if n else []
