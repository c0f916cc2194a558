"""Chinese numerals written as Arabic digits (a pure function), as kb matches numbers.

Both a query's terms and the passages are written this way before matching, so that 十年 in a
question finds 10年 in a passage and the reverse (``kb.retrieve.terms``), and the numbers a
question names are compared as digits (``kb.retrieve.numbers``).
"""

from __future__ import annotations

import re

_ZH_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10_000}
_ZH_NUMERAL = re.compile("[零〇一二两三四五六七八九十百千万]+")


def arabic_numerals(text: str) -> str:
    """Chinese numerals written as Arabic digits (``满十年`` -> ``满10年``, ``二十三`` -> ``23``).

    A run of numeral characters is read as one number below 100,000 (digit-by-digit when it
    holds no unit character: ``二〇二四`` -> ``2024``); a run it cannot read is left as it is.
    Both the query's terms and the passages are written this way before matching.
    """
    def value(m: re.Match[str]) -> str:
        run = m.group()
        if not any(c in _ZH_UNITS for c in run):
            return "".join(str(_ZH_DIGITS[c]) for c in run)
        total, digit = 0, None
        for c in run:
            if c in "零〇":  # a placeholder: 三百零五
                continue
            if c in _ZH_DIGITS:
                if digit is not None:  # two digits in a row beside units: not a number
                    return run
                digit = _ZH_DIGITS[c]
            elif c == "万":
                total = (total + (digit or 0) or 1) * 10_000
                digit = None
            else:
                total += (1 if digit is None else digit) * _ZH_UNITS[c]
                digit = None
        return str(total + (digit or 0))

    return _ZH_NUMERAL.sub(value, text)
