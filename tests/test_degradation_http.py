"""Issue 5 acceptance through the whole engine: model servers down or silent."""

import time

import pytest
from conftest import write
from http_doubles import ModelServer, SilentServer

from kb.api import KnowledgeBase
from kb.config import Config

E5 = "intfloat/multilingual-e5-small"


def test_search_with_embedding_server_down_answers_bm25_quickly_and_says_so(tmp_path):
    docs = tmp_path / "docs"
    write(docs / "keys.txt", "Rotate the signing keys every ninety days using the vault.")
    write(docs / "food.txt", "The cafeteria serves soup on Mondays.")
    with ModelServer() as server:
        spec = f"openai:{server.url}/v1#{E5}"
        with KnowledgeBase(tmp_path / "kb.db", Config(embedder=spec)) as kb:
            report = kb.ingest([docs])
            assert report.vectors_pending == 0
            up = kb.search("rotate signing keys", decay=False)
            assert any(name.startswith("vector") for name, _ in up.diagnostics.candidates)
    # the server is gone now
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder=spec)) as kb:
        start = time.monotonic()
        down = kb.search("rotate signing keys", decay=False)
        elapsed = time.monotonic() - start
        assert elapsed < 3.0
        assert down.references and down.references[0].source.endswith("keys.txt")
        assert any("vectors" in d for d in down.diagnostics.degraded)
        assert not any(name.startswith("vector") for name, _ in down.diagnostics.candidates)
        # ingest with the server down stores text and marks vectors pending
        write(docs / "new.txt", "Backups run nightly at two.")
        report = kb.ingest([docs])
        assert report.count("added") == 1 and report.vectors_pending >= 1
        assert {d.status for d in kb.documents() if d.source.endswith("new.txt")} == {
            "pending_vectors"}


def test_a_search_says_which_chunks_have_no_vector_yet_until_they_have(tmp_path):
    docs = tmp_path / "docs"
    for name, text in (("keys", "Rotate the signing keys every ninety days using the vault."),
                       ("food", "The cafeteria serves soup on Mondays and fish on Fridays."),
                       ("bikes", "Bicycles are parked in the courtyard behind the library."),
                       ("mail", "Parcels are collected at the front desk until six.")):
        write(docs / f"{name}.txt", text)
    with ModelServer() as server:
        spec = f"openai:{server.url}/v1#{E5}"
        with KnowledgeBase(tmp_path / "kb.db", Config(embedder=spec)) as kb:
            kb.ingest([docs])
            assert not kb.search("rotate signing keys", decay=False).diagnostics.degraded
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder=spec)) as kb:  # server down
        write(docs / "new.txt", "Backups run nightly at two in the morning.")
        assert kb.ingest([docs]).vectors_pending == 1
    with ModelServer() as again, KnowledgeBase(  # the model is back (on another port)
            tmp_path / "kb.db", Config(embedder=f"openai:{again.url}/v1#{E5}")) as kb:
        result = kb.search("when do backups run", decay=False)
        assert result.references[0].source.endswith("new.txt")  # found by its keywords
        assert result.diagnostics.degraded == (
            f"vectors: 1 of 5 chunks have no vector from openai:{E5} yet and are found by "
            "keywords alone (an ingest still running adds them; else run the ingest again, or "
            "`kb reembed`)",)
        assert any(name.startswith("vector") for name, _ in result.diagnostics.candidates)
        kb.reembed()
        assert not kb.search("when do backups run", decay=False).diagnostics.degraded


