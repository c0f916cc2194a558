"""Every key of the ``meta`` table, in one enum.

A member either names one row (``MetaKey.GENERATION``) or is the prefix of a family of rows, one
per fingerprint or path (``MetaKey.CALIBRATION.of(fingerprint)`` is ``calibration:<fingerprint>``).
Values are text: integers as decimal digits, records as JSON.
"""

from __future__ import annotations

from enum import StrEnum


class MetaKey(StrEnum):
    """The keys (and key prefixes) of ``meta``; the value's form follows each member."""

    GENERATION = "generation"
    """An integer bumped by every write that changes what a search reads (``Store.write``)."""
    TOKENIZER_FINGERPRINT = "tokenizer_fingerprint"
    """The tokenizer that built ``chunks_fts`` (``kb.store.textindex.TOKENIZER_FINGERPRINT``)."""
    LIVE_FINGERPRINT = "embedder_fingerprint"
    """The fingerprint key of the vectors in ``chunks.embedding`` (``kb.store.vectors``)."""
    LIVE_DESCRIPTION = "embedder_description"
    """The live vectors' model, human-readable."""
    LIVE_SPEC = "embedder_spec"
    """The embedder spec that builds the live model, when known."""
    REEMBED_TARGET = "reembed_target"
    """JSON of the ``kb.store.vectors.ReembedTarget`` an unfinished re-embed stages."""
    BITS_MEAN = "bits_mean"
    """JSON ``{"fingerprint", "mean", "scale", "vectors_at_build"}``: the bit index's centring
    mean, int8 scales and live vectors at its build (``kb.store.bitbuild.Centring``)."""
    BITS_CODED_SINCE_BUILD = "bits_coded_since_build"
    """An integer: bit index rows written since its build (``kb.store.bitbuild.put_bits``)."""
    LAST_IDS = "last_ids"
    """JSON ``{"documents": int, "chunks": int}``: the highest ids ever given, so that an id
    removed is never given again (``kb.store.documents.insert_document``)."""
    EVAL_INDEX_DIGEST = "eval_index_digest"
    """The digest of the corpus and settings an evaluation index was built from."""
    CALIBRATION = "calibration:"
    """Prefix: JSON score anchors and floor of one fingerprint (``kb.retrieve.calibration``)."""
    JUDGE_THRESHOLD = "judge_threshold:"
    """Prefix: JSON judge threshold of one fingerprint, or of ``lexical`` (BM25 only)."""
    SYMLINK = "symlink:"
    """Prefix: the source of the document a symlink brought in, keyed by the link's path."""
    UPKEEP = "upkeep:"
    """Prefix: when a data upkeep step ran (``kb.store.upkeep``), ISO time."""
    DEVICE = "device:"
    """Prefix: the file system (``st_dev``) a folder holding indexed files was on at its last
    ingest, keyed by the folder's path (``kb.store.devices``)."""

    def of(self, suffix: str) -> str:
        """The key of one row of a prefix family, e.g. ``calibration:<fingerprint>``.

        Raises:
            ValueError: this member names a single row, not a prefix.
        """
        if not self.value.endswith(":"):
            raise ValueError(f"meta key {self.value!r} is not a prefix")
        return f"{self.value}{suffix}"


def keys_under(folder: str, prefix: str = "") -> tuple[str, str]:
    """``(low, high)``: a text ``prefix + folder + "/..."`` sorts in ``low <= key < high``.

    Every path under the absolute ``folder`` (no trailing separator), whole segments only
    (``/notes`` bounds ``/notes/a.md``, never ``/notes-private/b.md``): "0" follows "/" in
    code point order. A range query on an indexed column reads those rows alone.
    """
    return f"{prefix}{folder}/", f"{prefix}{folder}0"
