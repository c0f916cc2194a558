"""Another member of a list the passage makes (kb.retrieve.listmates), and a percent no price.

From a new-user trial: a shop's supplier note listed "供货：A、B、C" and then gave the shelf life
or the buying price of only some of them; a question about another listed item passed at 92%
and 78% on the mates' figures ("涨价 8%" was read as a price, too). The pure function is
checked on hand-made sentences, then the judge on a real note in a real index.
"""

from __future__ import annotations

from functools import partial

import pytest

from kb.retrieve.answer_types import novel_filler
from kb.retrieve.listmates import mates_filled
from kb.retrieve.terms import content_terms
from tests.test_judge_subject import indexed_notes, search


def _mates(query: str, sents: list[str]) -> tuple[str, ...]:
    terms = content_terms(query)
    filled = partial(lambda text, q, t: novel_filler(text, "number", q, t) is not None,
                     q=query, t=terms)
    return mates_filled(query, sents, filled)


@pytest.mark.parametrize(("query", "sents", "mates"), [
    # the figure asked is given only of the listed item's mates
    ("橙园的脐橙保质期是多久？", ["供货：脐橙、血橙、沃柑", "保质期：血橙 20 天，沃柑 15 天"],
     ("沃柑", "血橙")),
    ("How much does the copper kettle cost?",
     ["Stock: copper kettle, steel kettle and teapot.", "Prices: steel kettle £40, teapot £25."],
     ("steel kettle", "teapot")),
    # a clause naming the item asked may answer
    ("橙园的脐橙保质期是多久？", ["供货：脐橙、血橙、沃柑", "保质期：血橙 20 天，脐橙 30 天"], ()),
    # a clause naming no item may answer ("all keep for 20 days")
    ("橙园的脐橙保质期是多久？", ["供货：脐橙、血橙、沃柑", "保质期均为 20 天"], ()),
    # a list holding none of the question's items, or two of them, decides nothing
    ("橙园的金桔保质期是多久？", ["供货：脐橙、血橙、沃柑", "保质期：血橙 20 天"], ()),
    ("脐橙和血橙的保质期是多久？", ["供货：脐橙、血橙、沃柑", "保质期：沃柑 15 天"], ()),
    # a figure of no item may be the one asked, whatever follows it (a review: "30 天" was
    # carried into "血橙除外", and "其余" named nothing of the focus, so was not read)
    ("橙园的脐橙保质期是多久？", ["供货：脐橙、血橙、沃柑", "保质期 30 天（血橙除外）"], ()),
    ("橙园的脐橙保质期是多久？",
     ["供货：脐橙、血橙、沃柑", "血橙保质期 7 天。", "其余都是 10 天。"], ()),
    ("How much does the copper kettle cost?",
     ["Stock: copper kettle, steel kettle and teapot.", "Prices: £40 each, except the teapot."],
     ()),
    # a section of the passage headed by the item asked may answer
    ("橙园的脐橙保质期是多久？", ["- 供货：脐橙、血橙", "- 保质期：血橙 20 天", "## 脐橙",
                           "- 保质期 30 天"], ()),
    # numbered lines are no list ("4、母公司利润表" is a heading, "一、营业收入" a row)
    ("母公司利润表中本期净利润是多少？", ["4、母公司利润表", "三、利润总额 2,434,623.51"], ()),
    # another section (between Markdown headings) tells of other things: only the list's own
    # is read
    ("橙园的脐橙保质期是多久？", ["### 橙园", "- 供货：脐橙、血橙", "- 保质期：血橙 20 天",
                           "### 菜园", "- 保质期：30 天"], ("血橙",)),
    ("橙园的脐橙保质期是多久？", ["### 橙园", "- 供货：脐橙、血橙", "- 保质期：30 天"], ()),
])
def test_the_mates_of_a_listed_item(query, sents, mates):
    assert _mates(query, sents) == mates


def test_a_percent_after_a_price_word_is_no_price():
    q = "蜂蜜的进价是每斤多少钱？"
    assert novel_filler("2025年起蜂蜜涨价 8%。", "number", q, content_terms(q)) is None
    assert novel_filler("蜂蜜进价 每斤 60 元。", "number", q, content_terms(q)) == "60"
    q = "What is the price of the honey?"
    assert novel_filler("The price rose 8 percent.", "number", q, content_terms(q)) is None
    assert novel_filler("Its price is 12.", "number", q, content_terms(q)) == "12"


NOTES = {
    "suppliers.md": "# 街角小店供应商\n\n## 果园直供\n\n- 联系人：陈果\n"
                    "- 供货：脐橙、血橙、沃柑，每次起订 20 公斤\n"
                    "- 进价：血橙 每斤 9 元，沃柑 每斤 7 元\n- 保质期：血橙 20 天，沃柑 15 天\n\n"
                    "## 注意事项\n\n- 2025年起果园直供的脐橙涨价 8%。\n",
}


@pytest.fixture(scope="module")
def notes_db(tmp_path_factory: pytest.TempPathFactory):
    return indexed_notes(tmp_path_factory.mktemp("listmates"), NOTES)


@pytest.mark.parametrize("query", ["脐橙的进价是每斤多少钱？", "果园直供的脐橙保质期是多少天？"])
def test_a_listed_items_unstated_figure_is_refused(notes_db, query):
    assert search(notes_db, query)["insufficient_evidence"] is True


@pytest.mark.parametrize(("query", "answer"), [("血橙的进价是每斤多少钱？", "9 元"),
                                               ("沃柑的保质期是多少天？", "15 天")])
def test_a_mates_own_figure_still_passes(notes_db, query, answer):
    result = search(notes_db, query)
    assert result["insufficient_evidence"] is False
    assert answer in result["references"][0]["text"]
