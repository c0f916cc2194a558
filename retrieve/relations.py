"""The attribute a question asks of, and whether a passage names it at all (pure functions).

"How many employees does Brindle & Oak Coffee have?" over a note about the café that gives
its prices but no staff, or "What is the population of Port Alder?" over a note set in the
town: the passage is about the question's subject, holds numbers, and answers nothing, since
it never tells of the attribute asked. A few attributes that knowledge bases are asked of
people, organisations, products, trips and workplaces (``ATTRIBUTES``: a headcount, a
revenue, a population, a capital city, a headquarters, a place of study, a chief executive
or another C-level role, a successor, a price, a weight, a battery, a screen, calories, an
airline, sick leave, a salary, a phone number, an e-mail address, opening hours, a warranty,
a manager's post: "Who is the club manager at ...?")
are recognised by the phrases that ask them (tight: "how many employees", 员工有多少,
"population", 总部), and a passage names one by any
of a wider list of words (loose: "staff", "team", 人员 for a headcount; "based", 位于 for a
headquarters), in English or Chinese, so that only a passage telling nothing of it fails;
a quantity asked (how much, how many, 多少) is named only beside a number.
The events a date is asked of are the same idea for events (``kb.retrieve.events``).

The same holds for roles and relatives asked after a possessive (a chief executive, a son, a
wife, a manager: "Who is Alice's manager?"), and for a yes-or-no question's focus names
("Does the Lumo 2 support Matter?": ``predicate_unnamed``). ``asked_unnamed`` gathers them
for the judge's gate; ``holds_focus`` is the judge's test of a clause naming a question's
focus (``kb.retrieve.siblings``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kb.retrieve.answer_types import NUMBER_SPAN, AnswerType, gated_type, sentences
from kb.retrieve.events import events_unnamed
from kb.retrieve.tables import cells_unfilled
from kb.retrieve.terms import PassageTerms, Term, coverage, is_name, passage_terms

# attribute -> (the phrases asking it: English, Chinese; the words naming it: English word
# starts, case-insensitive; Chinese, as substrings)
_TABLE: tuple[tuple[str, str, str, str, str], ...] = (
    ("headcount",
     r"\bhow many (?:\w+ )?(?:employees|staff|staffers|people (?:work|are employed))\b|"
     r"\b(?:number|size) of (?:its |the )?(?:employees|staff|workforce)\b|\bheadcount\b",
     r"(?:员工|职工|雇员|职员)(?:(?:人数|数量|总数)(?:是|有|为|共|约)?多少|(?:是|有|为|共|约)?多少"
     r"(?=人|名|位|个人|[？?，,。！!\s]|$))|多少(?:名|个|位)?(?:员工|职工|雇员|职员)",
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
    ("capital city",
     r"(?<!share )(?<!human )(?<!venture )(?<!working )(?<!equity )\bcapital (?:city )?of\b|"
     r"\bcapital city\b|(?:'s|\bits|\btheir) capital\s*\??\s*$",
     r"首都|省会|首府",
     # not another sense: "human capital cost", "venture capital", "capital punishment"
     r"(?<!human )(?<!venture )(?<!working )(?<!social )(?<!share )(?<!risk )(?<!private )"
     r"(?<!cultural )(?<!financial )(?<!intellectual )(?<!natural )(?<!equity )"
     r"capital(?!s? (?:cost|gain|market|punishment|letter|investment|expenditure|flight|stock|"
     r"structure|asset|good|spending|requirement|ratio|formation|account))|"
     r"seat of (?:government|power)|administrative (?:centre|center)",
     r"首都|省会|首府|都城|京城|国都|首邑|行政中心"),
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
    ("chief executive",
     r"(?<!\bas )(?<!\bas a )\b(?:ceo|chief executive(?: officer)?|managing director)\b",
     r"首席执行官|行政总裁|总裁|总经理",
     r"ceo|chief|exec|managing|president|chair|founder|head\b|heads\b|headed\b|led\b|"
     r"leads?\b|runs?\b|run by|boss|director|owner|owned|manag|helm|in charge",
     r"首席执行官|总裁|总经理|董事长|CEO|负责人|创始人|创办|老板|掌门|领导|执行官|总监|经理|掌舵|"
     r"一把手|当家|主理人"),
    ("successor",
     r"\bwho (?:succeeded|replaced|took over from|followed)\b|\bsucceeded by\b|"
     r"\bsuccessors?\b",
     r"接任|继任|接替|接班",
     r"succe|replac|took over|take over|taken over|follow|handed|appoint|named|became|"
     r"helm|now (?:the )?(?:chief|ceo|head|leads|runs|director)|new (?:chief|ceo|head|"
     r"director|leader)|steps? in",
     r"接任|继任|接替|接班|继|任|接手"),
)
# attributes of products, trips and workplaces (a price, a battery, a screen, calories, an
# airline, sick leave, a salary, a phone number, an e-mail address, opening hours, a
# warranty, a chief technology officer): asked by their own word, named by any word or sign
# that can give it (a currency for a price, "lasts" for a battery, "inch" for a screen)
_TABLE += (
    ("price",
     r"\bhow much (?:does|did|do|is|was|are|were|will|would) .{1,60}? cost\b|"
     r"\b(?:price|retail price|list price|cost) of\b|\bwhat(?:'s| is| was) (?:the |its )?"
     r"(?:price|cost)\b|\bpriced?\b",
     r"售价|价格|价钱|多少钱|卖多少|定价",
     r"pric|cost|sold|sells?\b|sale|retail|euro|eur\b|dollar|usd|gbp|pound|yuan|rmb|yen\b|"
     r"cents?\b|free\b|fee|charge|paid|pay|spent|spend|budget|worth|valu|afford|cheap|expens",
     r"售|价|元|块钱|美元|欧元|英镑|日元|免费|费用|收费|花费|花了|钱|[$€£¥￥₹₽₩₺₫₴]|"
     r"(?i:\b(?:chf|inr|jpy|cny|aud|cad|sek|nok|dkk|hkd|sgd)\b)"),
    ("weight",
     r"\bhow heavy\b|\bhow much (?:does|did|do|is|was|are|were|will) .{1,60}? weigh\b|"
     r"\bweight of\b|\bwhat(?:'s| is| was) (?:the |its )?weight\b",
     r"多重|重量|有多沉|几斤|多少斤|多少公斤|多少千克|多少克",
     # not "light" alone: a lamp ("front light (70 lux)")
     r"weigh|heavy|heavier|lightweight|lighter\b|lightest\b|kg\b|kilo|grams?\b|g\b|lbs?\b|"
     r"pounds?\b|ounces?\b|oz\b|tonnes?\b|tons?\b|mass\b",
     r"重|克|斤|吨|磅"),
    ("chief technology officer",
     r"\b(?:cto|chief technology officer|chief technical officer)\b",
     r"首席技术官|技术总监|技术负责人",
     r"cto\b|chief techn|technolog|technical|engineering|research|r&d|product",
     r"首席技术官|技术|研发|工程|架构"),
    ("chief financial officer",
     r"\b(?:cfo|chief financial officer|finance director)\b",
     r"首席财务官|财务总监|财务负责人",
     r"cfo\b|chief financ|financ|treasur|controller|accounts\b|accountant",
     r"首席财务官|财务|会计|出纳"),
    ("chief operating officer",
     r"\b(?:coo|chief operating officer|operations director)\b",
     r"首席运营官|运营总监|运营负责人",
     r"coo\b|chief operat|operation",
     r"首席运营官|运营"),
    ("chief marketing officer",
     r"\b(?:cmo|chief marketing officer|marketing director)\b",
     r"首席营销官|营销总监|市场总监",
     r"cmo\b|chief market|marketing|growth|brand",
     r"首席营销官|营销|市场"),
    ("battery",
     r"\bbatter(?:y|ies)\b",
     r"电池|续航",
     r"batter|charg|mah\b|runtime|run time|lasts?\b|cordless|mains|power(?:ed)?\b|plug|"
     r"cells?\b|aaa?\b|endurance",
     r"电池|续航|充电|电量|毫安|供电|电源"),
    ("screen",
     r"\bscreens?\b|\bdisplay (?:size|resolution)\b|\bsize of (?:the |its )?display\b",
     r"屏幕|显示屏|触摸屏|屏",
     r"screen|display|inch|monitor|panel|lcd|oled|amoled|ips\b|retina|led\b|touch|resolution|"
     r"pixel|\d\s*(?:\"|”|-?in\b)|hz\b",
     r"屏|英寸|寸|显示|分辨率|像素"),
    ("calories",
     r"\bcalori|\bkcal\b|\bkilojoules?\b",
     r"热量|卡路里|千卡|大卡",
     r"calori|kcal|cal\b|kj\b|kilojoul|energy|nutrition",
     r"热量|卡路里|千卡|大卡|能量|营养"),
    ("airline",
     r"\bairlines?\b|\bair carrier\b",
     r"航空公司|哪家航空",
     r"airline|airways|air\b|aer\b|flights?\b|carrier|jet|(?:fly|flew|flying|flown|booked)\s+"
     r"(?-i:[A-Z])|(?-i:[A-Z][A-Z0-9]\s?\d{2,4}\b)",  # "flew TAP", "FR205" (not "flew to")
     r"航空|航班|国航|东航|南航|海航|川航|厦航|深航|春秋|吉祥|机票|(?-i:[A-Z][A-Z0-9]\d{2,4})"),
    ("sick leave",
     r"\bsick (?:days?|leave|pay|note)\b|\bsickness\b",
     r"病假",
     r"sick|ill\b|illness|medical|doctor|unwell|health",
     r"病|医|健康"),
    ("salary",
     r"\bsalar(?:y|ies)\b|\bwages?\b|\bhow much (?:does|did|do) .{1,40}? (?:earn|make|get paid)\b",
     r"工资|薪水|薪资|薪酬|月薪|年薪",
     r"salar|wage|pay|paid|earn|income|compensat|remunerat|stipend|euro|dollar|pound|base\b|"
     r"a year|per year|annual|start(?:s|ing)? at",
     r"工资|薪|收入|元|报酬|待遇|[$€£¥￥]"),
    ("phone number",
     r"\b(?:phone|telephone|fax) (?:number|no)\b|\bnumber to call\b",
     r"电话|手机号|联系方式",
     r"phone|tel\b|call|fax|hotline|\+?\d[\d ()-]{6,}",
     r"电话|手机|热线|致电|拨打|联系方式|\d{7,}"),
    ("e-mail address",
     r"\be-?mail(?: address)?\b",
     r"邮箱|电子邮件|邮件地址",
     r"e-?mail|mail|contact|@",
     r"邮箱|邮件|@"),
    ("opening hours",
     r"\bopening (?:hours|times)\b|\bwhat time does .{1,40}? (?:open|close)\b",
     r"营业时间|几点(?:开门|关门|营业)",
     r"open|close|hours|\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m|p\.m)|\d{1,2}:\d\d|midnight|noon|daily|"
     r"(?:mon|tue|wed|thu|fri|sat|sun|mo|tu|we|th|fr|sa|su)\w*\s*[–-]|\d{1,2}\s*[–-]\s*\d{1,2}\b|"
     r"from \d{1,2} to \d{1,2}",
     r"营业|开门|关门|开放|\d{1,2}[:：]\d\d|点"),
    ("warranty",
     r"\bwarrant(?:y|ies)\b|\bguarantee period\b",
     r"保修|质保|保固",
     r"warrant|guarant|repair|replace|cover",
     r"保修|质保|保固|维修|包换"),
)
# a parent's words name the child and a child's words the parent ("Harold is Edgar's father"
# names Harold's son; 邵雍之子, 由仁穆王后所生 name a father and a mother)
_PARENT_EN = (r"parent|father|dad\b|mother|mum\b|mom\b|(?:son|daughter|child) of|born to|"
              r"gave birth|raised|adopted|heir|")
_PARENT_ZH = (r"家长|父母|父亲|母亲|之子|之女|所生|嫡|庶|亲生|生下|抚养|收养|其父|其母|丧父|"
              r"丧母|随母|与父|爸|妈|")
_CHILD_EN = _PARENT_EN + r"child|kids?\b|sons?\b|daughters?\b|boys?\b|girls?\b"
_CHILD_ZH = _PARENT_ZH + (r"孩子|子女|儿女|儿子|女儿|长子|长女|次子|次女|独子|独女|养子|养女|男孩|"
                          r"女孩")
# a spouse's words name both sides: "Ana Silva is Tom Becker's wife" names Ana's husband
_SPOUSE_EN = r"spouse|husband|wife|wives|married|marri|wed\b|weds\b|wedding|partner|widow"
_SPOUSE_ZH = (r"配偶|伴侣|结婚|嫁|娶|妻|丈夫|夫人|夫妻|夫妇|之夫|前夫|亡夫|未婚夫|老公|老婆|太太|"
              r"爱人|老伴|先生")
_SIBLING_EN, _SIBLING_ZH = r"brother|sister|sibling", r"兄|弟|哥|姐|妹"
# a relative, asked after a possessive or "the" ("Alice's son", "the mother of", 王伟的儿子);
# a passage names one by its word or a wider one (a child for a son, a partner for a wife; a
# son's and a daughter's words stay apart: 王伟的儿子 is not named by 他们有一个女儿)
_KIN = (("son", r"sons?", r"儿子", _PARENT_EN + r"child|kids?\b|sons?\b|boys?\b",
         _PARENT_ZH + r"孩子|子女|儿女|儿子|长子|次子|独子|之子|男孩|养子"),
        ("daughter", r"daughters?", r"女儿", _PARENT_EN + r"child|kids?\b|daughters?\b|girls?\b",
         _PARENT_ZH + r"孩子|子女|儿女|女儿|长女|次女|独女|闺女|千金|之女|女孩|养女"),
        ("wife", r"wife|wives", r"妻子|太太|老婆", _SPOUSE_EN, _SPOUSE_ZH),
        ("husband", r"husband", r"丈夫|老公", _SPOUSE_EN, _SPOUSE_ZH),
        ("father", r"father|dad", r"父亲|爸爸", _CHILD_EN, r"之父|生父|养父|家父|父子|父女|继父|"
         + _CHILD_ZH),
        ("mother", r"mother|mum|mom", r"母亲|妈妈", _CHILD_EN, r"之母|生母|养母|母子|母女|继母|"
         + _CHILD_ZH),
        # a sibling's words name both ("Edgar's sister Margaret" names Margaret's brother)
        ("brother", r"brothers?", r"哥哥|弟弟|兄弟", _SIBLING_EN, _SIBLING_ZH),
        ("sister", r"sisters?", r"姐姐|妹妹|姐妹", _SIBLING_EN, _SIBLING_ZH))
PERSONAL = frozenset(row[0] for row in _KIN) | {"manager"}  # asked of a person (relatives.py)
# not a relative: "mother tongue", "father-in-law", "the Mother Superior"
_NOT_KIN = (r"(?![- ](?:tongue|language|company|ship|board|land|nature|country|city|church|"
            r"superior|figure|lode|in-law))")
_TABLE += tuple((name, rf"(?:(?:'s|\bhis|\bher|\btheir) (?:\w+ )?|\bthe (?:\w+ )?)(?:{ask_en})\b"
                 + _NOT_KIN, rf"的(?:{ask_zh})", name_en, name_zh)
                for name, ask_en, ask_zh, name_en, name_zh in _KIN)
# a role held over a person, asked after the person's possessive ("Who is Alice's manager?";
# not "the manager of the data team", a post any head fills): kb.retrieve.roles reads "Alice
# is my manager", which names a manager but not hers
_RUNS_EN = (r"manag|boss|supervis|lead\b|leads\b|led\b|head\b|heads\b|runs?\b|directs?\b|"
            r"oversee|ceo|chief|director")  # words of one who runs something, either kind
_RUNS_ZH = r"经理|主管|负责人|总监"
_TABLE += (("manager", r"(?:'s|\bhis|\bher|\btheir) (?:\w+ )?(?:manager|boss|supervisor)\b",
            r"的(?:上司|直属领导)",
            _RUNS_EN + r"|reports? to|reported to|reporting to|coach|under\b",
            _RUNS_ZH + r"|上司|领导|汇报|管"),)
# a manager's post asked of a place or a team ("Who is the club manager at Ironbark
# Fitness?", 店长是谁): a passage naming no one who runs anything (a member, a sales
# adviser) names none (a trial: the member passed at 88%)
_TABLE += (("manager post", r"\b(?:who|whom)\b.*\bthe (?:\w+ )?(?:manager|boss|supervisor)\b",
            r"(?:经理|店长|馆长|主管)(?:是谁|叫什么)",
            _RUNS_EN + r"|in charge|owner|owns|founder",
            _RUNS_ZH + r"|店长|馆长|老板|店主|创始人|负责|管理"),)
ATTRIBUTES: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    name: (re.compile(rf"{ask_en}|{ask_zh}", re.I),
           re.compile(rf"(?:\b|(?<=\d))(?:{name_en})|{name_zh}", re.I))  # "480g", "5000mAh"
    for name, ask_en, ask_zh, name_en, name_zh in _TABLE
}


# attributes a number gives, named only in a sentence holding one: "Its Seahound series,
# sold mostly to harbour authorities" names no revenue, "head of the bridges team" no
# headcount (nor does a year), a price may be "free"
_QUANTITIES = frozenset({"headcount", "revenue", "population", "price", "weight", "salary",
                        "calories"})
_FREE = re.compile(r"\bfree\b|免费", re.I)
_YEAR = re.compile(r"1[5-9]\d\d|20\d\d")  # "joined in 2019 as an engineer" counts nobody,
# when a preposition or 年 makes it a year (售价1999元, "employs 1500 people" count)
_YEAR_BEFORE = re.compile(r"(?:\b(?:in|since|from|until|till|by|of|during|around|circa|early|"
                          r"mid|late|before|after)\s+|年|-|–)$", re.I)
_HEAD_LINE = re.compile(r"^\s*(?:#{1,6}\s.*|\|.*\|)\s*$", re.M)  # a heading or table row


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
        name (a quantity, ``_QUANTITIES``: in a sentence holding a number), in table order;
        empty when the question asks none or the passage names each.
    """
    counted = gated_type(query) == "number"  # how much, how many, 多少: a quantity asked
    return tuple(name for name in attributes_asked(query)
                 if not (_quantity_named(name, text) if counted and name in _QUANTITIES
                         else ATTRIBUTES[name][1].search(text)))


