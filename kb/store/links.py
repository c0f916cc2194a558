"""Files an ingest reached through a symlink out of the folder it walked, kept in ``meta``.

A document's source is its file's real path, so a file that ``DIR/notes.md -> /elsewhere/a.md``
brings in is stored as ``/elsewhere/a.md``: nothing in the document says it came from ``DIR``.
Each such link is recorded under the meta key ``symlink:<link path>`` with the document's source
as its value, so that ``kb sync DIR`` can remove the document once its file is gone, even when
the link went with it. Records change no search result: writing them does not bump the index
generation.
"""

from __future__ import annotations

from collections.abc import Iterable

from kb.store import Store
from kb.store.meta import MetaKey, keys_under

LINK_PREFIX = MetaKey.SYMLINK.value


def record_links(store: Store, links: Iterable[tuple[str, str]]) -> None:
    """Record (link path, document source) pairs, replacing older records of the same links."""
    rows = [(LINK_PREFIX + link, source) for link, source in links]
    if rows:
        with store.write(bump=False) as c:
            c.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", rows)


def links_under(store: Store, folder: str) -> list[tuple[str, str]]:
    """The recorded (link path, document source) pairs whose link lies under ``folder``.

    Args:
        store: the open store.
        folder: an absolute folder path, without a trailing separator.
    """
    low, high = keys_under(folder, LINK_PREFIX)
    return [(str(k)[len(LINK_PREFIX):], str(v)) for k, v in store.conn.execute(
        "SELECT key, value FROM meta WHERE key >= ? AND key < ? ORDER BY key", (low, high))]


def forget_links(store: Store, links: Iterable[str]) -> None:
    """Drop the records of these link paths."""
    keys = [(LINK_PREFIX + link,) for link in links]
    if keys:
        with store.write(bump=False) as c:
            c.executemany("DELETE FROM meta WHERE key = ?", keys)
