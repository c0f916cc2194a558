"""Plain text is ingested in bounded pieces (issue 11, item 4).

A 100 MB text file used to be read, decoded, chunked and written whole (1.5 GB peak RSS);
now it is streamed: the chunks must be exactly those of the whole-text algorithm (offsets
included), a document must still replace its old version atomically, and memory must not
grow with the file (the 100 MB figure is measured in bench/README.md).
"""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
from bisect import bisect_left, bisect_right
from pathlib import Path

import pytest

from kb.api import KnowledgeBase
from kb.config import ChunkSettings, Config
from kb.ingest.chunk import _BOUNDARIES, chunk_document, chunk_stream, iter_spans
from kb.ingest.extract.text import extract_text, iter_text
from kb.types import BLOCK_SEPARATOR

pytestmark = pytest.mark.slow  # texts of megabytes chunked whole and in pieces; a memory probe


ALPHABET = ["a", "b", " ", "  ", "\n", "\n\n", "\n \n", ".", ". ", "!", '"', ")", "。", "，",
            ",", ";", "”", "汉", "\t", "…", "  \n\n  ", " " * 300, "word", "kite", "x"]


def reference_spans(text: str, settings: ChunkSettings) -> list[tuple[int, int]]:
    """The whole-text algorithm as it was before streaming (cut points over all the text)."""
    target, overlap = settings.target_chars, settings.overlap_chars
    if len(text) <= target:
        return [(0, len(text))]
    points = [sorted({m.end() for m in rx.finditer(text) if 0 < m.end() < len(text)})
              for rx in _BOUNDARIES]

    def best(lo: int, hi: int) -> tuple[int, int] | None:
        for rank, kind in enumerate(points):
            i = bisect_right(kind, hi)
            if i and kind[i - 1] > lo:
                return kind[i - 1], rank
        return None

    def first(lo: int, hi: int) -> int | None:
        for kind in points[2:]:
            i = bisect_left(kind, lo)
            if i < len(kind) and kind[i] < hi:
                return kind[i]
        return None

    spans, start = [], 0
    while start < len(text):
        if len(text) - start <= target:
            spans.append((start, len(text)))
            break
        cut = best(start + target // 2, start + target)
        end, rank = cut if cut else (start + target, len(points))
        spans.append((start, end))
        if overlap == 0 or rank == 0:
            start = end
            continue
        back = first(end - overlap, end)
        start = max(end - overlap if back is None else back, start + 1)
    return spans


def _pieces(rng: random.Random, text: str, cuts: int) -> list[str]:
    points = sorted(rng.sample(range(len(text) + 1), min(cuts, len(text) + 1)))
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


@pytest.mark.parametrize("settings", [ChunkSettings(), ChunkSettings(target_chars=50,
                                      overlap_chars=10), ChunkSettings(target_chars=100,
                                      overlap_chars=0)])
def test_spans_of_a_text_in_pieces_are_those_of_the_whole_text(settings):
    rng = random.Random(11)
    for _ in range(300):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 2500)))
        expected = reference_spans(text, settings)
        for cuts in (0, 3, 40):
            got = list(iter_spans(_pieces(rng, text, cuts), settings))
            assert [(s, e) for s, e, _ in got] == expected
            assert all(t == text[s:e] for s, e, t in got)


def test_long_texts_slide_the_window_without_changing_a_span():
    rng = random.Random(12)
    text = "".join(rng.choice(ALPHABET) for _ in range(120_000))  # past the window's compaction
    expected = reference_spans(text, ChunkSettings())
    got = [(s, e) for s, e, _ in iter_spans(_pieces(rng, text, 60), ChunkSettings())]
    assert got == expected


def test_a_streamed_text_file_chunks_like_the_whole_document(tmp_path, monkeypatch):
    import kb.ingest.extract.text as text_module

    rng = random.Random(13)
    body = "".join(rng.choice(["Kites fly. ", "Box kite\r\n", "\r\n\r\n", "风筝。", "x\x00",
                               "\t", "  "]) for _ in range(20_000))
    path = tmp_path / "notes.txt"
    path.write_bytes(("\r\n\n" + body + " \r\n").encode("utf-16"))
    monkeypatch.setattr(text_module, "PIECE_BYTES", 4096)  # many pieces, a CR at some cuts
    doc = extract_text(path)
    whole = chunk_document(doc, ChunkSettings())
    pieces = list(iter_text(path))
    assert len(pieces) > 20
    streamed = list(chunk_stream(doc.title, pieces, ChunkSettings()))
    assert streamed == whole
    full = BLOCK_SEPARATOR.join(b.text for b in doc.blocks)
    assert all(c.text == full[c.char_start:c.char_end] for c in streamed)


def test_a_decoding_error_half_way_keeps_the_old_version(tmp_path):
    path = tmp_path / "report.txt"
    path.write_text("风筝的历史很长。" * 10, encoding="gb18030")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        assert kb.ingest([path]).outcomes[0].action == "added"
        before = kb.documents()[0]
        # 9 MiB of valid GB18030 (the encoding is detected on the first 8 MiB), then a byte
        # no GB18030 sequence starts with.
        good = ("纸鸢与风筝。" * 800_000).encode("gb18030")[: 9 * 2**20]
        path.write_bytes(good + b"\xff\xff tail")
        outcome = kb.ingest([path]).outcomes[0]
        assert outcome.action == "failed"
        assert f"not valid gb18030 at byte {len(good)}" in outcome.reason
        assert "the version indexed earlier is still searched" in outcome.reason
        after = kb.documents()[0]
        assert (after.id, after.content_hash, after.chunk_count) == (
            before.id, before.content_hash, before.chunk_count)
    conn = sqlite3.connect(tmp_path / "kb.db")
    assert conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0] == before.chunk_count
    conn.close()


def _peak_mib(tmp_path: Path, megabytes: int) -> float:
    """Peak RSS of a process that ingests a text file of ``megabytes`` MB, in MiB."""
    rng = random.Random(14)
    words = ["kite", "harbour", "lantern", "orchard", "copper", "meadow", "signal", "river"]
    path = tmp_path / f"text-{megabytes}.txt"
    with path.open("w", encoding="utf-8") as fh:
        fh.write("风筝的历史很长。\n\n")  # loads jieba's dictionary, as any Chinese text does
        for _ in range(megabytes * 2**20 // 4000):
            fh.write(" ".join(rng.choice(words) for _ in range(570)) + ".\n\n")
    script = ("import resource, sys\nfrom kb.api import KnowledgeBase\nfrom kb.config import "
              "Config\nwith KnowledgeBase(sys.argv[1], Config(embedder='none')) as kb:\n"
              "    report = kb.ingest([sys.argv[2]])\nassert report.outcomes[0].action == "
              "'added', report\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / f"{megabytes}.db"),
                           str(path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1]) / 1024


def test_peak_memory_does_not_grow_with_a_text_file(tmp_path):
    small, large = _peak_mib(tmp_path, 3), _peak_mib(tmp_path, 30)
    # Whole-text ingest held about 14 bytes per byte of text: 27 MB more cost ~370 MiB more.
    assert large - small < 40, (small, large)
