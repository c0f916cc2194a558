import pytest

from kb.config import ChunkSettings
from kb.ingest.chunk import chunk_document, split_spans
from kb.types import Block, ExtractedDocument

LATIN = " ".join(f"Sentence number {i} talks about topic {i % 7}." for i in range(120))
CJK = "".join(f"这是第{i}个句子，它讨论主题{i % 5}。" for i in range(80))


def _doc(*blocks: Block) -> ExtractedDocument:
    return ExtractedDocument("Doc title", blocks, "txt")


@pytest.mark.parametrize("text", [LATIN, CJK, "x" * 2000, LATIN + "\n\n" + CJK])
def test_chunks_are_exact_spans_within_size_and_overlap(text):
    settings = ChunkSettings()
    doc = _doc(Block(text, ("H1", "H2"), 3))
    chunks = chunk_document(doc, settings)
    assert len(chunks) > 1
    covered = 0
    for prev, cur in zip(chunks, chunks[1:], strict=False):
        assert cur.char_start > prev.char_start
        assert cur.char_start - prev.char_end <= 2  # no gap beyond stripped whitespace
        assert prev.char_end - cur.char_start <= settings.overlap_chars
    for c in chunks:
        assert doc.text[c.char_start:c.char_end] == c.text
        assert 0 < len(c.text) <= settings.target_chars
        assert c.text.strip() == c.text and "\x00" not in c.text
        assert c.page == 3 and c.heading_path == ("H1", "H2")
        assert c.context_prefix == "Doc title > H1 > H2"
        covered = max(covered, c.char_end)
    assert covered == len(doc.text.rstrip())


def test_overlap_is_used_between_sentence_cut_chunks():
    chunks = chunk_document(_doc(Block(LATIN)))
    overlaps = [a.char_end - b.char_start for a, b in zip(chunks, chunks[1:], strict=False)]
    assert max(overlaps) > 0


def test_cjk_cuts_fall_after_sentence_punctuation():
    chunks = chunk_document(_doc(Block(CJK)))
    assert all(c.text.endswith("。") for c in chunks[:-1])


def test_small_blocks_under_one_heading_merge_and_headings_split():
    doc = _doc(Block("alpha one.", ("A",)), Block("alpha two.", ("A",)), Block("beta.", ("B",)))
    chunks = chunk_document(doc)
    assert [c.text for c in chunks] == ["alpha one.\n\nalpha two.", "beta."]
    assert [c.heading_path for c in chunks] == [("A",), ("B",)]


def test_sizes_count_code_points_not_bytes():
    spans = split_spans("汉" * 400, ChunkSettings())
    assert spans == [(0, 400)]


def test_bad_settings_are_rejected():
    with pytest.raises(ValueError):
        ChunkSettings(target_chars=100, overlap_chars=60)
