"""Plain text and Markdown extraction: encodings, newlines, headings, fences."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import DOCS

from kb.cli import cli
from kb.errors import CorruptError, EmptyDocumentError, UnsupportedTypeError
from kb.ingest.extract import SUPPORTED_SUFFIXES, extract
from kb.ingest.extract.cleaning import clean_text
from kb.ingest.extract.text import is_blank_text

# Latin text with cp1252-only punctuation (curly quotes, em dash, ellipsis, euro sign).
# charset-normalizer alone guesses cp1257 for these bytes ("naļve", "faēade").
LATIN = (
    "Café naïve résumé — “quoted” text about the façade of the old théâtre.\n"
    "The crème brûlée was served à la carte; the maître d’hôtel said: «Voilà!» "
    "It cost 12 € or £10.\n\n"
    "Señor Muñoz met Zoë and Björn at the Straße café; they discussed coöperation, "
    "the naïveté of the jalapeño plan, and ‘smart’ quotes… "
    "Déjà vu in Montréal: über-cool façades, piñatas, and a soupçon of élan.\n"
)

CHINESE = (
    "知识库检索测试文档。本文用于检查简体中文文本在旧式编码下能否被正确解码，"
    "而不会变成乱码。离线运行的检索引擎需要支持中文、英文以及其他多种语言的文档，"
    "并且在切分段落时识别中文标点符号，例如句号、问号和感叹号！最后一句话到此结束。\n"
)


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_supported_suffixes() -> None:
    assert SUPPORTED_SUFFIXES == frozenset(
        {".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".docx"}
    )


@pytest.mark.parametrize("suffix", [".txt", ".md"])
def test_same_text_in_seven_encodings_gives_identical_blocks(tmp_path: Path, suffix: str) -> None:
    assert len(LATIN) > 300
    variants = {
        "utf8": LATIN.encode("utf-8"),
        "utf8bom": codecs.BOM_UTF8 + LATIN.encode("utf-8"),
        "utf16le": codecs.BOM_UTF16_LE + LATIN.encode("utf-16-le"),
        "utf16be": codecs.BOM_UTF16_BE + LATIN.encode("utf-16-be"),
        # without a byte-order mark (a trial: read as UTF-8 with a NUL between letters)
        "utf16le-nobom": LATIN.encode("utf-16-le"),
        "utf16be-nobom": LATIN.encode("utf-16-be"),
        "cp1252": LATIN.encode("cp1252"),
    }
    docs = {
        name: extract(_write(tmp_path, f"note-{name}{suffix}", data))
        for name, data in variants.items()
    }
    expected = docs["utf8"].blocks
    assert expected[0].text.startswith("Café naïve résumé — “quoted”")
    assert "\ufeff" not in docs["utf8bom"].text
    for name, doc in docs.items():
        assert doc.blocks == expected, name
    assert docs["cp1252"].text == LATIN.strip()


@pytest.mark.parametrize("encoding", ["gbk", "gb18030"])
def test_chinese_legacy_encoding_is_detected(tmp_path: Path, encoding: str) -> None:
    doc = extract(_write(tmp_path, "zh.txt", CHINESE.encode(encoding)))
    assert doc.text == CHINESE.strip()


# a trial's one-line GBK notes: charset-normalizer read them as Big5, CP949, CP932, CP874
SHORT_GBK = ["借期十天。", "会费每季度一百二十元。", "水泵坏了，找吴师傅修。",
             "钢琴调律三百五十元。",
             "买菜：鸡蛋、西红柿、土豆。", "周六上午值班：郑美玲"]


@pytest.mark.parametrize("text", SHORT_GBK)
def test_a_line_of_gbk_is_read_as_chinese(tmp_path: Path, text: str) -> None:
    assert extract(_write(tmp_path, "note.txt", text.encode("gbk"))).text == text


@pytest.mark.parametrize(("text", "encoding"), [
    ("회비는 분기마다 십이만 원입니다.", "euc-kr"),
    ("피아노 조율은 삼십오만 원입니다.", "euc-kr"),
    ("会議は明日の午後三時に二階の会議室で行います。", "cp932"),
    ("ピアノの調律は三万五千円です。", "cp932"),
])
def test_korean_and_japanese_bytes_read_as_gb18030_are_no_chinese(text: str,
                                                                   encoding: str) -> None:
    from kb.ingest.extract.gb_text import gb_reading, han_word_share

    data = text.encode(encoding)
    assert gb_reading(data, text) is None
    assert gb_reading(data, "") is None  # not even against a guess holding no Chinese
    assert han_word_share(data.decode("gb18030", "replace")) < 0.3


def test_only_a_short_text_is_read_again_as_gb18030() -> None:
    from kb.ingest.extract.gb_text import MAX_BYTES, gb_reading

    line = "会费每季度一百二十元。\n"
    short = line.encode("gbk") * (MAX_BYTES // len(line.encode("gbk")))
    assert len(short) <= MAX_BYTES and gb_reading(short, "") == short.decode("gbk")
    # longer text is charset detection's to read (jieba over megabytes took seconds)
    assert gb_reading(short + line.encode("gbk"), "") is None


def test_the_share_of_han_characters_in_dictionary_words() -> None:
    from kb.ingest.extract.gb_text import han_word_share

    # 钢琴 and 三百五十 are dictionary words; 调律 (no frequency) and 元 (one character) not
    assert han_word_share("钢琴调律三百五十元。") == pytest.approx(6 / 9)
    assert han_word_share("明天下午") == 1.0 and han_word_share("no Han") == 0.0
    assert han_word_share("質ぶ坋毞﹝") == 0.0


def test_cyrillic_cp1251_is_detected(tmp_path: Path) -> None:
    text = (
        "Широкая электрификация южных губерний даст мощный толчок подъёму сельского "
        "хозяйства. Съешь же ещё этих мягких французских булок, да выпей чаю."
    )
    assert extract(_write(tmp_path, "ru.txt", text.encode("cp1251"))).text == text


def test_crlf_and_nul_are_normalised(tmp_path: Path) -> None:
    doc = extract(_write(tmp_path, "dos.txt", b"first line\r\nsecond\x00 line\rthird\r\n"))
    assert doc.text == "first line\nsecond line\nthird"
    assert doc.title == "dos"
    assert doc.source_type == "txt"
    assert all("\x00" not in b.text and "\r" not in b.text for b in doc.blocks)
    # said, not silent (a new-user trial: the README promised a failure, kb said nothing)
    assert doc.warnings == ("1 NUL or control characters dropped (binary bytes in a text "
                            "file?)",)


def test_a_terminal_log_loses_its_escape_sequences_whole(tmp_path: Path) -> None:
    # a new-user trial: ESC went, "[31m" stayed in the indexed text
    log = b"\x1b[1;31mERROR\x1b[0m disk full\n\x1b]0;build\x07\x1b[2K done\n"
    for name in ("build.txt", "build.md"):
        doc = extract(_write(tmp_path, name, log))
        assert doc.text == "ERROR disk full\n done" and doc.warnings == ()  # formatting
    # tput's reset ("ESC ( B" then "ESC [ m"): gone whole too (a review)
    doc = extract(_write(tmp_path, "tput.txt", b"build: \x1b[31mFAILED\x1b(B\x1b[m at step 3\n"))
    assert doc.text == "build: FAILED at step 3" and doc.warnings == ()
    # an OSC never ended eats nothing after it: its ESC goes, said (a review: the rest of the
    # file was gone, in silence)
    for name in ("paste.md", "paste.txt"):
        doc = extract(_write(tmp_path, name, b"# S\n\nI pasted: \x1b]0;user@host\n\n## D\n\n"
                                              b"The budget is 12,000 EUR.\n"))
        assert doc.text.endswith("The budget is 12,000 EUR.") and "]0;user@host" in doc.text
        assert doc.warnings == ("1 NUL or control characters dropped (binary bytes in a text "
                                "file?)",)
    # colour codes alone are an empty file, skipped as a blank one is (a second trial: FAILED)
    assert is_blank_text(_write(tmp_path, "colours.txt", b"\x1b[31m\x1b[0m\n"))
    assert not is_blank_text(_write(tmp_path, "nuls.txt", b"\x00\x00\x00"))  # binary
    doc = extract(_write(tmp_path, "bell.md", b"# Bell\n\nring\x07\x07 twice\n"))
    assert doc.text.endswith("ring twice")
    assert doc.warnings == ("2 NUL or control characters dropped (binary bytes in a text "
                            "file?)",)


def test_empty_and_blank_text_files_are_empty_documents(tmp_path: Path) -> None:
    with pytest.raises(EmptyDocumentError, match="0 bytes"):
        extract(_write(tmp_path, "empty.txt", b""))
    with pytest.raises(EmptyDocumentError):
        extract(_write(tmp_path, "blank.md", b"  \n\n\t\r\n"))
    with pytest.raises(EmptyDocumentError):
        extract(_write(tmp_path, "nul.txt", b"\x00\x00\x00"))


def test_binary_content_is_not_decoded_into_mojibake(tmp_path: Path) -> None:
    with pytest.raises(CorruptError, match="encoding") as caught:
        extract(_write(tmp_path, "binary.txt", bytes(range(256)) * 8))
    assert caught.value.path == tmp_path / "binary.txt"


def test_unsupported_suffix(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedTypeError, match=r"'\.rtf'"):
        extract(_write(tmp_path, "letter.rtf", b"{\\rtf1 hello}"))


def test_uppercase_suffix_dispatches(tmp_path: Path) -> None:
    assert extract(_write(tmp_path, "README.MD", b"# Title\nbody\n")).source_type == "md"


def test_missing_file_is_an_extract_error(tmp_path: Path) -> None:
    with pytest.raises(CorruptError, match="cannot read"):
        extract(tmp_path / "gone.md")


MARKDOWN = """Intro text before any heading.

