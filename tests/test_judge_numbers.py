"""Numbers a question names: read strictly from questions, generously from passages; the judge
fails a passage that writes none of them (hand-checked cases, real jieba)."""

import pytest

from kb.retrieve.judge import passage_signals
from kb.retrieve.judge_data import IndexStats, Passage
from kb.retrieve.numbers import (
    missing_numbers,
    months_apart,
    named_numbers,
    written_numbers,
)
from kb.retrieve.ordinals import ordinals_apart
from kb.retrieve.siblings import numbered_names, siblings_filled
from kb.retrieve.terms import content_terms


@pytest.mark.parametrize(("query", "numbers"), [
    ("Who ruled Normandy in 1066?", {"1066"}),
    ("What did CAPP2 give at 600 mg and 1,000 mg?", {"2", "600", "1000"}),
    ("Flutter at Mach 1.3 on the F-100?", {"1.3", "100"}),
    ("Where did Harold II die?", {"2"}),
    ("Presser's early-1990s figures", {"1990s"}),
    ("第一部《ONE PIECE》剧场版是哪一年上映的？", {"1"}),
    ("澳门最近一次悬挂十号风球是在哪一天？", {"10"}),
    ("哈罗德二世死在哪里？", {"2"}),
    ("在马赫数1.3的壁板颤振实验中", {"1.3"}),
    # words that hold a numeral without naming a number
    ("徐展堂在哪一年随家人一起奔赴香港？", set()),
    ("一共发现了多少组岩画？", set()),
    ("棕榈蝮身体的哪个部位十分灵活？", set()),
    ("原劳亚大陆曾先后是哪两个大陆的一部分？", set()),
    ("Who directed the third film?", {"3"}),
    ("Who was the second keeper?", {"2"}),
    ("When was the word first recorded?", set()),
    # the pronoun I, "second" as a unit of time, Chinese idioms and "the first time"
    ("Can I use kb without a network?", set()),
    ("How many frames per second does it render?", set()),
    ("万一下雨怎么办？", set()),
    ("他第一次来北京是什么时候？", set()),
    # "the next / last / this one" (a trial: 下一期 refused every passage for lacking a 1)
    ("刚加入的人要先上的安全课下一期在哪天？", set()),
    ("上一期杂志的主题是什么？", set()),
    ("这一届的主席是谁？", set()),
    ("DNC的论文发表在哪一期《自然》杂志上？", set()),  # "which issue"
    ("会上一百二十人投了赞成票吗？", {"120"}),  # a number after 上: a review
    ("这一百万是谁出的？", {"1000000"}),
    ("线上一千人参加了吗？", {"1000"}),
    ("一期工程什么时候完工？", {"1"}),  # phase one is a number
    ("三期工程什么时候完工？", {"3"}),
    ("people in their 40s", {"40s"}),
    ("What are the two parties called?", set()),
])
def test_a_question_names_numbers_strictly(query, numbers):
    assert named_numbers(query) == numbers


def test_a_long_table_row_is_read_at_once():
    # the Week-column pattern backtracked exponentially over a row of spaced cells: the
    # answerability gate ran for twenty minutes before it was found
    row = "| " + " | ".join(["  a  "] * 40) + " |\n"
    assert "w16" not in written_numbers(row * 20 + "| 16 |")
    assert "w16" in written_numbers(row + "| Week | Name |\n| 16 | Ana |")


def test_a_passage_writes_numbers_in_every_form():
    written = written_numbers("In 1066 King Harold II and Alexander I; the 1980s; September "
                              "16; No. 10; 1,000 people; 九号风球; first; three; mach 1 .3")
    assert {"1066", "2", "1", "1980", "80", "9", "16", "10", "1000", "3", "1.3"} <= written
    assert "4" not in written and "0.3" not in written


