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

Modules stay small, too.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base: types, configuration, errors, JSON shapes",
     ("kb", "kb.types", "kb.config", "kb.errors", "kb.shapes", "kb.jsonshape")),
    ("backends: model adapters", ("kb.backends",)),
    ("store: the SQLite file", ("kb.store",)),
    ("embedding: embedder state, service, vector spaces", ("kb.embedding",)),
    ("pipelines", ("kb.ingest", "kb.retrieve")),
    ("Python API", ("kb.api", "kb.answer")),
    ("evaluation", ("kb.eval",)),
    ("application: CLI, servers, tool", ("kb.cli", "kb.server", "kb.__main__")),
]
INDEPENDENT = [("kb.ingest", "kb.retrieve")]
MAX_LINES = 500


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
