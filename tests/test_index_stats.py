"""The judge's index statistics read ahead (during recall) equal those read after fusion."""

import pytest

from kb.api import KnowledgeBase
from kb.config import ChunkSettings
from kb.eval.retrieval import FIXED_TIME
from kb.ingest.records import ingest_records
from kb.retrieve.indexstats import IndexStatsReader
from kb.retrieve.terms import content_terms

DOCS = {
    "mem://stem": "Stem cells divide quickly. The stem cell cycle is short. Cells renew.",
    "mem://membrane": "A cell membrane holds the cell together. Membranes are lipid layers.",
    "mem://ocean": "Ocean tides follow the moon. Tides rise twice a day on most coasts.",
    "mem://cycle": "The cell cycle has four phases. Stem cells enter it often.",
}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    kb = KnowledgeBase(tmp_path_factory.mktemp("stats") / "kb.db")
    ingest_records(kb.store, [(s, s, text) for s, text in DOCS.items()],
                   chunk=ChunkSettings(target_chars=50, overlap_chars=0), created_at=FIXED_TIME)
    yield kb.store
    kb.close()


def doc_ids(store):
    return {src: d.id for d in store.documents_by_id(range(1, 10)).values()
            for src in [d.source] if src in DOCS}


def test_read_ahead_statistics_are_the_ones_read_afresh(store):
    ids = doc_ids(store)
    terms = content_terms("how fast do stem cells divide in the cell cycle")
    judged = [ids["mem://stem"], ids["mem://cycle"], ids["mem://ocean"]]
    fresh, problem = IndexStatsReader(store).stats(terms, judged)
    assert problem is None
    assert fresh.n_chunks == store.counts_chunks() and fresh.df["cell"] > 0
    assert fresh.doc_chunks[ids["mem://stem"]] >= 2
    assert fresh.doc_term_chunks[(ids["mem://stem"], "stem")] >= 1
    assert (ids["mem://ocean"], "cell") not in fresh.doc_term_chunks
    # ahead: the terms and two documents, one of them judged later, one never judged
    reader = IndexStatsReader(store)
    reader.prefetch(terms, [ids["mem://stem"], ids["mem://membrane"]])
    ahead, problem = reader.stats(terms, judged)
    assert problem is None
    assert ahead == fresh  # the never-judged document's counts are not handed on
    assert ids["mem://membrane"] not in ahead.doc_chunks


def test_other_terms_are_read_afresh(store):
    ids = doc_ids(store)
    docs = list(ids.values())
    reader = IndexStatsReader(store)
    reader.prefetch(content_terms("stem cells"), docs)
    tides = content_terms("when do ocean tides rise")
    assert reader.stats(tides, docs) == IndexStatsReader(store).stats(tides, docs)
    assert reader.stats(tides, docs)[0].doc_term_chunks[(ids["mem://ocean"], "tide")] >= 1


def test_token_counts_are_the_vocabularys_and_omit_absent_tokens(store):
    reader = IndexStatsReader(store)
    tokens = ["cell", "stem", "zzzabsent", "tide", "cell"]
    want = store.token_chunk_counts(tokens)
    assert "zzzabsent" not in want and want["cell"] >= 3
    assert reader.token_counts(tokens) == want
    # read before (BM25's tokens), then asked again with others (the judge's): the same counts
    assert reader.token_counts(["tide", "zzzabsent", "membran"]) == store.token_chunk_counts(
        ["tide", "membran"])
    terms = content_terms("stem cell membrane tides")
    assert reader.stats(terms, [])[0].df == IndexStatsReader(store).stats(terms, [])[0].df
