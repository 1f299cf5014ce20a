r"""The hybrid counter of Chan, Shi and Song (2011, Algorithm 4): a logarithmic counter plus
one binary tree per epoch, batched over streams.

Its budget split, tree cost, guarantee and error bound are in ``budget.py`` of this package.

References
----------
.. [CSS11] Chan, Shi and Song, "Private and continual release of statistics", ACM TISSEC 14(3),
   2011: Algorithm 4.
.. [TD16] Tossou and Dimitrakakis, "Algorithms for differentially private multi-armed bandits",
   AAAI 2016, Section 2.3 and Lemma B.2.
"""
from __future__ import annotations

import numpy as np

from ..._arrays import per_stream, scalar_if_uniform, stream_shape
from ..._validation import (
    as_rng,
    check_choice,
    check_epsilon,
    check_positive,
    check_positive_int,
    check_probability,
    floor_log2,
    is_power_of_two,
)
from ...accounting import PureDP
from .._base import GuaranteeFor
from ._bits import popcount, stream_mask
from .binary import BinaryCounter
from .budget import hybrid_budget_split, hybrid_error_bound, hybrid_guarantee, tree_scale_factor
from .logarithmic import LogarithmicCounter

__all__ = ["HybridCounter"]


class HybridCounter(GuaranteeFor):
    r"""The hybrid mechanism of Chan, Shi and Song: logarithmic counter + one tree per epoch.

    At positions :math:`n = 2^k` the release is the logarithmic counter's; in between, it is
    that value plus the release of a binary counter with :math:`k` levels that is restarted at
    every power of two and covers positions :math:`2^k+1 \dots 2^{k+1}-1`. So it needs no
    horizon, and the error grows only polylogarithmically in n.

    Parameters
    ----------
    shape : int or tuple of ints
    epsilon : float or array broadcastable to ``shape``, > 0
    split : {"chan", "paper"}
        ``"chan"`` (default): each half gets epsilon/2, so the counter is epsilon-DP.
        ``"paper"``: each half gets epsilon, as in Tossou and Dimitrakakis (2016); standard
        accounting gives 2 epsilon, while the paper claims epsilon (``paper_claim``).
    tree_log_base : {2, "e"}
        Tree node scale :math:`k/\varepsilon_B` (base 2, Chan) or :math:`\ln(2^k)/\varepsilon_B`
        (natural log, as in the authors' public code); the guarantee accounts for it
        (:func:`tree_scale_factor`).
    rng : None, int or numpy Generator
    noise_multiplier : float
        Factor applied to every noise scale (default 1); below 1 builds a deliberately weakened
        counter, and ``guarantee`` reports the larger epsilon it really has.

    Attributes
    ----------
    log_ : LogarithmicCounter
    tree_ : BinaryCounter
        Restarted per stream at each power of two with ``levels = k``.

    Notes
    -----
    Standard accounting: an item enters one logarithmic block (epsilon_L) and at most k nodes
    of its epoch's tree (epsilon_B), so the counter is (epsilon_L + epsilon_B)-DP.
    The paper's Lemma B.2 argues that no composition is needed because each release reads only
    one of the two mechanisms; but a single item affects both its epoch's tree and every later
    logarithmic release, so we report the sum (reading ``reading-hybrid-composition`` of the
    book's appendix of readings and errata). :func:`hybrid_guarantee` composes the two parts.

    References
    ----------
    .. [CSS11] Chan, Shi and Song (2011), Algorithm 4.
    .. [TD16] Tossou and Dimitrakakis (2016), Section 2.3, Lemma B.2.

    Examples
    --------
    >>> h = HybridCounter(1, epsilon=1.0, split="paper", rng=0)
    >>> h.guarantee, h.paper_claim
    (PureDP(epsilon=2), PureDP(epsilon=1))
    >>> HybridCounter(1, epsilon=1.0).guarantee
    PureDP(epsilon=1)
    """

    _one_stream = (1,)                      # guarantee_for builds one stream

    def __init__(self, shape, *, epsilon, split: str = "chan", tree_log_base=2, rng=None,
                 noise_multiplier: float = 1.0):
        self.shape = stream_shape(shape)
        self.split = check_choice("split", split, ("chan", "paper"))
        self.tree_log_base = check_choice("tree_log_base", tree_log_base, (2, "e"))
        self.noise_multiplier = check_positive("noise_multiplier", noise_multiplier)
        eps = per_stream("epsilon", check_epsilon(epsilon, allow_inf=True), self.shape,
                          positive=False)
        self.epsilon = eps
        self.epsilon_log, self.epsilon_tree = hybrid_budget_split(eps, self.split)
        rng = as_rng(rng)
        self._rng = rng
        self.log_ = LogarithmicCounter(self.shape, epsilon=self.epsilon_log, rng=rng,
                                       noise_multiplier=self.noise_multiplier)
        self.tree_ = BinaryCounter(self.shape, epsilon=self.epsilon_tree, levels=0, rng=rng,
                                   noise_multiplier=self.noise_multiplier)
        self.count = np.zeros(self.shape, dtype=np.int64)

    def _tree_scale(self, k):
        """Node scale of the epoch-k tree: m c k / epsilon_B (c from :func:`tree_scale_factor`)."""
        return self.noise_multiplier * (tree_scale_factor(self.tree_log_base) * k
                                        / self.epsilon_tree)

    def step(self, x, where=None) -> np.ndarray:
        """Feed one item to every (selected) stream; returns the releases, shape ``shape``."""
        mask = stream_mask(where, self.shape)
        self.count = self.count + mask                              # n += 1
        self.log_.step(x, where=mask)                               # L.add(x)
        new_epoch = mask & is_power_of_two(self.count)                     # n = 2^k:
        if np.any(new_epoch):                                       # fresh tree, k levels
            k = floor_log2(np.maximum(self.count, 1))
            self.tree_.restart(where=new_epoch, levels=np.where(new_epoch, k, self.tree_.levels))
            self.tree_.scale = np.where(new_epoch, self._tree_scale(k), self.tree_.scale)
        self.tree_.step(x, where=mask & ~new_epoch)                 # else B.add(x)
        return self.output()

    def output(self) -> np.ndarray:
        """last_L at powers of two, last_L + B.output() in between."""
        return self.log_.output() + np.where(is_power_of_two(self.count), 0.0, self.tree_.output())

    def variance(self, n):
        r"""Error variance at position n:
        :math:`2[(k+1) b_L^2 + \mathrm{popcount}(n \bmod 2^k)\, b_B(k)^2]`, k = floor(log2 n)."""
        n = np.asarray(n, dtype=np.int64)
        k = floor_log2(np.maximum(n, 1))
        b_l = scalar_if_uniform(self.log_.scale)
        b_b = self.noise_multiplier * (tree_scale_factor(self.tree_log_base) * k
                                       / scalar_if_uniform(self.epsilon_tree))
        out = 2.0 * ((k + 1) * np.square(b_l) + popcount(n - (1 << k)) * np.square(b_b))
        return float(out) if np.ndim(out) == 0 else out

    def error_bound(self, n, gamma):
        """Paper's high-probability error bound nu(n, gamma) for this split (see
        :func:`hybrid_error_bound`)."""
        gamma = check_probability("gamma", gamma, open_low=True, open_high=True)
        tree_cost = 1.0 / tree_scale_factor(self.tree_log_base)
        m = self.noise_multiplier
        return hybrid_error_bound(n, gamma, epsilon_log=scalar_if_uniform(self.epsilon_log) / m,
                                  epsilon_tree=scalar_if_uniform(self.epsilon_tree) * tree_cost / m)

    @property
    def guarantee(self) -> PureDP:
        """Standard accounting: epsilon_L + epsilon_B' (epsilon for "chan", 2 epsilon for
        "paper"; the natural-log tree costs epsilon_B / ln 2)."""
        return hybrid_guarantee(self.epsilon_log, self.epsilon_tree,
                                tree_log_base=self.tree_log_base,
                                noise_multiplier=self.noise_multiplier)

    @property
    def paper_claim(self) -> PureDP:
        """What Tossou and Dimitrakakis (Lemma B.2) claim: epsilon."""
        return PureDP(epsilon=scalar_if_uniform(self.epsilon))

    @staticmethod
    def noise_process(n_max: int, *, epsilon, split: str = "chan", tree_log_base=2, shape=(),
                      rng=None) -> np.ndarray:
        r"""Closed form of the release error at positions 1..n_max (Chan, Shi and Song 2011,
        Algorithm 4, written as a noise process):
        :math:`b_L\sum_{i=0}^{k}\xi_i + b_B(k)\sum_{j<k}\mathrm{bit}_j(n)\,\eta_{j,n\gg j}`.

        Node ids of different epochs never collide (:math:`n \gg j = 2^{k-j} + (\tau \gg j)`),
        so one table of :math:`\eta_{j,m}` serves every epoch. Shape ``shape + (n_max,)``.
        """
        n_max = check_positive_int("n_max", n_max)
        factor = tree_scale_factor(tree_log_base)
        eps = np.asarray(check_epsilon(epsilon, allow_inf=True), dtype=float)
        eps_half, _ = hybrid_budget_split(eps, split)
        rng = as_rng(rng)
        shape = stream_shape(shape) if shape != () else ()
        n = np.arange(1, n_max + 1)
        k = floor_log2(n)
        log_part = LogarithmicCounter.noise_process(n_max, epsilon=eps_half, shape=shape, rng=rng)
        tree = np.zeros(shape + (n_max,))
        for j in range(int(k[-1])):
            eta = rng.laplace(0.0, 1.0, size=shape + ((n_max >> j) + 1,))
            use = (((n >> j) & 1).astype(bool)) & (j < k)
            tree[..., use] += eta[..., n[use] >> j]
        b_tree = factor * k / np.asarray(eps_half)[..., None]
        return log_part + b_tree * tree