# Guide

Welcome paragraph.

Second paragraph under Guide.

## Install ##

Run the installer.

```bash
# not a heading: a shell comment
pip install kb
```

~~~
## also not a heading
~~~

### Linux

Use the package manager.

## Usage

Search things.

# Appendix
#hashtag is not a heading either
"""


def test_markdown_splits_at_atx_headings_outside_fences(tmp_path: Path) -> None:
    doc = extract(_write(tmp_path, "guide.md", MARKDOWN.encode()))
    assert doc.title == "Guide"
    assert doc.source_type == "md"
    paths = [b.heading_path for b in doc.blocks]
    assert paths == [
        (),
        ("Guide",),
        ("Guide", "Install"),
        ("Guide", "Install", "Linux"),
        ("Guide", "Usage"),
        ("Appendix",),
    ]
    install = doc.blocks[2].text
    assert install.startswith("## Install ##")
    assert "# not a heading: a shell comment" in install
    assert "## also not a heading" in install
    assert "Welcome paragraph.\n\nSecond paragraph under Guide." in doc.blocks[1].text
    assert doc.blocks[0].text == "Intro text before any heading."
    assert "#hashtag is not a heading either" in doc.blocks[-1].text


def test_markdown_without_h1_is_titled_by_stem(tmp_path: Path) -> None:
    doc = extract(_write(tmp_path, "release-notes.markdown", b"## Fixes\n\n- crash on start\n"))
    assert doc.title == "release-notes"
    assert doc.blocks[0].heading_path == ("Fixes",)


def test_markdown_unclosed_fence_swallows_later_hashes(tmp_path: Path) -> None:
    doc = extract(_write(tmp_path, "code.md", b"# Top\n```\n# inside\n"))
    assert [b.heading_path for b in doc.blocks] == [("Top",)]
    assert "# inside" in doc.text


MIXED = ("Café crème brûlée is served at the Zürich café every morning.\n".encode()
         + "Le déjeuner est prêt à midi.\n".encode("cp1252")  # pasted from a cp1252 file
         + "Die Möwe fliegt über den See.\n".encode() * 3)


def _documents(line: str) -> list[dict]:
    """The documents of one line of `kb docs --json` (an object, or a list of them)."""
    found = json.loads(line)
    return found if isinstance(found, list) else [found]


def _indexed_with_warning(tmp_path: Path, name: str, data: bytes) -> tuple[str, str]:
    """Index one file (BM25 only): its ingest report's WARN line and its shown text."""
    path = _write(tmp_path, name, data)
    db = str(tmp_path / "kb.db")
    r = CliRunner().invoke(cli, ["--db", db, "--embedder", "none", "ingest", str(path)])
    assert r.exit_code == 0 and "1 added" in r.output, r.output
    warn = next(line for line in r.output.splitlines() if line.startswith("WARN     " + str(path)))
    return warn, CliRunner().invoke(cli, ["--db", db, "show", f"doc:{path}"]).output


