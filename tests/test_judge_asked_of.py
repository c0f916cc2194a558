"""What a question is asked of: a sibling product, a yes-or-no predicate, a role, a relative.

From a new-user trial over eleven short notes: "Does the Lumo 2 support Matter?" passed at 94%
on the Lumo 3's note (which supports it), 云点单 2 的月费是多少 at 98% on a note titled with
both versions whose fee is the 云点单 3's, "Lumo 2 多少钱？" at 18% on that note, 星云科技的
CEO 是谁 at 73% on the company's note (no chief named), 王伟的儿子叫什么 at 48% on a note
naming his daughter, "What will replace the Lumo 3?" at 97% on "The Lumo 3 replaced the
Lumo 2" and "Who is Alice Moreau's manager?" at 94% on "Alice Moreau is my former manager"
(``kb.retrieve.roles``).
The pure functions are checked on hand-made data; then the notes go through the real ``kb``
command (BM25 only) into a real SQLite file.
"""

from __future__ import annotations

import re
from functools import partial

import pytest

from kb.retrieve.relations import (
    attributes_asked,
    attributes_unnamed,
    holds_focus,
    predicate_unnamed,
)
from kb.retrieve.roles import roles_swapped
from kb.retrieve.siblings import numbered_names, siblings_filled
from kb.retrieve.subject import named_terms, names_elsewhere
from kb.retrieve.terms import content_terms, passage_terms
from tests.test_cli_messages import explained_refusal
from tests.test_judge_subject import _passing_titles, indexed_notes, search
from tests.test_judge_types import _signals

YUNDIANDAN = ["云点单 2 于 2021 年发布，只支持安卓平板。",
              "云点单 3 于 2023 年发布，新增了 iPad 支持和扫码点餐功能，月费是每家店 199 元。"]


@pytest.mark.parametrize(("query", "names"), [
    ("云点单 2 的月费是多少？", {"云点单": {"2"}}),  # a Han name, a space, Arabic digits
    ("你们的云点单 2 怎么样？", {"云点单": {"2"}}),  # from its first character without grammar
    ("小米14的价格是多少？", {"小米": {"14"}}),
    ("版本 2.1 什么时候发布？", {"版本": {"2.1"}}),
    # a count, a measure, an ordinal, a year, a number after a verb name nothing
    ("仓库里有 2 个箱子吗？", {}),
    ("月费是 199 元吗？", {}),
    ("第 2 章讲什么？", {}),
    ("截至 2019 共有多少家门店？", {}),
    ("长征5号是哪一年首飞的？", {"长征": {"5"}}),  # 号: read once, by the older pattern
])
def test_chinese_names_with_arabic_digits_are_numbered_names(query, names):
    assert numbered_names(query) == {k: frozenset(v) for k, v in names.items()}


def _priced(text: str) -> bool:  # the filler of these cases: a price in 元
    return re.search(r"\d+ ?元", text) is not None


def _numbered(text: str) -> bool:  # any number but a year
    return re.search(r"(?<!\d)\d{1,3}(?!\d)", text) is not None


def test_a_title_naming_both_versions_does_not_make_the_passage_the_asked_ones():
    q = "云点单 2 的月费是多少？"
    # the fee is the 云点单 3's; a title naming both says nothing
    assert siblings_filled(q, ["# 云点单 3 和 云点单 2", *YUNDIANDAN], _priced,
                           "云点单 3 和 云点单 2") == ("云点单 3",)
    # a title naming the asked one alone still says the passage is written of it
    assert siblings_filled(q, YUNDIANDAN, _priced, "云点单 2") == ()
    # the 3 of "云点单 3" is its name, not a number answering (a clause holding none)
    assert siblings_filled(q, ["# 云点单 3 和 云点单 2", *YUNDIANDAN], _numbered,
                           "云点单 3 和 云点单 2") == ("云点单 3",)
    assert siblings_filled("云点单 3 的月费是多少？", YUNDIANDAN, _priced,
                           "云点单 3 和 云点单 2") == ()


