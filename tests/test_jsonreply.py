"""The one tolerant reader of JSON in model replies (``kb.retrieve.jsonreply``) and its users."""

import json
import re

import pytest
from conftest import write

from kb.api import KnowledgeBase
from kb.config import Config
from kb.eval.faithfulness import judge_faithfulness
from kb.retrieve.expand import parse_expansion
from kb.retrieve.jsonreply import json_array, json_arrays, json_object
from kb.retrieve.llm_rerank import parse_grades

PROSE_THEN_GRADES = "Passage [1] answers it best.\n[9, 2, 0]"


def test_grades_after_prose_that_mentions_a_passage_number():
    assert parse_grades(PROSE_THEN_GRADES, 3) == [0.9, 0.2, 0.0]


@pytest.mark.parametrize(("reply", "expected"), [
    ("```json\n[10, 5, 0]\n```", [1.0, 0.5, 0.0]),
    ('{"grades": [[7, 3, 12]]}', [0.7, 0.3, 1.0]),  # nested: the inner array of 3 numbers
    ("[3] is best: [10, 0, 4] (I re-read [1] and [2])", [1.0, 0.0, 0.4]),
])
def test_grades_are_found_wherever_the_array_of_n_numbers_is(reply, expected):
    assert parse_grades(reply, 3) == expected


@pytest.mark.parametrize(("reply", "message"), [
    ("no array here", "without a JSON array"),
    ("[1, 2]", "returned 2 grades for 3 passages"),
    ('["high", "low", "low"]', "returned 0 grades for 3 passages"),
    ("[true, false, true]", "returned 0 grades for 3 passages"),  # verdicts are not grades
])
def test_replies_without_n_grades_are_errors(reply, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_grades(reply, 3)


def test_json_arrays_lists_nested_arrays_longest_first():
    assert json_arrays('x [1, [2, 3]] y [4]') == [[1, [2, 3]], [2, 3], [4]]
    assert json_arrays("[unclosed, and [not json]") == []


def test_json_array_prefers_an_array_of_the_expected_length():
    reply = '["one long statement about kites"] verdicts: [1, 0]'
    assert json_array(reply) == ["one long statement about kites"]
    assert json_array(reply, length=2) == [1, 0]
    assert json_array(reply, length=5) == ["one long statement about kites"]  # caller checks
    with pytest.raises(ValueError, match="the judge replied without a JSON array"):
        json_array("I would rather not say.", replier="the judge")


def test_json_object_skips_braces_that_are_not_json():
    reply = 'Here {is my answer}: {"paraphrases": ["box kite inventor"], "passage": "Hargrave."}'
    assert json_object(reply) == {"paraphrases": ["box kite inventor"], "passage": "Hargrave."}
    assert parse_expansion(reply) == ["box kite inventor", "Hargrave."]
    assert json_object("no object") is None
    assert parse_expansion('{"paraphrases": "not a list", "passage": "p"}') == ["p"]


class ChattyGrader:
    """An LLM that explains itself before grading: the passage naming basalt gets 9."""

    model_id = "scripted:chatty-grader"

    def complete(self, prompt, *, timeout_s):
        if prompt.startswith("Rewrite the search query"):
            return json.dumps({"paraphrases": []})
        passages = re.findall(r"^\[(\d+)\] (.*)$", prompt, flags=re.M)
        best = next(n for n, text in passages if "basalt" in text)
        grades = [9 if "basalt" in text else 2 for _, text in passages]
        return f"Passage [{best}] answers it best.\n{json.dumps(grades)}"


def test_a_search_whose_judge_writes_prose_is_reranked_not_degraded(tmp_path):
    write(tmp_path / "d" / "a.txt", "Volcano lava: rhyolite lava is viscous and explosive.")
    write(tmp_path / "d" / "b.txt", "Volcano lava: basalt lava is fluid and flows far.")
    write(tmp_path / "d" / "c.txt", "Volcano lava: andesite lava is intermediate.")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as plain:
        plain.ingest([tmp_path / "d"])
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none"), llm=ChattyGrader()) as kb:
        result = kb.search("volcano lava", decay=False, top_k=3)
    assert {s.stage: s.status for s in result.diagnostics.stages}["rerank"] == "ran"
    assert not any("rerank" in d for d in result.diagnostics.degraded)
    assert result.references[0].source.endswith("b.txt")


class ChattyJudge:
    """A faithfulness judge that numbers its statements in prose before each JSON array."""

    model_id = "scripted:chatty-judge"

    def complete(self, prompt, *, timeout_s):
        if prompt.startswith("Break the answer"):
            return 'Statement [1] first: ["Kites fly.", "Hargrave built box kites."]'
        return "Statement [1] is supported, [2] too: [1, 1]"


def test_the_faithfulness_judge_is_read_with_the_same_parser():
    result = judge_faithfulness(ChattyJudge(), "who built box kites?",
                                "Kites fly. Hargrave built box kites.", "context")
    assert result.statements == ("Kites fly.", "Hargrave built box kites.")
    assert result.score == 1.0