@pytest.mark.parametrize("name", ["mixed.txt", "mixed.md"])
def test_a_mixed_encoding_file_is_indexed_readable_with_a_warning(tmp_path: Path,
                                                                   name: str) -> None:
    warn, text = _indexed_with_warning(tmp_path, name, MIXED)
    assert "3 undecodable characters replaced with U+FFFD" in warn
    assert "Zürich" in text and "Möwe fliegt über" in text  # UTF-8 kept, not mojibake
    assert "Le d\ufffdjeuner est pr\ufffdt \ufffd midi." in text  # nothing else lost
    # kept with the document once (a streamed .txt file's was only printed)
    assert _kept_warnings(tmp_path) == [warn.split(": ", 1)[1]]


def _kept_warnings(tmp_path: Path) -> list[str]:
    """The warnings `kb docs --json` lists for the index's documents."""
    docs = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "docs", "--json"]).stdout
    return [w for line in docs.splitlines() if line.strip().startswith(("{", "["))
            for d in _documents(line) for w in d["warnings"]]


# lines in three encodings: detection finds none for the whole (a new-user trial's file lost all
# of its text as "binary content?")
THREE = ("UTF-8 line: the café opens at eight.\n".encode()
         + "Latin-1 line: élève et garçon.\n".encode("latin-1")
         + "GBK 行：今天天气很好，我们去公园散步。\n".encode("gbk")
         + "更多中文内容在这里，用 UTF-8 写的。\n".encode() * 3)


