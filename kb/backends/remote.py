"""What every server-backed embedder and chat model shares, written once.

Providers (``kb.backends.openai``, ``kb.backends.ollama``) write one request each
(``_request`` for embeddings, ``_chat`` for a completion); this module adds prompts, the
split-or-cut answer to "input too large", dimension checks, normalisation, and the
query-time/ingest-time call policies of ``kb.backends.http``.

* Prompt formats come from a small explicit table keyed by the exact model name; a model not in
  it gets no prefixes (``{}|{}``). Nothing is guessed from a name beyond the table.
* Dimensions are given, or learned by one probe call when the embedder is built, and every
  reply is checked against them.
* Ingest-time calls (``embed_documents``) wait ``Timeouts.read_s`` and retry; query-time calls
  (``embed_query``) are capped at ``Timeouts.query_s`` and never retry; ``complete`` is capped
  at its ``timeout_s`` and retries only when the model was built with retries.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

import numpy as np

from kb.backends.breaker import CircuitBreaker
from kb.backends.http import NO_RETRY, InputTooLarge, RetryPolicy, Timeouts, guarded_call
from kb.errors import BackendError

log = logging.getLogger(__name__)

NO_PROMPT = "{}|{}"
NOMIC_PROMPT = "search_query: {}|search_document: {}"  # nomic-embed-text-v1.5 model card
E5_PROMPT = "query: {}|passage: {}"  # Wang et al. 2022/2024, e5 model cards
MXBAI_PROMPT = "Represent this sentence for searching relevant passages: {}|{}"  # model card

# query|document templates by exact model name (Ollama library names and Hugging Face ids).
PROMPT_FORMATS: dict[str, str] = {
    "nomic-embed-text": NOMIC_PROMPT,
    "nomic-embed-text:latest": NOMIC_PROMPT,
    "nomic-embed-text:v1.5": NOMIC_PROMPT,
    "nomic-ai/nomic-embed-text-v1": NOMIC_PROMPT,
    "nomic-ai/nomic-embed-text-v1.5": NOMIC_PROMPT,
    "intfloat/e5-small-v2": E5_PROMPT,
    "intfloat/e5-base-v2": E5_PROMPT,
    "intfloat/e5-large-v2": E5_PROMPT,
    "intfloat/multilingual-e5-small": E5_PROMPT,
    "intfloat/multilingual-e5-base": E5_PROMPT,
    "intfloat/multilingual-e5-large": E5_PROMPT,
    "mxbai-embed-large": MXBAI_PROMPT,
    "mxbai-embed-large:latest": MXBAI_PROMPT,
    "mixedbread-ai/mxbai-embed-large-v1": MXBAI_PROMPT,
}

PROBE_TEXT = "kb"


def prompt_format_for(model: str) -> str:
    """The ``query|document`` template of ``model`` (exact name), ``{}|{}`` if not listed."""
    return PROMPT_FORMATS.get(model, NO_PROMPT)


def normalise_rows(m: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 length (zero rows stay zero), float32."""
    m = np.asarray(m, dtype=np.float32)
    norms = np.linalg.norm(m, axis=-1, keepdims=True)
    return m / np.maximum(norms, 1e-12)