def _quantity_named(name: str, text: str) -> bool:
    """Whether ``text`` names a quantity attribute beside a number (or a price as free).

    In one sentence, or in a heading or table line followed by a number ("## Pricing" over
    "The Lumo 2 starts at 149"; "| Model | Price |").
    """
    names = ATTRIBUTES[name][1]
    if any(names.search(x) and (_counts(x) or name == "price" and _FREE.search(x))
           for x in sentences(text)):
        return True
    return any(names.search(line) and _counts(text[m.end():])
               for m in _HEAD_LINE.finditer(text) for line in (m.group(),))


def _counts(text: str) -> bool:
    """Whether ``text`` holds a number that is no year ("in 2019") nor a citation mark."""
    return any(not (_YEAR.fullmatch(m.group()) and (_YEAR_BEFORE.search(text[:m.start()])
                                                    or text[m.end():m.end() + 1] == "年"))
               and text[m.start() - 1:m.start()] != "[" for m in NUMBER_SPAN.finditer(text))


# a yes-or-no question ("Does the Lumo 2 support Matter?"), not one holding a wh-question
# ("Do you know who founded Acme?", 你知道谁创办了青禾科技吗)
_YES_NO = re.compile(r"^\s*(?:does|do|did|is|are|was|were|can|could|has|have|had|will|would|"
                     r"should)\b|吗\s*[？?]?\s*$|是否|有没有|是不是|能不能|会不会|可不可以", re.I)
