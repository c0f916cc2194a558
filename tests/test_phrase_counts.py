"""The judge's per-document phrase counts, found in the index bodies or by FTS5, are FTS5's.

A long document (a Wikipedia page of 665 chunks) is left to FTS5: the body scan is bounded."""

import re
from pathlib import Path

import pytest

from kb.api import KnowledgeBase
from kb.config import ChunkSettings
from kb.eval.retrieval import FIXED_TIME
from kb.ingest.extract import extract
from kb.ingest.records import ingest_records
from kb.store.textindex import fts_plain, phrase_counts, phrase_expression, tokenize

# Texts FTS5 reads as kb wrote them, and texts whose index bodies hold a token it reads
# otherwise: "½" folds to "1⁄2" (U+2044 is a separator to FTS5), "・" (katakana middle dot,
# punctuation inside a CJK bigram), "ς" (FTS5 folds it to "σ"), "ß" (case folding changes it).
DOCS = {
    "mem://cells": ["Stem cells divide. The cell cycle of stem cells is short.",
                    "A cell membrane holds the cell.", "Nothing of note here at all."],
    "mem://half": ["Add ½ cup of stem cells; 1/2 is a half.", "Half of the cells died."],
    "mem://kana": ["レオナルド・ダ・ヴィンチは画家であった。", "計算機科学の研究者。"],
    "mem://greek": ["Ο λόγος του ανθρώπου, λόγοσ και λογος.", "ο λόγος ξανά"],
    "mem://german": ["Die Straße ist lang, die Strasse kurz.", "Straßenbahn fährt."],
    "mem://mixed": ["计算机 cells and stem cells, naïve café résumé.", "thai: ภาษาไทย คำ"],
}
PHRASES = ["stem cells", "cell", "half", "1", "2", "画家", "ダ", "λόγος", "λόγοσ", "straße",
           "strasse", "计算机", "计算", "naïve café", "ภาษาไทย", "nowhere", "cells and stem"]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    kb = KnowledgeBase(tmp_path_factory.mktemp("phrases") / "kb.db")
    records = [(src, src, "\n\n".join(parts)) for src, parts in DOCS.items()]
    # 50-character chunks without overlap: most documents have several
    ingest_records(kb.store, records, chunk=ChunkSettings(target_chars=50, overlap_chars=0),
                   created_at=FIXED_TIME)
    yield kb.store
    kb.close()


def fts5_counts(store, phrases, doc_ids):
    """(document id, key) -> chunks FTS5's phrase match finds: one MATCH per phrase."""
    marks = ",".join("?" * len(doc_ids))
    out = {}
    for key, tokens in phrases.items():
        for doc_id, n in store.conn.execute(
                "SELECT c.doc_id, count(*) FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
                f"WHERE c.doc_id IN ({marks}) AND chunks_fts MATCH ? GROUP BY c.doc_id",
                [*doc_ids, phrase_expression(tokens)]):
            out[(doc_id, key)] = n
    return out


def test_counts_are_fts5s_for_plain_and_unplain_bodies(store):
    docs = [d for (d,) in store.conn.execute("SELECT id FROM documents ORDER BY id")]
    phrases = {p: tokenize(p) for p in PHRASES}
    want = fts5_counts(store, phrases, docs)
    assert store.phrase_chunks_by_doc(phrases, store.doc_chunk_spans(docs)) == want
    # a sample of what FTS5 says, so the comparison is not empty on both sides
    counts = dict(store.conn.execute("SELECT doc_id, count(*) FROM chunks GROUP BY doc_id"))
    assert counts[docs[0]] >= 2
    assert want[(docs[0], "stem cells")] >= 1 and want[(docs[0], "cell")] >= 2
    assert (docs[1], "1") in want  # "½" -> "1⁄2": FTS5 reads the tokens "1" and "2"
    # each document alone, and a subset, count the same
    for d in docs:
        assert (store.phrase_chunks_by_doc(phrases, store.doc_chunk_spans([d]))
                == fts5_counts(store, phrases, [d]))
    assert (store.phrase_chunks_by_doc(phrases, store.doc_chunk_spans(docs[:2]))
            == fts5_counts(store, phrases, docs[:2]))
    assert store.phrase_chunks_by_doc(phrases, store.doc_chunk_spans([])) == {}


