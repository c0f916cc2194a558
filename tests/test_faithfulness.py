"""The faithfulness judge end to end over the OpenAI chat protocol (an in-process server)."""

import json
import re

from http_doubles import ModelServer

from eval.faithfulness import judge_faithfulness
from kb.backends.registry import make_llm

CONTEXT = ('[1] Kites — kites.md\n"""\n'
           'Lawrence Hargrave built the first box kite in 1893.\n"""')


class JudgeServer(ModelServer):
    """A deterministic judge behind the real protocol: sentences are statements; a statement
    is supported when every word of 4+ letters in it appears in the context."""

    def answer(self, method, path, body):
        if path != "/v1/chat/completions":
            return super().answer(method, path, body)
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("Break the answer"):
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
