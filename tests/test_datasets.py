"""BEIR loaders and the bundled golden sets: counts, referential integrity, subsets, demo files."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from kb.eval.datasets import (
    CorpusDoc,
    Query,
    available_datasets,
    dataset_dir,
    golden_dir,
    load_corpus,
    load_qrels,
    load_queries,
)

REPO = Path(__file__).resolve().parent.parent

# name -> (documents, queries, judged queries with a relevant doc, qrels rows with score > 0)
COUNTS = {
    "scifact": (5183, 300, 300, 339),
    "scifact-small": (500, 50, 50, 60),
    "cranfield": (1400, 225, 225, 1612),
    "cmrc2018": (848, 3219, 3219, 3219),
    "cmrc2018-small": (100, 368, 368, 368),
    "precision": (52, 61, 49, 55),
}

EMPTY_DOCS = {"cranfield": {"471", "995"}}  # empty in the original cran.all.1400 as well


def test_golden_dir_is_the_repos() -> None:
    assert golden_dir() == REPO / "golden"


def test_available_datasets() -> None:
    assert available_datasets() == sorted(COUNTS)


def test_unknown_dataset_lists_the_available_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown dataset 'nope'; available: cmrc2018, "):
        dataset_dir("nope")
    with pytest.raises(ValueError, match="scifact-small"):
        dataset_dir("demo")  # a folder of documents, not a BEIR set


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_counts_and_integrity(name: str) -> None:
    directory = dataset_dir(name)
    docs = load_corpus(directory)
    queries = load_queries(directory)
    qrels = load_qrels(directory)
    n_docs, n_queries, n_judged, n_rows = COUNTS[name]
    assert len(docs) == n_docs
    assert len(queries) == n_queries
    assert len(qrels) == n_judged
    assert sum(len(j) for j in qrels.values()) == n_rows
    doc_ids = {d._id for d in docs}
    query_ids = {q._id for q in queries}
    empty = {d._id for d in docs if not d.text.strip()}
    assert empty == EMPTY_DOCS.get(name, set())
    assert all(q.text.strip() for q in queries)
    for query_id, judgements in qrels.items():
        assert query_id in query_ids
        assert set(judgements) <= doc_ids
        assert all(grade > 0 for grade in judgements.values())


def test_cranfield_keeps_graded_judgements() -> None:
    qrels = load_qrels(dataset_dir("cranfield"))
    grades = sorted({g for j in qrels.values() for g in j.values()})
    assert grades == [1, 2, 3, 4]
    # cranqrel "1 184 2" (code 2, high relevance) -> grade 5 - 2 = 3; "1 486 -1" -> 0, dropped
    assert qrels["1"]["184"] == 3
    assert "486" not in qrels["1"]


def test_scifact_small_is_an_exact_restriction() -> None:
    full, small = dataset_dir("scifact"), dataset_dir("scifact-small")
    full_docs = {d._id: d for d in load_corpus(full)}
    full_qrels = load_qrels(full)
    small_qrels = load_qrels(small)
    # the first 50 queries, in file order, that have a relevant document
    expected = [q for q in load_queries(full) if q._id in full_qrels][:50]
    assert load_queries(small) == expected
    assert small_qrels == {q._id: full_qrels[q._id] for q in expected}
    small_docs = load_corpus(small)
    assert all(full_docs[d._id] == d for d in small_docs)  # same content as in the full set
    kept = {d._id for d in small_docs}
    assert all(set(j) <= kept for j in small_qrels.values())


def test_cmrc_small_is_an_exact_restriction() -> None:
    full, small = dataset_dir("cmrc2018"), dataset_dir("cmrc2018-small")
    small_docs = load_corpus(small)
    assert small_docs == load_corpus(full)[:100]
    kept = {d._id for d in small_docs}
    full_qrels = load_qrels(full)
    expected = {q: j for q, j in full_qrels.items() if set(j) & kept}
    assert load_qrels(small) == expected
    assert [q._id for q in load_queries(small)] == [
        q._id for q in load_queries(full) if q._id in expected
    ]
    assert (small / "LICENCE").read_bytes() == (full / "LICENCE").read_bytes()


@pytest.mark.parametrize("name", ["cmrc2018", "cmrc2018-small"])
def test_cmrc_answers_are_spans_of_the_judged_passage(name: str) -> None:
    directory = dataset_dir(name)
    texts = {d._id: d.text for d in load_corpus(directory)}
    qrels = load_qrels(directory)
    lines = (directory / "answers.jsonl").read_text(encoding="utf-8").splitlines()
    answers = {row["_id"]: row["answers"] for row in map(json.loads, lines)}
    assert set(answers) == set(qrels)
    for query_id, judgements in qrels.items():
        (passage,) = judgements
        # at least one annotator's answer is an exact span; variants may differ in punctuation
        assert any(a in texts[passage] for a in answers[query_id])


# --- the demo corpus ---------------------------------------------------------------------------

DEMO = REPO / "golden" / "demo"


def test_demo_queries_name_existing_files() -> None:
    text = (DEMO / "QUERIES.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([\w.-]+\.(?:pdf|docx|html))`", text))
    docs = {p.name for p in (DEMO / "docs").iterdir()}
    assert len(named) >= 5
    assert named <= docs


def test_demo_files_are_documented_and_licensed() -> None:
    readme = (REPO / "golden" / "README.md").read_text(encoding="utf-8")
    docs = sorted(p.name for p in (DEMO / "docs").iterdir())
    assert 8 <= len(docs) <= 20
    assert all(f"`{name}`" in readme for name in docs)
    for name in set(re.findall(r"`licences/([\w.-]+)`", readme)):
        assert (DEMO / "licences" / name).is_file(), name


def test_golden_stays_small() -> None:
    total = sum(p.stat().st_size for p in golden_dir().rglob("*") if p.is_file())
    # 8 MiB until session 29: each new-user trial (golden/dev-trials) adds about 0.2 MB
    assert total < 9 * 1024 * 1024


# --- loader behaviour on small hand-written files ---------------------------------------------


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_loads_plain_jsonl_and_beir_qrels_folder(tmp_path: Path) -> None:
    _write(
        tmp_path / "corpus.jsonl",
        '{"_id": 7, "text": "seven"}\n\n{"_id": "d2", "title": "T", "text": "two", "x": 1}\n',
    )
    _write(tmp_path / "queries.jsonl", '{"_id": "q1", "text": "which?", "metadata": {}}\n')
    _write(
        tmp_path / "qrels" / "test.tsv",
        "query-id\tcorpus-id\tscore\nq1\t7\t2\nq1\td2\t0\nq2\td2\t-1\n",
    )
    assert load_corpus(tmp_path) == [
        CorpusDoc(_id="7", title="", text="seven"),
        CorpusDoc(_id="d2", title="T", text="two"),
    ]
    assert load_queries(tmp_path) == [Query(_id="q1", text="which?")]
    assert load_qrels(tmp_path) == {"q1": {"7": 2}}  # zero and negative scores dropped


def test_prefers_gzip_and_qrels_tsv(tmp_path: Path) -> None:
    with gzip.open(tmp_path / "corpus.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write('{"_id": "gz", "text": "from gzip"}\n')
    _write(tmp_path / "corpus.jsonl", '{"_id": "plain", "text": "ignored"}\n')
    _write(tmp_path / "qrels.tsv", "query-id\tcorpus-id\tscore\nq\tgz\t1\n")
    _write(tmp_path / "qrels" / "test.tsv", "query-id\tcorpus-id\tscore\nq\tplain\t1\n")
    assert [d._id for d in load_corpus(tmp_path)] == ["gz"]
    assert load_qrels(tmp_path) == {"q": {"gz": 1}}


def test_missing_files_raise(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="corpus.jsonl.gz or corpus.jsonl"):
        load_corpus(tmp_path)
    with pytest.raises(FileNotFoundError, match="queries.jsonl"):
        load_queries(tmp_path)
    with pytest.raises(FileNotFoundError, match="qrels.tsv"):
        load_qrels(tmp_path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"_id": "a", "text": "x"}\n{"_id": "a", "text": "y"}\n', r"corpus.jsonl:2: duplicate"),
        ('{"text": "no id"}\n', r"corpus.jsonl:1: '_id' must be"),
        ('{"_id": "a", "text": 3}\n', r"corpus.jsonl:1: 'title' and 'text' must be strings"),
        ("not json\n", r"corpus.jsonl:1: invalid JSON at column 1: Expecting value$"),
        ('{"_id": "a", "text": "tab\there"}\n',
         r"corpus.jsonl:1: invalid JSON at column 26: Invalid control character$"),
        ('["a list"]\n', r"corpus.jsonl:1: expected a JSON object"),
        # a line cut short (a new user's): wrong where it ends, not at column 1
        ('{"_id": "a", "text": \n', r"corpus.jsonl:1: invalid JSON at column 22: Expecting "
                                    r"value$"),
    ],
)
def test_bad_corpus_lines_raise_with_location(tmp_path: Path, content: str, message: str) -> None:
    _write(tmp_path / "corpus.jsonl", content)
    with pytest.raises(ValueError, match=message):
        load_corpus(tmp_path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("q\td\t1\n", r"qrels.tsv:1: expected the header"),
        ("query-id\tcorpus-id\tscore\nq\td\n", r"qrels.tsv:2: expected 3"),
        ("query-id\tcorpus-id\tscore\nq\td\thigh\n", r"qrels.tsv:2: score 'high' is not an int"),
        ("query-id\tcorpus-id\tscore\nq\td\t1\nq\td\t2\n", r"qrels.tsv:3: duplicate judgement"),
    ],
)
def test_bad_qrels_raise_with_location(tmp_path: Path, content: str, message: str) -> None:
    _write(tmp_path / "qrels.tsv", content)
    with pytest.raises(ValueError, match=message):
        load_qrels(tmp_path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"_id": "q1", "text": "  "}\n', r"queries.jsonl:1: 'text' is empty"),
        # a question `kb search` refuses would be scored by kb eval and kb calibrate
        ('{"_id": "q1", "text": "%s"}\n' % ("why " * 600),
         r"queries.jsonl:1: query is 2,400 characters long; at most 2,000 are allowed"),
        ('{"_id": "q1", "text": "a"}\n{"_id": "q1", "text": "b"}\n',
         r"queries.jsonl:2: duplicate query id 'q1'"),
    ],
)
def test_bad_query_lines_raise_with_location(tmp_path: Path, content: str, message: str) -> None:
    # a new-user trial: an empty question counted as one kb "refused"
    _write(tmp_path / "queries.jsonl", content)
    with pytest.raises(ValueError, match=message):
        load_queries(tmp_path, searchable=True)


def test_a_long_query_is_read_for_a_ranking_not_for_the_judges_gates(tmp_path: Path) -> None:
    # a review: IR sets whose queries are whole arguments could no longer be ranked at all
    _write(tmp_path / "queries.jsonl", '{"_id": "q1", "text": "%s"}\n' % ("why " * 600))
    assert len(load_queries(tmp_path)[0].text) == 2400


def test_a_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    # a new-user trial: Excel's qrels.tsv was "expected the header 'query-id ...'"
    (tmp_path / "qrels.tsv").write_bytes(b"\xef\xbb\xbfquery-id\tcorpus-id\tscore\nq1\td1\t1\n")
    (tmp_path / "queries.jsonl").write_bytes(b'\xef\xbb\xbf{"_id": "q1", "text": "Why?"}\n')
    assert load_qrels(tmp_path) == {"q1": {"d1": 1}}
    assert [q.text for q in load_queries(tmp_path)] == ["Why?"]
