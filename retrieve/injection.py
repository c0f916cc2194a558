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
- ``format_override``: demands the answer's format ("respond only in JSON", "your entire
  response must be valid JSON"): an imperative (sentence start, "please", "you must") plus an
  exclusive format, so API documentation ("the server responds only in JSON") is not flagged.

``flag_fields`` scans a reference's header fields (title, source, headings) with its text.

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

_IMPERATIVE = (r"(?:^|[.!?;:,]\s+|\bplease\s+|\bimportant\s*:\s*|"
               r"\byou\s+(?:must|should|shall|will|are\s+to|need\s+to)\s+)")
_ANSWER = r"(?:always\s+)?(?:respond|reply|answer|output)"
_FORMAT = r"(?:json|xml|yaml|base64|csv|html)"
_ONLY = r"(?:only|exclusively|solely|strictly)"
PATTERNS["format_override"] = (
    # respond only in JSON / reply exclusively with valid JSON / you must answer only as XML
    re.compile(rf"{_IMPERATIVE}{_ANSWER}\s+{_ONLY}\s+(?:in|with|as|using)\s+(?:\w+\s+){{0,2}}?"
               rf"{_FORMAT}\b", re.MULTILINE),
    # only respond with a JSON object
    re.compile(rf"{_IMPERATIVE}only\s+{_ANSWER}\s+(?:in|with|as|using)\s+(?:\w+\s+){{0,2}}?"
               rf"{_FORMAT}\b", re.MULTILINE),
    # answer in JSON only / respond in JSON format and nothing else
    re.compile(rf"{_IMPERATIVE}{_ANSWER}\s+(?:in|with|as|using)\s+(?:\w+\s+){{0,2}}?{_FORMAT}"
               r"(?:\s+format)?(?:\s+only\b|\s+and\s+nothing\s+else)", re.MULTILINE),
    # your entire response must be valid JSON
    re.compile(rf"\byour\s+(?:entire\s+|whole\s+|only\s+)?(?:response|reply|answer|output)"
               rf"\s+(?:must|should|shall|will)\s+(?:only\s+)?(?:be|contain)\s+(?:only\s+)?"
               rf"(?:a\s+)?(?:valid\s+|raw\s+|pure\s+)?{_FORMAT}\b"),
    # do not output anything except the JSON object
    re.compile(rf"\b(?:do\s+not|don't|never)\s+(?:write|include|add|output|say|return)\s+"
               rf"anything\s+(?:else\s+)?(?:other\s+than|but|except|besides)\s+"
               rf"(?:(?:the|a|valid)\s+)*{_FORMAT}\b"),
)

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


def flag_fields(*texts: str) -> tuple[str, ...]:
    """Flags of several texts together: a chunk's text and its reference's header fields.

    Args:
        texts: e.g. the chunk text, the title, the source and each heading.

    Returns:
        Flag names from ``INJECTION_FLAGS`` that match any of ``texts``, in that order.
    """
    found = {flag for text in texts for flag in flag_injection(text)}
    return tuple(name for name in INJECTION_FLAGS if name in found)


__all__ = ["INJECTION_FLAGS", "PATTERNS", "flag_fields", "flag_injection", "normalise"]
