"""Flag document text that reads like instructions to a model (prompt injection).

Retrieved text is handed to a model as quoted data. A document can still carry text written to
steer that model ("ignore all previous instructions", chat-template role markers). This module
only *flags* such text so the reference can say so; it never drops or rewrites it (the text may
be a legitimate article about prompt injection).

Flags, in the order ``flag_injection`` returns them:

- ``ignore_instructions``: "ignore (all) previous instructions", "disregard the above", ...
- ``role_marker``: chat-template tokens (``<|im_start|>``, ``[INST]``, ``<<SYS>>``), a line
  opening with ``system:`` / ``assistant:``, or a ``### Instruction`` heading.
- ``persona_change``: "you are now a ...", "from now on you will ...", "pretend to be ...".
- ``prompt_request``: asks to reveal the system prompt or the model's instructions.

The patterns are deliberately narrow: a flag is a hint for the reader, and a flag on every
manual that says "you are now logged in" would teach readers to ignore flags.
"""

from __future__ import annotations

import re
import unicodedata

# Zero-width and formatting characters that can hide a phrase from a naive match.
_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"))
_SPACES = re.compile(r"[^\S\n]+")

_VERB = r"(?:ignore|disregard|forget|override|bypass)"
_QUALIFIER = (r"(?:all|any|previous|prior|above|earlier|preceding|foregoing|former|initial|"
              r"original|system|developer|your)")
# Generic nouns ("rules", "commands") are left out: "ignore all rules" is linter documentation.
_NOUN = r"(?:instructions?|prompts?|directions|directives|guidelines|context|messages)"

PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    "ignore_instructions": (
        # ignore all previous instructions / disregard your system prompt / forget any rules
        re.compile(rf"\b{_VERB}\s+(?:\w+\s+){{0,2}}?{_QUALIFIER}\s+(?:\w+\s+){{0,2}}?{_NOUN}\b"),
        # disregard the above / ignore everything above. / forget all of the above and ...
        re.compile(rf"\b{_VERB}\s+(?:(?:everything|anything|all|of|that|is|written|the)\s+)*"
                   r"(?:above|before)(?=\s*(?:[.,;:!)]|$|\s+(?:and|then|instead|text|"
                   rf"{_NOUN})\b))", re.MULTILINE),
    ),
    "role_marker": (
        re.compile(r"<\|[a-z_]{2,30}\|>"),  # <|im_start|>, <|system|>, <|eot_id|>
        re.compile(r"\[/?inst\]|<</?sys>>|<start_of_turn>|</?(?:system|assistant)>"),
        re.compile(r"^[ \t>*_]*(?:system|assistant|developer)[ \t]*:", re.MULTILINE),
        # Alpaca-style "### Instruction:" (the colon keeps a README's "## Instructions" out)
        re.compile(r"^[ \t]*#{1,6}[ \t]*(?:system|instruction|response)[ \t]*:", re.MULTILINE),
    ),
    "persona_change": (
        re.compile(r"\byou\s+are\s+now\s+(?:a|an|the|my|no\s+longer|dan\b|in\s+\w+\s+mode)"),
        re.compile(r"\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must|shall|should)\b"),
        re.compile(r"\bpretend\s+(?:to\s+be|(?:that\s+)?you\s+are)\b"),
        re.compile(r"\b(?:enter|enable|switch\s+to|activate)\s+(?:developer|dan|god|jailbreak)"
                   r"\s+mode\b"),
    ),
    "prompt_request": (
        re.compile(r"\b(?:reveal|print|show|repeat|output|leak|display)\s+(?:me\s+)?"
                   r"(?:your|the)\s+(?:system\s+prompt|(?:hidden\s+|initial\s+)?instructions)"),
    ),
}

INJECTION_FLAGS: tuple[str, ...] = tuple(PATTERNS)


def normalise(text: str) -> str:
    """Text as the patterns see it: NFKC, case-folded, invisible characters removed.

    Runs of spaces and tabs become one space; line breaks are kept (role markers are anchored
    at line starts).
    """
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE).casefold()
    return _SPACES.sub(" ", text)


def flag_injection(text: str) -> tuple[str, ...]:
    """Name the ways ``text`` reads like instructions to a model.

    Args:
        text: a chunk's raw text (any length; the scan is linear in it).

    Returns:
        Flag names from ``INJECTION_FLAGS`` that match, in that order; empty when none does.
    """
    if not text:
        return ()
    seen = normalise(text)
    return tuple(name for name, patterns in PATTERNS.items()
                 if any(p.search(seen) for p in patterns))


__all__ = ["INJECTION_FLAGS", "PATTERNS", "flag_injection", "normalise"]