QUILLPAD_4 = ["# Quillpad 4", "The Quillpad 4 came out in September 2023 as the successor to "
              "the Quillpad 3.", "It switches to a 10.9-inch screen and doubles the storage to "
              "64 GB.", "Handwriting recognition on the Quillpad 4 supports 12 languages."]
TINGSONG_T1 = ["# 听松 T1 降噪耳机", "听松 T1 是松韵声学在 2020 年 6 月发布的无线降噪耳机。",
               "单只耳机重 5.2 克，单次续航 6 小时，配合充电盒总续航 24 小时。"]


def test_a_note_titled_by_a_sibling_is_written_of_that_sibling():
    # a trial: the Quillpad 4's note answered "How many languages does ... the Quillpad 3
    # support?" at 97% (it names the 3 as the 4's predecessor), the 听松 T1's note
    # 听松 T2 配合充电盒总续航多少小时 at 94% (its sentences name no product)
    q3 = "How many languages does handwriting recognition on the Quillpad 3 support?"
    assert siblings_filled(q3, QUILLPAD_4, _numbered, "Quillpad 4") == ("quillpad 4",)
    q4 = "How many languages does handwriting recognition on the Quillpad 4 support?"
    assert siblings_filled(q4, QUILLPAD_4, _numbered, "Quillpad 4") == ()
    t2 = "听松 T2 配合充电盒总续航多少小时？"
    assert siblings_filled(t2, TINGSONG_T1, _numbered, "听松 T1 降噪耳机") == ("t 1",)
    assert siblings_filled("听松 T1 配合充电盒总续航多少小时？", TINGSONG_T1, _numbered,
                           "听松 T1 降噪耳机") == ()
    # without a title an unnamed sentence stays undecided
    assert siblings_filled(t2, TINGSONG_T1[2:], _numbered) == ()


def _focus_of(query: str, text: str, topic: frozenset[str]) -> tuple[str, ...]:
    focus = [t for t in content_terms(query) if t.text not in topic]
    return predicate_unnamed(query, focus, passage_terms(text))


LUMO, YUN = frozenset({"lumo", "2"}), frozenset({"云点", "2"})


@pytest.mark.parametrize(("query", "text", "topic", "unnamed"), [
    ("Does the Lumo 2 support Matter?", "The Lumo 2 weighs 1.2 kg.", LUMO, ("Matter",)),
    ("Does the Lumo 2 support Matter?", "Matter works on the Lumo 2.", LUMO, ()),
    # every content word a name: still a sentence ("have" in lower case), not a title
    ("Does the Orion 2 have Wi-Fi?", "The Orion 2 connects over Bluetooth 4.2.",
     frozenset({"orion", "2"}), ("Wi-Fi",)),
    ("Does the Orion 2 have Wi-Fi?", "The Orion 2 connects over Wi-Fi.",
     frozenset({"orion", "2"}), ()),
    ("Does the Lumo 2 support WPA3 or Zigbee?", "The Lumo 2 has Zigbee.", LUMO, ()),
    # only names count: other words have paraphrases (a review's pairs)
    ("Does Acme have a pension plan?", "Acme pays 5% into a retirement fund.", frozenset(), ()),
    ("Is the Lumo 2 waterproof?", "The Lumo 2 is rated IP67.", LUMO, ()),
    ("云点单 2 支持扫码点餐吗？", "云点单 2 于 2021 年发布。", YUN, ()),
    # a wh-question inside: not yes or no
    ("Do you know who founded Matter Labs?", "Acme makes lamps.", frozenset(), ()),
    ("你知道谁创办了青禾科技吗？", "青禾科技由林晓岚于2015年创立。", frozenset(), ()),
    # its focus all numbers or topic: nothing to check
    ("Is there a Lumo 2?", "The Lumo 2 weighs 1.2 kg.", LUMO, ()),
    # not a yes-or-no question: left to the other signals
    ("What does the Lumo 2 support?", "The Lumo 2 weighs 1.2 kg.", LUMO, ()),
    ("How do I pair the Lumo 2 with Matter?", "The Lumo 2 weighs 1.2 kg.", LUMO, ()),
])
def test_a_yes_or_no_question_needs_a_passage_naming_its_focus(query, text, topic, unnamed):
    assert _focus_of(query, text, topic) == unnamed


