"""The attribute a question asks of must be named by a passage (kb.retrieve.relations).

From new-user trials over short notes: "How many employees does Brindle & Oak Coffee have?"
passed at 86% on the café's note (its prices), 青禾科技的年收入是多少 at 90% on the company's
note (its founding year), "Where did Ossian Velt study?" at 84% on board minutes naming him.
"""

from __future__ import annotations

import pytest

from kb.retrieve.relations import attributes_asked, attributes_unnamed
from tests.test_cli_messages import explained_refusal
from tests.test_judge_types import _signals


@pytest.mark.parametrize(("query", "asked"), [
    ("How many employees does Brindle & Oak Coffee have?", ("headcount",)),
    ("How many staff work at the Lisbon office?", ("headcount",)),
    ("What is the headcount of Acme?", ("headcount",)),
    ("青禾科技有多少员工？", ("headcount",)),
    ("青禾科技的员工人数是多少？", ("headcount",)),
    ("What was Tidewell Robotics' revenue in 2023?", ("revenue",)),
    ("蓝穹航天公司的年营收是多少？", ("revenue",)),
    ("What is the population of Port Alder?", ("population",)),
    ("How many people live in Port Alder?", ("population",)),
    ("港口镇的人口是多少？", ("population",)),
    ("Where is Tidewell headquartered?", ("headquarters",)),
    ("青禾科技的总部在哪里？", ("headquarters",)),
    ("Where did Ossian Velt study?", ("place of study",)),
    ("Which university did Ossian Velt attend?", ("place of study",)),
    ("周远航毕业于哪所大学？", ("place of study",)),
    ("Who succeeded Ines Korvalla as chief executive?", ("successor",)),
    ("谁接任了董事长？", ("successor",)),
    # asked of nothing listed: an employee as a subject, a place named by its residents
    ("Which employee leads the Lisbon office?", ()),
    ("加州英语系居民把这种鱼叫什么名字？", ()),
    ("How many people attended the board meeting?", ()),
    ("Where did Ossian Velt go after the meeting?", ()),
])
def test_the_attributes_a_question_asks_of(query, asked):
    assert attributes_asked(query) == asked


@pytest.mark.parametrize(("query", "text", "unnamed"), [
    ("How many employees does Brindle & Oak Coffee have?",
     "Brindle & Oak sells a flat white for 3.20 euros.", ("headcount",)),
    ("How many employees does Acme have?", "Acme has a team of 40.", ()),
    ("How many employees does Acme have?", "Acme had 340 people at the end of 2023.", ()),
    ("青禾科技有多少员工？", "青禾科技成立于2015年，总部在杭州。", ("headcount",)),
    ("青禾科技有多少员工？", "青禾科技现有职工120人。", ()),
    ("How many employees does 青禾科技 have?", "青禾科技现有职工120人。", ()),  # across
    ("What was Acme's revenue in 2023?", "In 2021 Acme raised 45 million dollars.",
     ("revenue",)),
    ("What was Acme's revenue in 2023?", "Acme's sales reached 12 million euros in 2023.", ()),
    ("青禾科技的年收入是多少？", "青禾科技2023年营业收入为3亿元。", ()),
    ("青禾科技的年收入是多少？", "青禾科技成立于2015年。", ("revenue",)),
    ("What is the population of Port Alder?", "Port Alder is a harbour town.", ("population",)),
    ("What is the population of Port Alder?", "Port Alder, a town of 12,000, lies north.", ()),
    ("Where is Tidewell headquartered?", "Tidewell is based in Port Alder.", ()),
    ("Where is Tidewell headquartered?", "Tidewell makes drones.", ("headquarters",)),
    ("Where did Ossian Velt study?", "Ossian Velt will lead the Lisbon office.",
     ("place of study",)),
    ("Where did Ossian Velt study?", "Ossian Velt holds a degree in physics from Delft.", ()),
    ("周远航毕业于哪所大学？", "周远航是青禾科技的创始人。", ("place of study",)),
    ("周远航毕业于哪所大学？", "周远航本科就读于浙江大学。", ()),
    ("Who succeeded Ines Korvalla as chief executive?", "Ines Korvalla founded the firm.",
     ("successor",)),
    ("Who succeeded Ines Korvalla as chief executive?",
     "In 2020 Tomas Ferreira took over from Ines Korvalla.", ()),
    ("Why did Acme open a Lisbon office?", "Acme makes drones.", ()),  # nothing asked
])
def test_the_attributes_a_passage_never_names(query, text, unnamed):
    assert attributes_unnamed(query, text) == unnamed


def test_a_passage_naming_no_attribute_asked_fails_the_gate():
    q = "How many employees does Acme Corporation have?"
    priced, staffed = _signals(q, ["Acme Corporation sells widgets at 3 dollars each, 1,200 "
                                   "of them a day.",
                                   "Acme Corporation has 1,200 employees."])
    assert not priced.gate and priced.asked_unnamed == ("headcount",)
    assert staffed.gate and staffed.asked_unnamed == ()


def test_explain_says_when_the_attribute_asked_is_never_named(tmp_path):
    shown, judged, _ = explained_refusal(
        tmp_path, "cafe.md", "# Brindle & Oak Coffee\n\nBrindle & Oak Coffee opened on Quay "
        "Street. A flat white costs 3.20 euros; 12 kinds of beans are sold.\n",
        "How many employees does Brindle & Oak Coffee have?")
    assert "it says nothing of the headcount asked" in shown
    assert judged["asked_unnamed"] == ["headcount"]
