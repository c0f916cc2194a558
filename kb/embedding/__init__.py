"""Embedding: what kb adds around an embedder and the vector spaces of one store.

``service`` wraps any embedder (fingerprint, truncation, cache, batches); ``state`` builds the
configured embedder once and checks it against the stored vectors; ``vectorspace`` holds the live
fingerprint and the re-embed staging area.
"""
