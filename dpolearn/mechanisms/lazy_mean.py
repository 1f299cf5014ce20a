"""The lazy, forgetful, per-arm doubling private mean shared by Anytime-Lazy-UCB and
Lazy-DP-TS (Hu, Huang, Mehta and Hegde; Hu and Hegde)."""
from __future__ import annotations

import numpy as np

from .._arrays import scalar_if_uniform
from .._validation import (
    as_rng,
    check_epsilon,
    check_int_array,
    check_positive,
    check_positive_int,
    floor_log2,
)
from ..accounting import PureDP
from ._base import GuaranteeFor
from .laplace import laplace_block_release

__all__ = ["LazyDoublingPrivateMean", "lazy_schedule"]


def lazy_schedule(n_pulls):
    r"""Closed-form state of one arm after ``n_pulls >= 1`` pulls.

    Batch ``r`` holds the arm's pulls number :math:`2^r, \dots, 2^{r+1}-1` (1-based) and is
    processed at pull :math:`\omega^{(r)} = 2^{r+1}-1`, so after ``n`` pulls

    * the last processed batch has index :math:`r = \lfloor\log_2(n+1)\rfloor - 1`,
    * its size is :math:`O = 2^r`,
    * :math:`N = n - (2^{r+1} - 1)` observations wait, unprocessed.

    Parameters
    ----------
    n_pulls : int or array of int, >= 1

    Returns
    -------
    (r, O, N) : tuple of int arrays (or ints)

    Examples
    --------
    >>> lazy_schedule([1, 2, 3, 7, 8])
    (array([0, 0, 1, 2, 2]), array([1, 1, 2, 4, 4]), array([0, 1, 0, 0, 1]))
    """
    n = check_int_array("n_pulls", n_pulls, minimum=1)     # 2.7 is refused, not truncated
    r = floor_log2(n + 1) - 1                             # exact on integers
    return r, 2 ** r, n - (2 ** (r + 1) - 1)


