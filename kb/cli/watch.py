"""``kb watch``: keep folders in sync while it runs, with watchfiles (Rust ``notify``).

It syncs the folders once, then waits for changes: each batch (changes settle for
``--debounce-ms``) is sorted by ``kb.ingest.changes.plan_changes`` and applied: changed files
ingested, deleted ones removed, and a full sync when a folder came or went or an ignore file
changed. Each batch prints its report as ``kb sync`` does, naming each file added, updated
or removed. Ctrl-C stops it between batches, or
reports what a batch committed when it stops one.
"""

from __future__ import annotations

import dataclasses
import re
import stat
import time
from collections.abc import Iterable
from pathlib import Path

import click

from kb.api import KnowledgeBase
from kb.cli.common import cli, cli_settings, emit_json, errors_as_one_line, open_kb
from kb.cli.ingest import folders_or_roots, print_report, project_of_roots, run_ingest
from kb.cli.signals import terminate_as_interrupt
from kb.errors import DocumentNotFound
from kb.ingest.changes import ChangeKind, ChangePlan, plan_changes
from kb.ingest.empty_folders import held_under
from kb.ingest.extract import SUPPORTED_SUFFIXES
from kb.types import IngestReport

DEBOUNCE_MS = 300  # changes settle this long before a batch is applied (watchfiles: 1,600)
WAKE_MS = 500  # the watcher yields at least this often (an empty batch when nothing changed)
KINDS: dict[int, ChangeKind] = {1: "added", 2: "modified", 3: "deleted"}  # watchfiles.Change


def _apply(kb: KnowledgeBase, plan: ChangePlan, folders: list[Path],
           as_json: bool, inside: Path | None) -> IngestReport:
    """Carry out ``plan``: a full sync, or the removals and then the ingest it lists."""
    if plan.resync:
        return run_ingest(as_json, lambda **shown: kb.sync(folders, inside=inside, **shown))
    removed = []
    for path in plan.remove:
        try:
            removed.append(kb.remove(str(path)).source)
        except DocumentNotFound:
            pass  # never indexed (empty, failed, or gone before it was)
    report = IngestReport(embedder=kb.config.embedder)  # a batch of removals only
    if plan.ingest:
        report = run_ingest(as_json, lambda **shown: kb.ingest(plan.ingest, inside=inside,
                                                               **shown))
    return dataclasses.replace(report, removed=(*removed, *report.removed))


@cli.command()
@click.argument("folders", nargs=-1, type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True,
              help="JSON Lines: each batch's files, then its summary.")
@click.option("--debounce-ms", default=DEBOUNCE_MS, show_default=True,
              type=click.IntRange(50, 60_000),
              help="How long changes must settle before a batch is applied.")
@click.pass_context
@errors_as_one_line
def watch(ctx: click.Context, folders: tuple[str, ...], as_json: bool, debounce_ms: int) -> None:
    """Sync folders, then keep them in sync as files change, until Ctrl-C.

    Created and edited files are ingested, deleted ones removed, under the same ignore rules
    as `kb sync` (.gitignore, .kbignore, built-in excludes). A file that fails is reported
    once, as by `kb sync`. Without FOLDERS: the config file's ingest roots.
    """
    inside = project_of_roots(ctx, folders)  # a project's roots: no symlink out of it
    folders = folders_or_roots(ctx, folders)
    roots = [Path(f).expanduser().resolve() for f in folders]
    missing = [f for f, r in zip(folders, roots, strict=True) if not r.is_dir()]
    if missing and not cli_settings(ctx).db.exists():
        raise click.UsageError(f"{missing[0]!r} is not a folder")  # and no index is made
    # SIGTERM (kill, a service manager) stops it as Ctrl-C does, closing the index: its -wal
    # is folded into the file, so a copy of the one file holds every document
    with terminate_as_interrupt(), open_kb(ctx, create=True) as kb:
        sources = [d.source for d in kb.documents()] if missing else []
        for name, root in zip(folders, roots, strict=True):
            if name not in missing:
                continue
            if not held_under(sources, str(root)):  # never held a document: a typo
                raise click.UsageError(f"{name!r} is not a folder")
            click.echo(f"kb: {root}: not there; its documents are kept, and it is synced "  # a
                       "and watched once it is", err=True)  # drive not plugged in yet
        try:
            while _any_present(roots) and _watch(kb, roots, as_json, debounce_ms, inside):
                pass  # a folder went, came back or was replaced: the folders there are watched
        except KeyboardInterrupt:  # between a batch's steps, each committed: stopped, exit 0 as
            pass  # while waiting (within a batch's ingest, that ingest reports it: 130 / 143)
    click.echo("kb: watch stopped", err=True)


