"""DP-TS: Thompson Sampling on private sums from a hybrid logarithmic / binary mechanism.

Hu and Hegde (UAI 2022), Algorithm 1. The private empirical mean of an arm uses *all* of its
observations: the first ``2^(r+1) - 1`` of them are released in blocks of 1, 2, 4, ...
(a modified logarithmic mechanism, one Laplace noise per block), the remaining ones by a binary
(tree) mechanism that restarts at every block boundary. The posterior is shifted to the right
by a bonus that dominates the noise, clipped to [0, 1] and sampled as a Beta.
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

from .._validation import as_row_param, check_bool, check_epsilon, check_positive
from ..accounting import NotPrivate, PureDP, compose
from ..mechanisms.counters import BinaryCounter, popcount
from ..mechanisms.laplace import laplace_block_release
from ..policy import Policy

__all__ = ["DPTS", "dpts_bonus"]

#: The constant 6 * sqrt(8) of the DP-TS bonus (Hu and Hegde 2022, Algorithm 1, line 7).
BONUS_CONSTANT = 6.0 * np.sqrt(8.0)


def dpts_bonus(epsilon, O, t) -> np.ndarray:
    r"""The DP-TS bonus
    :math:`v_{\varepsilon,O,t} = 6\sqrt{8}\,\log_2(O+1)\log_2(t)/(\varepsilon O)`.

    Parameters
    ----------
    epsilon : float or array, > 0 (``inf`` gives 0)
    O : int or array
        Number of pulls of the arm so far, >= 1.
    t : int or array
        Current round, >= 1.

    Examples
    --------
    >>> round(float(dpts_bonus(500.0, 1, 6)), 4)     # v(1, 6) ~ 0.088 at epsilon = 500
    0.0877
    """
    O = np.asarray(O, dtype=float)
    return BONUS_CONSTANT * np.log2(O + 1.0) * np.log2(t) / (np.asarray(epsilon, dtype=float) * O)


class DPTS(Policy):
    r"""DP-TS: Thompson Sampling with an optimistically shifted, private Beta posterior.

    Every arm's private sum is ``C_j + B_j``: ``C_j`` is a modified logarithmic mechanism over
    the first ``2^(r_j+1) - 1`` observations (one ``Lap(2/epsilon)`` per block of
    ``1, 2, 4, ..., 2^r_j`` observations) and ``B_j`` the output of a ``2^(r_j+1)``-bounded
    binary mechanism over the observations ``Psi_j`` of the open block, with per-p-sum noise
    ``Lap(2 (r_j+1)/epsilon)``. Each half is ``epsilon/2``-DP. In round ``t > K`` every arm
    draws :math:`\theta_j \sim \mathrm{Beta}(\bar\mu_j O_j + 1, (1-\bar\mu_j) O_j + 1)` with
    :math:`\bar\mu_j = \mathrm{clip}_{[0,1]}(\tilde\mu_j + v_{\varepsilon,O_j,t})` and the
    highest draw is pulled.

    Parameters
    ----------
    epsilon : float or array-like of shape (n_runs,)
        Privacy parameter, > 0; ``inf`` is the non-private limit (no noise, no bonus: Beta-TS
        after one pull of each arm). An array runs an epsilon sweep as one batch.
    bernoulli_trick : bool, default False
        Replace a reward r in [0, 1] by a Bernoulli(r) draw before using it (Agrawal and Goyal);
        irrelevant for Bernoulli rewards, off by default (the paper's experiments use Bernoulli
        rewards).
    log_share, tree_share : float, optional (0.5 each)
        Shares of epsilon given to the logarithmic part (C) and to the binary mechanism (B);
        the paper's split is 1/2 and 1/2. ``guarantee`` composes the two parts, so another
        split (e.g. the whole epsilon to one part, a deliberately broken variant) is reported
        honestly.
    noise_multiplier : float
        Factor on every Laplace scale (default 1; below 1 a deliberately weakened variant whose
        ``guarantee`` reports the larger epsilon it really has).

    Attributes
    ----------
    O_ : ndarray of int, shape (n_runs, n_arms)
        Total pulls ``O_j`` of each arm.
    r_ : ndarray of int, shape (n_runs, n_arms)
        Block index ``r_j = floor(log2(O_j + 1)) - 1`` (Remark (a) after Algorithm 1).
    C_ : ndarray, shape (n_runs, n_arms)
        Noisy sum of the first ``2^(r_j+1) - 1`` observations (``r_j + 1`` Laplace noises).
    B_ : ndarray, shape (n_runs, n_arms)
        Last output of the binary mechanism over ``Psi_j`` (0 right after a block closes).
    psi_count_, psi_sum_ : ndarray, shape (n_runs, n_arms)
        Number and (raw, never released) sum of the observations in ``Psi_j``.
    mu_tilde_ : ndarray, shape (n_runs, n_arms)
        Private empirical mean ``(C_j + B_j) / O_j`` (Algorithm 1, line 19).

    Notes
    -----
    Privacy (Theorem 1). Neighbouring reward streams differ in one round h; only the reward of
    the arm pulled in round h is used, and it changes by at most 1. That reward enters exactly
    one block sum of ``C`` (noise ``Lap(2/epsilon)``: epsilon/2) and at most ``L = r + 1``
    p-sums of its block's binary mechanism (noise ``Lap(L/(epsilon/2))`` each: epsilon/2 in
    total; Chan, Shi and Song 2011, Theorem 3.5). Blocks are disjoint, so by basic composition
    the released noisy sums are epsilon-DP; bonus, clipping, Beta draws and argmax (lines 6-11)
    are post-processing. ``guarantee`` is ``PureDP(epsilon)``, which is also the paper's claim.

    The binary mechanism is :class:`~dpolearn.mechanisms.counters.BinaryCounter` (one stream
    per (run, arm) cell, ``tree_``), restarted with ``r + 1`` levels at every block boundary.
    Its p-sum noises are persistent: drawn once when a p-sum is formed and reused by every
    later output, as the binary mechanism requires (Chan, Shi and Song 2011, Algorithm 2).

    Readings (the book's appendix of readings and errata): line 7 of the paper prints the
    non-private mean inside the clip; we use the private mean ``mu_tilde``
    (``reading-dpts-private-mean``); logarithms are base 2 (``reading-dpts-log-base``); the
    binary mechanism of block r has ``r + 1`` levels and noise scale ``2 (r+1)/epsilon``
    (``reading-dpts-tree-levels``); rounds 1..K pull arm t in round t
    (``reading-round-robin-start``); ties go to the lowest index (``reading-lowest-index-ties``).

    References
    ----------
    .. [HH22] Hu and Hegde, "Near-optimal Thompson Sampling-based algorithms for differentially
       private stochastic bandits", UAI 2022, Algorithm 1, Theorems 1 and 2.
    .. [CSS11] Chan, Shi and Song, "Private and continual release of statistics", ACM TISSEC 14
       (2011), binary mechanism, Theorem 3.5.

    Examples
    --------
    >>> policy = DPTS(epsilon=1.0)
    >>> policy.guarantee
    PureDP(epsilon=1)
    """

    label = "DP-TS"
    quiet_params = ("log_share", "tree_share", "noise_multiplier")

    def __init__(self, *, epsilon, bernoulli_trick: bool = False, log_share: float = 0.5,
                 tree_share: float = 0.5, noise_multiplier: float = 1.0):
        self.epsilon = check_epsilon(epsilon, allow_inf=True)
        self.bernoulli_trick = check_bool("bernoulli_trick", bernoulli_trick)
        self.log_share = check_positive("log_share", log_share)
        self.tree_share = check_positive("tree_share", tree_share)
        self.noise_multiplier = check_positive("noise_multiplier", noise_multiplier)

    @property
    def guarantee(self):
        """The two parts composed: ``PureDP(log_share * eps / m) + PureDP(tree_share * eps / m)``
        (m the noise multiplier); epsilon for the paper's split. ``NotPrivate`` for eps = inf."""
        if np.all(np.isinf(self.epsilon)):
            return NotPrivate()
        eps = np.asarray(self.epsilon, dtype=float) / self.noise_multiplier
        return compose(PureDP(epsilon=self.log_share * eps),
                       PureDP(epsilon=self.tree_share * eps))

    # ------------------------------------------------------------------ state
    def _initialise(self, n_runs, n_arms, rng):
        self._eps = as_row_param("epsilon", self.epsilon, n_runs)[:, 0]     # (n_runs,)
        shape = (n_runs, n_arms)
        self.O_ = np.zeros(shape, dtype=np.int64)
        self.r_ = np.zeros(shape, dtype=np.int64)
        self.C_ = np.zeros(shape)
        self.B_ = np.zeros(shape)
        self.psi_count_ = np.zeros(shape, dtype=np.int64)
        self.psi_sum_ = np.zeros(shape)
        self.mu_tilde_ = np.zeros(shape)
        # the 2^(r+1)-bounded binary mechanism of each arm's open block (r = 0: one level)
        self.tree_ = BinaryCounter(shape, epsilon=self.tree_share * self._eps[:, None],
                                   levels=1, rng=rng, noise_multiplier=self.noise_multiplier)

    # ------------------------------------------------------------------ noise scales
    def _log_scale(self, eps):
        """Laplace scale of a block of the modified logarithmic mechanism: 1/(0.5 eps)."""
        scale = 1.0 / (self.log_share * eps)
        return scale if self.noise_multiplier == 1.0 else self.noise_multiplier * scale

    def _release(self, value, scale):
        """Add Laplace noise of the given scale (arrays of equal shape): one release each."""
        return laplace_block_release(value, scale, self._rng, source="DP-TS logarithmic part")

    # ------------------------------------------------------------------ decision layer
    def bonus(self, t: int) -> np.ndarray:
        """Bonus ``v`` of every arm in round ``t > K``, shape (n_runs, n_arms) (line 7)."""
        return dpts_bonus(self._eps[:, None], self.O_, t)

    def posterior_params(self, t: int) -> Tuple[np.ndarray, np.ndarray]:
        """Beta parameters ``(alpha + 1, beta + 1)`` of round ``t > K`` (lines 7-8), each >= 1."""
        O = self.O_.astype(float)
        mu_bar = np.clip(self.mu_tilde_ + self.bonus(t), 0.0, 1.0)     # line 7 (private mean)
        return mu_bar * O + 1.0, (1.0 - mu_bar) * O + 1.0              # line 8

    def select(self, t):
        if t <= self.n_arms:                                  # lines 2-4: arm t in round t
            return np.full(self.n_runs, t - 1)
        a, b = self.posterior_params(t)
        theta = self._rng.beta(a, b)                          # line 9
        return np.argmax(theta, axis=1)                       # line 11, ties: lowest index

    # ------------------------------------------------------------------ internal mechanism
    def update(self, t, arms, rewards):
        rewards = np.asarray(rewards, dtype=float)
        if self.bernoulli_trick:
            rewards = (self._rng.random(len(rewards)) < rewards).astype(float)
        eps = self._eps
        cell = self._rows * self.n_arms + arms                # flat index of (run, pulled arm)
        O, C, B, mu = (a.reshape(-1) for a in (self.O_, self.C_, self.B_, self.mu_tilde_))
        if t <= self.n_arms:                                  # line 3: initialisation
            O[cell] = 1
            C[cell] = self._release(rewards, self._log_scale(eps))
            mu[cell] = C[cell]                                # B_j = 0, O_j = 1
            return
        r, count, psum = (a.reshape(-1) for a in (self.r_, self.psi_count_, self.psi_sum_))
        O[cell] += 1                                          # line 12: O_J += 1, Psi_J += x
        count[cell] += 1
        psum[cell] += rewards
        closes = count[cell] == 2 ** (r[cell] + 1)            # line 13
        if closes.any():                                      # lines 14-15
            cc = cell[closes]
            C[cc] += self._release(psum[cc], self._log_scale(eps[closes]))
            count[cc] = 0
            psum[cc] = 0.0
            r[cc] += 1
            B[cc] = 0.0
            done = np.zeros(O.shape, dtype=bool)
            done[cc] = True                                   # next block: a fresh tree
            self.tree_.restart(where=done.reshape(self.O_.shape), levels=self.r_ + 1)
        if not closes.all():                                  # line 17
            keep = cell[~closes]
            where = np.zeros(O.shape, dtype=bool)
            where[keep] = True
            x = np.zeros(O.shape)
            x[cell] = rewards
            out = self.tree_.step(x.reshape(self.O_.shape), where=where.reshape(self.O_.shape))
            B[keep] = out.reshape(-1)[keep]
        mu[cell] = (C[cell] + B[cell]) / O[cell]              # line 19

    # ------------------------------------------------------------------ traces
    @property
    def n_log_noises_(self) -> np.ndarray:
        """Number of ``Lap(2/epsilon)`` noises in ``C_j``: ``r_j + 1`` (Remark (b))."""
        return np.where(self.O_ > 0, self.r_ + 1, 0)

    @property
    def n_bm_noises_(self) -> np.ndarray:
        """Number of live ``Lap(2(r_j+1)/epsilon)`` p-sum noises in ``B_j``: popcount of
        ``|Psi_j|`` (at most ``r_j + 1``, Remark (b))."""
        return popcount(self.psi_count_)
