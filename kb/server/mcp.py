"""``kb mcp``: kb's tools and documents served over MCP (stdio), with the official SDK.

The server lists ``knowledge_search``, the reading tools (``get_chunk``, ``get_document``,
``list_documents``, ``status``: ``kb.server.reading``) always and ``knowledge_ingest`` only
when ingest roots are configured. Each document is also a resource, ``kb://document/ID``
(``resources/list``, ``resources/read``, and the template in ``resources/templates/list``),
read as its text with ``[p. 3 · Heading]`` lines where the place changes; an unknown URI is the
JSON-RPC error ``RESOURCE_NOT_FOUND``. A call returns the tool's JSON result
(``kb.server.tool``, ``kb.server.reading``) as one text content block and as structured
content; an error result (invalid arguments, an unknown id, a refused path) is marked
``isError`` so the agent sees it as a failed call it can correct, never as a crash, and never
as an ``insufficient_evidence`` answer. A line that is no JSON-RPC message is answered with
``-32700`` or ``-32600`` (``answer_malformed``; the SDK only logs it). At the end of stdin
every request read is answered before the server stops (``InFlight``).

The SDK (``mcp``) is an optional dependency (the ``mcp`` extra: ``kb.errors.install_hint``) and is
imported only when a server is built.
"""

from __future__ import annotations

import functools
import json
import typing
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb.api import KnowledgeBase
from kb.errors import DocumentNotFound, KbError, install_hint
from kb.retrieve.pipeline import well_formed
from kb.server.arguments import INGEST_INPUT_SCHEMA, INPUT_SCHEMA
from kb.server.reading import HANDLERS, RESOURCE_PREFIX, TOOLS, resource_doc_id
from kb.server.tool import (
    DESCRIPTION,
    INGEST_DESCRIPTION,
    INGEST_TOOL_NAME,
    TOOL_NAME,
    error_result,
    knowledge_ingest,
    knowledge_search,
    server_version,
)
from kb.types.reading import render_document

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

SERVER_NAME = "kb"
INSTALL_HINT = install_hint("mcp")
INSTRUCTIONS = (
    "kb searches the user's local documents. Call knowledge_search before answering questions "
    "the documents may cover; answer only from the returned references and cite them by number. "
    "To read around a citation call get_chunk with its chunk_id; get_document reads a whole "
    "document."
)
RESOURCE_NOT_FOUND = -32002  # MCP specification, resources: "Resource not found"


def require_mcp() -> None:
    """Check that the MCP SDK is importable.

    Raises:
        kb.errors.KbError: it is not installed (the message names the install command).
    """
    try:
        import mcp.server.lowlevel  # noqa: F401
    except ImportError as exc:
        raise KbError(f"the MCP server needs the MCP Python SDK, which is not installed "
                      f"({exc}); install it with: {INSTALL_HINT}") from exc


