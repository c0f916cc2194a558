"""A per-file extraction budget (issue 11, item 5): a file that keeps a parser busy fails alone.

The hostile input is a small, well-formed PDF written with pypdf: its pages all draw one
Flate-compressed content stream that inflates to hundreds of thousands of text operators, so
extracting this 8 KB file takes minutes: 52 s in pypdf, 144 s with pdfminer.six's layout
analysis, which kb now reads PDF pages with (measured here).
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from docx import Document
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from kb.api import KnowledgeBase
from kb.config import Config
from kb.errors import BudgetExceededError
from kb.ingest.worker import ExtractionWorker

pytestmark = pytest.mark.slow  # starts, times out and kills extraction worker processes


FIXTURES = Path(__file__).parent / "fixtures" / "docs"
DEMO_DOCS = Path(__file__).resolve().parents[1] / "golden" / "demo" / "docs"


def busy_pdf(path: Path, *, operators: int = 300_000, pages: int = 20) -> Path:
    writer = PdfWriter()
    content = DecodedStreamObject()
    content.set_data(b"BT /F1 1 Tf " + b"(a) Tj " * operators + b"ET")
    shared = writer._add_object(content.flate_encode(level=9))
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"),
                             NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica")})
    for _ in range(pages):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Contents")] = shared
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): DictionaryObject(
            {NameObject("/F1"): font})})
    writer.compress_identical_objects()
    with path.open("wb") as fh:
        writer.write(fh)
    return path


def test_the_busy_pdf_is_small(tmp_path):
    assert busy_pdf(tmp_path / "busy.pdf").stat().st_size < 16_000


def test_a_pdf_that_keeps_the_parser_busy_fails_alone_and_the_batch_is_indexed(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a-kites.md").write_text("# Box kites\n\nLawrence Hargrave invented the box kite.\n")
    busy = busy_pdf(docs / "m-busy.pdf")
    (docs / "p-report.pdf").write_bytes((FIXTURES / "pdf" / "pdflatex-4-pages.pdf").read_bytes())
    (docs / "z-tea.txt").write_text("Green tea is steeped at 80 degrees.\n")
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none", extract_timeout_s=1.5)) as kb:
        report = kb.ingest([docs])
        outcomes = {Path(o.path).name: o for o in report.outcomes}
        assert outcomes["m-busy.pdf"].action == "failed"
        assert outcomes["m-busy.pdf"].reason.startswith("extraction exceeded 1.5 s")
        assert outcomes["m-busy.pdf"].path == str(busy)
        for name in ("a-kites.md", "p-report.pdf", "z-tea.txt"):
            assert outcomes[name].action == "added", outcomes[name]
        assert kb.search("who invented the box kite").references[0].title == "Box kites"


def test_the_cli_names_the_file_and_the_budget(tmp_path):
    busy = busy_pdf(tmp_path / "busy.pdf")
    done = subprocess.run([sys.executable, "-m", "kb", "--db", str(tmp_path / "kb.db"),
                           "--embedder", "none", "--extract-timeout-s", "1", "ingest", str(busy)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert f"FAILED   {busy}: extraction exceeded 1 s" in done.stdout
    assert "Traceback" not in done.stderr


def test_a_worker_that_was_stopped_is_replaced_for_the_next_file(tmp_path):
    busy = busy_pdf(tmp_path / "busy.pdf")
    with ExtractionWorker(timeout_s=1) as worker:
        try:
            worker.extract(busy)
        except BudgetExceededError as exc:
            assert exc.kind == "budget" and exc.path == busy
        else:
            raise AssertionError("the busy PDF was not stopped")
        doc = worker.extract(FIXTURES / "pdf" / "minimal-document.pdf")
        assert doc.blocks[0].text.startswith("Lorem ipsum")
        assert worker.started == 2


def docx_bomb(path: Path, paragraphs: int = 2_500_000) -> Path:
    """A DOCX written by python-docx whose body then gets 2.5 million tiny paragraphs.

    About 300 KB on disk; read whole (python-docx, lxml) it peaks at 1.5 GB RSS and 21 s.
    """
    buffer = io.BytesIO()
    Document().save(buffer)
    source = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    body = "<w:p><w:r><w:t>kite</w:t></w:r></w:p>" * paragraphs
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "word/document.xml":
                text = data.decode()
                cut = text.index("<w:body>") + len("<w:body>")
                data = (text[:cut] + body + text[cut:]).encode()
            out.writestr(item, data)
    return path


@pytest.mark.skipif(sys.platform != "linux", reason="the memory budget is RLIMIT_AS (Linux)")
def test_a_file_past_the_memory_budget_fails_with_that_reason(tmp_path):
    bomb = docx_bomb(tmp_path / "bomb.docx")
    assert bomb.stat().st_size < 1_000_000
    with ExtractionWorker(timeout_s=60, memory_mib=400) as worker:
        with pytest.raises(BudgetExceededError, match="exceeded the 400 MiB memory budget"):
            worker.extract(bomb)
        assert worker.extract(FIXTURES / "docx" / "python-docx-blk-paras-and-tables.docx").blocks


def test_a_script_without_a_main_guard_can_ingest(tmp_path):
    """The extraction worker must not run the caller's script again (forkserver/spawn)."""
    shutil.copy(DEMO_DOCS / "zen-of-python.pdf", tmp_path / "zen.pdf")  # a real PDF
    script = tmp_path / "script.py"
    script.write_text(
        "from kb.api import KnowledgeBase\n"
        f"kb = KnowledgeBase({str(tmp_path / 'kb.db')!r})\n"
        f"report = kb.ingest([{str(tmp_path / 'zen.pdf')!r}])\n"
        "print(report.count('added'), report.count('failed'))\n", encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, env={"KB_EMBEDDER": "none", "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["1", "0"]


def test_a_file_over_its_budget_is_read_again_under_a_larger_budget(tmp_path):
    # a trial: "--extract-timeout-s raises it", but the next sync with 600 s skipped the file
    # as "reported ... skipped until the file changes", exit 0: it never got indexed
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a-kites.md").write_text("# Box kites\n\nLawrence Hargrave invented the box kite.\n")
    busy = busy_pdf(docs / "busy.pdf", operators=10_000, pages=10)  # about 2 s to extract
    outcome = {}
    for budget, action in ((0.3, "failed"), (0.3, "skipped"), (0.2, "skipped"), (600, "failed")):
        with KnowledgeBase(tmp_path / "kb.db",
                           Config(embedder="none", extract_timeout_s=budget)) as kb:
            outcome = {Path(o.path).name: o for o in kb.sync([docs]).outcomes}
        assert outcome["busy.pdf"].action == action, (budget, outcome["busy.pdf"])
    # read to its end this time: its 1 pt text is hidden text, dropped (not the budget)
    assert outcome["busy.pdf"].path == str(busy)
    assert outcome["busy.pdf"].reason == "no text layer on any page (scanned PDF?)"
