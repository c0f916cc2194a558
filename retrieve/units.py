"""The unit a question asks its number in, and whether a passage's number carries it.

Li & Roth's numeric answer subclasses (COLING 2002) that text marks with a unit: money, a
duration (days, weeks, months, years, hours, minutes, seconds), a percentage, a length, a
weight. ``asked_units`` reads the question ("多少天", "how many days", "多高"); ``with_unit``
tells whether a number in a passage is written with one of them ("15天", "$60", "19.42米");
``declared_units`` reads a unit a table or passage declares for its numbers ("(元)").
Used by ``kb.retrieve.answer_types.novel_filler``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kb.store.textindex import has_cjk

# A measure asked in Chinese: 多高 / 多长 / 多远 / 多深 / 多宽 closing the question or before
# 的, and 有多重; not 很多高校, 许多重要, 多重国籍 ("multiple"), 多重要 ("how important"), nor
# 多大 (an age, a size or a degree: "影响有多大")
ZH_MEASURE = (r"(?<![许很好众诸繁最更较太过])多([高长远深宽])(?=的|[吗呢啊呀？?，,。]|\s*$)|"
               r"有多(重)(?=[吗呢啊呀？?，,。]|\s*$)")
# The units a question may ask its number in (Li & Roth's NUM subclasses that text marks) and
# how a passage writes them; a number answering "多少天" or "how many days" carries one.
_UNIT_FORMS: dict[str, tuple[str, ...]] = {
    "money": ("元", "块", "美元", "欧元", "英镑", "日元", "港元", "人民币", "¥", "￥", "$", "€",
              "£", "eur", "usd", "rmb", "cny", "gbp", "dollar", "euro", "pound", "yuan", "cent"),
    "day": ("天", "日", "个工作日", "day", "working day", "business day"),
    "week": ("周", "个星期", "星期", "week"),
    "month": ("个月", "月", "month"),
    "year": ("年", "岁", "周岁", "周年", "year"),
    "hour": ("小时", "个小时", "钟头", "hour", "hr", "h"),
    "minute": ("分钟", "minute", "min"),
    "second": ("秒", "second", "sec", "ms", "millisecond"),
    "percent": ("%", "％", "percent", "per cent", "个百分点", "percentage point"),
    "weight": ("公斤", "千克", "克", "吨", "斤", "kg", "kilogram", "kilo", "gram", "tonne", "ton",
               "pound", "lb"),
    "length": ("米", "公里", "千米", "厘米", "毫米", "公尺", "英尺", "英里", "m", "km", "cm", "mm",
               "metre", "meter", "kilometre", "kilometer", "mile", "foot", "feet", "inch",
               "inches", "yard", "ft"),
}
_DURATION = ("day", "week", "month", "year", "hour", "minute", "second")
_ZH_UNIT_ASKED = re.compile(r"(?:多少|几)(个月|个星期|个小时|钱|块|元|天|日|周|星期|月|年|岁|"
                            r"小时|分钟|秒)|(多久|多长时间)|(百分之几|百分比|占比)|"
                            r"(价格|价钱|售价|作价|定价|报价|费用|金额|租金|工资|薪水|薪酬|赔偿|罚款|奖金)|"
                            + ZH_MEASURE)
_EN_UNIT_ASKED = re.compile(r"\bhow many (?:\w+ )?(days?|weeks?|months?|years?|hours?|minutes?|"
                            r"seconds?|dollars?|euros?)\b|\bhow (long)\b|\bhow (old)\b|"
                            r"\b(what (?:percentage|percent|share)|per ?cent)\b|"
                            r"\b(how much (?:money|(?:\w+ ){1,4}(?:cost|pay|charge|earn)\w*)|"
                            r"(?:price|cost|fee|charge)s?\b)", re.I)
_ZH_UNIT_KEY = {"个月": "month", "个星期": "week", "个小时": "hour", "钱": "money", "块": "money",
                "元": "money", "天": "day", "日": "day", "周": "week", "星期": "week",
                "月": "month", "年": "year", "岁": "year", "小时": "hour", "分钟": "minute",
                "秒": "second"}


def asked_units(query: str) -> tuple[str, ...]:
    """The units the question asks its number in (``()``: any number answers it).

    ``多少天`` and ``how many days`` ask for days; ``多久`` and ``how long`` for any duration
    (``多长`` and ``how long`` for a length too; ``多高``, ``多远``, ``多深``, ``多宽`` for a
    length, ``有多重`` for a weight; ``多高的温度``: any number, the noun after says the unit);
    ``how old`` for years; a price or ``多少钱`` for money; ``what percentage`` for a percent.
    """
    m = _ZH_UNIT_ASKED.search(query)
    if m:
        if m.group(1):
            return (_ZH_UNIT_KEY[m.group(1)],)
        if m.group(5) or m.group(6):  # 多高: a length; 多长: a length or a time; 多重: a weight
            measure = m.group(5) or m.group(6)
            if query[m.end():m.end() + 1] == "的":  # 多高的温度: the noun after says the unit
                return ()
            return ("weight",) if measure == "重" else (
                (*_DURATION, "length") if measure == "长" else ("length",))
        return _DURATION if m.group(2) else ("percent",) if m.group(3) else ("money",)
    m = _EN_UNIT_ASKED.search(query)
    if not m:
        return ()
    if m.group(1):
        word = m.group(1).lower().rstrip("s")
        return ("money",) if word in ("dollar", "euro") else (word,)
    if m.group(2):  # "how long": a time or a length ("How long is the platform?")
        return (*_DURATION, "length")
    return ("year",) if m.group(3) else ("percent",) if m.group(4) else ("money",)


# Words that may stand between a number and its unit: "one full calendar year", "5 working days"
_UNIT_QUALIFIERS = (r"(?:full|calendar|business|working|consecutive|whole|more|additional|extra|"
                    r"straight|clear|school|man|person|light")
# A number right after a word of money is money: "售价：1999", "the fee of 60"
_PRICED = re.compile(r"(?:价|费|金额|工资|薪|租金|罚款|奖金|price|cost|fee|salary|wage|rent|fine|"
                     r"budget|grant|payment)s?\s*(?:of|is|was|:|：|为|是)?\s*(?:about|around|约)?\s*$",
                     re.I)
# A unit declared for a table's column or a whole passage: "营业收入(元)", "Time (days)"
_DECLARED_UNIT = re.compile(r"[(（]\s*(?:单位[:：]?\s*)?(?:万|亿|千|百万)?"
                            r"([^()（）\d]{1,12}?)\s*[)）]")


def _lone_cjk(form: str) -> bool:
    """Whether ``form`` is one CJK character (元, 块: units written after the number)."""
    return len(form) == 1 and has_cjk(form)


def with_unit(text: str, m: re.Match[str], units: tuple[str, ...]) -> bool:
    """Whether the number ``m`` in ``text`` is written with one of ``units``.

    The unit follows the number ("15天", "25 days", "eight-hour", "one full calendar year":
    a hyphen or up to two words between); money may also precede it ("$60", "EUR 60"). A
    Latin unit is a whole word, its plural included.
    """
    after = text[m.end():m.end() + 40].casefold()
    before = text[max(0, m.start() - 4):m.start()].rstrip().casefold()
    for unit in units:
        for form in _UNIT_FORMS[unit]:
            word = form.isascii() and form.isalpha()
            if word and _latin_unit(form).match(after):
                return True
            if not word and after.lstrip().startswith(form):
                return True
            # money before the number: a sign or a code ("$60", "EUR 60", "人民币60"), never
            # a lone character: "公元215年" is the year 215, not 215 元
            if (unit == "money" and before.endswith(form) and (len(form) == 3 if word
                                                                else not _lone_cjk(form))):
                return True
        if unit == "money" and _PRICED.search(text[max(0, m.start() - 12):m.start()]):
            return True  # "售价：1999", "price: 60", "fee of 60"
    return False


@lru_cache(maxsize=64)
def _latin_unit(form: str) -> re.Pattern[str]:
    """``form`` (or its plural) as the next word, after a hyphen or at most two qualifiers."""
    return re.compile(r"[\s-]*(?:" + _UNIT_QUALIFIERS + r")[\s-]+){0,2}?" + re.escape(form)
                      + r"s?(?![a-z])")


def declared_units(text: str) -> set[str]:
    """The units a passage declares in brackets for its numbers ("(元)", "(days)")."""
    declared = {m.group(1).strip().casefold() for m in _DECLARED_UNIT.finditer(text)}
    return {unit for unit, forms in _UNIT_FORMS.items()
            if any(d == f or d.rstrip("s") == f for d in declared for f in forms)}
