"""The cached index of a golden set: built once per (set, embedder), reused while unchanged.

``<cache_dir>/<set>-<embedder>.db`` holds the set's corpus indexed with one embedder; vectors
are embedded once and reused while the corpus, the embedder and the chunk settings are
unchanged (a digest of the three is stored in the index under ``DIGEST_KEY``; a mismatch
rebuilds it). Step 1 of ``kb.eval.suite``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from kb.api import KnowledgeBase
from kb.config import Config
from kb.eval.datasets import golden_dir
from kb.eval.retrieval import open_index
from kb.store import Store
from kb.store.meta import MetaKey
from kb.types import ProgressFn

CACHE_FORMAT = "2"  # bump when the cached index changes (2: short chunks merged, issue 13)
DIGEST_KEY = MetaKey.EVAL_INDEX_DIGEST


@dataclass(frozen=True, slots=True)
class IndexInfo:
    """The cached index a set was measured on.

    Attributes:
        path: the SQLite file.
        documents: documents indexed.
        chunks: chunks indexed.
        vectors: chunks with a vector of the configured embedder.
        vectors_embedded: vectors computed by this run (0 when the cache was complete).
        rebuilt: the cache was stale (corpus, embedder or chunking changed) and was rebuilt.
    """

    path: str
    documents: int
    chunks: int
    vectors: int
    vectors_embedded: int
    rebuilt: bool


@dataclass
class _Counter:
    label: str
    forward: ProgressFn | None = field(default=None)
    embedded: int = 0

    def __call__(self, phase: str, done: int, total: int) -> None:
        if phase == "vectors":  # not the wait for the embedding turn
            self.embedded = done
        if self.forward:
            self.forward(f"{self.label} {phase}", done, total)


def cache_path(cache_dir: Path, set_name: str, dataset: Path, embedder: str) -> Path:
    """The cached index file of one (set, embedder) pair.

    Bundled sets are ``<cache_dir>/<set>-<embedder>.db``; a set given as a folder outside
    ``golden/`` gets a short hash of its resolved path in the name, so two folders with the same
    name do not share an index. Characters unsafe in file names become ``_``.

    Args:
        cache_dir: the cache directory (e.g. ``~/.cache/kb/eval``).
        set_name: the set's name.
        dataset: the set's directory.
        embedder: the embedder spec.

    Returns:
        The file path (not created here).

    """
    stem = f"{set_name}-{embedder}"
    if not _is_bundled(dataset):
        stem += "-" + hashlib.sha256(str(dataset.resolve()).encode()).hexdigest()[:8]
    return cache_dir / (re.sub(r"[^A-Za-z0-9._-]", "_", stem) + ".db")


def index_digest(dataset: Path, config: Config) -> str:
    """A digest of what the cached index depends on: corpus bytes, embedder spec, chunking."""
    h = hashlib.sha256(f"{CACHE_FORMAT}\0{config.embedder}\0{config.chunk}\0".encode())
    for name in ("corpus.jsonl.gz", "corpus.jsonl"):
        if (dataset / name).is_file():
            h.update((dataset / name).read_bytes())
            break
    return h.hexdigest()


def open_cached_index(dataset: Path, db_path: Path, config: Config, *,
                      on_progress: ProgressFn | None = None
                      ) -> tuple[KnowledgeBase, IndexInfo]:
    """Open the set's cached index, building, completing or rebuilding it as needed.

    Args:
        dataset: the set's directory (BEIR layout).
        db_path: the cache file (see ``cache_path``); its directory is created.
        config: the backends to measure with: the embedder builds the index; the LLM and
            reranker (if any) are attached to the returned knowledge base.
        on_progress: called with ``("<set directory name> vectors", done, total)`` while
            embedding.

    Returns:
        The open knowledge base (the caller closes it; ``problems`` lists backends that could
        not be set up) and what was done to the index.

    Raises:
        FileNotFoundError: the set lacks a corpus file.
        RuntimeError: embedding failed (from ``kb.eval.retrieval.open_index``).

    """
    digest = index_digest(dataset, config)
    rebuilt = False
    if db_path.exists():
        store = Store(db_path)
        try:
            stale = store.get_meta(DIGEST_KEY) != digest
        finally:
            store.close()
        if stale:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db_path}{suffix}").unlink(missing_ok=True)
            rebuilt = True
    db_path.parent.mkdir(parents=True, exist_ok=True)
    counter = _Counter(dataset.name, on_progress)
    if not db_path.exists():  # claim the file for this digest first: a broken build resumes
        store = Store(db_path)
        store.set_meta(DIGEST_KEY, digest)
        store.close()
    built = open_index(dataset, db_path, embedder=config.embedder, on_progress=counter)
    service, _ = built.embedding_service()
    built.close()
    # reopened with every backend of ``config``; the loaded embedding model is handed over
    kb = KnowledgeBase(db_path, config, embedder=None if service is None else service.embedder)
    counts = kb.store.counts()
    return kb, IndexInfo(str(db_path), counts["documents"], counts["chunks"], counts["vectors"],
                         counter.embedded, rebuilt)


def _is_bundled(dataset: Path) -> bool:
    try:
        return dataset.resolve().parent == golden_dir().resolve()
    except FileNotFoundError:  # installed from a wheel: no bundled sets
        return False
