"""Validation helpers shared by every public constructor and function.

Each helper returns the normalised value or raises ``TypeError`` (wrong kind of value) or
``ValueError`` (value out of range); both messages name the parameter and the value.
"""
from __future__ import annotations

import numbers
import os
import tempfile
from pathlib import Path
from typing import Any, Optional

import numpy as np

__all__ = [
    "as_float_array",
    "as_rng",
    "as_row_param",
    "as_seed_sequence",
    "check_bool",
    "check_choice",
    "check_delta",
    "check_directory",
    "check_epsilon",
    "check_figure",
    "check_int_array",
    "check_interval",
    "check_means",
    "check_positive",
    "check_positive_int",
    "check_probability",
    "check_table",
    "floor_log2",
    "is_power_of_two",
    "progress_from_env",
    "scalar_or_array",
    "show",
]

#: Largest integer accepted for counts such as a horizon: int64 arithmetic on rounds stays exact.
MAX_INT = 2 ** 62


def _is_real_scalar(value: Any) -> bool:
    return isinstance(value, (numbers.Real, np.generic)) and not isinstance(value, (bool, np.bool_))


def as_float_array(name: str, value: Any) -> np.ndarray:
    """``value`` as a float array; strings, bools, None and non-numeric entries raise TypeError.

    Unlike ``np.asarray(value, dtype=float)``, text such as ``["0.9", "0.6"]`` is refused rather
    than parsed.

    >>> as_float_array("x", [1, 2]).tolist()
    [1.0, 2.0]
    """
    kind = f"{name} must be a real number or an array of them, got {show(value)}"
    if isinstance(value, (str, bytes, bool, np.bool_)) or value is None:
        raise TypeError(kind)
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise TypeError(kind) from None
    if raw.dtype.kind not in "iuf":      # text, bools, objects, complex: never coerced
        raise TypeError(kind)
    return np.asarray(raw, dtype=float)