class LazyDoublingPrivateMean(GuaranteeFor):
    r"""Per-arm private means refreshed on batches of 1, 2, 4, 8, ... fresh pulls.

    Each arm collects its rewards in an open batch. Its batch number ``r+1`` closes after
    :math:`2^{r+1}` rewards; the mechanism then releases

    .. math:: \tilde\mu_j = \frac{\Phi_j + Z}{O_j}, \qquad O_j = 2^{r+1},
              \quad Z \sim \mathrm{Lap}(1/\varepsilon),

    and **forgets** those rewards. Until the next batch closes, :math:`\tilde\mu_j` and
    :math:`O_j` stay fixed. Arms progress only when pulled; their schedules are not
    synchronised. The mean is not clipped and may leave [0, 1].

    Parameters
    ----------
    n_runs, n_arms : int
        Batch shape: every state array has shape (n_runs, n_arms).
    epsilon : float or array-like of shape (n_runs,) or (n_runs, 1)
        Privacy parameter, > 0 (``inf`` switches the noise off, for tests and the
        non-private limit).
    rng : numpy Generator, int or None
        Source of the Laplace draws.
    noise_multiplier : float
        Factor on the Laplace scale (default 1); below 1 builds a deliberately weakened
        mechanism, and ``guarantee`` reports the larger epsilon it really has.

    Attributes
    ----------
    mu_tilde : ndarray (n_runs, n_arms)
        Private mean of the last processed batch (NaN before the arm's first pull).
    batch_size : ndarray (n_runs, n_arms)
        :math:`O_j = 2^{r_j}`, size of the last processed batch (0 before the first pull).
    batch_index : ndarray of int (n_runs, n_arms)
        :math:`r_j`, index of the last processed batch (-1 before the first pull).
    n_unprocessed : ndarray of int (n_runs, n_arms)
        :math:`N_j`, rewards waiting in the open batch.
    unprocessed_sum : ndarray (n_runs, n_arms)
        :math:`\Phi_j`, their sum (never released).
    n_pulls : ndarray of int (n_runs, n_arms)
        Total pulls of each arm.

    Notes
    -----
    Privacy (Hu, Huang, Mehta and Hegde, Theorems 2 and 4): neighbouring reward streams
    differ in one round. The round's arm is chosen before its reward is seen, so only one
    observed reward can differ; it sits in exactly one batch and changes one released sum by
    at most 1 (rewards in [0, 1]). One ``Lap(1/epsilon)`` per batch makes each release
    epsilon-DP, and batches hold disjoint data (parallel composition), so the whole stream
    of released means is epsilon-DP. Forgetting is what makes this work: a batch sum never
    re-uses old data.

    References
    ----------
    .. [HHMH] Hu, Huang, Mehta and Hegde, "Near-optimal algorithms for differentially private
       online learning in a stochastic environment", arXiv:2102.07929v3, the inner
       algorithm of Algorithms 1 and 3.
    .. [HH22] Hu and Hegde, "Near-optimal Thompson sampling-based algorithms for
       differentially private stochastic bandits", UAI 2022, Algorithm 2.

    Examples
    --------
    >>> mech = LazyDoublingPrivateMean(1, 2, epsilon=np.inf, rng=0)
    >>> for x in [1.0, 0.0, 1.0]:
    ...     _ = mech.observe(np.array([0]), np.array([x]))
    >>> mech.batch_size.tolist(), float(mech.mu_tilde[0, 0])
    ([[2.0, 0.0]], 0.5)
    """

    _one_stream = (1, 1)                      # guarantee_for builds one stream

    def __init__(self, n_runs: int, n_arms: int, *, epsilon, rng=None,
                 noise_multiplier: float = 1.0):
        self.n_runs = check_positive_int("n_runs", n_runs)
        self.n_arms = check_positive_int("n_arms", n_arms)
        eps = np.asarray(check_epsilon(epsilon, allow_inf=True), dtype=float)
        if eps.ndim == 0:
            eps = np.full(self.n_runs, float(eps))
        eps = eps.reshape(-1)
        if eps.shape[0] != self.n_runs:
            raise ValueError(f"epsilon must be a scalar or have one entry per run "
                             f"({self.n_runs}), got shape {np.shape(epsilon)}")
        self.epsilon = eps                                    # (n_runs,)
        self.noise_multiplier = check_positive("noise_multiplier", noise_multiplier)
        self._scale = self.noise_multiplier * (1.0 / eps)     # Laplace scale 1/epsilon
        self._rng = as_rng(rng)
        self._rows = np.arange(self.n_runs)
        shape = (self.n_runs, self.n_arms)
        self.mu_tilde = np.full(shape, np.nan)
        self.batch_size = np.zeros(shape)
        self.batch_index = np.full(shape, -1, dtype=np.int64)
        self.n_unprocessed = np.zeros(shape, dtype=np.int64)
        self.unprocessed_sum = np.zeros(shape)
        self.n_pulls = np.zeros(shape, dtype=np.int64)
        # 2^(r_j + 1): size of the open batch, the count at which it is processed
        self._next_size = np.ones(shape, dtype=np.int64)
        # flat views of the per-round state (1-D fancy indexing is the cheap hot path)
        self._base = self._rows * self.n_arms
        self._flat = {name: getattr(self, name).reshape(-1) for name in
                      ("n_pulls", "n_unprocessed", "unprocessed_sum", "_next_size")}

    @property
    def noise_scale(self) -> np.ndarray:
        """Laplace scale of each run's batch releases, the one actually drawn with, (n_runs,)."""
        return self._scale.copy()

    @property
    def guarantee(self) -> PureDP:
        """``PureDP(epsilon / noise_multiplier)``: one Laplace release per batch, parallel
        composition over the disjoint batches."""
        return PureDP(epsilon=scalar_if_uniform(self.epsilon / self.noise_multiplier))

    def observe(self, arms: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        """Feed one reward per run (arm ``arms[i]`` of run ``i``).

        Returns
        -------
        ndarray of bool, shape (n_runs,)
            True for the runs whose pulled arm just closed a batch (its ``mu_tilde`` and
            ``batch_size`` changed).
        """
        arms = np.asarray(arms)
        flat, f = self._base + arms, self._flat               # index of (run, pulled arm)
        f["n_pulls"][flat] += 1
        n = f["n_unprocessed"][flat] + 1
        f["n_unprocessed"][flat] = n                          # N_j <- N_j + 1
        f["unprocessed_sum"][flat] += rewards                 # Phi_j <- Phi_j + x
        done = n == f["_next_size"][flat]                     # open batch complete?
        if done.any():
            self._process(self._rows[done], arms[done])
        return done

    def _process(self, rows: np.ndarray, arms: np.ndarray) -> None:
        """Close the open batch of (rows, arms): one Laplace draw per batch, then forget."""
        size = self._next_size[rows, arms]                    # O_j <- 2^(r_j + 1)
        released = laplace_block_release(self.unprocessed_sum[rows, arms], self._scale[rows],
                                         self._rng, source="lazy mean")   # Phi + Lap(1/eps)
        self.mu_tilde[rows, arms] = released / size
        self.batch_size[rows, arms] = size
        self.batch_index[rows, arms] += 1                     # r_j <- r_j + 1
        self._next_size[rows, arms] = 2 * size
        self.n_unprocessed[rows, arms] = 0                    # forget the processed rewards
        self.unprocessed_sum[rows, arms] = 0.0

    def __repr__(self) -> str:
        extra = ("" if self.noise_multiplier == 1.0
                 else f", noise_multiplier={self.noise_multiplier!r}")
        return (f"LazyDoublingPrivateMean(n_runs={self.n_runs}, n_arms={self.n_arms}, "
                f"epsilon={scalar_if_uniform(self.epsilon)!r}{extra})")
