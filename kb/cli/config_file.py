"""The config file's settings: their keys, types and checks, and reading one file (TOML).

``KEYS`` names every setting a config file, a variable or a flag may set, with its type and
default; ``check_value`` checks a value of any layer; ``read_config_file`` reads one file.
What a *project's* file may set is narrower than the user's own file: a project folder (a
repository cloned from anyone) must not send the user's documents, questions or API key to a
server of its choosing, nor open folders outside itself to ``kb serve`` and ``kb mcp``
(``_project_checked``).
"""

from __future__ import annotations

import codecs
import dataclasses
import re
import tomllib
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from kb.backends.ollama import ollama_base_url
from kb.backends.registry import SpecRole, check_spec, loopback_url
from kb.config import (
    DEFAULT_EMBEDDER,
    DEFAULT_OLLAMA_HOST,
    EXACT_SCAN_MAX_VECTORS,
    EXTRACT_TIMEOUT_S,
    MAX_TIMEOUT_S,
    PipelineSettings,
    check_pipeline_value,
    default_cache_dir,
)
from kb.ingest.extract.utf16 import utf16_without_bom

DEFAULT_COLLECTION = "default"
COLLECTION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
TABLES = ("ingest", "pipeline", "index")  # a config file's tables (the rest is top level)

# setting key -> (type, default). Keys with a dot live in the config file's table of that name.
_TOP: dict[str, tuple[Any, Any]] = {
    "collection": (str, DEFAULT_COLLECTION),
    "embedder": (str, DEFAULT_EMBEDDER),
    "llm": (str | None, None),
    "reranker": (str | None, None),
    "vision": (str | None, None),
    "ollama_host": (str, DEFAULT_OLLAMA_HOST),
    "api_key": (str | None, None),
    "cache_dir": (str, str(default_cache_dir())),
    "ingest.extract_timeout_s": (float, EXTRACT_TIMEOUT_S),
    "ingest.ignore": (tuple[str, ...], ()),
    "ingest.roots": (tuple[str, ...], ()),
    "index.exact_scan_max_vectors": (int, EXACT_SCAN_MAX_VECTORS),
}
_PIPELINE_HINTS = typing.get_type_hints(PipelineSettings)
KEYS: dict[str, tuple[Any, Any]] = {
    **_TOP, **{f"pipeline.{f.name}": (_PIPELINE_HINTS[f.name], f.default)
               for f in dataclasses.fields(PipelineSettings)}}
SECRET_KEYS = frozenset({"api_key"})
_TABLE_HEADER = re.compile(r"\s*\[([^\[\]]+)\]\s*(?:#.*)?$")
_POSITIVE = frozenset({"pipeline.helper_timeout_s", "ingest.extract_timeout_s"})
# model settings whose spec syntax is checked on reading (no server is contacted)
_SPEC_ROLES: dict[str, SpecRole] = {"embedder": "embedder", "llm": "llm", "vision": "vision",
                                    "reranker": "reranker"}


