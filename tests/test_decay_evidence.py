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
