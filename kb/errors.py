"""The one error tree of kb.

Every error kb raises on purpose is a ``KbError``; caller mistakes (a bad argument) raise the
built-in ``ValueError`` or ``TypeError`` instead::

    KbError                      root; the CLI prints str(error) as one line, exit code 1
    ├── StoreError               the SQLite file cannot be opened, migrated or written (.path)
    │   └── SchemaError          the file's schema is newer than this kb, or not a kb file
    ├── ExtractError             one document could not be turned into text (.path, .reason)
    │   ├── EncryptedError       needs a user password
    │   ├── CorruptError         unreadable or malformed file
    │   ├── EmptyDocumentError   no extractable text (empty file, scan without text layer)
    │   ├── UnsupportedTypeError the file type has no extractor
    │   └── BudgetExceededError  extraction ran past its time or memory budget
    ├── BackendError             a model backend failed (.backend)
    │   ├── BackendUnavailable   not installed, not reachable, or its circuit is open
    │   └── FingerprintMismatch  stored vectors come from another model (.stored, .configured)
    ├── ReembedConflict          an unfinished re-embed to another model would be lost (.target)
    ├── DocumentNotFound         a document id or source that is not in the index (.ref)
    │   └── ChunkNotFound        a chunk id that is not in the index (.chunk_id)
    ├── SearchCancelled          the caller cancelled a search (never escapes ``search``)
    ├── SearchFailed             a search could not run (.reason); never reads as "no evidence"
    └── PathRefused              a tool/HTTP ingest path outside the configured roots (.path)
"""

from __future__ import annotations

from pathlib import Path


class KbError(Exception):
    """Root of every error kb raises on purpose."""


class StoreError(KbError):
    """The SQLite file cannot be opened, migrated or written."""

    def __init__(self, message: str, *, path: Path | str | None = None) -> None:
        super().__init__(message)
        self.path = path


class SchemaError(StoreError):
    """The file's schema is newer than this kb, or the file is not a kb database."""


class ExtractError(KbError):
    """One document could not be turned into text.

    Attributes:
        path: the file that failed.
        reason: a short human-readable reason (also the message).
    """

    kind = "failed"

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class EncryptedError(ExtractError):
    """The document is encrypted with a user password."""

    kind = "encrypted"


class CorruptError(ExtractError):
    """The file is malformed or truncated."""

    kind = "corrupt"


class EmptyDocumentError(ExtractError):
    """The file holds no extractable text (empty, or pages without a text layer)."""

    kind = "empty"


class UnsupportedTypeError(ExtractError):
    """No extractor handles this file type."""

    kind = "unsupported"


class BudgetExceededError(ExtractError):
    """Extraction ran past the per-file time or memory budget and was stopped."""

    kind = "budget"


class BackendError(KbError):
    """A model backend (embedder, LLM, reranker) failed."""

    def __init__(self, message: str, *, backend: str = "") -> None:
        super().__init__(message)
        self.backend = backend


class BackendUnavailable(BackendError):
    """The backend is not installed, not reachable, or its circuit breaker is open."""


class FingerprintMismatch(BackendError):
    """Stored vectors were made by another embedding model than the configured one.

    Attributes:
        stored: the fingerprint description stored with the index.
        configured: the fingerprint description of the configured embedder.
    """

    def __init__(self, stored: str, configured: str) -> None:
        super().__init__(
            f"the index holds vectors from {stored!r} but the configured embedder is "
            f"{configured!r}; run `kb reembed` to build vectors for the configured model "
            "(search keeps the stored ones until it completes)",
            backend=configured,
        )
        self.stored = stored
        self.configured = configured


class ReembedConflict(KbError):
    """A re-embed to another model is unfinished; starting a new one would drop its work.

    Attributes:
        target: description of the unfinished re-embed's model.
        staged: vectors it has staged so far.
    """

    def __init__(self, target: str, staged: int, spec: str | None = None) -> None:
        finish = f"`kb --embedder {spec} reembed`" if spec else "that embedder and `kb reembed`"
        super().__init__(
            f"an unfinished re-embed to {target!r} holds {staged} staged vectors; finish it "
            f"with {finish}, or drop them with `kb reembed --discard-staged`")
        self.target = target
        self.staged = staged


class DocumentNotFound(KbError):
    """A document reference (id or source) matches nothing in the index."""

    def __init__(self, ref: str) -> None:
        super().__init__(f"no document matches {ref!r}")
        self.ref = ref


class ChunkNotFound(DocumentNotFound):
    """A chunk id (a reference's ``chunk_id``) matches nothing in the index.

    A ``DocumentNotFound``: whatever was cited is not there (re-ingested or removed since).
    """

    def __init__(self, chunk_id: int) -> None:
        super().__init__(str(chunk_id))
        self.args = (f"no chunk {chunk_id} in the index (it may have been re-ingested or "
                     "removed since it was cited; search again)",)
        self.chunk_id = chunk_id


class PathRefused(KbError):
    """A path given to a tool or HTTP ingest is outside the configured roots.

    Attributes:
        path: the path as given.
        reason: why it was refused (also in the message).
    """

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"{path}: refused: {reason}")
        self.path = str(path)
        self.reason = reason


class SearchCancelled(KbError):
    """The caller cancelled a search; ``search`` turns it into an empty result with the reason."""


class SearchFailed(KbError):
    """A search could not run (a damaged index, a storage error, a cancellation).

    ``search`` itself never raises it: its result carries the reason in
    ``diagnostics.error``. The CLI and ``KnowledgeBase.ask`` raise it, so a failure ends as an
    error (a non-zero exit), never as "the knowledge base does not hold the answer".

    Attributes:
        reason: the result's ``diagnostics.error`` (also the message).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

DISTRIBUTION = "kb-refuse-rag"  # pyproject.toml's [project] name; no package registry has it


def install_hint(extra: str) -> str:
    """A command that installs kb's optional ``extra``, from a wheel or a checkout alike.

    The distribution is on no package registry, so ``pip install 'kb-refuse-rag[extra]'``
    cannot work: the hint names the extra's own packages with kb's pins (from the installed
    metadata), and the editable form for a checkout, e.g. ``pip install 'mcp==2.3.0' (kb's
    mcp extra; in a checkout of kb: pip install -e '.[mcp]')``.
    """
    from importlib.metadata import PackageNotFoundError, requires

    try:
        lines = requires(DISTRIBUTION) or []
    except PackageNotFoundError:
        lines = []
    wanted = (f"extra == '{extra}'", f'extra == "{extra}"')
    packages = [line.split(";")[0].strip().replace(" ", "") for line in lines
                if any(w in line for w in wanted)]
    checkout = f"pip install -e '.[{extra}]'"
    if not packages:
        return f"{checkout} in a checkout of kb"
    quoted = " ".join(f"'{p}'" for p in packages)
    return f"pip install {quoted} (kb's {extra} extra; in a checkout of kb: {checkout})"