@pytest.mark.parametrize(("query", "passage", "missing"), [
    ("Who ruled Normandy in 1066?", "William conquered England in 1066.", ()),
    ("Who ruled Normandy in 1067?", "William conquered England in 1066.", ("1067",)),
    ("Presser's early-1990s figures", "As early as 1991, Presser reported", ()),
    ("Presser's early-1990s figures", "In 1989 Presser reported", ("1990s",)),
    ("Who reads it in their 40s?", "Readers aged 42 to 49", ()),
    ("林俊贤在八十年代是哪个电视台的小生？", "1985年起为无线电视当家小生", ()),
    ("亚历山大一世娶了谁？", "Alexander I had married Sybilla of Normandy", ()),
    # one of several named is enough: the question may be answered in parts
    ("第二部和第三部剧场版分别是哪一年上映的？", "2001年上映的第二部剧场版", ()),
    ("澳门最近一次悬挂十号风球是在哪一天？", "最近一次悬挂九号风球是2017年8月23日", ("10",)),
    ("When was the word recorded?", "No number here.", ()),
    # an ISO week is one number (a new-user trial: "2025-W16" passed on a rota of W14 and W15,
    # which writes 2025)
    ("Who was on call in 2025-W16?", "| 2025-W14 | Ana |\n| 2025-W15 | Cy |", ("w16",)),
    ("Who was on call in 2025-W16?", "| 2025-W16 | Ana |", ()),
    ("Who was on call in 2025-W16?", "In week 16 Ana was on call.", ()),
    ("2025-W16 谁值班？", "第16周：王芳值班。", ()),
    # ... and every other way a passage names a week (a review)
    ("2025-w16的值班是谁？", "第十六周：张伟", ()),
    ("Who is on call in 2025W16?", "- 2025W16: Ana Reyes", ()),
    ("Who was on call in 2025-W16?", "| Week | Name |\n| 16 | Ana |", ()),
    ("Who was on call in 2025-W16?", "Wk 16: Ana. KW17: Bo.", ()),
    ("Who was on call in 2025-W16?", "Weeks 15-16: Ana", ()),
    ("Who was on call in 2025-W16?", "2025 plan: Ana on W14, Bo on W15", ("w16",)),
    ("Who was on call in 2025-W16?", "The 2025 rota: Ana on 16 May", ("w16",)),
    # a week is written by its own marker: a room 16 or 周一 16 点 is none (a review)
    ("Who was on call in 2025-W16?", "Ana on W14, Bo on W15; room 16", ("w16",)),
    ("2025-W16 谁值班？", "周一 16 点开会", ("w16",)),
    # a number inside a range a row writes (a new-user trial: "4 years of service" failed a
    # leave table's row "3-5"); and past a range's end, or in a date or phone number, none
    ("How many leave days with 4 years of service?", "| 3-5 | 29 |", ()),
    ("How many leave days with 7 years of service?", "| 6+ | 31 |", ()),
    ("How many leave days with 9 years of service?", "| 0-2 | 27 |\n| 3-5 | 29 |", ("9",)),
    ("What happens in week 4?", "from 3 to 5 weeks after planting", ()),
    ("工作4年有几天年假？", "工作3至5年：15天", ()),
    ("What was the price in 2024?", "Prices 2020–2025 are listed below.", ()),
    ("What happened on 15 March?", "Updated 2024-03-31.", ("15",)),
    ("Who answers line 45?", "Call 020-7946-0123.", ("45",)),
    # ... and of the number's kind: a year is no price in a range, a phone number no range
    # (a review: the rent "in 2023" passed "1200-2500 EUR")
    ("How much was the rent in 2023?", "Rents run 1200-2500 EUR a month.", ("2023",)),
    ("What did tickets cost in 1998?", "Tickets cost 100 to 5000 escudos.", ("1998",)),
    ("Who is on extension 600?", "Call 555-1234.", ("600",)),
    ("What happened in 1995?", "The 1990-2000 decade saw growth.", ()),
])
def test_missing_numbers(query, passage, missing):
    assert missing_numbers(named_numbers(query), passage) == missing