def show(value: Any) -> str:
    """repr of a value as a user would write it (numpy scalars shown as plain numbers)."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def scalar_or_array(value: Any, kind: type = float):
    """A 0-d result as a Python number (``kind``: float or int), anything else as an array.

    The one rule by which functions that accept a scalar or an array return their result.

    >>> scalar_or_array(np.float64(0.5)), scalar_or_array([1, 2]).tolist()
    (0.5, [1, 2])
    """
    arr = np.asarray(value)
    return kind(arr) if arr.ndim == 0 else arr


def _bound(value: float) -> str:
    return "inf" if value == np.inf else ("-inf" if value == -np.inf else show(value))


def check_interval(name: str, value: Any, low: float = -np.inf, high: float = np.inf, *,
                   low_open: bool = False, high_open: bool = False, allow_inf: bool = False):
    """A real number (or array of them) in an interval; NaN is always refused.

    ``low``/``high`` are the ends (``low_open``/``high_open`` exclude them); infinite entries
    are refused unless ``allow_inf``. Returns a float for a scalar, else a float array.

    >>> check_interval("gap", 0.25, 0, 0.5, low_open=True, high_open=True)
    0.25
    >>> check_interval("t", 0.5, 1)
    Traceback (most recent call last):
    ...
    ValueError: t must be finite and >= 1, got 0.5
    """
    arr = as_float_array(name, value)
    bad = (np.isnan(arr) | ((arr <= low) if low_open else (arr < low))
           | ((arr >= high) if high_open else (arr > high)))
    if not allow_inf:
        bad |= np.isinf(arr)
    if np.any(bad):
        shown = value if arr.ndim == 0 else arr[bad].ravel()[0]
        finite = "" if allow_inf else "finite and "
        if np.isfinite(low) and np.isfinite(high):
            rule = (f"lie in {'(' if low_open else '['}{_bound(low)}, "
                    f"{_bound(high)}{')' if high_open else ']'}")
        elif np.isfinite(high):
            rule = f"be {finite}{'<' if high_open else '<='} {_bound(high)}"
        elif np.isfinite(low):
            rule = f"be {finite}{'>' if low_open else '>='} {_bound(low)}"
        else:
            rule = "be finite" if not allow_inf else "be a number"
        raise ValueError(f"{name} must {rule}, got {show(shown)}")
    return scalar_or_array(arr)


def check_positive(name: str, value: Any, *, allow_inf: bool = False):
    """Return ``value`` (float or float array) after checking every entry is > 0 and not NaN."""
    arr = as_float_array(name, value)
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got {value!r}")
    bad = np.isnan(arr) | (arr <= 0) | (~np.isfinite(arr) & (not allow_inf))
    if np.any(bad):
        shown = value if arr.ndim == 0 else arr[bad].ravel()[0]
        limit = "> 0" if allow_inf else "finite and > 0"
        raise ValueError(f"{name} must be {limit}, got {show(shown)}")
    return scalar_or_array(arr)


def check_epsilon(value: Any, *, name: str = "epsilon", allow_inf: bool = False):
    """Privacy parameter epsilon: a float (or array of floats) > 0.

    ``allow_inf=True`` admits ``inf`` for objects whose non-private limit is meaningful.

    >>> check_epsilon(0.5)
    0.5
    """
    return check_positive(name, value, allow_inf=allow_inf)


def check_probability(name: str, value: Any, *, open_low: bool = False, open_high: bool = False):
    """A probability (or array of them) in [0, 1]; the ends may be excluded."""
    return check_interval(name, value, 0, 1, low_open=open_low, high_open=open_high)


def check_delta(value: Any, *, name: str = "delta"):
    """Privacy parameter delta in [0, 1)."""
    return check_probability(name, value, open_high=True)


def check_positive_int(name: str, value: Any, *, minimum: int = 1, maximum: int = MAX_INT) -> int:
    """An integer in ``[minimum, maximum]`` (numpy integers accepted; floats and bools rejected).

    The default ``maximum`` (2**62) keeps every later int64 computation on the value exact.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {show(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {show(value)}")
    if value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {show(value)}")
    return int(value)


def check_bool(name: str, value: Any) -> bool:
    """A real boolean (``True``/``False`` or numpy's); truthy strings such as ``"no"`` are refused.

    >>> check_bool("monotone", False)
    False
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {show(value)}")
    return bool(value)


def check_int_array(name: str, value: Any, *, minimum: int = 1,
                    maximum: int = MAX_INT) -> np.ndarray:
    """An int64 array of integers in ``[minimum, maximum]``; non-integral floats are refused.

    Integral floats (``2.0``) are accepted; ``2.5`` or ``True`` raise instead of being truncated.

    >>> check_int_array("n", [1, 2.0]).tolist()
    [1, 2]
    """
    if isinstance(value, (str, bytes, bool, np.bool_)) or value is None:
        raise TypeError(f"{name} must be an integer or an array of integers, got {show(value)}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an integer or an array of integers, "
                        f"got {value!r}") from None
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be an integer or an array of integers, got {value!r}")
    if raw.dtype.kind == "f":
        bad = ~np.isfinite(raw) | (raw != np.round(raw))
        if np.any(bad):
            raise ValueError(f"{name} must hold whole numbers, got {show(raw[bad].ravel()[0])}")
    if raw.size and (np.any(raw < minimum) or np.any(raw > maximum)):
        shown = raw[(raw < minimum) | (raw > maximum)].ravel()[0]
        raise ValueError(f"{name} must lie in [{minimum}, {maximum}], got {show(shown)}")
    return raw.astype(np.int64)


def check_means(value: Any, *, name: str = "means", low: float = 0.0, high: float = 1.0,
                bounded: bool = True, ndim: tuple = (1, 2), min_rows: int = 1) -> np.ndarray:
    """Arm means of shape (K,) or (n_runs, K) with K >= 2, inside [low, high] when ``bounded``.

    ``ndim`` narrows the accepted shapes (``(1,)``: one instance; ``(2,)``: a table of
    instances with at least ``min_rows`` rows).
    """
    arr = as_float_array(name, value)
    if arr.ndim not in ndim:
        shapes = {1: "(K,)", 2: "(n_runs, K)"}
        raise ValueError(f"{name} must have shape {' or '.join(shapes[n] for n in ndim)}, "
                         f"got shape {arr.shape}")
    if arr.shape[-1] < 2:
        raise ValueError(f"{name} must describe K >= 2 arms, got K = {arr.shape[-1]}")
    if np.any(~np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {show(arr[~np.isfinite(arr)].ravel()[0])}")
    if bounded and np.any((arr < low) | (arr > high)):
        shown = arr[(arr < low) | (arr > high)].ravel()[0]
        raise ValueError(f"{name} must lie in [{low}, {high}], got {show(shown)}")
    if arr.ndim == 2 and arr.shape[0] < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} row{'s' * (min_rows > 1)}, "
                         f"got shape {arr.shape}")
    return arr


def check_table(name: str, value: Any) -> np.ndarray:
    """A (T, K) table of rewards or losses in [0, 1] with T >= 1 and K >= 2."""
    arr = as_float_array(name, value)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 2:
        raise ValueError(f"{name} must have shape (T, K) with T >= 1, K >= 2, "
                         f"got shape {arr.shape}")
    bad = ~np.isfinite(arr) | (arr < 0) | (arr > 1)
    if np.any(bad):
        raise ValueError(f"{name} must lie in [0, 1], got {show(arr[bad].ravel()[0])}")
    return arr


def check_choice(name: str, value: Any, choices) -> Any:
    """One of a fixed set of options."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(map(str, choices))}, got {value!r}")
    return value


def check_figure(fig: Any) -> Any:
    """A matplotlib ``Figure`` (matplotlib is imported only when a figure is checked)."""
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {show(fig)}")
    return fig


def check_directory(name: str, value: Any) -> Path:
    """A writable directory, created if needed (with its parents): returned as a ``Path``.

    Raises ``TypeError`` for a value that is not a path (str or ``os.PathLike``) and
    ``ValueError`` naming the parameter and the value for an empty path, an existing file, or a
    directory that cannot be created or written to.
    """
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a directory path, got {show(value)}")
    text = os.fspath(value)
    if text in ("", b""):
        raise ValueError(f"{name} must be a directory path, got {show(value)}")
    path = Path(os.fsdecode(text))
    if path.exists() and not path.is_dir():
        raise ValueError(f"{name} must be a directory, got {str(path)!r} (an existing file)")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ValueError(f"{name} must be a writable directory, got {str(path)!r} "
                         f"({reason})") from None
    return path


#: Values of ``$DPOLEARN_PROGRESS`` (any case): on, off, or ``auto`` (None: the caller decides).
PROGRESS_VALUES = {"1": True, "true": True, "on": True, "yes": True, "auto": None,
                   "0": False, "false": False, "off": False, "no": False}


def progress_from_env() -> Optional[bool]:
    """``$DPOLEARN_PROGRESS`` read by its one rule: True, False, or None for ``auto`` (unset).

    Any other value raises ``ValueError`` naming the variable and the value.
    """
    raw = os.environ.get("DPOLEARN_PROGRESS", "auto")
    key = raw.strip().lower()
    if key not in PROGRESS_VALUES:
        raise ValueError(f"DPOLEARN_PROGRESS must be one of {sorted(PROGRESS_VALUES)}, got {raw!r}")
    return PROGRESS_VALUES[key]


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


def as_seed_sequence(seed: Any, *, name: str = "seed") -> np.random.SeedSequence:
    """The one seed rule of every entry point: an int >= 0 or a ``SeedSequence``.

    Returns a fresh ``SeedSequence``. A ``SeedSequence`` given by the caller is copied (same
    entropy, spawn key and pool size, no children spawned yet), so spawning from the result
    never advances the caller's object and the same object always gives the same results.
    ``None`` is refused (a run nobody can repeat), as are bools, floats, strings and
    ``Generator`` objects.

    >>> as_seed_sequence(3).entropy
    3
    """
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key,
                                      pool_size=seed.pool_size)
    rule = f"{name} must be a non-negative int or a numpy SeedSequence, got {show(seed)}"
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(rule)
    if seed < 0:
        raise ValueError(rule)
    return np.random.SeedSequence(int(seed))


