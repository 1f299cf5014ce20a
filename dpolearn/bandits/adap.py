"""AdaP-UCB and AdaP-KLUCB (Azize and Basu, NeurIPS 2022): commit to an arm until its pull
count doubles, then refresh that arm's private mean from the episode just played.

Not one of the five papers the book follows (reconstructed from Azize and Basu's Algorithm 1 and
eq. (7)); Hu, Huang, Mehta and Hegde use AdaP-KLUCB as a baseline (reading-baseline-parameters
in the book's appendix).
"""
from __future__ import annotations

import numpy as np

from .._blocks import Block, BlockPolicy
from .._validation import as_row_param, check_epsilon, check_positive
from ..accounting import PureDP, compose
from ..mechanisms.laplace import block_release_guarantee, laplace_block_release
from .kl import klucb_upper

__all__ = ["AdaPKLUCB", "AdaPUCB"]


class _AdaP(BlockPolicy):
    r"""Shared episode machinery of the AdaP algorithms.

    Round t <= K pulls arm t once; its private mean is :math:`x + \mathrm{Lap}(1/\varepsilon)`
    (one sample). Each later episode starts at a round :math:`t_\ell`, picks
    :math:`A_\ell = \arg\max_a I_a(t_\ell)` and plays it until its total count
    :math:`N_{A_\ell}` has doubled (truncated at the horizon); then
    :math:`\tilde\mu_{A_\ell} \leftarrow (\text{episode sum} + \mathrm{Lap}(1/\varepsilon))/n`,
    where n is the episode length, and the older samples are forgotten.

    Round by round (:meth:`select`, :meth:`update`) or a whole episode at a time
    (:meth:`propose`, :meth:`observe`): nothing inside an episode depends on its rewards, so
    :func:`dpolearn.simulate` plays the episodes as blocks where the environment offers exact
    block draws, after the initial round robin of rounds 1..K.
    """

    initial_round_robin = True

    def __init__(self, *, epsilon, alpha: float = 3.1):
        self.epsilon = check_epsilon(epsilon)
        alpha = check_positive("alpha", alpha)
        if alpha <= 3:
            raise ValueError(f"alpha must be > 3 (Azize and Basu's condition), got {alpha!r}")
        self.alpha = float(alpha)

    @property
    def guarantee(self) -> PureDP:
        """``PureDP(epsilon)``: each sample enters one Laplace release of a sum, sensitivity 1."""
        return compose(block_release_guarantee(scale=1.0 / np.asarray(self.epsilon, dtype=float)))

    def _initialise(self, n_runs, n_arms, rng):
        self._eps = as_row_param("epsilon", self.epsilon, n_runs)            # (n_runs, 1)
        shape = (n_runs, n_arms)
        self.mu_tilde_ = np.zeros(shape)           # private mean of the last episode
        self.n_last_ = np.ones(shape)              # n_a: samples behind mu_tilde_a
        self.counts_ = np.zeros(shape, dtype=np.int64)    # N_a: total pulls
        self.arm_ = np.zeros(n_runs, dtype=np.int64)      # A_l, the committed arm
        self._left = np.zeros(n_runs, dtype=np.int64)     # pulls left in the episode
        self._len = np.ones(n_runs, dtype=np.int64)       # episode length
        self._sum = np.zeros(n_runs)                      # episode reward sum

    def index(self, t_l) -> np.ndarray:
        """The index :math:`I_a(t_\\ell)` of every arm, shape (n_runs, n_arms)."""
        return self._index(self.mu_tilde_, self.n_last_, self._eps, t_l)

    def _index(self, mu_tilde, n, eps, t_l):
        """The index formula on given state arrays (``t_l`` scalar or a column)."""
        raise NotImplementedError

    def _start_episodes(self, rows, t_l):
        """Choose A_l for ``rows`` at round(s) ``t_l`` and commit until N_A doubles."""
        t_col = np.broadcast_to(np.asarray(t_l, dtype=float), rows.shape)[:, None]
        idx = self._index(self.mu_tilde_[rows], self.n_last_[rows], self._eps[rows], t_col)
        arm = np.argmax(idx, axis=1)                                  # ties: lowest index
        self.arm_[rows] = arm
        self._len[rows] = self.counts_[rows, arm]                     # play N_A more times
        self._left[rows] = self._len[rows]
        self._sum[rows] = 0.0

    def _close(self, rows, arms, sums, lengths):
        """Episode end: private mean from this episode only, one Laplace draw each."""
        released = laplace_block_release(sums, 1.0 / self._eps[rows, 0], self._rng,
                                         source="AdaP episode sum")
        self.mu_tilde_[rows, arms] = released / lengths
        self.n_last_[rows, arms] = lengths

    # ---- round by round --------------------------------------------------------------------
    def select(self, t):
        if t <= self.n_arms:                                  # initialisation: arm t in round t
            return np.full(self.n_runs, t - 1)
        new = self._left == 0
        if new.any():
            self._start_episodes(np.flatnonzero(new), t)
        return self.arm_.copy()

    def update(self, t, arms, rewards):
        rows = self._rows
        self.counts_[rows, arms] += 1
        if t <= self.n_arms:                                   # one-sample private mean
            self._close(rows, arms, rewards, np.ones(self.n_runs))
            return
        self._sum += rewards
        self._left -= 1
        end = self._left == 0
        if end.any():
            r = np.flatnonzero(end)
            self._close(r, self.arm_[r], self._sum[r], self._len[r].astype(float))

    # ---- a whole episode at a time (dpolearn.simulate.play_blocks) --------------------------
    def propose(self, rows, t):
        """Episodes starting at rounds ``t``: commit to A_l = argmax I_a(t_l) for N_A pulls."""
        self._start_episodes(rows, t_l=t)
        return Block(rows, self.arm_[rows], self._len[rows])

    def observe(self, block, sums):
        """Episode end (the rounds 1..K are episodes of one pull): N_A has doubled, and the
        private mean of A_l comes from this episode's sum alone."""
        self.counts_[block.rows, block.arms] += block.pulls
        self._close(block.rows, block.arms, sums, block.pulls.astype(float))


