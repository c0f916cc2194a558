"""Contextualise: one situating sentence per chunk, written by an LLM (DESIGN 3.3).

"Contextual Retrieval" (Anthropic, 2024, https://www.anthropic.com/news/contextual-retrieval):
a chunk such as "revenue grew 3% over the previous quarter" cannot be found by the company's
name; a short sentence situating it in its document ("This chunk is from ACME's Q2 2023
filing") can be, and it is indexed by BM25 and embedded with the chunk while citations keep
showing the raw chunk text.

Budget (DESIGN 3.3), per document: the first ``MAX_CHUNKS`` (200) chunks are situated, each
call sends at most ``MAX_DOCUMENT_CHARS`` (6,000) characters of the document and
``MAX_CHUNK_CHARS`` (1,200) of the chunk. A document that fits is sent whole; a longer one as
its opening (half the budget) and the text leading up to the chunk (the other half), so a
chunk deep in a long document is still seen in its neighbourhood, and every chunk of the
opening gets the same excerpt (a server's prompt cache can reuse it). Whatever exceeds the
budget is named in the document's warnings: never silence.

The sentence goes on its own line after the plain prefix (title + heading path), which is
always one line: a chunk is situated exactly when its prefix has a second line
(``kb.store.Store.situated_documents`` counts on it). A failed or empty reply leaves the plain
prefix and is counted in the warnings; nothing here raises for a model failure.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kb.backends.http import READ_TIMEOUT_S
from kb.ingest.extract.common import cut_at_word, one_line
from kb.types import ChunkDraft

MAX_DOCUMENT_CHARS = 6000  # DESIGN 3.3: document text sent per call, in code points
MAX_CHUNK_CHARS = 1200  # DESIGN 3.3: chunk text sent per call, in code points
MAX_CHUNKS = 200  # DESIGN 3.3: the first 200 chunks of a document are situated
MAX_SENTENCE_CHARS = 300  # ours: one sentence; a longer reply is cut at a word boundary
SITUATE_TIMEOUT_S = READ_TIMEOUT_S  # issue 5: ingest-time calls wait out a cold model load
GAP_MARK = "\n[…]\n"  # stands for the document text left out between opening and chunk

PROMPT = (
    "<document>\n{document}\n</document>\n"
    "Here is the chunk we want to situate within the whole document:\n"
    "<chunk>\n{chunk}\n</chunk>\n"
    "Write one short sentence that situates this chunk within the overall document (what the "
    "document is, and which part or topic of it the chunk belongs to), to improve search "
    "retrieval of the chunk. Use the document's language. Answer only with that sentence."
)

Complete = Callable[[str], str]  # prompt -> reply; raises on failure


@dataclass(frozen=True, slots=True)
class Situated:
    """The chunks with their situating sentences.

    Attributes:
        chunks: the input chunks in order; a situated one has a newline and its sentence
            appended to its ``context_prefix``.
        sentences: the sentence per chunk, ``None`` where there is none.
        warnings: what exceeded the budget and which chunks lack a sentence, and why.
        failed: LLM calls that raised (an error reply, a dead server, an open circuit),
            worth trying again; chunks past the budget and empty replies are not counted.
    """

    chunks: tuple[ChunkDraft, ...]
    sentences: tuple[str | None, ...]
    warnings: tuple[str, ...] = ()
    failed: int = 0

    @property
    def situated(self) -> int:
        """Chunks that got a sentence."""
        return sum(1 for s in self.sentences if s)


def document_excerpt(text: str, start: int, end: int,
                     max_chars: int = MAX_DOCUMENT_CHARS) -> str:
    """The document text sent with the chunk at ``text[start:end]``.

    Args:
        text: the document's extracted text.
        start: the chunk's start offset (code points).
        end: the chunk's end offset, exclusive.
        max_chars: the budget of document characters.

    Returns:
        ``text`` when it fits; its first ``max_chars`` characters when the chunk ends inside
        them; else the first half of the budget, ``GAP_MARK``, and the text up to the chunk's
        end (the other half). Never more than ``max_chars`` characters of ``text``.
    """
    if len(text) <= max_chars or end <= max_chars:
        return text[:max_chars]
    head = max_chars // 2
    return text[:head] + GAP_MARK + text[max(head, end - (max_chars - head)):end]


def situating_prompt(document: str, chunk: str) -> str:
    """The prompt for one chunk (document first, so servers can reuse its cached prefix)."""
    return PROMPT.format(document=document, chunk=chunk)


def clean_sentence(reply: str, max_chars: int = MAX_SENTENCE_CHARS) -> str | None:
    """The model's reply as one clean line, or ``None`` when nothing is left.

    Control characters (NUL included) are dropped, whitespace runs (newlines included)
    become one space, surrounding quotes go, and a reply over ``max_chars`` is cut at the
    last word boundary before it and ends with "…". A reply without a letter or digit (e.g.
    ``[]`` from a model answering another prompt shape) counts as empty.
    """
    text = one_line(reply).strip("\"'`“”‘’ ")
    if not any(ch.isalnum() for ch in text):
        return None
    return cut_at_word(text, max_chars)


def situate_chunks(text: str, chunks: Sequence[ChunkDraft], complete: Complete) -> Situated:
    """Ask for a situating sentence for each of the first ``MAX_CHUNKS`` chunks.

    Args:
        text: the document's extracted text (chunk offsets point into it).
        chunks: the document's chunks in order, with plain prefixes.
        complete: asks the LLM (cached, timed); may raise, which costs that chunk its
            sentence and nothing else.

    Returns:
        The chunks with sentences appended to their prefixes, and the warnings.
    """
    sentences: list[str | None] = []
    failed = empty = cut = 0
    first_failure = ""
    for i, chunk in enumerate(chunks):
        if i >= MAX_CHUNKS:
            sentences.append(None)
            continue
        body = chunk.text
        if len(body) > MAX_CHUNK_CHARS:
            body, cut = body[:MAX_CHUNK_CHARS], cut + 1
        prompt = situating_prompt(document_excerpt(text, chunk.char_start, chunk.char_end),
                                  body)
        try:
            sentence = clean_sentence(complete(prompt))
        except Exception as exc:  # any model failure costs this chunk its sentence only
            failed += 1
            first_failure = first_failure or (one_line(f"{type(exc).__name__}: {exc}")[:200])
            sentences.append(None)
            continue
        empty += sentence is None
        sentences.append(sentence)
    situated = tuple(dataclasses.replace(c, context_prefix=f"{c.context_prefix}\n{s}") if s
                     else c for c, s in zip(chunks, sentences, strict=True))
    return Situated(situated, tuple(sentences),
                    _warnings(len(text), len(chunks), failed, empty, cut, first_failure),
                    failed=failed)


def _warnings(text_chars: int, n: int, failed: int, empty: int, cut: int,
              first_failure: str) -> tuple[str, ...]:
    out = []
    reasons = []
    if n > MAX_CHUNKS:
        reasons.append(f"{n - MAX_CHUNKS} past the first {MAX_CHUNKS} chunks "
                       "(DESIGN 3.3 budget)")
    if failed:
        reasons.append(f"{failed} LLM calls failed (first: {first_failure})")
    if empty:
        reasons.append(f"{empty} empty replies")
    missing = max(0, n - MAX_CHUNKS) + failed + empty
    if missing:
        out.append(f"{missing} of {n} chunks lack a situating sentence (their prefix is title "
                   f"+ heading path only): {'; '.join(reasons)}")
    if text_chars > MAX_DOCUMENT_CHARS:
        out.append(f"the LLM saw at most {MAX_DOCUMENT_CHARS:,} of the document's "
                   f"{text_chars:,} characters per chunk (DESIGN 3.3 budget: its opening and "
                   "the text leading up to the chunk)")
    if cut:
        out.append(f"{cut} chunks were cut to {MAX_CHUNK_CHARS:,} characters for the LLM "
                   "(DESIGN 3.3 budget)")
    return tuple(out)
