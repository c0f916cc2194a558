"""The OpenAPI 3.1 document of ``kb serve``, generated from the shapes it answers with.

Request bodies are the tools' argument schemas (``kb.server.arguments``); answers are the
dataclasses of ``kb.shapes``, turned into JSON Schema by ``kb.jsonshape.json_schema``. Nothing
here is written by hand but the list of endpoints, so the document cannot drift from what the
server returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kb.jsonshape import REF_PREFIX, json_schema
from kb.server.arguments import INGEST_INPUT_SCHEMA, INPUT_SCHEMA
from kb.server.reading import GET_CHUNK_SCHEMA, GET_DOCUMENT_SCHEMA
from kb.shapes import (
    ChunkInContextJSON,
    ContextJSON,
    DocumentsJSON,
    DocumentTextJSON,
    ErrorJSON,
    HealthJSON,
    IngestResultJSON,
    SearchResultJSON,
    StatusJSON,
)

OPENAPI_VERSION = "3.1.0"  # JSON Schema 2020-12, the dialect kb.jsonshape writes


def path_id(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI path parameter ``name``, with its schema from a reading tool's arguments."""
    return {"name": name, "in": "path", "required": True, "schema": schema["properties"][name]}


def openapi_schema(*, version: str, token_required: bool) -> dict[str, Any]:
    """The OpenAPI 3.1 description of the endpoints.

    Args:
        version: the server's version, for ``info.version``.
        token_required: every request must carry a bearer token.
    """
    schemas: dict[str, Any] = {"SearchArguments": INPUT_SCHEMA,
                               "IngestArguments": INGEST_INPUT_SCHEMA}
    error = json_schema(ErrorJSON, schemas)

    def op(summary: str, out: dict[str, Any], body: str | None = None,
           errors: Sequence[int] = (), parameters: Sequence[dict[str, Any]] = ()
           ) -> dict[str, Any]:
        # an error is the answer's own shape with its error set (a tool result), or ErrorJSON
        failed = {"description": "Error", "content": {"application/json": {
            "schema": {"anyOf": [out, error]}}}}
        o: dict[str, Any] = {"summary": summary, "responses": {
            "200": {"description": "OK", "content": {"application/json": {"schema": out}}},
            **{str(code): failed for code in (*errors, 401)}}}
        if parameters:
            o["parameters"] = list(parameters)
        if body is not None:
            o["requestBody"] = {"required": True, "content": {"application/json": {
                "schema": {"$ref": REF_PREFIX + body}}}}
        return o

    search = json_schema(SearchResultJSON, schemas)
    schema: dict[str, Any] = {
        "openapi": OPENAPI_VERSION,
        "info": {"title": "kb", "version": version,
                 "description": "Local knowledge-base search with cited references."},
        "paths": {
            "/search": {"post": op("Search; cited references", search, "SearchArguments",
                                   (400, 415, 500))},
            "/context": {"post": op("The context block for a model",
                                    json_schema(ContextJSON, schemas), "SearchArguments",
                                    (400, 415, 500))},
            "/ingest": {"post": op("Ingest files under the configured roots",
                                   json_schema(IngestResultJSON, schemas), "IngestArguments",
                                   (400, 403, 404, 415, 500))},
            "/documents": {"get": op("The stored documents",
                                     json_schema(DocumentsJSON, schemas))},
            "/documents/{doc_id}": {"get": op(
                "One document's extracted text, as passages with page and heading path",
                json_schema(DocumentTextJSON, schemas), errors=(400, 404, 500),
                parameters=[path_id("doc_id", GET_DOCUMENT_SCHEMA)])},
            "/chunks/{chunk_id}": {"get": op(
                "A cited chunk with its neighbours", json_schema(ChunkInContextJSON, schemas),
                errors=(400, 404, 500), parameters=[
                    path_id("chunk_id", GET_CHUNK_SCHEMA),
                    {"name": "neighbours", "in": "query", "required": False,
                     "schema": GET_CHUNK_SCHEMA["properties"]["neighbours"]}])},
            "/status": {"get": op("Counts, embedder, judge threshold, index health",
                                  json_schema(StatusJSON, schemas), errors=(400, 500))},
            "/health": {"get": op("Liveness", json_schema(HealthJSON, schemas))},
            "/openapi.json": {"get": op("This description", {"type": "object"})},
        },
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
    if token_required:
        schema["security"] = [{"bearer": []}]
    return schema


__all__ = ["OPENAPI_VERSION", "openapi_schema"]
