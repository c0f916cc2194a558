"""The other side of a contrast (kb.retrieve.contrasts) and a sibling's answers near the focus.

From a new-user trial over ten short notes: "When does the last Route 22 bus leave?" passed at
79% on "The first bus leaves at 04:40.", "行云 2 机器人的最高速度是多少？" at 98% on 行云 3's
specifications beside the firm's revenue and headcount, and "How much does the Voltra
Commuter 3 weigh?" at 57% on a note whose only weight word was a lamp's "front light". The pure
functions are checked on hand-made sentences; then the judge on real notes in a real index.
"""

from __future__ import annotations

import re

import pytest

from kb.retrieve.answer_types import novel_filler, sentences
from kb.retrieve.contrasts import contrast_filled
from kb.retrieve.siblings import siblings_filled
from kb.retrieve.terms import content_terms
from tests.test_judge_subject import indexed_notes, search


def _focus(query: str, *topic: str) -> list:
    return [t for t in content_terms(query) if t.text not in topic]


def _dated(query: str):
    return lambda text: novel_filler(text, "date", query) is not None


@pytest.mark.parametrize(("query", "text", "other"), [
    # the only dated clause names the other side
    ("When does the last bus leave?", "Fares rose in May. The first bus leaves at 05:30.",
     ("first",)),
    # a dated clause naming neither side may hold the answer: nothing decided
    ("When does the last bus leave?",
     "The first bus leaves at 05:30, and buses run until 23:10.", ()),
    # the side asked named: it answers
    ("When does the last bus leave?", "The first bus leaves at 05:30; the last at 23:10.", ()),
    # a question naming both sides asks no contrast
    ("When do the first and last buses leave?", "The first bus leaves at 05:30.", ()),
    # a question naming neither asks none
    ("When does the bus leave?", "The first bus leaves at 05:30.", ()),
    # Chinese: a term holding the side asked (期末考试) is told by its rest beside the other
    # side (期中考试), and the other dated sentences (开学) are then left aside
    ("期末考试是哪一天？", "本学期自 2 月 17 日开学。期中考试安排在 4 月 21 日。", ("期中",)),
    ("期末考试是哪一天？", "期中考试安排在 4 月 21 日，期末考试在 6 月 24 日。", ()),
    ("末班车几点发车？", "首班车 5 点 30 分发车。", ("首班",)),
    # a review's answering pairs: a side is asked and told of what follows it; "last" as a
    # verb or in "last year" asks none, "the first 24 months" is no first bus, "min" no
    # minimum, and a clause holding two times may hold the answer
    ("When does the last Route 9 bus leave?",
     "The first bus leaves at 05:30 and service ends at 23:55.", ()),
    ("How long does the Brio kettle warranty last?",
     "The kettle is covered for the first 24 months.", ()),
    ("How long did the strike last?", "It began on the first of March 2019.", ()),
    ("What was the revenue last year?", "In 2024 revenue rose above 40 million for the first "
     "time.", ()),
    ("When is the last bus?", "The first train leaves at 05:10.", ()),  # another head
    ("期末考试是哪一天？", "期中复习从 4 月 10 日开始。", ()),
])
def test_the_other_side_of_a_contrast(query, text, other):
    assert contrast_filled(query, sentences(text), _dated(query), _focus(query)) == other


def test_a_number_of_the_other_side():
    q = "What is the maximum load of the Atlas lift?"
    counted = lambda text: novel_filler(text, "number", q) is not None  # noqa: E731
    focus = _focus(q, "atla", "lift")
    assert contrast_filled(q, ["The minimum load is 5 kg."], counted, focus) == ("minimum",)
    assert contrast_filled(q, ["Its load is 5 to 250 kg."], counted, focus) == ()
    # "min" is minutes
    q2 = "How many minutes is the maximum lab session?"
    assert contrast_filled(q2, ["Sessions are capped at 90 min."], counted, _focus(q2)) == ()
    # the focus's sentences decide: a founding year elsewhere names no side but is left aside
    assert contrast_filled(q, ["Founded in 2001 with 12 staff.", "The minimum load is 5 kg."],
                           counted, focus) == ("minimum",)


XINGYUN = ["- 「行云 3」自主移动搬运机器人：额定载重 600 千克，最高速度每秒 1.5 米。",
           "2024 年公司营业收入为 3.2 亿元人民币，员工约 450 人。"]


def test_a_siblings_answers_next_to_the_focus_decide():
    q = "行云 2 机器人的最高速度是多少？"

    def numbered(text: str) -> bool:
        return re.search(r"\d", text) is not None

    # without the focus, the revenue and headcount clauses name no sibling: nothing decided
    assert siblings_filled(q, XINGYUN, numbered, "公司简介") == ()
    # the sentences naming the top speed are 行云 3's
    focus = _focus(q, "行云", "机器人")
    assert siblings_filled(q, XINGYUN, numbered, "公司简介", focus=focus) == ("行云 3",)
    # a sentence naming the one asked beside the focus answers, and so does one naming it in
    # other words (a review: "行云 2 则为每秒 1.2 米", "the Pixel 7 came out in October 2022")
    own = [*XINGYUN, "「行云 2」最高速度每秒 1.2 米。"]
    assert siblings_filled(q, own, numbered, "公司简介", focus=focus) == ()
    assert siblings_filled(q, [XINGYUN[0], "行云 2 则为每秒 1.2 米。"], numbered, "公司简介",
                           focus=focus) == ()
    q = "When was the Pixel 7 released?"
    pixel = ["Google released the Pixel 6 in October 2021.",
             "Its successor, the Pixel 7, came out in October 2022."]
    assert siblings_filled(q, pixel, numbered, "", focus=_focus(q, "pixel")) == ()
    assert siblings_filled(q, pixel[:1], numbered, "", focus=_focus(q, "pixel")) == ("pixel 6",)


NOTES = {
    "route-22.md": "# Route 22 (Airport Express)\n\nRoute 22 now starts at the Riverside "
                   "Interchange. The single fare rises to £5.00. The first bus leaves at "
                   "04:40.\n",
    "voltra.md": "# Voltra Commuter 3\n\n- Battery: 504 Wh, a full charge takes 4.5 hours.\n"
                 "- Integrated front light (70 lux) and rear light.\n- Price: €2,799.\n",
}


@pytest.fixture(scope="module")
def notes_db(tmp_path_factory: pytest.TempPathFactory):
    return indexed_notes(tmp_path_factory.mktemp("contrasts"), NOTES)


@pytest.mark.parametrize("query", [
    "When does the last Route 22 bus leave?",
    "How much does the Voltra Commuter 3 weigh?",
])
def test_near_topic_questions_are_refused(notes_db, query):
    assert search(notes_db, query)["insufficient_evidence"] is True


@pytest.mark.parametrize(("query", "note"), [
    ("When does the first Route 22 bus leave?", "route-22.md"),
    ("How long does a full charge of the Voltra Commuter 3 take?", "voltra.md"),
])
def test_the_answering_note_still_passes(notes_db, query, note):
    result = search(notes_db, query)
    assert result["insufficient_evidence"] is False
    assert result["references"][0]["source"].endswith(note)
