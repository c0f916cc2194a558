"""OpenAI-compatible and TEI backends: the real httpx client code against in-process servers.

Embeddings are served by the real packaged e5 model, chat by a deterministic responder
(``tests/http_doubles.py``).
"""

import json
import time

import numpy as np
import pytest
from http_doubles import (
    FakeClock,
    Reply,
    SilentServer,
    assert_same_vectors,
    chat_reply,
    closed_port_url,
)

from kb.backends import LLM, Embedder, Reranker
from kb.backends.http import MAX_COMPLETION_TOKENS, NO_RETRY, RetryPolicy, Timeouts
from kb.backends.openai import HttpReranker, OpenAIChat, OpenAIEmbedder
from kb.backends.registry import make_embedder, make_llm, make_reranker
from kb.backends.remote import E5_PROMPT
from kb.errors import BackendError, BackendUnavailable

E5 = "intfloat/multilingual-e5-small"
FAST_RETRY = RetryPolicy(retries=2, backoff_s=0.01)
TEXTS = ["Rotate the API keys every 90 days.", "The cafeteria opens at 8 am.",
         "Backups run nightly at 2 am.", "Vacation requests go to your manager.",
         "Keys are stored in the vault."]
ERROR_500 = Reply(500, b'{"error": {"message": "internal error", "type": "server_error"}}')


def embedder(srv, **kwargs) -> OpenAIEmbedder:
    kwargs.setdefault("dimensions", 384)
    kwargs.setdefault("retry", FAST_RETRY)
    return OpenAIEmbedder(f"{srv.url}/v1", E5, **kwargs)


# --- success paths -----------------------------------------------------------------------------

def test_embedder_from_spec_probes_dimensions_and_matches_the_local_model(srv, local):
    e = make_embedder(f"openai:{srv.url}/v1#{E5}", retry=FAST_RETRY)
    assert isinstance(e, Embedder)
    assert (e.model_id, e.dimensions, e.prompt_format, e.max_tokens) == (
        f"openai:{E5}", 384, E5_PROMPT, None)
    assert srv.paths() == ["/v1/embeddings"]  # one probe
    docs = e.embed_documents(TEXTS)  # the double returns data[] reversed: order by index
    assert docs.dtype == np.float32 and docs.shape == (5, 384)
    assert_same_vectors(docs, local.embed_documents(TEXTS))
    assert_same_vectors(e.embed_query("how often are keys rotated?"),
                        local.embed_query("how often are keys rotated?"))
    _, body = srv.requests[1]
    assert body["model"] == E5 and body["input"][0] == f"passage: {TEXTS[0]}"
    assert e.embed_documents([]).shape == (0, 384)
    assert e.token_count("anything") is None


def test_chat_completion(srv):
    llm = make_llm(f"openai:{srv.url}/v1#qwen2.5-3b")
    assert isinstance(llm, LLM) and llm.model_id == "openai:qwen2.5-3b"
    prompt = "Rewrite the query: 密钥轮换"
    assert llm.complete(prompt, timeout_s=2.5) == chat_reply("qwen2.5-3b", prompt)
    path, body = srv.requests[0]
    assert path == "/v1/chat/completions"
    assert body["stream"] is False and body["temperature"] == 0
    assert body["max_tokens"] == MAX_COMPLETION_TOKENS  # a looping small model cannot run on
    assert body["messages"] == [{"role": "user", "content": prompt}]


@pytest.mark.parametrize("spec", ["openai:{url}/v1#bge-reranker", "tei:{url}#bge-reranker"])
def test_rerank_shapes_score_in_unit_range(srv, spec):
    reranker = make_reranker(spec.format(url=srv.url))
    assert isinstance(reranker, Reranker)
    scores = reranker.score("how often should keys be rotated?", TEXTS)
    assert len(scores) == len(TEXTS) and all(0.0 <= s <= 1.0 for s in scores)
    assert max(range(len(TEXTS)), key=scores.__getitem__) == 0
    assert reranker.score("anything", []) == []
    path, body = srv.requests[0]
    if spec.startswith("tei"):
        assert path == "/rerank" and body["texts"] == TEXTS
    else:
        assert path == "/v1/rerank" and body["documents"] == TEXTS and body["top_n"] == 5


# --- unreachable, silent, slow ---------------------------------------------------------------

def test_connection_refused_is_unavailable_fast():
    url = closed_port_url()
    calls = [
        lambda: make_embedder(f"openai:{url}/v1#{E5}"),
        lambda: OpenAIEmbedder(f"{url}/v1", E5, dimensions=384).embed_documents(["x"]),
        lambda: OpenAIEmbedder(f"{url}/v1", E5, dimensions=384).embed_query("x"),
        lambda: make_llm(f"openai:{url}/v1#m").complete("hi", timeout_s=2.5),
        lambda: make_reranker(f"openai:{url}/v1#m").score("q", ["p"]),
    ]
    for call in calls:
        start = time.monotonic()
        with pytest.raises(BackendUnavailable, match="cannot connect"):
            call()
        assert time.monotonic() - start < 0.5


@pytest.mark.slow  # waits out the query-time cap
def test_a_server_that_never_answers_cannot_stall_query_time_calls():
    with SilentServer() as silent:
        llm = OpenAIChat(f"{silent.url}/v1", "m")
        start = time.monotonic()
        with pytest.raises(BackendError, match=r"no answer within 0\.5 s"):
            llm.complete("expand this query", timeout_s=0.5)
        assert time.monotonic() - start < 1.0
        fast = Timeouts(query_s=0.5)
        e = OpenAIEmbedder(f"{silent.url}/v1", E5, dimensions=384, timeouts=fast)
        r = HttpReranker(f"{silent.url}/v1", "m", timeouts=fast)
        for call in (lambda: e.embed_query("q"), lambda: r.score("q", ["p"])):
            start = time.monotonic()
            with pytest.raises(BackendError, match="no answer within"):
                call()
            assert time.monotonic() - start < 1.0


