"""Images in PDF and DOCX files described by a vision model at ingest (DESIGN 3.1).

Real files: PDFs drawn with reportlab and DOCX files written with python-docx, each with an
embedded PNG. The vision model is ``http_doubles.ModelServer`` over the OpenAI and Ollama
chat protocols; it decodes the image it receives and answers "A 64x48 picture, mostly
vermilion." (red vermilion, green viridian, blue cerulean), so a search for the colour word
finds the description only if the real pixels went over the wire.
"""

from __future__ import annotations

import base64
import io
import json
import random
from pathlib import Path

import docx
import pytest
from click.testing import CliRunner
from docx.shared import Inches
from http_doubles import ModelServer, Reply, closed_port_url
from PIL import Image
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas

from kb.api import KnowledgeBase
from kb.cli import cli
from kb.config import Config
from kb.ingest.images import MAX_IMAGE_BYTES, MAX_IMAGE_SIDE_PX, MIN_IMAGE_SIDE_PX

pytestmark = pytest.mark.slow  # real ingests with vision-model doubles behind HTTP


RED, GREEN, BLUE = (220, 30, 30), (30, 200, 40), (20, 40, 230)


def png(colour: tuple[int, int, int], size: tuple[int, int] = (64, 48)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="PNG")
    return out.getvalue()