def build_server(kb: KnowledgeBase, roots: Sequence[Path] = ()) -> Server[Any]:
    """An MCP server: search, the reading tools, documents as resources (ingest under ``roots``).

    Args:
        kb: the open knowledge base the tools use.
        roots: resolved ingest roots (``kb.server.roots.check_roots``); empty disables ingest.

    Raises:
        kb.errors.KbError: the MCP SDK is not installed.
    """
    require_mcp()
    import anyio.to_thread
    import mcp_types as types
    from mcp.server.lowlevel import Server

    tools = [types.Tool(
        name=TOOL_NAME, title="Search the knowledge base", description=DESCRIPTION,
        input_schema=INPUT_SCHEMA,
        annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True,
                                          open_world_hint=False))]
    if roots:
        tools.append(types.Tool(
            name=INGEST_TOOL_NAME, title="Add documents to the knowledge base",
            description=INGEST_DESCRIPTION, input_schema=INGEST_INPUT_SCHEMA,
            annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                              idempotent_hint=True, open_world_hint=False)))
    tools += [types.Tool(name=name, title=title, description=description, input_schema=schema,
                         annotations=types.ToolAnnotations(read_only_hint=True,
                                                           idempotent_hint=True,
                                                           open_world_hint=False))
              for name, (title, description, schema) in TOOLS.items()]
    root_list = tuple(roots)

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments: dict[str, Any] = params.arguments or {}
        data: dict[str, Any]
        if params.name == TOOL_NAME:
            data = await anyio.to_thread.run_sync(knowledge_search, kb, arguments)
        elif params.name == INGEST_TOOL_NAME and root_list:
            data = await anyio.to_thread.run_sync(knowledge_ingest, kb, arguments, root_list)
        elif params.name in HANDLERS:
            data = await anyio.to_thread.run_sync(HANDLERS[params.name], kb, arguments)
        else:
            names = ", ".join(t.name for t in tools)
            off = (f" ({INGEST_TOOL_NAME} is off: start the server with --root FOLDER)"
                   if params.name == INGEST_TOOL_NAME else "")
            data = error_result("invalid_arguments",
                                f"unknown tool {params.name!r}; this server has {names}{off}")
        text = json.dumps(data, ensure_ascii=False, sort_keys=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=data,
                                    is_error=data.get("error") is not None)

    async def list_resources(ctx: Any, params: types.PaginatedRequestParams | None
                             ) -> types.ListResourcesResult:
        documents = await anyio.to_thread.run_sync(kb.documents)
        return types.ListResourcesResult(resources=[types.Resource(
            uri=f"{RESOURCE_PREFIX}{d.id}", name=d.title, title=d.title, mime_type="text/plain",
            description=f"{d.source_type} document, {d.chunk_count} chunks: {d.source}")
            for d in documents])

    async def list_templates(ctx: Any, params: types.PaginatedRequestParams | None
                             ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate(
            uri_template=RESOURCE_PREFIX + "{doc_id}", name="document", mime_type="text/plain",
            description="A document's extracted text, by the doc_id of a reference")])

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        from mcp.shared.exceptions import MCPError
        try:
            found = await anyio.to_thread.run_sync(kb.get_document, resource_doc_id(params.uri))
        except (ValueError, DocumentNotFound) as exc:
            raise MCPError(RESOURCE_NOT_FOUND, str(exc), {"uri": params.uri}) from exc
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=params.uri, mime_type="text/plain", text=render_document(found))])

    return Server(SERVER_NAME, version=server_version(), instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_resources=list_resources, on_list_resource_templates=list_templates,
                  on_read_resource=read_resource)


def run_stdio(kb: KnowledgeBase, roots: Sequence[Path] = ()) -> None:
    """Serve the tools over stdin/stdout until the client closes the connection.

    Args:
        kb: the open knowledge base.
        roots: resolved ingest roots; empty disables ingest.

    Raises:
        kb.errors.KbError: the MCP SDK is not installed.
    """
    server = build_server(kb, roots)
    import anyio
    from mcp.server.stdio import stdio_server

    async def serve() -> None:
        async with stdio_server() as (read_stream, write_stream), anyio.create_task_group() as tg:
            checked_writer, checked = anyio.create_memory_object_stream[Any](0)
            answers_writer, answers = anyio.create_memory_object_stream[Any](0)
            in_flight = InFlight()
            tg.start_soon(answer_malformed, read_stream, checked_writer, write_stream, in_flight)
            tg.start_soon(in_flight.relay, answers, write_stream)
            async with answers_writer:
                await server.run(checked, answers_writer, server.create_initialization_options())

    anyio.run(serve)