class RemoteEmbedder:
    """An embedding model behind a server; subclasses implement ``_request``.

    Attributes:
        model_id: ``provider:model``; the server's address is not part of it, so moving a server
            keeps its vectors.
        dimensions: vector length, given or learned by one probe call.
        prompt_format: ``query|document`` templates from ``PROMPT_FORMATS``.
        max_tokens: ``None``; the server reports a too-long input, which is then cut.
        breaker: the backend's circuit breaker.

    Args:
        provider: ``openai`` or ``ollama``.
        model: the model name the server knows.
        timeouts: connect, read, query-time and probe timeouts.
        retry: retries of ingest-time calls.
        breaker: a shared circuit breaker, or ``None`` for one of its own.
        clock: monotonic seconds for the breaker.
        dimensions: known vector length, or ``None`` to probe the server once now.

    Raises:
        kb.errors.BackendUnavailable: probing needed and the server cannot be reached.
        kb.errors.BackendError: the probe failed otherwise.
    """

    max_tokens: int | None = None

    def __init__(self, *, provider: str, model: str, timeouts: Timeouts, retry: RetryPolicy,
                 breaker: CircuitBreaker | None, clock: Callable[[], float],
                 dimensions: int | None) -> None:
        if dimensions is not None and dimensions < 1:
            raise ValueError("dimensions must be positive")
        self.model = model
        self.model_id = f"{provider}:{model}"
        self.prompt_format = prompt_format_for(model)
        self._query_template, self._document_template = self.prompt_format.split("|")
        self.timeouts = timeouts
        self.retry = retry
        self.breaker = breaker or CircuitBreaker(self.model_id, clock=clock)
        self.dimensions = dimensions or 0
        if dimensions is None:
            probe = self._document_template.format(PROBE_TEXT)
            first = guarded_call(lambda t: self._request([probe], t), backend=self.model_id,
                                 breaker=self.breaker, read_timeout_s=timeouts.probe_s,
                                 deadline_s=timeouts.probe_s)
            self.dimensions = len(first[0]) if first and len(first[0]) else 0
            if not self.dimensions:
                raise BackendError(f"{self.model_id}: the server returned an empty vector",
                                   backend=self.model_id)

    def _request(self, texts: list[str], timeout_s: float) -> list[list[float]]:
        """One embedding request; one vector per text, in order.

        Raises:
            kb.errors.BackendError: classified failure (see ``kb.backends.http``).
        """
        raise NotImplementedError

    def _checked(self, rows: list[list[float]], n: int) -> np.ndarray:
        try:
            m = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise BackendError(f"{self.model_id}: malformed vectors ({exc})",
                               backend=self.model_id) from exc
        if m.ndim != 2 or m.shape[0] != n:
            raise BackendError(f"{self.model_id}: {n} inputs but vectors of shape {m.shape}",
                               backend=self.model_id)
        if self.dimensions and m.shape[1] != self.dimensions:
            raise BackendError(f"{self.model_id}: the server returned {m.shape[1]}-d vectors, "
                               f"expected {self.dimensions}-d", backend=self.model_id)
        if not np.isfinite(m).all():
            raise BackendError(f"{self.model_id}: vectors hold NaN or infinity",
                               backend=self.model_id)
        return m

    def _call(self, texts: list[str], *, query: bool) -> np.ndarray:
        def attempt(timeout_s: float) -> np.ndarray:
            return self._checked(self._request(texts, timeout_s), len(texts))

        if query:
            return guarded_call(attempt, backend=self.model_id, breaker=self.breaker,
                                read_timeout_s=self.timeouts.query_s,
                                deadline_s=self.timeouts.query_s)
        return guarded_call(attempt, backend=self.model_id, breaker=self.breaker,
                            read_timeout_s=self.timeouts.read_s, retry=self.retry)

    def _embed_fitting(self, texts: list[str]) -> np.ndarray:
        """Embed; on "too large" split the batch in halves, and cut a lone text in half."""
        try:
            return self._call([self._document_template.format(t) for t in texts], query=False)
        except InputTooLarge as exc:
            if len(texts) > 1:
                mid = len(texts) // 2
                log.info("%s: batch of %d too large, splitting (%s)", self.model_id,
                         len(texts), exc)
                return np.vstack([self._embed_fitting(texts[:mid]),
                                  self._embed_fitting(texts[mid:])])
            text = texts[0]
            if len(text) <= 1:
                raise BackendError(f"{self.model_id}: input refused as too large even when "
                                   f"cut to {len(text)} character(s) ({exc})",
                                   backend=self.model_id) from exc
            log.warning("%s: input of %d characters too large for the model, cut to %d",
                        self.model_id, len(text), len(text) // 2)
            return self._embed_fitting([text[: len(text) // 2]])

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed document texts (ingest time: long read timeout, retries).

        Returns:
            Shape (len(texts), dimensions), float32, rows L2-normalised.

        Raises:
            kb.errors.BackendUnavailable: the server cannot be reached or its circuit is open.
            kb.errors.BackendError: the call failed after its retries.
        """
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return normalise_rows(self._embed_fitting(list(texts)))

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query (query time: capped at ``Timeouts.query_s``, no retry).

        Returns:
            Shape (dimensions,), float32, L2-normalised.

        Raises:
            kb.errors.BackendUnavailable: the server cannot be reached or its circuit is open.
            kb.errors.BackendError: the call failed or exceeded its cap.
        """
        return normalise_rows(self._call([self._query_template.format(text)], query=True))[0]

    def token_count(self, text: str) -> int | None:
        """Unknown: the server's tokenizer is not available here."""
        return None


class RemoteLLM:
    """A chat model behind a server; subclasses implement ``_chat``.

    Attributes:
        model_id: ``provider:model``.
        breaker: the backend's circuit breaker.

    Args:
        provider: ``openai`` or ``ollama``.
        model: the model name the server knows.
        timeouts: connect and read timeouts (``complete`` caps the read at its ``timeout_s``).
        retry: retries within ``timeout_s``; keep ``NO_RETRY`` for query-time helpers.
        breaker: a shared circuit breaker, or ``None`` for one of its own.
        clock: monotonic seconds for the breaker.
    """

    default_retry: RetryPolicy = NO_RETRY  # query-time helpers; ingest-time subclasses retry

    def __init__(self, *, provider: str, model: str, timeouts: Timeouts,
                 retry: RetryPolicy | None = None, breaker: CircuitBreaker | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.model = model
        self.model_id = f"{provider}:{model}"
        self.timeouts = timeouts
        self.retry = self.default_retry if retry is None else retry
        self.breaker = breaker or CircuitBreaker(self.model_id, clock=clock)

    def _chat(self, prompt: str, timeout_s: float) -> str:
        """One chat request with ``prompt`` as the user message; the reply's text.

        Raises:
            kb.errors.BackendError: classified failure (see ``kb.backends.http``).
        """
        raise NotImplementedError

    def complete(self, prompt: str, *, timeout_s: float) -> str:
        """The model's reply to ``prompt``, returned or abandoned within ``timeout_s``.

        Raises:
            ValueError: ``timeout_s`` is not positive.
            kb.errors.BackendUnavailable: the server cannot be reached or its circuit is open.
            kb.errors.BackendError: the call failed or exceeded ``timeout_s``.
        """
        return self._capped(lambda t: self._chat(prompt, t), timeout_s)

    def _capped(self, call: Callable[[float], str], timeout_s: float) -> str:
        """``call(read_timeout_s)`` through the breaker and retries, abandoned at ``timeout_s``.

        Raises:
            ValueError: ``timeout_s`` is not positive.
            kb.errors.BackendError: as ``complete``.
        """
        if timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        return guarded_call(call, backend=self.model_id, breaker=self.breaker,
                            read_timeout_s=min(timeout_s, self.timeouts.read_s),
                            deadline_s=timeout_s, retry=self.retry)
