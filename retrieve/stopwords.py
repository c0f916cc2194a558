"""Stop and question words: what a query asks with, never what it asks about (pure functions).

English: ``kb.store.textindex.STOPWORDS`` plus kb's own question words below; Chinese: a
subset of the Harbin Institute of Technology stop list and the interrogatives of Li & Roth's
classes; other scripts: the stopwords-iso lists (``stopwordsiso``, MIT). A Latin word is only
dropped by the English lists (German "die" or French "son" are English content words).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from kb.retrieve.crosslang import HAN
from kb.store.textindex import STOPWORDS

# English words asking what kind of answer, or whose, beyond kb.store.textindex.STOPWORDS (kept)
QUESTION_WORDS = frozenset(
    """whom whose many much long often far old kind type name named called describe also been
    being about there here any some other than more most very just only its was were is are be
    am did does do done happen happens happened mean means according my me he him his she her hers
    them""".split())  # with personal pronouns, but not "us" (the US) nor "mine" (a pit)
# auxiliaries and verbs among the stop words: a title capitalises them (is_headline; pronouns
# are left out: "How Do I Rotate the API Keys if they Expire?" is still a title)
TITLE_CAPITALISED = frozenset(
    """is are was were be am been being do does did done have has had having can could will
    would shall should may might must""".split())
# Chinese stop and question words (function words, interrogatives): a subset of the
# Harbin Institute of Technology stop list plus the interrogatives of Li & Roth's classes.
ZH_STOPWORDS = frozenset(
    """什么 哪个 哪些 哪里 哪儿 哪一 哪一年 哪年 哪天 哪一天 哪位 何时 何地 何人 多少 多大
    多久 多长 多高 多远 几个 几年 几位 几次 什么样 怎样 怎么 怎么样 如何 为什么 为何 是否
    是不是 有没有 一个 一种 哪家 哪座 哪条 哪所 哪国 哪部 第几 分别 主要 以及 其中 之一
    可以 应该 需要 称为 叫做 名为 什么时候 时候 哪个国家 哪个城市""".split())
# a word opening with an interrogative asks, it does not name: 几天, 几号, 多少钱, 哪一届, 什么颜色,
# 多长时间, jieba's 有多深 (not 多重 "multiple", 多种 "many kinds")
_ZH_ASKING = re.compile(r"^(几[个位名次种条年天岁座家部项月日号周人件本张分秒点]|多少|哪|什么|怎么|"
                        r"有?多[长久大高远宽深厚](?![^时程间度])|怎样|如何|为何|为什么)")
# interrogative characters jieba cuts alone: never half of a content word either (谁 + 做 of
# "是谁做的" is no word "谁做" a passage must write)
ZH_ASKING_CHARS = frozenset("谁啥哪几")
# Han characters that carry grammar, never half of a content word jieba failed to find
ZH_FUNCTION_CHARS = frozenset("的了在是有和与于及或也都就被把从对向到给让为以而之其吗呢吧"
                              "啊着过个很不没")
# stopwords-iso languages written in scripts other than Latin (a Latin word is only dropped by
# the English lists: German "die" or French "son" are English content words)
OTHER_SCRIPT_LANGS = ("ru", "uk", "bg", "el", "ar", "fa", "he", "hi", "ja", "ko", "th", "zh")


@lru_cache(maxsize=1)
def _other_script_stopwords() -> frozenset[str]:
    import stopwordsiso

    return frozenset(w.casefold() for w in stopwordsiso.stopwords(OTHER_SCRIPT_LANGS)
                     if not w.isascii())


def fold(word: str) -> str:
    """``word`` without accents, case-folded ("Dvořák" -> "dvorak")."""
    folded = unicodedata.normalize("NFKD", word)
    return "".join(c for c in folded if not unicodedata.combining(c)).casefold()


def is_stop(word: str) -> bool:
    """Whether a word (as written) is a stop or question word, or a lone letter."""
    low = fold(word)
    if low in STOPWORDS or low in QUESTION_WORDS or low in ZH_STOPWORDS:
        return True
    if len(low) == 1 and low.isalpha():
        return True
    if HAN.fullmatch(low) and _ZH_ASKING.match(low):
        return True
    return not low.isascii() and low in _other_script_stopwords()
