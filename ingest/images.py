"""Images: a vision model's descriptions of a document's pictures become text (DESIGN 3.1).

Each described image becomes a block ``[Image p.3: description]`` (``[Image: ...]`` where the
format has no pages) at the place the extractor located it, so it is chunked, indexed,
embedded and cited like the text around it. Without a vision model the extractor's note is
replaced by ``image content not indexed (N images; no vision model configured)``; with one,
every image left undescribed is counted, with the reason, in
``image content not indexed for K of N images: ...``. One image failing never stops the
others, and a failure never fails the document; the failed calls are counted so the ingest
can try them again next time.

Images are prepared before they are sent: icons and rules (a side under
``MIN_IMAGE_SIDE_PX``) are skipped, at most ``MAX_IMAGES_PER_DOCUMENT`` are described, and
an image is re-encoded as PNG (JPEG when that is still over ``MAX_IMAGE_BYTES``) when it is
not PNG/JPEG, is larger than ``MAX_IMAGE_SIDE_PX`` or over ``MAX_IMAGE_BYTES``. Decoding
needs Pillow (which pypdf also uses for images); without it the report says so.
"""

from __future__ import annotations

import dataclasses
import io
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kb.backends.http import READ_TIMEOUT_S
from kb.errors import install_hint
from kb.ingest.extract.common import cut_at_word, images_not_indexed, one_line
from kb.ingest.extract.docx import load_docx_images
from kb.ingest.extract.pdf import load_pdf_images
from kb.types import Block, ExtractedDocument, ImageRef

MAX_IMAGES_PER_DOCUMENT = 50  # ours: bounds the vision calls (and minutes) one file can cost
MIN_IMAGE_SIDE_PX = 32  # ours: smaller sides are icons, bullets, rules and spacers
MAX_IMAGE_SIDE_PX = 1568  # Anthropic's vision guide: larger images are scaled down anyway
MAX_IMAGE_BYTES = 4 * 2**20  # ours: encoded bytes per image sent (base64 adds a third)
MAX_DESCRIPTION_CHARS = 1000  # ours: the description kept per image, in code points
DESCRIBE_TIMEOUT_S = READ_TIMEOUT_S  # issue 5: ingest-time calls wait out a cold model load
JPEG_QUALITY = 85  # Pillow's JPEG quality for images re-encoded to fit MAX_IMAGE_BYTES
SENT_AS_IS = frozenset({"PNG", "JPEG"})  # formats every vision server takes

Describe = Callable[[bytes, str], str]  # (image bytes, MIME type) -> description; may raise


_TINY = f"smaller than {MIN_IMAGE_SIDE_PX} px (icons, rules)"
_OVER_CAP = f"over the {MAX_IMAGES_PER_DOCUMENT}-image cap"
_UNDECODABLE = "could not be decoded"
_FAILED = "failed in the vision model"


class _Skip(Exception):  # noqa: N818 - a reason to skip one image, not an error
    """This image is not sent; the message is the reason, counted in the warning."""


@dataclass(frozen=True, slots=True)
class IndexedImages:
    """What became of a document's images.

    Attributes:
        document: the document, with description blocks inserted and its image note.
        failed: vision calls that raised (an error reply, a dead server, an open circuit),
            worth trying again; skipped images and empty descriptions are not counted.
    """

    document: ExtractedDocument
    failed: int = 0


def index_images(path: Path, doc: ExtractedDocument,
                 describe: Describe | None) -> IndexedImages:
    """The document with its images described as text blocks, or its images reported.

    Args:
        path: the file ``doc`` was extracted from (its images are read again from it).
        doc: the extractor's output.
        describe: asks the vision model (cached, timed), or ``None`` when none is configured.

    Returns:
        ``doc`` itself when it has no image; else a copy with description blocks inserted
        and the extractor's image note replaced by what became of the images; with the
        number of vision calls that failed.
    """
    if not doc.image_count:
        return IndexedImages(doc)
    others = tuple(w for w in doc.warnings if w != images_not_indexed(doc.image_count))
    if describe is None:
        note = f"image content not indexed ({_images(doc.image_count)}; no vision model " \
               "configured)"
        return IndexedImages(dataclasses.replace(doc, warnings=(*others, note)))
    described: dict[str, str] = {}
    skipped: Counter[str] = Counter()
    first_failure = ""
    calls = 0
    for ref, payload, problem, detail in _load(path, doc):
        try:
            if problem:
                raise _Skip(problem)
            if calls >= MAX_IMAGES_PER_DOCUMENT:
                raise _Skip(_OVER_CAP)
            data, mime = _prepare(payload)
            calls += 1
            text = cut_at_word(one_line(describe(data, mime)), MAX_DESCRIPTION_CHARS)
            if not any(ch.isalnum() for ch in text):
                raise _Skip("got an empty description")
            described[ref.key] = text
        except _Skip as skip:
            skipped[str(skip)] += 1
            first_failure = first_failure or detail
        except Exception as exc:  # one image's failure must not lose the others
            skipped[_FAILED] += 1
            first_failure = first_failure or one_line(f"{type(exc).__name__}: {exc}")[:200]
    outside = doc.image_count - len(doc.images)
    if outside:
        skipped["outside the body text (headers, footers, notes)"] += outside
    warnings = others
    if skipped:
        reasons = "; ".join(f"{n} {why}" for why, n in skipped.items())
        first = f" (first failure: {first_failure})" if first_failure else ""
        warnings = (*others, f"image content not indexed for {sum(skipped.values())} of "
                    f"{_images(doc.image_count)}: {reasons}{first}")
    return IndexedImages(dataclasses.replace(doc, blocks=_insert(doc, described),
                                             warnings=warnings),
                         failed=skipped[_FAILED])


