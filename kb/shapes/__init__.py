"""The JSON every interface speaks, defined once: the CLI's ``--json``, HTTP, MCP and the tool.

Each shape is a frozen dataclass; ``kb.jsonshape.to_json`` writes it and ``json_schema`` derives
its schema, from which ``kb.server.openapi`` builds the OpenAPI document. Field names are those
of the domain types (``kb.types``): a document's ``chunk_count``, an ingest summary's ``added``
and ``updated`` (the files' actions), ``candidates`` an object of list name -> hits.

``kb.shapes.search``: a search's result, references, diagnostics and context;
``kb.shapes.collection``: documents, ingest results, status and health; ``kb.shapes.reading``:
a chunk with its neighbours and a document's text; ``kb.shapes.errors``: the error. All are
importable from here.
"""

from kb.shapes.collection import (
    DocumentsJSON,
    HealthJSON,
    IngestResultJSON,
    IngestSummaryJSON,
    RefusedPathJSON,
    StatusJSON,
)
from kb.shapes.errors import ErrorDetailJSON, ErrorJSON, ErrorType
from kb.shapes.reading import ChunkInContextJSON, DocumentTextJSON
from kb.shapes.search import (
    DATA_NOTE,
    FAILED_NOTE,
    INVALID_NOTE,
    NO_EVIDENCE_NOTE,
    ContextJSON,
    DiagnosticsJSON,
    ExplainedJSON,
    ExplainJSON,
    ReferenceJSON,
    SearchResultJSON,
    StageJSON,
)

__all__ = [
    "DATA_NOTE", "FAILED_NOTE", "INVALID_NOTE", "NO_EVIDENCE_NOTE", "ChunkInContextJSON",
    "ContextJSON", "DiagnosticsJSON", "DocumentTextJSON", "DocumentsJSON", "ErrorDetailJSON",
    "ErrorJSON", "ErrorType", "ExplainJSON", "ExplainedJSON", "HealthJSON", "IngestResultJSON",
    "IngestSummaryJSON", "ReferenceJSON", "RefusedPathJSON", "SearchResultJSON", "StageJSON",
    "StatusJSON",
]