def read_config_file(path: Path, roots_base: Path | None = None) -> dict[str, Any]:
    """The settings a config file sets, as ``KEYS`` names -> checked values (``{}``: no file).

    Args:
        path: the config file.
        roots_base: the folder a relative ``[ingest] roots`` entry is resolved against (a
            project file's project folder); ``None`` (the user file): a relative one is an
            error. Absolute and ``~/...`` entries are kept as given.

    Raises:
        ValueError: the file is not TOML, names an unknown setting, a value has the wrong
            type, a model spec is malformed (``kb.backends.registry.check_spec``; no server
            is contacted), a relative root has no base, or a project file names a server
            off this machine or a root outside the project (``_project_checked``; the
            message names the file, line and setting).
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the config file: {exc}") from None
    save_as = "; a TOML file is UTF-8 text: save it as UTF-8"
    if raw[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) or utf16_without_bom(raw):
        raise ValueError(f"{path}: cannot read the config file: it is saved as UTF-16{save_as}")
    try:  # Windows editors may save UTF-16 (above) or a legacy code page
        text = raw.decode("utf-8-sig")  # a byte-order mark (Notepad) is skipped
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: cannot read the config file: byte {exc.start + 1} is not "
                         f"UTF-8{save_as}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: cannot read the config file: {exc}") from None
    flat: dict[str, Any] = {}
    for name, value in data.items():
        if isinstance(value, dict) and name in TABLES:
            flat.update({f"{name}.{k}": v for k, v in value.items()})
        elif name in TABLES:  # `pipeline = 3`: not an unknown setting
            raise ValueError(f"{path}, line {_line_of(text, name)}: {name} is a table: write "
                             f"[{name}] on a line of its own, then its settings")
        else:
            flat[name] = value
    for key, value in flat.items():
        if key not in KEYS:
            known = ", ".join(k if "." not in k else f"[{k.split('.')[0]}] {k.split('.')[1]}"
                              for k in KEYS)
            raise ValueError(f"{path}, line {_line_of(text, key)}: unknown setting {key!r}; "
                             f"known: {known}")
        flat[key] = check_value(key, value, f"{path}, line {_line_of(text, key)}: {key}")
    if "ingest.roots" in flat:
        flat["ingest.roots"] = tuple(
            _root(r, roots_base, f"{path}, line {_line_of(text, 'ingest.roots')}")
            for r in flat["ingest.roots"])
    if roots_base is not None:
        _project_checked(flat, roots_base, lambda key: f"{path}, line {_line_of(text, key)}")
    return flat


def _project_checked(flat: dict[str, Any], project: Path, where: Callable[[str], str]) -> None:
    """Refuse what a project's config file must not set (a project folder may come from anyone).

    A model server off this machine (an ``openai:`` or ``tei:`` URL, ``ollama_host``) would
    receive the user's documents and questions, with the user's ``KB_API_KEY`` as its bearer
    token; a project's ``api_key`` would send them under a stranger's account; ``cache_dir``
    would have kb write (and read back) its caches anywhere; a root outside the project
    would open that folder to ``kb serve`` and ``kb mcp`` callers (and ``kb sync``). Servers
    on this machine (localhost, 127.0.0.0/8, ::1) and folders inside the project are the
    project's to name; the rest belongs in the user's own config file, a variable or a flag.
    On a machine shared with other users, a loopback port may be another user's server.

    Raises:
        ValueError: naming the line (``where``), the setting and where to set it instead.
    """
    for key in ("api_key", "cache_dir"):  # a stranger's account for your data; files anywhere
        if key in flat:
            raise ValueError(f"{where(key)}: {key}: a project's config file may not set it: set "
                             "it in your user config file or a variable")
    for key, value in flat.items():
        url = ollama_base_url(value) if key == "ollama_host" else None  # checked on reading
        url = url or (
            getattr(check_spec(value, _SPEC_ROLES[key]), "base_url", None)
            if key in _SPEC_ROLES and value else None)
        if url and not loopback_url(url):
            raise ValueError(f"{where(key)}: {key}: a project's config file names a server on "
                             f"this machine only, not {url} (it would receive your documents, "
                             "questions and KB_API_KEY): set it in your user config file, "
                             "a variable or a flag")
    inside = project.resolve()
    for root in flat.get("ingest.roots", ()):
        if not Path(root).expanduser().resolve().is_relative_to(inside):
            raise ValueError(f"{where('ingest.roots')}: ingest.roots entry {root!r} is outside "
                             f"the project ({inside}); a folder elsewhere goes in your user "
                             "config file")


def _root(root: str, base: Path | None, where: str) -> str:
    """An ``[ingest] roots`` entry: absolute or ``~/...`` as given, else under ``base``.

    Raises:
        ValueError: it is empty (not ``base`` itself), or relative and there is no ``base``.
    """
    if Path(root).expanduser().is_absolute():
        return root
    if base is None or not root:
        raise ValueError(f"{where}: ingest.roots entry {root!r} is " + ("empty (write '.' for "
                         "its folder)" if not root else "relative; the user config file takes "
                         "absolute or ~/ paths"))
    return str(base / root)


def _line_of(text: str, key: str) -> int:
    """The 1-based line of a TOML file that sets ``key`` (``table.name`` or a top-level name).

    tomllib gives values without positions; the line is the first ``name =`` in the key's
    table (or before any table), else 1.
    """
    table, _, name = key.rpartition(".")
    current = ""
    for number, line in enumerate(text.splitlines(), start=1):
        header = _TABLE_HEADER.match(line)
        if header:
            current = header.group(1).strip().strip("\"'")
            if current == key:
                return number
        elif current == table and re.match(rf"\s*[\"']?{re.escape(name)}[\"']?\s*=", line):
            return number
    return 1


def check_value(key: str, value: Any, where: str) -> Any:
    """``value`` if it fits ``key``'s type (a TOML list becomes a tuple).

    Raises:
        ValueError: it does not (the message starts with ``where``).
    """
    hint = KEYS[key][0]
    if typing.get_origin(hint) is Literal:
        if value not in typing.get_args(hint):
            raise ValueError(f"{where} must be one of {', '.join(typing.get_args(hint))}, "
                             f"got {value!r}")
        return value
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        hint = next(t for t in typing.get_args(hint) if t is not type(None))
    if typing.get_origin(hint) is tuple:
        if not (isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)):
            raise ValueError(f"{where} must be a list of strings, got {value!r}")
        return tuple(value)
    ok = (isinstance(value, bool) if hint is bool else
          isinstance(value, int | float) and not isinstance(value, bool) if hint is float else
          isinstance(value, hint) and not isinstance(value, bool))
    if not ok:
        raise ValueError(f"{where} must be {hint.__name__}, got {value!r}")
    if key in _POSITIVE and not 0 < value <= MAX_TIMEOUT_S:  # nan, inf: no budget at all
        raise ValueError(f"{where} must be a positive number of seconds, at most "
                         f"{MAX_TIMEOUT_S:,.0f}, got {value!r}")
    if key == "index.exact_scan_max_vectors" and value < 1:
        raise ValueError(f"{where} must be at least 1 (live vectors scanned exactly), "
                         f"got {value!r}")
    if key.startswith("pipeline."):
        try:
            check_pipeline_value(key.removeprefix("pipeline."), value)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
    try:
        if key == "collection":
            check_collection_name(value)
        if key == "ollama_host":
            ollama_base_url(value)
        if key in _SPEC_ROLES:
            check_spec(value, _SPEC_ROLES[key])
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    return float(value) if hint is float else value


def check_collection_name(name: str) -> None:
    """Check a collection name.

    Raises:
        ValueError: ``name`` is not 1-64 letters, digits, ``.``, ``_`` or ``-`` (starting with
            a letter or digit).
    """
    if not COLLECTION_NAME.fullmatch(name):
        raise ValueError(f"collection name {name!r}: use 1-64 letters, digits, '.', '_' or "
                         "'-', starting with a letter or digit")
