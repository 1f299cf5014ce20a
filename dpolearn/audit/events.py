"""Output events of an audit: :class:`~dpolearn.audit.Event`, a named indicator on a batch of
outputs, and the constructors of the events the book's audits use (an arm in a round, an action
sequence, a pull count, a real output above a threshold, a selected index).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from .._validation import check_int_array, check_positive_int, show

__all__ = ["Event", "arm_pulled", "action_sequence", "pulls_at_least", "output_above",
           "selected"]


@dataclass(frozen=True)
class Event:
    """A set of outputs, given by its name and its indicator on a batch of outputs."""

    name: str
    indicator: Callable[[np.ndarray], np.ndarray] = field(compare=False, repr=False)

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str, got {show(self.name)}")
        if not callable(self.indicator):
            raise TypeError(f"indicator must be callable (outputs -> booleans), got "
                            f"{show(self.indicator)}")

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return np.asarray(self.indicator(outputs), dtype=bool)


def arm_pulled(arm: int, t: int) -> Event:
    """Arm ``arm`` (0-based) is pulled in round ``t`` (1-based)."""
    arm = check_positive_int("arm", arm, minimum=0)
    t = check_positive_int("t", t)
    return Event(f"arm {arm} in round {t}", lambda a: a[:, t - 1] == arm)


def action_sequence(seq: Sequence[int]) -> Event:
    """The first len(seq) actions equal ``seq``."""
    s = np.asarray(seq)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"seq must be a non-empty sequence of actions, got {show(seq)}")
    s = check_int_array("seq", s, minimum=0)
    return Event(f"actions = {s.tolist()}", lambda a: np.all(a[:, :len(s)] == s, axis=1))


def pulls_at_least(arm: int, t: int, k: int) -> Event:
    """Arm ``arm`` is pulled at least ``k`` times in rounds 1..t."""
    arm = check_positive_int("arm", arm, minimum=0)
    t = check_positive_int("t", t)
    k = check_positive_int("k", k, minimum=0)
    return Event(f"arm {arm} pulled >= {k} times by round {t}",
                 lambda a: (a[:, :t] == arm).sum(axis=1) >= k)


def output_above(c: float, index=None) -> Event:
    """A real output exceeds ``c``; with ``index`` (an int or a tuple of ints), the entries
    ``index`` along the last axis all exceed ``c`` (e.g. several releases of a counter)."""
    if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, float, np.integer, np.floating)):
        raise TypeError(f"c must be a real number, got {show(c)}")
    if np.isnan(c):
        raise ValueError(f"c must not be nan, got {show(c)}")
    if index is None:
        return Event(f"output > {c:g}", lambda y: np.asarray(y) > c)
    idx = [int(i) for i in np.atleast_1d(index)]
    return Event(f"output{idx} > {c:g}",
                 lambda y: np.all(np.asarray(y)[..., idx] > c, axis=-1))


def selected(i: int) -> Event:
    """A selection mechanism (report-noisy-max) outputs index ``i``."""
    i = check_positive_int("i", i, minimum=0)
    return Event(f"selects {i}", lambda y: np.asarray(y) == i)
