"""DP-SE: differentially private successive elimination (Sajed and Sheffet, ICML 2019).

Not one of the five papers the book follows: Hu, Huang, Mehta and Hegde and Hu and Hegde only
compare against it. The constants below are the book's working version
(reading-baseline-parameters in the book's appendix), which could not be checked against Sajed
and Sheffet's own text here; see the class Notes.
"""
from __future__ import annotations

import numpy as np

from .._blocks import UNTIL_HORIZON, Block, BlockPolicy
from .._validation import (
    as_row_param,
    check_choice,
    check_epsilon,
    check_positive_int,
    check_probability,
)
from ..accounting import PureDP, compose
from ..mechanisms.laplace import block_release_guarantee, laplace_block_release

__all__ = ["DPSE", "dpse_epoch_length"]


def dpse_epoch_length(e, n_active, epsilon, beta, form: str = "max"):
    r"""Pulls per active arm in epoch ``e`` of DP-SE.

    With :math:`\Delta_e = 2^{-e}` and :math:`s = |S|`,

    .. math:: A = \frac{32\ln(8 s e^2/\beta)}{\Delta_e^2}, \qquad
              B = \frac{8\ln(4 s e^2/\beta)}{\varepsilon\,\Delta_e},

    and :math:`R_e = \lceil\max(A, B)\rceil` (``form="max"``) or :math:`\lceil A + B\rceil`
    (``form="sum"``). Arguments broadcast; returns floats (they can exceed any integer type
    for large ``e``).

    >>> float(dpse_epoch_length(1, 5, 1.0, 1e-5))
    1946.0
    """
    e = np.asarray(e, dtype=float)
    delta_e = 2.0 ** (-e)
    a = 32.0 * np.log(8.0 * n_active * e ** 2 / beta) / delta_e ** 2
    b = 8.0 * np.log(4.0 * n_active * e ** 2 / beta) / (epsilon * delta_e)
    return np.ceil(np.maximum(a, b) if form == "max" else a + b)


