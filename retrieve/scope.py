"""Stage 0, scope: which documents a search may return, from the options alone.

Sources, source types and tags (as ``kb.types.tag_key`` matches them) pass through to both
searches (``kb.store.search.Filters``, applied in SQL before any top-k cut); a date range
becomes the ids of the documents created inside it, compared as timezone-aware datetimes in
code (never as text in SQL), kept only among the options' ``doc_ids`` when those are given.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from kb.config import SearchOptions
from kb.periods import parse_instant
from kb.store import Store
from kb.store.search import Filters
from kb.types import tag_key


def scope(options: SearchOptions, created: Mapping[int, datetime]) -> Filters:
    """The filters both searches apply.

    Args:
        options: the search's sources, source types, tags and ``created_after`` (inclusive) /
            ``created_before`` (exclusive) instants.
        created: document id -> its creation time (timezone-aware).

    Returns:
        ``Filters`` whose ``doc_ids`` lists, in ascending order, the documents created inside
        the range and among ``options.doc_ids``; ``None`` when neither is given.

    Raises:
        ValueError: a malformed date (``SearchOptions`` checks them when it is built).
    """
    after = parse_instant(options.created_after, "created_after")
    before = parse_instant(options.created_before, "created_before")
    doc_ids = options.doc_ids
    if after or before:
        within = None if doc_ids is None else set(doc_ids)
        doc_ids = tuple(sorted(i for i, t in created.items()
                               if (after is None or t >= after) and (before is None or t < before)
                               and (within is None or i in within)))
    return Filters(options.sources, options.source_types, doc_ids,
                   tuple(dict.fromkeys(tag_key(t) for t in options.tags)))


EMPTY_NOTE = "the knowledge base is empty: no document has been indexed into it"
OUT_OF_SCOPE_NOTE = ("no indexed document is in this search's scope (its doc_ids: those of a "
                     "scoped server's sources, types and tags)")


def scope_notes(store: Store, options: SearchOptions,
                filters: Filters | None = None) -> tuple[str, ...]:
    """Notes on why a search can find nothing whatever it asks: an empty index, or a filter.

    A filter that keeps nothing: each tag no document carries, each source no document's
    source matches, each type no document has, a date range no document was created in
    (``filters``: the search's, from ``scope``). The note names the reason, so the user reads
    the index or the filter, not the question, as the cause (``Diagnostics.notes``): an
    assistant pointed at a mistyped collection must not read "the documents do not hold it".
    With ``options.doc_ids`` (a scoped server) only those documents are looked at, so a note
    tells nothing of the others: a tag carried only outside the scope is "carried by none".
    One read (``LIMIT 1``) for the empty index (and one for the scope's documents, with
    ``doc_ids``), and one per tag, source or type given.
    """
    ids = options.doc_ids
    if ids is not None and not store.any_document(Filters(doc_ids=ids)):
        return (OUT_OF_SCOPE_NOTE,)  # before the empty index: says nothing of the rest
    if not store.any_document(Filters()):
        return (EMPTY_NOTE,)
    notes = [f"no document carries tag {tag!r}" for tag in dict.fromkeys(options.tags)
             if not store.any_document(Filters(tag_keys=(tag_key(tag),), doc_ids=ids))]
    notes += [f"no document's source is or lies under {source!r}" for source in options.sources
              if not store.any_document(Filters(sources=(source,), doc_ids=ids))]
    notes += [f"no document is of type {kind!r}" for kind in dict.fromkeys(options.source_types)
              if not store.any_document(Filters(source_types=(kind,), doc_ids=ids))]
    if filters is not None and filters.doc_ids == () and (options.created_after
                                                         or options.created_before):
        bounds = [f"{name} {value}" for name, value in (
            ("created_after", options.created_after), ("created_before", options.created_before))
            if value]
        notes.append(f"no document was created in the date range ({', '.join(bounds)})")
    return tuple(notes)
