"""Ollama through its official client package (the ``ollama`` extra).

Endpoints used: ``POST /api/embed`` ``{"model", "input": [...]}`` -> ``{"embeddings": [[...]]}``,
``POST /api/chat`` ``{"model", "messages", "stream": false}`` -> ``{"message": {"content"}}``
(an image to describe travels base64-encoded in the message's ``images`` list),
and ``GET /api/tags`` (``list_models``). Ollama has no rerank endpoint.

The host is always passed explicitly, so the client never falls back to ``OLLAMA_HOST``; only
the CLI edge (``kb.cli.settings``) reads it.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from kb.backends import DESCRIBE_IMAGE_PROMPT
from kb.backends.breaker import CircuitBreaker
from kb.backends.http import (
    DEFAULT_TIMEOUTS,
    INGEST_RETRY,
    MAX_COMPLETION_TOKENS,
    RetryPolicy,
    Timeouts,
    error_for_status,
    guarded_call,
)
from kb.backends.remote import RemoteEmbedder, RemoteLLM
from kb.config import DEFAULT_OLLAMA_HOST
from kb.errors import BackendError, BackendUnavailable, install_hint

T = TypeVar("T")

OLLAMA_PORT = 11434  # Ollama's default port, used when a host names none
INSTALL_HINT = install_hint("ollama")


def ollama_base_url(host: str) -> str:
    """``host`` as a URL with scheme and port (``localhost`` -> ``http://localhost:11434``).

    Raises:
        ValueError: an empty host or a scheme other than http/https.
    """
    host = host.strip().rstrip("/")
    if not host:
        raise ValueError("empty Ollama host")
    if "://" not in host:
        host = f"http://{host}"
    parts = urlsplit(host)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"Ollama host must be http(s)://host[:port], got {host!r}")
    port = parts.port or OLLAMA_PORT
    hostname = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{hostname}:{port}{parts.path}"


def _ollama() -> Any:
    try:
        import ollama
    except ImportError as exc:
        raise BackendUnavailable(f"the Ollama backend needs its client package: {INSTALL_HINT}",
                                 backend="ollama") from exc
    return ollama


class _Clients:
    """``ollama.Client`` objects by read timeout, rounded up to 0.5 s.

    The client package takes its timeout when a client is built, not per request.
    """

    def __init__(self, host: str, timeouts: Timeouts) -> None:
        self.host = ollama_base_url(host)
        self.timeouts = timeouts
        self._module = _ollama()
        self._clients: dict[float, Any] = {}
        self._lock = threading.Lock()

    def get(self, timeout_s: float) -> Any:
        key = math.ceil(timeout_s * 2) / 2
        with self._lock:
            if key not in self._clients:
                self._clients[key] = self._module.Client(
                    host=self.host, timeout=self.timeouts.httpx(key), trust_env=False)
            return self._clients[key]

    def call(self, fn: Callable[[], T], *, backend: str) -> T:
        """Run one client call, mapping the package's errors onto kb's."""
        try:
            return fn()
        except self._module.ResponseError as exc:
            raise error_for_status(exc.status_code, str(exc.error), backend=backend) from exc
        except ValueError as exc:  # JSON decoding and pydantic validation
            detail = "; ".join(str(exc).splitlines())[:200]
            raise BackendError(f"{backend}: malformed reply ({detail})",
                               backend=backend) from exc

    def close(self) -> None:
        with self._lock:
            for client in self._clients.values():
                client.close()
            self._clients.clear()


class OllamaEmbedder(RemoteEmbedder):
    """Embeddings from Ollama's ``/api/embed``.

    Args:
        model: an Ollama model name, e.g. ``nomic-embed-text``.
        host: the server, e.g. ``http://127.0.0.1:11434`` (scheme and port optional).
        timeouts: connect, read, query-time and probe timeouts.
        retry: retries of ingest-time calls.
        breaker: a shared circuit breaker, or ``None`` for one of its own.
        clock: monotonic seconds for the breaker.
        dimensions: known vector length, or ``None`` to probe the server once now.

    Raises:
        kb.errors.BackendUnavailable: the client package is missing, or probing needed and
            the server cannot be reached.
        ValueError: a malformed host.
    """

    def __init__(self, model: str, *, host: str = DEFAULT_OLLAMA_HOST,
                 timeouts: Timeouts = DEFAULT_TIMEOUTS, retry: RetryPolicy = INGEST_RETRY,
                 breaker: CircuitBreaker | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 dimensions: int | None = None) -> None:
        self._clients = _Clients(host, timeouts)
        super().__init__(provider="ollama", model=model, timeouts=timeouts, retry=retry,
                         breaker=breaker, clock=clock, dimensions=dimensions)

    def _request(self, texts: list[str], timeout_s: float) -> list[list[float]]:
        client = self._clients.get(timeout_s)
        reply = self._clients.call(lambda: client.embed(model=self.model, input=texts),
                                   backend=self.model_id)
        return [list(v) for v in reply.embeddings]

    def close(self) -> None:
        """Close the HTTP connections."""
        self._clients.close()


class OllamaChat(RemoteLLM):
    """A chat model behind Ollama's ``/api/chat`` (temperature 0, no streaming).

    Args:
        model: an Ollama model name, e.g. ``qwen2.5:3b``.
        host: the server, e.g. ``http://127.0.0.1:11434`` (scheme and port optional).
        timeouts: connect and read timeouts.
        retry: retries within ``timeout_s``; default ``default_retry`` (``NO_RETRY``: query-time).
        breaker: a shared circuit breaker, or ``None`` for one of its own.
        clock: monotonic seconds for the breaker.

    Raises:
        kb.errors.BackendUnavailable: the client package is missing.
        ValueError: a malformed host.
    """

    def __init__(self, model: str, *, host: str = DEFAULT_OLLAMA_HOST,
                 timeouts: Timeouts = DEFAULT_TIMEOUTS, retry: RetryPolicy | None = None,
                 breaker: CircuitBreaker | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(provider="ollama", model=model, timeouts=timeouts, retry=retry,
                         breaker=breaker, clock=clock)
        self._clients = _Clients(host, timeouts)

    def _chat(self, prompt: str, timeout_s: float, images: list[bytes] | None = None) -> str:
        client = self._clients.get(timeout_s)
        message: dict[str, Any] = {"role": "user", "content": prompt}
        if images:
            message["images"] = images  # the client sends bytes base64-encoded
        reply = self._clients.call(
            lambda: client.chat(model=self.model, stream=False, messages=[message],
                                options={"temperature": 0,
                                         "num_predict": MAX_COMPLETION_TOKENS}),
            backend=self.model_id)
        content = reply.message.content
        if not isinstance(content, str):
            raise BackendError(f"{self.model_id}: malformed reply, message has no content",
                               backend=self.model_id)
        return content

    def close(self) -> None:
        """Close the HTTP connections."""
        self._clients.close()


class OllamaVision(OllamaChat):
    """A vision model (e.g. ``llava``, ``qwen2.5vl``) behind Ollama's ``/api/chat``.

    Ingest-time: ``describe_image`` waits up to its ``timeout_s`` (capped by
    ``Timeouts.read_s``) and retries transient failures per ``retry``.

    Args:
        model: an Ollama model name, e.g. ``llava``.
        host: the server, e.g. ``http://127.0.0.1:11434`` (scheme and port optional).
        timeouts: connect and read timeouts.
        retry: retries within ``timeout_s``; default ``INGEST_RETRY`` (ingest-time).
        breaker: a shared circuit breaker, or ``None`` for one of its own.
        clock: monotonic seconds for the breaker.

    Raises:
        kb.errors.BackendUnavailable: the client package is missing.
        ValueError: a malformed host.
    """

    default_retry = INGEST_RETRY

    def describe_image(self, image: bytes, mime_type: str, *, timeout_s: float) -> str:
        """The model's description of ``image`` (see ``kb.backends.VisionModel``).

        Ollama detects the image format itself; ``mime_type`` is not sent.

        Raises:
            ValueError: ``timeout_s`` is not positive.
            kb.errors.BackendUnavailable: the server cannot be reached or its circuit is open.
            kb.errors.BackendError: the call failed or exceeded ``timeout_s``.
        """
        return self._capped(lambda t: self._chat(DESCRIBE_IMAGE_PROMPT, t, [image]), timeout_s)


def list_models(host: str = DEFAULT_OLLAMA_HOST, *,
                timeouts: Timeouts = DEFAULT_TIMEOUTS) -> list[str]:
    """Names of the models the Ollama server has pulled (``GET /api/tags``).

    The call is capped at ``timeouts.query_s``.

    Raises:
        kb.errors.BackendUnavailable: the client package is missing or the server cannot be
            reached.
        kb.errors.BackendError: the call failed otherwise.
    """
    clients = _Clients(host, timeouts)
    backend = f"ollama@{clients.host}"
    try:
        client = clients.get(timeouts.query_s)
        reply = guarded_call(lambda _t: clients.call(client.list, backend=backend),
                             backend=backend, breaker=CircuitBreaker(backend),
                             read_timeout_s=timeouts.query_s, deadline_s=timeouts.query_s)
        return [str(m.model) for m in reply.models if m.model]
    finally:
        clients.close()