class DPSE(BlockPolicy):
    r"""DP-SE: successive elimination on fresh, Laplace-noised epoch means.

    Epoch :math:`e = 1, 2, \dots` pulls every arm of the active set S exactly :math:`R_e`
    times (round robin, lowest index first), forms the private means
    :math:`\tilde\mu_a = \bar x_a + \mathrm{Lap}(1/(\varepsilon R_e))` from that epoch's
    rewards only, and eliminates every arm with
    :math:`\max_b\tilde\mu_b - \tilde\mu_a > 2(h_e + c_e)`, where
    :math:`h_e = \sqrt{\ln(8 s e^2/\beta)/(2R_e)}` and
    :math:`c_e = \ln(4 s e^2/\beta)/(\varepsilon R_e)`. Once one arm is left it is pulled until
    the horizon.
    Round by round (:meth:`select`, :meth:`update`) or a whole epoch at a time
    (:meth:`propose`, :meth:`observe`), as :func:`dpolearn.simulate` chooses: nothing inside an
    epoch depends on its rewards.

    Parameters
    ----------
    epsilon : float or array-like of shape (n_runs,)
        Privacy parameter, > 0.
    horizon : int
        T, which DP-SE needs (it is not anytime); the default beta is 1/T.
    r_e_form : {"max", "sum"}
        Epoch length :math:`\lceil\max(A, B)\rceil` or :math:`\lceil A + B\rceil`, see
        :func:`dpse_epoch_length`. Default ``"max"`` (see Notes).
    beta : float, optional
        Confidence parameter in (0, 1); default ``1 / horizon`` (Azize and Basu's choice).

    Notes
    -----
    Privacy: every reward is used in exactly one released mean, whose sensitivity is
    :math:`1/R_e`; ``Lap(1/(epsilon R_e))`` makes each release epsilon-DP and the epochs use
    disjoint data, so DP-SE is epsilon-DP (parallel composition). ``guarantee`` is
    ``PureDP(epsilon)``.

    **External details, flagged.** Sajed and Sheffet's own text was not available to check
    (searched for it; only the abstract was found). The default epoch length is the max form,
    the reading of two independent public implementations (one of them adds 1 instead of
    rounding up); the sum form, the conservative reading, is offered for comparison (both are
    discussed as reading-baseline-parameters in the book's appendix). The elimination threshold
    :math:`2(h_e + c_e)` and the constants 32, 8, 8 and 4 are the book's working version.
    Epoch lengths are capped at the horizon (an epoch that long never completes, so the cap
    changes nothing).

    References
    ----------
    .. [SS19] Sajed and Sheffet, "An optimal private stochastic-MAB algorithm based on an
       optimal private stopping rule", ICML 2019 (arXiv:1905.09383), Algorithm DP-SE.
    .. [HHMH] Hu, Huang, Mehta and Hegde, arXiv:2102.07929v3, Sec. 6 (baseline).

    Examples
    --------
    >>> DPSE(epsilon=1.0, horizon=10**5).beta
    1e-05
    """

    label = "DP-SE"

    def __init__(self, *, epsilon, horizon: int, r_e_form: str = "max", beta=None):
        self.epsilon = check_epsilon(epsilon)
        self.horizon = check_positive_int("horizon", horizon)
        self.r_e_form = check_choice("r_e_form", r_e_form, ("max", "sum"))
        self.beta = (1.0 / self.horizon if beta is None
                     else check_probability("beta", beta, open_low=True, open_high=True))

    @property
    def guarantee(self) -> PureDP:
        # each reward enters one epoch mean, released with Lap(1/(eps R_e)) at sensitivity 1/R_e
        return compose(block_release_guarantee(scale=1.0 / np.asarray(self.epsilon, dtype=float)))

    # ---- state -----------------------------------------------------------------------------
    def _initialise(self, n_runs, n_arms, rng):
        self._eps = as_row_param("epsilon", self.epsilon, n_runs)[:, 0]     # (n_runs,)
        self.active_ = np.ones((n_runs, n_arms), dtype=bool)                # S
        self.epoch_ = np.ones(n_runs, dtype=np.int64)                       # e
        self.n_active_ = np.full(n_runs, n_arms, dtype=np.int64)            # s = |S|
        self.epoch_length_ = self._length(self.epoch_, self.n_active_, self._eps)  # R_e
        self._k = np.zeros(n_runs, dtype=np.int64)     # pulls made in the current epoch
        self._sums = np.zeros((n_runs, n_arms))         # this epoch's reward sums

    def _length(self, e, s, eps):
        r = dpse_epoch_length(e, s, eps, self.beta, self.r_e_form)
        return np.minimum(r, self.horizon).astype(np.int64)

    def _noise_scale(self, rows, R):
        """Laplace scale 1/(epsilon R_e) of the released epoch means (sensitivity 1/R_e)."""
        return 1.0 / (self._eps[rows] * R)

    def _eliminate(self, rows, sums):
        """End of epoch for ``rows``: private means, elimination, next epoch's length."""
        e, s, R = self.epoch_[rows], self.n_active_[rows], self.epoch_length_[rows]
        act = self.active_[rows]
        scale = np.broadcast_to(self._noise_scale(rows, R)[:, None], act.shape)
        mu_tilde = np.full(act.shape, -np.inf)                # one Lap(1/(eps R_e)) per arm in S
        sensitivity = np.broadcast_to(1.0 / R[:, None], act.shape)   # a mean of R_e rewards
        mu_tilde[act] = laplace_block_release((sums / R[:, None])[act], scale[act], self._rng,
                                              sensitivity=sensitivity[act],
                                              source="DP-SE epoch means")
        h = np.sqrt(np.log(8.0 * s * e ** 2 / self.beta) / (2.0 * R))
        c = np.log(4.0 * s * e ** 2 / self.beta) / (self._eps[rows] * R)
        keep = mu_tilde.max(axis=1, keepdims=True) - mu_tilde <= 2.0 * (h + c)[:, None]
        self.active_[rows] = act & keep
        self.epoch_[rows] = e + 1
        self.n_active_[rows] = self.active_[rows].sum(axis=1)
        self.epoch_length_[rows] = self._length(e + 1, self.n_active_[rows], self._eps[rows])

    # ---- round by round --------------------------------------------------------------------
    def select(self, t):
        # the (k mod s)-th active arm in index order; with s = 1 the survivor
        pos = self._k % self.n_active_
        return np.argmax(np.cumsum(self.active_, axis=1) > pos[:, None], axis=1)

    def update(self, t, arms, rewards):
        exploring = self.n_active_ > 1
        self._sums[self._rows, arms] += np.where(exploring, rewards, 0.0)
        self._k += exploring
        done = exploring & (self._k == self.epoch_length_ * self.n_active_)
        if done.any():
            rows = np.flatnonzero(done)
            self._eliminate(rows, self._sums[rows])
            self._sums[rows] = 0.0
            self._k[rows] = 0

    # ---- a whole epoch at a time (dpolearn.simulate.play_blocks) ----------------------------
    def propose(self, rows, t):
        """Epoch e: every arm of S, R_e times in turn; once one arm is left, that arm until the
        horizon."""
        R = np.where(self.n_active_[rows] > 1, self.epoch_length_[rows], UNTIL_HORIZON)
        return Block(rows, self.active_[rows], R)

    def observe(self, block, sums):
        """End of epoch e: private means from its sums, elimination, the next epoch's length."""
        self._eliminate(block.rows, sums)
