"""Layering (STYLE): kb core imports nothing from ingest/retrieve/eval; ingest and retrieve do
not import each other; only the composers (API, CLI, servers, tool) compose all."""

import ast
from pathlib import Path

ROOT = Path(__file__).parent.parent
COMPOSERS = {"kb/api.py", "kb/cli.py", "kb/cli_eval.py", "kb/cli_serve.py", "kb/tool.py",
             "kb/mcp_server.py", "kb/http_server.py", "kb/__main__.py"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def test_kb_core_imports_no_pipeline_package():
    for path in _modules("kb"):
        rel = path.relative_to(ROOT).as_posix()
        if rel in COMPOSERS:
            continue
        assert not _imports(path) & {"ingest", "retrieve", "eval"}, rel


def test_ingest_and_retrieve_do_not_import_each_other_or_eval():
    for path in _modules("ingest"):
        assert not _imports(path) & {"retrieve", "eval"}, path
    for path in _modules("retrieve"):
        assert not _imports(path) & {"ingest", "eval"}, path


def test_modules_stay_small():
    for package in ("kb", "ingest", "retrieve", "eval"):
        for path in _modules(package):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            assert lines <= 500, f"{path.relative_to(ROOT)} has {lines} lines; split it"
