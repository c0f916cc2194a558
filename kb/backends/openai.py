"""OpenAI-compatible servers over httpx: embeddings, chat completions and reranking.

Endpoints, relative to a base URL such as ``http://127.0.0.1:8080/v1``:

* ``POST /embeddings`` ``{"model", "input": [...], "encoding_format": "float"}`` ->
  ``{"data": [{"index", "embedding"}]}``
* ``POST /chat/completions`` ``{"model", "messages", "stream": false, "temperature": 0}`` ->
  ``{"choices": [{"message": {"content"}}]}``; to describe an image the user message's content
  is a list: a ``text`` part and an ``image_url`` part holding a ``data:MIME;base64,...`` URI;
* ``POST /rerank``, two shapes chosen by the spec's provider, never guessed:

  - ``openai`` (llama.cpp server, Jina/Cohere style) ``{"model", "query", "documents",
    "top_n"}`` -> ``{"results": [{"index", "relevance_score"}]}``; llama.cpp returns raw
    logits, so scores pass through the logistic function into (0, 1) (order is kept);
  - ``tei`` (text-embeddings-inference) ``{"query", "texts", "raw_scores": false}`` ->
    ``[{"index", "score"}]``, already in [0, 1].

The HTTP client ignores proxy and certificate environment variables (``trust_env=False``):
settings come from the caller, read at the edge.
"""

from __future__ import annotations

import base64
import math
import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

import httpx

from kb.backends import DESCRIBE_IMAGE_PROMPT
from kb.backends.breaker import CircuitBreaker
from kb.backends.http import (
    DEFAULT_TIMEOUTS,
    INGEST_RETRY,
    MAX_COMPLETION_TOKENS,
    RetryPolicy,
    Timeouts,
    guarded_call,
    json_body,
)
from kb.backends.remote import RemoteEmbedder, RemoteLLM
from kb.errors import BackendError

RerankShape = Literal["openai", "tei"]


