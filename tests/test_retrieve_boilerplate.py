"""Reference-list share of a passage (kb.retrieve.boilerplate): hand-counted characters."""

import pytest

from kb.retrieve.boilerplate import is_reference, reference_share, segments

ENTRY = '^ Lee, S. (8 April 2014). "Title". sfgate.com. Retrieved 2014-07-01.'  # 68 chars
PROSE = "The firm bought the lab."  # 24 chars


def test_a_reference_list_is_all_reference_and_prose_is_none():
    assert reference_share(ENTRY + "\n" + ENTRY) == 1.0
    assert reference_share(PROSE + "\n" + PROSE) == 0.0
    assert reference_share("") == 0.0
    assert reference_share("  \n\n ") == 0.0


def test_the_share_is_weighted_by_characters():
    # 68 reference characters of 68 + 24 = 92
    assert reference_share(PROSE + "\n" + ENTRY) == pytest.approx(68 / 92)
    # "Engadget." (9 chars) has no marker: 68 of 68 + 9 = 77
    assert reference_share(ENTRY + "\nEngadget.") == pytest.approx(68 / 77)


@pytest.mark.parametrize("segment", [
    "Retrieved 2014-07-01.", "Retrieved July 1, 2014.", "Accessed on 3 May 2010.",
    'Archived from the original on 2015-01-02.', "doi:10.1000/182", "ISBN 978-3-16-148410-0",
    "Ergonomics, Vol. 36, pp. 211-7.", "See https://example.org/page", "github.com.",
    "History [ edit ]", "^ a b Smith (2001)", "（原始内容存档于2016-03-04）", "检索于2016年3月4日",
    '"The Hypocrisy Of Sam Yagan". 6 April 2014.',  # a year and a title, 15 chars beside it
    "《人工智能简史》 新华网 2016",  # 9 characters beside the title, 3 CJK: width 12
])
def test_citation_markers_and_titled_dated_entries_are_references(segment):
    assert is_reference(segment)


@pytest.mark.parametrize("segment", [
    PROSE,
    "Documents were retrieved from the archive in 2014.",  # lower-case: prose
    "Frone et al. (1992) found that conflict predicts turnover.",  # in-text citation
    # a year and a quoted phrase in a news sentence: 66 characters beside the quote
    'In 2016 he said it was "distressing" not to have made progress on the gun laws.',
    # 51 characters beside the title, 44 of them CJK: width 95
    "他在2016年写了《人工智能简史》这本书，讲述了机器学习从感知机到深度网络的漫长历史，以及其中许多研究者的故事和争论。",
    "谷歌在2014年收购了DeepMind。",
])
def test_prose_with_dates_names_or_quotes_is_no_reference(segment):
    assert not is_reference(segment)


def test_long_lines_are_cut_into_sentences_short_ones_are_kept_whole():
    long_line = " ".join([PROSE] * 16 + ["Retrieved 2014-07-01."])  # 16*25 + 21 = 421 chars
    parts = segments(long_line)
    assert len(parts) == 17 and parts[-1] == "Retrieved 2014-07-01."
    # only the last sentence is a reference: 21 of 16*24 + 21 = 405 characters
    assert reference_share(long_line) == pytest.approx(21 / 405)
    short = PROSE + " Retrieved 2014-07-01."  # 46 chars: one segment, all of it a reference
    assert segments(short) == [short] and reference_share(short) == 1.0
