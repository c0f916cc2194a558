"""Encrypted PDFs on the default install (issue 11, item 8).

AES-encrypted PDFs need the ``cryptography`` package to open at all, also when they only carry
an owner password (the empty user password opens them). It must therefore come with the base
install, not only with an extra that happens to pull it in (the dev extras do, via ``mcp``).
"""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError, requires
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from kb.errors import EncryptedError
from kb.ingest.extract import extract

PDF = Path(__file__).parent / "fixtures" / "docs" / "pdf"


def _base_closure(package: str) -> set[str]:
    """Distribution names installed by ``pip install package`` without any extra."""
    seen: set[str] = set()
    todo = [package]
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        seen.add(key)
        try:
            reqs = requires(name) or []
        except PackageNotFoundError:
            continue
        for req in reqs:
            if "extra ==" in req.replace("extra==", "extra =="):
                continue
            todo.append(re.split(r"[\s;<>=!~\[(]", req, maxsplit=1)[0])
    return seen


def test_cryptography_comes_with_the_base_install() -> None:
    closure = _base_closure("kb-refuse-rag")
    assert "pypdf" in closure  # the walk itself works
    assert "cryptography" in closure


def _aes_copy(tmp_path: Path, algorithm: str, user_password: str) -> Path:
    writer = PdfWriter(clone_from=PdfReader(PDF / "minimal-document.pdf"))
    writer.encrypt(user_password=user_password, owner_password="owner-secret",
                   algorithm=algorithm)
    path = tmp_path / f"{algorithm}-{'user' if user_password else 'owner'}.pdf"
    with path.open("wb") as fh:
        writer.write(fh)
    return path


@pytest.mark.parametrize("algorithm", ["AES-128", "AES-256"])
def test_aes_owner_password_only_pdf_opens(tmp_path: Path, algorithm: str) -> None:
    path = _aes_copy(tmp_path, algorithm, "")
    assert PdfReader(path).is_encrypted
    doc = extract(path)
    assert doc.blocks[0].text.startswith("Lorem ipsum dolor sit amet")


@pytest.mark.parametrize("algorithm", ["AES-128", "AES-256"])
def test_aes_user_password_pdf_says_user_password(tmp_path: Path, algorithm: str) -> None:
    path = _aes_copy(tmp_path, algorithm, "let-me-in")
    with pytest.raises(EncryptedError) as caught:
        extract(path)
    assert caught.value.reason == "encrypted with a user password"
