"""The unit a question asks its number in, and whether a passage's number carries it.

Li & Roth's numeric answer subclasses (COLING 2002) that text marks with a unit: money, a
duration (days, weeks, months, years, hours, minutes, seconds), a percentage, a length, a
weight, and measures asked by their unit word alone (frequency, area, volume, temperature,
power, data, pressure: ``measure_asked``); and the grain a date is asked in, a day or a year
(``asked_date_grain``, ``dates_in_grain``). ``asked_units`` reads the question ("多少天",
"how many days", "多高"); ``with_unit`` tells whether a number in a passage is written with
one of them ("15天", "$60", "19.42米"); ``declared_units`` reads a unit a table or passage
declares for its numbers ("(元)").
Used by ``kb.retrieve.answer_types.novel_filler``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Literal

from kb.store.textindex import has_cjk

# A measure asked in Chinese: 多高 / 多长 / 多远 / 多深 / 多宽 closing the question or before
# 的, and 有多重; not 很多高校, 许多重要, 多重国籍 ("multiple"), 多重要 ("how important"), nor
# 多大 (an age, a size or a degree: "影响有多大")
ZH_MEASURE = (r"(?<![许很好众诸繁最更较太过])多([高长远深宽])(?=的|[吗呢啊呀？?，,。]|\s*$)|"
               r"有多(重)(?=[吗呢啊呀？?，,。]|\s*$)")
# The units a question may ask its number in (Li & Roth's NUM subclasses that text marks) and
# how a passage writes them; a number answering "多少天" or "how many days" carries one.
_UNIT_FORMS: dict[str, tuple[str, ...]] = {
    "money": ("元", "块", "美元", "欧元", "英镑", "日元", "円", "港元", "韩元", "卢布", "法郎",
              "人民币", "¥", "￥", "$", "€", "£", "₩", "₹", "eur", "usd", "rmb", "cny", "gbp",
              "jpy", "krw", "inr", "chf", "aud", "cad", "hkd", "nzd", "sgd", "sek", "nok", "dkk",
              "rub", "dollar", "euro", "pound", "yuan", "yen", "rupee", "franc", "rouble",
              "ruble", "peso", "baht", "kr", "cent"),
    "day": ("天", "日", "个工作日", "day", "working day", "business day"),
    "week": ("周", "个星期", "星期", "week"),
    "month": ("个月", "月", "month"),
    "year": ("年", "岁", "周岁", "周年", "year"),
    "hour": ("小时", "个小时", "钟头", "hour", "hr", "h"),
    "minute": ("分钟", "minute", "min"),
    "second": ("秒", "second", "sec", "ms", "millisecond"),
    "percent": ("%", "％", "percent", "per cent", "个百分点", "percentage point"),
    "weight": ("公斤", "千克", "克", "吨", "斤", "磅", "kg", "kilogram", "kilo", "gram", "g",
               "tonne", "ton", "pound", "lb", "oz", "ounce"),
    "length": ("米", "公里", "千米", "厘米", "公分", "毫米", "公尺", "英尺", "英里", "海里",
               "m", "km", "cm", "mm",
               "metre", "meter", "kilometre", "kilometer", "mile", "foot", "feet", "inch",
               "inches", "yard", "ft"),
    # measures asked by their unit alone ("多少千克", "how many hertz"): a number answers only
    # when it carries one (``measure_asked``)
    "frequency": ("赫兹", "千赫", "兆赫", "hz", "khz", "mhz", "ghz", "hertz", "cps"),
    "area": ("平方公里", "平方千米", "平方米", "平米", "公顷", "亩", "㎡", "km²", "m²", "km2", "ha",
             "m2", "sqm", "sqft", "ft²", "ft2", "sq. km", "sq. ft", "sq. mi", "square km",
             "sq km", "sq mi", "sq ft", "sq m", "hectare", "acre", "square kilometre",
             "square kilometer", "square metre", "square meter", "square mile", "square foot",
             "square feet"),
    "volume": ("立方米", "毫升", "升", "litre", "liter", "l", "ml", "gallon", "gal",
               "cubic metre", "cubic meter"),
    "temperature": ("摄氏度", "华氏度", "℃", "°c", "°f", "kelvin"),
    "power": ("千瓦", "兆瓦", "瓦", "马力", "kw", "mw", "hp", "watt", "kilowatt", "megawatt",
              "horsepower"),
    "data": ("字节", "比特", "kb", "mb", "gb", "tb", "byte", "kilobyte", "megabyte", "gigabyte"),
    "pressure": ("千帕", "帕", "kpa", "pa", "psi", "bar", "atm", "psf"),
}
DURATIONS = ("day", "week", "month", "year", "hour", "minute", "second")  # units of a time
_ZH_UNIT_ASKED = re.compile(r"(?:多少|几)(个月|个星期|个小时|钱|块|元|天|日|周|星期|月|年|岁|"
                            r"小时|分钟|秒)|(多久|多长时间)|(百分之几|百分比|占比)|"
                            r"(价格|价钱|售价|作价|定价|报价|费用|金额|租金|工资|薪水|薪酬|赔偿|罚款|奖金|"
                            r"(?<!时间)(?<!错误)(?<!性能)(?<!内存)预算)|"
                            + ZH_MEASURE)
_EN_UNIT_ASKED = re.compile(r"\bhow many (?:\w+ )?(days?|weeks?|months?|years?|hours?|minutes?|"
                            r"seconds?|dollars?|euros?)\b|\bhow (long)\b|\bhow (old)\b|"
                            r"\b(what (?:percentage|percent|share)|per ?cent)\b|"
                            r"\b(how much (?:money|(?:\w+ ){1,4}(?:cost|pay|charge|earn)\w*)|"
                            r"(?:price|cost|fee|charge|fare|"  # not an error, time or memory budget
                            r"(?<!error )(?<!time )(?<!latency )(?<!memory )(?<!token )"
                            r"(?<!performance )(?<!power )(?<!calorie )(?<!carbon )budget)s?\b)|"
                            # a length for "how tall / deep / wide", a weight for "how heavy" or
                            # "how much ... weigh" (not "how high": an altitude, a rate or a
                            # temperature; not "wide-ranging", "heavy-handed")
                            r"\bhow (tall|deep|wide)\b(?!-)|"
                            r"\b(how heavy(?!-)|how much (?:\w+ ){1,4}weigh(?:s|ed)?)\b", re.I)
_ZH_UNIT_KEY = {"个月": "month", "个星期": "week", "个小时": "hour", "钱": "money", "块": "money",
                "元": "money", "天": "day", "日": "day", "周": "week", "星期": "week",
                "月": "month", "年": "year", "岁": "year", "小时": "hour", "分钟": "minute",
                "秒": "second"}


# Units of the measures asked by a unit word after 多少 / 几 / "how many" (not the durations and
# money read before them, nor counters: "多少名员工", "how many employees" ask a plain count)
_MEASURES = ("weight", "length", "frequency", "area", "volume", "temperature", "power", "data",
             "pressure")
_ZH_FORMS = {f: u for u in _MEASURES for f in _UNIT_FORMS[u] if has_cjk(f)}
# (the unit closes the asking phrase: 多少米其林餐厅, 多少比特币, 多少帕金森患者 count things)


def _zh_asked(forms: Iterable[str], after: str) -> re.Pattern[str]:
    """多少 or 几 (a magnitude between) before one of ``forms`` (longest first), then ``after``."""
    return re.compile(r"(?:多少|几)\s*(?:万|亿|千|百万)?(" + "|".join(
        sorted(map(re.escape, forms), key=len, reverse=True)) + r")" + after)


_ZH_MEASURE_ASKED = _zh_asked(_ZH_FORMS, r"(?=[的？?，,。！!；;\s吗呢啊]|$)")
# ... or before its noun, an area or a length of two characters, or 亩: 多少亩农田, 多少公里路
# (not 多少米饭, 多少比特币)
_ZH_MEASURE_BEFORE_NOUN = _zh_asked(
    (f for f, u in _ZH_FORMS.items() if u in ("area", "length") and (len(f) >= 2 or f == "亩")),
    r"(?=[\u4e00-\u9fff])")
# (a unit word of four letters or more, and no money: "how many bars / ATMs / pounds" count
# things or ask a sum; "how many miles per hour" asks a speed)
_EN_FORMS = {f: u for u in _MEASURES for f in _UNIT_FORMS[u]
             if not has_cjk(f) and len(f) > 3 and f not in _UNIT_FORMS["money"]}
_EN_MEASURE_ASKED = re.compile(r"\bhow many ((?:square |cubic )?[a-z²]+)\b(?! per\b| an? hour\b)",
                               re.I)


# Measures asked by their noun right before 多少 ("碧澄湖的面积是多少？", "水深多少的海域"):
# a number answers only in the noun's measure. Only nouns of one physical sense: not 深度 (a
# tree's), 温度 (a model's sampling), 频率 / 功率 (how often, 功率因数), 长度 (a time too), and
# not the English nouns ("the weight of evidence", "the area of research", "the depth of the
# tree": a reviewer's list of false refusals).
_NOUN_MEASURES = {"面积": "area", "海拔": "length", "水深": "length", "高度": "length",
                  "身高": "length", "体重": "weight", "重量": "weight"}
_ZH_NOUN_ASKED = re.compile(r"(" + "|".join(_NOUN_MEASURES)
                            + r")(?:是|为|有|约|大约|达|的)?多少(?=[的？?。，,吗呢]|\s*$)")


def measure_by_noun(query: str) -> bool:
    """Whether the question asks its measure by a noun only ("面积是多少", no unit word).

    A bare number then answers too (a formula's result, a table's cell: "圆面积约12.57"); a
    number written in another measure does not (the depth "68米" for 面积).
    """
    return (has_cjk(query) and _ZH_MEASURE_ASKED.search(query) is None
            and _ZH_NOUN_ASKED.search(query) is not None)


def measure_asked(query: str) -> tuple[str, ...]:
    """The measure a question asks, or ``()``.

    By its unit word ("多少千克", "how many hertz") or, in Chinese, by its noun right before
    多少 ("面积是多少": ``_NOUN_MEASURES``).
    """
    if has_cjk(query):
        m = _ZH_MEASURE_ASKED.search(query) or _ZH_MEASURE_BEFORE_NOUN.search(query)
        if m:
            return (_ZH_FORMS[m.group(1)],)
        m = _ZH_NOUN_ASKED.search(query)
        if m:
            return (_NOUN_MEASURES[m.group(1)],)
    m = _EN_MEASURE_ASKED.search(query)
    if m:
        word = m.group(1).casefold()
        for form in (word, word.removesuffix("s"), word.removesuffix("es")):
            if form in _EN_FORMS:
                return (_EN_FORMS[form],)
    return ()


def asked_units(query: str) -> tuple[str, ...]:
    """The units the question asks its number in (``()``: any number answers it).

    ``多少天`` and ``how many days`` ask for days; ``多久`` and ``how long`` for any duration
    (``多长`` and ``how long`` for a length too; ``多高``, ``多远``, ``多深``, ``多宽`` for a
    length, ``有多重`` for a weight; ``多高的温度``: any number, the noun after says the unit);
    ``how old`` for years; a price or ``多少钱`` for money; ``what percentage`` for a percent;
    ``how tall / deep / wide`` for a length, ``how heavy`` and ``how much ... weigh`` for a
    weight; else the measure a unit word asks (``measure_asked``: 多少千克, "how many hertz").
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
                (*DURATIONS, "length") if measure == "长" else ("length",))
        return DURATIONS if m.group(2) else ("percent",) if m.group(3) else ("money",)
    m = _EN_UNIT_ASKED.search(query)
    if not m:
        return measure_asked(query)
    if m.group(1):
        word = m.group(1).lower().rstrip("s")
        return ("money",) if word in ("dollar", "euro") else (word,)
    if m.group(2):  # "how long": a time or a length ("How long is the platform?")
        return (*DURATIONS, "length")
    if m.group(6) or m.group(7):
        return ("length",) if m.group(6) else ("weight",)
    return ("year",) if m.group(3) else ("percent",) if m.group(4) else ("money",)


