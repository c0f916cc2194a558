"""Query-time LLM stages: the helper cap is a setting, and unusable replies are not cached."""

import json
import re

from conftest import write

from kb.api import KnowledgeBase
from kb.config import HELPER_TIMEOUT_S, Config, PipelineSettings


class RecordingLLM:
    """Records each call's timeout; replies from a script, then with usable JSON."""

    model_id = "scripted:recorder"

    def __init__(self, script=()):
        self.timeouts, self.prompts, self.script = [], [], list(script)

    def complete(self, prompt, *, timeout_s):
        self.timeouts.append(timeout_s)
        self.prompts.append(prompt)
        if self.script:
            return self.script.pop(0)
        if prompt.startswith("Rewrite the search query"):
            return json.dumps({"paraphrases": ["box kite inventor"], "passage": "Hargrave."})
        n = len(re.findall(r"^\[\d+\] ", prompt, flags=re.M))
        return json.dumps([9] * n)


def _kb(tmp_path, llm, **config):
    write(tmp_path / "d" / "kites.txt", "Lawrence Hargrave invented the box kite in 1893.")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as plain:
        plain.ingest([tmp_path / "d"])
    return KnowledgeBase(tmp_path / "kb.db", Config(embedder="none", **config), llm=llm)


def test_the_helper_cap_defaults_to_design_and_is_a_setting(tmp_path):
    llm = RecordingLLM()
    with _kb(tmp_path, llm) as kb:
        kb.search("who invented the box kite", decay=False)
    assert llm.timeouts == [HELPER_TIMEOUT_S, HELPER_TIMEOUT_S] == [2.5, 2.5]
    slow = RecordingLLM()
    with _kb(tmp_path / "slow", slow, pipeline=PipelineSettings(helper_timeout_s=30.0)) as kb:
        kb.search("who invented the box kite", decay=False)
    assert slow.timeouts == [30.0, 30.0]  # expansion and LLM rerank both get the cap


def test_unusable_replies_are_reported_and_asked_again_next_time(tmp_path):
    garbled = "Sure! Here are some ideas: kites, wind, and more."
    llm = RecordingLLM(script=[garbled, "[1, 2"])  # no JSON object; a broken grade array
    with _kb(tmp_path, llm) as kb:
        first = kb.search("who invented the box kite", decay=False)
        assert any("no usable paraphrase or passage" in d for d in first.diagnostics.degraded)
        assert any("LLM reranker failed" in d for d in first.diagnostics.degraded)
        assert first.references  # the search itself is unharmed
        second = kb.search("who invented the box kite", decay=False)
    # neither unusable reply was cached: the second search asked the model again, and this
    # time both stages worked (expansion added queries, the grades were read)
    assert len(llm.prompts) == 4
    assert len(second.diagnostics.queries) > 1
    assert not any("LLM" in d for d in second.diagnostics.degraded)


def test_an_unusable_reply_cached_earlier_is_asked_again(tmp_path):
    from kb.retrieve.expand import PROMPT
    from kb.store.llm_cache import cache_key

    llm = RecordingLLM()
    with _kb(tmp_path, llm) as kb:
        query = "who invented the box kite"
        key = cache_key(llm.model_id, PROMPT.format(query=query))
        with kb.store.write() as c:  # as an older kb stored it, before replies were checked
            c.execute("INSERT INTO llm_cache(key, model, completion, created_at) "
                      "VALUES (?, ?, 'no JSON here', '2026-01-01')", (key, llm.model_id))
        result = kb.search(query, decay=False)
    assert any(p.startswith("Rewrite the search query") for p in llm.prompts)
    assert len(result.diagnostics.queries) > 1


def test_a_helper_cap_above_the_read_timeout_is_not_cut_to_it(tmp_path):
    with KnowledgeBase(tmp_path / "kb.db", Config(
            embedder="none", llm="openai:http://127.0.0.1:9/v1#m",
            pipeline=PipelineSettings(helper_timeout_s=240.0))) as kb:
        assert kb.llm is not None and kb.llm.timeouts.read_s == 240.0
