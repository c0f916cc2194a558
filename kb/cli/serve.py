"""``kb mcp``, ``kb serve`` and ``kb tool-schema``: interfaces for assistants."""

from __future__ import annotations

import json
from typing import Any

import click

from kb.cli.common import (
    cli,
    errors_as_one_line,
    open_kb,
    scope_options,
    server_scope,
)
from kb.cli.ingest import ingest_roots
from kb.cli.signals import terminate_as_interrupt
from kb.errors import KbError
from kb.server.http import DEFAULT_HOST, DEFAULT_PORT
from kb.server.tool import INGEST_TOOL_NAME, SCHEMA_FORMATS, TOOL_NAME

_ROOT_HELP = ("A folder the ingest tool/endpoint may read (repeatable); paths outside every "
              "root, also through symlinks, are refused. Default: the config file's [ingest] "
              "roots; without any, ingest is off.")


@cli.command()
@click.option("--root", "roots", multiple=True, type=click.Path(file_okay=False),
              help=_ROOT_HELP)
@scope_options
@click.pass_context
@errors_as_one_line
def mcp(ctx: click.Context, roots: tuple[str, ...], source: tuple[str, ...],
        type_: tuple[str, ...], tag: tuple[str, ...]) -> None:
    """Serve the knowledge_search tool to agents over MCP (stdio); needs the `mcp` extra.

    With --source, --type or --tag the agent sees only those documents: in searches, in the
    document list and when it reads a document or chunk.
    """
    from kb.server.mcp import require_mcp, run_stdio
    from kb.server.roots import check_ingest_roots, check_roots

    require_mcp()
    scope = server_scope(source, type_, tag)
    allowed = check_roots(ingest_roots(ctx, roots))
    check_ingest_roots(scope, allowed)
    with open_kb(ctx, create=bool(allowed), scope=scope) as kb:  # only one that can ingest creates
        run_stdio(kb, allowed)


@cli.command()
@click.option("--host", default=DEFAULT_HOST, show_default=True,
              help="Address to bind; anything but loopback requires a bearer token.")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port (0: any free port).")
@click.option("--token", envvar="KB_TOKEN", default=None,
              help="Bearer token every request must carry; prefer the KB_TOKEN variable "
                   "(a command line is visible to other users).")
@click.option("--root", "roots", multiple=True, type=click.Path(file_okay=False),
              help=_ROOT_HELP)
@scope_options
@click.pass_context
@errors_as_one_line
def serve(ctx: click.Context, host: str, port: int, token: str | None,
          roots: tuple[str, ...], source: tuple[str, ...], type_: tuple[str, ...],
          tag: tuple[str, ...]) -> None:
    """Serve the HTTP API: search, context, ingest, documents, health, /openapi.json.

    With --source, --type or --tag clients see only those documents: in searches, in the
    document list and when they read a document or chunk.
    """
    from kb.server.http import ServeSettings, check_settings
    from kb.server.http import serve as serve_http
    from kb.server.roots import check_ingest_roots, check_roots

    scope = server_scope(source, type_, tag)

    settings = ServeSettings(host=host, port=port, token=token or None,
                             roots=check_roots(ingest_roots(ctx, roots)))
    check_ingest_roots(scope, settings.roots)
    check_settings(settings)  # refuse an unguarded public bind before opening anything

    def ready(server: Any) -> None:
        guard = "bearer token required" if settings.token else "no token: loopback only"
        where = ", ".join(map(str, settings.roots)) or "off"
        click.echo(f"kb: serving {server.url} ({guard}; ingest roots: {where}; documents: "
                   f"{scope.describe()}); Ctrl-C stops", err=True)

    # SIGTERM stops it as Ctrl-C does, closing the index (its -wal folded into the file)
    with terminate_as_interrupt(), open_kb(ctx, create=bool(settings.roots), scope=scope) as kb:
        try:
            serve_http(kb, settings, on_ready=ready)
        except OSError as exc:
            raise KbError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc


@cli.command(name="tool-schema")
@click.option("--format", "fmt", type=click.Choice(SCHEMA_FORMATS), default="function",
              show_default=True,
              help="function: {name, description, parameters}; openai: a Chat Completions "
                   "tools entry; anthropic: input_schema; mcp: inputSchema.")
@click.option("--tool", "name", type=click.Choice([TOOL_NAME, INGEST_TOOL_NAME]),
              default=TOOL_NAME, show_default=True, help="Which tool to describe.")
@click.option("--json", "as_json", is_flag=True,
              help="Compact one-line JSON (default: indented JSON).")
@errors_as_one_line
def tool_schema(fmt: str, name: str, as_json: bool) -> None:
    """Print the knowledge_search tool's JSON schema for function calling."""
    from kb.server.tool import tool_schema as make_schema

    schema = make_schema(fmt, name=name)  # type: ignore[arg-type]  # click.Choice checked it
    click.echo(json.dumps(schema, ensure_ascii=False, indent=None if as_json else 2))
