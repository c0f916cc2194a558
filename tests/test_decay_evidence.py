"""Time decay orders the references; it never lets a newer weak mention push out an older answer."""

import os
import time

from conftest import write

from kb.api import KnowledgeBase
from kb.config import Config


def test_an_old_answer_survives_decay_against_a_new_passing_mention(tmp_path):
    old = write(tmp_path / "d" / "old.txt",
                "The GPL licence is viral: all source code must be distributed under the GPL.")
    new = write(tmp_path / "d" / "new.txt", "Mozilla news: the browser ships a new logo today. "
                "Some readers asked about the GPL.")
    two_years = time.time() - 730 * 86_400
    os.utime(old, (two_years, two_years))
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([tmp_path / "d"])
        result = kb.search("which licence is viral", top_k=3)  # decay on (the default)
    sources = [r.source for r in result.references]
    assert str(old.resolve()) in sources
    assert sources[0] == str(old.resolve()) or str(new.resolve()) not in sources


def test_decay_never_hides_an_old_answer_behind_many_new_mentions(tmp_path):
    """Twelve new notes that mention the topic outrank, after decay, a two-year-old answer;
    the judge still sees and passes it, with the same relevance as without decay."""
    old = write(tmp_path / "d" / "travel-policy.md", "# Travel expense policy\n\n"
                "The per diem for travel outside Germany is 60 EUR per day.\n")
    for i in range(12):
        write(tmp_path / "d" / f"note-{i}.md", f"# Team note {i}\n\nTravel planning for trip "
              f"{i}: book the train early and keep the receipts for the expense report.\n")
    two_years = time.time() - 730 * 86_400
    os.utime(old, (two_years, two_years))
    query = "What is the per diem for travel outside Germany?"
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([tmp_path / "d"])
        decayed = kb.search(query)
        evergreen = kb.search(query, decay=False)
    assert not evergreen.insufficient_evidence
    assert not decayed.insufficient_evidence
    first = {r.source: r.relevance for r in evergreen.references}
    got = {r.source: r.relevance for r in decayed.references}
    assert str(old.resolve()) in got
    assert got[str(old.resolve())] == first[str(old.resolve())]
