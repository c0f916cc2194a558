"""Calling a model server: timeouts, retries, a hard deadline, the breaker, error classes.

Every remote call goes through ``guarded_call``:

1. the backend's circuit breaker may refuse it at once (``BackendUnavailable``);
2. the attempt runs with a short connect timeout and a read timeout; query-time calls also run
   in a worker thread that is abandoned at the deadline, so a server that accepts the connection
   and never answers cannot stall the caller past its cap;
3. ingest-time calls retry transient failures (5xx, 429, a dropped connection) with doubling
   backoff; query-time calls never retry;
4. the outcome is reported to the breaker. An input the server finds too large
   (``InputTooLarge``) proves the server is up and is left to the caller to split or cut.

Failures become::

    BackendError            timeout, malformed reply, HTTP error, too many retries
    ├── BackendUnavailable  connection refused or connect timeout, or the circuit is open
    ├── TransientError      (internal) worth retrying: 5xx, 429, connection dropped mid-reply
    └── InputTooLarge       (internal) 413 or a context-length error; split the batch or cut
"""

from __future__ import annotations

import functools
import json
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from kb.backends.breaker import CircuitBreaker
from kb.config import HELPER_TIMEOUT_S
from kb.errors import BackendError, BackendUnavailable

log = logging.getLogger(__name__)

T = TypeVar("T")

CONNECT_TIMEOUT_S = 1.0  # issue 5: short; a local server accepts a connection in milliseconds
READ_TIMEOUT_S = 120.0  # issue 5: ingest-time calls wait out a cold model load
QUERY_TIMEOUT_S = HELPER_TIMEOUT_S  # the query-time cap on a helper model call
PROBE_TIMEOUT_S = 30.0  # one call to learn an embedder's dimensions; allows a cold model load
MAX_COMPLETION_TOKENS = 1024  # a cap on every chat reply: a small model can loop forever
INGEST_RETRIES = 2  # issue 5: bounded retries, ingest-time calls only
RETRY_BACKOFF_S = 0.5  # first retry after 0.5 s, doubling (0.5 s, 1 s)

# 413, or an error whose message says the input exceeds the model's context (OpenAI, Ollama,
# llama.cpp server "input is too large to process", TEI "must have less than 512 tokens").
TOO_LARGE_STATUSES = frozenset({400, 413, 422, 500})
TOO_LARGE_PATTERN = re.compile(
    r"context length|context window|maximum context|too long|too large|exceeds the context"
    r"|must have less than \d+ tokens", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Timeouts of one backend, in seconds.

    Attributes:
        connect_s: to open a TCP connection.
        read_s: to wait for a reply on ingest-time calls (cold model loads included).
        query_s: hard cap on query-time calls (query embedding, reranking).
        probe_s: hard cap on the one call that learns an embedder's dimensions.
    """

    connect_s: float = CONNECT_TIMEOUT_S
    read_s: float = READ_TIMEOUT_S
    query_s: float = QUERY_TIMEOUT_S
    probe_s: float = PROBE_TIMEOUT_S

    def __post_init__(self) -> None:
        if min(self.connect_s, self.read_s, self.query_s, self.probe_s) <= 0:
            raise ValueError("timeouts must be positive")

    def httpx(self, read_s: float) -> httpx.Timeout:
        """An httpx timeout waiting ``read_s`` for reads, writes and the pool."""
        return httpx.Timeout(read_s, connect=min(self.connect_s, read_s))


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Bounded retries of transient failures.

    Attributes:
        retries: further attempts after the first (0 = never retry).
        backoff_s: wait before the first retry; doubled before each later one.
    """

    retries: int = INGEST_RETRIES
    backoff_s: float = RETRY_BACKOFF_S

    def __post_init__(self) -> None:
        if self.retries < 0 or self.backoff_s < 0:
            raise ValueError("retries and backoff_s must not be negative")


NO_RETRY = RetryPolicy(retries=0)
INGEST_RETRY = RetryPolicy()
DEFAULT_TIMEOUTS = Timeouts()


class TransientError(BackendError):
    """A failure worth retrying: 5xx, 429, or a connection dropped mid-reply."""


class InputTooLarge(BackendError):
    """The server refused an input as too large (413 or a context-length error)."""


def no_answer(backend: str, waited_s: float) -> BackendError:
    """The error for a call that got no reply within ``waited_s`` seconds."""
    return BackendError(f"{backend}: no answer within {round(waited_s, 1):g} s", backend=backend)


def error_for_status(status: int, message: str, *, backend: str) -> BackendError:
    """The error for an HTTP error reply.

    Args:
        status: the HTTP status code.
        message: the server's error text.
        backend: the backend's name.
    """
    text = f"{backend}: HTTP {status}: {message.strip()[:300] or 'no message'}"
    if status == 413 or (status in TOO_LARGE_STATUSES and TOO_LARGE_PATTERN.search(message)):
        return InputTooLarge(text, backend=backend)
    if status == 429 or status >= 500:
        return TransientError(text, backend=backend)
    return BackendError(text, backend=backend)


def error_for_exception(exc: Exception, *, backend: str, timeout_s: float) -> BackendError:
    """The error for an exception raised while talking to the server.

    Args:
        exc: what the HTTP client raised.
        backend: the backend's name.
        timeout_s: the read timeout in force, named in the timeout message.
    """
    if isinstance(exc, BackendError):
        return exc
    if isinstance(exc, httpx.ConnectTimeout):
        return BackendUnavailable(f"{backend}: connect timed out", backend=backend)
    if isinstance(exc, httpx.ConnectError | ConnectionError):
        return BackendUnavailable(f"{backend}: cannot connect ({exc})", backend=backend)
    if isinstance(exc, httpx.TimeoutException):
        return no_answer(backend, timeout_s)
    if isinstance(exc, httpx.TransportError):
        return TransientError(f"{backend}: connection failed ({exc!r})", backend=backend)
    if isinstance(exc, ValueError | TypeError | KeyError | IndexError):
        return BackendError(f"{backend}: malformed reply ({exc})", backend=backend)
    return BackendError(f"{backend}: {exc!r}", backend=backend)


def server_message(response: httpx.Response) -> str:
    """The error text of an HTTP error reply (``error.message``, ``error`` or the body)."""
    try:
        body = response.json()
    except ValueError:
        return response.text
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(error, str):
            return error
    return response.text


def json_body(response: httpx.Response, *, backend: str) -> Any:
    """The decoded JSON of a reply, after mapping HTTP errors.

    Raises:
        kb.errors.BackendError: an HTTP error status, or a body that is not JSON.
    """
    if response.status_code >= 400:
        raise error_for_status(response.status_code, server_message(response), backend=backend)
    try:
        return json.loads(response.content)
    except ValueError as exc:
        raise BackendError(f"{backend}: malformed reply, not JSON ({exc}): "
                           f"{response.text[:80]!r}", backend=backend) from exc


def run_with_deadline(fn: Callable[[], T], deadline_s: float, *, backend: str) -> T:
    """Run ``fn`` in a daemon thread and stop waiting for it after ``deadline_s`` seconds.

    The abandoned thread ends on its own when its HTTP timeouts expire.

    Raises:
        kb.errors.BackendError: ``fn`` did not return in time.
        Exception: whatever ``fn`` raised.
    """
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name=f"kb-call-{backend}", daemon=True).start()
    if not done.wait(max(deadline_s, 0.0)):
        raise no_answer(backend, deadline_s)
    if "error" in box:
        raise box["error"]
    return box["value"]


