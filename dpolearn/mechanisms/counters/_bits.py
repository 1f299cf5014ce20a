"""Bit arithmetic of the tree counters, and the ``where`` mask of their batched ``step``.

Private to the counters package: :func:`lowest_set_bit` and :func:`popcount` are re-exported by
:mod:`dpolearn.mechanisms.counters`.
"""
from __future__ import annotations

import numpy as np

from ..._validation import floor_log2, is_power_of_two

__all__ = ["lowest_set_bit", "popcount", "stream_mask", "bit_tables"]


def lowest_set_bit(n) -> np.ndarray:
    """Index i of the lowest set bit of each n >= 1 (``1 -> 0``, ``12 -> 2``)."""
    n = np.asarray(n, dtype=np.int64)
    return (np.frexp((n & -n).astype(float))[1] - 1).astype(np.int64)


def popcount(n) -> np.ndarray:
    """Number of set bits of each non-negative integer n."""
    n = np.asarray(n, dtype=np.int64).copy()
    count = np.zeros_like(n)
    while np.any(n):
        count += n & 1
        n >>= 1
    return count


def stream_mask(where, shape) -> np.ndarray:
    """Boolean mask of the streams a ``step`` advances: all of them when ``where`` is None."""
    if where is None:
        return np.ones(shape, dtype=bool)
    mask = np.asarray(where)
    if mask.dtype != bool:
        raise TypeError(f"where must be a boolean array, got dtype {mask.dtype}")
    return np.broadcast_to(mask, shape)


def bit_tables(n_max: int):
    """Lookup tables for 0..n_max: lowest set bit, floor(log2), power-of-two flag."""
    n = np.arange(n_max + 1, dtype=np.int64)
    n[0] = 1
    return lowest_set_bit(n), floor_log2(n), is_power_of_two(n)