_WH = re.compile(r"\b(?:who|whom|whose|what|which|when|where|why|how)\b|谁|什么|哪|怎么|为什么|"
                 r"多少|几", re.I)


def predicate_unnamed(query: str, focus: Sequence[Term], holder: PassageTerms) -> tuple[str, ...]:
    """A yes-or-no question's focus names when a passage writes none of them; ``()`` otherwise.

    "Does the Lumo 2 support Matter?" is answered only by a passage telling of Matter: one
    about the lamp that never names it says nothing either way. Only names count
    (``kb.retrieve.terms.is_name``: "Matter", "WPA3", "USB-C"), which a passage does not
    paraphrase; the other focus words may be ("Does Acme have a pension plan?" over "a
    retirement fund", "Is it waterproof?" over "rated IP67"). Numbers are left aside (the
    "2" names the lamp).

    Args:
        query: the question.
        focus: its focus terms (those the passage's document is not about).
        holder: the passage's terms, with its title and heading path.

    Returns:
        The focus names as the question wrote them, when it asks yes or no and the passage
        holds none of them (nor their translations); else empty.
    """
    if not _YES_NO.search(query) or _WH.search(query):
        return ()
    names = [t for t in focus if is_name(t, query) and not _numeric(t)]
    if not names or any(holder.has(t) for t in names):
        return ()
    return tuple(t.surface or t.text for t in names)


