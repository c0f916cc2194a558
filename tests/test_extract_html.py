"""HTML extraction on real pages (mozilla/readability test pages) and small edge cases."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kb.errors import EmptyDocumentError
from kb.ingest.extract import extract, read_as
from kb.ingest.extract.html import extract_html

HTML = Path(__file__).parent / "fixtures" / "docs" / "html"


def _expected_title(name: str) -> str:
    return json.loads((HTML / name / "expected-metadata.json").read_text("utf-8"))["title"]


def test_heise_drops_nav_footer_scripts_and_keeps_headings() -> None:
    source = (HTML / "heise" / "source.html").read_text("utf-8")
    # The strings below really are in the page, inside <nav>, <footer> and <script>.
    for present in ("Tarifrechner", "Kommentare lesen", "dfp_ord", "vgwort_token"):
        assert present in source
    doc = extract(HTML / "heise" / "source.html")
    text = doc.text
    for dropped in ("Tarifrechner", "Kommentare lesen", "dfp_ord", "vgwort_token", "jQuery"):
        assert dropped not in text
    assert doc.source_type == "html"
    assert doc.title.startswith(_expected_title("heise"))
    article = next(b for b in doc.blocks if "AgileBits hat Version 5.3" in b.text)
    assert article.heading_path == ("1Password für Mac generiert Einmal-Passwörter",)
    assert "Unterstützt wird dabei der TOTP-Standard" in article.text
    # <meta name="date" content="2015-04-08T12:46:00">: no zone given, taken as UTC.
    assert doc.created_at == datetime(2015, 4, 8, 12, 46, tzinfo=UTC)


def test_script_tags_removed_everywhere() -> None:
    doc = extract(HTML / "remove-script-tags" / "source.html")
    assert "alert" not in doc.text
    assert "super wrong" not in doc.text
    assert doc.title == "Remove script tags test"
    # Readability keeps the two <div>s of the <article> (as expected.html does), not its
    # headings: the h1 just before the content still names it; the h2 between them is lost.
    assert [b.heading_path for b in doc.blocks] == [("Lorem",)]
    # Text on both sides of an inline <script> inside one <p> is kept, joined by a space.
    assert "cillum dolore eu fugiat nulla pariatur. Excepteur sint occaecat" in doc.blocks[0].text
    whole = extract_html(HTML / "remove-script-tags" / "source.html", main_content=False)
    assert [b.heading_path for b in whole.blocks] == [("Lorem",), ("Lorem", "Foo")]
    assert "alert" not in whole.text and "super wrong" not in whole.text


def test_style_tags_removed() -> None:
    source = (HTML / "style-tags-removal" / "source.html").read_text("utf-8")
    assert "font-size" in source or "color" in source
    doc = extract(HTML / "style-tags-removal" / "source.html")
    assert "{" not in doc.text and "color" not in doc.text
    assert "Lorem ipsum dolor sit amet, consectetur adipisicing elit" in doc.text


def test_hidden_nodes_are_dropped_but_their_headings_kept() -> None:
    doc = extract(HTML / "hidden-nodes" / "source.html")
    title = _expected_title("hidden-nodes")
    assert doc.title == title
    assert [b.heading_path for b in doc.blocks] == [
        (title,),
        (title, "Secondary header"),
        (title, "Third header"),
    ]
    # Three identical paragraphs, each saying "Stet clita" 3 times; two are hidden
    # (style="display: none;" and the hidden attribute).
    source = (HTML / "hidden-nodes" / "source.html").read_text("utf-8")
    assert source.count("Stet clita kasd gubergren") == 9
    assert doc.text.count("Stet clita kasd gubergren") == 3
    assert doc.blocks[1].text == "Secondary header"
    assert doc.blocks[2].text == "Third header"


def test_qq_page_declares_gb2312_but_is_utf8_and_decodes_to_chinese() -> None:
    raw = (HTML / "qq" / "source.html").read_bytes()
    assert b"charset=gb2312" in raw
    doc = extract(HTML / "qq" / "source.html")
    assert doc.title == _expected_title("qq")
    assert "DeepMind新电脑已可利用记忆自学" in doc.title
    assert "谷歌(微博) 在2014年收购的人工智能公司DeepMind" in doc.text
    heading = next(b for b in doc.blocks if "可微神经计算机" in b.text).heading_path
    assert heading == ("DeepMind新电脑已可利用记忆自学 人工智能迈上新台阶",)
    assert "鏂" not in doc.text  # the mojibake a gb2312 decode of UTF-8 bytes produces


def test_gb2312_page_with_real_gbk_bytes(tmp_path: Path) -> None:
    # "镕" is in GBK but not in GB2312: the label is decoded with its superset, as browsers do.
    page = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312">'
        "<title>测试页面</title></head><body><h1>标题</h1><p>这是正文内容，朱镕基。</p>"
        "</body></html>"
    )
    path = tmp_path / "gbk.html"
    path.write_bytes(page.encode("gbk"))
    doc = extract(path)
    assert doc.title == "测试页面"
    assert doc.blocks[0].heading_path == ("标题",)
    assert doc.blocks[0].text == "标题\n这是正文内容，朱镕基。"


def test_tables_become_pipe_joined_rows() -> None:
    doc = extract(HTML / "keep-tabular-data" / "source.html")
    assert doc.title == _expected_title("keep-tabular-data")
    rows = [line for b in doc.blocks for line in b.text.split("\n") if " | " in line]
    assert any("General UX" in row and "UX draft" in row for row in rows)


def test_wikipedia_infobox_rows_and_section_paths() -> None:
    doc = extract(HTML / "wikipedia" / "source.html")
    assert doc.title == "Mozilla - Wikipedia"
    assert "Industry | Open-source software" in doc.text
    history = next(b for b in doc.blocks if "Netscape made two announcements" in b.text)
    assert history.heading_path[0] == "Mozilla"
    assert history.heading_path[1].startswith("History")


def test_empty_body_is_empty_document(tmp_path: Path) -> None:
    path = tmp_path / "blank.htm"
    path.write_text(
        "<html><head><title>T</title><script>var x = 1;</script></head>"
        "<body><nav>Home</nav><div style='display:none'>secret</div></body></html>",
        encoding="utf-8",
    )
    with pytest.raises(EmptyDocumentError, match="no visible text"):
        extract(path)


def test_layout_table_keeps_headings(tmp_path: Path) -> None:
    path = tmp_path / "layout.html"
    path.write_text(
        "<table><tr><td><h1>Main</h1><p>Body text.</p>"
        "<table><tr><th>k</th><td>v</td></tr></table></td></tr></table>",
        encoding="utf-8",
    )
    doc = extract(path)
    assert doc.title == "Main"
    assert doc.blocks[0].heading_path == ("Main",)
    assert doc.blocks[0].text == "Main\nBody text.\nk | v"


def test_naive_meta_date_is_taken_as_utc(tmp_path: Path) -> None:
    path = tmp_path / "dated.html"
    path.write_text(
        '<meta property="article:published_time" content="2020-02-03T04:05:06"><p>Dated text.</p>',
        encoding="utf-8",
    )
    assert extract(path).created_at == datetime(2020, 2, 3, 4, 5, 6, tzinfo=UTC)


def test_deeply_nested_markup_does_not_hit_the_recursion_limit(tmp_path: Path) -> None:
    path = tmp_path / "deep.html"
    path.write_text("<div>" * 5000 + "<p>deep text</p>" + "</div>" * 5000, encoding="utf-8")
    assert [b.text for b in extract(path).blocks] == ["deep text"]


def test_main_content_leaves_out_the_page_chrome() -> None:
    # heise: the sidebar's "Top-News" teasers and the comment prompt are visible text
    # outside <nav>/<footer>, so only main-content extraction leaves them out.
    page = HTML / "heise" / "source.html"
    whole, main = extract_html(page, main_content=False), extract_html(page)
    assert len(main.text) < len(whole.text) / 2
    assert "Unterstützt wird dabei der TOTP-Standard" in main.text
    teaser = '"Fotos" und mehr: Apple stellt OS X 10.10.3 zum Download bereit'
    assert teaser in whole.text and teaser not in main.text


def test_data_table_cells_with_chrome_like_classes_are_kept() -> None:
    # Its header row's cells have class="header_cell", a name readability treats as chrome.
    doc = extract(HTML / "keep-tabular-data" / "source.html")
    rows = [line for b in doc.blocks for line in b.text.split("\n") if " | " in line]
    assert " | General UX | UX draft | UX review | UI mockup | UI review | Implementation draft" \
        " | Implementation review | Final review" in rows


def test_page_without_main_content_falls_back_to_its_visible_text(tmp_path: Path) -> None:
    path = tmp_path / "list.html"  # readability keeps nothing of a page that is only a list
    path.write_text("<title>Shopping</title><nav>Home</nav><ul><li>apples</li><li>pears</li></ul>",
                    encoding="utf-8")
    doc = extract(path)
    assert doc.title == "Shopping"
    assert doc.text == "apples\npears"


PAGE = ("\ufeff\n  <!DOCTYPE html>\n<html><head><title>Kite history</title>"
        "<script>var tracker = 'pixel';</script></head><body><nav>Home | About | Shop</nav>"
        "<article><h1>Box kites</h1><p>Box kites were invented by Lawrence Hargrave in 1893."
        "</p></article></body></html>\n")


@pytest.mark.parametrize(("name", "opening"), [
    ("saved.txt", ""), ("saved.md", ""), ("SAVED.TXT", ""),
    # what browsers and editors write before the doctype (a review)
    ("saved.txt", "<!-- saved from url=(0042)https://example.org/kites -->\n"),
    ("saved.txt", '<?xml version="1.0" encoding="utf-8"?>\n<!--[if IE]><![endif]-->\n'),
    # forty comments first: a pattern backtracked for minutes over them (a review)
    ("saved.md", "".join(f"<!-- lint-disable rule{i} -->\n" for i in range(40))),
])
def test_a_web_page_saved_under_a_text_suffix_is_read_as_html(tmp_path: Path, name: str,
                                                                opening: str) -> None:
    # a new-user trial: a page saved as .txt was indexed as its raw markup and script
    path = tmp_path / name
    path.write_text(opening + PAGE.lstrip("\ufeff\n ") if opening else PAGE, encoding="utf-8")
    doc = extract(path)
    assert doc.source_type == "html" and doc.title == "Kite history"
    assert "Lawrence Hargrave in 1893" in doc.text
    assert "<" not in doc.text and "tracker" not in doc.text
    assert doc.warnings[0].startswith(f"an HTML page in a {path.suffix} file: read as HTML")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_web_page_saved_as_utf16_text_is_read_as_html(tmp_path: Path, encoding: str) -> None:
    # a trial: Notepad's "Unicode" (UTF-16) kept the page's markup in the index
    path = tmp_path / "saved.txt"
    path.write_bytes(PAGE.lstrip("\ufeff").encode(encoding))  # "utf-16" writes a BOM
    doc = extract(path)
    assert read_as(path) == ".html" and doc.title == "Kite history"
    assert "Lawrence Hargrave in 1893" in doc.text and "<" not in doc.text
    text = tmp_path / "plain.txt"  # UTF-16 prose that names a tag stays text
    text.write_bytes("Write <html> first.\n".encode(encoding))
    assert read_as(text) == ".txt" and "<html>" in extract(text).text


def test_a_note_opening_with_many_comments_is_read_at_once_as_text(tmp_path: Path) -> None:
    path = tmp_path / "lint.md"
    path.write_text("".join(f"<!-- lint-disable rule{i} -->\n" for i in range(60))
                    + "# Kites\n\nBox kites fly.\n", encoding="utf-8")
    assert read_as(path) == ".md" and "Box kites fly." in extract(path).text


def test_text_that_only_mentions_html_stays_text(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("How to start a page:\n<!DOCTYPE html> then <html>.\n", encoding="utf-8")
    doc = extract(path)
    assert doc.source_type == "txt" and "<!DOCTYPE html>" in doc.text and not doc.warnings
