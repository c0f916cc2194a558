"""Cut an extracted document into chunks: structure first, then a recursive fallback.

1. Structure: every block (a section under one heading path, a page, a table) is chunked on its
   own, so no chunk straddles two headings or two pages; consecutive small blocks that share
   heading path and page are merged up to the target size.
2. Recursive fallback for a block longer than ``target_chars``: cut at the strongest boundary in
   the last half of the window — paragraph break, then line break, then sentence end (Latin
   ``.!?`` and CJK ``。！？；…``), then whitespace, then any character — in the spirit of
   LangChain's RecursiveCharacterTextSplitter. The next chunk starts ``overlap_chars`` before
   the cut, moved forward to a sentence or word start when one is near.

Sizes are measured in code points. Chunk text is always ``extracted_text[char_start:char_end]``,
stripped of surrounding whitespace, never empty.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from kb.config import ChunkSettings
from kb.types import BLOCK_SEPARATOR, ChunkDraft, ExtractedDocument

# Boundary kinds, strongest first; each regex matches the gap *after which* a cut may fall.
_BOUNDARIES: tuple[re.Pattern[str], ...] = (
    re.compile(r"\n[ \t]*\n\s*"),
    re.compile(r"\n\s*"),
    re.compile(r"(?<=[.!?])[\"')\]]?\s+|(?<=[。！？；…])[”」』）]?\s*"),
    re.compile(r"\s+|(?<=[，、,;:：])"),
)


def context_prefix(title: str, heading_path: tuple[str, ...]) -> str:
    """The chunk's context prefix: document title, then the heading path joined by ' > '."""
    parts = [title, *[h for h in heading_path if h and h != title]]
    return " > ".join(p.strip() for p in parts if p.strip())


def _cut_points(text: str) -> list[list[int]]:
    """For each boundary kind, the sorted offsets where a new piece may start."""
    return [sorted({m.end() for m in rx.finditer(text) if 0 < m.end() < len(text)})
            for rx in _BOUNDARIES]


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


def split_spans(text: str, settings: ChunkSettings) -> list[tuple[int, int]]:
    """Spans (start, end) covering ``text`` in windows of at most ``target_chars``.

    Consecutive spans overlap by about ``overlap_chars`` (never more). Spans are not yet
    stripped.
    """
    target, overlap = settings.target_chars, settings.overlap_chars
    if len(text) <= target:
        return [(0, len(text))]
    points = _cut_points(text)
    spans = []
    start = 0
    while start < len(text):
        if len(text) - start <= target:
            spans.append((start, len(text)))
            break
        cut = _best_cut(points, start + target // 2, start + target)
        end, rank = cut if cut else (start + target, len(points))
        spans.append((start, end))
        if overlap == 0 or rank == 0:  # a paragraph break needs no overlap
            start = end
            continue
        # Start the next window up to `overlap` characters back, at a sentence or word start.
        back = _first_start(points[2:], end - overlap, end)
        start = max(end - overlap if back is None else back, start + 1)
    return spans


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def chunk_document(doc: ExtractedDocument, settings: ChunkSettings = ChunkSettings()
                   ) -> list[ChunkDraft]:
    """Chunk an extracted document.

    Args:
        doc: the extractor's output.
        settings: target and overlap sizes in code points.

    Returns:
        Chunks in reading order with offsets into ``doc.text``; none is empty or
        whitespace-only, none contains NUL.
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
    chunks = []
    for g_start, g_end, heading_path, page in groups:
        prefix = context_prefix(doc.title, heading_path)
        body = full[g_start:g_end]
        for s, e in split_spans(body, settings):
            s, e = _strip_span(body, s, e)
            text = body[s:e]
            if not text or "\x00" in text:
                continue
            chunks.append(ChunkDraft(text=text, context_prefix=prefix, char_start=g_start + s,
                                     char_end=g_start + e, page=page, heading_path=heading_path))
    return chunks