def _client(timeouts: Timeouts, api_key: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    return httpx.Client(timeout=timeouts.httpx(timeouts.read_s), headers=headers,
                        trust_env=False)


def _malformed(backend: str, what: str, body: Any) -> BackendError:
    return BackendError(f"{backend}: malformed reply, {what}: {str(body)[:120]!r}",
                        backend=backend)


class OpenAIEmbedder(RemoteEmbedder):
    """Embeddings from an OpenAI-compatible ``/embeddings`` endpoint.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8080/v1``.
        model: the model name sent with each request.
        timeouts: connect, read, query-time and probe timeouts.
        retry: retries of ingest-time calls.
        breaker: a shared circuit breaker, or ``None`` for one of its own.
        clock: monotonic seconds for the breaker.
        dimensions: known vector length, or ``None`` to probe the server once now.
        api_key: sent as a bearer token when given.

    Raises:
        kb.errors.BackendUnavailable: probing needed and the server cannot be reached.
    """

    def __init__(self, base_url: str, model: str, *, timeouts: Timeouts = DEFAULT_TIMEOUTS,
                 retry: RetryPolicy = INGEST_RETRY, breaker: CircuitBreaker | None = None,
                 clock: Callable[[], float] = time.monotonic, dimensions: int | None = None,
                 api_key: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self._http = _client(timeouts, api_key)
        super().__init__(provider="openai", model=model, timeouts=timeouts, retry=retry,
                         breaker=breaker, clock=clock, dimensions=dimensions)

    def _request(self, texts: list[str], timeout_s: float) -> list[list[float]]:
        response = self._http.post(
            f"{self.base_url}/embeddings",
            json={"model": self.model, "input": texts, "encoding_format": "float"},
            timeout=self.timeouts.httpx(timeout_s))
        body = json_body(response, backend=self.model_id)
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list) or not all(
                isinstance(d, dict) and isinstance(d.get("embedding"), list) for d in data):
            raise _malformed(self.model_id, "expected data[].embedding", body)
        ordered = sorted(enumerate(data), key=lambda p: p[1].get("index", p[0]))
        return [d["embedding"] for _, d in ordered]

    def close(self) -> None:
        """Close the HTTP connections."""
        self._http.close()


class OpenAIChat(RemoteLLM):
    """A chat model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8080/v1``.
        model: the model name sent with each request.
        timeouts: connect and read timeouts.
        retry: retries within ``timeout_s``; default ``default_retry`` (``NO_RETRY``: query-time).
        breaker: a shared circuit breaker, or ``None`` for one of its own.
        clock: monotonic seconds for the breaker.
        api_key: sent as a bearer token when given.
    """

    def __init__(self, base_url: str, model: str, *, timeouts: Timeouts = DEFAULT_TIMEOUTS,
                 retry: RetryPolicy | None = None, breaker: CircuitBreaker | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 api_key: str | None = None) -> None:
        super().__init__(provider="openai", model=model, timeouts=timeouts, retry=retry,
                         breaker=breaker, clock=clock)
        self.base_url = base_url.rstrip("/")
        self._http = _client(timeouts, api_key)

    def _chat(self, prompt: str | list[dict[str, Any]], timeout_s: float) -> str:
        response = self._http.post(
            f"{self.base_url}/chat/completions",
            json={"model": self.model, "messages": [{"role": "user", "content": prompt}],
                  "stream": False, "temperature": 0, "max_tokens": MAX_COMPLETION_TOKENS},
            timeout=self.timeouts.httpx(timeout_s))
        body = json_body(response, backend=self.model_id)
        try:
            content = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise _malformed(self.model_id, "expected choices[0].message.content",
                             body) from None
        if not isinstance(content, str):
            raise _malformed(self.model_id, "message.content is not text", body)
        return content

    def close(self) -> None:
        """Close the HTTP connections."""
        self._http.close()


class OpenAIVision(OpenAIChat):
    """A vision chat model behind ``/chat/completions`` (an ``image_url`` content part).

    Ingest-time: ``describe_image`` waits up to its ``timeout_s`` (capped by
    ``Timeouts.read_s``) and retries transient failures per ``retry``.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8080/v1``.
        model: the model name sent with each request.
        timeouts: connect and read timeouts.
        retry: retries within ``timeout_s``; default ``INGEST_RETRY`` (ingest-time).
        breaker: a shared circuit breaker, or ``None`` for one of its own.
        clock: monotonic seconds for the breaker.
        api_key: sent as a bearer token when given.
    """

    default_retry = INGEST_RETRY

    def describe_image(self, image: bytes, mime_type: str, *, timeout_s: float) -> str:
        """The model's description of ``image`` (see ``kb.backends.VisionModel``).

        Raises:
            ValueError: ``timeout_s`` is not positive.
            kb.errors.BackendUnavailable: the server cannot be reached or its circuit is open.
            kb.errors.BackendError: the call failed or exceeded ``timeout_s``.
        """
        uri = f"data:{mime_type};base64,{base64.b64encode(image).decode('ascii')}"
        content: list[dict[str, Any]] = [{"type": "text", "text": DESCRIBE_IMAGE_PROMPT},
                                         {"type": "image_url", "image_url": {"url": uri}}]
        return self._capped(lambda t: self._chat(content, t), timeout_s)


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


class HttpReranker:
    """A cross-encoder behind a ``/rerank`` endpoint (query time: capped, no retry).

    Attributes:
        model_id: ``openai:model`` or ``tei:model``.
        breaker: the backend's circuit breaker.

    Args:
        base_url: the API root (``http://127.0.0.1:8080/v1`` for llama.cpp,
            ``http://127.0.0.1:8080`` for TEI).
        model: the model name (sent in the ``openai`` shape; names the model in both).
        shape: ``openai`` (llama.cpp/Jina) or ``tei``; see the module docstring.
        timeouts: connect timeout and ``query_s``, the cap on each ``score`` call.
        breaker: a shared circuit breaker, or ``None`` for one of its own.
        clock: monotonic seconds for the breaker.
        api_key: sent as a bearer token when given.
    """

    def __init__(self, base_url: str, model: str, *, shape: RerankShape = "openai",
                 timeouts: Timeouts = DEFAULT_TIMEOUTS, breaker: CircuitBreaker | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 api_key: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.shape = shape
        self.model_id = f"{shape}:{model}"
        self.timeouts = timeouts
        self.breaker = breaker or CircuitBreaker(self.model_id, clock=clock)
        self._http = _client(timeouts, api_key)

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """Relevance of each passage to ``query``, higher is better, range [0, 1].

        Raises:
            kb.errors.BackendUnavailable: the server cannot be reached or its circuit is open.
            kb.errors.BackendError: the call failed or exceeded ``Timeouts.query_s``.
        """
        if not passages:
            return []
        texts = list(passages)
        return guarded_call(lambda t: self._rank(query, texts, t), backend=self.model_id,
                            breaker=self.breaker, read_timeout_s=self.timeouts.query_s,
                            deadline_s=self.timeouts.query_s)

    def _rank(self, query: str, texts: list[str], timeout_s: float) -> list[float]:
        if self.shape == "tei":
            payload: dict[str, Any] = {"query": query, "texts": texts, "raw_scores": False}
        else:
            payload = {"model": self.model, "query": query, "documents": texts,
                       "top_n": len(texts)}
        response = self._http.post(f"{self.base_url}/rerank", json=payload,
                                   timeout=self.timeouts.httpx(timeout_s))
        body = json_body(response, backend=self.model_id)
        results = body.get("results") if isinstance(body, dict) else body
        scores: dict[int, float] = {}
        for item in results if isinstance(results, list) else [None]:
            raw = (item.get("relevance_score", item.get("score"))
                   if isinstance(item, dict) else None)
            index = item.get("index") if isinstance(item, dict) else None
            if not isinstance(index, int) or not isinstance(raw, int | float):
                raise _malformed(self.model_id, "expected [{index, relevance_score|score}]",
                                 body)
            scores[index] = float(raw)
        if sorted(scores) != list(range(len(texts))):
            raise _malformed(self.model_id, f"scores for {len(scores)} of {len(texts)} passages",
                             body)
        if self.shape == "tei":
            return [min(1.0, max(0.0, scores[i])) for i in range(len(texts))]
        return [_logistic(scores[i]) for i in range(len(texts))]

    def close(self) -> None:
        """Close the HTTP connections."""
        self._http.close()
