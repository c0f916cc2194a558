"""Numbered names and their siblings: "the Seahound 2" is not "the Seahound 3" (pure functions).

A question asked of a numbered name ("When was the Seahound 2 launched?", "Does the Lumo 2
support Matter?", 云点单 2 的月费是多少) is not answered by a passage telling the same of a
sibling, the same name with another number ("The Seahound 3 was launched on 9 September 2019",
"The Lumo 3 supports Matter", 云点单 3 ... 月费是每家店 199 元), though it goes on to name the
one asked. ``numbered_names`` reads the names a question writes (Latin and Chinese);
``siblings_filled`` says when every clause that could answer is a sibling's
(``kb.retrieve.judge`` then fails the passage at its evidence gate).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence

from kb.retrieve.events import YEAR, filled_clauses, kinds_apart
from kb.retrieve.numbers import WORD_VALUE
from kb.retrieve.numerals import arabic_numerals
from kb.retrieve.stopwords import ZH_FUNCTION_CHARS, is_stop
from kb.retrieve.terms import Term, holds_any
from kb.store.textindex import cut_words

# a Chinese numbered name: two Han characters, a number, 号 (禾苗一号, 长征5号, 天宫二号)
# (not a numbered place: 3号线, 五号楼, 二号位; not a day: 周六三号; nor numerals: 二十三号)
_NOT_PLACE = r"(?![线楼位院馆门房室厅])"  # after 号: a line, a building, a seat, a room
_ZH_NUMBERED = re.compile(r"([\u4e00-\u9fff]{2})([零一二两三四五六七八九十百\d]+)号"
                          + _NOT_PLACE)
# no name opens or ends with these: 六月三号 and 周六三号 are days, 第三号 an ordinal, 二十三号
_ZH_NOT_NAME_CHARS = frozenset("年月日周期第六天零一二两三四五七八九十百")
# a Chinese name with Arabic digits after it, a space between or not (云点单 2, 小米14): the
# Han run's last jieba words, two characters at least, after its last word carrying grammar
# (你们的云点单 2: 云点单; 星河手表2: 手表); not a count or a measure (有 2 个, 共 3 家, 199 元,
# 38 度, 500 人, 3 小时)
_ZH_DIGIT_NAMED = re.compile(r"([\u4e00-\u9fff]+) ?(\d+(?:\.\d+)?)(?![\d.%A-Za-z])"
                             r"(?! ?[年月日号个位名次元岁天周分秒万亿千百十多余件台家座条张本"
                             r"种项倍米克斤章节页度人时小吨升磅里寸尺码瓦伏毫厘公英美港欧户口"
                             r"册集层届期辆架艘匹头只块片双对℃])")
_ZH_NAME_CHARS = 4  # a Chinese numbered name's word is at most four characters
# words before a number that are no name: about, in all, over, at least, only ...
_ZH_NO_NAME = frozenset("大约 大概 约 共 总共 一共 将近 接近 超过 不到 至少 最多 仅 只有 还有 "
                        "达到 高达 多达 约为 约有 截至 截止 排名 第 等于 大于 小于 多少 有多少"
                        .split())
# a sentence opening with a comparison is not of the name it opens with ("Like Python 3.11")
_COMPARED = re.compile(r"\s*(?:Like|Unlike|As with|Compared (?:with|to)|Similar to|"
                       r"与|和|同|跟|相比|比起|像|不同于|继)")
_TOPIC_CHARS = 30  # a numbered name in a sentence's first 30 characters is what it is about
# a sentence opening with a pronoun is of the numbered name the sentence before opened with
_PRONOUN = re.compile(r"\s*(?:It|Its|It's|This|They|Their|它|该)(?![A-Za-z])")
# a numbered name: a capitalised word and a number ("Seahound 2", "Windows 10", "Python 3.12")
# or letters and digits in one word ("T7", "CAPP2", "SINOSAT-1")
_NUMBERED = re.compile(r"(?<![A-Za-z0-9.-])(?:([A-Z][A-Za-z]+) |([A-Za-z]+)-?)(\d+(?:\.\d+)?)"
                       r"(?![A-Za-z0-9%-]|\.\d)")
# numbered words that name no subject of their own (a document titled "Section 4 Leave
# policy" is not about a "section"; 附录 2, "Step 3")
GENERIC_NUMBERED = frozenset(
    "section chapter step part page figure fig table appendix item level phase stage room floor "
    "line article clause rule version no number vol volume issue episode season lesson unit "
    "week day grade class exhibit annex schedule 附录 步骤 版本 章节 端口 排名 图 表 第".split())
# clauses of a sentence, and how far into one a name opens it ("the Lumo 2 does not")
_CLAUSE_BREAK = re.compile(r"[;；,，:：—]|\bbut\b|\bwhile\b|\bwhereas\b|但|而")
_CLAUSE_OPENING = 5


def numbered_names(query: str) -> dict[str, frozenset[str]]:
    """The numbered names a question writes: name (lower case) -> its numbers.

    "When was the Seahound 2 launched?" -> ``{"seahound": {"2"}}``; "青禾 T7 售价多少？" ->
    ``{"t": {"7"}}``; 禾苗一号 -> ``{"禾苗": {"1"}}`` (two Han characters, a number, 号). A
    month with a day ("March 3", 六月三号), a year ("In 2019") and a stop word before a
    number ("Is 5 ...") name nothing.
    """
    out: dict[str, set[str]] = {}
    text = unicodedata.normalize("NFKC", query)
    for m in _NUMBERED.finditer(text):
        name, number = (m.group(1) or m.group(2)).lower(), m.group(3)
        if m.group(1) and (is_stop(name) or name in WORD_VALUE or YEAR.fullmatch(number)):
            continue
        out.setdefault(name, set()).add(number)
    for m in _ZH_NUMBERED.finditer(text):  # 禾苗一号, 长征5号; not 六月三号
        if m.group(1)[-1] not in _ZH_NOT_NAME_CHARS and m.group(1)[0] not in _ZH_NOT_NAME_CHARS:
            out.setdefault(m.group(1), set()).add(arabic_numerals(m.group(2)))
    for m in _ZH_DIGIT_NAMED.finditer(text):  # 云点单 2; not 月费是 199 (是), 第 2
        name = _zh_name_before(m.group(1))
        if len(name) >= 2 and name not in _ZH_NO_NAME and name[-1] not in _ZH_NOT_NAME_CHARS and (
                not YEAR.fullmatch(m.group(2))):  # 截至 2019 is a year
            out.setdefault(name, set()).add(m.group(2))
    return {name: frozenset(numbers) for name, numbers in out.items()}


def _zh_name_before(run: str) -> str:
    """The name a Han run ends with (你们的云点单: 云点单; 星河手表: 手表; 升级到版本: 版本).

    Its last jieba words until two characters at least (at most ``_ZH_NAME_CHARS``), after
    its last word carrying grammar: the shortest name still matches the longer ones a passage
    writes ("手表 3" in 星河手表3).
    """
    name = ""
    for word in reversed(cut_words(run)):
        if len(name) >= 2 or (len(word) == 1 and word in ZH_FUNCTION_CHARS) or (
                len(name) + len(word) > _ZH_NAME_CHARS):
            break
        name = word + name
    return name


def siblings_filled(query: str, sents: Sequence[str], filled: Callable[[str], bool],
                    context: str = "", *, asked_topic_decides: bool = False,
                    focus: Sequence[Term] = ()) -> tuple[str, ...]:
    """The sibling names a passage's answers belong to, instead of the numbered name asked.

    A question asked of a numbered name (``numbered_names``) is answered by a clause naming
    it; a passage each of whose clauses holding an answer (``filled``: a date or a number
    that could answer, as in ``kb.retrieve.events.filled_clauses``; for a question asking
    neither, the clauses naming its focus) names the same name with another number only
    tells of a sibling ("Seahound 3" for the Seahound 2). A version and its parts are one
    name ("Python 3" and "Python 3.0", "3.12" and "3"); the digits of a numbered name answer
    nothing (the 3 of "云点单 3 于 2023 年发布"). With ``asked_topic_decides`` (the focus
    test), a passage naming the one asked in a sentence holding the focus, or in the sentence
    before or after one, or opening a clause with it, decides nothing either: "The Lumo 3
    supports Matter; the Lumo 2 does not", "... So does the Lumo 2." answer "Does the Lumo 2
    support Matter?"; "The Lumo 3 replaced the Lumo 2 in spring 2024. ... Brightness went up.
    The Lumo 3 supports Matter." does not.
    A passage whose title or headings name the one asked, and no sibling, is written of it
    ("# Seahound 2 ... It was retired when the Seahound 3 came"; a title naming both,
    "# 云点单 3 和 云点单 2", decides nothing), and so is one naming it in a sentence before
    its first answer unless that answer's sentence opens with a name of its own: nothing is
    decided. A clause naming none is of the one name its sentence writes in its opening
    words (a list: 禾苗一号于2018年发布。禾苗二号于2020年发布，单台可覆盖50亩; not after "Like",
    "Unlike", 与, 相比), or, in a sentence opening with a pronoun ("It", "This", 它, 该), of
    the one name that sentence writes, else of the one name the last naming sentence wrote
    ("The Seahound 2 was launched in 2019. It weighs 38 kg."; after a sentence naming two,
    of none).

    Args:
        query: the question.
        sents: the passage's sentences.
        filled: whether a text holds a date or number that could answer (or the focus).
        context: the passage's document title and heading path.
        asked_topic_decides: the name asked near the focus, or opening a clause, makes the
            passage its own (for the focus test).
        focus: the question's focus terms; when a sentence holding one holds an answer, only
            the filled clauses of such sentences, and of those naming the one asked, count
            (行云 2's top speed asked of a note giving 行云 3's "最高速度每秒 1.5 米" beside a
            headcount and a revenue, which name none; "行云 2 则为每秒 1.2 米" answers).

    Returns:
        The siblings (name and number, sorted) when every filled clause is of one and none
        of the name asked; ``()`` when the question names no numbered name, a filled clause
        is of no sibling or names more years than siblings, or the passage is written of
        the one asked.
    """
    asked = numbered_names(query)
    if not asked:
        return ()
    patterns = {name: _numbered_pattern(name) for name in asked}

    def named(text: str) -> frozenset[str]:
        return frozenset(n for _, n in _names_at(text, patterns, asked))

    wanted = frozenset(f"{name} {n}" for name, numbers in asked.items() for n in numbers)

    def bare_filled(text: str) -> bool:  # "云点单 3 于 2023 年发布": the 3 names, answers nothing
        for p in patterns.values():
            text = p.sub(" ", text)
        return filled(text)

    words = [t for t in focus if not any(c.isdigit() for c in t.text)]  # 2 of 行云 2 names

    narrowed = bool(words) and any(holds_any(s, words) and bare_filled(s) for s in sents)

    titled = named(context)
    if titled & wanted and titled <= wanted:
        return ()
    found_in = [_names_at(sentence, patterns, asked) for sentence in sents]
    if asked_topic_decides and _told_of_near_focus(sents, found_in, filled, patterns, asked,
                                                   wanted):
        return ()
    clauses: list[tuple[str, frozenset[str]]] = []
    # a title naming a sibling alone ("# Quillpad 4") is the default subject of its sentences
    sibling_titled = titled if titled and not titled & wanted else frozenset()
    subject = sibling_titled  # the one name the last naming sentence wrote
    written_of = answered = False  # the one asked named before the first answer; an answer
    for sentence, found in zip(sents, found_in, strict=True):
        names = frozenset(n for _, n in found)
        # a sentence naming the one asked counts in its own words ("the Pixel 7 came out")
        own = (filled_clauses([sentence], bare_filled, named)
               if not narrowed or holds_any(sentence, words) or names & wanted else [])
        pronoun = _PRONOUN.match(sentence) is not None
        # its topic: the one name it writes, in its opening words, not after "Like" / 与
        topic = names if (len(names) == 1 and not pronoun and found[0][0] < _TOPIC_CHARS
                          and not _COMPARED.match(sentence)) else frozenset()
        if own and not answered:
            answered = True
            if written_of and not topic:  # "Python 3.12 is out. Released in 2023 (after 3.11)"
                return ()
        if pronoun:  # "It weighs 38 kg.": of the one name it writes, else the one before it
            of = names if len(names) == 1 else subject if not names else frozenset()
            own = [(c, kinds or of) for c, kinds in own]
        elif topic:  # 禾苗二号于2020年发布，单台可覆盖50亩: its clauses are of its topic
            own = [(c, kinds or topic) for c, kinds in own]
        elif sibling_titled and not names:  # 单只耳机重 5.2 克 under "# 听松 T1": of T1
            own = [(c, kinds or sibling_titled) for c, kinds in own]
        clauses += own
        # named before the first answer, and not beside the titled sibling ("The Quillpad 4
        # ... as the successor to the Quillpad 3" is written of the 4)
        written_of |= not answered and bool(names & wanted) and not (sibling_titled
                                                                     and names - wanted)
        if names:  # two: "It" is unclear (under a sibling's title: that sibling)
            subject = names if len(names) == 1 else sibling_titled
    # a clause with more years than siblings ("the Seahound 3 replaced the 2015 model in
    # 2019") may hold the one asked
    return kinds_apart(wanted, clauses, YEAR)


def _told_of_near_focus(sents: Sequence[str], found_in: Sequence[list[tuple[int, str]]],
                        focused: Callable[[str], bool], patterns: Mapping[str, re.Pattern[str]],
                        asked: Mapping[str, frozenset[str]], wanted: frozenset[str]) -> bool:
    """Whether a passage tells of the name asked near its focus, deciding nothing.

    "...; the Lumo 2 does not", "Unlike the Lumo 2, ...", "So does the Lumo 2.": the name in
    a sentence holding the focus or the one before or after it (``found_in``: each
    sentence's names), or opening a clause.
    """
    at = [i for i, sentence in enumerate(sents) if focused(sentence)]
    near = {j for i in at for j in (i - 1, i, i + 1) if 0 <= j < len(sents)}
    if any(n in wanted for j in near for _, n in found_in[j]):
        return True
    for sentence in sents:
        for clause in _CLAUSE_BREAK.split(sentence):
            found = _names_at(clause, patterns, asked)
            if found and found[0][0] <= _CLAUSE_OPENING and found[0][1] in wanted:
                return True
    return False


def _names_at(text: str, patterns: Mapping[str, re.Pattern[str]],
              asked: Mapping[str, frozenset[str]]) -> list[tuple[int, str]]:
    """The numbered names of ``text`` (name and number, as asked) with where each starts, in order.

    Chinese names are read after ``arabic_numerals`` (禾苗二号), Latin ones as written ("T7一次"
    is the T7).
    """
    text = unicodedata.normalize("NFKC", text)
    digits = arabic_numerals(text)
    return sorted((m.start(), f"{name} {_as_asked(m.group(1), asked[name])}")
                  for name, p in patterns.items()
                  for m in p.finditer(text if name.isascii() else digits))


def _numbered_pattern(name: str) -> re.Pattern[str]:
    """A numbered name's pattern in a passage: the name, a space or hyphen, a number.

    A name of one or two letters ("T7", "A4") only in capitals and joined to its number: a
    lower-case "a 2" is an article.
    """
    if not name.isascii():  # 禾苗一号 (digits after arabic_numerals), 云点单 2
        return re.compile(rf"{re.escape(name)} ?(\d+(?:\.\d+)?)(?:号{_NOT_PLACE}|(?![\d号]|\.\d))")
    tail = r"(\d+(?:\.\d+)?)(?![A-Za-z0-9%-]|\.\d)"
    if len(name) <= 2:
        return re.compile(rf"(?<![A-Za-z0-9-]){re.escape(name.upper())}-?{tail}")
    return re.compile(rf"(?<![A-Za-z0-9-]){re.escape(name)}[ -]?{tail}", re.I)


def _as_asked(number: str, asked: frozenset[str]) -> str:
    """``number``, or the number asked it is a version of ("3.0" of "3", "3" of "3.12")."""
    return next((a for a in asked if number == a or number.startswith(a + ".")
                 or a.startswith(number + ".")), number)


def proper_numbered_names(text: str) -> frozenset[str]:
    """The numbered names of ``text`` that name something (``GENERIC_NUMBERED`` left out)."""
    return frozenset(numbered_names(text)) - GENERIC_NUMBERED
