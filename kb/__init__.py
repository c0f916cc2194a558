"""kb: a local-first knowledge-base RAG engine that refuses near-topic noise."""
