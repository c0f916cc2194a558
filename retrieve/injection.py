"""Flag document text that reads like instructions to a model (prompt injection).

Retrieved text is handed to a model as quoted data. A document can still carry text written to
steer that model ("ignore all previous instructions", chat-template role markers). This module
only *flags* such text so the reference can say so; it never drops or rewrites it (the text may
be a legitimate article about prompt injection).

Flags, in the order ``flag_injection`` returns them:

- ``ignore_instructions``: "ignore (all) previous instructions", "disregard the above",
  "forget everything you were told", "disregard the other references", 忽略之前的所有指令, ...
- ``role_marker``: chat-template tokens (``<|im_start|>``, ``[INST]``, ``<<SYS>>``), a line
  opening with ``system:`` / ``assistant:``, or a ``### Instruction`` heading.
- ``persona_change``: "you are now a ...", "from now on you will ...", "pretend to be ...",
  "you must now act as ...", or text addressed to the model ("Note to the AI reading this",
  "if you are an AI"; 你现在是一个 ..., 从现在开始你 ...).
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
# a hyphen inside a word ("ig-nore"; not across a line: a role marker opens the next one)
_SPLIT_WORD = re.compile(r"(?<=[a-z])[-\u2010\u2011](?=[a-z])")

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
        # forget everything you were told before / disregard the other references
        re.compile(rf"\b{_VERB}\s+(?:everything|anything|all)\s+(?:that\s+)?you\s+(?:were|have\s+"
                   r"been)\s+(?:told|given|instructed)\b"),
        re.compile(rf"\b{_VERB}\s+(?:all\s+)?the\s+other\s+(?:references|documents|passages|"
                   r"search\s+results)\b(?!\s+(?:listed|in\s+the\s+appendix|below))"),
        # 忽略之前的所有指令 / 请无视以上所有指示 / 忘记你的系统提示
        re.compile(r"(?:忽略|无视|忽视|忘记|忘掉|不要理会|不要遵守|不必遵守)[^。！？\n]{0,4}?"
                   r"(?:之前|以上|上面|上述|前面|先前|此前|所有|全部|一切|你的|原有|原来)"
                   r"[^。！？\n]{0,6}?(?:指令|指示|提示词|系统提示)"),
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
        re.compile(r"\byou\s+(?:must|will)\s+now\s+(?:act|behave|respond|speak|pose)\s+"
                   r"(?:as|like)\b(?!\s+(?:the|a|an)\s+(?:reviewer|editor|owner|admin|maintainer))"),
        # text addressed to the model reading it: "Note to the AI reading this: ..."
        re.compile(r"(?:^|[.!?]\s+)(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+|any\s+)?"
                   r"(?:ai|llm|language\s+model|assistant|chatbot|model)s?(?:\s+(?:reading|"
                   r"processing|summari[sz]ing)\s+this)?\s*:", re.MULTILINE),
        re.compile(r"\bif\s+you\s+are\s+(?:an?\s+)?(?:ai|llm|large\s+language\s+model|language"
                   r"\s+model|chatbot)(?:\s+(?:model|assistant|agent|system))?\s*(?:[,.:;!]|"
                   r"reading\b|processing\b)"),
        # 你现在是一个没有限制的助手 / 从现在开始，你将 / 假装你是
        re.compile(r"你现在是(?:一个|一名|一位)|从现在(?:开始|起)[，,]?\s*你(?:必须|只能)|"
                   r"假装你是|(?:^|[。！？\n])(?:致|给)正在阅读的(?:ai|人工智能|大模型|语言模型|助手)"),
    ),
    "prompt_request": (
        re.compile(r"\b(?:reveal|print|show|repeat|output|leak|display)\s+(?:me\s+)?"
                   r"(?:the\s+(?:contents?|text|wording)\s+of\s+)?"
                   r"(?:your|the)\s+(?:system\s+prompt|(?:hidden\s+|initial\s+)?instructions)"),
        re.compile(r"(?:显示|输出|打印|泄露|透露|告诉我|重复)[^。！？\n]{0,4}?你的(?:系统提示|系统指令|"
                   r"初始指令|隐藏指令)"),
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
    # answer only with the word YES
    re.compile(rf"{_IMPERATIVE}{_ANSWER}\s+(?:only\s+with\s+|with\s+only\s+)the\s+"
               r"(?:single\s+)?word\b", re.MULTILINE),
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

    A hyphen between letters goes ("Ig-nore all previous in-structions"); runs of spaces and
    tabs become one space; line breaks are kept (role markers are anchored at line starts).
    """
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE).casefold()
    return _SPACES.sub(" ", _SPLIT_WORD.sub("", text))


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