def guarded_call(attempt: Callable[[float], T], *, backend: str, breaker: CircuitBreaker,
                 read_timeout_s: float, deadline_s: float | None = None,
                 retry: RetryPolicy = NO_RETRY,
                 sleep: Callable[[float], None] = time.sleep) -> T:
    """Call ``attempt(timeout_s)`` behind the breaker, with retries and an optional deadline.

    Args:
        attempt: makes one request, waiting at most its argument in seconds for a reply, and
            raises ``BackendError`` (or an HTTP client exception) on failure.
        backend: the backend's name, for messages.
        breaker: the backend's circuit breaker.
        read_timeout_s: read timeout of each attempt.
        deadline_s: overall cap in seconds across attempts and backoff (query-time calls);
            ``None`` relies on the HTTP timeouts alone (ingest-time calls).
        retry: retries of transient failures.
        sleep: waits between attempts (injectable for tests).

    Returns:
        What ``attempt`` returned.

    Raises:
        kb.errors.BackendUnavailable: the circuit is open, or the server cannot be reached.
        InputTooLarge: the server refused the input as too large (not a breaker failure).
        kb.errors.BackendError: any other failure, after the retries.
    """
    breaker.before_call()
    end = None if deadline_s is None else time.monotonic() + deadline_s
    attempts = 1 + retry.retries
    for n in range(attempts):
        budget_s = read_timeout_s if end is None else min(read_timeout_s, end - time.monotonic())
        try:
            if budget_s <= 0:
                raise no_answer(backend, deadline_s or 0.0)
            if end is None:
                result = attempt(budget_s)
            else:
                result = run_with_deadline(functools.partial(attempt, budget_s), budget_s,
                                           backend=backend)
        except Exception as exc:
            error = error_for_exception(exc, backend=backend, timeout_s=budget_s)
            if isinstance(error, InputTooLarge):
                breaker.record_success()
                raise
            delay_s = retry.backoff_s * 2 ** n
            if (isinstance(error, TransientError) and n + 1 < attempts
                    and (end is None or time.monotonic() + delay_s < end)):
                log.info("%s; retrying in %.1f s (%d of %d)", error, delay_s, n + 1, retry.retries)
                sleep(delay_s)
                continue
            breaker.record_failure(str(error))
            if isinstance(error, TransientError):  # retries spent: no longer "transient"
                error = BackendError(str(error), backend=backend)
            if error is exc:
                raise
            raise error from exc
        breaker.record_success()
        return result
    raise AssertionError("unreachable")  # pragma: no cover