class AdaPUCB(_AdaP):
    r"""AdaP-UCB: the adaptive-episode private UCB of Azize and Basu (2022).

    Index at the start :math:`t_\ell` of an episode, with :math:`n_a` the number of samples
    behind :math:`\tilde\mu_a` (its last episode):

    .. math:: I_a = \tilde\mu_a + \sqrt{\frac{\alpha\ln(2t_\ell)}{2n_a}}
              + \frac{\alpha\ln t_\ell}{\varepsilon n_a}.

    Parameters
    ----------
    epsilon : float or array-like of shape (n_runs,)
        Privacy parameter, > 0.
    alpha : float
        Exploration constant, > 3 (3.1 in Azize and Basu's experiments).

    Notes
    -----
    Privacy: the episodes of an arm hold disjoint samples and each episode's sum (sensitivity
    1) gets one ``Lap(1/epsilon)``; decisions post-process these releases, so the algorithm is
    epsilon-DP. Differences from Anytime-Lazy-UCB (Hu, Huang, Mehta and Hegde, Sec. 4.1): the
    doubling is on the total count (batches 1, 1, 2, 4, ...) and AdaP *commits* to the chosen
    arm for the whole episode.
    **External, flagged**: the index is a reconstruction of Azize and Basu's eq. (7); it could
    not be checked against their text here. Natural logarithms throughout.

    References
    ----------
    .. [AB22] Azize and Basu, "When privacy meets partial information: a refined analysis of
       differentially private bandits", NeurIPS 2022, Algorithm 1 (AdaP-UCB).
    """

    label = "AdaP-UCB"

    def _index(self, mu_tilde, n, eps, t_l):
        return (mu_tilde + np.sqrt(self.alpha * np.log(2.0 * t_l) / (2.0 * n))
                + self.alpha * np.log(t_l) / (eps * n))


class AdaPKLUCB(_AdaP):
    r"""AdaP-KLUCB: the KL-UCB version of AdaP (Azize and Basu 2022).

    At the start :math:`t_\ell` of an episode, with :math:`n_a` the samples behind
    :math:`\tilde\mu_a`,

    .. math:: \breve\mu_a = \mathrm{Clip}_{[0,1]}\Big(\tilde\mu_a
              + \frac{\alpha\ln t_\ell}{\varepsilon n_a}\Big),
              \qquad I_a = \max\Big\{q \in [\breve\mu_a, 1] : \mathrm{kl}(\breve\mu_a, q)
              \le \frac{\alpha\ln t_\ell}{n_a}\Big\},

    computed with :func:`dpolearn.bandits.kl.klucb_upper`.

    Parameters
    ----------
    epsilon : float or array-like of shape (n_runs,)
        Privacy parameter, > 0.
    alpha : float
        Exploration constant, > 3 (3.1 in Azize and Basu's experiments and here by default).

    Notes
    -----
    Privacy as for :class:`AdaPUCB`. **External, flagged**: a reconstruction of Azize and
    Basu's Algorithm 1 with the KL index; alpha = 3.1 is the value Azize and Basu used (Hu,
    Huang, Mehta and Hegde do not state theirs; reading-baseline-parameters in the book's
    appendix).

    References
    ----------
    .. [AB22] Azize and Basu, NeurIPS 2022, Algorithm 1 (AdaP-KLUCB).

    Examples
    --------
    >>> AdaPKLUCB(epsilon=1.0).params()
    {'epsilon': 1.0, 'alpha': 3.1}
    """

    label = "AdaP-KLUCB"

    def _index(self, mu_tilde, n, eps, t_l):
        level = self.alpha * np.log(t_l)
        mu_breve = np.clip(mu_tilde + level / (eps * n), 0.0, 1.0)    # clipped shifted mean
        return klucb_upper(mu_breve, level / n)
