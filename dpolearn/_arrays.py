"""Small array helpers shared by the mechanisms and the algorithms.

Integer bit helpers (``floor_log2``, ``is_power_of_two``) and ``check_bool`` live in
:mod:`dpolearn._validation`; this module holds the rule by which a batched parameter is
reported, and the shape rules of batches of independent streams (counters, means).
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

from ._validation import check_epsilon

__all__ = ["scalar_if_uniform", "stream_shape", "per_stream"]


def scalar_if_uniform(value):
    """A batched parameter as it is reported: a float when every entry is equal, else the array.

    >>> scalar_if_uniform([0.5, 0.5]), scalar_if_uniform([0.5, 1.0]).tolist()
    (0.5, [0.5, 1.0])
    """
    arr = np.asarray(value, dtype=float)
    flat = arr.ravel()
    if flat.size and np.all(flat == flat[0]):
        return float(flat[0])
    return arr.copy()


def stream_shape(shape) -> Tuple[int, ...]:
    """A batch shape of independent streams: an int or a tuple of positive ints."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, got {shape!r}") from None
    if any(s < 1 for s in shape):
        raise ValueError(f"shape must have positive entries, got {shape!r}")
    return shape


def per_stream(name, value, shape, *, positive=True) -> np.ndarray:
    """A per-stream parameter broadcast to ``shape`` (scalars, or arrays broadcastable)."""
    if positive:
        value = check_epsilon(value, name=name)
    arr = np.asarray(value, dtype=float)
    try:
        return np.broadcast_to(arr, shape).copy()
    except ValueError:
        raise ValueError(f"{name} must broadcast to the stream shape {shape}, "
                         f"got shape {arr.shape}") from None
