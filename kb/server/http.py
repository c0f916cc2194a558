"""``kb serve``: a small HTTP API over one knowledge base (standard library only).

Endpoints (JSON in, JSON out; ``/openapi.json`` describes them):

- ``POST /search``: ``knowledge_search`` arguments -> the tool's result (``kb.server.tool``).
- ``POST /context``: the same arguments -> the context block for a model.
- ``POST /ingest``: ``{"paths": [...]}`` confined to the ``--root`` folders (403 otherwise).
- ``GET /documents``: the stored documents.
- ``GET /documents/{doc_id}``: one document's extracted text, passages with page and headings.
- ``GET /chunks/{chunk_id}?neighbours=N``: a cited chunk with N chunks each side (default 1).
- ``GET /status``: counts, embedder, judge threshold, index health (as ``kb status --json``).
- ``GET /health``: liveness and a chunk count.
- ``GET /openapi.json``: the OpenAPI 3.1 description.

Safety:

1. The server binds 127.0.0.1 by default. Binding any other address needs a bearer token
   (``--token`` or ``KB_TOKEN``, at least ``MIN_TOKEN_CHARS`` characters); without one the server
   refuses to start.
2. With a token, every request, health and schema included, must carry
   ``Authorization: Bearer <token>``; otherwise 401.
3. Without a token (loopback only), requests must name a loopback ``Host`` (DNS rebinding) and
   carry no foreign ``Origin``; POST bodies must be ``application/json``, which a web page
   cannot send cross-origin without a preflight this server never approves.
4. Bodies are capped at ``MAX_BODY_BYTES``; each connection times out after ``TIMEOUT_S``.

Every answer is JSON, errors included: ``{"error": {"type", "message"}}`` with its status. A
method no endpoint takes (PUT, PATCH, DELETE, OPTIONS, HEAD, or any other) gets 405 with an
``Allow`` header (the path's method, or ``GET, POST`` for an unknown path); the standard
library's own errors (a malformed request line, oversized headers) are JSON too. Strings are
encoded with unpaired UTF-16 surrogates replaced by U+FFFD, so no text can fail the encoding.
"""

from __future__ import annotations

import hmac
import logging
import re
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from kb.api import KnowledgeBase
from kb.backends.registry import is_loopback, loopback_url
from kb.jsonshape import to_json
from kb.server import reading
from kb.server.arguments import parse_search_arguments
from kb.server.openapi import openapi_schema
from kb.server.request_json import decode_json, encode_json
from kb.server.tool import (
    error_result,
    knowledge_ingest,
    knowledge_search,
    server_version,
    shown_query,
)
from kb.shapes import ContextJSON, DocumentsJSON, HealthJSON

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"  # DESIGN 1 / issue 6: localhost unless a token guards the bind
DEFAULT_PORT = 8765  # an arbitrary unprivileged port; --port changes it
MIN_TOKEN_CHARS = 16  # ~96 bits from `secrets.token_urlsafe(12)`; shorter is guessable
MAX_BODY_BYTES = 1_048_576  # 1 MiB: arguments and paths, never documents
TIMEOUT_S = 30.0  # per-connection socket timeout (slow clients cannot pin a thread)
LISTEN_BACKLOG = 128  # pending connections queued before the kernel refuses more
# a client's socket failing: nothing to answer, nothing of ours broken
CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)
_ANSWERED = object()  # sentinel: the request was already answered with an error
STATUS = {"invalid_arguments": 400, "refused": 403, "not_found": 404, "failed": 500}
ENDPOINTS = {"/search": "POST", "/context": "POST", "/ingest": "POST", "/documents": "GET",
             "/status": "GET", "/health": "GET", "/openapi.json": "GET"}  # path -> its method
ITEM_PATH = re.compile(r"/(documents|chunks)/([^/]+)")  # GET only: one document or chunk


@dataclass(frozen=True, slots=True)
class ServeSettings:
    """Where and how ``kb serve`` listens.

    Attributes:
        host: address to bind; loopback unless ``token`` is set.
        port: TCP port; 0 picks a free one.
        token: bearer token every request must carry, or ``None`` (loopback only).
        roots: resolved folders ``/ingest`` may read; empty disables ingest.
    """

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    token: str | None = None
    roots: tuple[Path, ...] = ()


def check_settings(settings: ServeSettings) -> None:
    """Refuse settings that would expose the knowledge base.

    Raises:
        ValueError: a non-loopback bind without a token, or a token that is too short.
    """
    if settings.token is not None and len(settings.token) < MIN_TOKEN_CHARS:
        raise ValueError(f"the bearer token must be at least {MIN_TOKEN_CHARS} characters; make "
                         "one with: python -c 'import secrets; print(secrets.token_urlsafe())'")
    if not settings.token and not is_loopback(settings.host):
        raise ValueError(f"binding {settings.host} (not loopback) requires a bearer token: pass "
                         "--token or set KB_TOKEN")


class KbHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server holding the knowledge base and the settings."""

    daemon_threads = True
    # connections the kernel holds while every thread is busy (the standard library's 5 reset
    # 26 of 50 clients sending a search at once: an interfaces trial)
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, kb: KnowledgeBase, settings: ServeSettings) -> None:
        self.kb = kb
        self.settings = settings
        if ":" in settings.host:
            self.address_family = socket.AF_INET6
        super().__init__((settings.host.strip("[]"), settings.port), Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client gone mid-request (reset, broken pipe, stalled) is one log line."""
        if isinstance(sys.exc_info()[1], CLIENT_GONE):
            log.info("%s: the client left or stalled; no answer sent", client_address[0])
        else:  # the standard library's traceback on stderr
            super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        """The base URL the server listens on (with the real port when 0 was asked)."""
        host, port = self.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else str(host)
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}"


class Handler(BaseHTTPRequestHandler):
    """One request: authenticate, route, answer JSON."""

    server: KbHTTPServer
    timeout = TIMEOUT_S
    server_version = "kb"
    sys_version = ""  # no Python version in the Server header
    _consumed = False  # whether this request's body was read

    def log_message(self, format: str, *args: Any) -> None:
        """Send the access log to ``logging`` instead of stderr."""
        log.info("%s %s", self.address_string(), format % args)

    def _send(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        body = encode_json(data)
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":  # a HEAD answer has headers only (RFC 9110 9.3.2)
            self.wfile.write(body)

    def _fail(self, status: int, kind: str, message: str,
              headers: dict[str, str] | None = None) -> None:
        self._send(status, {"error": {"type": kind, "message": message}}, headers)

    def _allowed(self) -> bool:
        """Authenticate (token) or, without a token, check Host and Origin; answer if not."""
        token = self.server.settings.token
        if token:
            given = self.headers.get("Authorization", "")
            scheme, _, value = given.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                    value.strip().encode(), token.encode()):
                self._fail(401, "unauthorized", "missing or wrong bearer token",
                           {"WWW-Authenticate": 'Bearer realm="kb"'})
                return False
            return True
        origin = self.headers.get("Origin")
        if not loopback_url("//" + self.headers.get("Host", "")) or (
                origin and not loopback_url(origin)):
            self._fail(403, "forbidden", "only loopback Host/Origin may use a server "
                                         "without a token")
            return False
        return True

    def _body(self) -> Any:
        """The decoded JSON body, or ``_ANSWERED`` after answering an error."""
        ctype = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            self._fail(415, "unsupported_media_type", "the body must be application/json")
            return _ANSWERED
        length = self.headers.get("Content-Length")
        if length is None or not (length.isascii() and length.isdigit()):
            self._fail(411, "length_required", "a Content-Length header is required")
            return _ANSWERED
        if int(length) > MAX_BODY_BYTES:
            self._fail(413, "too_large", f"the body exceeds {MAX_BODY_BYTES} bytes")
            return _ANSWERED
        self._consumed = True
        example = '{"paths": [...]}' if self.path.startswith("/ingest") else '{"query": "..."}'
        try:
            raw = self.rfile.read(int(length))
        except TimeoutError:
            raw = b""  # the client stopped sending before Content-Length bytes
        if len(raw) < int(length):
            self._fail(400, "invalid_arguments", f"the body ended after {len(raw)} of its "
                       f"Content-Length ({length} bytes): the client closed it or sent nothing "
                       f"more for {self.timeout:g} s")
            return _ANSWERED
        try:
            return decode_json(raw, example=example)
        except ValueError as exc:
            self._fail(400, "invalid_arguments", str(exc))
            return _ANSWERED

    def _result(self, data: dict[str, Any]) -> None:
        error = data.get("error")
        self._send(STATUS.get(error["type"], 500) if error else 200, data)

    def _get(self, path: str) -> None:
        kb, settings = self.server.kb, self.server.settings
        item = ITEM_PATH.fullmatch(path)
        given = sorted(parse_qs(urlsplit(self.path).query, keep_blank_values=True))
        if given and not (item and item[1] == "chunks") and (item or path in ENDPOINTS):
            self._result(error_result("invalid_arguments", f"unknown query parameter(s) "
                                      f"{', '.join(given)}: {path} takes none"))
        elif path == "/health":
            self._send(200, to_json(HealthJSON("ok", server_version(), kb.store.counts_chunks(),
                                               ingest_enabled=bool(settings.roots))))
        elif path == "/documents":
            self._send(200, to_json(DocumentsJSON(tuple(kb.documents()))))
        elif path == "/status":
            self._result(reading.status(kb, {}))
        elif item:
            self._result(self._item(item[1], item[2]))
        elif path == "/openapi.json":
            self._send(200, openapi_schema(version=server_version(),
                                           token_required=bool(settings.token)))
        else:
            self._route_missing(path)

    def _item(self, kind: str, ident: str) -> dict[str, Any]:
        """``GET /documents/{doc_id}`` or ``GET /chunks/{chunk_id}?neighbours=N`` as data."""
        def number(text: str) -> int | str:  # "12" -> 12; anything else is refused by name
            return int(text) if text.isascii() and text.isdigit() else text
        if kind == "documents":
            return reading.get_document(self.server.kb, {"doc_id": number(ident)})
        given = parse_qs(urlsplit(self.path).query, keep_blank_values=True)
        if unknown := sorted(set(given) - {"neighbours"}):  # "neighbors", or the id by name
            return error_result("invalid_arguments", f"unknown query parameter(s) "
                                f"{', '.join(unknown)}: /chunks/{{chunk_id}} takes neighbours")
        if len(given.get("neighbours", ())) > 1:
            return error_result("invalid_arguments", "neighbours is given more than once")
        arguments: dict[str, Any] = {"chunk_id": number(ident)}
        arguments.update((name, number(values[0])) for name, values in given.items())
        return reading.get_chunk(self.server.kb, arguments)

    def _post(self, path: str) -> None:
        kb, settings = self.server.kb, self.server.settings
        if path not in ("/search", "/context", "/ingest"):
            self._route_missing(path)
            return
        body = self._body()
        if body is _ANSWERED:
            return
        if path == "/search":
            self._result(knowledge_search(kb, body))
        elif path == "/ingest":
            self._result(knowledge_ingest(kb, body, settings.roots))
        else:
            try:
                request = parse_search_arguments(body)
            except ValueError as exc:  # in the shape /context answers with, as /search does
                self._result(to_json(ContextJSON.invalid(shown_query(body), str(exc))))
                return
            self._result(to_json(ContextJSON.of(kb.search(request.query, request.options))))

    def _route_missing(self, path: str) -> None:
        """404 for an unknown path taken by GET or POST, else 405 naming what is allowed."""
        allow = ENDPOINTS.get(path) or ("GET" if ITEM_PATH.fullmatch(path) else None)
        if allow:
            self._fail(405, "method_not_allowed", f"{path} takes {allow}, not {self.command}",
                       {"Allow": allow})
        elif self.command in ("GET", "POST"):
            self._fail(404, "not_found", f"no endpoint {path}; see /openapi.json")
        else:
            self._fail(405, "method_not_allowed", f"{self.command} is not served: every "
                       "endpoint takes GET or POST; see /openapi.json", {"Allow": "GET, POST"})

    def _drain(self) -> None:
        """Read a request body the answer did not need (up to the cap).

        Closing a socket with unread data resets the connection, which can destroy the answer
        before the client reads it.
        """
        length = self.headers.get("Content-Length", "")
        digits = length.isascii() and length.isdigit()
        if self._consumed or not digits or not 0 < int(length) <= MAX_BODY_BYTES:
            return
        try:
            self.rfile.read(int(length))
        except OSError:  # a slow or vanished client: the answer is already sent
            pass

    def _handle(self, route: Callable[[str], None]) -> None:
        self._consumed = False
        try:
            if self._allowed():
                route(urlsplit(self.path).path.rstrip("/") or "/")
        except CLIENT_GONE:
            raise  # no answer can reach it: KbHTTPServer.handle_error logs one line
        except Exception as exc:  # one request's failure must not kill the server
            log.exception("request failed")
            self._fail(500, "failed", f"{type(exc).__name__}: {exc}")
        self._drain()

    def do_GET(self) -> None:
        """Answer a GET."""
        self._handle(self._get)

    def do_POST(self) -> None:
        """Answer a POST."""
        self._handle(self._post)

    def _not_served(self) -> None:
        """Answer a method no endpoint takes: JSON 405 with ``Allow`` (or 401/403 first)."""
        self._handle(self._route_missing)

    do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _not_served

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        """Answer the standard library's own errors as JSON instead of its HTML page.

        It calls this for a method without a ``do_`` handler (501, answered here as 405)
        and for requests it cannot parse (400, 414, 431, 505).
        """
        if code == HTTPStatus.NOT_IMPLEMENTED and getattr(self, "headers", None) is not None:
            self._not_served()  # e.g. TRACE, PROPFIND: a method, parsed, that kb does not serve
            return
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "error"
        self.log_error("code %d, message %s", code, message)
        self.close_connection = True
        self._send(code, {"error": {"type": phrase.lower().replace(" ", "_").replace("-", "_"),
                                    "message": message or phrase}}, {"Connection": "close"})


def make_server(kb: KnowledgeBase, settings: ServeSettings) -> KbHTTPServer:
    """A bound, not yet serving, HTTP server (call ``serve_forever``).

    Raises:
        ValueError: unsafe settings (see ``check_settings``).
        OSError: the address cannot be bound.
    """
    check_settings(settings)
    return KbHTTPServer(kb, settings)


def serve(kb: KnowledgeBase, settings: ServeSettings,
          on_ready: Callable[[KbHTTPServer], None] | None = None) -> None:
    """Serve until interrupted (Ctrl-C ends it cleanly).

    Raises:
        ValueError: unsafe settings (see ``check_settings``).
        OSError: the address cannot be bound.
    """
    server = make_server(kb, settings)
    if on_ready:
        on_ready(server)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "KbHTTPServer", "ServeSettings", "check_settings",
           "is_loopback", "make_server", "serve"]
