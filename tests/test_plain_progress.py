"""A long embedding with stderr not a terminal (a pipe, a cron log) is said in a few lines.

A new-user trial ingested a 30 MB one-line file through a pipe: 89,000 chunks, about 100
minutes of embedding, without a word. ``PlainProgress`` says when such an embedding starts and
what is done every five minutes; a short one says nothing, as before.
"""

from __future__ import annotations

import pytest

from kb.cli.progress import LONG_EMBED_CHUNKS, REPORT_EVERY_S, PlainProgress


def test_a_long_embedding_is_said_when_it_starts_then_every_five_minutes(
        capsys: pytest.CaptureFixture[str]) -> None:
    now = [100.0]
    shown = PlainProgress(clock=lambda: now[0])
    shown.on_file("/notes/big.txt")  # files are named by the report, not here
    shown.on_progress("files", 1, 1)
    shown.on_progress("vectors", 0, 89_000)
    now[0] += 60
    shown.on_progress("vectors", 900, 89_000)  # within five minutes: nothing
    now[0] += REPORT_EVERY_S - 60
    shown.on_progress("vectors", 4_500, 89_000)  # 4,500 in 300 s: 15 chunks/s
    now[0] += 10
    shown.on_progress("vectors", 4_650, 89_000)
    now[0] += REPORT_EVERY_S
    shown.on_progress("vectors", 89_000, 89_000)  # done: the report says the rest
    assert capsys.readouterr().err.splitlines() == [
        "kb: embedding 89,000 chunks; a line every 5 minutes (Ctrl-C stops: the same command "
        "resumes)",
        "kb: embedded 4,500 of 89,000 chunks (15.0 chunks/s, about 94 min left)"]


def test_a_short_or_resumed_embedding_says_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    shown = PlainProgress(clock=lambda: 0.0)
    shown.on_progress("vectors", 0, LONG_EMBED_CHUNKS - 1)
    shown.on_progress("vectors", 5_000, 5_000 + LONG_EMBED_CHUNKS - 1)  # little left
    shown.on_progress("files", 0, 50_000)
    assert capsys.readouterr().err == ""
    shown.on_progress("re-embed", 0, LONG_EMBED_CHUNKS)
    assert capsys.readouterr().err.startswith(f"kb: embedding {LONG_EMBED_CHUNKS:,} chunks")
