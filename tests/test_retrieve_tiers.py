"""BM25 by document-frequency tiers: hand-computed tiers and bounds, and the single query's hits."""

import math

import pytest

from kb.api import KnowledgeBase
from kb.eval.retrieval import FIXED_TIME
from kb.ingest.records import ingest_records
from kb.retrieve.recall import single_token_counts
from kb.retrieve.tiers import tier_expressions, tiered_search, tiers, unseen_bound
from kb.store.search import Filters
from kb.store.textindex import keyword_query, match_expression, matched_tokens

# 1,000 chunks: "cell" in 300 (30%), "protein" in 100 (10%), "zebrafish" in 3 (0.3%)
DF = {"cell": 300, "protein": 100, "zebrafish": 3}


def test_alternatives_go_to_the_tier_of_their_share_and_phrases_to_the_rarest():
    # edges 5% and 20%: zebrafish 0.3% -> tier 0, absent "qux" 0% -> tier 0, the phrase
    # "e mail" -> tier 0 (a phrase is at most as common as its rarest token),
    # protein 10% -> tier 1, cell 30% -> tier 2; the repeated "cell" stays twice
    alts = [("cell",), ("zebrafish",), ("e", "mail"), ("protein",), ("qux",), ("cell",)]
    assert tiers(alts, DF, 1000, (0.05, 0.2)) == [
        [("zebrafish",), ("e", "mail"), ("qux",)], [("protein",)], [("cell",), ("cell",)]]
    # a share equal to an edge starts the commoner tier (100/1000 = 0.1); empty tiers vanish
    assert tiers([("protein",), ("cell",)], DF, 1000, (0.1,)) == [[("protein",), ("cell",)]]
    assert tiers([("zebrafish",), ("cell",)], DF, 1000, (0.5,)) == [
        [("zebrafish",), ("cell",)]]


def test_unseen_bound_is_k1_plus_1_times_the_fts5_idfs():
    # FTS5 idf = ln((N - n + 0.5) / (n + 0.5)):
    #   cell:    ln(700.5 / 300.5) = ln(2.331115) = 0.846347
    #   protein: ln(900.5 / 100.5) = ln(8.960199) = 2.192792
    # bound = (1.2 + 1) * (0.846347 + 2.192792) = 2.2 * 3.039139 = 6.686106
    assert unseen_bound([("cell",), ("protein",)], DF, 1000) == pytest.approx(6.686106, abs=1e-6)
    assert unseen_bound([("cell",), ("protein",)], DF, 1000) == pytest.approx(
        2.2 * (math.log(700.5 / 300.5) + math.log(900.5 / 100.5)))
    # a term in more than half of the chunks: FTS5 floors its idf at 1e-6 -> 2.2e-6
    assert unseen_bound([("cell",)], {"cell": 600}, 1000) == pytest.approx(2.2e-6)
    assert unseen_bound([], DF, 1000) == 0.0


def test_tier_expressions_name_every_alternative_once():
    levels = [[("zebrafish",), ("e", "mail")], [("protein",)], [("cell",)]]
    assert tier_expressions(levels, 0) == [
        '("zebrafish" OR "e mail") AND ("protein" OR "cell")',
        '("zebrafish" OR "e mail") NOT ("protein" OR "cell")']
    assert tier_expressions(levels, 1) == [
        '(("protein") NOT ("zebrafish" OR "e mail")) AND ("cell")',
        '("protein") NOT ("zebrafish" OR "e mail" OR "cell")']
    assert tier_expressions(levels, 2) == ['(("cell") NOT ("zebrafish" OR "e mail" OR "protein"))']


def test_matched_tokens_are_the_alternatives_found_phrases_as_consecutive_tokens():
    body = "the e mail arriv late email"
    alts = [("e", "mail"), ("email",), ("late",), ("zebra",), ("mail", "late")]
    assert matched_tokens(body, alts) == {"e", "mail", "email", "late"}
    # "e" and "mail" both present but apart: the phrase does not match, so neither counts
    assert matched_tokens("e x mail", [("e", "mail")]) == frozenset()
    # a token is matched whole: "mail" is not inside "email"
    assert matched_tokens("email", [("mail",)]) == frozenset()


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    """200 one-chunk documents: "cell" in 120, "protein" in 40, "zebrafish" in 7, with
    varying term frequencies and lengths so that bm25() orders them in many ways."""
    kb = KnowledgeBase(tmp_path_factory.mktemp("tiers") / "kb.db")
    records = []
    for i in range(200):
        words = ["filler"] * (5 + i % 17)
        if i % 5 < 3:
            words += ["cell"] * (1 + i % 3)
        if i % 5 == 0:
            words += ["protein"] * (1 + i % 4)
        if i % 33 == 0:
            words += ["zebrafish", "embryo"]
        records.append((f"mem://{i}", f"doc {i}", " ".join(words) + f" item{i}."))
    ingest_records(kb.store, records, chunk=kb.config.chunk, created_at=FIXED_TIME)
    yield kb
    kb.close()


@pytest.mark.parametrize("text", [
    "zebrafish protein cell", "cell protein", "zebrafish cell", "zebrafish embryo",
    "cell", "protein zebrafish embryo cell cell-protein"])
@pytest.mark.parametrize("limit", [1, 5, 50, 300])
def test_tiers_return_the_single_querys_hits(index, text, limit):
    store = index.store
    query = keyword_query(text)
    df = single_token_counts(store, query)
    # the shares the tiers see: cell 60%, protein 20%, zebrafish 3.5%
    assert store.token_chunk_counts(["cell", "protein", "zebrafish"]) == {
        "cell": 120, "protein": 40, "zebrafish": 7}
    single = store.fts_search(match_expression(query) or "", limit)
    for edges in [(0.05, 0.3), (0.1,), (0.5,)]:
        got = tiered_search(store, query, df, limit, edges=edges, min_postings=0,
                            matched=True)
        assert [r.chunk_id for r in got] == [r.chunk_id for r in single]
        assert [r.score for r in got] == pytest.approx([r.score for r in single], rel=1e-12)
    if all(len(alt) == 1 for clause in query.clauses for alt in clause):  # terms only
        bodies = store.fts_bodies([r.chunk_id for r in got])
        for r in got:
            assert r.matched == {t for t in query.terms if t in bodies[r.chunk_id].split()}


def test_tiers_apply_the_scope_before_the_cut(index):
    store = index.store
    query = keyword_query("zebrafish protein cell")
    df = single_token_counts(store, query)
    doc_ids = tuple(d.id for d in store.documents() if d.source in {"mem://7", "mem://66"})
    scope = Filters(doc_ids=doc_ids)
    got = tiered_search(store, query, df, 5, scope, edges=(0.05, 0.3), min_postings=0)
    assert [r.chunk_id for r in got] == [
        r.chunk_id for r in store.fts_search(match_expression(query) or "", 5, scope)]
    assert len(got) == 2  # both documents hold "cell" (7 % 5 = 2, 66 % 5 = 1)