@pytest.mark.parametrize(("query", "sents", "siblings"), [
    ("Does the Lumo 2 support Matter?", ["The Lumo 3 supports Matter over Wi-Fi."], ("lumo 3",)),
    # a clause opening with the one asked tells of it: "no", "can", how to (a review's cases)
    ("Does the Lumo 2 support Matter?",
     ["The Lumo 3 supports Matter over Wi-Fi; the Lumo 2 does not."], ()),
    ("云点单 2 支持扫码点餐吗？", ["扫码点餐只在云点单 3 上提供，云点单 2 没有。"], ()),
    ("Can the Lumo 2 be dimmed?", ["The Lumo 1 could not be dimmed; the Lumo 2 can."], ()),
    ("How do I reset the Lumo 2?", ["The Lumo 3 resets from the app.",
                                    "The Lumo 2 has no app: hold its button for ten seconds."], ()),
    ("云点单 2 支持扫码点餐吗？", YUNDIANDAN, ()),  # 云点单 2 只支持安卓平板 tells of it
    # the one asked named near the focus: a second review's cases
    ("Is the Lumo 2 waterproof?", ["The Lumo 3 is waterproof, as is the Lumo 2."], ()),
    ("Does the Lumo 2 support Matter?",
     ["The Lumo 3 supports Matter.", "So does the Lumo 2 since the spring update."], ()),
    ("Does the Lumo 2 support Matter?", ["Unlike the Lumo 2, the Lumo 3 supports Matter."], ()),
    # ... but not two sentences away
    ("Does the Lumo 2 support Matter?",
     ["The Lumo 3 replaced the Lumo 2 in spring 2024.", "Brightness went up to 1000 lumens.",
      "The Lumo 3 supports Matter over Wi-Fi."], ("lumo 3",)),
])
def test_the_focus_test_leaves_a_passage_telling_of_the_one_asked(query, sents, siblings):
    terms = content_terms(query)
    focus = [t for t in terms if t.text not in {"lumo", "2", "云点"}]
    assert siblings_filled(query, sents, partial(holds_focus, terms=focus,
                                                 weights=[1.0] * len(focus)),
                           asked_topic_decides=True) == siblings


def test_holds_focus_wants_half_the_focus_numbers_aside():
    terms = content_terms("Does the Lumo 2 support Matter over Thread?")
    weights = [1.0] * len(terms)  # lumo, 2, support, matter, thread
    assert holds_focus("The Lumo supports Matter.", terms, weights)  # 3 of 4 words
    assert not holds_focus("Matter is a standard.", terms, weights)  # 1 of 4
    assert not holds_focus("2 2 2", [t for t in terms if t.text == "2"], [1.0])  # numbers only


def test_a_yes_or_no_question_on_a_siblings_clause_fails_the_gate():
    q = "Does the Lumo 2 support Matter?"
    lumo3 = ("The Lumo 3 replaced the Lumo 2 in spring 2024. Brightness went up to 1000 "
             "lumens. The Lumo 3 supports Matter over Wi-Fi.")
    (s,) = _signals(q, [lumo3], "Lumo 3 desk lamp")
    assert not s.gate and s.siblings_apart == ("lumo 3",)
    (s,) = _signals("Does the Lumo 3 support Matter?", [lumo3], "Lumo 3 desk lamp")
    assert s.gate and s.siblings_apart == ()
    (s,) = _signals(q, ["The Lumo 2 and the Lumo 3 support Matter over Wi-Fi."], "Lumo lamps")
    assert s.gate and s.siblings_apart == ()
    (s,) = _signals(q, ["The Lumo 2 is charged over USB-C and weighs 1.2 kg."], "Lumo 2 desk lamp")
    assert not s.gate and s.asked_unnamed == ("Matter",)


