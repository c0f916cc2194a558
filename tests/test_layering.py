"""Layering: kb's modules form an ordered stack of layers, lower never importing higher.

``LAYERS`` is the diagram, bottom first; each layer is a tuple of *units*, module prefixes
(``kb.store`` is the folder kb/store; ``kb.retrieve`` the folder retrieve/, installed under that
name). A module belongs to the unit that is its longest matching prefix, and every module must
belong to one. Three rules are checked over every ``import`` and ``from ... import`` of every
module (at any depth: imports inside functions count), relative ones resolved:

(a) no import from a higher layer, and units listed in ``INDEPENDENT`` do not import each other;
(b) no import cycle between modules (a module's parent package running first is Python's doing,
    not an import the module wrote, so it is not an edge; no import is exempt, not even one under
    ``if TYPE_CHECKING:``);
(c) no ``_private`` name imported from another unit.

(d) SQL is written only in the store (``kb.store``): elsewhere no call of a method named
    ``execute``, ``executemany`` or ``executescript``, and no string literal that holds a SQL
    statement (``SQL_STATEMENT``: upper-case keywords in a statement's shape, so prose such as
    "select the top k" or a docstring naming a table is not one; docstrings are prose anyway and
    are not read).

Modules stay small, too.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base: types, configuration, errors, JSON shapes",
     ("kb", "kb.types", "kb.periods", "kb.config", "kb.errors", "kb.shapes", "kb.jsonshape")),
    ("backends: model adapters", ("kb.backends",)),
    ("store: the SQLite file", ("kb.store",)),
    ("embedding: embedder state and service", ("kb.embedding",)),
    ("pipelines", ("kb.ingest", "kb.retrieve")),
    ("Python API", ("kb.api", "kb.answer", "kb.status", "kb.scoped")),
    ("evaluation", ("kb.eval",)),
    ("application: CLI, servers, tool", ("kb.cli", "kb.server", "kb.__main__")),
]
INDEPENDENT = [("kb.ingest", "kb.retrieve")]
MAX_LINES = 400  # STYLE: one concept per module; past ~400 lines, split
BANNER = re.compile(r"^\s*#\s*(?:[-=#*~_]{4,}|[-=#*~_]{2,}\s+\S.*?[-=#*~_]{2,})\s*$")
SQL_UNIT = "kb.store"
SQL_CALLS = frozenset({"execute", "executemany", "executescript"})
SQL_STATEMENT = re.compile(
    r"\b(?:SELECT\b.*?\bFROM\b|INSERT\s+(?:OR\s+[A-Z]+\s+)?INTO\b|UPDATE\s+\w+\s+SET\b"
    r"|DELETE\s+FROM\b|(?:CREATE|DROP)\s+(?:VIRTUAL\s+)?(?:TABLE|INDEX|TRIGGER|VIEW)\b"
    r"|ALTER\s+TABLE\b|PRAGMA\s+\w+|WHERE\s+[\w.]+\s*(?:=|<|>|IN\b|IS\b|LIKE\b|GLOB\b|MATCH\b))",
    re.DOTALL)


@dataclass(frozen=True)
class Import:
    """One imported module (and the name taken from it, for ``from`` imports)."""

    importer: str
    target: str
    name: str | None
    line: int


def _modules() -> dict[str, Path]:
    """Every module the distribution installs, by import name, from pyproject's mapping."""
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    found: dict[str, Path] = {}
    for package, folder in setup["setuptools"]["package-dir"].items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


MODULES = _modules()


def _imports(module: str, path: Path) -> Iterator[Import]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, alias.name, None, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in MODULES:  # ``from kb.cli import ask``: the module kb.cli.ask
                    yield Import(module, sub, None, node.lineno)
                else:
                    yield Import(module, base, alias.name, node.lineno)


IMPORTS = [i for m, p in MODULES.items() for i in _imports(m, p)
           if i.target == "kb" or i.target.startswith("kb.")]


def _unit(module: str) -> str:
    units = [u for _, layer in LAYERS for u in layer if module == u or module.startswith(u + ".")]
    assert units, f"{module} belongs to no layer: add it to LAYERS in {Path(__file__).name}"
    return max(units, key=len)


def _layer(module: str) -> int:
    unit = _unit(module)
    return next(n for n, (_, layer) in enumerate(LAYERS) if unit in layer)


def _where(i: Import) -> str:
    return f"{MODULES[i.importer].relative_to(ROOT)}:{i.line}"


def test_every_module_is_in_a_layer_and_every_import_names_a_module():
    assert "kb.api" in MODULES and "kb.retrieve.pipeline" in MODULES
    for module in MODULES:
        _unit(module)
    unknown = [f"{_where(i)} imports {i.target}" for i in IMPORTS if i.target not in MODULES]
    assert not unknown


