"""Chinese word mending, numerals and the units a question asks for (hand-checked examples)."""

import pytest

from kb.retrieve.answer_types import answer_type, asked_units, novel_filler
from kb.retrieve.terms import arabic_numerals, content_terms, is_name, passage_terms


@pytest.mark.parametrize(("text", "digits"), [
    ("十", "10"), ("二十三", "23"), ("三百零五", "305"), ("一万二千", "12000"),
    ("一百万", "1000000"), ("两千", "2000"), ("二〇二四年", "2024年"), ("满十年", "满10年"),
    ("十二三", "十二三"),  # two digits in a row beside a unit: not one number, left alone
])
def test_chinese_numerals_are_written_in_digits(text, digits):
    assert arabic_numerals(text) == digits


def test_question_words_single_characters_and_verb_tails_are_mended():
    terms = {t.text: t for t in content_terms("工作满十年有几天年假？")}
    # 几天 asks; 年 + 假 (jieba cuts them apart) are one word; 十年 matches 10年
    assert set(terms) == {"工作", "10年", "年假"}
    assert terms["10年"].index_tokens == ("十年",)  # the index holds the text as written
    assert [t.text for t in content_terms("年假可以顺延到什么时候？")] == ["年假", "顺延"]
    assert [t.text for t in content_terms("的车")] == []  # grammar characters join nothing
    # 几号 asks too (new-user trial: "几号" was a missing focus term and refused the answer)
    assert [t.text for t in content_terms("林晓岚的生日是几月几号？")] == ["林晓岚", "生日"]
    # and 几点 (a trial: "首班船几点开" lacked 几点 as if it were a word of the timetable's)
    assert [t.text for t in content_terms("首班船几点开？")] == ["首班"]
    assert [t.text for t in content_terms("几点钟闭馆？")] == ["闭馆"]
    # 谁 is no half of a word jieba did not know: "是谁做的" made 谁做, which no passage writes
    assert [t.text for t in content_terms("仓库盘点是谁做的？")] == ["仓库", "盘点"]


def test_numerals_match_in_either_form():
    term = next(t for t in content_terms("工作满十年有几天年假？") if t.text == "10年")
    assert passage_terms("员工满10年享受10天年假").has(term)
    assert passage_terms("员工满十年享受十天年假").has(term)
    assert not passage_terms("员工满二十年享受二十天年假").has(term)  # twenty is not ten


@pytest.mark.parametrize(("query", "units"), [
    ("咖啡机多少钱？", ("money",)),
    ("病假可以休多少天？", ("day",)),
    ("How many days of leave do I get?", ("day",)),
    ("How much does the allotment charge for a full plot?", ("money",)),
    ("How old was he?", ("year",)),
    ("What percentage of users log in daily?", ("percent",)),
    ("How many engineers are on call?", ()),
])
def test_the_unit_a_question_asks_its_number_in(query, units):
    assert answer_type(query) == "number"
    assert asked_units(query) == units


def test_the_first_interrogative_decides_the_answer_type():
    assert answer_type("How much money do I get per day when travelling abroad?") == "number"
    assert answer_type("When was the gateway installed?") == "date"


@pytest.mark.parametrize(("text", "query", "filler"), [
    ("咖啡机在三楼。", "咖啡机多少钱？", None),  # a floor is not a price
    ("咖啡机在三楼，免费使用。", "咖啡机多少钱？", "免费"),  # a price of nothing is one
    ("咖啡机售价1200元。", "咖啡机多少钱？", "1200"),
    ("病假需要二级医院的证明。", "病假可以休多少天？", None),
    ("病假每年可休15天。", "病假可以休多少天？", "15"),
    ("The per diem is $60.", "How much money do I get per day?", "60"),
    ("The per diem is EUR 60.", "How much money do I get per day?", "60"),
    ("Leave: 25 days a year.", "How many days of leave do I get?", "25"),
    ("We have 3 dayshift teams.", "How many days of leave do I get?", None),
    ("Plot 12 is full.", "How much does the allotment charge for a full plot?", None),
])
def test_a_number_answers_only_in_the_unit_asked(text, query, filler):
    assert novel_filler(text, "number", query) == filler


@pytest.mark.parametrize(("query", "names"), [
    ("What is the capital of Australia?", ["Australia"]),
    ("Who founded the DNC project?", ["DNC"]),
    ("Australia has what capital?", []),  # the question's first word is capitalised anyway
    ("What Is The Capital Of Australia", []),  # title case: capitals say nothing
    ("GPL means what?", ["GPL"]),
    # capitalised words joined by hyphens are one name; a lower-case compound is none
    ("What Retry-After value should a server send?", ["Retry-After"]),
    ("What is a long-term release?", []),
    # a short question: its opening word is no sign of title case
    ("Who founded DeepMind?", ["DeepMind"]),
    ("Who founded Coca-Cola?", ["Coca-Cola"]),
    ("Who Founded DeepMind", []),
    # a multi-word name is no title case while a function word stays in lower case
    ("When did Hemingway visit Harrow Point Lighthouse?",
     ["Hemingway", "Harrow", "Point", "Lighthouse"]),
    ("Harrow Point Lighthouse History", []),
    ("How to Configure the Reverse Proxy in Kubernetes", []),  # headline style
    ("How long is the Jialing River?", ["Jialing", "River"]),  # "long" is lower case: no headline
    # a verb or pronoun in lower case: a sentence, not a title, whose capitals are names
    ("Does the Orion 2 have Wi-Fi?", ["Wi-Fi", "Orion"]),  # phrases first
    ("Is the Lumo 2 Matter Certified?", []),  # its verb capitalised: a title
    ("Who founded Google DeepMind?", ["Google", "DeepMind"]),
    # Latin letters with accents
    ("Where did Dvořák stay?", ["Dvořák"]),
    ("When did Saint-Exupéry fly?", ["Saint-Exupéry"]),
])
def test_names_are_capitalised_words_inside_the_question_and_acronyms(query, names):
    assert [t.surface for t in content_terms(query) if is_name(t, query)] == names


def test_a_name_the_index_never_mentions_fails_the_gate():
    from kb.retrieve.judge import passage_signals
    from kb.retrieve.judge_data import IndexStats, Passage

    # (it names a place: the question asks for one, so only the name decides)
    text = "Spending rose in the third quarter in Sydney, a state capital, the report says."
    passage = Passage(1, 1, text, "Report", None, 0.0, 0.8, 0.5)
    query = "What is the capital of Australia?"
    terms = content_terms(query)
    known = IndexStats(100, {"capit": 3, "australia": 2}, {1: 1}, {})
    unknown = IndexStats(100, {"capit": 3}, {1: 1}, {})
    failed = IndexStats(100, {}, {1: 1}, {}, complete=False)  # FTS5 failed: nothing is known
    assert [passage_signals(query, terms, [passage], s)[0].gate
            for s in (known, unknown, failed)] == [True, False, True]
    # a Chinese passage may write the name its own way (澳大利亚): the rule is for English ones
    chinese = Passage(2, 2, "澳大利亚的首都是堪培拉。capital: 堪培拉", "首都", None, 0.0, 0.8, 0.5)
    assert passage_signals(query, terms, [chinese], unknown)[0].gate