def _images(n: int) -> str:
    return f"{n} image" if n == 1 else f"{n} images"


def _insert(doc: ExtractedDocument, described: dict[str, str]) -> tuple[Block, ...]:
    """The blocks with each described image's block before ``blocks[ref.position]``."""
    if not described:
        return doc.blocks
    at: defaultdict[int, list[Block]] = defaultdict(list)
    for ref in doc.images:
        if ref.key in described:
            where = f"Image p.{ref.page}" if ref.page is not None else "Image"
            at[ref.position].append(Block(f"[{where}: {described[ref.key]}]",
                                          heading_path=ref.heading_path, page=ref.page))
    blocks: list[Block] = []
    for i, block in enumerate(doc.blocks):
        blocks.extend(at.pop(i, ()))
        blocks.append(block)
    for i in sorted(at):
        blocks.extend(at[i])
    return tuple(blocks)


def _load(path: Path, doc: ExtractedDocument) -> Iterator[tuple[ImageRef, Any, str, str]]:
    """Each located image: ``(ref, payload, problem, detail)``.

    ``payload`` is a Pillow image (PDF) or the encoded bytes (DOCX); ``problem`` names why it
    is skipped (empty when it is not) and ``detail`` the underlying error, if any. Images the
    format says are tiny, and PDF images past the cap, are not decoded at all.
    """
    keys: list[str] = []
    by_key: dict[str, ImageRef] = {}
    for ref in doc.images:
        if _tiny(ref.width_px, ref.height_px):
            yield ref, None, _TINY, ""
        elif doc.source_type == "pdf" and len(keys) >= MAX_IMAGES_PER_DOCUMENT:
            yield ref, None, _OVER_CAP, ""
        else:
            keys.append(ref.key)
            by_key[ref.key] = ref
    done: set[str] = set()
    try:
        loader = load_pdf_images if doc.source_type == "pdf" else load_docx_images
        for key, payload, error in loader(path, keys):
            done.add(key)
            if payload is None:
                yield by_key[key], None, _UNDECODABLE, f"image {key}: {error}"
            else:
                yield by_key[key], payload, "", ""
    except Exception as exc:  # the file became unreadable: report, keep the text
        reason = one_line(f"{type(exc).__name__}: {exc}")[:200]
        for key in keys:
            if key not in done:
                yield by_key[key], None, "could not be read", reason


def _tiny(width: int | None, height: int | None) -> bool:
    return any(side is not None and side < MIN_IMAGE_SIDE_PX for side in (width, height))


def _prepare(payload: Any) -> tuple[bytes, str]:
    """Encoded bytes and MIME type to send for a decoded (Pillow) or encoded image.

    Raises:
        _Skip: an icon-sized image, one Pillow cannot decode (e.g. EMF/WMF vector pictures),
            or one that stays over ``MAX_IMAGE_BYTES`` after scaling down.
    """
    image = _open(payload) if isinstance(payload, bytes) else payload
    if _tiny(*image.size):
        raise _Skip(_TINY)
    if (isinstance(payload, bytes) and image.format in SENT_AS_IS
            and len(payload) <= MAX_IMAGE_BYTES and max(image.size) <= MAX_IMAGE_SIDE_PX):
        return payload, f"image/{image.format.lower()}"
    return _encode(image)


def _open(data: bytes) -> Any:
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError:
        raise _Skip(f"{_UNDECODABLE}: Pillow is not installed "
                    f"({install_hint('vision')})") from None
    try:
        image = Image.open(io.BytesIO(data))
        image.size  # noqa: B018 - the header is parsed here
    except (UnidentifiedImageError, OSError, ValueError):
        raise _Skip(f"{_UNDECODABLE} (vector or unknown format)") from None
    return image


def _encode(image: Any) -> tuple[bytes, str]:
    """PNG, or JPEG when PNG is over ``MAX_IMAGE_BYTES``; scaled to ``MAX_IMAGE_SIDE_PX``."""
    try:
        if max(image.size) > MAX_IMAGE_SIDE_PX:
            image = image.copy()
            image.thumbnail((MAX_IMAGE_SIDE_PX, MAX_IMAGE_SIDE_PX))
        if image.mode not in ("RGB", "RGBA", "L", "LA"):
            image = image.convert("RGBA" if "A" in image.mode or "transparency" in image.info
                                  else "RGB")
        out = io.BytesIO()
        image.save(out, format="PNG")
        if out.tell() <= MAX_IMAGE_BYTES:
            return out.getvalue(), "image/png"
        out = io.BytesIO()
        image.convert("RGB").save(out, format="JPEG", quality=JPEG_QUALITY)
    except (OSError, ValueError) as exc:
        raise _Skip(f"{_UNDECODABLE} (vector or unknown format)") from exc
    if out.tell() > MAX_IMAGE_BYTES:
        raise _Skip(f"over {MAX_IMAGE_BYTES // 2**20} MiB even scaled down")
    return out.getvalue(), "image/jpeg"
