import pytest

from kb.config import ChunkSettings
from kb.ingest.chunk import MIN_CHUNK_CHARS, chunk_document, min_chunk_chars, split_spans
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
    one = ("alpha one, a sentence of some length " * 2).strip()
    two = ("alpha two, more " * 4).strip()
    beta = "beta, a section of its own that is long enough to stand as a chunk alone."
    doc = _doc(Block(one, ("A",)), Block(two, ("A",)), Block(beta * 2, ("B",)))
    chunks = chunk_document(doc)
    assert [c.text for c in chunks] == [f"{one}\n\n{two}", (beta * 2).strip()]
    assert [c.heading_path for c in chunks] == [("A",), ("B",)]


def test_short_chunks_merge_with_a_neighbour():
    body = "The body of the section says something worth finding in a search. " * 3
    doc = _doc(
        Block("Introduction", ("Introduction",)),  # a lone heading: joins what it introduces
        Block(body, ("Introduction",)),
        Block("Details", ("Introduction", "Details")),  # introduces a deeper section
        Block(body + "\n\n" + body, ("Introduction", "Details")),
        Block("Share this page", ("Elsewhere",)),  # introduces nothing after it: joins before
    )
    chunks = chunk_document(doc, ChunkSettings(target_chars=300, overlap_chars=40))
    assert all(len(c.text) >= MIN_CHUNK_CHARS for c in chunks)
    assert all(doc.text[c.char_start:c.char_end] == c.text for c in chunks)
    assert chunks[0].text.startswith("Introduction\n\nThe body")
    assert chunks[0].heading_path == ("Introduction",)
    assert chunks[1].text.startswith("Details\n\nThe body")
    assert chunks[1].heading_path == ("Introduction", "Details")
    assert chunks[1].context_prefix == "Doc title > Introduction > Details"
    assert chunks[-1].text.endswith("Share this page")
    assert chunks[-1].heading_path == ("Introduction", "Details")


def test_a_short_section_joining_a_deeper_one_takes_the_deeper_heading():
    # two trials: a document's first section was cited by the title alone ("Office notes"
    # for "Office notes > Brand"); the deeper path holds the outer heading too
    body = "Box kites were invented by Lawrence Hargrave, an Australian engineer, in 1893."
    doc = _doc(Block("# Kites", ("Kites",), 2),
               Block("## Flying\n\n" + body + " " + body, ("Kites", "Flying"), 3))
    [chunk] = chunk_document(doc)
    assert chunk.heading_path == ("Kites", "Flying")
    assert (chunk.page, chunk.page_end) == (2, 3)  # its text runs from page 2 to page 3
    assert chunk.context_prefix == "Doc title > Kites > Flying"
    assert chunk.text == doc.text
    # a short section holding a sentence keeps its own, outer path (the sentence is its)
    said = _doc(Block("# Kites\n\nA short intro.", ("Kites",), 2),
                Block("## Flying\n\n" + body + " " + body, ("Kites", "Flying"), 3))
    assert [c.heading_path for c in chunk_document(said)] == [("Kites",)]
    # a short piece of another section joins the one before and keeps that one's path
    other = _doc(Block(body + " " + body, ("Kites", "Flying"), 3), Block("Credits.", ("Notes",)))
    assert [c.heading_path for c in chunk_document(other)] == [("Kites", "Flying")]


def test_a_document_shorter_than_the_minimum_is_one_chunk():
    doc = _doc(Block("Tiny", ("Tiny",)), Block("note.", ("Tiny", "Sub")))
    chunks = chunk_document(doc)
    assert [(c.text, c.heading_path) for c in chunks] == [("Tiny\n\nnote.", ("Tiny", "Sub"))]
    said = chunk_document(_doc(Block("Tiny.", ("Tiny",)), Block("note.", ("Tiny", "Sub"))))
    assert [c.heading_path for c in said] == [("Tiny",)]


def test_the_minimum_is_at_most_half_the_target():
    assert min_chunk_chars(ChunkSettings()) == MIN_CHUNK_CHARS
    assert min_chunk_chars(ChunkSettings(target_chars=100, overlap_chars=10)) == 50


def test_sizes_count_code_points_not_bytes():
    spans = split_spans("汉" * 400, ChunkSettings())
    assert spans == [(0, 400)]


def test_bad_settings_are_rejected():
    with pytest.raises(ValueError):
        ChunkSettings(target_chars=100, overlap_chars=60)


def test_no_chunk_of_a_real_web_page_is_under_the_minimum():
    from pathlib import Path

    from kb.ingest.extract import extract

    pages = sorted((Path(__file__).parent / "fixtures" / "docs" / "html").glob("*/source.html"))
    assert len(pages) == 7
    for page in pages:
        doc = extract(page)
        chunks = chunk_document(doc)
        if len(doc.text) >= MIN_CHUNK_CHARS:
            assert min(len(c.text) for c in chunks) >= MIN_CHUNK_CHARS, page


def test_a_pdfs_wrapped_lines_are_cut_where_a_line_ends_a_sentence():
    # a PDF page's text keeps the page's line breaks: a trial's grant report was cited from
    # "measures how much carbon the salt marshes ..." (a break inside a sentence)
    words = [f"word{i}" for i in range(400)]
    lines, line = [], []
    for i, w in enumerate(words):  # lines of 9 words, a sentence every 13 words
        line.append(w + ("." if i % 13 == 12 else ""))
        if len(line) == 9:
            lines.append(" ".join(line))
            line = []
    text = "\n".join(lines)
    pdf = chunk_document(ExtractedDocument("Report", (Block(text),), "pdf"))
    plain = chunk_document(ExtractedDocument("Report", (Block(text),), "txt"))
    assert len(pdf) > 2 and all(text[c.char_start:c.char_end] == c.text for c in pdf)
    # every cut of the PDF falls after a line ending a sentence; a text file's (where a line
    # break is the author's) at any line break
    assert all(c.text.endswith(".") for c in pdf[:-1])
    assert not all(c.text.endswith(".") for c in plain[:-1])
    # a table's rows (a PDF's ruled table is written as one) end their lines too
    rows = "\n".join(f"| item {i} | {i * 7} |" for i in range(60))
    table = chunk_document(ExtractedDocument("Stock", (Block(rows),), "pdf"))
    assert len(table) > 1 and all(c.text.endswith("|") for c in table)