def test_no_module_imports_a_higher_layer():
    upward = [f"{_where(i)}: {i.importer} ({LAYERS[_layer(i.importer)][0]}) imports "
              f"{i.target} ({LAYERS[_layer(i.target)][0]})"
              for i in IMPORTS if _layer(i.target) > _layer(i.importer)]
    assert not upward, "\n".join(upward)


def test_independent_units_do_not_import_each_other():
    crossed = [f"{_where(i)}: {i.importer} imports {i.target}" for i in IMPORTS
               for pair in INDEPENDENT
               if {_unit(i.importer), _unit(i.target)} == set(pair)]
    assert not crossed, "\n".join(crossed)


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path that returns to its start, or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_no_import_cycle():
    graph: dict[str, set[str]] = {}
    for i in IMPORTS:
        if i.target != i.importer:
            graph.setdefault(i.importer, set()).add(i.target)
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}}) is None


def test_no_private_name_imported_across_units():
    private = [f"{_where(i)}: {i.importer} imports {i.name} from {i.target}" for i in IMPORTS
               if i.name and i.name.startswith("_") and not i.name.startswith("__")
               and _unit(i.target) != _unit(i.importer)]
    assert not private, "\n".join(private)


def test_modules_stay_small():
    for path in MODULES.values():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines; split it"


def test_no_banner_comment_splits_a_module():
    """A banner comment (``# ----``, ``# == Section ==``) means the module wants to be two."""
    for path in MODULES.values():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not BANNER.match(line), f"{path.relative_to(ROOT)}:{number}: {line.strip()}"


@pytest.mark.parametrize(("line", "banner"), [
    ("# ----------", True), ("    # ====", True), ("# == Helpers ==", True),
    ("# ### Section ###", True), ("# a comment -- with dashes", False),
    ("x = 1  # ----", False), ("# see fuse.py", False)])
def test_the_banner_check_tells_banners_from_comments(line, banner):
    assert bool(BANNER.match(line)) == banner


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (prose, not code)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                out.add(id(body[0].value))
    return out


def sql_found(source: str) -> list[tuple[int, str]]:
    """(line, what) for each SQL call or SQL statement literal in ``source``."""
    tree = ast.parse(source)
    prose = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in SQL_CALLS):
            found.append((node.lineno, f".{node.func.attr}(...)"))
        elif isinstance(node, ast.JoinedStr):  # an f-string: its literal parts, joined
            text = "".join(v.value for v in node.values
                           if isinstance(v, ast.Constant) and isinstance(v.value, str))
            if SQL_STATEMENT.search(text):
                found.append((node.lineno, repr(text[:60])))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in prose and SQL_STATEMENT.search(node.value)):
            found.append((node.lineno, repr(node.value[:60])))
    return sorted(set(found))


def test_sql_is_written_only_in_the_store():
    found = [f"{path.relative_to(ROOT)}:{line}: {what}" for module, path in MODULES.items()
             if _unit(module) != SQL_UNIT and not module.startswith(SQL_UNIT + ".")
             for line, what in sql_found(path.read_text(encoding="utf-8"))]
    assert not found, "SQL outside kb.store:\n" + "\n".join(found)


def test_the_sql_finder_finds_sql_and_passes_prose():
    sql = [
        'conn.execute("whatever")',
        'store.conn.executemany(q, rows)',
        'Q = "SELECT id, text FROM chunks"',
        'Q = "SELECT count(*) " "FROM documents"',  # implicit concatenation is one constant
        'Q = f"SELECT {cols} FROM chunks WHERE id = ?"',
        'Q = "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)"',
        'Q = "DELETE FROM meta WHERE key = ?"',
        'Q = "UPDATE documents SET status = ?"',
        'Q = "PRAGMA user_version"',
        'Q = "CREATE VIRTUAL TABLE t USING fts5(body)"',
        'W = "instr(context_prefix, char(10)) > 0 AND WHERE doc_id = ?"',
    ]
    prose = [
        '"""SELECT the best rows FROM the index, says this docstring."""',
        'def f():\n    """Runs DELETE FROM meta WHERE key = ? in one transaction."""',
        'MESSAGE = "select the top k, then delete from the list where it is stale"',
        'MESSAGE = "insert into the queue; update the state"',
        'pool.submit(job)',
        'NOTE = "the WHERE clause"',
    ]
    assert all(sql_found(code) for code in sql), [c for c in sql if not sql_found(c)]
    assert not any(sql_found(code) for code in prose), [c for c in prose if sql_found(c)]