@pytest.mark.slow  # a deliberately slow reply
def test_slow_first_response_within_the_read_timeout_succeeds(srv, local):
    srv.script = [Reply(delay_s=1.0)]  # a cold model load
    e = embedder(srv, timeouts=Timeouts(read_s=5.0))
    start = time.monotonic()
    assert_same_vectors(e.embed_documents(TEXTS[:2]), local.embed_documents(TEXTS[:2]))
    assert time.monotonic() - start >= 1.0
    srv.script = [Reply(delay_s=0.3)]
    llm = OpenAIChat(f"{srv.url}/v1", "m")
    assert llm.complete("hi", timeout_s=2.5) == chat_reply("m", "hi")


# --- too large: split and cut ----------------------------------------------------------------

def test_413_splits_the_batch_and_all_inputs_are_embedded_in_order(srv, local):
    srv.max_batch = 2
    e = embedder(srv)
    assert_same_vectors(e.embed_documents(TEXTS), local.embed_documents(TEXTS))
    sizes = [len(body["input"]) for _, body in srv.requests]
    assert sizes[0] == 5 and len(sizes) > 3
    assert e.breaker.state == "closed"


def test_context_length_error_cuts_only_the_long_input(srv, local):
    srv.max_chars = 300  # the server's context, in characters of prompt + text
    long_text = "Key rotation policy. " * 100  # 2,100 characters
    texts = [TEXTS[0], long_text, TEXTS[1]]
    out = embedder(srv).embed_documents(texts)
    assert_same_vectors(out[[0, 2]], local.embed_documents([TEXTS[0], TEXTS[1]]))
    cut = long_text[:262]  # halved 2100 -> 1050 -> 525 -> 262: "passage: " + 262 <= 300
    assert_same_vectors(out[1:2], local.embed_documents([cut]))


# --- errors: 500, malformed, mismatch ------------------------------------------------------------

def test_500_is_retried_at_ingest_time_then_succeeds(srv, local):
    srv.script = [ERROR_500, ERROR_500]
    e = embedder(srv)
    assert_same_vectors(e.embed_documents(TEXTS[:1]), local.embed_documents(TEXTS[:1]))
    assert len(srv.requests) == 3


def test_500_after_the_retries_is_an_error(srv):
    srv.script = [ERROR_500] * 3
    with pytest.raises(BackendError, match="HTTP 500: internal error") as info:
        embedder(srv).embed_documents(TEXTS[:1])
    assert not isinstance(info.value, BackendUnavailable)
    assert len(srv.requests) == 3


def test_query_time_calls_are_not_retried(srv):
    srv.script = [ERROR_500, ERROR_500]
    with pytest.raises(BackendError, match="HTTP 500"):
        embedder(srv).embed_query("q")
    with pytest.raises(BackendError, match="HTTP 500"):
        OpenAIChat(f"{srv.url}/v1", "m").complete("hi", timeout_s=2.5)
    assert len(srv.requests) == 2


@pytest.mark.parametrize(("body", "message"), [
    (b"<html>Bad gateway</html>", "malformed reply, not JSON"),
    (b'{"data": 5}', r"malformed reply, expected data\[\]\.embedding"),
    (b'{"data": [{"index": 0, "embedding": [0.1, 0.2]}]}', "384-d"),
])
def test_malformed_embedding_replies_are_clear_errors(srv, body, message):
    srv.script = [Reply(200, body)]
    with pytest.raises(BackendError, match=message):
        embedder(srv, retry=NO_RETRY).embed_documents(["x"])


def test_malformed_chat_and_rerank_replies_are_clear_errors(srv):
    srv.script = [Reply(200, b"not json"), Reply(200, json.dumps({"choices": []}).encode()),
                  Reply(200, b'{"results": [{"index": 0, "relevance_score": 1.0}]}')]
    llm = OpenAIChat(f"{srv.url}/v1", "m")
    with pytest.raises(BackendError, match="not JSON"):
        llm.complete("hi", timeout_s=2.5)
    with pytest.raises(BackendError, match=r"expected choices\[0\]\.message\.content"):
        llm.complete("hi", timeout_s=2.5)
    with pytest.raises(BackendError, match="scores for 1 of 2 passages"):
        HttpReranker(f"{srv.url}/v1", "m").score("q", ["a", "b"])


# --- circuit breaker ----------------------------------------------------------------------------

def test_breaker_opens_after_two_failures_fails_fast_and_closes_after_cooldown(srv, local):
    clock = FakeClock()
    e = embedder(srv, retry=NO_RETRY, clock=clock)
    srv.script = [ERROR_500, ERROR_500]
    for _ in range(2):
        with pytest.raises(BackendError, match="HTTP 500"):
            e.embed_documents(["x"])
    assert e.breaker.state == "open"
    start = time.monotonic()
    with pytest.raises(BackendUnavailable, match="circuit open"):
        e.embed_query("q")
    assert time.monotonic() - start < 0.05 and len(srv.requests) == 2  # the server not called
    clock.advance(59.0)
    with pytest.raises(BackendUnavailable, match="next try in 1 s"):
        e.embed_documents(["x"])
    clock.advance(1.0)
    assert e.breaker.state == "half-open"
    assert_same_vectors(e.embed_query("keys"), local.embed_query("keys"))
    assert e.breaker.state == "closed" and len(srv.requests) == 3
