"""Situating sentences at ingest (Contextual Retrieval, DESIGN 3.3), over the real wire protocols.

The LLM is ``http_doubles.ModelServer``: a situating prompt gets "This chunk is part of the
document that begins «FIRST LINE»." So a chunk whose text never names the company on the
document's first line becomes findable by that name, through its prefix alone.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import write
from http_doubles import ModelServer, Reply

from kb.api import KnowledgeBase
from kb.backends.http import Timeouts
from kb.backends.registry import make_llm
from kb.cli import cli
from kb.config import Config
from kb.ingest.contextualize import (
    GAP_MARK,
    MAX_CHUNK_CHARS,
    MAX_CHUNKS,
    MAX_DOCUMENT_CHARS,
    MAX_SENTENCE_CHARS,
    clean_sentence,
    document_excerpt,
    situate_chunks,
)
from kb.ingest.extract.common import cut_at_word
from kb.types import ChunkDraft

pytestmark = pytest.mark.slow  # real ingests with LLM doubles behind HTTP, timeouts


FILING = (
    "Zorblatt Industries files this quarterly report with the regulator.\n\n"
    + "The board met four times during the period and approved the dividend policy. " * 4
    + "\n\nRevenue grew by 3% over the previous quarter, driven by exports of pumps.\n\n"
    + "Headcount remained stable at roughly two thousand employees across all sites. " * 3
)


def _prefixes(kb: KnowledgeBase) -> dict[str, str]:
    """Chunk text -> stored context prefix."""
    return dict(kb.store.conn.execute("SELECT text, context_prefix FROM chunks").fetchall())


def _chat_requests(server: ModelServer) -> int:
    return sum(1 for p in server.paths() if p in ("/v1/chat/completions", "/api/chat"))


# --- the pure stage -----------------------------------------------------------------------------


def test_document_excerpt_stays_within_the_budget() -> None:
    short = "a" * 100
    assert document_excerpt(short, 10, 20) == short
    text = "".join(f"{i:05d} " for i in range(5000))  # 30,000 characters
    assert document_excerpt(text, 100, 500) == text[:MAX_DOCUMENT_CHARS]  # chunk in the opening
    far = document_excerpt(text, 20_000, 20_400)
    head, tail = far.split(GAP_MARK)
    assert head == text[:MAX_DOCUMENT_CHARS // 2]
    assert tail == text[20_400 - MAX_DOCUMENT_CHARS // 2:20_400]  # ends with the chunk
    assert len(head) + len(tail) == MAX_DOCUMENT_CHARS


def test_clean_sentence_is_one_capped_line_without_nul() -> None:
    assert clean_sentence('  "Part of\nthe\x00 2024 filing."\n\n') == "Part of the 2024 filing."
    long = clean_sentence("word " * 200)
    assert long is not None and len(long) <= MAX_SENTENCE_CHARS and long.endswith("…")
    assert "\n" not in long
    assert clean_sentence(" \n\t ") is None and clean_sentence("[]") is None


def test_cut_at_word_is_the_one_cap_of_sentences_and_image_descriptions() -> None:
    assert cut_at_word("short enough", 12) == "short enough"
    assert cut_at_word("alpha beta, gamma delta", 14) == "alpha beta…"  # no dangling comma
    assert cut_at_word("x" * 20, 10) == "x" * 9 + "…"  # no space: cut at the limit
    assert all(len(cut_at_word("word " * 50, n)) <= n for n in range(2, 60))


def test_situate_chunks_keeps_the_budget_and_counts_what_lacks_a_sentence() -> None:
    text = "x" * 90_000
    chunks = [ChunkDraft(text="y" * (1500 if i == 3 else 300), context_prefix="Doc",
                         char_start=i * 300, char_end=i * 300 + 300) for i in range(250)]
    prompts: list[str] = []

    def complete(prompt: str) -> str:
        prompts.append(prompt)
        if len(prompts) in (5, 6):
            raise ConnectionError("refused")
        return "" if len(prompts) == 7 else f"Sentence {len(prompts)}."

    out = situate_chunks(text, chunks, complete)
    assert len(prompts) == MAX_CHUNKS  # the first 200 chunks only
    assert all(len(p) < MAX_DOCUMENT_CHARS + MAX_CHUNK_CHARS + 800 for p in prompts)
    assert "y" * MAX_CHUNK_CHARS in prompts[3] and "y" * (MAX_CHUNK_CHARS + 1) not in prompts[3]
    assert out.situated == MAX_CHUNKS - 3
    assert out.chunks[0].context_prefix == "Doc\nSentence 1."
    assert out.chunks[4].context_prefix == "Doc" and out.sentences[4] is None  # failed
    assert all(c.context_prefix == "Doc" for c in out.chunks[MAX_CHUNKS:])
    assert [c.text for c in out.chunks] == [c.text for c in chunks]  # the raw text is kept
    missing, seen, cut = out.warnings
    assert missing.startswith("53 of 250 chunks lack a situating sentence")
    assert "50 past the first 200 chunks (DESIGN 3.3 budget)" in missing
    assert "2 LLM calls failed (first: ConnectionError: refused)" in missing
    assert "1 empty replies" in missing
    assert "at most 6,000 of the document's 90,000 characters" in seen
    assert cut.startswith("1 chunks were cut to 1,200 characters")


# --- through the engine, over the wire ------------------------------------------------------------


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_a_situating_sentence_makes_a_chunk_findable_and_citations_stay_raw(
        tmp_path, monkeypatch, provider) -> None:
    write(tmp_path / "docs" / "filing.txt", FILING)
    with ModelServer() as server:
        if provider == "openai":
            config = Config(embedder="none", llm=f"openai:{server.url}/v1#tiny")
        else:
            config = Config(embedder="none", llm="ollama:tiny", ollama_host=server.url)
        with KnowledgeBase(tmp_path / "kb.db", config) as kb:
            report = kb.ingest([tmp_path / "docs"])
            assert report.count("added") == 1 and report.outcomes[0].warnings == ()
            calls = _chat_requests(server)
            assert calls == report.chunks == 2
            prefixes = _prefixes(kb)
            revenue = next(t for t in prefixes if t.startswith("Revenue grew"))
            assert "Zorblatt" not in revenue
            title, sentence = prefixes[revenue].split("\n")
            assert title == "filing"
            assert sentence == ("This chunk is part of the document that begins «Zorblatt "
                                "Industries files this quarterly report with the regulator.».")
            result = kb.search("Zorblatt revenue", decay=False)
            top = result.references[0]
            assert top.text == revenue  # found through its sentence, cited raw
            assert FILING[top.char_start:top.char_end] == top.text
            assert "This chunk" not in result.context
            # A re-ingest of the unchanged file asks nothing and writes nothing.
            before = _chat_requests(server)
            assert kb.ingest([tmp_path / "docs"]).count("unchanged") == 1
            assert _chat_requests(server) == before
            assert _prefixes(kb) == prefixes
    # The control: without an LLM the same chunk cannot be found by that name.
    with KnowledgeBase(tmp_path / "plain.db", Config(embedder="none")) as plain:
        report = plain.ingest([tmp_path / "docs"])
        assert not any("situating" in w or "LLM" in w for w in report.warnings)  # optional
        refs = plain.search("Zorblatt", decay=False).references
        assert refs and all("Zorblatt" in r.text for r in refs)


def test_a_changed_file_reuses_cached_sentences(tmp_path) -> None:
    doc = write(tmp_path / "docs" / "filing.txt", FILING)
    with ModelServer() as server:
        config = Config(embedder="none", llm=f"openai:{server.url}/v1#tiny")
        with KnowledgeBase(tmp_path / "kb.db", config) as kb:
            kb.ingest([doc])
            before = _chat_requests(server)
            doc.write_text(FILING.replace("pumps", "valves"), encoding="utf-8")
            report = kb.ingest([doc])
            assert report.count("updated") == 1
            # the first chunk's prompt (whole document + chunk) changed with the text; the
            # prompts of unchanged document text would come from llm_cache
            assert _chat_requests(server) - before == 2
            kb.remove(str(doc))  # forget the file, keep the cache
            report = kb.ingest([doc])
            assert report.count("added") == 1
            assert _chat_requests(server) - before == 2  # both sentences from llm_cache
            assert all("\n" in p for p in _prefixes(kb).values())


def test_a_long_document_warns_about_the_budget(tmp_path) -> None:
    paragraphs = [f"Paragraph {i} notes that sample {i} weighed {i * 7} grams on the scale "
                  "in the northern laboratory of the station, after drying overnight at low "
                  "heat; the technician repeated the weighing twice and logged the mean, the "
                  "spread and the room temperature, as the survey protocol demands."
                  for i in range(230)]  # one chunk each (two exceed the 400-character target)
    write(tmp_path / "long.txt", "Bathymetry survey log\n\n" + "\n\n".join(paragraphs))
    with ModelServer() as server:
        config = Config(embedder="none", llm=f"openai:{server.url}/v1#tiny")
        with KnowledgeBase(tmp_path / "kb.db", config) as kb:
            report = kb.ingest([tmp_path / "long.txt"])
            outcome = report.outcomes[0]
            assert outcome.chunks > MAX_CHUNKS
            assert _chat_requests(server) == MAX_CHUNKS
            warnings = " | ".join(outcome.warnings)
            assert f"{outcome.chunks - MAX_CHUNKS} of {outcome.chunks} chunks lack a " \
                   "situating sentence" in warnings
            assert "past the first 200 chunks (DESIGN 3.3 budget)" in warnings
            assert "the LLM saw at most 6,000 of the document's" in warnings
            rows = kb.store.conn.execute(
                "SELECT chunk_index, context_prefix FROM chunks ORDER BY chunk_index").fetchall()
            assert all(("\n" in p) == (i < MAX_CHUNKS) for i, p in rows)
            stored = kb.documents()[0].warnings
            assert any("past the first 200 chunks" in w for w in stored)  # kb docs shows it
            # what the budget leaves out is final: the file is not redone
            assert kb.documents()[0].status != "pending_models"
            assert kb.ingest([tmp_path / "long.txt"]).count("unchanged") == 1
            assert _chat_requests(server) == MAX_CHUNKS
    result = CliRunner().invoke(cli, ["--db", str(tmp_path / "kb.db"), "--embedder", "none",
                                      "docs", "--json"])
    assert "DESIGN 3.3 budget" in json.loads(result.output.splitlines()[0])["warnings"][0]


REFUSED = Reply(401, b'{"error": {"message": "invalid api key", "type": "auth_error"}}')


def test_a_failing_llm_server_costs_sentences_not_the_ingest(tmp_path) -> None:
    for i in range(6):
        write(tmp_path / "docs" / f"note{i}.txt", f"Note {i}: the tide gauge {i} was "
              "recalibrated after the storm. " * 20)
    with ModelServer() as server:
        server.script = [REFUSED] * 100  # every request that reaches it fails
        config = Config(embedder="none", llm=f"openai:{server.url}/v1#tiny")
        with KnowledgeBase(tmp_path / "kb.db", config) as kb:
            report = kb.ingest([tmp_path / "docs"])
            assert report.count("added") == 6 and report.count("failed") == 0
            assert report.chunks >= 12
            # two failures open the circuit: no later call reaches the server
            assert _chat_requests(server) == 2
            for o in report.outcomes:
                assert o.warnings and o.warnings[0].startswith(
                    f"{o.chunks} of {o.chunks} chunks lack a situating sentence")
            assert "circuit open" in " ".join(report.outcomes[-1].warnings)
            assert any("6 of 6 documents in the index have no situating sentences" in w
                       for w in report.warnings)
            assert all("\n" not in p for p in _prefixes(kb).values())
            assert kb.search("tide gauge recalibrated", decay=False).references


def test_a_silent_llm_is_cut_off_by_the_breaker(tmp_path) -> None:
    for i in range(4):
        write(tmp_path / "docs" / f"n{i}.txt", f"Log {i}: the anemometer spun. " * 30)
    with ModelServer() as server:
        server.script = [Reply(delay_s=5)] * 100  # answers long after the 0.5 s read timeout
        llm = make_llm(f"openai:{server.url}/v1#tiny", timeouts=Timeouts(read_s=0.5))
        with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none"), llm=llm) as kb:
            report = kb.ingest([tmp_path / "docs"])
        assert _chat_requests(server) == 2  # two timed-out calls, then the circuit is open
    assert report.count("added") == 4 and report.chunks >= 8
    text = " ".join(w for o in report.outcomes for w in o.warnings)
    assert "no answer within 0.5 s" in text and "circuit open" in text


def test_an_interrupted_ingest_keeps_the_text_and_redoes_the_file(tmp_path) -> None:
    doc = write(tmp_path / "filing.txt", FILING)
    with ModelServer() as server:
        real = make_llm(f"openai:{server.url}/v1#tiny")

        class CtrlC:
            model_id = real.model_id

            def complete(self, prompt: str, *, timeout_s: float) -> str:
                raise KeyboardInterrupt  # the user stops the ingest mid-way

        with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none"), llm=CtrlC()) as kb:
            with pytest.raises(KeyboardInterrupt):
                kb.ingest([doc])
        with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
            assert kb.search("Revenue grew", decay=False).references  # text stored first
            assert "not finished" in kb.documents()[0].warnings[-1]
        with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none"), llm=real) as kb:
            report = kb.ingest([doc])
            assert report.count("updated") == 1  # not skipped as unchanged
            assert all("\n" in p for p in _prefixes(kb).values())
            assert kb.documents()[0].warnings == ()


def test_mixed_prefixes_are_reported_both_ways(tmp_path) -> None:
    write(tmp_path / "docs" / "a.txt", "Anchors hold the buoy in place.")
    with ModelServer() as server:
        llm_config = Config(embedder="none", llm=f"openai:{server.url}/v1#tiny")
        with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
            report = kb.ingest([tmp_path / "docs"])
        assert report.warnings == ("no embedder configured: text indexed for BM25 only",)
        write(tmp_path / "docs" / "b.txt", "Buoys carry a light and a bell.")
        with KnowledgeBase(tmp_path / "kb.db", llm_config) as kb:
            report = kb.ingest([tmp_path / "docs"])
            assert report.count("unchanged") == 1 and report.count("added") == 1
            assert _chat_requests(server) == 1  # a.txt was not read again
        assert any(w.startswith("1 of 2 documents in the index have no situating sentences")
                   for w in report.warnings)
        write(tmp_path / "docs" / "c.txt", "Chains rust in salt water.")
        with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
            report = kb.ingest([tmp_path / "docs"])
        assert any("prefixes are mixed: 1 of 3 documents" in w for w in report.warnings)


def test_cli_llm_option_situates_at_ingest(tmp_path) -> None:
    write(tmp_path / "docs" / "filing.txt", FILING)
    db = str(tmp_path / "kb.db")
    with ModelServer() as server:
        env = {"KB_EMBEDDER": "none", "KB_LLM": f"openai:{server.url}/v1#tiny"}
        runner = CliRunner()
        r = runner.invoke(cli, ["--db", db, "ingest", str(tmp_path / "docs")], env=env)
        assert r.exit_code == 0, r.output
        assert "no LLM configured" not in r.output
        r = runner.invoke(cli, ["--db", db, "search", "Zorblatt revenue", "--json"],
                          env={"KB_EMBEDDER": "none"})
    refs = json.loads(r.output)["references"]
    assert refs[0]["text"].startswith("Revenue grew") and "Zorblatt" not in refs[0]["text"]
