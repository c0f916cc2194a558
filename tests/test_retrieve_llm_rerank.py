import json
import re

import pytest
from conftest import write

from kb.api import KnowledgeBase
from kb.config import Config
from retrieve.llm_rerank import parse_grades


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
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none"), llm=llm) as kb:
        kb.ingest([tmp_path / "d"])
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