@pytest.mark.parametrize(("query", "text", "apart"), [
    # a trial: "... at the end of March 2024?" passed at 83% on "Bank balance at 30 April"
    ("What was the bank balance at the end of March 2024?",
     "- Bank balance at 30 April: £2,847.15.\n- Plot rents received for 2024: 31 of 34.",
     ("march",)),
    ("What was the bank balance at the end of March 2024?", "Balance on 2024-03-31: £2,800.", ()),
    ("What was the bank balance at the end of March 2024?", "Bank balance: £2,800.", ()),  # undated
    ("3月的销售额是多少？", "4月销售额为 200 万元。", ("march",)),
    ("3月的销售额是多少？", "三月销售额为 200 万元。", ()),
    ("三个月内能退货吗？", "4月起，收货 30 天内可退货。", ()),  # a duration names no month
    ("What may happen in the spring?", "In April the river floods.", ()),  # "may" a verb
    ("Did the troops march in June?", "They marched on 3 June.", ()),
    ("When in May is the fair?", "The fair opens on 12 May.", ()),
    # a review: a month's name alone is a verb, a name or a qualifier; a span asked may hold
    # another month; a letter that only looks Latin is no month (it had raised KeyError)
    ("May staff carry over unused leave?", "Staff may carry over 5 days; they expire on 31 "
     "December.", ()),
    ("May I bring my dog?", "From 1 June dogs are welcome.", ()),
    ("Who approved the March budget?", "Jan approved the budget on 3 April.", ()),
    ("What changed after March 2024?", "In April 2024 the fees rose.", ()),
    ("What were sales between March and June?", "In April sales rose.", ()),
    ("3月以前的会费是多少？", "2月会费为 50 元。", ()),
    ("3-6月的销售额是多少？", "4月销售额为 200 万元。", ()),
    ("What happened in Auguſt 2024?", "On 3 Auguſt 1791, and on 5 May 2024.", ()),
    ("What did we pay in Sept. 2023?", "Invoice of 3 October 2023: 40 euros.", ("september",)),
    # a second review: dates as people write them, and a span written
    ("When in March did the boiler fail?", "The boiler failed on March 3rd; it was serviced "
     "in February.", ()),
    ("How much rain fell in June 2024?", "Rainfall for JUNE 2024: 80 mm, up from 60 mm in "
     "May.", ()),
    ("What was the balance in mid-March?", "Balance on 15-Mar-2024: 200; on 2 April: 300.", ()),
    ("How much did we spend in February?", "Spending, Jan–Mar 2024: 3,000 EUR.", ()),
])
def test_months_a_question_names_and_a_passage_dates_otherwise(query, text, apart):
    assert months_apart(query, text) == apart


