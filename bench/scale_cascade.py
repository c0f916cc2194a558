"""The three-stage cascade of ``scale.py`` (issue 14, acceptance 2): bits, int8 codes, float32.

``np-i8`` (per-dimension int8 scale) and ``np-i8g`` (one scale for every dimension), both of
the mean-centred vectors, held in RAM beside the sign bits of ``np-bit``:

1. Hamming distance between sign bits (held (words, n), as ``kb.store.bitindex`` holds them)
   picks the ``depth`` nearest (``spec`` "depth/keep"; depth 0 skips this stage and the int8
   stage scores every vector);
2. the int8 codes of those candidates are scored asymmetrically against the float32 query
   (``x ~ mean + code / scale``, so ``q . x`` ranks as ``code . (q / scale)``), converted to
   float32 in blocks, and the best ``keep`` are kept;
3. those are rescored exactly, their float32 vectors read by id from SQLite (as ``np-bit``).

The mean and the scales are taken over the n vectors themselves: one pass for the sum and the
per-dimension minimum and maximum, a second for the codes and bits; the scale maps the largest
centred component of each dimension (of all, for ``np-i8g``) to 127. ``np-i8b`` is kb's case:
the index is built when the store crosses 100,000 vectors, so the mean and the scales are those
of the first 100,000 and every later vector is coded with them (a component past that range is
clipped to +-127). Cached as ``bench/cache/scale-<n>-<name>.npz``; the build time reported is
that of the first build.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import numpy as np

# kb's own code: the Hamming scan over (words, n) bits, the int8 scoring, the codes and bits
from kb.retrieve.bitrecall import hamming, int8_scores
from kb.store.bitindex import BitIndex, Centring, int8_codes, sign_bits

CASCADES = ("np-i8", "np-i8g", "np-i8b")
BUILT_AT = 100_000  # np-i8b: the vectors the centring is taken over (kb's threshold)


def _path(name: str, n: int):  # type: ignore[no-untyped-def]
    import scale
    return scale.CACHE / f"scale-{n}-{name}.npz"


def build_cascade(name: str, n: int, m: np.ndarray) -> dict:
    """Codes, bits, mean and scale of the first n rows of ``m``; cached. Returns build info."""
    path = _path(name, n)
    info_path = path.with_suffix(".json")
    if path.exists() and info_path.exists():
        info = json.loads(info_path.read_text())
        info["file_mb"] = path.stat().st_size / 2**20
        return info
    t0 = time.perf_counter()
    total = np.zeros(m.shape[1], np.float64)
    lo = np.full(m.shape[1], np.inf, np.float32)
    hi = np.full(m.shape[1], -np.inf, np.float32)
    over = min(n, BUILT_AT) if name == "np-i8b" else n
    for start in range(0, over, 100_000):
        block = np.asarray(m[start:min(over, start + 100_000)])
        total += block.sum(axis=0, dtype=np.float64)
        lo, hi = np.minimum(lo, block.min(axis=0)), np.maximum(hi, block.max(axis=0))
    mean = (total / over).astype(np.float32)
    reach = np.maximum(hi - mean, mean - lo)
    scale = (127.0 / (reach if name == "np-i8" else np.full_like(reach, reach.max()))
             ).astype(np.float32)
    centring = Centring(mean, scale)
    codes = np.empty((n, m.shape[1]), np.int8)
    bits = np.empty((n, (m.shape[1] + 63) // 64), np.uint64)
    for start in range(0, n, 100_000):
        block = np.asarray(m[start:min(n, start + 100_000)])
        codes[start:start + len(block)] = int8_codes(block, centring)
        bits[start:start + len(block)] = sign_bits(block, mean)
    np.savez(path, codes=codes, bits=np.ascontiguousarray(bits.T), mean=mean, scale=scale)
    build_s = time.perf_counter() - t0
    clipped = sum(int((np.abs(np.rint((np.asarray(m[at:min(n, at + 100_000)]) - mean) * scale))
                       > 127).any(axis=1).sum()) for at in range(0, n, 100_000))
    info = {"build_s": build_s, "vectors_clipped": clipped}
    info_path.write_text(json.dumps(info))
    info["file_mb"] = path.stat().st_size / 2**20
    return info


def cascade_searcher(name: str, n: int, spec: str, allowed: Callable[[str], np.ndarray],
                     rescore: Callable[[np.ndarray, list[int], int], list[int]]
                     ) -> Callable[[np.ndarray, int, str | None], list[int]]:
    """A search over the cascade: ``spec`` "hamming depth/int8 keep"."""
    depth, keep = (int(x) for x in spec.split("/"))
    with np.load(_path(name, n)) as z:
        codes, bits, mean, scale = z["codes"], z["bits"], z["mean"], z["scale"]
    nothing = np.empty(0, np.int64)  # int8_scores reads only the codes and scales
    index = BitIndex(chunk_ids=nothing, doc_ids=nothing, groups=nothing, bits=bits, mean=mean,
                     codes=codes, scale=scale, group_counts=nothing,
                     sample=np.empty((0, len(mean)), np.float32), sample_groups=nothing)
    every = np.arange(len(codes))

    def search(q: np.ndarray, k: int, f: str | None) -> list[int]:
        kept = max(keep, k)
        if f is None:
            rows = every
            if depth:
                qb = sign_bits(q, mean)[0]
                rows = np.sort(np.argpartition(hamming(bits, qb), depth - 1)[:depth])
        else:
            rows = allowed(f)
            if len(rows) <= kept:
                return rescore(q, rows.tolist(), k)
            if depth and len(rows) > depth:
                qb = sign_bits(q, mean)[0]
                rows = np.sort(rows[np.argpartition(hamming(bits[:, rows], qb), depth - 1)
                                    [:depth]])
        s = int8_scores(index, rows, q)
        best = np.argpartition(-s, kept - 1)[:kept]
        return rescore(q, np.sort(rows[best]).tolist(), k)
    return search