def make_pdf(path: Path, pages: list[tuple[str, bytes | None]]) -> Path:
    """One page per (text, image) pair; the image drawn below the text."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf = canvas.Canvas(str(path))
    pdf.setTitle("Harbour inspection")
    for text, image in pages:
        pdf.drawString(72, 720, text)
        if image is not None:
            pdf.drawImage(ImageReader(io.BytesIO(image)), 72, 500, width=128, height=96)
        pdf.showPage()
    pdf.save()
    return path


def make_docx(path: Path, image: bytes | None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    document = docx.Document()
    document.add_heading("Harbour inspection", level=1)
    # at least MIN_CHUNK_CHARS: the section stays a chunk of its own
    document.add_paragraph("The north pier was inspected on Monday by the harbour master and two "
                           "divers from the port authority.")
    document.add_heading("Photographs", level=2)
    if image is not None:
        document.add_picture(io.BytesIO(image), width=Inches(1.5))
    document.add_paragraph("The photograph shows the pier's hull markings.")
    document.add_heading("Summary", level=2)
    document.add_paragraph("No damage was found.")
    document.save(str(path))
    return path


def vision_config(server: ModelServer, provider: str) -> Config:
    if provider == "openai":
        return Config(embedder="none", vision=f"openai:{server.url}/v1#llava")
    return Config(embedder="none", vision="ollama:llava", ollama_host=server.url)


def chat_requests(server: ModelServer) -> list[dict]:
    return [body for path, body in server.requests
            if path in ("/v1/chat/completions", "/api/chat")]


def not_indexed(warnings: tuple[str, ...]) -> list[str]:
    return [w for w in warnings if "image content not indexed" in w]


@pytest.mark.parametrize("provider", ["openai", "ollama"])
@pytest.mark.parametrize("kind", ["pdf", "docx"])
def test_described_images_are_indexed_searchable_and_cited(tmp_path, kind, provider) -> None:
    if kind == "pdf":
        path = make_pdf(tmp_path / "docs" / "inspection.pdf",
                        [("The north pier was inspected on Monday.", png(RED))])
        word, expected = "vermilion", "[Image p.1: A 64x48 picture, mostly vermilion.]"
    else:
        path = make_docx(tmp_path / "docs" / "inspection.docx", png(BLUE, (80, 60)))
        word, expected = "cerulean", "[Image: A 80x60 picture, mostly cerulean.]"
    with ModelServer() as server:
        with KnowledgeBase(tmp_path / "kb.db", vision_config(server, provider)) as kb:
            report = kb.ingest([tmp_path / "docs"])
            assert report.count("added") == 1, report
            assert not_indexed(report.outcomes[0].warnings) == []
            [request] = chat_requests(server)
            if provider == "openai":
                parts = request["messages"][0]["content"]
                assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
            else:
                assert len(request["messages"][0]["images"]) == 1
            ref = kb.search(word, decay=False).references[0]
            assert expected in ref.text and ref.source == str(path.resolve())
            if kind == "pdf":
                assert ref.page == 1
            else:
                assert ref.heading_path == ("Harbour inspection", "Photographs")
                # in document order: after the block that holds the picture, before Summary
                text = kb.store.conn.execute("SELECT group_concat(text, ' ') FROM (SELECT text "
                                             "FROM chunks ORDER BY chunk_index)").fetchone()[0]
                assert text.index("hull markings") < text.index(expected) < text.index(
                    "No damage")
            # re-ingest after an edit: the description comes from llm_cache
            if kind == "pdf":
                make_pdf(path, [("The north pier was inspected on Tuesday.", png(RED))])
                assert kb.ingest([path]).count("updated") == 1
                assert len(chat_requests(server)) == 1
                assert expected in kb.search(word, decay=False).references[0].text


def test_without_a_vision_model_the_report_says_image_content_not_indexed(tmp_path) -> None:
    docs = tmp_path / "docs"
    make_pdf(docs / "photo.pdf",
             [("The north pier was inspected on Monday.", png(RED))])
    make_docx(docs / "photo.docx", png(BLUE))
    make_pdf(docs / "plain.pdf", [("The south pier needs no photograph.", None)])
    make_docx(docs / "plain.docx", None)
    with KnowledgeBase(tmp_path / "kb.db", Config(embedder="none")) as kb:
        report = kb.ingest([docs])
    by_name = {Path(o.path).name: o for o in report.outcomes}
    for name in ("photo.pdf", "photo.docx"):
        assert not_indexed(by_name[name].warnings) == [
            "image content not indexed (1 image; no vision model configured)"]
    for name in ("plain.pdf", "plain.docx"):
        assert by_name[name].action == "added" and not_indexed(by_name[name].warnings) == []
    r = CliRunner().invoke(cli, ["--db", str(tmp_path / "cli.db"), "--embedder", "none",
                                 "ingest", str(docs)])
    assert r.exit_code == 0, r.output
    assert f"WARN     {docs / 'photo.pdf'}: image content not indexed (1 image" in r.output
    assert "plain.pdf: image" not in r.output


def test_one_failing_image_warns_and_the_others_are_described(tmp_path) -> None:
    path = make_pdf(tmp_path / "two.pdf", [("Page one shows the red buoy.", png(RED)),
                                           ("Page two shows the green buoy.", png(GREEN))])
    with ModelServer() as server:
        server.script.append(Reply(400, json.dumps({"error": {"message": "unsupported image"}})
                                   .encode()))
        with KnowledgeBase(tmp_path / "kb.db", vision_config(server, "openai")) as kb:
            report = kb.ingest([path])
            assert report.count("added") == 1
            [warning] = not_indexed(report.outcomes[0].warnings)
            assert warning.startswith("image content not indexed for 1 of 2 images: 1 failed "
                                      "in the vision model (first failure: BackendError: ")
            assert "unsupported image" in warning
            refs = kb.search("viridian", decay=False).references
            assert refs and "[Image p.2: A 64x48 picture" in refs[0].text
            # page one's short line and page two's short text with the description: one chunk
            assert (refs[0].page, refs[0].page_end) == (1, 2)
            assert not kb.search("vermilion", decay=False).references


def test_icons_are_skipped_without_a_call(tmp_path) -> None:
    tiny = png(RED, (MIN_IMAGE_SIDE_PX - 1, MIN_IMAGE_SIDE_PX - 1))
    path = make_pdf(tmp_path / "icon.pdf", [("A page with a bullet icon.", tiny)])
    word = make_docx(tmp_path / "d" / "icon.docx", tiny)
    with ModelServer() as server:
        with KnowledgeBase(tmp_path / "kb.db", vision_config(server, "openai")) as kb:
            report = kb.ingest([path, word])
        assert chat_requests(server) == []
    for outcome in report.outcomes:
        assert not_indexed(outcome.warnings) == [
            "image content not indexed for 1 of 1 image: 1 smaller than 32 px (icons, rules)"]


REFUSED = Reply(401, b'{"error": {"message": "invalid api key", "type": "auth_error"}}')


def test_a_failing_vision_server_costs_descriptions_not_the_ingest(tmp_path) -> None:
    pages = [(f"Page {i} of the survey.", png(BLUE, (64 + i, 48))) for i in range(8)]
    path = make_pdf(tmp_path / "survey.pdf", pages)
    with ModelServer() as server:
        server.script = [REFUSED] * 100  # every request that reaches it fails
        with KnowledgeBase(tmp_path / "kb.db", vision_config(server, "openai")) as kb:
            report = kb.ingest([path])
            assert report.count("added") == 1
            # two failures open the circuit: the other six images never reach the server
            assert len(chat_requests(server)) == 2
            [warning] = not_indexed(report.outcomes[0].warnings)
            assert warning.startswith("image content not indexed for 8 of 8 images: 8 failed in "
                                      "the vision model (first failure: BackendError: ")
            assert "invalid api key" in warning
            assert kb.search("survey", decay=False).references
            assert kb.documents()[0].status == "pending_models"
        server.reset()  # the server is fixed; the next ingest (a new process) redoes the file
        with KnowledgeBase(tmp_path / "kb.db", vision_config(server, "openai")) as kb:
            report = kb.ingest([path])
            assert report.count("updated") == 1 and len(chat_requests(server)) == 8
            assert not_indexed(report.outcomes[0].warnings) == []
            refs = kb.search("cerulean", decay=False).references
            assert refs and "[Image p.1: A 64x48 picture, mostly cerulean.]" in " ".join(
                r.text for r in refs)
            assert kb.documents()[0].status == "indexed"  # no embedder: BM25 only, nothing pending
            assert kb.ingest([path]).count("unchanged") == 1


def test_a_dead_vision_server_leaves_the_file_to_the_next_ingest(tmp_path) -> None:
    path = make_pdf(tmp_path / "survey.pdf", [("Page 1 of the survey.", png(RED))])
    config = Config(embedder="none", vision=f"openai:{closed_port_url()}/v1#llava")
    with KnowledgeBase(tmp_path / "kb.db", config) as kb:
        report = kb.ingest([path])
        [warning] = not_indexed(report.outcomes[0].warnings)
        assert "(first failure: BackendUnavailable" in warning
        assert kb.documents()[0].status == "pending_models"
        assert kb.ingest([path]).count("updated") == 1  # redone, not skipped as unchanged


def test_cli_vision_option(tmp_path) -> None:
    make_docx(tmp_path / "docs" / "inspection.docx", png(GREEN))
    db = str(tmp_path / "kb.db")
    with ModelServer() as server:
        runner = CliRunner()
        r = runner.invoke(cli, ["--db", db, "--embedder", "none", "--vision",
                                f"openai:{server.url}/v1#llava", "ingest",
                                str(tmp_path / "docs")])
        assert r.exit_code == 0 and "image content" not in r.output, r.output
    r = runner.invoke(cli, ["--db", db, "--embedder", "none", "search", "viridian", "--json"])
    assert "[Image: A 64x48 picture, mostly viridian.]" in json.loads(
        r.output)["references"][0]["text"]


def test_jpeg_is_sent_as_is_and_a_huge_picture_is_scaled_down(tmp_path) -> None:
    jpeg = io.BytesIO()
    Image.new("RGB", (100, 80), RED).save(jpeg, format="JPEG")
    noise = Image.frombytes("RGB", (2000, 1500), random.Random(7).randbytes(2000 * 1500 * 3))
    huge = io.BytesIO()
    noise.save(huge, format="PNG")
    assert huge.tell() > MAX_IMAGE_BYTES  # over the budget as stored in the file
    path = tmp_path / "two.docx"
    document = docx.Document()
    document.add_paragraph("A red sign, then a large scan.")
    document.add_picture(io.BytesIO(jpeg.getvalue()), width=Inches(1))
    document.add_picture(io.BytesIO(huge.getvalue()), width=Inches(4))
    document.save(str(path))
    with ModelServer() as server:
        with KnowledgeBase(tmp_path / "kb.db", vision_config(server, "openai")) as kb:
            report = kb.ingest([path])
            assert not_indexed(report.outcomes[0].warnings) == []
            urls = [b["messages"][0]["content"][1]["image_url"]["url"]
                    for b in chat_requests(server)]
            text = kb.store.conn.execute("SELECT group_concat(text, ' ') FROM chunks").fetchone()
    assert urls[0] == "data:image/jpeg;base64," + base64.b64encode(jpeg.getvalue()).decode()
    assert len(urls[1]) < MAX_IMAGE_BYTES * 4 // 3 + 100
    assert "A 100x80 picture, mostly vermilion." in text[0]
    assert f"A {MAX_IMAGE_SIDE_PX}x{MAX_IMAGE_SIDE_PX * 3 // 4} picture" in text[0]