def test_unplain_bodies_and_phrases_are_left_to_fts5():
    assert fts_plain("stem cell 计算 ภาษาไทย naïve")
    assert not fts_plain("1⁄2")  # a math symbol inside a token
    assert not fts_plain("达・")  # punctuation inside a bigram
    assert not fts_plain("λογος")  # final sigma: FTS5 folds it
    assert not fts_plain("straße")  # case folding changes it (FTS5 does not: conservative)
    assert not fts_plain("") and not fts_plain("  ")
    bodies = [(1, "stem cell divid"), (2, "1⁄2 cup stem cell"), (1, "the cell")]
    counts, left = phrase_counts(bodies, {"c": ["cell"], "s": ["stem", "cell"]})
    assert counts == {(1, "c"): 2, (1, "s"): 1} and left == {2}
    # a phrase FTS5 may read otherwise leaves every group to FTS5
    assert phrase_counts(bodies, {"x": ["1⁄2"]}) == ({}, {1, 2})
    # a token is matched whole: "cell" is not inside "cells"
    assert phrase_counts([(1, "cells")], {"c": ["cell"]}) == ({}, set())


PAGE = Path(__file__).parent / "fixtures" / "docs" / "html" / "wikipedia" / "source.html"
SHORT = {"mem://browser": "Firefox is a web browser. Mozilla makes the Firefox browser.",
         "mem://mail": "Thunderbird is a mail client from the Mozilla Foundation.",
         "mem://netscape": "Netscape Communications founded the Mozilla project in 1998."}
LONG_PHRASES = ["mozilla", "mozilla foundation", "firefox", "web browser", "netscape", "1998",
                "open source", "thunderbird", "nowhere at all"]


@pytest.fixture(scope="module")
def long_store(tmp_path_factory):
    kb = KnowledgeBase(tmp_path_factory.mktemp("long") / "kb.db")
    page = extract(PAGE)
    records = [("mem://mozilla-page", page.title, page.text),
               *((s, s, text) for s, text in SHORT.items())]
    # 50-character chunks: the page (29 kB of text) becomes 665 chunks
    ingest_records(kb.store, records, chunk=ChunkSettings(target_chars=50, overlap_chars=0),
                   created_at=FIXED_TIME)
    yield kb.store
    kb.close()


def counted(store, phrases, docs, **bound):
    """The counts, and the documents whose bodies were read (None: no body was read)."""
    statements = []
    store.conn.set_trace_callback(statements.append)
    try:
        counts = store.phrase_chunks_by_doc(phrases, store.doc_chunk_spans(docs), **bound)
    finally:
        store.conn.set_trace_callback(None)
    scans = [s for s in statements if "f.body" in s]
    assert len(scans) <= 1
    if not scans:
        return counts, None
    inner = re.search(r"doc_id IN \(([\d,]+)\)", scans[0])
    assert inner, scans[0]
    return counts, {int(d) for d in inner.group(1).split(",")}


def test_long_document_counts_the_same_scanned_or_by_fts5(long_store):
    store = long_store
    sizes = dict(store.conn.execute("SELECT doc_id, count(*) FROM chunks GROUP BY doc_id"))
    docs = sorted(sizes)
    page = max(sizes, key=sizes.get)
    short = set(docs) - {page}
    assert sizes[page] > 500 and sum(sizes[d] for d in short) <= 10
    phrases = {p: tokenize(p) for p in LONG_PHRASES}
    want = fts5_counts(store, phrases, docs)
    assert want[(page, "mozilla")] > 20 and want[(page, "mozilla foundation")] >= 2
    # everything scanned, the page read as bodies
    whole, read = counted(store, phrases, docs, scan_chunks_max=10**6)
    assert whole == want and read == set(docs)
    # the default bound leaves the page to FTS5 and scans the short documents
    default, read = counted(store, phrases, docs)
    assert default == want and read == short
    # a bound below the page: the same; a bound of one chunk scans the one-chunk documents
    below = counted(store, phrases, docs, scan_chunks_max=sizes[page] - 1)
    assert below == (want, short)
    smallest = min(short, key=lambda d: (sizes[d], d))
    one, read = counted(store, phrases, docs, scan_chunks_max=sizes[smallest])
    assert one == want and read == {smallest}
    # no bodies at all: FTS5 alone
    assert counted(store, phrases, docs, scan_chunks_max=0) == (want, None)
    # the page alone: FTS5
    alone = fts5_counts(store, phrases, [page])
    assert counted(store, phrases, [page]) == (alone, None)
