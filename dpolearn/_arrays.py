"""Small array helpers shared by the mechanisms and the algorithms.

Integer bit arithmetic (exact, no floating logarithms), the "float if every entry is equal"
rule used when a batched parameter is reported, and a strict boolean check.
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["floor_log2", "is_power_of_two", "scalar_if_uniform", "check_bool"]


def floor_log2(n) -> np.ndarray:
    """floor(log2 n) for integers n >= 1, exactly (via ``frexp``, not a floating log).

    >>> floor_log2([1, 2, 3, 4, 1023, 1024]).tolist()
    [0, 1, 1, 2, 9, 10]
    """
    return (np.frexp(np.asarray(n, dtype=float))[1] - 1).astype(np.int64)


def is_power_of_two(n) -> np.ndarray:
    """True where the integer n is a positive power of two (1, 2, 4, ...).

    >>> is_power_of_two([0, 1, 3, 4]).tolist()
    [False, True, False, True]
    """
    n = np.asarray(n, dtype=np.int64)
    return (n > 0) & ((n & (n - 1)) == 0)


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


def check_bool(name: str, value: Any) -> bool:
    """``value`` if it is a real boolean (Python or numpy), else ``TypeError`` naming ``name``.

    Truthy strings such as ``"no"`` are refused: read as True they would silently change a
    mechanism (for example halve its noise).

    >>> check_bool("monotone", False)
    False
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {value!r}")
