"""Stage 9 of an ingest: remove the documents whose files are gone.

Documents under a folder given to ``kb ingest`` or ``kb sync`` whose files no longer exist are
deleted with their chunks, FTS rows and vectors. A sync also deletes the documents an earlier
ingest reached through a symlink under the folder (``kb.store.links``) once their files are
gone. A file kb cannot look at is not known to be gone, and its document stays.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from kb.ingest.ignore import IgnoreRules, is_unread_rules
from kb.ingest.problems import storable
from kb.store import Store
from kb.store.documents import sources_under
from kb.store.links import forget_links, links_under
from kb.types import folder_prefix


def remove_missing(store: Store, roots: Iterable[Path], *, links: bool = False,
                   keep: Iterable[str] = ()) -> tuple[str, ...]:
    """Delete documents stored under any folder in ``roots`` whose file no longer exists.

    A document whose file kb cannot look at (e.g. in a folder it may not read, which the
    report lists as failed) is kept: it is not known to be gone.

    Args:
        store: the open store.
        roots: the paths given to the ingest; only folders count.
        links: also delete the documents recorded as reached through a symlink under one of
            the folders (``kb.store.links``) whose files are gone; the records of links that
            are gone, or lead elsewhere now, are dropped (their documents stay).
        keep: folders whose documents stay whatever their files (folders kept as looking
            unmounted, ``kb.ingest.empty_folders``).

    Returns:
        The removed sources.
    """
    folders = [f for p in roots if p.is_dir()  # a name not UTF-8 has no documents stored
               and storable(f := str(p.resolve()).rstrip("/"))]
    kept = tuple(folder_prefix(k) for k in keep)
    removed = []
    for source in sources_under(store.conn, folders):
        if not source.startswith(kept) and file_gone(Path(source)):
            store.delete_document(source)
            removed.append(source)
    if not links:
        return tuple(removed)
    for folder in folders:
        forget = []
        for link, source in links_under(store, folder):
            if file_gone(Path(source)):
                if store.delete_document(source):
                    removed.append(source)
                forget.append(link)
            elif file_gone(Path(link)) or os.path.realpath(link) != source:
                forget.append(link)
        forget_links(store, forget)
    return tuple(removed)


def remove_links_out(store: Store, roots: Iterable[Path], inside: Path) -> tuple[str, ...]:
    """Delete the documents a symlink under ``roots`` brought in from outside ``inside``.

    A project's config roots follow no such link (``kb.ingest.discover``): what an earlier
    sync (or a folder named by hand) indexed through one goes too, with its record, so a
    cloned project's link to a private file does not stay searchable.

    Args:
        store: the open store.
        roots: the folders synced, resolved.
        inside: the project folder, resolved.

    Returns:
        The removed sources.
    """
    removed, forget = [], []
    for folder in (str(r).rstrip("/") for r in roots if r.is_dir()):
        for link, source in links_under(store, folder):
            if not Path(source).is_relative_to(inside):
                forget.append(link)
                if store.delete_document(source):
                    removed.append(source)
    forget_links(store, forget)
    return tuple(removed)


NAMED_MAX = 3  # documents an ignore warning names (more: counted)


def remove_ignored(store: Store, roots: Iterable[Path], ignore: Sequence[str] = (), *,
                   dry_run: bool = False) -> tuple[str, ...]:
    """Delete documents under any folder in ``roots`` that its ignore rules now leave out.

    A document indexed before a ``.gitignore`` or ``.kbignore`` said otherwise (or by a kb
    without ignore rules: ``node_modules``) goes, as its file would never be indexed now. One
    under an ignore file that cannot be read stays: what that file says is unknown.

    Args:
        store: the open store.
        roots: the paths given to the ingest, resolved; only folders count.
        ignore: the extra gitignore patterns of the batch (``kb.ingest.ignore``).
        dry_run: delete nothing, only name them (a plain ingest, ``ignored_notes``).

    Returns:
        The removed sources (with ``dry_run``: those a sync would remove).
    """
    rules = [IgnoreRules(p, ignore) for p in roots if p.is_dir()]
    removed = []
    folders = [str(r.top) for r in rules if storable(str(r.top))]  # a name not UTF-8: none
    for source in sources_under(store.conn, folders):
        path = Path(source)
        reasons = [r.reason_under(path) for r in rules if path.is_relative_to(r.top)]
        if any(why is not None and not is_unread_rules(why) for why in reasons):
            if not dry_run:
                store.delete_document(source)
            removed.append(source)
    return tuple(removed)


def ignored_notes(store: Store, roots: Iterable[Path], ignore: Sequence[str] = ()
                  ) -> list[str]:
    """A plain ingest's warning for documents its folders' ignore rules now leave out.

    A plain ingest keeps them (a file added by name under an ignored path is the user's own
    choice), and a trial, having written a ``.kbignore`` rule, still found them cited: the
    warning names the first ``NAMED_MAX`` and the command that removes them (``kb sync``).
    A file given by name in this batch is left out of it.
    """
    named = {str(p) for p in roots if not p.is_dir()}
    sources = [s for s in remove_ignored(store, roots, ignore, dry_run=True) if s not in named]
    if not sources:
        return []
    more = f" and {len(sources) - NAMED_MAX} more" if len(sources) > NAMED_MAX else ""
    return [f"{len(sources)} document(s) indexed before are now left out by ignore rules; an "
            "ingest keeps what it indexed, `kb sync` of the folder removes them: "
            f"{', '.join(sources[:NAMED_MAX])}{more}"]


def file_gone(path: Path) -> bool:
    """Whether no regular file is at ``path`` (``False`` when that cannot be told).

    ``os.stat`` rather than ``Path.is_file``: from Python 3.13 ``is_file`` answers ``False``
    on any error, so a folder kb may not read would look empty and its documents be deleted.
    """
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)  # a folder where the file was: gone
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError as exc:
        return exc.errno == errno.ELOOP  # a symlink loop holds no file; anything else: unsure
