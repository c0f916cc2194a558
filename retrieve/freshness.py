"""Stale citations: whether the files behind the candidates still hold what was indexed.

Checked at query time by one ``os.stat`` per candidate document (never by hashing): a document
whose file has another size or modification time than at ingest is *stale* (its references
carry ``stale``, the context block says so); one whose file is gone is *gone*: its passages
are never handed out as evidence, and the diagnostics name it (``kb sync`` or ``kb ingest`` of
its folder removes it). Sources that are not absolute paths (URIs, evaluation records) have
no file to look at and are taken as they are.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from kb.types import Candidate, Document

FileState = Literal["current", "stale", "gone", "unknown"]


def file_state(doc: Document | None) -> FileState:
    """How the file behind ``doc`` compares with what was indexed (one ``os.stat``).

    Returns:
        ``gone`` when no regular file is at its source (or the document itself is gone),
        ``stale`` when its size or modification time differs from the indexed ones,
        ``current`` when both match, ``unknown`` when the source is not an absolute path or
        the file cannot be looked at (e.g. a folder kb may not search).
    """
    if doc is None:
        return "gone"
    if not os.path.isabs(doc.source):
        return "unknown"
    try:
        st = os.stat(doc.source)
    except (FileNotFoundError, NotADirectoryError):
        return "gone"
    except OSError as exc:
        return "gone" if exc.errno == errno.ELOOP else "unknown"
    if not stat.S_ISREG(st.st_mode):
        return "gone"
    return "current" if (st.st_size, st.st_mtime) == (doc.size, doc.mtime) else "stale"


@dataclass(frozen=True, slots=True)
class FileCheck:
    """The candidates left once documents whose files are gone are dropped.

    Attributes:
        kept: the candidates, order preserved, without those of gone documents.
        documents: document id -> document, for every document among the first ``n`` kept.
        stale: ids of those documents whose files changed since they were indexed.
        gone: sources of the documents dropped, in the order met.
    """

    kept: tuple[Candidate, ...]
    documents: dict[int, Document]
    stale: frozenset[int]
    gone: tuple[str, ...]

    def extended(self, more: Sequence[Candidate],
                 lookup: Callable[[Iterable[int]], Mapping[int, Document]]
                 ) -> tuple[FileCheck, list[Candidate]]:
        """This check with the files of ``more`` candidates looked at too (beyond ``n``).

        Returns:
            The combined check (``kept`` unchanged) and those of ``more`` whose files are
            not gone.
        """
        extra = check_files(more, lookup, n=len(more))
        return FileCheck(self.kept, {**self.documents, **extra.documents},
                         self.stale | extra.stale,
                         self.gone + tuple(g for g in extra.gone if g not in self.gone)
                         ), list(extra.kept)


def check_files(candidates: Sequence[Candidate],
                lookup: Callable[[Iterable[int]], Mapping[int, Document]], *, n: int
                ) -> FileCheck:
    """Look at the files of the documents among the first ``n`` candidates; drop gone ones.

    Candidates that move up into the first ``n`` once others are dropped are checked too, so
    the first ``n`` kept are all checked.

    Args:
        candidates: best first.
        lookup: document ids -> documents (``Store.documents_by_id``, in the search's snapshot).
        n: how many of the first candidates must be checked (what later stages read).
    """
    kept = list(candidates)
    documents: dict[int, Document] = {}
    states: dict[int, FileState] = {}
    gone: list[str] = []
    while True:
        new = list(dict.fromkeys(c.doc_id for c in kept[:n] if c.doc_id not in states))
        if not new:
            break
        found = lookup(new)
        for doc_id in new:
            doc = found.get(doc_id)
            states[doc_id] = file_state(doc)
            if states[doc_id] == "gone":
                gone.append(doc.source if doc is not None else f"document {doc_id}")
            elif doc is not None:
                documents[doc_id] = doc
        kept = [c for c in kept if states.get(c.doc_id) != "gone"]
    return FileCheck(tuple(kept), documents,
                     frozenset(d for d, s in states.items() if s == "stale"), tuple(gone))
