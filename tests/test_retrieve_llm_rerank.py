import json
import re

import pytest
from conftest import write

from kb.api import KnowledgeBase
from kb.config import Config
from kb.retrieve.llm_rerank import parse_grades


class GradingLLM:
    """Expands to nothing and grades the passage mentioning 'basalt' 10, everything else 1."""

    model_id = "scripted:grader-v1"

    def __init__(self):
        self.calls = 0

    def complete(self, prompt, *, timeout_s):
        self.calls += 1
        if prompt.startswith("Rewrite the search query"):
            return json.dumps({"paraphrases": []})
        passages = re.findall(r"^\[(\d+)\] (.*)$", prompt, flags=re.M)
        return json.dumps([10 if "basalt" in text else 1 for _, text in passages])


def test_llm_grades_reorder_the_candidates(tmp_path):
    write(tmp_path / "d" / "a.txt", "Volcano lava: rhyolite lava is viscous and explosive.")
    write(tmp_path / "d" / "b.txt", "Volcano lava: basalt lava is fluid and flows far.")
    llm = GradingLLM()
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([tmp_path / "d"])  # without the LLM: only the search's calls are counted
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none"), llm=llm) as kb:
        result = kb.search("volcano lava", decay=False, top_k=2)
    assert result.references[0].source.endswith("b.txt")
    assert {s.stage: s.status for s in result.diagnostics.stages}["rerank"] == "ran"
    assert not any("rerank" in d for d in result.diagnostics.degraded)
    assert llm.calls == 2  # one expansion, one batched grading call


def test_parse_grades_maps_to_unit_range_and_rejects_bad_replies():
    assert parse_grades("Sure: [10, 5, 0]", 3) == [1.0, 0.5, 0.0]
    with pytest.raises(ValueError):
        parse_grades("[1, 2]", 3)
    with pytest.raises(ValueError):
        parse_grades("no array here", 1)


class FlatGrader(GradingLLM):
    """Grades every passage the same (a judge that finds nothing answering the question)."""

    def __init__(self, grade):
        super().__init__()
        self.grade = grade

    def complete(self, prompt, *, timeout_s):
        self.calls += 1
        if prompt.startswith("Rewrite the search query"):
            return json.dumps({"paraphrases": []})
        return json.dumps([self.grade] * len(re.findall(r"^\[\d+\] ", prompt, flags=re.M)))


class ScriptedCrossEncoder:
    """A Reranker scoring passages that mention 'basalt' 0.9 and the rest 0.2."""

    model_id = "scripted:cross-encoder"

    def score(self, query, passages):
        return [0.9 if "basalt" in p else 0.2 for p in passages]


def _lava_kb(tmp_path, **kwargs):
    write(tmp_path / "d" / "a.txt", "Volcano lava: rhyolite lava is viscous and explosive.")
    write(tmp_path / "d" / "b.txt", "Volcano lava: basalt lava is fluid and flows far.")
    write(tmp_path / "d" / "c.txt", "Volcano lava: andesite lava is intermediate.")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as plain:
        plain.ingest([tmp_path / "d"])  # the judge only sees the search
    return KnowledgeBase(tmp_path / "kb.db", Config(embedder="none"), **kwargs)


@pytest.mark.parametrize("judge", [{"llm": GradingLLM()}, {"reranker": ScriptedCrossEncoder()}])
def test_a_judging_reranker_keeps_what_it_rejects_out_of_the_references(tmp_path, judge):
    with _lava_kb(tmp_path, **judge) as kb:
        result = kb.search("volcano lava", decay=False, top_k=3)
    assert [r.source.rsplit("/", 1)[-1] for r in result.references] == ["b.txt"]
    assert not result.insufficient_evidence
    assert result.diagnostics.judged_out == 2


@pytest.mark.parametrize("judge", [{"llm": FlatGrader(1)},
                                   {"reranker": type("Low", (ScriptedCrossEncoder,), {
                                       "score": lambda self, q, ps: [0.1] * len(ps)})()}])
def test_when_the_judge_rejects_everything_the_result_says_insufficient(tmp_path, judge):
    with _lava_kb(tmp_path, **judge) as kb:
        result = kb.search("volcano lava", decay=False, top_k=5)
    assert result.insufficient_evidence
    assert result.references and all(r.weak_evidence for r in result.references)
    assert len(result.references) <= 3
    assert result.diagnostics.judged_out == 3
    from kb.retrieve.cite import WEAK_NOTE

    assert WEAK_NOTE in result.context


def test_the_judge_cut_can_be_switched_off(tmp_path):
    from dataclasses import replace

    from kb.config import PipelineSettings, SearchOptions
    from kb.retrieve.pipeline import Engines, search

    with _lava_kb(tmp_path, llm=FlatGrader(1)) as kb:
        engines = Engines(llm=kb.llm, settings=replace(PipelineSettings(), rerank_min_score=0.0))
        result = search(kb.store, "volcano lava", SearchOptions(top_k=5, decay=False),
                        engines=engines)
    assert len(result.references) == 3 and not result.insufficient_evidence
    assert result.diagnostics.judged_out == 0
