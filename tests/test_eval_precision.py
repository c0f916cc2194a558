"""The precision gate's counts on a hand-made set (real index, BM25 only, the real judge)."""

import json

import pytest

from kb.config import Config
from kb.eval.cached_index import open_cached_index
from kb.eval.precision import evaluate_precision

DOCS = {
    "vasa-sank": ("Vasa", "The warship Vasa sank in Stockholm harbour on 10 August 1628, "
                  "minutes into her maiden voyage, after a gust of wind heeled her over."),
    "vasa-museum": ("Vasa Museum", "The Vasa Museum opened in 1990 on Djurgården and shows "
                    "the warship Vasa, raised from Stockholm harbour in 1961."),
}
QUERIES = [
    ("q-sank", "When did the warship Vasa sink on her maiden voyage?"),
    # names a year no passage writes: the judge refuses it and lists the closest, weak
    ("q-1750", "What cargo did the warship Vasa carry in Stockholm harbour in 1750?"),
]


def _write_set(folder):
    folder.mkdir()
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as f:
        for doc_id, (title, text) in DOCS.items():
            f.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as f:
        for qid, text in QUERIES:
            f.write(json.dumps({"_id": qid, "text": text}) + "\n")
    (folder / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq-sank\tvasa-sank\t1\n",
                                      encoding="utf-8")
    (folder / "distractors.tsv").write_text(
        "query-id\tcorpus-id\nq-sank\tvasa-museum\nq-1750\tvasa-sank\nq-1750\tvasa-museum\n",
        encoding="utf-8")


def test_weak_references_of_a_refusal_count_as_passed_through_not_as_evidence(tmp_path):
    _write_set(tmp_path / "set")
    kb, _ = open_cached_index(tmp_path / "set", tmp_path / "cache" / "set.db",
                              Config(embedder="none", cache_dir=tmp_path / "cache"))
    with kb:
        report = evaluate_precision(kb, tmp_path / "set", k=3)
    sank, refused = report.per_query["q-sank"], report.per_query["q-1750"]
    # the answer alone for the first question; the refused one lists both passages, weak
    assert sank == {"docs": ["vasa-sank"], "relevant": ["vasa-sank"], "insufficient": False}
    assert refused["insufficient"] and sorted(refused["docs"]) == ["vasa-museum", "vasa-sank"]
    # by hand: 3 references, the refused question's 2 planted: 2/3 passed through; of the
    # 1 reference handed out as evidence (not weak) none is planted: 0
    assert report.distractor_pass_through == pytest.approx(2 / 3)
    assert report.distractor_evidence_rate == 0.0
    assert report.refusal_rate == 1.0 and report.false_refusal_rate == 0.0
    assert report.precision_at_k == 1.0