@pytest.mark.parametrize(("query", "asked"), [
    ("星云科技的 CEO 是谁？", ("chief executive",)),
    ("Who is the chief executive of Brightloom?", ("chief executive",)),
    ("王伟的儿子叫什么？", ("son",)),
    ("What is the name of his eldest son?", ("son",)),
    ("Who was the mother of Henry II?", ("mother",)),
    ("Who is Alice Moreau's husband?", ("husband",)),
    ("李娜的丈夫是谁？", ("husband",)),
    # a kin word naming no relative, a surname
    ("What is the mother tongue of Alice?", ()),
    ("Who is the father-in-law of Tom?", ()),
    ("Who is Masayoshi Son?", ()),
    ("那位穿西装的先生是谁？", ()),  # 先生: a gentleman, no husband
    ("Who is the manager of the data team?", ("manager post",)),  # a post, no one's manager
    ("北光公司的领导是谁？", ()),
    ("Who succeeded Ines Korvalla as chief executive?", ("successor",)),  # asks the successor
])
def test_roles_and_relatives_a_question_asks_of(query, asked):
    assert attributes_asked(query) == asked


@pytest.mark.parametrize(("query", "text", "unnamed"), [
    ("星云科技的 CEO 是谁？", "星云科技是一家位于杭州的小型软件公司。", ("chief executive",)),
    ("星云科技的 CEO 是谁？", "星云科技由陈明创办。", ()),  # the founder may be the chief
    ("Who is the CEO of Brightloom?", "The company is run by Marc Dubois.", ()),
    ("王伟的儿子叫什么？", "他们有一个女儿，叫王小雨。", ("son",)),
    ("王伟的儿子叫什么？", "他们有一个孩子。", ()),  # a child may be the son
    ("Who is Alice's husband?", "She lives in Lyon with her partner Tom.", ()),
    ("Who is Alice's husband?", "She studied at INSA Lyon.", ("husband",)),
    # a review's answering pairs: a spouse's word names both sides, 爱人, 男孩, a birth, 一把手
    ("Who is Ana Silva's husband?", "Ana Silva is Tom Becker's wife.", ()),
    ("李娜的丈夫是谁？", "李娜的爱人王伟是工程师。", ()),
    ("王伟的儿子叫什么？", "王伟有一个男孩。", ()),
    ("Who is Leo's mother?", "Ana gave birth to Leo in 2010.", ()),
    ("星云科技的 CEO 是谁？", "星云科技的一把手是陈明。", ()),
    # words inside others name nothing: Wednesdays, headquarters
    ("Who is Alice's wife?", "We meet on Wednesdays.", ("wife",)),
    ("Who is the CEO of Acme?", "Acme moved its headquarters to Lyon.", ("chief executive",)),
    # a sibling's words name both sides (a SQuAD training question); a manager
    ("Who was Margaret's brother?", "King Malcolm married Edgar's sister Margaret.", ()),
    ("Who is Maria Keller's sister?", "Maria Keller lives in Bern.", ("sister",)),
    ("Who is Ingrid Sorensen's manager?", "Ingrid Sorensen works in finance.", ("manager",)),
    ("Who is Ingrid's manager?", "Ingrid reports to Tom.", ()),
    # a parent's words name the child and the reverse; 其父 (a second review's cases)
    ("Who is Harold Pembridge's son?", "Harold Pembridge is Edgar Pembridge's father.", ()),
    ("Who is Ann's mother?", "Mary is the mother of Ann.", ()),
    ("Who is Harold's father?", "Edgar was Harold's eldest child.", ()),
    ("王伟的父亲是谁？", "王伟，北京人，其父王建国是清华大学教授。", ()),
    ("Who is Alice's boss?", "Alice reports to Bob.", ()),
    # a child's words name its parents (a CMRC training question: 邵伯温 is 邵雍之子)
    ("邵伯温的父亲名字叫什么？", "邵伯温，字子文，洛阳人。邵雍之子。", ()),
    ("永昌大君的母亲是谁？", "永昌大君是宣祖的嫡长子，由仁穆王后所生。", ()),
    ("Who was Henry's mother?", "Henry, the son of Matilda, was born in Le Mans.", ()),
    ("Who was Henry's mother?", "Henry was born in Le Mans in 1133.", ("mother",)),
])
def test_roles_and_relatives_a_passage_never_names(query, text, unnamed):
    assert attributes_unnamed(query, text) == unnamed