class InFlight:
    """The requests read and not yet answered, so that the end of stdin drops none.

    A client that writes its requests and closes stdin at once (``printf ... | kb mcp``) had
    only the quick ones answered: at the end of its input the SDK's server stops, cancelling
    the tool calls still running. ``answer_malformed`` holds the server's input open until
    each request read is answered (or cancelled by the client), at most ``DRAIN_TIMEOUT_S``:
    stdin's end is also how MCP clients shut a server down, so a long ingest is not waited
    for. Ids are compared as the SDK does ("7" is 7) and counted (an id sent twice is two
    requests).
    """

    DRAIN_TIMEOUT_S = 60.0

    def __init__(self) -> None:
        import anyio

        self._ids: Counter[Any] = Counter()
        self._none_left = anyio.Event()
        self._none_left.set()

    def read(self, message: Any) -> None:
        """Note a message read from the client (a request waits for its answer)."""
        from mcp import types

        if isinstance(message, types.JSONRPCRequest):
            self._add(message.id)
        elif (isinstance(message, types.JSONRPCNotification)
              and message.method == "notifications/cancelled"):
            self._answered((message.params or {}).get("requestId"), every=True)

    def _add(self, request_id: Any) -> None:
        import anyio

        if not self._ids:
            self._none_left = anyio.Event()
        self._ids[_same_id(request_id)] += 1

    def _answered(self, request_id: Any, *, every: bool = False) -> None:
        key = _same_id(request_id)
        if key in self._ids:
            self._ids[key] = 0 if every else self._ids[key] - 1
            if self._ids[key] <= 0:
                del self._ids[key]
        if not self._ids:
            self._none_left.set()

    async def drained(self) -> None:
        """Wait until every request read is answered, at most ``DRAIN_TIMEOUT_S``."""
        import anyio

        with anyio.move_on_after(self.DRAIN_TIMEOUT_S):
            await self._none_left.wait()

    async def relay(self, answers: Any, outgoing: Any) -> None:
        """Pass the server's messages to ``outgoing``, noting each request answered."""
        from mcp import types

        async with answers, outgoing:
            async for item in answers:
                if isinstance(item.message, types.JSONRPCResponse | types.JSONRPCError):
                    self._answered(item.message.id)
                await outgoing.send(item)


def _same_id(request_id: Any) -> Any:
    """A request id as the SDK correlates it ("7" and 7 are one id)."""
    from mcp.shared.dispatcher import coerce_request_id

    return coerce_request_id(request_id) if isinstance(request_id, str | int) else request_id


async def answer_malformed(incoming: Any, forward: Any, outgoing: Any,
                           in_flight: InFlight | None = None) -> None:
    """Pass well-formed messages on; answer a line that is none with a JSON-RPC error.

    The SDK's stdio transport hands the server an exception for a line it cannot read, and
    the server only logs it, so a client waiting for an answer would wait forever. JSON-RPC
    2.0 (section 5.1) answers such a line: ``-32700`` (parse error) when it is not JSON,
    ``-32600`` (invalid request) when it is JSON but no message; with the line's ``id`` when
    it has one, else ``null``. A request method with no usable id is answered ``-32600``
    too (``_request_without_id``).

    Args:
        incoming: the transport's read stream (``SessionMessage`` or ``Exception`` items).
        forward: where the server reads the well-formed messages.
        outgoing: the transport's write stream.
        in_flight: notes each request passed on; at the end of ``incoming`` the server's
            input stays open until they are answered (``InFlight``).
    """
    from mcp import types
    from mcp.shared.message import SessionMessage

    async with forward:
        async for item in incoming:
            if isinstance(item, Exception) and (message := _reparsed(item)) is not None:
                item = SessionMessage(message)  # a lone surrogate's escape: valid JSON
            if not isinstance(item, Exception) and not _request_without_id(item.message):
                if in_flight is not None:
                    in_flight.read(item.message)
                await forward.send(item)
                continue
            answer = _malformed(item) if isinstance(item, Exception) else (
                types.INVALID_REQUEST, None)
            if answer is None:  # an empty line asks nothing: no answer
                continue
            code, message_id = answer
            error = types.JSONRPCError(jsonrpc="2.0", id=message_id, error=types.ErrorData(
                code=code, message="parse error: the line is not JSON" if code == types.PARSE_ERROR
                else "invalid request: not a JSON-RPC 2.0 message" if isinstance(item, Exception)
                else f"invalid request: {item.message.method} needs an id that is a string or "
                     "an integer; this one has none, or one of another type (1.5, true, an "
                     "object), so the answer's id is null"))
            await outgoing.send(SessionMessage(error))
        if in_flight is not None:
            await in_flight.drained()


