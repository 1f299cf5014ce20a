"""Non-private full-information baselines: Follow-the-Leader and Hedge."""
from __future__ import annotations

import numpy as np

from .._validation import check_positive, check_positive_int
from ..policy import Policy

__all__ = ["FTL", "Hedge", "LossSumPolicy"]


class LossSumPolicy(Policy):
    """Shared state of full-information policies: cumulative losses ``L``, shape (n_runs, K)."""

    feedback = "full"

    def _initialise(self, n_runs, n_arms, rng):
        self.cum_losses_ = np.zeros((n_runs, n_arms))

    def update(self, t, arms, losses):
        self.cum_losses_ += losses


class FTL(LossSumPolicy):
    """Follow-the-Leader: play the action with the smallest cumulative loss so far.

    Ties (including round 1) go to the lowest index. On stochastic losses its pseudo-regret is
    bounded by a constant depending on the gaps; on adversarial sequences it can suffer linear
    regret.
    """

    label = "FTL"

    def select(self, t):
        return np.argmin(self.cum_losses_, axis=1)


class Hedge(LossSumPolicy):
    r"""Hedge (exponential weights): play j with probability proportional to
    :math:`\exp(-\eta_t L_j(t-1))`.

    Parameters
    ----------
    learning_rate : float, optional
        A constant eta > 0. If omitted, the anytime rate :math:`\eta_t = \sqrt{8\ln K / t}` is
        used (Cesa-Bianchi and Lugosi 2006, Section 2.8 style).
    horizon : int, optional
        If given (and ``learning_rate`` is not), the tuned constant rate
        :math:`\sqrt{8 \ln K / T}`, which gives regret at most :math:`\sqrt{T\ln K / 2}`.

    References
    ----------
    .. [FS97] Freund and Schapire, "A decision-theoretic generalization of on-line learning and
       an application to boosting", JCSS 55 (1997).
    """

    label = "Hedge"

    def __init__(self, learning_rate=None, horizon=None):
        self.learning_rate = (None if learning_rate is None
                              else check_positive("learning_rate", learning_rate))
        self.horizon = None if horizon is None else check_positive_int("horizon", horizon)

    def eta(self, t: int) -> float:
        if self.learning_rate is not None:
            return self.learning_rate
        n = self.horizon if self.horizon is not None else t
        return float(np.sqrt(8.0 * np.log(self.n_arms) / n))

    def select(self, t):
        logits = -self.eta(t) * self.cum_losses_
        logits -= logits.max(axis=1, keepdims=True)
        weights = np.exp(logits)
        cdf = np.cumsum(weights, axis=1)
        u = self._rng.random((self.n_runs, 1)) * cdf[:, -1:]
        return np.minimum((cdf < u).sum(axis=1), self.n_arms - 1)
