"""The batched policy interface every algorithm implements.

A policy plays ``n_runs`` independent copies of itself at once. Its state arrays have shape
``(n_runs, n_arms)``, so one Python step advances every run; this keeps the code close to the
papers' pseudo-code and makes paper-scale experiments affordable.
"""
from __future__ import annotations

from typing import Any, Dict

import numpy as np

from .accounting import Guarantee, NotPrivate

__all__ = ["Policy"]


class Policy:
    """Base class of bandit and full-information policies.

    Subclasses implement :meth:`reset`, :meth:`select` and :meth:`update`. Rounds are 1-based
    as in the papers; arms are 0-based.

    Attributes
    ----------
    label : str
        The name the book and the legends use (e.g. ``"UCB1"``).
    feedback : {"bandit", "full"}
        ``"bandit"``: :meth:`update` receives the reward of the pulled arm, shape (n_runs,).
        ``"full"``: it receives the whole loss vector of the round, shape (n_runs, n_arms).
    """

    label: str = "Policy"
    feedback: str = "bandit"

    def reset(self, n_runs: int, n_arms: int, rng: np.random.Generator) -> None:
        """Start ``n_runs`` fresh runs on ``n_arms`` arms, drawing randomness from ``rng``."""
        raise NotImplementedError

    def select(self, t: int) -> np.ndarray:
        """Arms chosen in round ``t`` (1-based): integer array of shape (n_runs,)."""
        raise NotImplementedError

    def update(self, t: int, arms: np.ndarray, feedback: np.ndarray) -> None:
        """Observe the feedback of round ``t`` for the chosen ``arms``."""
        raise NotImplementedError

    @property
    def guarantee(self) -> Guarantee:
        """The privacy guarantee of this configured policy, as a record of
        :mod:`dpolearn.accounting`."""
        return NotPrivate()

    def params(self) -> Dict[str, Any]:
        """Parameters that identify this configuration (written to summary files)."""
        return {}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({args})"