def _request_without_id(message: Any) -> bool:
    """A request method read as a notification: its id was missing, or no string or integer.

    The SDK reads ``{"id": 1.5, "method": "tools/list"}`` (an id of 1.5, ``true`` or an
    object) as a notification and drops it, so the client waits forever. A method the SDK
    knows as a client's request (``_client_request_methods``: ``tools/list``, ``ping``, ...)
    needs an id (MCP: "Requests MUST include a string or integer ID"), and the line is
    answered as an invalid request, with a ``null`` id (JSON-RPC 2.0, section 5: the id could
    not be read). Any other method is a notification, never answered (``$/cancelRequest``).
    """
    from mcp import types

    return (isinstance(message, types.JSONRPCNotification)
            and message.method in _client_request_methods())


@functools.cache
def _client_request_methods() -> frozenset[str]:
    """The methods of the requests a client sends, as the SDK's ``ClientRequest`` lists them."""
    from mcp import types

    return frozenset(method for request in typing.get_args(types.ClientRequest)
                     for method in typing.get_args(request.model_fields["method"].annotation))


def _reparsed(exc: Exception) -> Any:
    r"""The message of a line the SDK's JSON parser refused for a lone surrogate or a BOM.

    ``"\ud800"`` is valid JSON (RFC 8259 section 8.2 leaves its meaning open; Python's
    ``json.dumps`` writes it for a lone surrogate), which pydantic's parser refuses as
    ``json_invalid``; Python's own parser reads the line, each lone surrogate becomes U+FFFD
    (as the HTTP API does), and the message is validated again. A UTF-8 byte-order mark
    before the first line (Windows PowerShell's pipes write one) is skipped, as RFC 8259
    section 8.1 allows a parser to. ``None`` for any other error.
    """
    from mcp import types
    from pydantic import ValidationError

    errors = list(exc.errors()) if isinstance(exc, ValidationError) else []
    raw = errors[0].get("input") if errors and errors[0].get("type") == "json_invalid" else None
    if not isinstance(raw, str) or "\\u" not in raw and not raw.startswith("\ufeff"):
        return None
    try:
        return types.jsonrpc_message_adapter.validate_python(
            _without_surrogates(json.loads(raw.removeprefix("\ufeff"))), by_name=False)
    except ValueError:  # not JSON after all, or no message (ValidationError is a ValueError)
        return None


def _without_surrogates(data: Any) -> Any:
    """``data`` (parsed JSON) with each lone surrogate in its strings replaced by U+FFFD."""
    if isinstance(data, str):
        return well_formed(data)
    if isinstance(data, list):
        return [_without_surrogates(v) for v in data]
    if isinstance(data, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in data.items()}
    return data


def _malformed(exc: Exception) -> tuple[int, int | str | None] | None:
    """The JSON-RPC error code for a line the transport could not read, and the line's id.

    A pydantic ``ValidationError`` of type ``json_invalid`` is a line that is not JSON
    (``-32700``; ``None``, no answer, when the line was empty or whitespace); any other is
    JSON that is no message (``-32600``), whose ``id`` (a string or an integer) is answered
    when it has one.
    """
    from mcp import types
    from pydantic import ValidationError

    errors = list(exc.errors()) if isinstance(exc, ValidationError) else []
    unparsed = [e for e in errors if e.get("type") == "json_invalid"]
    if any(not str(e.get("input", "")).strip() for e in unparsed):
        return None
    if not errors or unparsed:
        return types.PARSE_ERROR, None
    # the message itself, as some error of the union reports it (the first may be one field's)
    data = next((e["input"] for e in errors if isinstance(e.get("input"), dict)), None)
    found = data.get("id") if isinstance(data, dict) else None
    valid = isinstance(found, str) or isinstance(found, int) and not isinstance(found, bool)
    return types.INVALID_REQUEST, found if valid else None


__all__ = ["INSTALL_HINT", "answer_malformed", "build_server", "require_mcp", "run_stdio"]
