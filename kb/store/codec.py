"""The vector BLOB codec: little-endian float32, the only form a vector takes in the file."""

from __future__ import annotations

import numpy as np

EmbeddedChunk = tuple[int, str, str, bytes]  # (chunk id, prefix and text embedded, float32 BLOB)


def vector_to_blob(vector: np.ndarray) -> bytes:
    """Encode a 1-d vector as a little-endian float32 BLOB (4 bytes per dimension)."""
    return np.asarray(vector, dtype="<f4").tobytes()


def blob_to_vector(blob: bytes) -> np.ndarray:
    """Decode a little-endian float32 BLOB into a float32 array of shape (len(blob) // 4,)."""
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)
