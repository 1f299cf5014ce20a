"""Non-private bandit baselines: UCB1, KL-UCB, Thompson Sampling (Beta and Gaussian priors),
uniform play."""
from __future__ import annotations

import math

import numpy as np

from .._validation import check_bool, check_choice, check_positive
from ..accounting import PureDP, compose
from ..policy import Policy
from .kl import klucb_upper

__all__ = ["UCB1", "KLUCB", "BetaTS", "GaussianTS", "UniformPlay", "SumCountPolicy"]


class SumCountPolicy(Policy):
    """Shared state of index policies: reward sums ``S`` and pull counts ``n``, (n_runs, K)."""

    def _initialise(self, n_runs, n_arms, rng):
        self._base = self._rows * n_arms               # flat index of (run, arm 0)
        self.sums_ = np.zeros((n_runs, n_arms))
        self.counts_ = np.zeros((n_runs, n_arms))

    def update(self, t, arms, rewards):
        flat = self._base + arms                       # one (run, arm) cell per run
        self.sums_.ravel()[flat] += rewards
        self.counts_.ravel()[flat] += 1


class UCB1(SumCountPolicy):
    r"""UCB1: pull each arm once, then the arm maximising
    :math:`\hat\mu_j + \sqrt{2\ln t / n_j}`.

    Notes
    -----
    Ties go to the lowest index. Regret bound (Auer, Cesa-Bianchi and Fischer 2002, Theorem 1):
    :math:`\sum_{j:\Delta_j>0} 8\ln T/\Delta_j + (1+\pi^2/3)\sum_j \Delta_j`.

    References
    ----------
    .. [ACF02] Auer, Cesa-Bianchi and Fischer, "Finite-time analysis of the multiarmed bandit
       problem", Machine Learning 47 (2002), Figure 1.

    Examples
    --------
    >>> UCB1().label
    'UCB1'
    """

    label = "UCB1"

    def select(self, t):
        if t <= self.n_arms:                                  # initialisation: arm t in round t
            return np.full(self.n_runs, t - 1)
        # index_j = S_j / n_j + sqrt(2 ln t / n_j), in preallocated buffers (it runs every round)
        width = np.divide(2.0 * math.log(t), self.counts_, out=self._width)
        np.sqrt(width, out=width)
        index = np.divide(self.sums_, self.counts_, out=self._index)
        index += width
        return index.argmax(axis=1)

    def _initialise(self, n_runs, n_arms, rng):
        super()._initialise(n_runs, n_arms, rng)
        self._width = np.empty((n_runs, n_arms))
        self._index = np.empty((n_runs, n_arms))

    @staticmethod
    def regret_bound(gaps, horizon) -> float:
        """The finite-time bound of Auer et al. (2002), Theorem 1, at round ``horizon``."""
        gaps = np.asarray(gaps, dtype=float)
        pos = gaps[gaps > 0]
        return float(np.sum(8 * np.log(horizon) / pos) + (1 + np.pi ** 2 / 3) * gaps.sum())


class KLUCB(SumCountPolicy):
    r"""KL-UCB for Bernoulli rewards: pull each arm once, then the arm maximising
    :math:`\max\{q : n_j\,\mathrm{kl}(\hat\mu_j, q) \le \ln t + c \ln\ln t\}`.

    Parameters
    ----------
    c : float
        Constant of the ``ln ln t`` term, >= 0 (0 is the usual practical choice, 3 the one in
        the analysis of Garivier and Cappé 2011).

    References
    ----------
    .. [GC11] Garivier and Cappé, "The KL-UCB algorithm for bounded stochastic bandits and
       beyond", COLT 2011.
    """

    label = "KL-UCB"

    def __init__(self, c: float = 0.0):
        if c != 0:
            check_positive("c", c)
        self.c = float(c)

    def select(self, t):
        if t <= self.n_arms:
            return np.full(self.n_runs, t - 1)
        level = np.log(t) + (self.c * np.log(np.log(t)) if t > 2 else 0.0)
        index = klucb_upper(self.sums_ / self.counts_, level / self.counts_)
        return np.argmax(index, axis=1)


class BetaTS(SumCountPolicy):
    r"""Thompson Sampling with Beta(1, 1) priors for Bernoulli rewards.

    Every round draw :math:`\theta_j \sim \mathrm{Beta}(S_j + 1, F_j + 1)` for every arm and pull
    the argmax; no forced initial pulls. Rewards in [0, 1] enter as fractional successes (the
    paper-faithful default); ``bernoulli_trick=True`` first replaces a reward r by a
    Bernoulli(r) draw (Agrawal and Goyal 2012).

    References
    ----------
    .. [AG17] Agrawal and Goyal, "Near-optimal regret bounds for Thompson Sampling", JACM 64
       (2017), Algorithm 1; restated as Algorithm 2 of Hu, Huang, Mehta and Hegde (2021).
    """

    label = "TS (Beta)"
    value_range = (0.0, 1.0)        # the Beta posterior needs rewards in [0, 1]

    def __init__(self, bernoulli_trick: bool = False):
        self.bernoulli_trick = check_bool("bernoulli_trick", bernoulli_trick)

    def select(self, t):
        theta = self._rng.beta(self.sums_ + 1.0, self.counts_ - self.sums_ + 1.0)
        return np.argmax(theta, axis=1)

    def update(self, t, arms, rewards):
        if self.bernoulli_trick:
            rewards = (self._rng.random(len(rewards)) < rewards).astype(float)
        super().update(t, arms, rewards)


class GaussianTS(SumCountPolicy):
    r"""Thompson Sampling with Gaussian priors (Agrawal and Goyal 2017, Algorithm 2).

    Parameters
    ----------
    prior : {"ag", "empirical"}
        ``"ag"`` (default): :math:`\theta_j \sim N(S_j/(n_j+1),\ 1/(n_j+1))`, no initial pulls.
        ``"empirical"``: pull each arm once, then :math:`\theta_j \sim N(\hat\mu_j, 1/n_j)`
        (the restatement in Hu, Huang, Zhang, Lécuyer and Hegde 2025; reading
        ``reading-mts-gaussian`` of the book's appendix of readings and errata).
    """

    label = "TS (Gaussian)"

    def __init__(self, prior: str = "ag"):
        self.prior = check_choice("prior", prior, ("ag", "empirical"))

    def select(self, t):
        if self.prior == "ag":
            denom = self.counts_ + 1.0
            mean = self.sums_ / denom
        else:
            if t <= self.n_arms:
                return np.full(self.n_runs, t - 1)
            denom = self.counts_
            mean = self.sums_ / denom
        theta = mean + self._rng.standard_normal(mean.shape) / np.sqrt(denom)
        return np.argmax(theta, axis=1)


class UniformPlay(Policy):
    """Choose an arm uniformly at random every round (the zero-information reference).

    It never looks at the data, so it is 0-DP: ``guarantee`` is ``PureDP(epsilon=0)``.
    """

    label = "Uniform"

    def __init__(self, feedback: str = "bandit"):
        self.feedback = check_choice("feedback", feedback, ("bandit", "full"))

    def select(self, t):
        return self._rng.integers(0, self.n_arms, size=self.n_runs)

    @property
    def guarantee(self):
        """``PureDP(0)``: the output does not depend on the data."""
        return compose(PureDP(epsilon=0.0))

    def update(self, t, arms, feedback):
        pass