def _watch(kb: KnowledgeBase, roots: list[Path], as_json: bool, debounce_ms: int,
           inside: Path | None) -> bool:
    """Sync the roots there, apply their changes until Ctrl-C (``False``) or one changes (``True``).

    A root changes when it goes, is replaced or comes back.

    The watcher is running once it first yields (changes, or none within the timeout): only
    then the first sync, so a change made meanwhile is in the next batch. A folder deleted or
    moved away (``rm -rf``, a restore from backup) keeps its documents, as ``kb sync`` does,
    and the other folders are still watched meanwhile.
    """
    import watchfiles

    synced = False
    # each root's identity: one replaced (restored, moved back) is another folder, while the
    # watcher still follows the old one; the roots watched are those there at this look
    watched = {r: _identity(r) for r in roots}
    mounted = mounts_under(roots)  # drives mounted inside: a new one's files are not watched
    present = [r for r in roots if watched[r] is not None]
    if not present:  # gone again since _any_present looked
        return True
    try:
        for changes in watchfiles.watch(*present, watch_filter=None, debounce=debounce_ms,
                                        rust_timeout=WAKE_MS, yield_on_timeout=True,
                                        raise_interrupt=False):
            if moved := [r for r in roots if _identity(r) != watched[r]]:
                for root in moved:  # each (two drives unplugged at once: two lines)
                    others = sum(r.is_dir() for r in roots if r != root)
                    event, said = _change_said(root, watched[root], others)
                    click.echo(f"kb: {root}: {said}", err=True)
                    if as_json:  # a JSON Lines reader hears of it too
                        emit_json({"type": "folder", "path": str(root), "event": event})
                return True  # the next first sync catches up on what this batch held
            if (now := mounts_under(roots)) != mounted:
                for point in sorted(now ^ mounted):
                    event = "mounted" if point in now else "unmounted"
                    click.echo(f"kb: {point}: a drive or share was {event} here; the folders "
                               "are synced and watched again", err=True)
                    if as_json:
                        emit_json({"type": "folder", "path": str(point), "event": event})
                return True
            synced = _batch(kb, present, as_json, changes, synced, inside)
    except FileNotFoundError:  # a folder went before the watcher started: watch the others
        if all(r.is_dir() for r in present):
            raise
        return True
    return False


def mounts_under(roots: Iterable[Path]) -> frozenset[Path]:
    """The mount points strictly inside ``roots`` (Linux's ``/proc/self/mountinfo``).

    Mounting a drive at ``notes/usb`` makes no event a watcher sees, and the new file
    system's files are not watched; unmounting it neither. A change of this set makes the
    watch sync and start again. Empty where the file is missing (another system).
    """
    try:
        lines = Path("/proc/self/mountinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    points = set()
    for line in lines.splitlines():
        fields = line.split()
        if len(fields) > 4:  # field 5: the mount point, spaces and the like octal-escaped
            point = Path(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields[4]))
            if any(point != r and point.is_relative_to(r) for r in roots):
                points.add(point)
    return frozenset(points)


def _change_said(folder: Path, was: tuple[int, int] | None, others: int) -> tuple[str, str]:
    """What became of a watched folder whose identity changed, and the sentence saying so.

    The first is ``back``, ``gone`` or ``replaced``. ``was``: its identity before;
    ``others``: how many other watched folders are there now.
    """
    if was is None:
        return "back", "back; it is synced and watched again"
    if not folder.is_dir():
        return "gone", ("gone; its documents are kept, and it is synced and watched again once "
                        "it is back" + ("; the other folders are still watched" if others
                                        else " (Ctrl-C stops)"))
    return "replaced", ("replaced; its documents are kept, and it is synced and watched as the "
                        "new one")


def _any_present(roots: list[Path]) -> bool:
    """Wait while none of ``roots`` is there; ``False`` on Ctrl-C."""
    try:
        while not any(r.is_dir() for r in roots):
            time.sleep(WAKE_MS / 1000)
    except KeyboardInterrupt:
        return False
    return True


def _identity(folder: Path) -> tuple[int, int] | None:
    """The folder's (device, inode), ``None`` when it is gone."""
    try:
        info = folder.stat()
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None


def _batch(kb: KnowledgeBase, roots: list[Path], as_json: bool,
           changes: Iterable[tuple[int, str]], synced: bool, inside: Path | None) -> bool:
    """The first sync (``synced`` false), then one batch of changes; ``True`` once synced."""
    if not synced:
        print_report(run_ingest(as_json, lambda **shown: kb.sync(roots, inside=inside,
                                                                 **shown)), as_json)
        click.echo(f"kb: watching {', '.join(map(str, roots))}; Ctrl-C stops", err=True)
    plan = plan_changes(((KINDS[int(kind)], Path(p)) for kind, p in changes), roots,
                        SUPPORTED_SUFFIXES, ignore=kb.config.ingest_ignore)
    if plan:
        print_report(_apply(kb, plan, roots, as_json, inside), as_json, name_changes=True)
    return True
