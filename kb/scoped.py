"""A knowledge base seen through a fixed scope (``kb serve`` / ``kb mcp`` ``--source ...``).

What a server started with ``--source``, ``--type`` or ``--tag`` hands out.

The owner of a server chooses which documents its callers (an agent, an HTTP client) may see:
sources (a file, or a folder and what lies under it), source types and tags, read as
``kb search``'s filters read them (every kind given must hold; within one kind, any value).
Every read goes through the scope:

- a search keeps only the documents inside it; a caller's own filters narrow it further and
  never widen it (both must hold), and its notes speak only of the documents inside it;
- the document list shows only them;
- a chunk or document outside it is "not found", the answer for one that does not exist, so
  a caller learns nothing of the rest.

The scope is read again at each call: a document ingested into it later is seen, one whose tag
is edited away is not. Ingest roots must lie inside the scope's sources
(``kb.server.roots.check_ingest_roots``: an ingest report names and quotes the files it read).
Not scoped: ``status()`` (and the HTTP health check) count the whole index, and the judge's
term statistics are the whole index's: the pass or fail of a passage does not depend on what
hidden documents write (the checks that read it are off), but a relevance percentage may move
with a word written only there.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kb.api import KnowledgeBase
from kb.config import Config, SearchOptions
from kb.errors import ChunkNotFound, DocumentNotFound
from kb.store.search import Filters
from kb.types import Document, tag_key
from kb.types.reading import NEIGHBOURS, ChunkInContext, DocumentText
from kb.types.search import SearchResult


@dataclass(frozen=True, slots=True)
class DocumentScope:
    """Which documents a scoped knowledge base shows.

    Attributes:
        sources: absolute paths or URIs; a document whose source equals one or lies under it
            (a folder, whole path segments) is inside. Empty: any source.
        source_types: ``pdf``, ``docx``, ``html``, ``md``, ``txt``; empty: any type.
        tags: a document carrying any of these (any case) is inside; empty: tags do not matter.

    Raises:
        TypeError, ValueError: as ``kb.config.SearchOptions`` for the same values (a relative
            source, an unknown type, an empty tag).
    """

    sources: tuple[str, ...] = ()
    source_types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        checked = SearchOptions(sources=self.sources, source_types=self.source_types,
                                tags=self.tags)  # one set of rules for both
        for name in ("sources", "source_types", "tags"):
            object.__setattr__(self, name, tuple(dict.fromkeys(getattr(checked, name))))

    @property
    def active(self) -> bool:
        """Whether the scope leaves anything out."""
        return bool(self.sources or self.source_types or self.tags)

    def filters(self) -> Filters:
        """The store filter selecting the documents inside."""
        return Filters(self.sources, self.source_types, None,
                       tuple(dict.fromkeys(tag_key(t) for t in self.tags)))

    def describe(self) -> str:
        """One line for a server's start-up message: ``sources ...; types ...; tags ...``."""
        parts = [f"{label} {', '.join(values)}" for label, values in (
            ("sources", self.sources), ("types", self.source_types), ("tags", self.tags))
            if values]
        return "; ".join(parts) or "the whole index"


class ScopedKnowledgeBase(KnowledgeBase):
    """``KnowledgeBase`` whose searches and reads see only the documents in ``scope``.

    Args:
        path, config, models: as ``KnowledgeBase``.
        scope: the documents shown (``DocumentScope``).
    """

    def __init__(self, path: Path | str, config: Config | None = None, *,
                 scope: DocumentScope, **models: Any) -> None:
        super().__init__(path, config, **models)
        self.scope = scope

    def doc_ids(self) -> frozenset[int]:
        """The ids of the documents inside the scope now (one read)."""
        return frozenset(int(i) for i in self.store.doc_ids_matching(self.scope.filters()))

    def search(self, query: str, options: SearchOptions | None = None, *,
               cancel: threading.Event | None = None, **kwargs: Any) -> SearchResult:
        """``KnowledgeBase.search`` inside the scope (``options.doc_ids`` narrowed to it)."""
        if options is None:
            kwargs.setdefault("fill", "top_k" in kwargs)
            options, kwargs = SearchOptions(**kwargs), {}
        if isinstance(options, SearchOptions) and not kwargs:
            inside = self.doc_ids()
            if options.doc_ids is not None:
                inside &= frozenset(options.doc_ids)
            options = replace(options, doc_ids=tuple(inside))
        return super().search(query, options, cancel=cancel, **kwargs)

    def documents(self) -> list[Document]:
        """The documents inside the scope, ordered by source."""
        inside = self.doc_ids()
        return [d for d in super().documents() if d.id in inside]

    def find_document(self, ref: str | os.PathLike[str]) -> Document:
        """``KnowledgeBase.find_document``; one outside the scope is not found."""
        doc = super().find_document(ref)
        if doc.id not in self.doc_ids():
            raise DocumentNotFound(os.fspath(ref))
        return doc

    def get_chunk(self, chunk_id: int, neighbours: int = NEIGHBOURS) -> ChunkInContext:
        """``KnowledgeBase.get_chunk``; a chunk of a document outside the scope is not found."""
        found = super().get_chunk(chunk_id, neighbours)
        if found.document.id not in self.doc_ids():
            raise ChunkNotFound(chunk_id)
        return found

    def get_document(self, doc_id: int) -> DocumentText:
        """``KnowledgeBase.get_document``; one outside the scope is not found."""
        found = super().get_document(doc_id)
        if found.document.id not in self.doc_ids():
            raise DocumentNotFound(str(doc_id))
        return found


__all__ = ["DocumentScope", "ScopedKnowledgeBase"]