@pytest.mark.parametrize("query, text, apart", [
    # the kind asked is numbered by others only: another item of it
    ("第三届读书节是哪一天举办的？", "第二届读书节于2019年4月23日举办，第四届改在秋季。",
     ("3 届",)),
    ("What did the band release on its second album?", "Their first album sold well; the third "
     "album was recorded in Oslo.", ("2 album",)),
    ("What was revenue in the 3rd quarter?", "Revenue in the fourth quarter rose 5%.",
     ("3 quarter",)),
    ("Who ruled Sicily in the 12th century?", "In the 11th century the Normans came.",
     ("12 century",)),
    ("首届读书节在哪里举办？", "第二届读书节在图书馆举办。", ("1 届",)),
    # written as asked, in any form: nothing decided
    ("第三届读书节是哪一天举办的？", "第 3 届读书节于2021年举办，第二届在2019年。", ()),
    ("What was revenue in the third quarter?", "Third-quarter revenue: 3rd quarter up 2%; "
     "the fourth quarter fell.", ()),
    ("首届读书节在哪里举办？", "第一届读书节在图书馆举办，第二届在公园。", ()),
    ("第一次去哪里？", "首次在北京，第二次在上海。", ()),
    # the kind never numbered, or several asked and one written, or no ordinal asked
    ("第三届读书节是哪一天举办的？", "读书节每年四月举办。", ()),
    ("第二届和第三届读书节在哪里举办？", "第三届在公园，第四届在图书馆。", ()),
    ("When was the library founded?", "The second floor opened in 1990.", ()),
    # English "first" is no ordinal asked ("first used"); 首都 no "first"
    ("When was the first album released?", "The second album came out in 2001.", ()),
    ("哪个城市是首都？", "第二大城市是上海。", ()),
    # "the third and fourth films": both of the films (one written is enough)
    ("What happened to the third and fourth films?", "The second and fifth films flopped.",
     ("3 film", "4 film")),
    ("What happened to the third and fourth films?", "The third film and the fifth film.", ()),
    # a review's false refusals: the ordinal asked written some other way, or a kind too general
    ("When did the fourth film come out?", "The third film came in 2005. The fourth and final "
     "film came out in 2008.", ()),
    ("What are the challenges of the 21st century?", "In the twenty-first century, as in the "
     "20th century", ()),
    ("When did the Second World War end?", "The First World War ended in 1918; World War II "
     "in 1945.", ()),
    ("What did the band release on its second album?", "The first album sold; the third album "
     "too. Album 2 flopped.", ()),
    ("谁获得了第二名？", "张三获得第一名，李四位居第二。", ()),
    ("他第二次访问中国是哪一年？", "第一次访华在1972年，再次访华在1975年。", ()),
    ("第三季度的收入是多少？", "第一季度收入100万，第二、三季度收入各200万。", ()),
    ("第三季度的收入是多少？", "第一季度收入100万，第二季度收入200万。", ("3 季",)),
    # a second review: number words, Q3, 三季度 without 第, ranges, short forms, full width
    ("Who won the second round?", "In round one Jones led; in round two, Smith won.", ()),
    ("What happened in the fifth season?", "Season five opened; the fourth season closed.", ()),
    ("What was revenue in the third quarter?", "First quarter revenue was 5M; Q3 revenue "
     "was 7M.", ()),
    ("第三季度收入是多少？", "第一季度收入100万元，三季度收入300万元。", ()),
    ("第三届在哪里举办？", "第二至四届运动会均在北京举办。", ()),
    ("第三届在哪里举办？", "第1-5届运动会均在北京举办。", ()),
    ("Where were the third Games held?", "The second to fifth Games were held in Athens; the "
     "first Games in Paris.", ()),
    ("What is in the fourth volume?", "The first volume covers A; Vol. 4 covers D.", ()),
    ("What happened in the third film?", "The second film flopped; Film Ⅲ was a hit.", ()),
    ("第廿一届运动会在哪里举办？", "第二十届运动会在北京举办。", ("21 届",)),
])
def test_ordinals_a_question_names_and_a_passage_numbers_otherwise(query, text, apart):
    assert ordinals_apart(query, text) == apart


def test_the_judge_fails_a_passage_on_another_item_of_the_kind_asked():
    q = "第三届读书节是哪一天举办的？"
    terms = content_terms(q)
    stats = IndexStats(n_chunks=100, df={tok: 3 for t in terms for tok in t.index_tokens},
                       doc_chunks={1: 10, 2: 10}, doc_term_chunks={})
    other, asked = passage_signals(q, terms, [
        Passage(1, 1, "第二届读书节于2019年4月23日举办。", "读书节", 0.8, 0.5, 0.5, 1.0),
        Passage(2, 2, "第三届读书节于2021年4月23日举办。", "读书节", 0.8, 0.5, 0.5, 1.0)], stats)
    assert not other.gate and other.numbers_missing == ("3 届",)
    assert asked.gate and asked.numbers_missing == ()


def _passage(cid, text, doc=1):
    return Passage(cid, doc, text, "Normandy", 0.8, 0.5, 0.5, 1.0)


