"""The lazy private bandit algorithms of Hu, Huang, Mehta and Hegde: Anytime-Lazy-UCB
(Algorithm 1) and Lazy-DP-TS (Algorithm 3, also Algorithm 2 of Hu and Hegde 2022).

Both are "inner private mean + post-processing": the private means come from
:class:`~dpolearn.mechanisms.LazyDoublingPrivateMean` (batches of 1, 2, 4, ... fresh pulls, one
Laplace draw each, observations forgotten after use) and the decision rule only reads them.

Both take a ``noise_multiplier`` (default 1) that scales the Laplace noise of the inner mean
(the widths keep the constants of the calibrated noise); below 1 it builds a deliberately
weakened variant whose ``guarantee`` reports the larger epsilon it really has.
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import as_row_param, check_choice, check_epsilon, check_positive
from ..accounting import PureDP, compose
from ..mechanisms.lazy_mean import LazyDoublingPrivateMean
from ..policy import Policy

__all__ = ["AnytimeLazyUCB", "LazyDPTS", "private_sample_complexity"]

_LOGS = {"ln": math.log, "log2": math.log2}      # of the round t, a Python int


class _LazyPolicy(Policy):
    """Shared part: epsilon handling, the initial round robin and the inner mechanism."""

    def __init__(self, *, epsilon, log: str = "ln", noise_multiplier: float = 1.0):
        self.epsilon = check_epsilon(epsilon, allow_inf=True)
        self.log = check_choice("log", log, tuple(_LOGS))
        self._log = _LOGS[self.log]
        self.noise_multiplier = check_positive("noise_multiplier", noise_multiplier)

    @property
    def guarantee(self) -> PureDP:
        """The inner mean's record, ``PureDP(epsilon / noise_multiplier)`` (one Laplace release
        per disjoint batch); the decisions post-process it."""
        return compose(PureDP(epsilon=np.asarray(self.epsilon, dtype=float)
                              / self.noise_multiplier))

    def _initialise(self, n_runs, n_arms, rng):
        self._eps = as_row_param("epsilon", self.epsilon, n_runs)          # (n_runs, 1)
        self.mean_ = LazyDoublingPrivateMean(n_runs, n_arms, epsilon=self._eps[:, 0], rng=rng,
                                             noise_multiplier=self.noise_multiplier)
        # cached 1 / O_j and 1 / (eps O_j): they change only when a batch closes
        self._inv_O = np.ones((n_runs, n_arms))
        self._inv_eps_O = np.ones((n_runs, n_arms)) / self._eps

    def update(self, t, arms, rewards):
        done = self.mean_.observe(arms, rewards)           # may refresh mu_tilde, O (Sec. 3.0)
        if done.any():
            self._refresh(np.flatnonzero(done), np.asarray(arms)[done])

    def _refresh(self, rows, arms):
        O = self.mean_.batch_size[rows, arms]
        self._inv_O[rows, arms] = 1.0 / O
        self._inv_eps_O[rows, arms] = 1.0 / (self._eps[rows, 0] * O)

    def privacy_bonus(self, t: int) -> np.ndarray:
        r"""The Laplace-tail width :math:`3\log(t)/(\varepsilon O_j)`, shape (n_runs, n_arms)."""
        return 3.0 * self._log(t) * self._inv_eps_O


class AnytimeLazyUCB(_LazyPolicy):
    r"""Anytime-Lazy-UCB: UCB on lazily refreshed, batch-wise private means.

    Pull each arm once; then in round :math:`t` pull the arm maximising

    .. math:: U_j(t) = \tilde\mu_j + \sqrt{\frac{3\ln t}{O_j}} + \frac{3\ln t}{\varepsilon O_j},

    where :math:`\tilde\mu_j` is the private mean of arm j's last processed batch and
    :math:`O_j` that batch's size (not the total number of pulls).

    Parameters
    ----------
    epsilon : float or array-like of shape (n_runs,)
        Privacy parameter, > 0. An array runs an epsilon sweep as one batch. ``inf`` gives
        the non-private lazy limit (no noise, no privacy width).
    log : {"ln", "log2"}
        Logarithm in both widths; the paper's is natural ("ln", default).

    Attributes
    ----------
    mean_ : LazyDoublingPrivateMean
        The inner mechanism (``mean_.mu_tilde``, ``mean_.batch_size``), set by :meth:`reset`.

    Notes
    -----
    Privacy (Theorem 2): every reward enters one noisy batch sum of sensitivity 1, so the
    released means are epsilon-DP by parallel composition; the index and the argmax are
    post-processing. ``guarantee`` is ``PureDP(epsilon)``.
    Regret (Theorem 3): :math:`O(\sum_{j:\Delta_j>0} \ln T / \min\{\Delta_j, \varepsilon\})`.
    Round t <= K pulls arm t (reading ``reading-round-robin-start``); ties go to the lowest
    index (reading ``reading-lowest-index-ties``; both in the book's appendix of readings and
    errata); the first width is :math:`\sqrt{3\ln t/O_j}` (equal to
    :math:`\sqrt{\ln(t^3)/O_j}`), the second bounds the Laplace noise with probability
    :math:`1 - t^{-3}`.

    References
    ----------
    .. [HHMH] Hu, Huang, Mehta and Hegde, "Near-optimal algorithms for differentially private
       online learning in a stochastic environment", arXiv:2102.07929v3, Algorithm 1,
       Theorems 2 and 3.

    Examples
    --------
    >>> AnytimeLazyUCB(epsilon=1.0).guarantee
    PureDP(epsilon=1)
    """

    label = "Anytime-Lazy-UCB"

    def index(self, t: int) -> np.ndarray:
        """:math:`U_j(t)` of every arm, shape (n_runs, n_arms) (Alg. 1, line "compute U")."""
        log_t = self._log(t)
        return (self.mean_.mu_tilde
                + np.sqrt(3.0 * log_t * self._inv_O)        # Hoeffding width
                + 3.0 * log_t * self._inv_eps_O)            # Laplace-tail width

    def select(self, t):
        if t <= self.n_arms:                                # initialisation: arm t in round t
            return np.full(self.n_runs, t - 1)
        return np.argmax(self.index(t), axis=1)             # ties: lowest index


class LazyDPTS(_LazyPolicy):
    r"""Lazy-DP-TS: Thompson Sampling on an optimistically shifted lazy private mean.

    Pull each arm once; then in round :math:`t` draw, independently for every arm,

    .. math:: \bar\mu_j = \mathrm{Clip}_{[0,1]}
              \Big(\tilde\mu_j + \frac{3\log t}{\varepsilon O_j}\Big),
              \qquad \theta_j \sim \mathrm{Beta}\big(\bar\mu_j O_j + 1,\ (1-\bar\mu_j) O_j + 1\big),

    and pull the argmax of :math:`\theta`. Both Beta parameters are >= 1 thanks to the clip.

    Parameters
    ----------
    epsilon : float or array-like of shape (n_runs,)
        Privacy parameter, > 0. An array runs an epsilon sweep as one batch.
    log : {"ln", "log2"}
        Logarithm of the shift: natural in Hu, Huang, Mehta and Hegde (default, reading
        ``reading-lazy-ts-log`` of the book's appendix of readings and errata);
        base 2 in Hu and Hegde (2022), whose experiments the ``hu2022-*`` figures reproduce.

    Notes
    -----
    Privacy (Theorem 4; Hu and Hegde, Theorem 3): as for :class:`AnytimeLazyUCB`, the Beta
    draws and the argmax post-process the epsilon-DP lazy means. ``guarantee`` is
    ``PureDP(epsilon)``. Regret (Theorem 5): same rates as Anytime-Lazy-UCB.
    There is no Hoeffding term: the spread of the Beta draw does the exploring, and its
    pseudo-count is the last batch size :math:`O_j`.

    References
    ----------
    .. [HHMH] Hu, Huang, Mehta and Hegde, arXiv:2102.07929v3, Algorithm 3, Theorems 4 and 5.
    .. [HH22] Hu and Hegde, "Near-optimal Thompson sampling-based algorithms for
       differentially private stochastic bandits", UAI 2022, Algorithm 2.

    Examples
    --------
    >>> LazyDPTS(epsilon=0.5, log="log2").params()
    {'epsilon': 0.5, 'log': 'log2'}
    """

    label = "Lazy-DP-TS"

    def shifted_mean(self, t: int) -> np.ndarray:
        r""":math:`\bar\mu_j(t)`, the clipped optimistic mean, shape (n_runs, n_arms)."""
        return np.clip(self.mean_.mu_tilde + self.privacy_bonus(t), 0.0, 1.0)

    def beta_params(self, t: int):
        """The Beta parameters (alpha, beta) of every arm in round ``t``; both >= 1."""
        mu_bar = self.shifted_mean(t)
        O = self.mean_.batch_size
        successes = mu_bar * O                              # mu_bar O and (1 - mu_bar) O
        return successes + 1.0, (O - successes) + 1.0

    def select(self, t):
        if t <= self.n_arms:                                # initialisation: arm t in round t
            return np.full(self.n_runs, t - 1)
        a, b = self.beta_params(t)
        theta = self._rng.beta(a, b)                        # fresh, independent across arms
        return np.argmax(theta, axis=1)


def private_sample_complexity(gap, epsilon, horizon, c: float = 24.0):
    r"""The "private sample complexity" of an arm in the regret proofs of the lazy algorithms.

    Returns :math:`c\ln T/(\Delta\min\{\Delta, \varepsilon\})` and the batch index
    :math:`d = \lceil\log_2(\cdot)\rceil`: once an arm's batches hold :math:`2^d` pulls, its
    two confidence widths sum to less than :math:`\Delta/2` and it stops being chosen, up to
    O(1) expected pulls. ``c = 24`` in the Anytime-Lazy-UCB proof (Lemma 19), ``c = 72`` in the
    Lazy-DP-TS proof (Lemma 20). Arguments broadcast.

    References
    ----------
    Hu, Huang, Mehta and Hegde, arXiv:2102.07929v3, proofs of Theorems 3 and 5.

    >>> value, d = private_sample_complexity(0.125, 0.25, 10**6)
    >>> round(float(value)), int(d)
    (21221, 15)
    """
    gap = np.asarray(gap, dtype=float)
    eps = np.asarray(epsilon, dtype=float)
    if np.any(gap <= 0) or np.any(eps <= 0):
        raise ValueError(f"gap and epsilon must be > 0, got {gap!r} and {eps!r}")
    value = c * np.log(horizon) / (gap * np.minimum(gap, eps))
    return value, np.ceil(np.log2(value)).astype(int)