def test_numbered_names_name_a_subject_and_a_title():
    q = "Lumo 2 多少钱？"
    assert named_terms(q, content_terms(q)) == {"lumo"}
    q = "云点单 2 的月费是多少？"
    assert "云点单" in names_elsewhere("云点单 3 和 云点单 2", "\n".join(YUNDIANDAN),
                                    "Lumo 2 多少钱？")
    assert "云点单" not in names_elsewhere("云点单 3 和 云点单 2", "\n".join(YUNDIANDAN), q)


@pytest.mark.parametrize(("query", "text", "swapped"), [
    ("What will replace the Lumo 3?", "The Lumo 3 replaced the Lumo 2 in spring 2024.",
     ("replace",)),
    ("What will replace the Lumo 3?", "The Lumo 4 will replace the Lumo 3 next year.", ()),
    ("What will replace the Lumo 3?", "The Lumo 3 will be replaced by the Lumo 4.", ()),
    ("Who founded Acme?", "In 2010 Acme founded a subsidiary in Lisbon.", ("founded",)),
    ("Who founded Acme?", "Acme was founded in 1990 by John Smith.", ()),  # passive
    ("Who founded Acme?", "Acme, founded by John Smith, makes drones.", ()),
    ("Who founded Acme?", "John Smith founded Acme in 1990.", ()),
    ("Who acquired Tidewell?", "Tidewell acquired Brindle in 2019.", ("acquired",)),
    ("Which company acquired Tidewell?", "Tidewell acquired Brindle in 2019.", ("acquired",)),
    # both readings written: left to the model; a verb far from the name says nothing
    ("Who acquired Tidewell?", "Tidewell acquired Brindle. Acme acquired Tidewell in 2021.",
     ()),
    ("Who acquired Tidewell?", "Tidewell makes drones; in 2019 the firm on the hill nearest "
     "the old harbour acquired a boatyard.", ()),
    # a verb whose two sides play one part
    ("Who married Cnut the Great?", "Cnut married Emma of Normandy.", ()),
    ("Who is Alice Moreau's manager?", "Alice Moreau is my former manager at Brightloom.",
     ("manager",)),
    ("Who is Alice Moreau's manager?", "Alice Moreau joined in 2019. Her manager is Bob.", ()),
    ("Who is Alice Moreau's manager?", "Bob is the manager of Alice since 2019.", ()),
    # the one done to asked ("What did X replace?")
    ("What did the Aurora Router 1 replace?",
     "The Aurora Router 2 replaced the Aurora Router 1 in 2023.", ("replace",)),
    ("What did the Aurora Router 2 replace?",
     "The Aurora Router 2 replaced the Aurora Router 1 in 2023.", ()),
    ("What did Acme found?", "In 2010 Acme founded a subsidiary in Lisbon.", ()),
    # a review's answering passages: modal verbs, relative clauses, pronoun objects, a
    # participle with its agent later, "found" of "find", a role's verb, a full-name
    # possessive, "be" far from the name, light verbs
    ("Which company will Orbis acquire?", "Orbis will acquire Tidewell in March.", ()),
    ("What can Acme do?", "Acme can do many things.", ()),
    ("Who founded Acme Robotics?", "Acme Robotics, which Jane Doe founded in 1990, makes arms.",
     ()),
    ("Who succeeded Henry VIII?", "When Henry VIII died in 1547, Edward VI succeeded him.", ()),
    ("What will replace the Lumo 3?", "Once the Lumo 3 sells out, the Lumo 4 will replace it.",
     ()),
    ("Who acquired Tidewell?", "Tidewell, acquired in 2019 by Orbis, makes drones.", ()),
    ("Who founded Acme?", "Acme found a buyer in 2020. It was founded by Jane Doe.", ()),
    ("Who is Alice's manager?", "Alice is managed by Tom Reyes.", ()),
    ("Who is Alice Moreau's manager?",
     "Alice Moreau's manager is Tom Reyes. Alice Moreau is also a manager of two teams.", ()),
    ("Who is Alice's manager?", "Alice joined when Tom Reyes was already the manager.", ()),
    ("What makes Acme different from Orbis?", "Acme makes its drones in-house.", ()),
    # a second review's answering passages: an infinitive, an -ing form, a noun of the verb,
    # an agent far after a participle, "replaced with", another name between, the relation
    # told the other way round, a curly apostrophe
    ("What did the Lumo 3 replace?", "The Lumo 3 was designed to replace the Lumo 2.", ()),
    ("What did the Lumo 3 replace?", "The Lumo 3 is replacing the Lumo 2.", ()),
    ("What did the Aurora 5 replace?", "The Aurora 5 is the replacement for the Aurora 4.", ()),
    ("What did Orbis acquire?", "Orbis was founded in 1990 and acquired Tidewell.", ()),
    ("Who founded Acme?", "Acme, founded in 2001 in Berlin by Jane Doe, makes drones.", ()),
    ("What will replace the Lumo 2?", "The Lumo 2 has been replaced with the Lumo 3.", ()),
    ("Who acquired Tidewell?", "Tidewell, the drone maker Orbis acquired in 2019, grew.", ()),
    ("Who is Alice Moreau's manager?",
     "Alice Moreau is a product manager at Orbis and reports to Bob Stein.", ()),
    ("Who is Alice's manager?", "Alice is a manager whose own manager is Bob.", ()),
    ("Who is Alice Moreau's manager?", "Alice Moreau\u2019s manager is Tom. Alice Moreau is a "
     "manager too.", ()),
    # a name on both sides of one verb ("the Fresnel lens" named after its inventor)
    ("Who invented the Fresnel lens?",
     "The Fresnel lens was invented by Augustin Fresnel in 1822.", ()),
    # a person's name written by one of its words (the last trial: 97% on this note)
    ("Who replaced Tobias Hargreave as lead engineer?",
     "In 2023 Tobias replaced Gordon Pike as lead engineer.", ("replaced",)),
    ("Who replaced Gordon Pike as lead engineer?",
     "In 2023 Tobias replaced Gordon Pike as lead engineer.", ()),
    ("What will replace the Lumo 3?", "The Lumo replaced the Lumo 2 in 2024.", ()),  # not whole
    ("Who did King Charles III swear fealty to?",  # a SQuAD training question
     "Rollo agreed to swear fealty to King Charles III.", ("swear",)),
    # the name after the verb only as an owner: the verb's other side is its relative or part
    ("Who did Edgar marry?", "King Malcolm III married Edgar's sister Margaret.", ("marry",)),
    ("Who did Malcolm marry?", "King Malcolm III married Edgar's sister Margaret.", ()),
    ("Who founded Tidewell?", "In 2001 Jane founded Tidewell's first lab.", ()),  # a part
    ("Who bought Tidewell?", "Orbis bought Tidewell's entire share capital.", ()),
    ("Who acquired Tidewell?", "Orbis acquired Tidewell's parent in 2019.", ()),  # a firm's
    ("Who runs Acme?", "Dana Lee runs Acme's day-to-day business.", ()),
    ("Who did Edgar marry?", "Malcolm married Edgar's younger sister Margaret.", ("marry",)),
    ("Who did Tom marry?", "Ana married Tom's brother in 2001.", ("marry",)),
    # the relation told the other way round beside the apposition decides nothing
    ("Who is Priya Nair's manager?", "Priya Nair, Acme's engineering manager, works under "
     "Dana Lee.", ()),
    ("Who founded Tidewell?", "Tidewell's founder, Mara Quenby, founded it in 2014.", ()),
    ("Who founded Tidewell's first lab?", "In 2001 Jane founded Tidewell's first lab.", ()),
    # a role in apposition: the name is another's son
    ("Who was Bohemond's son?", "The Normans under Bohemond, Robert's son, landed in Valona.",
     ("son",)),
    ("Who was Robert's son?", "The Normans under Bohemond, Robert's son, landed in Valona.", ()),
    # another question shape: not read
    ("谁取代了 Lumo 3？", "The Lumo 3 replaced the Lumo 2 in spring 2024.", ()),
])
def test_roles_swapped_against_the_question(query, text, swapped):
    assert roles_swapped(query, text) == swapped


