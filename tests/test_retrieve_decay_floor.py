"""Time decay (stage 3b) and the relevance floor (stage 4): pure functions, then through the API."""

import os
from datetime import UTC, datetime, timedelta, timezone

import pytest
from conftest import write

from kb.api import KnowledgeBase
from kb.config import Config, PipelineSettings, SearchOptions
from kb.eval.retrieval import engines_for
from kb.retrieve.cite import WEAK_NOTE
from kb.retrieve.decay import apply_decay, decay_factor
from kb.retrieve.floor import KEYWORD_MIN, RELAX_KEEP, apply_floor, passes
from kb.retrieve.pipeline import search
from kb.store.textindex import match_expression, query_terms
from kb.types import Candidate

NOW = datetime(2024, 3, 31, 12, 0, tzinfo=UTC)


# --- decay ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("age_days", "factor"), [
    (0, 1.0), (30, 0.5), (60, 0.25), (90, 0.125), (15, 0.5 ** 0.5), (-10, 1.0), (-400, 1.0)])
def test_decay_factor_is_a_30_day_half_life(age_days, factor):
    # 0.5 ** (age_days / 30): 30 -> 0.5, 60 -> 0.25, 90 -> 0.125; the future counts as age 0
    created = NOW - timedelta(days=age_days)
    assert decay_factor(created, NOW, half_life_days=30) == pytest.approx(factor, rel=1e-12)


def test_decay_compares_instants_across_timezones():
    # 2024-03-01T20:00+08:00 is 2024-03-01T12:00Z: exactly 30 days before NOW -> 0.5
    created = datetime(2024, 3, 1, 20, 0, tzinfo=timezone(timedelta(hours=8)))
    assert decay_factor(created, NOW, half_life_days=30) == pytest.approx(0.5)
    assert decay_factor(NOW - timedelta(days=7), NOW, half_life_days=7) == pytest.approx(0.5)


def test_apply_decay_multiplies_and_resorts():
    # doc 1 is 60 days old (x0.25), doc 2 is new (x1.0): 0.04*0.25 = 0.01 < 0.03*1.0
    cands = [Candidate(10, 1, 0.04, None, 0.0, 0.5), Candidate(20, 2, 0.03, None, 0.0, 0.5)]
    created = {1: NOW - timedelta(days=60), 2: NOW}
    out = apply_decay(cands, created, NOW)
    assert [(c.chunk_id, round(c.score, 9)) for c in out] == [(20, 0.03), (10, 0.01)]


# --- floor ---------------------------------------------------------------------------------------

def _c(cid, *, cosine=None, vector=0.0, keyword=0.0, score=None):
    return Candidate(cid, cid, score if score is not None else 1.0 / cid, cosine, vector, keyword)


def test_floor_drops_weak_vector_only_and_keeps_keyword_evidence():
    weak_vector = _c(1, cosine=0.81, vector=0.3)  # vector-only, below floor 0.5: dropped
    strong_vector = _c(2, cosine=0.9, vector=0.7)  # vector-only, above the floor: kept
    keyword = _c(3, cosine=0.76, vector=0.1, keyword=0.4)  # keyword evidence: kept
    weak_keyword = _c(4, keyword=KEYWORD_MIN - 0.01)  # neither: dropped
    at_floor = _c(5, cosine=0.85, vector=0.5)  # exactly at the floor: kept
    result = apply_floor([weak_vector, strong_vector, keyword, weak_keyword, at_floor], floor=0.5)
    assert [c.chunk_id for c in result.kept] == [2, 3, 5]  # order preserved
    assert result.dropped == 2
    assert result.best_below == pytest.approx(0.3)
    assert result.relaxed is False
    assert passes(_c(6, keyword=KEYWORD_MIN), floor=0.99)
    assert not passes(_c(7, vector=0.9), floor=0.5)  # s_norm without a cosine is no evidence


def test_floor_relaxes_and_flags_when_everything_would_go():
    cands = [_c(i, cosine=0.8, vector=0.1 * i) for i in range(1, 6)]  # all below 0.9
    result = apply_floor(cands, floor=0.9)
    assert result.relaxed is True
    assert [c.chunk_id for c in result.kept] == [1, 2, 3][:RELAX_KEEP]
    assert result.dropped == 5 - RELAX_KEEP
    assert result.best_below == pytest.approx(0.5)
    assert apply_floor([], floor=0.9) == apply_floor([], floor=0.1)
    assert apply_floor([], floor=0.9).relaxed is False


# --- through the API -----------------------------------------------------------------------------

def _dated(path, text, when):
    write(path, text)
    os.utime(path, (when.timestamp(), when.timestamp()))
    return path


