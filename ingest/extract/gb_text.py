"""Short GBK text that charset detection misreads (pure functions).

charset-normalizer guesses a legacy encoding from byte statistics, which a line or two of
Chinese does not hold enough of: a trial's one-line GBK notes were read as Big5, CP949,
CP932 and CP874 ("借期十天。" became "質ぶ坋毞﹝", another became Thai letters), each indexed
as the garbage it decoded to. The same bytes read as GB 18030 (GBK's superset) are Chinese
whose characters run into the words of a Chinese dictionary; a misreading's characters do
not. So GB 18030 replaces the guess for at most ``MAX_BYTES`` bytes when they decode under
it strictly, hold at least ``MIN_HAN`` Han characters, and ``MIN_WORD_SHARE`` of those stand
in words of two or more characters that jieba's dictionary counts, at least ``SHARE_MARGIN``
above the guess's own share. Korean (EUC-KR) and Japanese (Shift-JIS) text read as GB 18030
makes common Han characters that form almost no such words (measured on sample sentences:
0.00 to 0.10, against 0.44 to 1.00 for the trial's GBK notes), so it keeps its guess.
"""

from __future__ import annotations

MIN_HAN = 4  # fewer Han characters say nothing either way
# longer text gives charset detection statistics enough (and jieba over megabytes of a
# Big5 or Shift-JIS file took seconds): only a note this short is read again
MAX_BYTES = 4096
MIN_WORD_SHARE = 0.3
SHARE_MARGIN = 0.2


def _is_han(char: str) -> bool:
    return "\u4e00" <= char <= "\u9fff"


def han_word_share(text: str) -> float:
    """The share of ``text``'s Han characters inside dictionary words of two or more.

    A word counts when jieba's dictionary gives it a frequency and all its characters are
    Han (CJK Unified Ideographs); 0.0 for a text without Han characters. In [0, 1].
    """
    from kb.store.textindex import cut_words, word_frequency  # jieba: only when asked

    han = sum(1 for c in text if _is_han(c))
    if not han:
        return 0.0
    worded = sum(len(w) for w in cut_words(text)
                 if len(w) > 1 and all(_is_han(c) for c in w) and word_frequency(w) > 0)
    return worded / han


def gb_reading(data: bytes, guessed: str) -> str | None:
    """``data`` read as GB 18030 when that reads as Chinese and the guess does not, else None.

    Args:
        data: the bytes (no BOM, not UTF-8).
        guessed: the text charset detection decoded them to.
    """
    if len(data) > MAX_BYTES:
        return None
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        return None
    if sum(1 for c in text if _is_han(c)) < MIN_HAN:
        return None
    share = han_word_share(text)
    if share < MIN_WORD_SHARE or share < han_word_share(guessed) + SHARE_MARGIN:
        return None
    return text
