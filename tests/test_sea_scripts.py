"""Thai, Lao, Khmer and Myanmar: words found by keyword search; old indexes rebuilt at open."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import write

from kb.api import KnowledgeBase
from kb.config import Config
from kb.store.schema import SCHEMA_VERSION
from kb.store.textindex import TOKENIZER_FINGERPRINT, keyword_query, tokenize

# Written for this test in the style of a Thai Wikipedia lead paragraph.
CHIANG_MAI = (
    "เชียงใหม่เป็นจังหวัดที่มีประชากรมากเป็นอันดับที่ห้าของประเทศไทย ตั้งอยู่ในภาคเหนือ "
    "มีพื้นที่ส่วนใหญ่เป็นภูเขาและป่าไม้ ตัวเมืองเชียงใหม่ก่อตั้งขึ้นโดยพญามังรายในปี พ.ศ. 1839 "
    "เพื่อเป็นราชธานีของอาณาจักรล้านนา ปัจจุบันเป็นศูนย์กลางทางเศรษฐกิจ การศึกษา "
    "และการท่องเที่ยวของภาคเหนือ"
)
BANGKOK = (
    "กรุงเทพมหานครเป็นเมืองหลวงและนครที่มีประชากรมากที่สุดของประเทศไทย "
    "ตั้งอยู่บนที่ราบลุ่มแม่น้ำเจ้าพระยา เป็นศูนย์กลางการปกครอง การคมนาคมขนส่ง "
    "การเงินการธนาคาร และการพาณิชย์ของประเทศ"
)
VIENTIANE = "ວຽງຈັນເປັນນະຄອນຫຼວງຂອງສາທາລະນະລັດ ປະຊາທິປະໄຕ ປະຊາຊົນລາວ ຕັ້ງຢູ່ແຄມແມ່ນ້ຳຂອງ"
PHNOM_PENH = "ភ្នំពេញជារាជធានីនៃព្រះរាជាណាចក្រកម្ពុជា ស្ថិតនៅលើទន្លេមេគង្គ"
YANGON = "ရန်ကုန်မြို့သည် မြန်မာနိုင်ငံ၏ အကြီးဆုံးမြို့ ဖြစ်သည်။ ရွှေတိဂုံဘုရား ရှိသည်။"
KITES = "Box kites were invented by Lawrence Hargrave in 1893 in Australia."


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sea")
    for name, text in [("chiangmai.txt", CHIANG_MAI), ("bangkok.txt", BANGKOK),
                       ("vientiane.txt", VIENTIANE), ("phnompenh.txt", PHNOM_PENH),
                       ("yangon.txt", YANGON), ("kites.txt", KITES)]:
        write(folder / "docs" / name, text + "\n")
    path = folder / "kb.db"
    with KnowledgeBase(path, Config(embedder="none")) as kb:
        kb.ingest([folder / "docs"])
    return path


WORDS = [
    ("อาณาจักรล้านนา", "chiangmai.txt"),  # the Lanna kingdom
    ("ภูเขา", "chiangmai.txt"),  # mountain
    ("การท่องเที่ยว", "chiangmai.txt"),  # tourism
    ("เชียงใหม่", "chiangmai.txt"),
    ("แม่น้ำเจ้าพระยา", "bangkok.txt"),  # the Chao Phraya river
    ("เมืองหลวง", "bangkok.txt"),  # capital city
    ("การพาณิชย์", "bangkok.txt"),  # commerce
    ("ນະຄອນຫຼວງ", "vientiane.txt"),  # Lao: capital
    ("ປະຊາທິປະໄຕ", "vientiane.txt"),  # Lao: democratic
    ("រាជធានី", "phnompenh.txt"),  # Khmer: capital
    ("កម្ពុជា", "phnompenh.txt"),  # Khmer: Cambodia
    ("မြန်မာနိုင်ငံ", "yangon.txt"),  # Myanmar: Myanmar (the country)
    ("ရွှေတိဂုံ", "yangon.txt"),  # Myanmar: Shwedagon
]


@pytest.mark.parametrize(("query", "expected"), WORDS)
def test_a_word_finds_its_document_by_keywords(db: Path, query: str, expected: str) -> None:
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        result = kb.search(query, decay=False)
    names = [Path(r.source).name for r in result.references]
    assert names and names[0] == expected, names
    assert result.references[0].relevance >= 50, result.references[0]


def test_words_keep_their_vowel_and_tone_marks() -> None:
    tokens = tokenize(CHIANG_MAI)
    assert "เชียงใหม่" in tokens and "ประชากร" in tokens  # ICU dictionary words, whole
    # grapheme-cluster bigrams: a consonant keeps its marks ("ที่" is one cluster)
    assert "ที่มี" in tokenize("ที่มี") and "ท" not in tokens
    assert tokenize("ภูเขา")[:3] == ["ภูเ", "เข", "ขา"]
    assert tokenize(KITES)[:2] == ["box", "kite"]  # other scripts as before


def test_a_quoted_thai_phrase_is_matched_as_consecutive_bigrams(db: Path) -> None:
    clauses = keyword_query('"แม่น้ำเจ้าพระยา"').clauses
    assert len(clauses) == 1 and len(clauses[0][0]) > 2
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        names = [Path(r.source).name for r in kb.search('"แม่น้ำเจ้าพระยา"').references]
    assert names == ["bangkok.txt"]


def _fts_bodies(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return [r[0] for r in conn.execute("SELECT body FROM chunks_fts ORDER BY rowid")]
    finally:
        conn.close()


def test_an_index_of_an_older_tokenizer_is_rebuilt_at_open(db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "old.db"
    copy.write_bytes(db.read_bytes())
    fresh = _fts_bodies(copy)
    conn = sqlite3.connect(copy)
    with conn:  # what kb-fts-v1 left: another recipe's tokens and its fingerprint
        conn.execute("DELETE FROM chunks_fts")
        conn.execute("INSERT INTO chunks_fts(rowid, body) SELECT id, 'stale tokens' FROM chunks")
        conn.execute("UPDATE meta SET value = 'kb-fts-v1:nfkd-fold+snowball-english|"
                     "cjk-bigram+jieba3:unicode61' WHERE key = 'tokenizer_fingerprint'")
    conn.close()
    with KnowledgeBase(copy, Config(embedder="none")) as kb:
        assert kb.store.get_meta("tokenizer_fingerprint") == TOKENIZER_FINGERPRINT
        names = [Path(r.source).name for r in kb.search("เมืองหลวง").references]
    assert names[0] == "bangkok.txt"
    assert _fts_bodies(copy) == fresh


def test_a_schema_2_index_is_migrated_and_rebuilt(db: Path, tmp_path: Path) -> None:
    copy = tmp_path / "v2.db"
    copy.write_bytes(db.read_bytes())
    conn = sqlite3.connect(copy, isolation_level=None)
    conn.executescript("""
        BEGIN;
        DROP TABLE chunks_vocab;
        DROP TABLE chunks_fts;
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            body, tokenize = 'unicode61 remove_diacritics 0');
        CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
        INSERT INTO chunks_fts(rowid, body) SELECT id, text FROM chunks;
        ALTER TABLE documents DROP COLUMN models_pending;
        ALTER TABLE chunks DROP COLUMN page_end;
        DROP TABLE file_problems;
        DROP TABLE document_tags;
        DROP TRIGGER chunk_bits_chunk_deleted;
        DROP TRIGGER chunk_bits_vector_changed;
        DROP TABLE chunk_bits;
        DELETE FROM migrations WHERE version >= 3;
        UPDATE meta SET value = 'kb-fts-v1' WHERE key = 'tokenizer_fingerprint';
        PRAGMA user_version = 2;
        COMMIT;
    """)
    conn.close()
    with KnowledgeBase(copy, Config(embedder="none")) as kb:
        sql = kb.store.conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'").fetchone()[0]
        assert "M*" in sql
        assert kb.store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        names = [Path(r.source).name for r in kb.search("ราชธานี").references]
    assert names and names[0] == "chiangmai.txt"