def test_a_passage_with_the_roles_swapped_fails_the_gate():
    (s,) = _signals("What will replace the Lumo 3?",
                    ["The Lumo 3 replaced the Lumo 2 in spring 2024."], "Lumo 3 desk lamp")
    assert not s.gate and s.roles_swapped == ("replace",)
    (s,) = _signals("What will replace the Lumo 3?",
                    ["The Lumo 4 will replace the Lumo 3 next year."], "Lumo 3 desk lamp")
    assert s.gate and s.roles_swapped == ()


NOTES = {
    "lumo2.md": "# Lumo 2 desk lamp\n\nThe Lumo 2 is Brightloom's second desk lamp, released in "
                "October 2022.\nIt has a brightness of 800 lumens and weighs 1.2 kg.\n",
    "lumo3.md": "# Lumo 3 desk lamp\n\nThe Lumo 3 replaced the Lumo 2 in spring 2024.\nIt adds "
                "a motion sensor. Brightness went up to 1000 lumens. The Lumo 3 supports "
                "Matter over Wi-Fi.\n",
    "yunlian.md": "# 云点单 3 和 云点单 2\n\n" + "\n".join(YUNDIANDAN) + "\n",
    "xingyun.md": "# 星云科技\n\n星云科技是一家位于杭州的小型软件公司，主要做餐厅点餐系统。\n"
                  "星云科技的主要产品叫“云点单”，目前有两千多家餐厅在用。\n",
    "alice.md": "# Alice Moreau\n\nAlice Moreau is my former manager at Brightloom. She lives "
                "in Lyon.\n",
    "pancakes.md": "# Grandma's pancakes\n\nWhisk 200 g of flour with 2 eggs and 300 ml of "
                   "milk, then rest the batter for 30 minutes.\n",
    "wangwei.md": "# 王伟\n\n王伟是我大学室友，现在在深圳做嵌入式软件工程师。\n"
                  "他的妻子叫李娜，是一名中学英语老师。他们有一个女儿，叫王小雨。\n",
}


