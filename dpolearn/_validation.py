"""Validation helpers shared by every public constructor and function.

Each helper returns the normalised value or raises ``TypeError`` (wrong kind of value) or
``ValueError`` (value out of range); both messages name the parameter and the value.
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = [
    "check_epsilon",
    "check_delta",
    "check_probability",
    "check_positive",
    "check_positive_int",
    "check_means",
    "check_choice",
    "check_table",
    "as_rng",
    "as_row_param",
]


def _is_real(value: Any) -> bool:
    return isinstance(value, (numbers.Real, np.ndarray)) and not isinstance(value, bool)


def _as_float_array(name: str, value: Any) -> np.ndarray:
    if isinstance(value, (str, bytes, bool)) or value is None:
        raise TypeError(f"{name} must be a real number or an array of them, got {value!r}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number or an array of them, got {value!r}") from None
    if arr.dtype == object:
        raise TypeError(f"{name} must be a real number or an array of them, got {value!r}")
    return arr


def _show(value: Any) -> str:
    """repr of a value as a user would write it (numpy scalars shown as plain numbers)."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def _scalar_or_array(arr: np.ndarray):
    return float(arr) if arr.ndim == 0 else arr


def check_positive(name: str, value: Any, *, allow_inf: bool = False):
    """Return ``value`` (float or float array) after checking every entry is > 0 and not NaN."""
    arr = _as_float_array(name, value)
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got {value!r}")
    bad = np.isnan(arr) | (arr <= 0) | (~np.isfinite(arr) & (not allow_inf))
    if np.any(bad):
        shown = value if arr.ndim == 0 else arr[bad].ravel()[0]
        limit = "> 0" if allow_inf else "finite and > 0"
        raise ValueError(f"{name} must be {limit}, got {_show(shown)}")
    return _scalar_or_array(arr)


def check_epsilon(value: Any, *, name: str = "epsilon", allow_inf: bool = False):
    """Privacy parameter epsilon: a float (or array of floats) > 0.

    ``allow_inf=True`` admits ``inf`` for objects whose non-private limit is meaningful.

    >>> check_epsilon(0.5)
    0.5
    """
    return check_positive(name, value, allow_inf=allow_inf)


def check_probability(name: str, value: Any, *, open_low: bool = False, open_high: bool = False):
    """A probability (or array of them) in [0, 1]; the ends may be excluded."""
    arr = _as_float_array(name, value)
    lo_bad = (arr <= 0) if open_low else (arr < 0)
    hi_bad = (arr >= 1) if open_high else (arr > 1)
    bad = np.isnan(arr) | lo_bad | hi_bad
    if np.any(bad):
        shown = value if arr.ndim == 0 else arr[bad].ravel()[0]
        lo = "(0" if open_low else "[0"
        hi = "1)" if open_high else "1]"
        raise ValueError(f"{name} must lie in {lo}, {hi}, got {_show(shown)}")
    return _scalar_or_array(arr)


def check_delta(value: Any, *, name: str = "delta"):
    """Privacy parameter delta in [0, 1)."""
    return check_probability(name, value, open_high=True)


def check_positive_int(name: str, value: Any, *, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (numpy integers accepted; floats and bools rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {_show(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)


def check_means(value: Any, *, name: str = "means", low: float = 0.0, high: float = 1.0,
                bounded: bool = True) -> np.ndarray:
    """Arm means of shape (K,) or (n_runs, K) with K >= 2, inside [low, high] when ``bounded``."""
    arr = _as_float_array(name, value)
    if arr.ndim not in (1, 2):
        raise ValueError(f"{name} must have shape (K,) or (n_runs, K), got shape {arr.shape}")
    if arr.shape[-1] < 2:
        raise ValueError(f"{name} must describe K >= 2 arms, got K = {arr.shape[-1]}")
    if arr.ndim == 2 and arr.shape[0] < 1:
        raise ValueError(f"{name} must have at least one row, got shape {arr.shape}")
    if np.any(~np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {_show(arr[~np.isfinite(arr)].ravel()[0])}")
    if bounded and np.any((arr < low) | (arr > high)):
        shown = arr[(arr < low) | (arr > high)].ravel()[0]
        raise ValueError(f"{name} must lie in [{low}, {high}], got {_show(shown)}")
    return arr


def check_table(name: str, value: Any) -> np.ndarray:
    """A (T, K) table of rewards or losses in [0, 1] with T >= 1 and K >= 2."""
    arr = _as_float_array(name, value)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 2:
        raise ValueError(f"{name} must have shape (T, K) with T >= 1, K >= 2, got shape {arr.shape}")
    bad = ~np.isfinite(arr) | (arr < 0) | (arr > 1)
    if np.any(bad):
        raise ValueError(f"{name} must lie in [0, 1], got {_show(arr[bad].ravel()[0])}")
    return arr


def check_choice(name: str, value: Any, choices) -> Any:
    """One of a fixed set of options."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(map(str, choices))}, got {value!r}")
    return value


def as_rng(rng: Any = None) -> np.random.Generator:
    """Normalise ``None | int | SeedSequence | Generator`` to a ``numpy.random.Generator``."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (numbers.Integral, np.random.SeedSequence)):
        if isinstance(rng, bool):
            raise TypeError(f"rng must be None, an int, a SeedSequence or a Generator, got {rng!r}")
        if isinstance(rng, numbers.Integral) and rng < 0:
            raise ValueError(f"rng seed must be >= 0, got {rng!r}")
        return np.random.default_rng(rng)
    raise TypeError(f"rng must be None, an int, a SeedSequence or a Generator, got {rng!r}")


def as_row_param(name: str, value: Any, n_runs: int) -> np.ndarray:
    """Broadcast a per-run parameter (scalar or shape (n_runs,)) to shape (n_runs, 1).

    This is how a sweep (over epsilon, say) runs as one batch: row ``i`` of every state array
    uses ``value[i]``.
    """
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        return np.full((n_runs, 1), float(arr))
    arr = arr.reshape(-1)
    if arr.shape[0] != n_runs:
        raise ValueError(
            f"{name} must be a scalar or have one entry per run ({n_runs}), got shape {np.shape(value)}")
    return arr[:, None].copy()