def test_with_a_third_of_the_chunks_waiting_for_vectors_a_search_is_bm25_only(tmp_path):
    docs = tmp_path / "docs"
    write(docs / "keys.txt", "Rotate the signing keys every ninety days using the vault.")
    write(docs / "food.txt", "The cafeteria serves soup on Mondays and fish on Fridays.")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder=f"openai:http://127.0.0.1:9/v1#{E5}")
                       ) as kb:  # no server: text only, both chunks wait
        assert kb.ingest([docs]).vectors_pending == 2
    with ModelServer() as server, KnowledgeBase(
            tmp_path / "kb.db", Config(embedder=f"openai:{server.url}/v1#{E5}")) as kb:
        kb.reembed()
        write(docs / "new.txt", "Backups run nightly at two in the morning.")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder=f"openai:http://127.0.0.1:9/v1#{E5}")
                       ) as kb:
        assert kb.ingest([docs]).vectors_pending == 1  # 1 of 3: past the share
    with ModelServer() as server, KnowledgeBase(
            tmp_path / "kb.db", Config(embedder=f"openai:{server.url}/v1#{E5}")) as kb:
        result = kb.search("when do backups run", decay=False)
        assert result.diagnostics.degraded == (
            f"vectors: 1 of 3 chunks have no vector from openai:{E5} yet, too many to mix "
            "with keywords (an ingest still running adds them; else run the ingest again, or "
            "`kb reembed`); BM25 only",)
        assert not any(name.startswith("vector") for name, _ in result.diagnostics.candidates)
        assert result.references[0].source.endswith("new.txt")


@pytest.mark.slow  # waits out the query-time cap
def test_a_silent_llm_cannot_stall_a_search_past_its_cap(tmp_path):
    write(tmp_path / "a.txt", "Glaciers retreat when summers warm.")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        kb.ingest([tmp_path / "a.txt"])  # ingest-time LLM calls wait longer (cold model load)
    with SilentServer() as silent:
        config = Config(embedder="none", llm=f"openai:{silent.url}/v1#tiny")
        with KnowledgeBase(tmp_path / "kb.db", config) as kb:
            start = time.monotonic()
            result = kb.search("why do glaciers retreat", decay=False)
            elapsed = time.monotonic() - start
    assert elapsed < 3.5  # one capped helper call (2.5 s), then MMR without the LLM
    assert result.references and result.diagnostics.queries == ("why do glaciers retreat",)
    assert any("LLM" in d for d in result.diagnostics.degraded)


def test_vectors_come_back_when_the_breaker_closes_after_its_cooldown(tmp_path):
    """Issue 5 acceptance 1, second half, through the engine: down -> BM25, back -> vectors."""
    from http_doubles import FakeClock, Reply

    from kb.backends.http import NO_RETRY
    from kb.backends.openai import OpenAIEmbedder

    error = Reply(500, b'{"error": {"message": "model unloaded", "type": "server_error"}}')
    write(tmp_path / "docs" / "keys.txt", "Rotate the signing keys every ninety days.")
    write(tmp_path / "docs" / "food.txt", "The cafeteria serves soup on Mondays.")
    clock = FakeClock()
    with ModelServer() as server:
        embedder = OpenAIEmbedder(f"{server.url}/v1", E5, retry=NO_RETRY, clock=clock,
                                  dimensions=384)
        with KnowledgeBase(tmp_path / "kb.db", embedder=embedder) as kb:
            kb.ingest([tmp_path / "docs"])

            asked = iter(["rotate signing keys", "signing keys rotation", "when to rotate keys",
                          "key rotation schedule", "rotate the keys", "keys rotated how often"])

            def vector_lists():  # a new query each time: query embeddings are cached
                result = kb.search(next(asked), decay=False)
                assert result.references[0].source.endswith("keys.txt")
                return [n for n, _ in result.diagnostics.candidates if n.startswith("vector")]

            assert vector_lists() == ["vector:0"]
            server.script = [error, error]  # the server goes down: two failures open the circuit
            assert vector_lists() == [] and vector_lists() == []
            calls = len(server.requests)
            assert vector_lists() == [] and len(server.requests) == calls  # open: not called
            clock.advance(59.0)
            assert vector_lists() == [] and len(server.requests) == calls
            clock.advance(1.0)  # the cooldown is over: half-open, one call goes through
            assert vector_lists() == ["vector:0"] and embedder.breaker.state == "closed"
