"""Loaders for BEIR-format evaluation sets and the golden sets bundled in the repository.

A dataset is a directory holding (BEIR layout, Thakur et al., NeurIPS 2021 Datasets track):

- ``corpus.jsonl`` or ``corpus.jsonl.gz``: one JSON object per line, ``{"_id", "title", "text"}``
  (``title`` may be absent or empty; other keys are ignored);
- ``queries.jsonl`` (or ``.jsonl.gz``): ``{"_id", "text"}`` per line (other keys ignored);
- ``qrels.tsv``, or BEIR's ``qrels/test.tsv``: tab-separated ``query-id  corpus-id  score`` with
  that header row; an integer ``score > 0`` marks the document relevant, larger is more relevant.

The bundled sets live in the repository's ``golden/`` directory (provenance and licences in
``golden/README.md``); it is found relative to this package, so it exists in a source checkout or
an editable install, not in an installed wheel.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from kb.config import check_query_length

QRELS_HEADER = ("query-id", "corpus-id", "score")  # BEIR's qrels header row
_HEADER_TEXT = "\t".join(QRELS_HEADER)


@dataclass(frozen=True, slots=True)
class CorpusDoc:
    """One corpus document.

    Attributes:
        _id: the document id, unique within its corpus (BEIR's ``_id``).
        title: the document title; empty when the set has none.
        text: the document body.

    """

    _id: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class Query:
    """One test query.

    Attributes:
        _id: the query id, unique within its set (BEIR's ``_id``); qrels refer to it.
        text: the query text.

    """

    _id: str
    text: str


Qrels = dict[str, dict[str, int]]
"""Relevance judgements: query id -> document id -> grade (an int > 0; higher is more relevant)."""


def golden_dir() -> Path:
    """Locate the repository's ``golden/`` directory of bundled evaluation sets.

    Returns:
        The absolute path ``<repo>/golden`` (the parent of this package's directory).

    Raises:
        FileNotFoundError: the directory does not exist (e.g. ``kb`` installed from a wheel,
            which does not ship the golden sets).

    """
    path = Path(__file__).resolve().parent.parent / "golden"
    if not path.is_dir():
        raise FileNotFoundError(
            f"golden sets not found at {path}: they ship with a source checkout of kb, not a wheel"
        )
    return path


def available_datasets() -> list[str]:
    """Name the bundled evaluation sets: subdirectories of ``golden/`` holding a corpus file.

    Returns:
        Dataset names sorted alphabetically, e.g. ``["cmrc2018", "cmrc2018-small", ...]``.

    Raises:
        FileNotFoundError: ``golden/`` does not exist (see ``golden_dir``).

    """
    root = golden_dir()
    return sorted(
        p.name
        for p in root.iterdir()
        if p.is_dir() and any((p / name).is_file() for name in _candidates("corpus"))
    )


def dataset_dir(name: str) -> Path:
    """Return the directory of the bundled evaluation set called ``name``.

    Args:
        name: a dataset name as listed by ``available_datasets`` (e.g. ``"scifact-small"``).

    Returns:
        The absolute path of ``golden/<name>``.

    Raises:
        ValueError: no bundled set has that name; the message lists the available ones.
        FileNotFoundError: ``golden/`` does not exist (see ``golden_dir``).

    """
    available = available_datasets()
    if name not in available:
        raise ValueError(f"unknown dataset {name!r}; available: {', '.join(available)}")
    return golden_dir() / name


def load_corpus(directory: Path | str) -> list[CorpusDoc]:
    """Read a BEIR corpus (``corpus.jsonl.gz`` or ``corpus.jsonl``) from ``directory``.

    Args:
        directory: the dataset directory.

    Returns:
        The documents in file order.

    Raises:
        FileNotFoundError: the directory has no corpus file.
        ValueError: a line is not a JSON object with a string/int ``_id`` and string ``text``, or
            an id repeats; the message names the file and line.

    """
    path = _find(Path(directory), "corpus")
    docs: list[CorpusDoc] = []
    seen: set[str] = set()
    for line_no, row in _read_jsonl(path):
        doc_id = _get_id(row, path, line_no)
        title = row.get("title") or ""
        text = row.get("text")
        if not isinstance(title, str) or not isinstance(text, str):
            raise ValueError(f"{path}:{line_no}: 'title' and 'text' must be strings")
        if doc_id in seen:
            raise ValueError(f"{path}:{line_no}: duplicate document id {doc_id!r}")
        seen.add(doc_id)
        docs.append(CorpusDoc(_id=doc_id, title=title, text=text))
    return docs


def load_queries(directory: Path | str, *, searchable: bool = False) -> list[Query]:
    """Read BEIR queries (``queries.jsonl`` or ``queries.jsonl.gz``) from ``directory``.

    Args:
        directory: the dataset directory.
        searchable: each text must be one ``kb search`` takes, at most ``MAX_QUERY_CHARS``
            code points (the judge's gates and calibration measure what users can ask; a
            ranking's nDCG reads IR sets whose queries may be whole arguments).

    Returns:
        The queries in file order.

    Raises:
        FileNotFoundError: the directory has no queries file.
        ValueError: a line is not a JSON object with a string/int ``_id`` and string ``text``,
            its text is blank (or, ``searchable``, too long), or an id repeats; the message
            names the file and line.

    """
    path = _find(Path(directory), "queries")
    queries: list[Query] = []
    seen: set[str] = set()
    for line_no, row in _read_jsonl(path):
        query_id = _get_id(row, path, line_no)
        text = row.get("text")
        if not isinstance(text, str):
            raise ValueError(f"{path}:{line_no}: 'text' must be a string")
        if not text.strip():  # kb refuses it: it would count as a question kb "refused"
            raise ValueError(f"{path}:{line_no}: 'text' is empty (no question to ask)")
        try:
            if searchable:  # `kb search` refuses it: the figures would not be kb's
                check_query_length(text)
        except ValueError as exc:
            raise ValueError(f"{path}:{line_no}: {exc}") from None
        if query_id in seen:
            raise ValueError(f"{path}:{line_no}: duplicate query id {query_id!r}")
        seen.add(query_id)
        queries.append(Query(_id=query_id, text=text))
    return queries


def load_qrels(directory: Path | str) -> Qrels:
    """Read BEIR relevance judgements (``qrels.tsv``, else ``qrels/test.tsv``) from ``directory``.

    Only judgements with ``score > 0`` are kept (a zero or negative score means judged
    non-relevant); their grades are kept as they are, for graded metrics such as nDCG. A query
    whose judgements are all non-relevant does not appear.

    Args:
        directory: the dataset directory.

    Returns:
        Query id -> document id -> grade (> 0), in file order.

    Raises:
        FileNotFoundError: the directory has no qrels file.
        ValueError: the header is not ``query-id  corpus-id  score``, a row does not have three
            fields with an integer score, or a (query, document) pair repeats; the message names
            the file and line.

    """
    path = qrels_path(directory)
    qrels: Qrels = {}
    seen: set[tuple[str, str]] = set()
    with io.StringIO(_utf8_text(path), newline="") as f:
        for line_no, fields in enumerate(csv.reader(f, delimiter="\t"), start=1):
            if line_no == 1:
                if tuple(fields) != QRELS_HEADER:
                    raise ValueError(f"{path}:1: expected the header {_HEADER_TEXT!r}")
                continue
            if not fields:
                continue
            if len(fields) != 3:
                raise ValueError(f"{path}:{line_no}: expected 3 tab-separated fields")
            query_id, doc_id, score_text = fields
            try:
                score = int(score_text)
            except ValueError:
                raise ValueError(f"{path}:{line_no}: score {score_text!r} is not an int") from None
            if (query_id, doc_id) in seen:
                raise ValueError(f"{path}:{line_no}: duplicate judgement {query_id!r} {doc_id!r}")
            seen.add((query_id, doc_id))
            if score > 0:
                qrels.setdefault(query_id, {})[doc_id] = score
    return qrels


def qrels_path(directory: Path | str) -> Path:
    """The set's qrels file: ``qrels.tsv``, else BEIR's ``qrels/test.tsv``.

    Raises:
        FileNotFoundError: neither exists.
    """
    directory = Path(directory)
    for path in (directory / "qrels.tsv", directory / "qrels" / "test.tsv"):
        if path.is_file():
            return path
    raise FileNotFoundError(f"no qrels.tsv or qrels/test.tsv in {directory}")


def check_qrels_ids(directory: Path | str) -> None:
    """Refuse relevance judgements (score > 0) naming a query or document the set lacks.

    Such a row is a typo or a judgement against another corpus; a relevant document missing
    from the corpus would make its question look answerable when nothing in the index
    answers it.

    Raises:
        FileNotFoundError: a file of the set is missing.
        ValueError: a file is malformed (see the loaders), or qrels rows name ids the corpus
            or the queries file does not hold; the message names the files and the first
            five ids, each with its query.
    """
    directory = Path(directory)
    qrels_file, corpus_file = qrels_path(directory), _find(directory, "corpus")
    queries_file = _find(directory, "queries")
    qrels = load_qrels(directory)
    documents = {d._id for d in load_corpus(directory)}
    queries = {q._id for q in load_queries(directory)}
    lost_queries = [q for q in qrels if q not in queries]
    lost_docs = [(d, q) for q, judged in qrels.items() for d in judged if d not in documents]
    problems = []
    if lost_docs:
        shown = ", ".join(f"{d!r} (query {q!r})" for d, q in lost_docs[:5])
        more = f" and {len(lost_docs) - 5} more" if len(lost_docs) > 5 else ""
        problems.append(f"{qrels_file} names corpus ids that are not in {corpus_file}: "
                        f"{shown}{more}")
    if lost_queries:
        shown = ", ".join(repr(q) for q in lost_queries[:5])
        more = f" and {len(lost_queries) - 5} more" if len(lost_queries) > 5 else ""
        problems.append(f"{qrels_file} names query ids that are not in {queries_file}: "
                        f"{shown}{more}")
    if problems:
        raise ValueError("; ".join(problems))


def _candidates(stem: str) -> tuple[str, str]:
    return (f"{stem}.jsonl.gz", f"{stem}.jsonl")


def _find(directory: Path, stem: str) -> Path:
    for name in _candidates(stem):
        if (directory / name).is_file():
            return directory / name
    raise FileNotFoundError(f"no {' or '.join(_candidates(stem))} in {directory}")


def _utf8_text(path: Path) -> str:
    """The file's text; a file that is not UTF-8 is a ``ValueError`` naming it.

    A UTF-8 byte-order mark (Excel writes one) is skipped.
    """
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:  # (its offset counts from after a byte-order mark)
        at = exc.start + (3 if data.startswith(codecs.BOM_UTF8) else 0)
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {at})") from None


def _read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, object]]]:
    if path.suffix == ".gz":
        opened: TextIO = gzip.open(path, "rt", encoding="utf-8-sig")
    else:
        opened = path.open(encoding="utf-8-sig")  # a byte-order mark (Notepad's) is skipped
    with opened as f:
        line_no = 0
        try:
            for line_no, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:  # without its line break: a line cut short is wrong at its end, not
                    row = json.loads(line.rstrip("\r\n"))  # at the next line's column 1
                except json.JSONDecodeError as exc:
                    # "Invalid control character at": the position is in colno, not in msg
                    raise ValueError(f"{path}:{line_no}: invalid JSON at column {exc.colno}: "
                                     f"{exc.msg.removesuffix(' at')}") from None
                if not isinstance(row, dict):
                    raise ValueError(f"{path}:{line_no}: expected a JSON object")
                yield line_no, row
        except UnicodeDecodeError as exc:  # a binary file
            raise ValueError(f"{path}: not UTF-8 text ({exc.reason})") from None
        except (gzip.BadGzipFile, EOFError) as exc:  # a damaged or truncated archive
            raise ValueError(f"{path}: not a readable gzip file ({exc})") from None


def _get_id(row: dict[str, object], path: Path, line_no: int) -> str:
    value = row.get("_id")
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError(f"{path}:{line_no}: '_id' must be a string or an integer")
    return str(value)