def test_the_judge_fails_a_passage_that_writes_none_of_the_questions_numbers():
    q = "Who ruled Normandy in 1067?"
    stats = IndexStats(n_chunks=100, df={"rule": 5, "normandi": 20, "1067": 1, "1066": 3},
                       doc_chunks={1: 10, 2: 10}, doc_term_chunks={})
    other_year, right_year = passage_signals(q, content_terms(q), [
        _passage(1, "Duke William ruled Normandy in 1066."),
        _passage(2, "Duke William ruled Normandy in 1067.", doc=2)], stats)
    assert not other_year.gate and other_year.numbers_missing == ("1067",)
    assert right_year.gate and right_year.numbers_missing == ()


def test_a_number_the_document_is_about_is_no_constraint():
    q = "Who is the contact for the 737 MAX directive?"
    # "737" is in 8 of the directive's 10 chunks: a topic term, not a constraint
    stats = IndexStats(n_chunks=100, df={"737": 8, "max": 9, "contact": 5, "direct": 10},
                       doc_chunks={1: 10}, doc_term_chunks={(1, "737"): 8})
    (s,) = passage_signals(q, content_terms(q), [Passage(
        1, 1, "For more information about this directive, contact Ian Won, Manager.",
        "Airworthiness directive", 0.8, 0.5, 0.5, 1.0)], stats)
    assert s.gate and s.numbers_missing == ()
    (t,) = passage_signals(q, content_terms(q), [Passage(
        1, 2, "For more information about this directive, contact Ian Won, Manager.",
        "Airworthiness directive", 0.8, 0.5, 0.5, 1.0)], stats)
    assert not t.gate and t.numbers_missing == ("737",)  # another document: not its topic


def _scene(query, text, doc_chunks, doc_number_chunks, number):
    terms = content_terms(query)
    stats = IndexStats(n_chunks=100, df={tok: 3 for t in terms for tok in t.index_tokens},
                       doc_chunks={1: doc_chunks},
                       doc_term_chunks={(1, number): doc_number_chunks})
    (s,) = passage_signals(query, terms, [Passage(1, 1, text, "Fermentation", 0.8, 0.5, 0.5,
                                                  1.0)], stats)
    return s


def test_a_number_a_short_document_writes_once_sets_the_scene():
    q = "In a 50 L fermenter, what biomass per litre did the strain give?"
    text = "Ultimately the output of the strain's biomass was 70 g per litre."
    # an abstract in three chunks, the first writing "50 L": the last may answer
    assert _scene(q, text, 3, 1, "50").numbers_missing == ()
    # a long document writing it once: no scene, the passage lacks the number
    assert _scene(q, text, 40, 1, "50").numbers_missing == ("50",)


def test_one_named_number_written_is_enough_even_when_its_document_is_about_it():
    q = "When were the SINOSAT-1 and SINOSAT-2 satellites launched?"
    s = _scene(q, "SINOSAT-1 was launched on 18 July 1998.", 3, 3, "sinosat 1")
    assert s.numbers_missing == () and s.gate


def test_a_scene_number_written_does_not_stand_for_another_number_asked():
    q = "What did the 2020 directive on the 737 MAX require?"
    # "737" is the document's topic; "2020" is asked, and the passage is about 2019
    s = _scene(q, "The 2019 directive for the 737 MAX required new software.", 10, 8, "737")
    assert s.numbers_missing == ("2020",) and not s.gate
    t = _scene(q, "The 2020 directive for the 737 MAX required new software.", 10, 8, "737")
    assert t.numbers_missing == () and t.gate


# --- the numbered name asked, and its siblings ------------------------------------------------


