"""``kb mcp``: the ``knowledge_search`` tool served over MCP (stdio), with the official SDK.

The server lists ``knowledge_search`` always and ``knowledge_ingest`` only when ingest roots
are configured. A call returns the tool's JSON result (``kb.server.tool``) as one text content block
and as structured content; an error result (invalid arguments, refused path) is marked
``isError`` so the agent sees it as a failed call it can correct, never as a crash.

The SDK (``mcp``) is an optional dependency (the ``mcp`` extra: ``kb.errors.install_hint``) and is
imported only when a server is built.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb.api import KnowledgeBase
from kb.errors import KbError, install_hint
from kb.server.arguments import INGEST_INPUT_SCHEMA, INPUT_SCHEMA
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

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

SERVER_NAME = "kb"
INSTALL_HINT = install_hint("mcp")
INSTRUCTIONS = (
    "kb searches the user's local documents. Call knowledge_search before answering questions "
    "the documents may cover; answer only from the returned references and cite them by number."
)


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
    """An MCP server exposing ``knowledge_search`` (and ``knowledge_ingest`` under ``roots``).

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
        else:
            names = ", ".join(t.name for t in tools)
            data = error_result("invalid_arguments",
                                f"unknown tool {params.name!r}; this server has {names}")
        text = json.dumps(data, ensure_ascii=False, sort_keys=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=data,
                                    is_error=data.get("error") is not None)

    return Server(SERVER_NAME, version=server_version(), instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


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
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(serve)


__all__ = ["INSTALL_HINT", "build_server", "require_mcp", "run_stdio"]
