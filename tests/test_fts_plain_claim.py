"""``fts_plain``'s claim on this machine's SQLite and Python: FTS5 reads its tokens as they stand.

The judge counts phrases in index bodies in Python (``kb.store.textindex.phrase_counts``) only
where ``fts_plain`` says FTS5's tokenizer keeps each token as written. That rests on SQLite's
Unicode tables agreeing with Python's; an upgrade of either could change the judge's counts
silently, so every code point is checked here against FTS5's own vocabulary.
"""

import sqlite3
import sys

import pytest

from kb.api import KnowledgeBase
from kb.store.textindex import fts_plain


@pytest.mark.slow
def test_every_character_fts_plain_accepts_stays_inside_its_token(tmp_path):
    kb = KnowledgeBase(tmp_path / "kb.db")
    try:  # the full-text table as kb creates it: its tokenizer and settings
        (create,) = kb.store.conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'").fetchone()
    finally:
        kb.close()
    assert "unicode61" in create
    conn = sqlite3.connect(":memory:")
    conn.execute(create.replace("chunks_fts", "probe", 1))
    conn.execute("CREATE VIRTUAL TABLE probe_vocab USING fts5vocab(probe, 'row')")
    words = [f"a{chr(c)}a" for c in range(sys.maxunicode + 1)
             if not 0xD800 <= c <= 0xDFFF and chr(c) != " " and fts_plain(f"a{chr(c)}a")]
    assert len(words) > 250_000  # letters, digits, marks and the private-use planes
    assert fts_plain("a") and not fts_plain("a-a") and not fts_plain("aAa")
    conn.executemany("INSERT INTO probe (body) VALUES (?)", ((w,) for w in words))
    vocabulary = dict(conn.execute("SELECT term, doc FROM probe_vocab"))
    # each word is one token, as written: none split, folded or merged with another
    assert vocabulary == dict.fromkeys(words, 1)
    conn.close()