@pytest.mark.parametrize("name", ["three.txt", "three.md"])
def test_lines_in_several_encodings_keep_their_utf8_text_with_a_warning(tmp_path: Path,
                                                                        name: str) -> None:
    warn, text = _indexed_with_warning(tmp_path, name, THREE)
    assert "mixed or damaged encoding" in warn
    assert "the café opens at eight" in text and "更多中文内容在这里" in text
    assert "\ufffd" in text  # what no encoding read is marked, not turned into mojibake


@pytest.mark.parametrize("name", ["mixed.txt", "mixed.md"])
def test_utf16_without_a_byte_order_mark_is_read_and_said_guessed(tmp_path: Path,
                                                                  name: str) -> None:
    text = "Kettles are descaled monthly. 一号水壶用柠檬酸除垢。 Tea at 80 °C.\n"
    for encoding in ("utf-16-le", "utf-16-be"):
        (folder := tmp_path / encoding).mkdir()
        warn, indexed = _indexed_with_warning(folder, name, text.encode(encoding))
        assert f"read as {encoding}, guessed from its bytes" in warn
        assert "Kettles are descaled monthly. 一号水壶用柠檬酸除垢。 Tea at 80 °C." in indexed
    # small numbers in two bytes each: NULs at one parity, but no text
    with pytest.raises(CorruptError, match="binary content"):
        extract(_write(tmp_path, "samples.txt", bytes([1, 0, 2, 0, 3, 0, 200, 0]) * 100))
    # a review: NUL-ended words of one length put their NULs at one parity too; valid UTF-8,
    # they stay UTF-8 (they had been read as CJK-looking pairs, or failed when of odd length)
    words = b"".join(w + b"\0" for w in (b"apple", b"grape", b"lemon", b"melon") * 30)
    for data in (words, words + b"\n"):
        assert extract(_write(tmp_path, "words.txt", data)).text.startswith("apple grape lemon")
    # a second review: ASCII text with one 一 (U+4E00: a NUL low byte) is valid UTF-8 too
    step = ("Kettles are descaled monthly with citric acid.\n" * 20 + "Step 一 is to boil.\n")
    assert "Step 一 is to boil." in extract(_write(tmp_path, "step.txt",
                                                  step.encode("utf-16-le"))).text
    # a UTF-16 file cut one byte short is read, not failed
    cut = "Kettles are descaled monthly with citric acid.\n".encode("utf-16-le") * 20 + b"K"
    assert "descaled monthly" in extract(_write(tmp_path, "cut.txt", cut)).text


