"""Jieba's part-of-speech tagger, loaded once (names, places and organisations in Chinese)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def posseg() -> Any:
    """Jieba's part-of-speech tagger (``jieba.posseg``), its dictionary loaded once."""
    import jieba.posseg

    from kb.store.textindex import cut_words

    cut_words("初始化")  # jieba's dictionary, loaded once and quietly (kb.store.textindex)
    return jieba.posseg
