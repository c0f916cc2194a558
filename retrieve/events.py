"""The event a date is asked of, and the events a passage dates (pure functions).

"When was Harold Pembridge born?" asks the date of a birth; a passage whose dated sentences
tell only of a founding ("In 1921 he founded Pembridge & Sons.") answers with the date of
another event, however well it covers the question's name. Event-typed temporal questions
are the classic case (TimeML's event classes, Pustejovsky et al., IWCS 2003; the event-time
pairs of TempEval, Verhagen et al., SemEval 2007): a date answers only when it is the date of
the event asked.

A few events that date people, organisations and products are told apart here (``EVENTS``),
each by its English words (whole words) and its Chinese words (jieba's words, so 发生于 holds
no 生于 and 死亡率 no 死亡): a birth, a death, a marriage, a founding, a launch or release,
an office taken or left (elected, appointed, retired, graduated), a firm acquired (收购). A
passage is judged clause by clause; a clause that names no event, or fewer than the years it
holds, and a span of years in brackets (a lifespan: "Harold Pembridge (1890-1961)") decide
nothing. Events that blur into each other for one thing are left out, so nothing is
decided for them: a building is built, completed, opened (始建 / 落成 / 开放), a machine or a
firm 诞生 / 问世 ("came into being") or is "formed", in answers a reader would accept for its
founding or launch.

A question may also ask of an event the passage never names ("Who founded Greyfin
Capital?" against a note where the firm only leads a funding round): ``events_unnamed`` reads
the passage for any word of the event, in either language, from a wider vocabulary
(``NAMING``: "assassinated", "the founder", "went on sale", 1938年生), so that only a passage
telling of no such event at all fails.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from kb.retrieve.crosslang import HAN
from kb.store.textindex import cut_words


def _of_a_name(verbs: str) -> str:
    """``verbs`` followed by a name ("leave Nordlicht", "join the Acme team"): a firm, a team."""
    return rf"(?:{verbs})(?=\s+(?:the\s+)?(?-i:[A-Z]))"


# event -> (English words, case-insensitive unless marked; Chinese words, jieba's). "found"
# alone is left out (the past tense of "find": "When was the body found?"), "wed" is lower
# case ("Wed 18 September" is a weekday), "birth control" and "birth rate" are no birth.
EVENTS: dict[str, tuple[re.Pattern[str], frozenset[str]]] = {
    name: (re.compile(rf"\b(?:{en})\b", re.I), frozenset(zh.split())) for name, en, zh in (
        ("birth", r"born|births?(?! control| rates?)|birthday|birthdate|née",
         "出生 生于 生日"),
        ("death", r"die|died|dies|deaths?|killed|passed away|pass away|passes away",
         "逝世 去世 死于 病逝 身亡 辞世 遇害 卒 卒于 死亡 过世 离世 阵亡"),
        ("marriage", r"married|marry|marries|marriages?|weddings?|(?-i:wed|weds|wedded)",
         "结婚 成婚 婚礼 嫁给 迎娶 娶 完婚"),
        # a shop's or a line's opening is its founding ("When did Hearthstone Bakery open?",
        # 开业); not its hours ("When does the shop open?")
        ("founding", r"founded|founding|co-?founded|co-?founders?|founders?|established|"
                     r"incorporated|opened|(?<!time )did\s+(?:[\w'&.-]+\s+){1,6}open",
         "成立 创立 创建 创办 组建 创设 创始人 创办人 创立者 创建者 开业 开张"),
        ("office", r"retired|retirement|resigned|resignation|graduated|graduation|elected|"
                   r"appointed|stepped down", "退休 辞职 辞去 毕业 当选 任命 就任 卸任 上任"),
        ("launch", r"launch|launched|launches|launching|released?|releasing|debuts?|debuted|"
                   r"premieres?|premiered|published?|publishing|publication",
         "发射 发布 推出 上市 首映 出版 发行 首发"),
        ("acquisition", r"acquired|acquisition|takeover|taken over", "收购 并购 被收购"),
        # leaving a firm or a team ("When did Jan Petersen leave Nordlicht?", "quit Acme"; not
        # "annual leave", "leaving Addis Ababa" on a flight: a name does it, a name is left)
        ("departure", _of_a_name(r"did\s+(?-i:[A-Z])[\w.-]*(?:\s+(?-i:[A-Z])[\w.-]*)*\s+"
                                 r"(?:leave|quit)|quit|quits|resigned from"),
         "离职 辞职 跳槽 离任 离开"),
        # joining a firm or a team ("When did Ines Calloway join Marrowgate?", 加入, 入职)
        ("joining", _of_a_name(r"did\s+(?-i:[A-Z])[\w.-]*(?:\s+(?-i:[A-Z])[\w.-]*)*\s+join"),
         "入职 加盟"),  # 加入 also adds (a recipe)
    )
}
# the events a passage's clause is read as telling of, unless asked (a departure or a joining
# is read only when one is asked: "Jan quit Nordlicht in 2021 to found Helix" tells of
# Helix's founding too)
_PASSAGE_EVENTS = frozenset(EVENTS) - {"departure", "joining"}
_OPEN = re.compile(r"\bopen(?:ed)?\b|开业|开张", re.I)  # an opening asked
# a stay told by its end: "worked there until 2022", 工作到2022年底 (a departure when one is asked)
_WORKED_UNTIL = re.compile(r"\buntil\s+(?:\w+\s+)?(?:1[0-9]|20)\d\d\b|"
                           r"(?:工作|任职|干|待|留)(?:到|至)\s*\d{4}")
# Every way a passage may name an event (``events_unnamed``): the words of ``EVENTS`` and
# their kin ("was assassinated" tells a death, "the founder" a founding, "went on sale" a
# launch, 1938年生 a birth). Chinese words are matched as substrings here (jieba keeps 不幸遇害
# one word), English ones as word starts, so the list errs towards naming: a passage it
# misses fails the gate.
_PERIODICAL = re.compile(r"\b(?:which|what) publications?\b(?! date| year)", re.I)  # a journal
# an acquisition is asked of a firm ("When was Mara Quenby's company acquired?")
_FIRM = re.compile(r"\b(?:compan(?:y|ies)|firm|startup|business|brand|studio|bank|maker|group|"
                   r"subsidiary|label|chain|acquisition|takeover|acquired by)\b|"
                   r"公司|集团|企业|收购|并购", re.I)
_HEADING_LINE = re.compile(r"^[ \t]*#{1,6}[ \t].*$", re.M)  # a heading line (dated or not)
_VERSION = re.compile(r"(?<![\d.])v?\d+\.\d+(?:\.\d+)*(?![\d.])|\bversion\b|\brelease\b", re.I)
NAMING: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    name: (re.compile(rf"\b(?:{en})", re.I), re.compile(zh)) for name, en, zh in (
        ("birth", r"born|births?\b|birthday|birthdate|birthplace|née\b|nee\b|b\.\s*\d|native of",
         r"出生|生于|生於|生日|诞生|诞辰|出世|降生|\d\s*年(?:\d+\s*月)?(?:\d+\s*日)?生(?![产活成长物意效])"
         r"|寿辰|寿宴|大寿|祝寿|做寿|过寿|生辰"),  # an elder's birthday: 九十大寿, 寿宴
        ("death", r"die|died|dies|dying|dead\b|deaths?\b|kill|fatal|casualt|mortalit|"
                  r"pass(?:es|ed)? away|passed (?:in|on)\b|perish|murder|assassinat|execut|drown|"
                  r"suicide|succumb|behead|hanged|fell (?:at|in)\b|slain|lost (?:his|her|their) "
                  r"li(?:fe|ves)|d\.\s*\d",
         r"逝世|去世|死|卒|病逝|身亡|辞世|遇害|过世|离世|阵亡|殉|牺牲|遇刺|被杀|身故|殁|病故|遇难|罹难|"
         r"自杀|处决|处死|丧生|丧命|伤亡"),
        ("marriage", r"marri|marry|wedd|wed\b|weds\b|wife|husband|spouse|widow|bride|"
                     r"tied the knot|vows", r"婚|嫁|娶|妻|夫|配偶|连理"),
        ("founding", r"found(?:ed|er|ers|ing|ress)\b|co-?found|establish|incorporat|set up|"
                     r"started|formed|created|inception|origin|opened|began|launched|"
                     r"brainchild|since \d|dates? back|built|inaugurat|premiere|open since|"
                     r"(?:grand|official) opening|opening (?:day|date|ceremony)|"
                     r"welcomed its first|first (?:guests|visitors|passengers|customers)",
         # not 营业时间 or 开门时间: opening hours are no founding
         r"成立|创|建立|建于|始建|开业|开张|问世|诞生|开办|设立|组建|建校|建城|建成|开设|兴建|注册|"
         r"正式营业|开始营业|开门迎客|开通|落成|启用"),
        ("launch", r"launch|releas|publish|publication|debut|premier|unveil|introduc|"
                   r"went on sale|on sale|shipped|available|first flight|maiden|announc|"
                   r"came out|hit (?:the )?(?:stores|shelves|market)|aired|broadcast|dropped|"
                   r"went live|in theat|appeared|issued|presented|versions?\b",
         r"发射|发布|推出|上市|首映|出版|发行|首发|首飞|问世|面世|上映|播出|开播|公布|升空|发售|"
         r"开售|亮相|面市|投放|出品|刊"),
        ("acquisition", r"acqui|bought|buy|purchas|takeover|take over|taken over|merg|sold to|"
                        r"sale of|paid|deal|part of",
         r"收购|并购|买下|购得|购入|买入|出售|合并|易主"),
        ("departure", r"left|leav|quit|depart|resign|retir|step(?:s|ped)? down|exit|moved|"
                      r"until|former|formerly|ex-|no longer|laid off|fired|dismiss|let go|"
                      r"redundan|tenure|stint|spent|withdr|sail|set off|ended|"
                      r"last day|terminat|(?:1[0-9]|20)\d\d\s*(?:-|–|—|to)\s*(?:1[0-9]|20)\d\d",
         r"离职|辞职|离开|退休|辞去|卸任|跳槽|离任|解雇|裁员|前任|曾任|曾在|直到|结束|飞回|返回|回到|"
         r"出发|启程|搬到|搬去|前往|回国|动身|"
         r"[到至]\s*\d{4}|\d{4}\s*年?\s*[-–—至到]"),
        ("joining", r"join|hired|hire\b|recruit|start|began|begin|came|signed|appoint|became|"
                    r"moved to|named|transferr|"
                    r"employed (?:by|at)|since|arriv|onboard|took (?:up|on)|"
                    r"(?:1[0-9]|20)\d\d\s*(?:-|–|—|to)",
         r"加入|入职|加盟|聘|任职|就职|上任|进入|来到|开始|跳槽|起|\d{4}\s*年?\s*[-–—至到]"),
    )
}


# The dimension a length is asked in ("How deep is Lake Merrow?", 碧澄湖的海拔是多少) against
# the one a passage's number measures ("lies at an elevation of 1,240 metres", "最大水深96米"):
# depth, height, width. A dimension word counts only bound to a number ("85 m deep", "an
# elevation of 1,240", "水深96米", "海拔约3200米", "宽300米"), never loose in the clause ("drops
# 979 m into a deep gorge"); the question's only in its asking phrase ("How deep", 多深, 水深
# 是多少; not "the High Line"). Length and distance are left out ("how long" asks a time too).
_LEN = r"-?\d[\d,.]*\s*(?:m|km|ft|metres?|meters?|kilometres?|kilometers?|feet|foot|miles?)"
_OF = r"(?:of|at|to|reaches|reaching|is|was|:)\s+(?:about |some |around |up to |over |nearly )?-?\d"
_ZH_OF = r"[^，。；、\d]{0,4}?[0-9０-９零一二三四五六七八九十]"
DIMENSIONS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    name: (re.compile(en, re.I), re.compile(zh)) for name, en, zh in (
        ("depth", rf"{_LEN}\s+deep\b|\bdepths? {_OF}", rf"(?:水深|深度|最深处?|深){_ZH_OF}|米深"),
        ("height", rf"(?<!-){_LEN}\s+(?:high|tall|above sea level)\b|"  # below sea: a depth
                   rf"\b(?:height|elevation|altitude) {_OF}(?<!-\d)",
         rf"(?:海拔|高度|身高|高程|高){_ZH_OF}|米高"),
        ("width", rf"{_LEN}\s+(?:wide|across|broad|in diameter)\b|"
                  rf"\b(?:width|breadth|diameter) {_OF}", rf"(?:宽度|宽|直径){_ZH_OF}|米宽"),
    )
}
_ASKED = {"depth": re.compile(r"\bhow deep\b|\b(?:what|which) is the (?:\w+ )?depth\b|多深|"
                              r"(?:水深|深度)(?:是|为|有|约)?多少", re.I),
          "height": re.compile(r"\bhow (?:high|tall)\b|\b(?:what|which) is the (?:\w+ )?(?:height|"
                               r"elevation|altitude)\b|多高|(?:海拔|高度|身高)(?:是|为|有|约)?多少",
                               re.I),
          "width": re.compile(r"\bhow wide\b|\b(?:what|which) is the (?:\w+ )?width\b|多宽|"
                              r"(?:宽度|直径)(?:是|为|有|约)?多少", re.I)}
_LENGTHS = re.compile(_LEN + r"\b|[0-9０-９零一二三四五六七八九十][\d.]*\s*(?:米|公里|千米|英尺)")
# not "1,200" nor "September 9, 2019" (a US date); a bracket is a clause of its own
_CLAUSE = re.compile(r"[，；;、()（）]|,\s(?!\d{4}\b)")
# a span of years in brackets: a lifespan, a firm's or a product's years ("(1890-1961)",
# "（1938年3月—1998年10月）", "(3 May 1890 in Leeds – 12 June 1961)"): no decision
_SPAN = re.compile(r"[(（][^()（）]{0,40}?\d{3,4}[^()（）]{0,40}?[-–—－~～至]"
                   r"[^()（）]{0,40}?\d{3,4}[^()（）]{0,40}[)）]")
YEAR = re.compile(r"(?<!\d)(?:1[0-9]{3}|20[0-9]{2})(?!\d)")


def events_named(text: str) -> frozenset[str]:
    """The events of ``EVENTS`` that ``text`` names."""
    words = set(cut_words(text)) if HAN.search(text) else set()
    return frozenset(name for name, (en, zh) in EVENTS.items() if en.search(text) or words & zh)


def dimensions_named(text: str) -> frozenset[str]:
    """The dimensions of ``DIMENSIONS`` that a number of ``text`` is bound to."""
    return frozenset(name for name, (en, zh) in DIMENSIONS.items()
                     if en.search(text) or zh.search(text))


def dimensions_asked(query: str) -> frozenset[str]:
    """The dimensions a question asks a length in ("How deep ...?", 多高, 水深是多少)."""
    return frozenset(name for name, pattern in _ASKED.items() if pattern.search(query))


def other_dimensions_measured(query: str, sents: Sequence[str],
                              measured: Callable[[str], bool]) -> tuple[str, ...]:
    """The dimensions a passage measures instead of the one a length question asks, or ``()``.

    As ``other_events_dated`` with ``DIMENSIONS``: ``measured`` tells whether a clause holds a
    number in the unit asked; each such clause must name another dimension and none the one
    asked ("How deep is Lake Merrow?" against "It lies at an elevation of 1,240 metres").
    """
    asked = dimensions_asked(query)
    # a clause with more lengths than bound dimensions ("The 828 m tower rests on piles 50 m
    # deep") may hold the one asked
    return kinds_apart(asked, filled_clauses(sents, measured, dimensions_named),
                       _LENGTHS) if asked else ()


def other_events_dated(query: str, sents: Sequence[str], dated: Callable[[str], bool],
                       title: str = "") -> tuple[str, ...]:
    """The events a passage dates instead of the one a date question asks of, or ``()``.

    Args:
        query: a question asking for a date (``kb.retrieve.answer_types.gated_type``).
        sents: the passage's sentences.
        dated: whether a text holds a date that could answer (a novel filler).
        title: the passage's document title and heading path; a date there answers
            ("Harold Pembridge (1890-1961)"), so nothing is decided.

    Returns:
        The events (names of ``EVENTS``, sorted) named by the passage's dated clauses
        (``filled_clauses``) when every dated clause names one and none names an event the
        question names; ``()`` when the question names no such event, the passage has no
        dated clause, one names no event of the list (its date may be the one asked, in words
        the list lacks), fewer events than years, or the event asked, a span of years stands
        in brackets, or the title holds a date.
    """
    asked = events_named(query)
    if not asked or (title and dated(title)) or any(_SPAN.search(x) for x in sents):
        return ()
    if "departure" in asked:  # "stepped down", "resigned", 辞去 tell of the leaving asked
        asked |= {"office"}
    if "founding" in asked and _OPEN.search(query):  # a show opens when it premieres
        asked |= {"launch"}

    def passage_events(text: str) -> frozenset[str]:  # a departure only where one is asked:
        told = events_named(text) | (  # "quit Acme in 2021 to found"; 工作到2022年底
            {"departure"} if _WORKED_UNTIL.search(text) else set())
        return told & (asked | _PASSAGE_EVENTS)

    # a clause with fewer events than years ("born in 1890 and lived until 1961") may hold
    # the date asked
    return kinds_apart(asked, filled_clauses(sents, dated, passage_events), YEAR)


def kinds_apart(asked: frozenset[str], clauses: Sequence[tuple[str, frozenset[str]]],
                fillers: re.Pattern[str] | None = None) -> tuple[str, ...]:
    """The kinds (events, dimensions, sibling names) the clauses name instead of those asked.

    Sorted.

    ``()`` (nothing decided) when a clause names no kind, a kind asked, or fewer kinds than
    it holds ``fillers`` (years, lengths; no count when ``None``).
    """
    found: set[str] = set()
    for clause, kinds in clauses:
        if not kinds or kinds & asked or fillers and len(fillers.findall(clause)) > len(kinds):
            return ()
        found |= kinds
    return tuple(sorted(found))


def filled_clauses(sents: Sequence[str], filled: Callable[[str], bool],
                   named: Callable[[str], frozenset[str]]
                   ) -> list[tuple[str, frozenset[str]]]:
    """The clauses of ``sents`` holding a filler, each with the kinds it names.

    Clauses are split at commas, semicolons and brackets. ``filled`` says whether a text
    holds a date (or a number) that could answer, ``named`` which events (or dimensions) it
    names.

    One sentence may date two events ("他于1938年出生于成都，1998年10月3日在北京逝世"): each
    clause is judged alone. A dated clause naming no event is read with the clauses after it
    up to one holding a date of its own ("In 1921, he founded a firm."; "1938年3月生, 四川成都人"
    stays alone before "1965年创办书局"), since a date often opens the clause it belongs to.
    """
    out: list[tuple[str, frozenset[str]]] = []
    for sentence in sents:
        carry = ""  # a filled clause naming no kind, with the clauses read after it
        for clause in _CLAUSE.split(sentence):
            own = filled(clause)
            if carry and own:  # a filler of its own: the carried clause stands alone
                out.append((carry, frozenset()))
                carry = ""
            if not (carry or own):
                continue
            text = f"{carry}{clause}"
            kinds = named(text)
            if kinds:
                out.append((text, kinds))
            carry = "" if kinds else f"{text}, "
        if carry:
            out.append((carry, frozenset()))
    return out


def events_unnamed(query: str, text: str, title: str = "") -> tuple[str, ...]:
    """The events a question asks of that a passage never names, sorted; ``()`` if none.

    "When was Ossian Velt born?" or "Who founded Greyfin Capital?" against a note that names
    the person or the firm but tells of no birth or founding: whatever date or name it holds
    is another event's. An event is asked when the question names one of ``EVENTS`` (a birth,
    a death, a marriage, a founding, a launch, an acquisition; an office is left out:
    "studied at" answers "graduated from"); the passage names it by any word of ``NAMING``
    in either language (a question in one language over a passage in the other is judged
    too), or, for a birth or a death, a span of years in brackets (a lifespan).

    Nothing is decided for a launch where a version and a year head the passage (in its
    title, heading path or a heading line: a changelog's "## 2.0.0 — 2019-03-01" dates a
    release it never names; minutes dated "8 February 2024" date no launch), or for an
    acquisition asked of no firm ("When was the data acquired?").

    Args:
        query: the question (the caller asks it only of one asking for a date, a number, a
            person, a place or a name: "How do I launch the server?" asks of no event).
        text: the passage.
        title: its document's title and heading path.

    Returns:
        The names of the events asked (keys of ``EVENTS``) that the passage and its title do
        not name.
    """
    asked = events_named(_PERIODICAL.sub("", query)) & NAMING.keys()
    if not _FIRM.search(query):  # "When was the data acquired?": no firm changed hands
        asked -= {"acquisition"}
    if any(_VERSION.search(h) for h in (*_HEADING_LINE.findall(text), title) if YEAR.search(h)):
        asked -= {"launch"}  # a changelog's "## 2.0.0 — 2019-03-01" dates the release
    if not asked:
        return ()
    text = f"{text}\n{title}"
    lifespan = bool(_SPAN.search(text))
    return tuple(sorted(e for e in asked if not (
        e in ("birth", "death") and lifespan
        or NAMING[e][0].search(text) or NAMING[e][1].search(text))))
