"""The settings of an experiment that ``run(id, scale, **overrides)`` may change.

An experiment declares its settings when it is registered: each :class:`Setting` has a name,
a default (one value, or one per scale), a check that returns the normalised value (a tuple
for a sequence, a Python number for a number) or raises ``TypeError``/``ValueError`` naming
the setting and the value, and a one-line description. :func:`resolve` validates a call's
overrides against them before anything is computed; :func:`describe` writes the description
that each experiment module appends to its docstring, so the API reference lists every
experiment's settings from the same declarations the code checks.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import as_float_array, check_means, check_positive_int, show

__all__ = ["Setting", "algorithms", "describe", "epsilons", "horizon", "means", "n_runs",
           "positive_float", "resolve", "sequence"]


@dataclass(frozen=True)
class Setting:
    """One setting of an experiment that ``run`` accepts as a keyword override.

    Parameters
    ----------
    name : str
        The keyword (``means``, ``epsilons``, ``horizon``, ``n_runs``, ``algorithms``, ...).
    check : callable
        ``check(name, value) -> normalised value``; raises TypeError or ValueError naming the
        setting and the value.
    default : object or mapping
        The value used without an override; a mapping ``{"quick": ..., "paper": ...}`` gives
        one per scale.
    doc : str
        What the setting is, in one line.
    """

    name: str
    check: Callable[[str, Any], Any]
    default: Any
    doc: str

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"name must be a keyword name, got {self.name!r}")
        if not callable(self.check):
            raise TypeError(f"check must be callable, got {self.check!r}")
        if not isinstance(self.doc, str) or not self.doc:
            raise TypeError(f"doc must be a non-empty str, got {self.doc!r}")

    def default_for(self, scale: str) -> Any:
        """The default at ``scale``."""
        if isinstance(self.default, Mapping):
            return self.default[scale]
        return self.default


def resolve(experiment: str, settings: Sequence[Setting], scale: str,
            overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The checked and normalised overrides of a call, without those equal to the default.

    An override that equals the default at ``scale`` is dropped, so such a call shares the
    cache entry of the call without it.
    """
    known = {s.name: s for s in settings}
    out = {}
    for name, value in overrides.items():
        if name not in known:
            offered = (f"its settings are {sorted(known)}" if known
                       else "it takes no settings")
            raise ValueError(f"{name} is not a setting of experiment {experiment!r} ({offered}), "
                             f"got {name}={show(value)}")
        normalised = known[name].check(name, value)
        if normalised != known[name].default_for(scale):
            out[name] = normalised
    return out


def describe(settings: Sequence[Setting]) -> str:
    """The settings as a reStructuredText definition list (for a module docstring)."""
    lines = []
    for s in settings:
        if isinstance(s.default, Mapping):
            default = ", ".join(f"{k}: ``{_plain(v)!r}``" for k, v in s.default.items())
        else:
            default = f"``{_plain(s.default)!r}``"
        lines += [f"``{s.name}``", f"    {s.doc} Default: {default}.", ""]
    return "\n".join(lines)


def _plain(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def sequence(name: str, value: Any, what: str) -> list:
    """``value`` as a non-empty list (a sequence or an array; not a string or a mapping)."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a sequence of {what}, got {show(value)}")
    items = list(np.asarray(value).tolist()) if isinstance(value, np.ndarray) else list(value)
    if not items:
        raise ValueError(f"{name} must hold at least one value, got {show(value)}")
    return items


def means(name: str, value: Any) -> tuple:
    """Bernoulli arm means: a sequence of K >= 2 numbers in [0, 1]."""
    if isinstance(value, numbers.Number) or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of arm means in [0, 1], got {show(value)}")
    return tuple(float(m) for m in check_means(value, name=name, ndim=(1,)))


def epsilons(name: str, value: Any) -> tuple:
    """Privacy parameters: a sequence of distinct numbers > 0 (finite)."""
    items = sequence(name, value, "privacy parameters > 0")
    arr = as_float_array(name, items)
    bad = ~np.isfinite(arr) | (arr <= 0)
    if arr.ndim != 1 or np.any(bad):
        shown = arr[bad].ravel()[0] if np.any(bad) else value
        raise ValueError(f"{name} must hold finite numbers > 0, got {show(shown)}")
    if len(set(arr.tolist())) != len(arr):
        raise ValueError(f"{name} must not repeat a value, got {show(value)}")
    return tuple(float(e) for e in arr)


def distinct_ints(name: str, value: Any, what: str, minimum: int, maximum: int) -> tuple:
    """Distinct integers in ``[minimum, maximum]`` (``what`` names them in errors), in
    increasing order."""
    items = sequence(name, value, what)
    out = tuple(check_positive_int(f"{name}[{i}]", v, minimum=minimum, maximum=maximum)
                for i, v in enumerate(items))
    if len(set(out)) != len(out):
        raise ValueError(f"{name} must not repeat a value, got {show(value)}")
    return tuple(sorted(out))


def horizon(name: str, value: Any) -> int:
    """Rounds per run: an integer >= 2."""
    return check_positive_int(name, value, minimum=2)


def n_runs(name: str, value: Any) -> int:
    """Independent runs per curve: an integer >= 2 (a standard error needs two)."""
    return check_positive_int(name, value, minimum=2)


def algorithms(choices: Sequence[str]) -> Callable[[str, Any], tuple]:
    """A check for a non-empty sequence of distinct display labels among ``choices``, kept in
    the order of ``choices`` (the order of the experiment's legend and table)."""
    def check(name: str, value: Any) -> tuple:
        items = sequence(name, value, f"labels among {list(choices)}")
        for item in items:
            if not isinstance(item, str):
                raise TypeError(f"{name} must hold labels (strings), got {show(item)}")
            if item not in choices:
                raise ValueError(f"{name} must hold labels among {list(choices)}, got {item!r}")
        if len(set(items)) != len(items):
            raise ValueError(f"{name} must not repeat a label, got {show(value)}")
        return tuple(c for c in choices if c in items)
    return check


def positive_float(name: str, value: Any) -> float:
    """A finite number > 0."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number > 0, got {show(value)}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {show(value)}")
    return float(value)