def test_binary_content_without_nul_bytes_is_still_binary(tmp_path: Path) -> None:
    # control bytes, no NUL: not text in mixed encodings (looks_like_text)
    with pytest.raises(CorruptError, match="binary content"):
        extract(_write(tmp_path, "controls.txt", bytes(range(1, 256)) * 8))


# a note saved by an old Windows editor: kb reads it in the code page its bytes suggest, and
# says that it guessed (a short text's guess can be wrong: cp1252 for cp1250)
@pytest.mark.parametrize("name", ["legacy.txt", "legacy.md", "legacy.html"])
def test_a_file_in_a_guessed_encoding_is_indexed_with_a_warning(tmp_path: Path,
                                                                name: str) -> None:
    warn, text = _indexed_with_warning(tmp_path, name, LATIN.encode("cp1252"))
    assert "not UTF-8: read as cp1252, guessed from its bytes" in warn
    assert "save it as UTF-8" in warn
    assert "Café naïve résumé" in text
    # kept with the document once, for `kb docs` after the ingest's output is gone
    kept = _kept_warnings(tmp_path)
    assert [w for w in kept if "read as cp1252, guessed from its bytes" in w] == [
        warn.split(": ", 1)[1]], kept


@pytest.mark.parametrize("data", [LATIN.encode(), codecs.BOM_UTF16_LE + LATIN.encode("utf-16-le")],
                         ids=["utf8", "utf16-bom"])
@pytest.mark.parametrize("suffix", [".txt", ".md", ".html"])
def test_a_file_whose_encoding_is_known_gets_no_warning(tmp_path: Path, data: bytes,
                                                        suffix: str) -> None:
    path = _write(tmp_path, f"known{suffix}", data)
    r = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "--embedder", "none",
                                 "ingest", str(path)])
    assert r.exit_code == 0 and "1 added" in r.output, r.output
    assert f"WARN     {path}" not in r.output and "guessed" not in r.output


def test_a_declared_html_charset_is_no_guess(tmp_path: Path) -> None:
    page = f"<html><head><meta charset='windows-1252'></head><body><p>{LATIN}</p></body></html>"
    doc = extract(_write(tmp_path, "declared.html", page.encode("cp1252")))
    assert "Café naïve résumé" in doc.text
    assert doc.warnings == ()
    guessed = extract(_write(tmp_path, "undeclared.html", page.replace(
        "<meta charset='windows-1252'>", "").encode("cp1252")))
    assert guessed.text == doc.text
    assert [w for w in guessed.warnings if "guessed from its bytes" in w]


# a new user: a PDF renamed .txt and a DOCX renamed .md said only "binary content?"
@pytest.mark.parametrize(("source", "name", "kind"), [
    ("pdf", "report.txt", "a PDF file; rename it to .pdf"),
    ("docx", "letter.md", "a Word \\(DOCX\\) file; rename it to .docx"),
])
def test_a_known_binary_format_under_a_text_suffix_is_named(tmp_path: Path, source: str,
                                                             name: str, kind: str) -> None:
    real = sorted((DOCS / source).glob(f"*.{source}"))[0]
    with pytest.raises(CorruptError, match=f"not text: the bytes are {kind} to index it"):
        extract(_write(tmp_path, name, real.read_bytes()))


