"""Small array helpers shared by the mechanisms and the algorithms.

Integer bit helpers (``floor_log2``, ``is_power_of_two``) and ``check_bool`` live in
:mod:`dpolearn._validation`; this module holds the rule by which a batched parameter is
reported.
"""
from __future__ import annotations

import numpy as np

__all__ = ["scalar_if_uniform"]


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
