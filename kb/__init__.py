"""kb: a local-first knowledge-base RAG engine that refuses near-topic noise.

Layers, bottom first (``tests/test_layering.py`` holds the list; lower never imports higher):
``kb.types``/``kb.config``/``kb.errors`` -> ``kb.backends`` -> ``kb.store`` -> ``kb.embedding``
-> ``kb.ingest``, ``kb.retrieve`` -> ``kb.api`` -> ``kb.eval`` -> ``kb.cli``, ``kb.server``.
"""