@pytest.mark.parametrize(("query", "names"), [
    ("When was the Seahound 2 launched?", {"seahound": {"2"}}),
    ("When was Python 3.12 released?", {"python": {"3.12"}}),
    ("What did SINOSAT-1 carry?", {"sinosat": {"1"}}),
    ("青禾 T7 售价多少？", {"t": {"7"}}),
    ("How many people live in Area 51?", {"area": {"51"}}),
    # a month's day, a year, a stop word, a percentage name nothing
    ("What happened on March 3?", {}),
    ("In 2019, who won the cup?", {}),
    ("Is 5 a prime number?", {}),
    ("Did Tidewell grow 12% in 2022?", {}),
    ("青禾T7是哪一年上市的？", {"t": {"7"}}),  # joined to Han text
    ("禾苗一号可以覆盖多少亩农田？", {"禾苗": {"1"}}),  # two Han characters, a number, 号
    ("长征5号是哪一年首飞的？", {"长征": {"5"}}),
    ("六月三号发生了什么？", {}),  # a day
])
def test_numbered_names_are_a_name_with_its_number(query, names):
    assert numbered_names(query) == {k: frozenset(v) for k, v in names.items()}


SEAHOUND = ["The Tidewell Seahound 3 inspection drone was launched on 9 September 2019.",
            "It weighs 11.4 kg and sells for 18,900 euros.",
            "The earlier Seahound 2 is no longer sold."]


def _dated(text):
    return any(c.isdigit() for c in text) and any(m in text for m in ("2019", "2015", "2021"))


def test_a_date_of_a_sibling_does_not_answer_for_the_name_asked():
    assert siblings_filled("When was the Seahound 2 launched?", SEAHOUND, _dated) == (
        "seahound 3",)
    assert siblings_filled("When was the Seahound 3 launched?", SEAHOUND, _dated) == ()
    # a clause naming both, or naming none, decides nothing
    both = ["The Seahound 2 and the Seahound 3 were launched in 2015 and 2019."]
    assert siblings_filled("When was the Seahound 2 launched?", both, _dated) == ()
    assert siblings_filled("When was the Seahound 2 launched?",
                           ["The drone was launched in 2019."], _dated) == ()
    # every dated clause must name a sibling, or be in a sentence opening with one
    mixed = ["The Seahound 3 was launched in 2019.", "A refit followed in 2021."]
    assert siblings_filled("When was the Seahound 2 launched?", mixed, _dated) == ()
    topical = ["The Seahound 3 was launched in 2019; a refit followed in 2021."]
    assert siblings_filled("When was the Seahound 2 launched?", topical, _dated) == (
        "seahound 3",)
    assert siblings_filled("When was the drone launched?", SEAHOUND, _dated) == ()


def test_the_judge_fails_a_passage_dating_the_sibling_only():
    q = "When was the Seahound 2 launched?"
    terms = content_terms(q)
    stats = IndexStats(n_chunks=20, df={"seahound": 1, "2": 5, "launch": 3},
                       doc_chunks={1: 1}, doc_term_chunks={})
    (s,) = passage_signals(q, terms, [Passage(1, 1, " ".join(SEAHOUND), "Products", 0.8, 0.5,
                                              0.5, 1.0)], stats)
    assert s.siblings_apart == ("seahound 3",) and not s.gate
    q3 = "When was the Seahound 3 launched?"
    (t,) = passage_signals(q3, content_terms(q3), [Passage(1, 1, " ".join(SEAHOUND), "Products",
                                                           0.8, 0.5, 0.5, 1.0)], stats)
    assert t.siblings_apart == () and t.gate


def _year(text):  # the filler of these cases: a year (not 2018), or an area in 亩, or 分钟
    return any(y in text for y in ("2008", "2015", "2019", "2020", "2023")) or "亩" in text