@pytest.fixture(scope="module")
def trial_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    return indexed_notes(tmp_path_factory.mktemp("asked_of"), NOTES)


@pytest.mark.parametrize("query", [
    "Does the Lumo 2 support Matter?",
    "云点单 2 的月费是多少？",
    "Lumo 2 多少钱？",
    "星云科技的 CEO 是谁？",
    "王伟的儿子叫什么？",
    "What will replace the Lumo 3?",
    "Who is Alice Moreau's manager?",
])
def test_the_trials_near_topic_questions_are_refused(trial_db: str, query: str) -> None:
    data = search(trial_db, query)
    assert data["insufficient_evidence"], _passing_titles(data)


@pytest.mark.parametrize(("query", "title"), [
    ("Does the Lumo 3 support Matter?", "Lumo 3 desk lamp"),
    ("云点单 3 的月费是多少？", "云点单 3 和 云点单 2"),
    ("云点单 3 支持扫码点餐吗？", "云点单 3 和 云点单 2"),
    ("王伟的女儿叫什么？", "王伟"),
    ("王伟的妻子是谁？", "王伟"),
    ("What did the Lumo 3 replace?", "Lumo 3 desk lamp"),
])
def test_the_same_questions_of_what_the_notes_hold_still_answer(trial_db: str, query: str,
                                                                 title: str) -> None:
    data = search(trial_db, query)
    assert not data["insufficient_evidence"]
    assert _passing_titles(data)[0] == title


def test_explain_says_when_the_roles_are_swapped_or_the_focus_unnamed(tmp_path):
    lumo3 = NOTES["lumo3.md"]
    shown, judged, _ = explained_refusal(tmp_path / "a", "lumo3.md", lumo3,
                                         "What will replace the Lumo 3?")
    assert "its 'replace' goes the other way round" in shown
    assert judged["roles_swapped"] == ["replace"]
    shown, judged, _ = explained_refusal(tmp_path / "b", "lumo3.md", lumo3,
                                         "Does the Lumo 3 support Zigbee?")
    assert "it says nothing of the Zigbee asked" in shown
    assert judged["asked_unnamed"] == ["Zigbee"]