def is_power_of_two(n: Any) -> np.ndarray:
    """Elementwise: is the integer ``n`` a power of two (1, 2, 4, ...)?

    >>> is_power_of_two([1, 3, 8]).tolist()
    [True, False, True]
    """
    n = np.asarray(n, dtype=np.int64)
    return (n > 0) & ((n & (n - 1)) == 0)


def floor_log2(n: Any) -> np.ndarray:
    """Elementwise floor(log2 n) for integers 1 <= n < 2**53 (exact: frexp, not a float log).

    >>> floor_log2([1, 2, 3, 1024]).tolist()
    [0, 1, 1, 10]
    """
    return (np.frexp(np.asarray(n, dtype=float))[1] - 1).astype(np.int64)


def as_row_param(name: str, value: Any, n_runs: int) -> np.ndarray:
    """Broadcast a per-run parameter (scalar or shape (n_runs,)) to shape (n_runs, 1).

    This is how a sweep (over epsilon, say) runs as one batch: row ``i`` of every state array
    uses ``value[i]``. Arrays of any other shape (a 2-D array included) are refused.
    """
    arr = as_float_array(name, value)
    if arr.ndim == 0:
        return np.full((n_runs, 1), float(arr))
    if arr.ndim != 1 or arr.shape[0] != n_runs:
        raise ValueError(
            f"{name} must be a scalar or have one entry per run ({n_runs}), "
            f"got shape {np.shape(value)}")
    return arr[:, None].copy()
