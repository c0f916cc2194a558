"""What a passage's document is about, and a question asked of another document's subject.

A document is *about* the terms in its title or heading path, and those frequent across its
chunks (``document_topics``). The judge splits a question's terms with it: topic terms (what
the document is about) against focus terms (what is asked of it).

The same reading names the question's *subject* (``subject_terms``): the names it asks about
(``named_terms``: a capitalised word, or a Chinese word jieba's tagger calls a person, place,
organisation or other proper name) that some judged passage's document is about.
"Tidewell 有多少员工？" over a collection of notes finds the note titled "Tidewell Robotics"
among its candidates, so "Tidewell" is the subject; a note about another company (青禾科技)
that never writes "Tidewell" answers a headcount, but of its own company, however well its
numbers and its 员工 fit. ``other_subject`` fails such a passage: its whole document writes
none of the question's subject terms and its title names another (``names_elsewhere``; a
note that merely never writes its subject, a leave policy, is left alone, unless a passage of
the subject's own document passes the judge: ``owner_outranks``, Falcon项目的负责人 against
another project's minutes when the Falcon kickoff note answers; a note's folders and file
name count as written, ``notes/falcon/``). Entity linking
reads the same way (a mention is resolved to the document whose title names it; Bunescu &
Pașca, EACL 2006); here only its negative is used, and only within the question's script
(a document in another script writes the subject its own way, which the per-document counts
cannot see).

Pure functions over plain data (the judge's counts of chunks per document and per term).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from kb.retrieve.crosslang import HAN
from kb.retrieve.numbers import MONTH_NAMES
from kb.retrieve.postags import posseg
from kb.retrieve.siblings import proper_numbered_names
from kb.retrieve.terms import PassageTerms, Term, is_name, is_stop, passage_terms, term_df

TOPIC_SHARE = 0.3  # a term in 30% of its document's chunks (and two or more) is its topic
TOPIC_MIN_CHUNKS = 3  # ... of a document of three chunks or more (in less, only its title)
_CALENDAR = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday".split()) | set(MONTH_NAMES)
# a path's folders and file name as words: at separators, and inside a camel-case or
# letter-and-digit name (FalconTeam/, Falcon2025/)
_PATH_SEPARATORS = re.compile(
    r"[\\/_.:\-]+|(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}$")  # .pdf, .md, .html, .docx
_HEADING_LINE = re.compile(r"\s*#{1,6}\s")  # a Markdown heading line, kept in its chunk's text
_TITLE_WORD = re.compile(r"\b[A-Z][A-Za-z\u00c0-\u024f'-]+")  # a capitalised word
# jieba's tags of proper names: person (nr, nrt, nrfg), place (ns), organisation (nt), other (nz)
NAME_TAGS = frozenset({"nr", "nrt", "nrfg", "ns", "nt", "nz"})


def unwritten_names(terms: Sequence[Term], query: str, df: Mapping[str, int], *,
                    complete: bool = True, named_by: Sequence[PassageTerms] = ()
                    ) -> tuple[dict[str, bool], frozenset[str]]:
    """The names the question writes that the index never writes, nor their translations.

    A passage in the question's script cannot answer a question about something the index
    never names ("the capital of Australia" where nothing says "Australia"). An acronym of two
    or three letters may be a word rather than a name ("the IP address", "my locker PIN", "in EUR":
    a new-user trial's six answers were refused for it), so the judge lets a passage through
    for it when the passage holds every other focus term of the question that names nothing
    (the acronym is all it lacks: "the admin IP address of the router" against "Admin page:
    http://192.168.0.1"; not 高密度 of "王立军的高密度脂蛋白（HDL）" against LDL's row); an
    identifier with digits ("E05", "COVID-19") or a longer acronym ("NASA", "NATO") is a name.
    The rule's cost: "When was IBM founded?" passes a passage on another firm's founding.

    Args:
        terms: the question's content terms.
        query: the question.
        df: index token -> chunks holding it (``kb.retrieve.judge.IndexStats.df``).
        complete: ``df`` was read (``False``: no name is known absent).
        named_by: what else writes names: the judged passages' titles, heading paths and
            file names (``file_name_words``: "zen-of-python.pdf" writes "Python").

    Returns:
        Term text -> whether it is such an acronym (``kb.retrieve.terms.is_name``: two or
        three capitals), for each name no chunk holds nor ``named_by`` writes; and the text
        of the terms that name nothing (``named_terms``).
    """
    unknown = {t.text: t.surface.isalpha() and t.surface.isupper() and len(t.surface) <= 3
               for t in terms if complete and is_name(t, query) and term_df(t, df) == 0
               and not any(c.has(t) for c in named_by)}
    return unknown, frozenset(t.text for t in terms) - named_terms(query, terms) - set(unknown)


def file_name_words(source: str) -> str:
    """The words of a document's file name, without its folders and extension ("" for none).

    A file's name often names what it is about where its text never does
    ("zen-of-python.pdf", a PDF titled "PDF Example Document"; "dentist.md" holding only a
    time and a street), so the judge reads it with the title and heading path. Only the name:
    folders above a synced root name the user's machine ("/home/alice/work"), not the document.

    Args:
        source: the document's file path or URI ("/notes/zen-of-python.pdf",
            "https://example.org/guide/index.html", "golden://google-sre").

    Returns:
        The name's words, split at separators, camel case and letter-digit seams, without
        its numbers ("zen of python", "Falcon Team"): a file's numbers are as often a scan's
        counter or an id (``scan0004``, ``IMG_4032``, a UUID) as what it is about, and a
        number a document is about is no constraint on its passages (``kb.retrieve.numbers``);
        "" for an empty source.
    """
    name = re.split(r"[\\/]", source.rstrip("\\/"))[-1] if source else ""
    words = _PATH_SEPARATORS.sub(" ", _EXTENSION.sub("", name)).split()
    return " ".join(w for w in words if not w.isdigit())


def document_topics(terms: Iterable[Term], doc_id: int, context: PassageTerms,
                    doc_chunks: Mapping[int, int],
                    doc_term_chunks: Mapping[tuple[int, str], int]) -> set[str]:
    """The terms (their ``text``) that a passage's document is about.

    Args:
        terms: the question's content terms.
        doc_id: the passage's document.
        context: its document's title and heading path, as passage terms.
        doc_chunks: document id -> its number of chunks.
        doc_term_chunks: (document id, term text) -> chunks of that document holding the term.

    Returns:
        The terms its title or heading path holds, and those in ``TOPIC_SHARE`` of its chunks
        (two or more, in a document of ``TOPIC_MIN_CHUNKS`` or more).
    """
    terms = list(terms)
    topic = {t.text for t in terms if context.has(t)}
    n = doc_chunks.get(doc_id, 0)
    for t in terms:
        k = doc_term_chunks.get((doc_id, t.text), 0)
        if n >= TOPIC_MIN_CHUNKS and k >= 2 and k >= TOPIC_SHARE * n:
            topic.add(t.text)
    return topic


def named_terms(query: str, terms: Sequence[Term]) -> frozenset[str]:
    """The terms (their ``text``) that name something: what a question can be asked *of*.

    A capitalised word or acronym (``kb.retrieve.terms.is_name``; also the opening word when
    Chinese text follows: "Tidewell 有多少员工"), a numbered name's word ("Lumo 2 多少钱",
    云点单 2: ``kb.retrieve.siblings.proper_numbered_names``), or a Chinese word within or
    around a word of two characters or more jieba's tagger marks as a proper name
    (``NAME_TAGS``: 林晓岚, 碧澄湖, 远山 of 周远山; not 战役, 员工). Weekdays and months name no
    subject ("on Monday").

    Args:
        query: the question.
        terms: its content terms (``kb.retrieve.terms.content_terms``).

    Returns:
        The ``text`` of each naming term; empty when the question names nothing.
    """
    numbered = proper_numbered_names(query)  # "Lumo 2 多少钱", 云点单 2: a product's name
    han = (*han_names(query), *(w for w in numbered if not w.isascii()))
    opening = re.match(rf"\s*([A-Z][\w-]*)\s*{HAN.pattern}", query)
    return frozenset(t.text for t in terms if t.surface.lower() not in _CALENDAR and (
        is_name(t, query) or opening is not None and t.surface == opening.group(1)
        or t.surface.lower() in numbered
        or t.spaceless and any(w in t.text or t.text in w for w in han)))


def names_elsewhere(context: str, text: str, query: str) -> tuple[str, ...]:
    """The names a passage's document title gives that the question does not write.

    A document titled by a name is about that name: "Orlen Vasquez", 青禾科技, "Tidewell
    Robotics". A Latin word of the title (its headings are left out: "## Windows") counts when
    the passage's prose, its heading lines left out, writes it capitalised inside a sentence
    ("... founded Tidewell Robotics") and never in lower case (title case says nothing: "#
    Leave Policy" over "... paid leave"); a Chinese one when jieba's tagger marks it a proper
    name (青禾 of 青禾科技; not 请假制度), and so does a numbered name (云点单 of "云点单 3",
    ``kb.retrieve.siblings.proper_numbered_names``). Weekdays and months do not count.

    Args:
        context: the passage's document title and heading path (" > " between them).
        text: the passage.
        query: the question.

    Returns:
        The names in the order the title writes them; empty when it gives none the question
        does not write (then nothing says the passage is about another subject).
    """
    title = context.split(" > ")[0]
    prose = "\n".join(line for line in text.splitlines()
                      if not _HEADING_LINE.match(line) and line.strip() != title.strip())
    asked = query.lower()
    latin = [w for w in dict.fromkeys(_TITLE_WORD.findall(title))
             if w.lower() not in _CALENDAR and not is_stop(w) and w.lower() not in asked
             and re.search(rf"[a-z0-9,;:] {re.escape(w)}\b", prose)
             and not re.search(rf"\b{re.escape(w.lower())}\b", prose)]
    numbered = [w for w in proper_numbered_names(title) if w not in asked]  # 云点单 3
    return tuple(dict.fromkeys((*latin, *(w for w in han_names(title) if w not in query),
                                *numbered)))


# what follows a surname and is no given name: function words, a question word, a number
_NOT_GIVEN = frozenset({"uj", "ul", "p", "c", "r", "m", "q", "d", "x", "y", "e", "u", "f"})


@lru_cache(maxsize=1024)
def han_names(text: str) -> tuple[str, ...]:
    """Words of ``text`` (two characters or more) jieba's tagger marks as proper names.

    Also a one-character surname it tags ``nr`` joined to the next word of one or two
    characters (周远航, cut 周 / 远航).

    Cached: a search asks it of the same document titles, passage after passage.
    """
    if not HAN.search(text):
        return ()
    pairs = list(posseg().cut(text))
    names = [p.word for p in pairs if p.flag in NAME_TAGS and len(p.word) >= 2]
    # a surname jieba leaves alone before a given name it reads as a word (周 + 远航)
    names += [p.word + q.word for p, q in zip(pairs, pairs[1:], strict=False)
              if p.flag == "nr" and len(p.word) == 1 and HAN.fullmatch(p.word)
              and 1 <= len(q.word) <= 2 and HAN.fullmatch(q.word) and q.flag not in _NOT_GIVEN]
    return tuple(names)


def subject_terms(topics: Iterable[set[str]], names: frozenset[str],
                  written: frozenset[str] = frozenset()) -> frozenset[str]:
    """The question's subject: its names any of the judged passages' documents is about.

    When no judged document is about one, the names the index writes somewhere (``written``:
    周远航 of "周远航是哪一年出生的", named once in a company's note) are the subject: a
    note titled by another person that never writes him tells of that other person.

    Args:
        topics: ``document_topics`` of each judged passage.
        names: ``named_terms`` of the question.
        written: the question's terms (their ``text``) that some chunk of the index holds.

    Returns:
        The term texts; empty when the question names nothing its judged documents are
        about or the index writes.
    """
    return (frozenset().union(*topics) & names) or (names & written)


def other_subject(unwritten: tuple[str, ...], elsewhere: Sequence[str]) -> tuple[str, ...]:
    """The subject terms when the passage is about another subject, else ``()``.

    About another: its whole document writes none of the question's subject terms
    (``unwritten_subject``), and its title names something else (``names_elsewhere``). A
    document that only omits the name (a leave policy never writing its company's name, a
    note written under a pronoun) is left to the model, unless a passage of the subject's
    own document answers (``owner_outranks``).

    Args:
        unwritten: ``unwritten_subject`` of the passage.
        elsewhere: ``names_elsewhere`` of the passage.

    Returns:
        ``unwritten`` when the title names something else, else empty.
    """
    return unwritten if elsewhere else ()


def unwritten_subject(terms: Sequence[Term], subject: frozenset[str], doc_id: int,
                      full: PassageTerms, doc_term_chunks: Mapping[tuple[int, str], int],
                      source: str = "") -> tuple[str, ...]:
    """The subject terms when the passage's document writes none of them, else ``()``.

    Written: in the passage with its title and heading path (``full``), in any chunk of its
    document (``doc_term_chunks``), or in its source path's folder and file names
    (``notes/falcon/minutes.md`` names Falcon). Call it for a passage in the question's
    script only (the per-document counts are of the terms' own forms, not their
    translations), with complete counts.

    Args:
        terms: the question's content terms.
        subject: ``subject_terms`` of the question.
        doc_id: the passage's document.
        full: the passage with its title and heading path, as passage terms.
        doc_term_chunks: (document id, term text) -> chunks of that document holding the term.
        source: the document's file path or URI ("" when unknown).

    Returns:
        The subject terms as the question wrote them, in its order; empty when there is no
        subject or the document writes one.
    """
    named = [t for t in terms if t.text in subject]
    if not named:
        return ()
    path = passage_terms(_PATH_SEPARATORS.sub(" ", source)) if source else None
    if any(full.has(t) or doc_term_chunks.get((doc_id, t.text), 0)
           or path is not None and path.has(t) for t in named):
        return ()
    return tuple(t.surface or t.text for t in named)


def owner_outranks(doc_ids: Sequence[int], about: Sequence[bool], passed: Sequence[bool],
                   unwritten: Sequence[tuple[str, ...]]) -> list[bool]:
    """Which passing passages a passing passage of the subject's own document outranks.

    "谁是Falcon项目的负责人？" over a kickoff note titled "Project Falcon" and another
    project's minutes that never write "Falcon": the minutes' lead is another project's,
    however well 负责人 fits. ``other_subject`` leaves such a passage alone when its title
    names nothing else (a leave policy never writing its company's name); it is outranked
    only when a passage of a document *about* the subject passes the judge itself (past
    the model's threshold, not the gate alone), so the question is still answered, from
    there. Read it as entity linking's tie-break (``other_subject``): the mention goes to
    the document whose title names it, when that document has an answer.

    Args:
        doc_ids: each passage's document.
        about: whether each passage's document is about the subject (``document_topics``).
        passed: whether each passage passed the judge (gate and threshold).
        unwritten: ``unwritten_subject`` of each passage (empty in another script).

    Returns:
        One flag per passage: ``True`` when it is outranked (then it fails).
    """
    owners = {d for d, a, p in zip(doc_ids, about, passed, strict=True) if a and p}
    return [p and bool(u) and bool(owners - {d})
            for d, p, u in zip(doc_ids, passed, unwritten, strict=True)]
