"""Ingest-time model replies are cached in ``llm_cache`` by the one cache in ``kb.llm_cache``.

Kept so ``from ingest.llm_cache import cached_reply`` goes on working.
"""

from __future__ import annotations

from kb.llm_cache import cache_key, cached_reply

__all__ = ["cache_key", "cached_reply"]
