"""``kb eval --set answerability``: the judge on questions it was never fitted on.

For each part of ``golden/answerability`` (``kb.eval.answerability``) the part's cached index is
built or reused, and every question of its **test** split, plus nonsense, stop-word and
off-topic questions made for the test side (``synthetic_items``), runs through the full
search (default settings, no LLM, ``top_k`` 5, decay off). Per part, over the near-topic
questions (answerable, or written to look answerable):

* ``<part>_auc``: the area under the ROC curve of the question's best ``answer_p`` (0 when
  nothing passed the evidence gate) for answerable against unanswerable (Hanley & McNeil
  1982; ties count half);
* ``<part>_refusal_rate``: unanswerable questions answered with ``insufficient_evidence``;
* ``<part>_false_refusal_rate``: answerable ones answered so (lower is better);

and over the synthetic questions of all parts, ``offtopic_refusal_rate``. The figures gate the
judge in ``golden/gates.toml``; ``bench/fit_judge.py`` prints the same split in more detail.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from kb.config import Config, PipelineSettings, SearchOptions
from kb.eval.answerability import PARTS, Item, load_items, part_dir, synthetic_items
from kb.eval.cached_index import IndexInfo, cache_path, open_cached_index
from kb.eval.retrieval import FIXED_TIME, engines_for
from kb.eval.suite import SetReport
from kb.retrieve.pipeline import search


def roc_auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """P(a positive scores above a negative), ties counting half; 0.5 when a side is empty.

    The Mann-Whitney form of the area under the ROC curve (Hanley & McNeil, Radiology 1982).
    """
    if not positives or not negatives:
        return 0.5
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def evaluate_answerability(name: str, folder: Path, cache_dir: Path, *, config: Config,
                           settings: PipelineSettings,
                           on_progress: Callable[[str, int, int], None] | None = None
                           ) -> SetReport:
    """Measure the judge on the test split of every part (see module docstring).

    Args:
        name: the set's name in reports and ``gates.toml``.
        folder: ``golden/answerability``.
        cache_dir: where the parts' indexes are cached.
        config: the backends to measure with (the embedder builds the indexes).
        settings: the pipeline configuration measured.
        on_progress: index-build progress callback.

    Returns:
        The set's report; ``index`` sums the parts' indexes.
    """
    metrics: dict[str, float] = {}
    items_by_part = {p: load_items(p) for p in PARTS}
    offtopic: list[bool] = []
    times: list[float] = []
    notes: dict[str, None] = {}
    infos: list[IndexInfo] = []
    questions = 0
    for part in PARTS:
        directory = part_dir(part)
        kb, info = open_cached_index(directory, cache_path(cache_dir, f"{name}-{part}",
                                                           directory, config.embedder),
                                     config, on_progress=on_progress)
        infos.append(info)
        try:
            engines = engines_for(kb, settings)
            test = [it for it in items_by_part[part] if it.split == "test"]
            synthetic = synthetic_items(part, items_by_part, split="test")
            outcomes: list[tuple[Item, bool, float]] = []
            for item in [*test, *synthetic]:
                start = time.perf_counter()
                result = search(kb.store, item.text, SearchOptions(decay=False),
                                engines=engines, now=FIXED_TIME)
                times.append((time.perf_counter() - start) * 1e3)
                notes.update(dict.fromkeys(result.diagnostics.degraded))
                best = result.diagnostics.best_answer_p or 0.0
                outcomes.append((item, result.insufficient_evidence, best))
        finally:
            kb.close()
        questions += len(test)
        real = outcomes[:len(test)]
        offtopic += [refused for _, refused, _ in outcomes[len(test):]]
        answerable = [(refused, p) for it, refused, p in real if it.answerable]
        unanswerable = [(refused, p) for it, refused, p in real if not it.answerable]
        metrics[f"{part}_auc"] = roc_auc([p for _, p in answerable],
                                         [p for _, p in unanswerable])
        metrics[f"{part}_refusal_rate"] = _share(r for r, _ in unanswerable)
        metrics[f"{part}_false_refusal_rate"] = _share(r for r, _ in answerable)
    metrics["offtopic_refusal_rate"] = _share(offtopic)
    if times:
        metrics["search_p50_ms"] = statistics.median(times)
    index = IndexInfo(str(cache_dir), sum(i.documents for i in infos),
                      sum(i.chunks for i in infos), sum(i.vectors for i in infos),
                      sum(i.vectors_embedded for i in infos), any(i.rebuilt for i in infos))
    return SetReport(name, str(folder), questions, None, metrics, {}, tuple(notes), index)


def _share(flags: Iterable[bool]) -> float:
    values = list(flags)
    return sum(values) / len(values) if values else 0.0
