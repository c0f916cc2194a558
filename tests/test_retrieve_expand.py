"""Stage 1, query expansion with an LLM (a small deterministic double of the LLM protocol)."""

import json

import pytest
from conftest import write

from kb.api import KnowledgeBase
from kb.backends import LLM
from kb.config import HELPER_TIMEOUT_S, MAX_QUERIES, Config
from kb.errors import BackendError
from kb.retrieve.expand import expand_queries, parse_expansion
from kb.store import Store
from kb.store.llm_cache import CachedLLM


class ScriptedLLM:
    """Answers every prompt with the same JSON expansion; records each call."""

    def __init__(self, paraphrases, passage=None, *, model_id="scripted:expander-v1"):
        self.model_id = model_id
        self.reply = json.dumps({"paraphrases": paraphrases, "passage": passage})
        self.calls = []

    def complete(self, prompt, *, timeout_s):
        self.calls.append((prompt, timeout_s))
        return self.reply


class FailingLLM:
    """A model server that is down."""

    model_id = "scripted:down"

    def __init__(self):
        self.calls = 0

    def complete(self, prompt, *, timeout_s):
        self.calls += 1
        raise BackendError("connection refused", backend="scripted")


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "kb.db")
    yield s
    s.close()


def test_the_doubles_satisfy_the_protocol():
    assert isinstance(ScriptedLLM([]), LLM) and isinstance(FailingLLM(), LLM)


def test_original_query_first_then_paraphrases_then_passage(store):
    llm = ScriptedLLM(["box kite inventor", "first box kite", "Hargrave kite"],
                      "Lawrence Hargrave invented the box kite in 1893.")
    queries = expand_queries(CachedLLM(store, llm), "who invented box kites?")
    assert queries == ["who invented box kites?", "box kite inventor", "first box kite",
                       "Hargrave kite", "Lawrence Hargrave invented the box kite in 1893."]
    assert len(queries) == MAX_QUERIES == 5
    (prompt, timeout_s), = llm.calls
    assert "who invented box kites?" in prompt and timeout_s == HELPER_TIMEOUT_S


def test_never_more_than_five_queries(store):
    llm = ScriptedLLM([f"paraphrase number {i}" for i in range(8)], "a passage")
    queries = expand_queries(CachedLLM(store, llm), "original")
    assert len(queries) == 5
    assert queries[0] == "original" and queries[-1] == "a passage"


def test_duplicates_and_the_original_are_removed(store):
    llm = ScriptedLLM(["  WHO INVENTED BOX KITES? ", "box kite inventor", " Box Kite Inventor "],
                      "box kite INVENTOR")
    assert expand_queries(CachedLLM(store, llm), "who invented box kites?") == [
        "who invented box kites?", "box kite inventor"]
    assert expand_queries(CachedLLM(store, ScriptedLLM(["", "   "], "")), "q") == ["q"]


def test_completions_are_cached_in_llm_cache(store):
    llm = ScriptedLLM(["box kite inventor"], "Hargrave.")
    first = expand_queries(CachedLLM(store, llm), "who invented box kites")
    second = expand_queries(CachedLLM(store, llm), "who invented box kites")
    assert first == second and len(llm.calls) == 1
    rows = store.conn.execute("SELECT model, completion FROM llm_cache").fetchall()
    assert rows == [("scripted:expander-v1", llm.reply)]


def test_cache_survives_reopen_and_is_keyed_by_model_and_prompt(store, tmp_path):
    expand_queries(CachedLLM(store, ScriptedLLM(["box kite inventor"], "Hargrave.")), "box kites")
    reopened = Store(tmp_path / "kb.db")
    try:
        same_model = ScriptedLLM(["something else entirely"], "other")
        assert expand_queries(CachedLLM(reopened, same_model), "box kites") == [
            "box kites", "box kite inventor", "Hargrave."]
        assert same_model.calls == []
        other_model = ScriptedLLM(["kite pioneer"], None, model_id="scripted:other")
        assert expand_queries(CachedLLM(reopened, other_model), "box kites") == [
            "box kites", "kite pioneer"]
        assert len(other_model.calls) == 1
        expand_queries(CachedLLM(reopened, same_model), "another query")
        assert len(same_model.calls) == 1
    finally:
        reopened.close()


def test_a_failing_llm_yields_the_original_query_alone(store):
    llm = CachedLLM(store, failing := FailingLLM())
    assert expand_queries(llm, "who invented box kites") == ["who invented box kites"]
    assert expand_queries(llm, "who invented box kites") == ["who invented box kites"]
    assert failing.calls == 2  # a failure is not cached
    assert store.conn.execute("SELECT count(*) FROM llm_cache").fetchone()[0] == 0


@pytest.mark.parametrize(("reply", "expected"), [
    ("not json at all", []),
    ('{"paraphrases": "not a list"', []),
    ('```json\n{"paraphrases": ["a", "b"], "passage": "p"}\n```', ["a", "b", "p"]),
    ('Sure! {"paraphrases": ["a", 3, null], "passage": 7}', ["a"]),
    ('{"passage": "only a passage"}', ["only a passage"]),
])
def test_parse_expansion_is_tolerant(reply, expected):
    assert parse_expansion(reply) == expected


@pytest.fixture
def kites_folder(tmp_path):
    folder = tmp_path / "docs"
    write(folder / "kites.md", "# Kites\n\nBox kites were invented by Lawrence Hargrave in 1893."
          "\n")
    write(folder / "bees.txt", "Honey bees cluster in winter to keep the queen warm.")
    return folder


def test_pipeline_searches_every_expanded_query_and_reports_them(tmp_path, kites_folder):
    llm = ScriptedLLM(["Lawrence Hargrave"], "Hargrave built the first box kite in 1893.")
    db = tmp_path / "kb.db"
    with KnowledgeBase(db, Config(embedder="none")) as plain:
        plain.ingest([kites_folder])
        assert plain.search("zyzzyva quokka").references == ()  # no word of it is indexed
    with KnowledgeBase(db, Config(embedder="none"), llm=llm) as kb:
        result = kb.search("zyzzyva quokka")
    diag = result.diagnostics
    assert diag.queries == ("zyzzyva quokka", "Lawrence Hargrave",
                            "Hargrave built the first box kite in 1893.")
    assert [n for n, _ in diag.candidates] == ["bm25:0", "bm25:1", "bm25:2"]
    assert dict(diag.candidates)["bm25:0"] == 0 and dict(diag.candidates)["bm25:1"] == 1
    assert {s.stage: s.status for s in diag.stages}["expand"] == "ran"
    assert [r.title for r in result.references] == ["Kites"]  # found through the expansion
    expansions = [p for p, _ in llm.calls if p.startswith("Rewrite the search query")]
    assert len(expansions) == 1
    # the same model was then asked to grade passages; its expansion-shaped reply cannot be
    # parsed as grades, so the pipeline fell back to MMR and said so
    assert any("LLM reranker failed" in d for d in diag.degraded)


def test_pipeline_with_a_failing_llm_searches_the_original_query(tmp_path, kites_folder):
    llm = FailingLLM()
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([kites_folder])  # without the LLM: only the search's calls are counted
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none"), llm=llm) as kb:
        result = kb.search("who invented box kites")
    assert result.diagnostics.queries == ("who invented box kites",)
    assert [n for n, _ in result.diagnostics.candidates] == ["bm25:0"]
    assert result.references[0].title == "Kites" and result.diagnostics.error is None
    assert llm.calls == 1
