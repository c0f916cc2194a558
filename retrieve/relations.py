"""The attribute a question asks of, and whether a passage names it at all (pure functions).

"How many employees does Brindle & Oak Coffee have?" over a note about the café that gives
its prices but no staff, or "What is the population of Port Alder?" over a note set in the
town: the passage is about the question's subject, holds numbers, and answers nothing, since
it never tells of the attribute asked. A few attributes that knowledge bases are asked of
people and organisations (``ATTRIBUTES``: a headcount, a revenue, a population, a
headquarters, a place of study, a successor) are recognised by the phrases that ask them
(tight: "how many employees", 员工有多少, "population", 总部), and a passage names one by any
of a wider list of words (loose: "staff", "team", 人员 for a headcount; "based", 位于 for a
headquarters), in English or Chinese, so that only a passage telling nothing of it fails.
The events a date is asked of are the same idea for events (``kb.retrieve.events``).
"""

from __future__ import annotations

import re

# attribute -> (the phrases asking it: English, Chinese; the words naming it: English word
# starts, case-insensitive; Chinese, as substrings)
_TABLE = (
    ("headcount",
     r"\bhow many (?:\w+ )?(?:employees|staff|staffers|people (?:work|are employed))\b|"
     r"\b(?:number|size) of (?:its |the )?(?:employees|staff|workforce)\b|\bheadcount\b",
     r"(?:员工|职工|雇员|职员)(?:人数|数量|总数)?(?:是|有|为|共|约)?多少|多少(?:名|个|位)?(?:员工|职工|雇员|职员)",
     r"employ|staff|worker|headcount|workforce|personnel|people|person|team|crew|member|"
     r"engineer|full-time|part-time|fte|jobs?\b|hires?\b|hiring",
     r"员|职工|人员|团队|编制|雇|人"),
    ("revenue",
     r"\b(?:revenues?|annual sales|net sales)\b",
     r"营收|营业收入|营业额|销售额|年收入|总收入",
     r"revenu|turnover|sale|sold|income|earn|profit|gross|takings|receipts|billing|booking|"
     r"made|brought in|top line|posted|reported",
     r"收入|营收|营业|销售|销量|售出|利润|盈利|进账|产值|票房|成交|进项|入账"),
    ("population",
     r"\bpopulation of\b|\bwhat(?:'s| is| was) the population\b|"
     r"\bhow many (?:people|inhabitants|residents) live\b",
     r"人口",
     r"populat|inhabit|resident|people|citizen|census|live|home to|town of|city of|village of",
     r"人口|居民|人"),
    ("headquarters",
     r"\bheadquarter(?:s|ed)?\b|\bhead office\b",
     r"总部",
     r"headquarter|hq\b|head office|based|main office|principal office|seat\b|offices?\b|"
     r"located|home\b",
     r"总部|总公司|总行|本部|总店|所在地|驻地|设在|设于|位于|坐落|办公"),
    ("place of study",
     r"\bwhere did .{1,60}? (?:study|go to (?:school|college|university))\b|"
     r"\b(?:which|what) (?:university|college|school) did\b|\balma mater\b",
     r"(?:毕业|就读|求学)于?(?:哪|什么)|(?:哪|什么)(?:所|个)?(?:大学|学校|学院)(?:毕业|就读)",
     r"stud|graduat|degree|universit|college|school|alumn|educat|ph\.?d|doctor|bachelor|"
     r"master|academ|institut|attend|went to|reading|enrol",
     r"学|毕业|校|读|博士|硕士|学士|研究"),
    ("successor",
     r"\bwho (?:succeeded|replaced|took over from|followed)\b|\bsucceeded by\b|"
     r"\bsuccessors?\b",
     r"接任|继任|接替|接班",
     r"succe|replac|took over|take over|taken over|follow|handed|appoint|named|became|"
     r"helm|now (?:the )?(?:chief|ceo|head|leads|runs|director)|new (?:chief|ceo|head|"
     r"director|leader)|steps? in",
     r"接任|继任|接替|接班|继|任|接手"),
)
ATTRIBUTES: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    name: (re.compile(rf"{ask_en}|{ask_zh}", re.I),
           re.compile(rf"\b(?:{name_en})|{name_zh}", re.I))
    for name, ask_en, ask_zh, name_en, name_zh in _TABLE
}


def attributes_asked(query: str) -> tuple[str, ...]:
    """The attributes of ``ATTRIBUTES`` the question asks of, in table order."""
    return tuple(name for name, (ask, _) in ATTRIBUTES.items() if ask.search(query))


def attributes_unnamed(query: str, text: str) -> tuple[str, ...]:
    """The attributes a question asks of that a passage names in no word; ``()`` if none.

    Args:
        query: the question.
        text: the passage with its document's title and heading path.

    Returns:
        The names of the attributes asked (keys of ``ATTRIBUTES``) that ``text`` does not
        name, in table order; empty when the question asks none or the passage names each.
    """
    return tuple(name for name in attributes_asked(query)
                 if not ATTRIBUTES[name][1].search(text))
