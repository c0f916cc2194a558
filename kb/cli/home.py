"""``kb collections`` and ``kb config``: where the indexes live and the effective settings."""

from __future__ import annotations

import json
from pathlib import Path

import click

from kb.api import KnowledgeBase
from kb.cli.common import cli, cli_settings, emit_json, errors_as_one_line, settings_problem
from kb.cli.config_file import SECRET_KEYS
from kb.cli.settings import (
    CONFIG_FILE,
    PROJECT_DIR,
    collection_path,
    collections_dir,
    find_project,
    user_config_file,
)
from kb.errors import KbError

# WAL mode's companions of an index file, and its embedding turn's lock (kb.ingest.embed)
SQLITE_SIDE_FILES = ("-wal", "-shm", ".embed-lock")


@cli.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True,
              help="JSON Lines: name, path, bytes and in_use per collection.")
@click.pass_context
@errors_as_one_line
def collections(ctx: click.Context, as_json: bool) -> None:
    """List the named collections (the default action), or create, remove or locate one.

    Collections live in the user's data folder; `kb --collection NAME ...` uses one. The
    index in use is marked with *.
    """
    if ctx.invoked_subcommand is not None:
        return
    in_use = cli_settings(ctx).db
    found = sorted(collections_dir().glob("*.db"))
    if not found and not as_json:  # JSON lines: none is no line
        click.echo(f"no collections yet in {collections_dir()} (`kb collections create NAME`, "
                   "or `kb --collection NAME ingest ...`)", err=True)
    for path in found:
        row = {"name": path.stem, "path": str(path), "bytes": path.stat().st_size,
               "in_use": path == in_use}
        if as_json:
            emit_json(row)
        else:
            click.echo(f"{'*' if row['in_use'] else ' '} {path.stem:20} "
                       f"{row['bytes']:>12,} bytes  {path}")
    if not as_json and in_use.parent != collections_dir():
        click.echo(f"in use: {in_use} ({cli_settings(ctx).db_origin})", err=True)


@collections.command(name="create")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="JSON output: name and path.")
@click.pass_context
@errors_as_one_line
def create_collection(ctx: click.Context, name: str, as_json: bool) -> None:
    """Create an empty collection NAME (its index file in the user's data folder)."""
    path = collection_path(name)
    if path.exists():
        raise KbError(f"collection {name!r} exists: {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    KnowledgeBase(path, cli_settings(ctx).config).close()
    if as_json:
        emit_json({"name": name, "path": str(path)})
    else:
        click.echo(f"created collection {name}: {path}")


@collections.command(name="remove")
@click.argument("name")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--json", "as_json", is_flag=True, help="JSON output: name and path removed.")
@errors_as_one_line
def remove_collection(name: str, yes: bool, as_json: bool) -> None:
    """Delete collection NAME: its index file, with every document and vector in it.

    The documents' own files are not touched. Asks first unless --yes is given.
    """
    path = collection_path(name)
    if not path.exists():
        raise KbError(f"no collection {name!r} (`kb collections` lists them)")
    if not yes:
        click.confirm(f"Delete collection {name} ({path})?", abort=True, err=True)
    for side in (*(Path(f"{path}{suffix}") for suffix in SQLITE_SIDE_FILES), path):
        side.unlink(missing_ok=True)
    if as_json:
        emit_json({"removed": name, "path": str(path)})
    else:
        click.echo(f"removed collection {name}: {path}")


@collections.command(name="path")
@click.argument("name", required=False)
@click.pass_context
@errors_as_one_line
def collection_location(ctx: click.Context, name: str | None) -> None:
    """Print the index file of collection NAME, or of the index in use (it need not exist)."""
    click.echo(str(collection_path(name)) if name else str(cli_settings(ctx).db))


@cli.command(name="config")
@click.option("--json", "as_json", is_flag=True,
              help="JSON output: index, config_files and settings (key, value, source, "
                   "origin).")
@click.pass_context
@errors_as_one_line
def show_config(ctx: click.Context, as_json: bool) -> None:
    """Show the effective settings and where each came from.

    Sources, each overriding the one before: default, user file, project file (.kb/
    config.toml in the nearest project), env, flag. API keys are shown as set or not. When
    a file, variable or flag is malformed, the config files and the error (exit 2).
    """
    project = find_project(Path.cwd())
    files = {"user": str(user_config_file()),
             "project": str(project / PROJECT_DIR / CONFIG_FILE) if project else None}
    problem = settings_problem(ctx)
    if problem is not None:
        if as_json:
            emit_json({"config_files": files,
                       "error": {"type": "invalid_arguments", "message": problem}})
        else:
            _echo_files(files)
        raise ValueError(problem)
    settings = cli_settings(ctx)
    rows = [{"key": s.key, "value": _shown(s.key, s.value), "source": s.source,
             "origin": s.origin} for s in settings.entries]
    if as_json:
        emit_json({"index": {"path": str(settings.db), "origin": settings.db_origin,
                             "collection": settings.collection},
                   "config_files": files, "settings": rows})
        return
    click.echo(f"index: {settings.db}  ({settings.db_origin})")
    _echo_files(files)
    width = max(len(s.key) for s in settings.entries) + 1
    for s in settings.entries:
        where = f" ({s.origin})" if s.origin else ""
        value = json.dumps(_shown(s.key, s.value), ensure_ascii=False)
        click.echo(f"{s.key:{width}}{value:40} {s.source}{where}")


def _echo_files(files: dict[str, str | None]) -> None:
    """One line per config file: its path, ``(not present)`` or ``none`` (no project)."""
    for which, path in files.items():
        state = "none" if path is None else path + ("" if Path(path).is_file() else
                                                    " (not present)")
        click.echo(f"{which} config file: {state}")


def _shown(key: str, value: object) -> object:
    """A setting's value for display: a secret only as whether it is set; tuples as lists."""
    if key in SECRET_KEYS:
        return None if value is None else "(set)"
    return list(value) if isinstance(value, tuple) else value