def test_newer_document_outranks_an_equally_matching_older_one_unless_decay_is_off(tmp_path):
    now = datetime.now(UTC)
    # same length, same query-term counts: identical BM25 scores; only the author differs
    old = _dated(tmp_path / "old.txt", "The zebrafish feeding protocol uses quinoline dye. "
                 "Filed by Alice.", now - timedelta(days=90))
    new = _dated(tmp_path / "new.txt", "The zebrafish feeding protocol uses quinoline dye. "
                 "Filed by Bobby.", now - timedelta(days=1))
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([old])  # the older document gets the lower chunk id (wins exact ties)
        kb.ingest([new])
        docs = {d.title: d for d in kb.documents()}
        assert abs(docs["old"].created_at - (now - timedelta(days=90))) < timedelta(seconds=1)
        on = kb.search("zebrafish quinoline protocol", explain=True)
        off = kb.search("zebrafish quinoline protocol", decay=False, explain=True)
        raw = kb.store.fts_search(match_expression(query_terms("zebrafish quinoline protocol")),
                                  10)
    assert len(raw) == 2 and raw[0][1] == raw[1][1]  # identical BM25 scores: equally matching
    assert on.references[0].title == "new"
    assert [r.title for r in off.references] == ["old", "new"]
    fused_off = dict(off.diagnostics.explain)["fuse"]
    fused_on = dict(on.diagnostics.explain)["decay"]
    assert "decay" not in dict(off.diagnostics.explain)
    assert dict(on.diagnostics.explain)["fuse"] == fused_off  # decay comes after fusion
    ids = {r.title: r.chunk_id for r in off.references}
    assert [cid for cid, _ in fused_on] == [ids["new"], ids["old"]]
    assert [cid for cid, _ in fused_off] == [ids["old"], ids["new"]]
    # without decay only the RRF rank separates them: s_norm 1 each, 1/61 (old) and 1/62 (new)
    assert [s for _, s in fused_off] == pytest.approx([1 / 61, 1 / 62], rel=1e-5)
    # with decay: new = 1/62 * 0.5 ** (1/30) ; old = 1/61 * 0.5 ** (90/30)
    assert [s for _, s in fused_on] == pytest.approx(
        [1 / 62 * 0.5 ** (1 / 30), 1 / 61 * 0.5 ** 3], rel=1e-3)
    stages = {s.stage: s for s in off.diagnostics.stages}
    assert stages["decay"].status == "skipped" and "switched off" in stages["decay"].reason
    assert {s.stage: s for s in on.diagnostics.stages}["decay"].status == "ran"


def test_explain_keeps_a_years_old_documents_decayed_scores_apart(tmp_path):
    # three years at a 30-day half-life: a factor of about 2 ** -36, far below 1e-6
    when = datetime.now(UTC) - timedelta(days=3 * 365)
    first = _dated(tmp_path / "a.txt", "The zebrafish feeding protocol uses quinoline dye.", when)
    second = _dated(tmp_path / "b.txt", "A zebrafish tank is cleaned weekly.", when)
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([first, second])
        result = kb.search("zebrafish quinoline protocol", explain=True)
    traces = dict(result.diagnostics.explain)
    for stage in ("decay", "rerank"):
        scores = [s for _, s in traces[stage]]
        assert len(scores) == 2 and 0 < scores[1] < scores[0] < 1e-9, (stage, scores)
    fused = [s for _, s in traces["fuse"]]
    assert traces["decay"][0][1] == pytest.approx(fused[0] * 0.5 ** (3 * 365 / 30), rel=1e-4)


@pytest.fixture(scope="module")
def small_e5_kb(tmp_path_factory):
    folder = tmp_path_factory.mktemp("floor")
    write(folder / "kites.md", "# Kites\n\nBox kites were invented by Lawrence Hargrave in 1893 "
          "in Australia.\n\n## Flying\n\nA steady wind of fifteen knots is ideal for flying a "
          "box kite.\n")
    write(folder / "bees.txt", "Honey bees cluster in winter to keep the queen warm. Beekeepers "
          "leave enough honey in the hive.")
    write(folder / "tea.txt", "Green tea is brewed at eighty degrees Celsius for two minutes to "
          "avoid bitterness.")
    with KnowledgeBase(folder / "kb.db") as kb:
        kb.ingest([folder])
        yield kb


def test_random_letters_return_nothing_or_only_flagged_weak_evidence(small_e5_kb):
    result = small_e5_kb.search("qzxv wkpj fghtl", decay=False)
    assert result.insufficient_evidence is True
    assert all(r.weak_evidence for r in result.references)
    if result.references:  # the closest, each refused by the judge's evidence gate
        assert result.diagnostics.judge and not any(j.passed for j in result.diagnostics.judge)
        assert all(j.answer_p == 0 for j in result.diagnostics.judge)
        assert WEAK_NOTE in result.context
    # the same corpus answers a real question with unflagged evidence
    real = small_e5_kb.search("who invented the box kite", decay=False)
    assert real.insufficient_evidence is False
    assert real.references and not any(r.weak_evidence for r in real.references)
    assert real.references[0].heading_path == ("Kites",)
    assert WEAK_NOTE not in real.context


def test_floor_reports_what_it_dropped(small_e5_kb):
    # the floor is off by default (the judge's evidence gate does its work); switched on:
    engines = engines_for(small_e5_kb, PipelineSettings(floor=True))
    result = search(small_e5_kb.store, "how do honey bees survive the winter",
                    SearchOptions(decay=False), engines=engines)
    diag = result.diagnostics
    assert [r.title for r in result.references] == ["bees"]
    assert diag.floor is not None and diag.floor_dropped >= 1
    assert diag.best_below_floor is not None and diag.best_below_floor < diag.floor