# Words that may stand between a number and its unit: "one full calendar year", "5 working days"
_UNIT_QUALIFIERS = (r"(?:full|calendar|business|working|consecutive|whole|more|additional|extra|"
                    r"straight|clear|school|man|person|light")
# A number right after a word of money is money: "售价：1999", "the fee of 60"
_PRICED = re.compile(r"(?:价|费|金额|工资|薪|租金|罚款|奖金|price|cost|fee|fare|salary|wage|rent|"
                     r"fine|budget|grant|payment)s?\s*(?:of|is|was|:|：|为|是)?\s*(?:about|around|约)?\s*$",
                     re.I)
_RATE_WORDS = frozenset({"per", "a", "an", "each", "every"})  # "cost per hour": a rate's unit
# a Markdown table's rule under its header: | --- | :---: |
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
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
    Latin unit is a whole word, its plural included, with no power after it ("12 km2" is
    an area, no length).
    """
    after = text[m.end():m.end() + 40].casefold()
    before = text[max(0, m.start() - 8):m.start()].rstrip().casefold()
    for unit in units:
        for form in _UNIT_FORMS[unit]:
            word = form.isascii() and form.isalpha()
            if word and _latin_unit(form).match(after):
                return True
            if not word and _ABOUT.sub("", after.lstrip()).startswith(form):
                return True
            # money before the number: a sign or a code ("$60", "EUR 60", "人民币60"), never
            # a lone character: "公元215年" is the year 215, not 215 元
            # a code a whole word ("scrub 2" is no RUB 2, "Fraud 3" no AUD 3)
            if (unit == "money" and before.endswith(form) and (
                    len(form) == 3 and not _LATIN_LETTER.match(before[-4:-3]) if word
                    else not _lone_cjk(form))):
                return True
        window = text[max(0, m.start() - 12):m.start()]
        if unit == "money" and _PRICED.search(window) and not (  # 涨价 8% is a rise, not a
                _PERCENT_AFTER.match(after) and _CHANGED.search(window)):  # price; a fee of 2%
            return True  # "售价：1999", "price: 60", "fee of 60"
    return False


_LATIN_LETTER = re.compile("[A-Za-z]")  # before a code: part of a word (总价EUR 99 is money)
_PERCENT_AFTER = re.compile(r"\s*(?:%|％|percent\b|per cent\b)")
# a change of a price, not the price: 涨价 8%, 降价, 提价, 调价, "price rose 8%", "cost increase"
_CHANGED = re.compile(r"[涨降提调]价|价格?(?:上涨|下降|上调|下调)|(?:rose|rise|risen|fell|fall|"
                      r"increase[ds]?|decrease[ds]?|raised?|cut|up|down)\b", re.I)


# "1200多平方公里", "8800余米", "四个多小时": a unit after "more than"; "四个半小时": "and a half"
_ABOUT = re.compile(r"^个?[多余半]")


# "4 and a half hours", "two and three-quarter miles": a part before the unit (as 个半)
_AND_A_PART = r"(?:and[\s-]+(?:a|one|three)[\s-]+(?:half|quarter|third)s?[\s-]+)?"


@lru_cache(maxsize=64)
def _latin_unit(form: str) -> re.Pattern[str]:
    """``form`` (or its plural) next: after a hyphen, a part ("and a half"), two qualifiers."""
    return re.compile(r"[\s-]*" + _AND_A_PART + r"(?:" + _UNIT_QUALIFIERS + r")[\s-]+){0,2}?"
                      + re.escape(form)
                      + r"s?(?![a-z0-9²³])")  # "km2", "m³": an area, a volume


def declared_units(text: str) -> set[str]:
    """The units a passage declares for its numbers.

    In brackets ("(元)", "(days)"), or as the last word of a Markdown table's header cell
    after another word ("| Leave days |"; "| Days |" alone names a column of weekdays, and
    "| Cost per hour |" a rate: its cells are money, not hours).
    """
    declared = {m.group(1).strip().casefold() for m in _DECLARED_UNIT.finditer(text)}
    lines = text.splitlines()
    for header, rule in zip(lines, lines[1:], strict=False):
        if "|" in header and TABLE_RULE.match(rule):
            declared.update(words[-1].casefold() for cell in header.strip().strip("|").split("|")
                            if len(words := cell.split()) >= 2
                            and words[-2].casefold() not in _RATE_WORDS)
    return {unit for unit, forms in _UNIT_FORMS.items()
            if any(d == f or d.rstrip("s") == f for d in declared for f in forms)}


DateGrain = Literal["day", "year", "time"]
# Month names as a regex alternation's parts (case-insensitive patterns; "may" in lower case is
# the verb): the date patterns here and in ``kb.retrieve.answer_types``
MONTHS = ("january february march april (?-i:May) june july august september october "
          "november december jan feb mar apr jun jul aug sep sept oct nov dec").split()
# A day written with 号 ("15号", "三月七号"): the number follows 月 (or 月的), a preposition,
# a weekday or no Han character; after other Han it is a name ("星河七号", "第七号", "星河17号卫星")
# unless written in digits before a time or an event ("会议3号上午召开", "12号召开"); before a
# noun such as 线 / 楼 / 门 it numbers a thing ("3号线", "几号楼"), no day.
ZH_HAO_NOUN = "线楼房门位球口车床馆厅窗站机桌座舱道区栋院厂码箱牌航病"
ZH_HAO_ASKED = "几号(?![" + ZH_HAO_NOUN + "])"  # asks a day; 几号线 / 几号楼 ask a number
_HAO_NUMBER = (r"(?:(?<![0-9０-９])[0-9０-９]{1,2}|"
               r"(?<![零〇一二三四五六七八九十])[零〇一二三四五六七八九十]{1,3})")
ZH_HAO_DAY = (r"(?:(?:(?<![\u3400-\u9fff])|(?<=[月于在是到至从及和天])|(?<=周[一二三四五六日天])|"
              r"(?<=期[一二三四五六日天])|(?<=月的))" + _HAO_NUMBER
              + r"\s*号(?![" + ZH_HAO_NOUN + r"])|"
              r"(?<=[\u3400-\u9fff])(?<![0-9０-９])[0-9０-９]{1,2}号(?=[上下中]午|晚上|早上|凌晨|傍晚|"
              r"当天|召开|举行|举办|开幕|闭幕|开会|开始|结束|截止|开学|放假|生效|上班|出发|到达|"
              r"送达|到账|到货|发货|发放|发(?![射布行明现])|左右|之?前|之?后|起|至|到))")
# The grain a date is asked in: a day ("On what date ...?", "哪一天", "几号") or a year ("In what
# year ...?", "哪一年"). A passage's date answers only in that grain: "April 2014" gives no day
# ("Apache OpenOffice 4.1 具体是哪一天发布的？", a trial of the train split), "on May 3" no year.
_EN_DAY_ASKED = re.compile(r"\b(?:what|which) (?:exact |precise |specific )?(?:date|day)\b"
                           r"(?! of the week)", re.I)
_EN_YEAR_ASKED = re.compile(r"\b(?:what|which) year\b", re.I)
# A time of day asked ("What time does the coach leave?", 几点出发): a date or a duration
# ("10 月 5 日", "约 3 小时") tells none (a trial: an itinerary's day passed for 几点). 几点 asks
# a time only before a verb of leaving, arriving, opening or closing, 钟 or the question's end
# (有几点需要注意, 哪几点建议, 总结了几点, 第几点: how many points, which point).
_EN_TIME_ASKED = re.compile(r"\b(?:what|which) (?:exact )?(?:time|hour)\b(?! (?:zone|period|frame|"
                            r"limit|span|of (?:year|the year|day|the day|month|week)))", re.I)
ZH_TIME_ASKED = (r"(?<![哪这那第了出有])几点(?=钟|半|[到出开关起降发抵回离上下结截营放集见碰入]|"
                 r"的|了|前|之前|以前|[？?，,。]|$)")
_ZH_TIME_ASKED = re.compile(ZH_TIME_ASKED)
_NUMBER_WORD = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve")
_CLOCK = re.compile(
    # 7:45, 7h45 (hours to 24, minutes to 59), 9am, 9:30 p.m.; with a dot only where a time
    # stands ("at 19.30", "10.00–17.00"): 2.50 EUR and 1.15 m are no time
    r"(?<![\d:])(?<!\d\.)(?:[01]?\d|2[0-4])[:h][0-5]\d(?![\d:]|\.\d)|"
    r"(?:\b(?:at|from|until|till|by|opens?|closes?|leaves?|departs?|arrives?|starts?|ends?) |"
    r"(?<=[-–—] )|(?<=[-–—]))(?:[01]?\d|2[0-4])\.[0-5]\d(?!\d|\.\d| ?(?:EUR|USD|GBP|CNY|RMB|"
    r"yuan|euros?|dollars?|pounds?|[€$£%]|[kcm]?m\b|k?g\b|m?l\b))|"
    r"(?<![\d.])(?:[01]?\d|2[0-4])\.[0-5]\d(?= ?[-–—] ?(?:[01]?\d|2[0-4])\.[0-5]\d)|"
    r"\b\d{1,2}(?:[:.][0-5]\d)? ?[ap]\.?m\b\.?|"
    r"\b(?:noon|midday|midnight|o'clock)\b|\b(?:half|quarter) (?:past|to)\b|"
    r"\b(?:\d{1,2}|" + _NUMBER_WORD + r") (?:in the (?:morning|afternoon|evening)|at night)\b|"
    r"\b(?:at|from|until|till) (?:[1-9]|1[0-2]|" + _NUMBER_WORD + r")\b(?![.,:]?\d| ?(?:%|per|"
    r"[a-z]+s\b|years?|days?|months?|weeks?|hours?|minutes?|percent|times))|"
    # 8 点, 14时, 下午三点 (a numeral before 点 is a time with a part of the day, 钟, 半, 整 or
    # 分 beside it, or in digits: 三点建议, 有一点 are no time)
    r"[0-9０-９]{1,2}\s*[点时](?!\s*[0-9０-９]*\s*小时)|"
    r"(?:早上|上午|中午|下午|晚上|凌晨|傍晚|清晨|夜里)\s*[零一二两三四五六七八九十]{1,3}\s*点|"
    r"[零一二两三四五六七八九十]{1,3}\s*点(?=钟|半|整|[零一二三四五六七八九十]{1,2}分)|中午|正午|午夜",
    re.I)
_ZH_DAY_ASKED = re.compile(r"哪一?天|哪一?日|" + ZH_HAO_ASKED + r"|几月几[日号]|什么日期|"
                           r"具体日期")
_ZH_YEAR_ASKED = re.compile(r"哪一?年|何年|什么年份")
_MONTH = "(?:" + "|".join((*MONTHS, "(?-i:MAY)")) + ")"
_DAY = re.compile(r"\b" + _MONTH + r"\.?\s+(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?(?!\d)|"
                  r"\b\d{1,2}(?:st|nd|rd|th)?\s*(?:of\s+|-)?" + _MONTH + r"\b|"
                  r"(?<!\d)\d{4}\s*[-/.–]\s*\d{1,2}\s*[-/.–]\s*\d{1,2}(?!\d)|"
                  r"(?<![\d.])\d{1,2}\s*[/.-]\s*\d{1,2}\s*[/.-]\s*\d{2,4}(?!\d|\.\d)|"
                  r"[0-9０-９零〇一二三四五六七八九十]{1,3}\s*日|" + ZH_HAO_DAY + "|"
                  r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|(?:星期|礼拜|周)[一二三四五六日天]",
                  re.I)
_YEAR = re.compile(r"(?<![\d,])(?:1[0-9]{3}|20[0-9]{2})(?![\d.,]\d)|\bin [1-9][0-9]{2}\b"
                   r"(?!\s+[a-z]{2,}s\b)|"
                   r"[0-9０-９零〇一二三四五六七八九十百千]+\s*年(?!代|间|来|多|以|前|后|内)|"
                   r"\b(?:AD|A\.D\.|c\.) ?[1-9][0-9]{0,3}\b|\b[1-9][0-9]{0,3} ?(?:AD|BC|BCE|CE)\b",
                   re.I)


def asked_date_grain(query: str) -> DateGrain | None:
    """``"time"`` (of day), ``"day"`` or ``"year"``: the grain a question asks its date in."""
    if has_cjk(query):
        return ("time" if _ZH_TIME_ASKED.search(query) else
                "day" if _ZH_DAY_ASKED.search(query) else
                "year" if _ZH_YEAR_ASKED.search(query) else None)
    return ("time" if _EN_TIME_ASKED.search(query) else
            "day" if _EN_DAY_ASKED.search(query) else
            "year" if _EN_YEAR_ASKED.search(query) else None)


def dates_in_grain(text: str, grain: DateGrain) -> list[str]:
    """The dates of ``text`` written to the ``grain`` asked (a time of day, a day, a year)."""
    pattern = {"time": _CLOCK, "day": _DAY, "year": _YEAR}[grain]
    return [m.group() for m in pattern.finditer(text)]
