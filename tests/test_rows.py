"""A table's data row read with its header row (``kb.retrieve.rows``) by the judge's best
sentence: a trial's bird survey showed its header row as the answer's place, never the row
holding the asked date and count."""

from __future__ import annotations

import itertools
from pathlib import Path

from kb.api import KnowledgeBase
from kb.config import Config
from kb.retrieve.answer_types import best_sentence, sentences
from kb.retrieve.rows import is_row, with_headers
from kb.retrieve.terms import content_terms


def test_rows_and_lines_outside_tables() -> None:
    assert is_row("| a | b |") and is_row("Date | Count") and is_row("| --- | --- |")
    assert not is_row("A sentence.") and not is_row("| |") and not is_row("a | ")


def test_each_data_row_gets_its_tables_header() -> None:
    lines = ["Counts:", "| Date | Count |", "| --- | --- |", "| 3 Feb | 12 |", "| 4 Feb | 9 |",
             "Then a line.", "Name | Phone", "Ann | 555"]
    assert with_headers(lines) == [
        "Counts:", "| Date | Count |", "| --- | --- |", "| Date | Count |\n| 3 Feb | 12 |",
        "| Date | Count |\n| 4 Feb | 9 |", "Then a line.", "Name | Phone",
        "Name | Phone\nAnn | 555"]
    assert with_headers([]) == []
    # a second Markdown table right after the first (sentences drop the blank line between)
    # has its own header (a review)
    two = ["| Date | Count |", "| --- | --- |", "| 3 Feb | 12 |", "| Name | Phone |",
           "| --- | --- |", "| Ann | 555 |"]
    assert with_headers(two) == [
        "| Date | Count |", "| --- | --- |", "| Date | Count |\n| 3 Feb | 12 |",
        "| Name | Phone |", "| --- | --- |", "| Name | Phone |\n| Ann | 555 |"]


def test_the_best_sentence_of_a_table_is_the_row_asked() -> None:
    text = ("| Date | Transect | Species | Count |\n| --- | --- | --- | --- |\n"
            "| 24 Feb | T1 | Teal | 7 |\n| 24 Feb | T4 | Goldeneye | 27 |\n"
            "| 25 Feb | T4 | Coot | 3 |")
    sents = sentences(text)
    terms = content_terms("How many Goldeneye were counted at T4 on 24 February?")
    focus = [t for t in terms if t.text in ("count", "februari")]
    best, cover, window = best_sentence(sents, terms, [1.0] * len(terms), focus, [1.0, 1.0],
                                        text)
    # both focus terms, the count under the header and the date in the row: full coverage;
    # of the rows so covered, the one holding Goldeneye, T4 and 24 too
    assert sents[best] == "| 24 Feb | T4 | Goldeneye | 27 |" and cover == 1.0
    assert "| 24 Feb | T4 | Goldeneye | 27 |" in window
    # prose is read as before: the sentence with the focus
    prose = ["The survey ran in February.", "Goldeneye were counted at T4: 27 birds."]
    best, cover, _ = best_sentence(prose, terms, [1.0] * len(terms), focus, [1.0, 1.0],
                                   " ".join(prose))
    assert best == 1 and cover == 0.5


def test_a_tables_answer_is_cited_from_its_row(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    birds = ["Teal", "Coot", "Goldeneye", "Mallard", "Goldeneye", "Tufted Duck"]
    rows = [f"| {day} Feb | T{t} | {bird} | {(day * t * 7 + len(bird)) % 60} |"
            for day, t in itertools.product((9, 16, 24), (1, 2, 3, 4))
            for bird in birds[(day + t) % 3:(day + t) % 3 + 3]]
    assert "| 24 Feb | T4 | Goldeneye | 21 |" in rows
    (docs / "survey.md").write_text(
        "# Reservoir winter bird survey\n\nGoldeneye and coot counts per transect (T1 to "
        "T4).\n\n| Date | Transect | Species | Count |\n| --- | --- | --- | --- |\n"
        + "\n".join(rows) + "\n", encoding="utf-8")
    (docs / "garden.md").write_text(
        "# Garden\n\nThe roses were pruned on 24 March; the hedge is cut every June.\n",
        encoding="utf-8")
    (docs / "club.md").write_text(
        "# Birding club\n\nThe club meets on Mondays. Members counted 40 swans last year at "
        "the lake.\n", encoding="utf-8")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([docs])
        result = kb.search("How many Goldeneye were counted at T4 on 24 February?")
    # read alone, the header row held the count and no row held February: refused, the
    # club's note first
    assert not result.insufficient_evidence
    assert Path(result.references[0].source).name == "survey.md"
    assert result.diagnostics.judge[0].best_sentence == "| 24 Feb | T4 | Goldeneye | 21 |"
