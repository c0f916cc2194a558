"""The distribution installs one import name, ``kb``: a user's own ``retrieve.py`` cannot break it.

The folders ingest/, retrieve/ and eval/ are installed as ``kb.ingest``, ``kb.retrieve`` and
``kb.eval`` (pyproject's ``[tool.setuptools] package-dir``). The slow test builds the wheel,
installs it into a fresh virtual environment (no system site-packages; the dependencies come
from this environment's site-packages through a ``.pth`` line, so no network is needed) and uses
it from a folder holding decoy ``retrieve.py``, ``ingest.py`` and ``eval/`` that fail if imported.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SETUP = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_package_folder_is_packaged_under_kb():
    listed = set(SETUP["packages"])
    for package, folder in SETUP["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            assert ".".join((package, *parts)) in listed, f"{init.parent} is not packaged"
    assert all(p == "kb" or p.startswith("kb.") for p in listed)


DECOY = 'raise ImportError("the decoy {} was imported instead of kb\'s own")\n'
USE_THE_API = textwrap.dedent("""
    import sys
    from pathlib import Path

    import kb
    from kb.api import KnowledgeBase
    from kb.config import Config

    assert Path(kb.__file__).resolve().is_relative_to(Path(sys.prefix).resolve()), kb.__file__
    Path("note.txt").write_text("Lawrence Hargrave invented the box kite in 1893 in Sydney.\\n")
    with KnowledgeBase("decoys.db", Config(embedder="none")) as base:
        report = base.ingest(["note.txt"])
        assert report.count("added") == 1, report
        result = base.search("Who invented the box kite?", top_k=3)
    assert result.references and "Hargrave" in result.references[0].text, result
    print("searched", len(result.references))
""")


@pytest.mark.slow
def test_the_wheel_works_from_a_folder_with_decoy_retrieve_ingest_and_eval(tmp_path: Path):
    # build from a clean copy: setuptools packs whatever an earlier build left in build/lib,
    # such as a package since removed from the source
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "*.db*",
        "tests", "bench", "golden"))
    wheels = tmp_path / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps",
                            "--no-build-isolation", "-w", str(wheels), str(source)], check=True,
                           capture_output=True, text=True)
    # PEP 639 licence metadata: no deprecation warning about the licence table or classifiers
    warned = [line for line in (built.stdout + built.stderr).lower().splitlines()
              if "licen" in line and ("deprecat" in line or "warn" in line)]
    assert warned == []
    wheel = next(wheels.glob("kb_refuse_rag-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read("kb_refuse_rag-0.1.0.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-deps", "--no-index", str(wheel)], check=True)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; "
                                "print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # The dependencies, after the venv's own site-packages (so kb is the wheel's, not ours).
    (site / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")

    work = tmp_path / "project"
    (work / "eval").mkdir(parents=True)
    (work / "retrieve.py").write_text(DECOY.format("retrieve.py"))
    (work / "ingest.py").write_text(DECOY.format("ingest.py"))
    (work / "eval" / "__init__.py").write_text(DECOY.format("eval/"))
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([str(python), *args], cwd=work, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done

    assert run("-c", USE_THE_API).stdout.startswith("searched")
    assert "Commands:" in run("-m", "kb", "--help").stdout
    assert "--gate" in run("-m", "kb", "eval", "--help").stdout
    found = run("-m", "kb", "--db", "decoys.db", "--embedder", "none", "search", "--json",
                "box kite inventor").stdout
    assert "Hargrave" in found
    assert (venv / "bin" / "kb").exists()

    # kb eval after a plain install: the bundled sets need a checkout, a user's own set works
    (work / "mine").mkdir()
    (work / "mine" / "corpus.jsonl").write_text(
        '{"_id": "d1", "title": "Kites", "text": "Hargrave invented the box kite."}\n'
        '{"_id": "d2", "title": "Ferries", "text": "Ferries cross the bay hourly."}\n')
    (work / "mine" / "queries.jsonl").write_text('{"_id": "q1", "text": "box kite inventor"}\n')
    (work / "mine" / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    env["KB_CACHE_DIR"] = str(tmp_path / "cache")
    failed = subprocess.run([str(python), "-m", "kb", "--embedder", "none", "eval"], cwd=work,
                            env=env, capture_output=True, text=True, timeout=300)
    assert failed.returncode == 2 and "ship with a checkout of kb's repository" in failed.stderr
    measured = run("-m", "kb", "--embedder", "none", "eval", "--set", "mine", "--json").stdout
    assert '"mine"' in measured and "ndcg@10" in measured
