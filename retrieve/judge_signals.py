"""The judge's lexical signals: focus terms, sentence evidence, answer types (pure functions).

Terms are what the index searches by: Latin words diacritic-folded and Snowball-stemmed, CJK
text cut into words by jieba (``kb.textindex``). A query's *content terms* drop stop words and
question words in both languages. Each term is weighted by its inverse document frequency in
the index, ``idf(t) = ln((N - n_t + 0.5) / (n_t + 0.5))`` floored at ``IDF_MIN`` (the BM25
idf, Robertson & Zaragoza 2009), so a common word weighs little and a word found in no chunk
weighs most.

Answer types follow the classic question-typing of QA systems (Li & Roth, COLING 2002, coarse
classes reduced to those a passage can be checked for): ``date``, ``number``, ``person``,
``place``, ``name`` (a named thing: a company, a product, a system, a title); ``other`` asks
for nothing checkable.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from kb.sea_words import SEA_RUN, SEA_SCRIPTS, sea_parts, sea_words
from kb.textindex import STOPWORDS, has_cjk, normalise_word, split_phrases
from retrieve.lexicon import Lexicon

AnswerType = Literal["date", "number", "person", "place", "name", "other"]
IDF_MIN = 0.05  # a term in most chunks still weighs a little (FTS5 clamps at 1e-6)

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u309f\u30a0-\u30ff\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_SPACELESS = re.compile(f"[{_CJK}{SEA_SCRIPTS}]+")  # scripts written without spaces
_LATIN_WORD = re.compile(rf"[^\W_{_CJK}{SEA_SCRIPTS}]+")
_SENTENCE = re.compile(r"(?<=[.!?;。！？；])\s+|(?<=[。！？；])|\n+")
_jieba_lock = threading.Lock()

# English question words and fillers beyond kb.textindex.STOPWORDS (which keeps the index's
# query side unchanged): they say what kind of answer is wanted, not what it is about.
QUESTION_WORDS = frozenset(
    """whom whose many much long often far old kind type name named called describe
    also been being about there here any some other than more most very just only its
    was were is are be am did does do done happen happened mean means according""".split())
# Chinese stop and question words (function words, interrogatives): a subset of the
# Harbin Institute of Technology stop list plus the interrogatives of Li & Roth's classes.
ZH_STOPWORDS = frozenset(
    """的 了 是 在 和 与 及 或 有 为 被 把 对 从 以 于 而 也 都 就 又 还 吗 呢 吧 啊 么 之
    这 那 其 该 此 个 些 种 位 次 年 月 日 时 里 中 上 下 后 前 多 几 哪 谁 何 什么 哪个 哪些
    哪里 哪儿 哪一 哪一年 哪年 哪天 哪一天 哪位 何时 何地 何人 多少 多大 多久 多长 多高 多远
    几个 几年 几位 几次 什么样 怎样 怎么 怎么样 如何 为什么 为何 是否 是不是 有没有 一个 一种
    哪家 哪座 哪条 哪所 哪国 哪部 第几 分别 主要 以及 其中 之一 所 能 会 可以 应该 需要 由
    称为 叫做 叫 名为 什么时候 哪个国家 哪个城市""".split())

_EN_TYPES: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    ("date", re.compile(r"\b(when|what (year|date|day|month|century|decade|time|period)|"
                        r"which (year|date|day|month|century|decade)|how long ago|since when|"
                        r"in what (year|month|century))\b", re.I)),
    ("number", re.compile(r"\b(how (many|much|long|far|old|big|large|tall|high|often|fast|"
                          r"heavy|wide|deep)|what (percentage|percent|proportion|share|"
                          r"number|amount|rate|ratio|size|length|value|dose|price|cost|"
                          r"temperature|frequency|speed|mass|weight|height|depth|capacity|"
                          r"count|total|fraction|level|concentration))\b", re.I)),
    ("person", re.compile(r"\b(who|whom|whose|which person|what person|which (author|"
                          r"scientist|king|leader|president|founder))\b", re.I)),
    ("place", re.compile(r"\b(where|what is the capital|(what|which) (country|city|region|"
                         r"place|location|state|province|town|continent|island))\b", re.I)),
)
_EN_NAME: tuple[AnswerType, re.Pattern[str]] = ("name", re.compile(
    r"\b(what is (the|its|their) name|what was (the|its|their) name|what (is|was|are|were) "
    r"\w+( \w+)? called|which (company|companies|organi[sz]ation|journal|system|product|"
    r"software|program|programme|team|court|agency|university|school|firm|bank|brand|"
    r"newspaper|magazine|book|film|movie|song|album|project|language|tool|library|model)|"
    r"what (company|organi[sz]ation|journal|system|product|software|court|agency|brand)|"
    r"name of the)\b", re.I))
_ZH_NAME: tuple[AnswerType, re.Pattern[str]] = ("name", re.compile(
    r"名字|名称|叫什么|称为什么|哪家|哪个(公司|机构|组织|系统|软件|产品|团队|法院|大学|学校|品牌|项目)|"
    r"哪(本|份|部)"))
_ZH_TYPES: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    ("date", re.compile(r"哪一?年|哪一?天|何时|什么时候|几月|哪个月|何年|哪一?日|"
                        r"什么时间|日期是|年份|哪个年代|哪个世纪")),
    ("number", re.compile(r"多少|几[个位名次种条年天岁座家部项%]|多[大高长重远久快宽深]|"
                          r"百分之几|比例|比率|数量|人数|金额|占比")),
    ("person", re.compile(r"谁|哪位|何人|什么人|哪个人")),
    ("place", re.compile(r"哪里|哪儿|何地|在哪|首都|省会|哪个(国家|城市|地方|省|市|县|地区)|"
                         r"什么地方|哪座城市|哪国")),
    _ZH_NAME,
)
_EN_TYPES = (*_EN_TYPES, _EN_NAME)  # after the others: "whose name" asks for a person
_MONTHS = ("january february march april may june july august september october november "
           "december jan feb mar apr jun jul aug sep sept oct nov dec").split()
_DATE = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})s?\b|\b\d{1,2}(st|nd|rd|th) centur|"
                   r"\b(" + "|".join(_MONTHS) + r")\b\.? ?\d|\b\d{1,2} (" + "|".join(_MONTHS) +
                   r")\b|[0-9０-９零〇一二三四五六七八九十百]+\s*[年月日]|世纪|年代", re.I)
_NUMBER = re.compile(r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                     r"twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen|half|"
                     r"percent)\b|[零〇一二两三四五六七八九十百千万亿]", re.I)
_NUMBER_SPAN = re.compile(r"\d+(?:[.,]\d+)*|\b(one|two|three|four|five|six|seven|eight|nine|"
                          r"ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|"
                          r"million|billion|dozen)\b|[零〇一二两三四五六七八九十百千万亿]+", re.I)
_PERSON_EN = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+(?:\s+(?:[A-Z]\.|[A-Z][a-z]+|"
                        r"(?:de|van|von|du|of|the)\s+[A-Z][a-z]+))+")
_PLACE_EN = re.compile(r"\b(in|at|from|near|to|of)\s+(the\s+)?[A-Z][a-z]+")
_NAME_EN = re.compile(r"\b[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]*\b|(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+"
                      r"(?:\s+[A-Z][a-z]+)*")
_QUOTED = re.compile(r"[\"“《「『]([^\"”》」』]{2,40})[\"”》」』]")


@lru_cache(maxsize=1)
def _posseg() -> Any:
    import jieba.posseg

    from kb.textindex import _jieba

    _jieba()  # initialised once, quietly
    return jieba.posseg


@lru_cache(maxsize=1)
def _jieba_words() -> Any:
    from kb.textindex import _jieba

    return _jieba()


def _fold(word: str) -> str:
    folded = unicodedata.normalize("NFKD", word)
    return "".join(c for c in folded if not unicodedata.combining(c)).lower()


@dataclass(frozen=True, slots=True)
class Term:
    """One content term of a query.

    Attributes:
        text: the term as the judge matches it: a stem (Latin and other spaced scripts), a
            jieba word (CJK) or an ICU dictionary word (Thai, Lao, Khmer, Myanmar).
        spaceless: whether it is a word of a script written without spaces (CJK, Thai...),
            matched as a substring of the passage's text in those scripts.
        index_tokens: the index tokens whose document frequencies give its idf.
        surface: the word as the query wrote it (what a semantic soft match embeds).
        translations: the term in the other language (``retrieve.lexicon``): English stems
            for a CJK word, Chinese words for a Latin stem; a passage holding one holds the
            term. For a hyphenated compound, its joined form (``email`` for ``e-mail``).
        phrase: a quoted phrase or hyphenated compound: ``text`` is its tokens joined by
            spaces, held by a passage only as consecutive words.
    """

    text: str
    spaceless: bool
    index_tokens: tuple[str, ...]
    surface: str = ""
    translations: tuple[str, ...] = ()
    phrase: bool = False


def content_terms(query: str, lexicon: Lexicon | None = None) -> list[Term]:
    """The query's content terms, distinct, in order (stop and question words dropped).

    Latin words become stems (as in the index); CJK runs are cut into words by jieba, and
    single characters are dropped with the stop words; Thai, Lao, Khmer and Myanmar runs are
    cut into ICU dictionary words (``kb.sea_words``). With a ``lexicon``, each term carries its
    translations into the other language (Chinese and English).
    """
    out: dict[str, Term] = {}
    clauses, rest = split_phrases(query)
    for clause in clauses:
        tokens, alias = clause[0], [a[0] for a in clause[1:] if len(a) == 1]
        surface = " ".join(tokens)
        if all(_SPACELESS.fullmatch(t) for t in tokens):  # a quoted CJK or Thai phrase
            text = "".join(t[0] for t in tokens[:-1]) + tokens[-1] if tokens else ""
            out.setdefault(text, Term(text, True, tokens, text))
        elif len(tokens) == 1:
            out.setdefault(tokens[0], Term(tokens[0], False, tokens, tokens[0]))
        else:
            out.setdefault(surface, Term(surface, False, tokens, surface, tuple(alias),
                                         phrase=True))
    for piece in _split_scripts(rest):
        if SEA_RUN.fullmatch(piece):
            for w in sea_words(piece):
                out.setdefault(w, Term(w, True, tuple(sea_parts(w)[0]), w))
        elif _CJK_RUN.fullmatch(piece):
            with _jieba_lock:
                words = _jieba_words().lcut(piece)
            for w in words:
                if w in ZH_STOPWORDS or not _CJK_RUN.fullmatch(w) or len(w) < 2:
                    continue
                alt = lexicon.english(w) if lexicon else ()
                out.setdefault(w, Term(w, True, tuple(_in_order_tokens(w)), w, alt))
        else:
            for w in _LATIN_WORD.findall(piece):
                low = _fold(w)
                if low in STOPWORDS or low in QUESTION_WORDS or (len(low) == 1 and low.isalpha()):
                    continue  # a lone letter ("x") is no evidence either
                stem = normalise_word(w)
                if stem:
                    alt = lexicon.chinese(stem) if lexicon else ()
                    out.setdefault(stem, Term(stem, False, (stem,), w, alt))
    return list(out.values())


def _split_scripts(text: str) -> list[str]:
    """``text`` cut into runs of one spaceless script (CJK; Thai...) and the text between."""
    out: list[str] = []
    last = 0
    for m in re.finditer(f"{_CJK_RUN.pattern}|{SEA_RUN.pattern}", text):
        if m.start() > last:
            out.append(text[last:m.start()])
        out.append(m.group())
        last = m.end()
    if last < len(text):
        out.append(text[last:])
    return out


def term_df(term: Term, df: Mapping[str, int]) -> int:
    """Chunks holding the term (an estimate): its own form's, else its rarest translation's.

    A multi-token CJK word cannot be in more chunks than its rarest bigram, so that bigram's
    frequency stands for the word's (an upper bound). A term the index lacks in its own
    language counts by its rarest translation the index holds, so a Chinese question over
    English text weighs its words as their English equivalents.
    """
    own = min((df.get(t, 0) for t in term.index_tokens), default=0)
    if own or not term.translations:
        return own
    found = [n for n in (_translation_df(t, df) for t in term.translations) if n > 0]
    return min(found, default=0)


def _translation_df(word: str, df: Mapping[str, int]) -> int:
    if _CJK_RUN.fullmatch(word):
        return min((df.get(t, 0) for t in _in_order_tokens(word)), default=0)
    return df.get(word, 0)


def index_tokens(term: Term) -> list[str]:
    """Every index token whose frequency ``term_df`` may read (own form and translations)."""
    out = list(term.index_tokens)
    for t in term.translations:
        out += _in_order_tokens(t) if _CJK_RUN.fullmatch(t) else [t]
    return out


TRANSLATIONS_SEARCHED = 3  # translations per term the cross-language BM25 list searches


def translation_tokens(term: Term) -> list[tuple[str, ...]]:
    """A term's first ``TRANSLATIONS_SEARCHED`` translations as index-token tuples.

    A CJK word is the phrase of its index bigrams; a Latin stem is one token.
    """
    return [tuple(_in_order_tokens(t)) if _CJK_RUN.fullmatch(t) else (t,)
            for t in term.translations[:TRANSLATIONS_SEARCHED]]


def phrase_tokens(term: Term) -> list[str]:
    """The index tokens whose phrase finds the term in a chunk (its own form)."""
    if term.phrase:
        return list(term.index_tokens)
    if SEA_RUN.fullmatch(term.text):
        return sea_parts(term.text)[0]
    return _in_order_tokens(term.text) if term.spaceless else [term.text]


def _in_order_tokens(word: str) -> list[str]:
    """The consecutive bigrams of a CJK word (its phrase in the index), or the word itself."""
    return [word[i:i + 2] for i in range(len(word) - 1)] or [word]


def idf_of(term: Term, df: Mapping[str, int], n_chunks: int) -> float:
    """BM25 idf of a term from ``term_df``."""
    n = min(term_df(term, df), n_chunks)
    return max(math.log((n_chunks - n + 0.5) / (n + 0.5)), IDF_MIN)


@dataclass(frozen=True, slots=True)
class PassageTerms:
    """What a passage holds, for term matching.

    Attributes:
        stems: its words in spaced scripts, normalised as the index does.
        spaceless_text: its runs of spaceless scripts (CJK, Thai...), joined without spaces.
        sequence: its normalised words in order, space-separated and padded (phrases).
    """

    stems: frozenset[str]
    spaceless_text: str
    sequence: str = ""

    def has(self, term: Term) -> bool:
        """Whether the passage holds ``term`` or one of its translations."""
        if term.phrase:
            return f" {term.text} " in self.sequence or any(t in self.stems
                                                              for t in term.translations)
        if term.spaceless:
            return term.text in self.spaceless_text or any(
                t in self.stems for t in term.translations)
        return term.text in self.stems or any(t in self.spaceless_text
                                              for t in term.translations)


def passage_terms(text: str) -> PassageTerms:
    """The matchable content of a passage (see ``PassageTerms``)."""
    words = [normalise_word(w) for w in _LATIN_WORD.findall(text)]
    return PassageTerms(frozenset(words), "".join(_SPACELESS.findall(text)),
                        " " + " ".join(words) + " ")


def coverage(terms: Sequence[Term], weights: Sequence[float], holder: PassageTerms) -> float:
    """Weighted share of ``terms`` the passage holds, in [0, 1] (1.0 when there are none)."""
    total = sum(weights)
    if total <= 0:
        return 1.0
    return sum(w for t, w in zip(terms, weights, strict=True) if holder.has(t)) / total


def sentences(text: str) -> list[str]:
    """The passage cut at sentence ends (Latin and CJK punctuation) and line breaks."""
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def answer_type(query: str) -> AnswerType:
    """The expected answer type of a question (``other`` when none of the four)."""
    patterns = _ZH_TYPES if has_cjk(query) else _EN_TYPES
    for kind, pattern in patterns:
        if pattern.search(query):
            return kind
    if has_cjk(query):  # a Chinese question may still use English wh-words, and vice versa
        for kind, pattern in _EN_TYPES:
            if pattern.search(query):
                return kind
    return "other"


def fillers(text: str, kind: AnswerType) -> list[str]:
    """The strings of ``text`` that could fill answer type ``kind`` (empty for ``other``)."""
    if kind == "other":
        return []
    if kind == "date":
        return [m.group() for m in _DATE.finditer(text)]
    if kind == "number":
        return [m.group() for m in _NUMBER_SPAN.finditer(text)]
    out: list[str] = []
    if kind == "name":
        out += _QUOTED.findall(text)
    if _CJK_RUN.search(text):
        tags = {"person": ("nr", "nt", "nrt", "nrfg"), "place": ("ns", "nt"),
                "name": ("nz", "nt", "nrt", "eng")}[kind]
        with _jieba_lock:
            out += [p.word for p in _posseg().cut(text) if p.flag in tags]
    pattern = {"person": _PERSON_EN, "place": _PLACE_EN, "name": _NAME_EN}[kind]
    return out + [m.group() for m in pattern.finditer(text)]


def novel_filler(text: str, kind: AnswerType, query: str) -> str | None:
    """The first filler of ``kind`` in ``text`` whose words the query does not all contain."""
    q = query.casefold()
    for f in fillers(text, kind):
        words = [w for w in re.findall(r"\w+", f.casefold()) if w not in STOPWORDS]
        if words and not all(w in q for w in words):
            return f
    return None


def script_of(text: str) -> Literal["cjk", "latin", "none"]:
    """The dominant script of ``text``: CJK if a third of its letters are CJK."""
    cjk = sum(len(r) for r in _CJK_RUN.findall(text))
    letters = sum(1 for c in text if c.isalpha())
    if letters == 0:
        return "none"
    return "cjk" if cjk >= letters / 3 else "latin"


def topic_terms(terms: Iterable[Term], context: str) -> set[str]:
    """Terms found in a passage's context (document title and heading path)."""
    holder = passage_terms(context)
    return {t.text for t in terms if holder.has(t)}
