"""Cut an extracted document into chunks: structure first, then a recursive fallback.

1. Structure: every block (a section under one heading path, a page, a table) is chunked on its
   own, so no chunk straddles two headings or two pages; consecutive small blocks that share
   heading path and page are merged up to the target size. (Only step 3 joins across a page
   break; the chunk then records its first and last page.)
2. Recursive fallback for a block longer than ``target_chars``: cut at the strongest boundary in
   the last half of the window — paragraph break, then line break, then sentence end (Latin
   ``.!?`` and CJK ``。！？；…``), then whitespace, then any character — in the spirit of
   LangChain's RecursiveCharacterTextSplitter. The next chunk starts ``overlap_chars`` before
   the cut, moved forward to a sentence or word start when one is near.

3. Short chunks: a chunk under ``min_chunk_chars(settings)`` is merged with a neighbour (the
   next one when it introduces it, else the previous one), so headings alone, bylines or a
   paragraph's last words are never evidence on their own; only a whole document shorter than
   the minimum gives a shorter chunk.

Sizes are measured in code points. Chunk text is always ``extracted_text[char_start:char_end]``,
stripped of surrounding whitespace, never empty.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence

from kb.config import ChunkSettings
from kb.types import BLOCK_SEPARATOR, ChunkDraft, ExtractedDocument

# Boundary kinds, strongest first; each regex matches the gap *after which* a cut may fall.
# The third kind is a sentence's end in both sets: an overlap starts at one, or at a word.
_BOUNDARIES: tuple[re.Pattern[str], ...] = (
    re.compile(r"\n[ \t]*\n\s*"),
    re.compile(r"\n\s*"),
    re.compile(r"(?<=[.!?])[\"')\]]?\s+|(?<=[。！？；…])[”」』）]?\s*"),
    re.compile(r"\s+|(?<=[，、,;:：])"),
)
# A PDF page's text keeps the page's line breaks, most of them inside sentences (a trial's
# grant report was cited from "measures how much carbon ..."): a line ending a sentence, or a
# table's row, is a boundary there before a sentence's end inside a line, and a bare line
# break comes after both.
# A step's number opening a line ("2. Fill the kettle") ends no sentence there. A cut at a
# line ending a sentence takes no overlap (``iter_spans``): the next chunk opens a sentence.
_WRAPPED_BOUNDARIES: tuple[re.Pattern[str], ...] = (
    _BOUNDARIES[0],
    re.compile(r"(?:(?<=[.!?])[\"')\]]?|(?<=[。！？；…])[”」』）]?|(?<=\|))[ \t]*\n\s*"),
    re.compile(r"(?<=[.!?])(?<!\n\d\.)(?<!\n\d\d\.)[\"')\]]?\s+|(?<=[。！？；…])[”」』）]?\s*"),
    _BOUNDARIES[1],
    _BOUNDARIES[3],
)


# Chunks shorter than this are merged with a neighbour. A web page's text had 25 of its 49
# chunks under 80 characters ("Continue reading the main story", bylines, lone headings): such
# a chunk matches a query on a word or two and comes back as evidence with nothing to say.
# 80 code points is about one sentence of English or 40 Chinese characters.
MIN_CHUNK_CHARS = 80


def min_chunk_chars(settings: ChunkSettings) -> int:
    """The minimum chunk length for ``settings``: ``MIN_CHUNK_CHARS``, at most half the target."""
    return min(MIN_CHUNK_CHARS, settings.target_chars // 2)


def _joined(a: ChunkDraft, b: ChunkDraft, text_at: Callable[[int, int], str],
            like: ChunkDraft) -> ChunkDraft:
    """One chunk spanning ``a`` then ``b``.

    It has ``like``'s heading path and prefix, and the pages of both parts: ``page`` the first
    of them, ``page_end`` the last (``None`` both when neither part has a page).
    """
    start, end = a.char_start, max(a.char_end, b.char_end)
    pages = [p for part in (a, b) for p in (part.page, part.page_end) if p is not None]
    return ChunkDraft(text=text_at(start, end), context_prefix=like.context_prefix,
                      char_start=start, char_end=end, page=min(pages, default=None),
                      heading_path=like.heading_path, page_end=max(pages, default=None))


_SENTENCE_END = re.compile(r"[.!?。！？]")


def _leads(short: ChunkDraft, ch: ChunkDraft) -> bool:
    """Whether ``short``'s heading path is a prefix of ``ch``'s (it introduces ``ch``)."""
    return short.heading_path == ch.heading_path[:len(short.heading_path)]


def _path_of(short: ChunkDraft, ch: ChunkDraft) -> ChunkDraft:
    """Whose heading path a short chunk joined to the next one takes.

    The next one's when the short one only heads it (no sentence: a title, a heading line),
    else its own.
    """
    return ch if _leads(short, ch) and not _SENTENCE_END.search(short.text) else short


def merge_short(chunks: Iterable[ChunkDraft], text_at: Callable[[int, int], str],
                min_chars: int) -> Iterator[ChunkDraft]:
    """Merge every chunk shorter than ``min_chars`` code points with a neighbour.

    A short chunk joins the next one when its heading path is a prefix of the next one's (a
    heading or a lead-in introducing what follows) or when it is the first chunk; else it
    joins the previous one. A chunk joined to the next takes that one's heading path and
    context prefix when its own is a prefix of it and it holds no sentence, only headings
    (the deeper path names the section the text is in, and holds the outer headings: two
    trials saw a document's first section cited by its title alone, "Office notes" for
    "Office notes > Brand"); one holding a sentence keeps its own ("# Kites" and a sentence
    about kites before "## Flying" is cited under "Kites");
    the merged chunk covers the pages of both (``page`` to ``page_end``: a short piece at a
    page's end or start joins across the page break). It spans both
    (``text_at(start, end)`` is the document's text between two chunk offsets) and may exceed
    the target size by less than ``min_chars``. Only a document shorter than ``min_chars``
    yields a shorter chunk. Lazy: at most two chunks are held back.
    """
    prev: ChunkDraft | None = None  # held back: a short chunk after it may join it
    short: ChunkDraft | None = None  # a short chunk after ``prev``, placed when the next comes
    for ch in chunks:
        if short is not None and prev is not None:
            if _leads(short, ch):
                ch = _joined(short, ch, text_at, _path_of(short, ch))
            else:
                prev = _joined(prev, short, text_at, prev)
            short = None
        if prev is None or len(prev.text) < min_chars:  # only the first chunk can be short
            prev = ch if prev is None else _joined(prev, ch, text_at, _path_of(prev, ch))
        elif len(ch.text) < min_chars:
            short = ch
        else:
            yield prev
            prev = ch
    if short is not None and prev is not None:
        prev = _joined(prev, short, text_at, prev)
    if prev is not None:
        yield prev


def context_prefix(title: str, heading_path: tuple[str, ...]) -> str:
    """The chunk's context prefix: document title, then the heading path joined by ' > '."""
    parts = [title, *[h for h in heading_path if h and h != title]]
    return " > ".join(p.strip() for p in parts if p.strip())


# A character after which no boundary match can start or continue (not whitespace, not
# sentence or clause punctuation, not a closing quote): a window scanned from just after one
# finds exactly the boundaries the whole text has there (see ``_Window``).
_COMPACT_CHARS = 1 << 16  # forgotten text is dropped from the window once this long
_UNPLAIN = frozenset(".!?\"')]。！？；…”」』），、,;:：")


def _plain(ch: str) -> bool:
    return not ch.isspace() and ch not in _UNPLAIN


class _Window:
    """A sliding view of a text arriving in pieces: ``buf`` is ``text[base:base + len(buf)]``.

    Cut points are computed per window, from a scan start just after a "plain" character (so
    no boundary match crosses it, and the one-character lookbehinds see what they need) to one
    character past the window's last candidate (so a whitespace run ending inside the window
    is known to end there). Every boundary the chunker may use is therefore the one it would
    find in the whole text, and the spans are identical however the text is cut into pieces.
    """

    def __init__(self, pieces: Iterable[str]) -> None:
        self._pieces = iter(pieces)
        self.buf = ""
        self.base = 0
        self.eof = False

    @property
    def end(self) -> int:
        """Offset just past the text received so far."""
        return self.base + len(self.buf)

    def fill(self, upto: int) -> None:
        """Receive pieces until the text reaches offset ``upto`` or ends."""
        parts = [self.buf]
        size = self.end
        while not self.eof and size < upto:
            piece = next(self._pieces, None)
            if piece is None:
                self.eof = True
            else:
                parts.append(piece)
                size += len(piece)
        if len(parts) > 1:
            self.buf = "".join(parts)

    def text(self, start: int, end: int) -> str:
        """``text[start:end]`` (both in the window)."""
        return self.buf[start - self.base:end - self.base]

    def scan_start(self, start: int) -> int:
        """The last offset <= ``start`` just after a plain character (or the window's base)."""
        i = start - self.base
        while i > 0 and not _plain(self.buf[i - 1]):
            i -= 1
        return self.base + i

    def drop_before(self, offset: int) -> None:
        """Forget the text before ``offset`` (and its scan start's lookbehind character).

        The text is copied only once the part to forget is large, so that sliding by one
        chunk does not copy the whole window each time.
        """
        keep = max(self.base, self.scan_start(offset) - 1)
        if keep - self.base > max(_COMPACT_CHARS, len(self.buf) // 2):
            self.buf = self.buf[keep - self.base:]
            self.base = keep

    def cut_points(self, lo: int, hi: int, boundaries: Sequence[re.Pattern[str]] = _BOUNDARIES
                   ) -> list[list[int]]:
        """For each boundary kind, the sorted offsets in ``[lo, hi)`` where a piece may start.

        Offset 0 and the end of the text are never cut points.
        """
        rel_lo, rel_hi = lo - self.base, min(hi, self.end) - self.base
        total = self.end if self.eof else None
        return [sorted({self.base + m.end() for m in rx.finditer(self.buf, rel_lo, rel_hi)}
                       - {0, total}) for rx in boundaries]


def _best_cut(points: list[list[int]], lo: int, hi: int) -> tuple[int, int] | None:
    """The latest cut in (lo, hi] of the strongest kind that has one, with that kind's rank."""
    for rank, kind in enumerate(points):
        i = bisect_right(kind, hi)  # kind[:i] <= hi; binary search keeps long texts linear
        if i and kind[i - 1] > lo:
            return kind[i - 1], rank
    return None


def _first_start(points: list[list[int]], lo: int, hi: int) -> int | None:
    """The earliest cut in [lo, hi) of the strongest kind that has one."""
    for kind in points:
        i = bisect_left(kind, lo)
        if i < len(kind) and kind[i] < hi:
            return kind[i]
    return None


def iter_spans(pieces: Iterable[str], settings: ChunkSettings, *, wrapped: bool = False
               ) -> Iterator[tuple[int, int, str]]:
    """Spans of a text given in pieces, in windows of at most ``target_chars``.

    Consecutive spans overlap by about ``overlap_chars`` (never more). Spans are not yet
    stripped. Only a window of about ``target_chars + overlap_chars`` past the last piece
    boundary is held (more only across a long run of whitespace or punctuation), and the
    spans are the same however the text is cut into pieces. ``wrapped``: the text keeps a
    page's line breaks (a PDF's), so a line ending a sentence or a table row is cut at before
    a bare line break (``_WRAPPED_BOUNDARIES``), and the next span then starts there, with
    no overlap.

    Yields:
        ``(start, end, text[start:end])``, offsets in code points of the whole text.
    """
    target, overlap = settings.target_chars, settings.overlap_chars
    window = _Window(pieces)
    start = 0
    while True:
        window.fill(start + target + 1)
        if window.eof and window.end - start <= target:
            if window.end > start or start == 0:
                yield start, window.end, window.text(start, window.end)
            return
        # Candidates lie in (start + target // 2 - overlap, start + target], all after start.
        points = window.cut_points(window.scan_start(start), start + target + 1,
                                   _WRAPPED_BOUNDARIES if wrapped else _BOUNDARIES)
        cut = _best_cut(points, start + target // 2, start + target)
        end, rank = cut if cut else (start + target, len(points))
        yield start, end, window.text(start, end)
        if overlap == 0 or rank == 0 or wrapped and rank == 1:  # a paragraph's end, or a
            nxt = end  # PDF line ending a sentence: no overlap
        else:
            # Start the next window up to `overlap` characters back, at a sentence or word start.
            back = _first_start(points[2:], end - overlap, end)
            nxt = max(end - overlap if back is None else back, start + 1)
        start = nxt
        window.drop_before(start)


def split_spans(text: str, settings: ChunkSettings, *, wrapped: bool = False
                ) -> list[tuple[int, int]]:
    """Spans (start, end) covering ``text`` in windows of at most ``target_chars``.

    Consecutive spans overlap by about ``overlap_chars`` (never more). Spans are not yet
    stripped. ``wrapped``: as ``iter_spans``'s.
    """
    return [(s, e) for s, e, _ in iter_spans((text,), settings, wrapped=wrapped)]


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def chunk_stream(title: str, pieces: Iterable[str], settings: ChunkSettings = ChunkSettings()
                 ) -> Iterator[ChunkDraft]:
    """Chunk a one-block document whose text arrives in pieces, holding only a window of it.

    The chunks equal ``chunk_document`` of a document with that title and one block of
    ``"".join(pieces)`` (offsets into that text); the pieces are consumed as chunks are taken.
    """
    prefix = context_prefix(title, ())
    recent: list[tuple[int, str]] = []  # raw spans (start, text) a held-back chunk may need

    def drafts() -> Iterator[ChunkDraft]:
        for start, _end, text in iter_spans(pieces, settings):
            recent.append((start, text))
            stripped = text.strip()
            if not stripped or "\x00" in stripped:
                continue
            s = start + len(text) - len(text.lstrip())
            yield ChunkDraft(text=stripped, context_prefix=prefix, char_start=s,
                             char_end=s + len(stripped))

    def text_at(start: int, end: int) -> str:  # consecutive spans touch or overlap
        out, pos = [], start
        for s, text in recent:
            if s <= pos < s + len(text):
                out.append(text[pos - s:end - s])
                pos = min(end, s + len(text))
        return "".join(out)

    for draft in merge_short(drafts(), text_at, min_chunk_chars(settings)):
        yield draft
        while len(recent) > 1 and recent[1][0] <= draft.char_start:
            recent.pop(0)


def chunk_document(doc: ExtractedDocument, settings: ChunkSettings = ChunkSettings()
                   ) -> list[ChunkDraft]:
    """Chunk an extracted document.

    Args:
        doc: the extractor's output.
        settings: target and overlap sizes in code points.

    Returns:
        Chunks in reading order with offsets into ``doc.text``; none is empty or
        whitespace-only, none contains NUL, none is shorter than ``min_chunk_chars(settings)``
        unless the whole text is. Each has the first and last page its text is on (``page``,
        ``page_end``; ``None`` both for a document without pages).
    """
    full = doc.text
    # Offsets of each block in the joined text, then merge runs of small same-scope blocks.
    groups: list[tuple[int, int, tuple[str, ...], int | None]] = []
    pos = 0
    for block in doc.blocks:
        start, end = pos, pos + len(block.text)
        pos = end + len(BLOCK_SEPARATOR)
        last = groups[-1] if groups else None
        if (last and last[2] == block.heading_path and last[3] == block.page
                and end - last[0] <= settings.target_chars):
            groups[-1] = (last[0], end, last[2], last[3])
        else:
            groups.append((start, end, block.heading_path, block.page))
    chunks: list[ChunkDraft] = []
    for g_start, g_end, heading_path, page in groups:
        prefix = context_prefix(doc.title, heading_path)
        body = full[g_start:g_end]
        for s, e in split_spans(body, settings, wrapped=doc.source_type == "pdf"):
            s, e = _strip_span(body, s, e)
            text = body[s:e]
            if not text or "\x00" in text:
                continue
            chunks.append(ChunkDraft(text=text, context_prefix=prefix, char_start=g_start + s,
                                     char_end=g_start + e, page=page, heading_path=heading_path,
                                     page_end=page))
    return list(merge_short(chunks, lambda s, e: full[s:e], min_chunk_chars(settings)))
