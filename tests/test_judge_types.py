"""The answer type a question asks for, the fillers a passage holds, and the judge's type gate
(hand-checked cases, real jieba)."""

import pytest

from kb.retrieve.answer_types import answer_type, novel_filler
from kb.retrieve.judge import IndexStats, Passage, passage_signals
from kb.retrieve.terms import content_terms


@pytest.mark.parametrize(("query", "kind"), [
    # a leading "when" clause sets the scene; the interrogative after the comma asks
    ("When the team dialed back its SLO, who approved it?", "person"),
    ("When the team dialed back its SLO, which percentile did it use?", "other"),
    ("When was the duchy founded?", "date"),
    # 在哪些 / 在哪个 + a noun that is no place does not ask where
    ("哈代空间主要应用在哪些领域？", "other"),
    ("这个词是在哪个期刊发表的文章中首次提及？", "other"),
    ("他住在哪？", "place"),
    ("他住在哪个城市？", "place"),
    # a question opening with an interrogative is typed by it: later ones are relative
    ("Which status code should a server return for a PUT whose path clashes?", "other"),
    ("What does the guide tell you to do when things are unclear?", "other"),
    ("What was the average age of the partners who attended?", "other"),
    ("In what year did Gmail launch?", "date"),
    ("According to the report, who won?", "person"),
])
def test_the_asked_type_reads_past_scene_clauses(query, kind):
    assert answer_type(query) == kind


@pytest.mark.parametrize(("text", "query", "filler"), [
    # a unit after a hyphen or a word or two
    ("Workers were employed on eight-hour rotating shifts.", "How long were the shifts?",
     "eight"),
    ("It provides fixes for one full calendar year.", "For how long are fixes provided?",
     "one"),
    ("It took 25 of the 30 reviewers.", "How many days did it take?", None),
    # "how long" asks for a time or a length
    ("站台长120米。", "How long is the platform?", "120"),
    ("The platform opened in 2008.", "How long is the platform?", None),
    # a unit declared in brackets for a table's numbers
    ("营业收入(元) 4,755,785.11 5,699,227.63", "营业收入是多少元？", "4,755,785.11"),
    ("营业收入 4,755,785.11", "营业收入是多少元？", None),
    # a count is no year or date
    ("Acme was founded in 1998 in Ohio.", "How many employees does Acme have?", None),
    ("Acme has 1,200 employees.", "How many employees does Acme have?", "1,200"),
    ("公司于2018年4月10日成立。", "公司有多少名员工？", None),
    ("公司有300名员工。", "公司有多少名员工？", "300"),
    # years of three digits, times of day and seasons answer "when"
    ("The duchy began in 911 as a fiefdom.", "When was the duchy founded?", "in 911"),
    ("Vesuvius erupted in 79 AD and buried Pompeii.", "When did Vesuvius erupt?", "79 AD"),
    ("扁尾海蛇多于夜间出没。", "扁尾海蛇通常在什么时候出没？", "夜间"),
    ("The owl hunts at night.", "When does the owl hunt?", "at night"),
    ("恐龙生活于两亿年前。", "恐龙生活于什么时候？", "两亿年"),
    ("The owl hunts mice.", "When does the owl hunt?", None),
])
def test_fillers(text, query, filler):
    assert novel_filler(text, answer_type(query), query, content_terms(query)) == filler


def _signals(query, texts):
    terms = content_terms(query)  # each term in 5 of 100 chunks: known, uncommon
    stats = IndexStats(n_chunks=100, df={tok: 5 for t in terms for tok in t.index_tokens},
                       doc_chunks={1: 2}, doc_term_chunks={})
    return passage_signals(query, terms, [
        Passage(i, 1, text, "Acme Corporation", 0.8, 0.5, 0.5, 1.0)
        for i, text in enumerate(texts)], stats)


def test_the_judge_fails_a_passage_without_the_type_asked_for():
    q = "How many employees does Acme Corporation have?"
    founded, staffed = _signals(q, ["Acme Corporation employees founded the firm in 1998.",
                                    "Acme Corporation has 1,200 employees."])
    assert not founded.gate and founded.type_missing
    assert staffed.gate and not staffed.type_missing and staffed.type_found == "1,200"


def test_a_question_without_a_checkable_type_is_not_gated_by_it():
    q = "Why did Acme Corporation cut its employees?"
    (s,) = _signals(q, ["Acme Corporation cut its employees after the merger."])
    assert s.gate and not s.type_missing and s.answer_type == "other"