@pytest.mark.parametrize(("query", "sents", "context", "siblings"), [
    # a version and its parts are one name
    ("When was Python 3 released?", ["Python 3.0 was released in December 2008."], "", ()),
    ("When was Python 3.12 released?", ["Python 3 was released in December 2008."], "", ()),
    ("When did Python 2 reach end of life?",
     ["Python 3.0 was released in December 2008.", "Python 2.7 reached end of life in 2020."],
     "", ()),
    ("When was Python 3.12 released?", ["Python 3.11 was released in 2019."], "",
     ("python 3.11",)),
    # written of the name asked: in its title, or a sentence before the first answer
    ("When was the Seahound 2 discontinued?",
     ["It was discontinued in 2019 when the Seahound 3 launched."], "Seahound 2", ()),
    ("When was the Seahound 2 discontinued?",
     ["The Seahound 2 was a small drone.", "It went in 2019 when the Seahound 3 came."], "",
     ()),
    # a name ending a sentence, a US date, a name joined to Han text
    ("When was the Seahound 2 launched?", ["In 2019 Tidewell launched the Seahound 3."], "",
     ("seahound 3",)),
    ("When was the Seahound 2 launched?", ["The Seahound 3 was launched on September 9, 2019."],
     "", ("seahound 3",)),
    ("青禾T7是哪一年上市的？", ["青禾T8于2019年上市。"], "", ("t 8",)),
    # a sentence opening with a pronoun is of the name the sentence before opened with
    ("When was the Seahound 3 launched?",
     ["## Seahound 2", "The Seahound 2 is a small drone.", "It was launched in 2019."], "",
     ("seahound 2",)),
    ("When was the Seahound 3 launched?",
     ["The Seahound 3 replaced the Seahound 2.", "It was launched in 2019."], "", ()),
    # a list: a clause naming none is of the name its sentence opens with
    ("禾苗一号可以覆盖多少亩农田？", ["禾苗一号于2018年5月发布，售价1999元。",
                          "禾苗二号于2020年11月发布，单台可覆盖50亩农田。"], "", ("禾苗 2",)),
    ("禾苗二号可以覆盖多少亩农田？", ["禾苗一号于2018年5月发布，售价1999元。",
                          "禾苗二号于2020年11月发布，单台可覆盖50亩农田。"], "", ()),
    # written of the one asked, its answer's sentence opening with no name of its own
    ("When was Python 3.12 released?",
     ["Python 3.12 is out.", "Released in 2023 (a year after Python 3.11), it adds more."], "",
     ()),
    # a second review: Han numerals after a Latin name ("T7一次" is the T7), a comparison or
    # a relative clause, a version cut by the opening words, "Its successor, the Seahound 3",
    # "It" after a sentence naming two, numbered places (3号线, 五号楼)
    ("青禾T7续航多少分钟？", ["青禾T7一次充电可以飞行45分钟，于2019年上市。"], "", ()),
    ("When was Python 3.12 released?",
     ["Python 3.12 is out.", "Like Python 3.11, it shipped in October 2023."], "", ()),
    ("When was the Seahound 2 launched?",
     ["The Seahound 3 replaced the Seahound 2, which was launched in 2015."], "", ()),
    ("When was Python 3.12 released?",
     ["As the notes say, a Python 3.12 build, released on 2 October 2023, is faster."], "", ()),
    ("When was the Seahound 3 launched?",
     ["The Seahound 2 was retired in 2015.", "Its successor, the Seahound 3, came in 2019."],
     "", ()),
    ("When was the Seahound 3 launched?",
     ["The Seahound 2 was retired in 2015, replaced by the Seahound 3.", "It came in 2019."],
     "", ()),
    ("北京地铁3号线是哪一年开通的？", ["北京地铁4号线于2008年开通，3号线一期于2023年开通。"], "",
     ()),
    # more years than siblings: one may be the asked one's
    ("When was the Seahound 2 launched?",
     ["The Seahound 3 was launched in 2019 to replace the 2015 model."], "", ()),
    # a name of one or two letters only in capitals: "a 2 kg printer" is no A2
    ("How much did the A4 cost in 2019?", ["It is a 2 kg printer sold in 2019."], "", ()),
])
def test_siblings_read_review_cases(query, sents, context, siblings):
    assert siblings_filled(query, sents, _year, context) == siblings
