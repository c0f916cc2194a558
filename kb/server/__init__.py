"""Interfaces for assistants: the ``knowledge_search`` tool, HTTP and MCP servers, ingest roots.

``tool`` defines the tools' schemas and handlers, ``roots`` confines ingest paths,
``request_json`` checks JSON bodies, and ``http`` and ``mcp`` serve the tools.
"""
