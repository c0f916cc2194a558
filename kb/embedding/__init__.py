"""Embedding: what kb adds around an embedder and the vector spaces of one store.

``service`` wraps any embedder (fingerprint, truncation, cache, batches); ``state`` builds the
configured embedder once and checks it against the stored vectors. The vectors themselves (live,
staged, cached) belong to the store: ``kb.store.vectors``, ``kb.store.embedding_cache``.
"""
