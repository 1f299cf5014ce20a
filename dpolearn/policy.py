"""The batched policy interface every algorithm implements.

A policy plays ``n_runs`` independent copies of itself at once. Its state arrays have shape
``(n_runs, n_arms)``, so one Python step advances every run; this keeps the code close to the
papers' pseudo-code and makes paper-scale experiments affordable.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ._validation import check_positive_int
from .accounting import Guarantee, NotPrivate

__all__ = ["Policy", "PrivacyAssumptionWarning"]


class PrivacyAssumptionWarning(UserWarning):
    """A private policy was run where the assumption behind its guarantee fails.

    The guarantees of the book's algorithms assume rewards (or losses) in [0, 1]: that bounds
    the sensitivity of every released sum. On an environment whose values are not bounded so
    (e.g. :class:`~dpolearn.envs.GaussianBandit`), :func:`~dpolearn.simulate` issues this
    warning and records ``NotPrivate()`` as the result's guarantee.
    """


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
    horizon : int, array of ints or None
        The horizon T the policy was configured for (its constants and its guarantee depend on
        it; one entry per run when it varies over a sweep), or ``None`` for an anytime policy.
        :func:`~dpolearn.simulate` refuses to run a policy past it (:meth:`check_horizon`).

    Notes
    -----
    A policy whose decisions are fixed over whole blocks of rounds derives from
    :class:`dpolearn.simulate.BlockPolicy` instead and also proposes and observes whole blocks;
    the simulator then plays it a block at a time on environments with ``has_block_sums``.
    """

    label: str = "Policy"
    feedback: str = "bandit"
    horizon: int | None = None

    def reset(self, n_runs: int, n_arms: int, rng: np.random.Generator) -> None:
        """Start ``n_runs`` fresh runs on ``n_arms`` arms, drawing randomness from ``rng``."""
        raise NotImplementedError

    def select(self, t: int) -> np.ndarray:
        """Arms chosen in round ``t`` (1-based): integer array of shape (n_runs,)."""
        raise NotImplementedError

    def update(self, t: int, arms: np.ndarray, feedback: np.ndarray) -> None:
        """Observe the feedback of round ``t`` for the chosen ``arms``."""
        raise NotImplementedError

    def check_horizon(self, horizon: int) -> int:
        """Return ``horizon`` if the policy may run that long, else raise ``ValueError``.

        A policy configured for T rounds (``self.horizon``; with one entry per run, the
        smallest) has constants and a guarantee that hold for T rounds only.
        """
        horizon = check_positive_int("horizon", horizon)
        configured = self.horizon
        if configured is not None:
            limit = int(np.min(configured))
            if horizon > limit:
                raise ValueError(f"horizon must be <= the policy's configured horizon "
                                 f"{type(self).__name__}(horizon={limit}), got horizon={horizon}")
        return horizon

    @property
    def guarantee(self) -> Guarantee:
        """The privacy guarantee of this configured policy, as a record of
        :mod:`dpolearn.accounting`."""
        return NotPrivate()

    def params(self) -> dict[str, Any]:
        """Parameters that identify this configuration (written to summary files)."""
        return {}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({args})"
