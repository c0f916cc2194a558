"""A deterministic judge for ragas 0.4.3's metric prompts, behind the OpenAI chat protocol.

ragas' collections metrics send one user message built by ``BasePrompt.to_string``: the
instruction, the JSON schema of the reply, few-shot examples, then ``input: {json}`` and
``Output: ``. instructor (JSON mode) adds a system message and expects the reply's content to
be a JSON object of that schema. ``RagasJudgeServer`` recognises each prompt by its instruction
and answers it the way an obedient judge would, by rules a test can predict:

* statements: the answer's sentences. When the instruction says a declining sentence is not a
  statement (kb's ``REFUSAL_RULE``), sentences matching ``DECLINES`` are left out.
* verdicts: a statement is supported iff every word of 4+ letters in it occurs in the context.
* answer relevance: the question is the answer's first sentence turned into a question;
  noncommittal iff the answer matches ``DECLINES``.
* context relevance (both judges): 2 when every 4+-letter word of the question occurs in the
  context, 1 when some do, 0 when none does.

Anything else gets HTTP 500 naming the prompt, so a ragas change shows up as a clear failure.
"""

from __future__ import annotations

import json
import re
from typing import Any

from http_doubles import ModelServer

DECLINES = re.compile(r"not (have|hold) enough (information|evidence)|cannot answer", re.I)
_WORD = re.compile(r"[a-z0-9]{4,}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def words(text: str) -> list[str]:
    """Lower-cased words of 4+ letters or digits."""
    return _WORD.findall(text.lower())


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, in order."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def judge(prompt: str) -> dict[str, Any] | None:
    """The reply object for one ragas prompt, or ``None`` when the prompt is not recognised."""
    head = prompt.split("Please return the output", 1)[0]
    data = json.loads(prompt.rsplit("\ninput: ", 1)[1].rsplit("\nOutput:", 1)[0])
    if head.startswith("Given a question and an answer"):
        found = sentences(data["answer"])
        if "declines to answer" in head:
            found = [s for s in found if not DECLINES.search(s)]
        return {"statements": found}
    if head.startswith("Your task is to judge the faithfulness"):
        context = data["context"].lower()
        return {"statements": [
            {"statement": s, "reason": "word overlap with the context",
             "verdict": int(all(w in context for w in words(s)))}
            for s in data["statements"]]}
    if head.startswith("Generate a question for the given answer"):
        response = data["response"]
        first = sentences(response)[0].rstrip(".!?")
        return {"question": f"{first}?", "noncommittal": int(bool(DECLINES.search(response)))}
    if head.startswith(("You are a world class expert designed to evaluate the relevance",
                        "As a specially designed expert to assess the relevance")):
        asked = words(data["user_input"])
        context = data["context"].lower()
        hits = sum(w in context for w in asked)
        rating = 0 if hits == 0 else 2 if hits == len(asked) else 1
        return {"rating": rating}
    return None


class RagasJudgeServer(ModelServer):
    """``ModelServer`` whose ``/v1/chat/completions`` answers ragas' prompts by ``judge``."""

    def __init__(self) -> None:
        super().__init__()
        self.prompts: list[str] = []

    def answer(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        if path != "/v1/chat/completions":
            return super().answer(method, path, body)
        prompt = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
        with self.lock:
            self.prompts.append(prompt)
        reply = judge(prompt)
        if reply is None:
            return 500, {"error": {"message": f"unrecognised prompt: {prompt[:120]!r}"}}
        return 200, {"id": "chatcmpl-ragas", "object": "chat.completion", "created": 0,
                     "model": body["model"],
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant",
                                              "content": json.dumps(reply)}}],
                     "usage": {"prompt_tokens": 0, "completion_tokens": 0,
                               "total_tokens": 0}}
