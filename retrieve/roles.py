"""Who does what to whom: a passage where the name asked of plays the other role (pure functions).

"What will replace the Lumo 3?" over "The Lumo 3 replaced the Lumo 2": the passage tells what
the Lumo 3 did, not what was done to it; "Who is Alice Moreau's manager?" over "Alice Moreau
is my former manager": Alice *is* a manager, nobody is named as hers. Both passages hold every
word of the question, and a cosine or a term count cannot see the roles swapped. Two English
question shapes are read:

* **the doer asked** ("Who founded Acme?", "What will replace the Lumo 3?", "Which company
  acquired Tidewell?"): a question word, an optional auxiliary, a verb, then a name. A passage
  where that verb follows the name as its subject (the name before it, no "was"/"is" between,
  no "by" after it) and never precedes it as its object has the roles swapped. Verbs whose two
  sides play the same part ("marry", "meet", "fight", "merge") are left out.
* **the holder of a role asked** ("Who is Alice's manager?"): a passage where the name is
  said to *be* that role ("Alice is my manager") and never to *have* one ("Alice's manager",
  "her manager", "the manager of Alice") has them swapped.

Only a passage where every mention fits the swapped reading fails; one that also writes the
asked reading, or where the verb or role word never comes near the name, is left to the model.
Chinese questions are not read (their word order needs a parser).
"""

from __future__ import annotations

import re

from kb.store.textindex import normalise_word

_AUX = r"(?:(?:will|would|did|does|do|can|could|has|have|had|might|may|shall)\s+)?"
# "Who founded Acme?", "What will replace the Lumo 3?", "Which company acquired Tidewell?"
_DOER_ASKED = re.compile(rf"^\s*(?:[Ww]ho|[Ww]hat|[Ww]hich(?:\s+[a-z]+)?)\s+{_AUX}([a-z]+)\s+"
                         r"(?:the\s+|a\s+|an\s+)?([A-Z][\w-]*(?:\s+(?:[A-Z][\w-]*|\d+|[IVX]+)"
                         r"\b)*)")
# "Who is Alice Moreau's manager?", "Who was Henry's tutor?"
_HOLDER_ASKED = re.compile(r"^\s*[Ww]ho(?:'s|\s+is|\s+was|\s+are|\s+were)\s+((?:[A-Z][\w-]*\s+)*"
                           r"[A-Z][\w-]*)'s?\s+(?:[a-z]+\s+)?([a-z]+)\s*\??\s*$")
_BE = frozenset("is was were are be been being am 's".split())
# not verbs after a question word (a copula, an auxiliary, a determiner or pronoun)
_NOT_VERBS = frozenset("is was were are be been has have had do does did the a an of his her "
                       "their its this that these those".split())
# verbs whose two sides play the same part: "Cnut married Emma" says whom Emma married
_SYMMETRIC = frozenset(normalise_word(w) for w in (
    "marry married wed meet met fight fought battle merge merged ally allied divorce divorced "
    "date dated partner partnered play played compete competed share shared tie tied "
    "border bordered neighbour neighbor").split())
_WORD = re.compile(r"[\w'-]+")
_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s+|\n+")
NEAR_WORDS = 8  # a name and its verb (or role word) within eight words are one clause


def roles_swapped(query: str, text: str) -> tuple[str, ...]:
    """The verb or role word whose sides a passage swaps against the question; ``()`` if none.

    Args:
        query: the question.
        text: the passage.

    Returns:
        ``(word,)``, the verb or role word as the question wrote it, when the question asks
        the doer of a verb on a name (or the holder of a name's role) and every mention in the
        passage of that verb (role) near the name has the name on the other side; else
        empty (another question shape, no mention near the name, or one fitting the question).
    """
    doer = _DOER_ASKED.match(query)
    if doer and doer.group(1) not in _NOT_VERBS:
        verb = normalise_word(doer.group(1))
        if verb not in _SYMMETRIC:
            return (doer.group(1),) if _done_by_name(text, verb, doer.group(2).split()) else ()
    holder = _HOLDER_ASKED.match(query)
    if holder:
        name, role = holder.group(1).split()[0], normalise_word(holder.group(2))
        return (holder.group(2),) if _name_is_role(text, name, role) else ()
    return ()


def _positions(words: list[str], name: list[str]) -> list[int]:
    """Where ``name`` (its words in order, as written) starts in ``words``."""
    return [i for i in range(len(words) - len(name) + 1) if words[i:i + len(name)] == name]


def _done_by_name(text: str, verb: str, name: list[str]) -> bool:
    """Every mention of ``verb`` near ``name`` has the name as its active subject."""
    swapped = False
    for sentence in _SENTENCE_END.split(text):
        words = _WORD.findall(sentence)
        starts = _positions(words, name)
        for i, w in enumerate(words):
            if normalise_word(w) != verb:
                continue
            if any(i < s <= i + NEAR_WORDS for s in starts):
                return False  # "Tidewell replaced the Lumo 3": the name undergoes it
            before = [s for s in starts if i - NEAR_WORDS <= s < i]
            if not before:
                continue
            between = {x.lower() for x in words[before[-1] + len(name):i]}
            passive = bool(between & _BE) or words[i + 1:i + 2] in (["by"], ["By"])
            if passive:
                return False  # "the Lumo 3 was replaced by ..."
            swapped = True
    return swapped


def _name_is_role(text: str, name: str, role: str) -> bool:
    """``name`` is said to be ``role`` and nothing is said to be the name's ``role``."""
    swapped = False
    for sentence in _SENTENCE_END.split(text):
        words = _WORD.findall(sentence)
        for i, w in enumerate(words):
            if normalise_word(w) != role:
                continue
            prev = words[max(0, i - 3):i]
            owned = (any(x in (f"{name}'s", f"{name}'", "her", "his", "their") for x in prev)
                     or words[i + 1:i + 3] == ["of", name])
            if owned:
                return False  # "Alice's manager", "her manager", "the manager of Alice"
            near = words[max(0, i - NEAR_WORDS):i]
            if name in near and _BE & {x.lower() for x in near[near.index(name) + 1:]}:
                swapped = True  # "Alice Moreau is my former manager"
    return swapped