def _numeric(term: Term) -> bool:
    """A term that is a number ("2" of "the Lumo 2", "3.12")."""
    return term.text.replace(".", "").isdigit()


def asked_unnamed(query: str, wanted: AnswerType, text: str, context: str,
                  focus: Sequence[Term], holder: PassageTerms) -> tuple[str, ...]:
    """What the question asks of that a passage names in no word; ``()`` if it names each.

    For a question asking a date, a number, a person, a place or a name (``wanted`` not
    ``other``): the events (``kb.retrieve.events.events_unnamed``); for any question, the
    attributes (``attributes_unnamed``: "What is the screen size of ...?" asks one in any
    form); for a yes-or-no question, its focus names (``predicate_unnamed``); the table cell
    it asks, when the table says it is not known yet (``kb.retrieve.tables.cells_unfilled``:
    "TBC" for the phone number asked).

    Args:
        query: the question.
        wanted: its expected answer type (``kb.retrieve.answer_types.answer_type``).
        text: the passage.
        context: its document's title and heading path.
        focus: the question's focus terms (empty to leave the yes-or-no check out: a passage
            in another script holds none of them as written).
        holder: the passage's terms, with its title and heading path.

    Returns:
        The event and attribute names, then the focus terms, that the passage never names,
        then the table cell asked that it leaves unknown.
    """
    events = events_unnamed(query, text, context) if wanted != "other" else ()
    return (events + attributes_unnamed(query, f"{text}\n{context}")
            + predicate_unnamed(query, focus, holder)
            + (() if _YES_NO.search(query) else cells_unfilled(query, text)))


def holds_focus(text: str, terms: Sequence[Term], weights: Sequence[float]) -> bool:
    """Whether ``text`` holds half the idf mass of ``terms``, numbers aside (a name's own)."""
    kept = [(t, w) for t, w in zip(terms, weights, strict=True) if not _numeric(t)]
    return bool(kept) and coverage([t for t, _ in kept], [w for _, w in kept],
                                   passage_terms(text)) >= 0.5