def test_a_pdf_of_plain_ascii_under_another_suffix_is_named_not_indexed(tmp_path: Path) -> None:
    # a trial: reportlab's uncompressed PDF is mostly ASCII, so renamed .html (or .md, .txt)
    # it decoded as text and its raw objects ("%PDF-1.4 ... 1 0 obj << /F1 2 0 R") were indexed
    canvas = pytest.importorskip("reportlab.pdfgen.canvas")
    pdf = tmp_path / "grant.pdf"
    page = canvas.Canvas(str(pdf), pageCompression=0)
    page.drawString(72, 720, "The total award is 318,000 pounds over three years.")
    page.save()
    data = pdf.read_bytes()
    assert data.isascii() or data[:400].count(b"\n") > 3  # text-like bytes, as the trial's
    for name in ("grant.html", "grant.md", "grant.txt"):
        with pytest.raises(CorruptError, match="not text: the bytes are a PDF file; rename it "
                                               "to .pdf to index it"):
            extract(_write(tmp_path, name, data))
    with pytest.raises(CorruptError, match=r"not a valid DOCX file \(not a ZIP archive: the "
                                           r"bytes are a PDF file; rename it to \.pdf"):
        extract(_write(tmp_path, "grant.docx", data))
    docx = sorted((DOCS / "docx").glob("*.docx"))[0].read_bytes()
    with pytest.raises(CorruptError, match=r"not a valid PDF file \(no %PDF header: the bytes "
                                           r"are a Word \(DOCX\) file; rename it to \.docx"):
        extract(_write(tmp_path, "letter.pdf", docx))
    assert "318,000" in extract(pdf).text  # the PDF itself reads
    # a note opening with "%PDF" as prose is text (a trial's was refused as a PDF): a PDF
    # file has an object after its header
    for prose in ("%PDF export settings are in the File menu.\n",
                  "%PDF-1.4 is the version our printer vendor recommends.\n"):
        assert extract(_write(tmp_path, "note.md", prose.encode())).text == prose.strip()


def test_a_binary_format_kb_does_not_read_gets_no_rename_advice(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8  # a PNG's signature, then binary
    with pytest.raises(CorruptError, match=r"image/png \(\.png\), a type kb does not read"):
        extract(_write(tmp_path, "photo.txt", png))


@pytest.mark.parametrize("name", ["nul.txt", "nul.md"])
def test_nul_bytes_in_a_text_file_are_dropped_and_said_once(tmp_path: Path, name: str) -> None:
    # the streamed .txt path and the Markdown one alike; kept for `kb docs`
    warn, text = _indexed_with_warning(tmp_path, name, b"The kettle is a KX-200.\x00\x00 Descale"
                                                       b" it monthly.\n")
    assert warn.endswith(": 2 NUL or control characters dropped (binary bytes in a text file?)")
    assert "The kettle is a KX-200. Descale it monthly." in text
    assert _kept_warnings(tmp_path) == [warn.split(": ", 1)[1]]


@pytest.mark.parametrize("name", ["list.txt", "list.md"])
def test_nul_and_the_separators_between_words_keep_them_apart(tmp_path: Path, name: str) -> None:
    # a trial: "nul\0bytes" was indexed as one word "nulbytes"; `find -print0`'s list as one
    doc = extract(_write(tmp_path, name, b"Kettles\x00descaled monthly: ./kettle.md\x00./tea.md"
                                         b"\x00\x00\nrecord\x1eunit\x1ffield\x0bend \x00 here\n"))
    assert "Kettles descaled monthly: ./kettle.md ./tea.md" in doc.text
    assert "record unit field end here" in doc.text
    tsv = extract(_write(tmp_path, "table" + Path(name).suffix, b"bob\t\0\tparis\n"))
    assert tsv.text == "bob\t \tparis"  # columns kept (a review: the tabs went)
    assert doc.warnings == ("8 NUL or control characters dropped (binary bytes in a text "
                            "file?)",)
    # a PDF's NUL is an unmapped glyph inside a word: dropped (test_extract_pdf), not a space
    assert clean_text("de\x00fine") == "define"


def test_an_escape_sequence_cut_between_two_pieces_is_read_whole(tmp_path: Path) -> None:
    # a review: a colour code across the 1 MiB read boundary left "[31m" and a false warning
    from kb.ingest.extract.text import PIECE_BYTES

    for cut in (1, 3, 5):  # ESC | [31m, ESC [3 | 1m, and a CR before it
        head = b"y" * (PIECE_BYTES - cut - 2) + b"\r\n"
        doc = extract(_write(tmp_path, f"log{cut}.txt", head + b"\x1b[31mERROR\x1b[0m disk full\n"))
        assert doc.text.endswith("y\nERROR disk full") and doc.warnings == (), cut
