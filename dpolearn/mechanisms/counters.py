r"""Private counting under continual observation: binary (tree), logarithmic and hybrid counters.

A continual-release counter reads a stream :math:`x_1, x_2, \dots` with :math:`x_i \in [0, 1]`
and after every item releases a noisy prefix sum :math:`\sum_{s \le n} x_s`, such that the whole
sequence of releases is differentially private with respect to changing one item.

Every counter here is **batched over independent streams**: its state arrays have a leading
``shape`` (e.g. ``(n_runs, n_arms)``: one stream per arm per run), and :meth:`step` advances all
streams, or only those selected by ``where``. Each class offers

* an incremental implementation that follows the algorithm box of Chan, Shi and Song (2011)
  line by line (``step``, ``output``);
* a closed form, ``noise_process``: the release at position n equals the true prefix sum plus a
  data-independent noise process, which can be drawn for all positions at once;
* ``variance(n)``, the analytic variance of the release error at stream position n;
* ``guarantee`` (standard accounting) and, where the paper claims more, ``paper_claim``.

:class:`CounterNoise` advances the same noise processes one stream per row (the pulled arm of
every run), which is what the DP-UCB bandits use for speed; the bandit then releases
"exact sum + noise", which is the closed form above.

References
----------
.. [CSS11] Chan, Shi and Song, "Private and continual release of statistics", ACM TISSEC 14(3),
   2011: Algorithm 2 (binary mechanism), Algorithm 3 (logarithmic), Algorithm 4 (hybrid).
.. [TD16] Tossou and Dimitrakakis, "Algorithms for differentially private multi-armed bandits",
   AAAI 2016, Section 2.3 and Lemma B.2.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from .._arrays import per_stream, scalar_if_uniform, stream_shape
from .._validation import (
    as_rng,
    check_choice,
    check_epsilon,
    check_positive,
    check_positive_int,
    check_probability,
    floor_log2,
    is_power_of_two,
)
from ..accounting import PureDP, compose

__all__ = ["BinaryCounter", "LogarithmicCounter", "HybridCounter", "CounterNoise",
           "lowest_set_bit", "popcount", "hybrid_error_bound", "tree_scale_factor",
           "hybrid_budget_split", "hybrid_guarantee"]


# ----------------------------------------------------------------------------------- helpers
def lowest_set_bit(n) -> np.ndarray:
    """Index i of the lowest set bit of each n >= 1 (``1 -> 0``, ``12 -> 2``)."""
    n = np.asarray(n, dtype=np.int64)
    return (np.frexp((n & -n).astype(float))[1] - 1).astype(np.int64)


def popcount(n) -> np.ndarray:
    """Number of set bits of each non-negative integer n."""
    n = np.asarray(n, dtype=np.int64).copy()
    count = np.zeros_like(n)
    while np.any(n):
        count += n & 1
        n >>= 1
    return count


def tree_scale_factor(tree_log_base) -> float:
    r"""Factor of the hybrid counter's tree node scale for a logarithm base.

    The epoch-k tree's nodes carry :math:`\mathrm{Lap}(c\,k/\varepsilon_B)` with c = 1 for
    base 2 (Chan, Shi and Song 2011) and :math:`c = \ln 2` for the natural logarithm
    (:math:`\ln(2^k) = k\ln 2`, as in Tossou and Dimitrakakis's public code; reading
    ``reading-natural-log-tree`` of the book's appendix of readings and errata). An item lies in
    at most k nodes, so the tree costs :math:`\varepsilon_B / c` (1/ln 2 = 1.44 times more
    for the natural logarithm). Every place that needs this factor calls this function.

    >>> tree_scale_factor(2), round(tree_scale_factor("e"), 6)
    (1.0, 0.693147)
    """
    check_choice("tree_log_base", tree_log_base, (2, "e"))
    return 1.0 if tree_log_base == 2 else math.log(2.0)


def hybrid_budget_split(epsilon, split: str):
    """``(epsilon_log, epsilon_tree)`` of the hybrid counter: halves for ``"chan"``, the whole
    epsilon twice for ``"paper"`` (Tossou and Dimitrakakis 2016)."""
    check_choice("split", split, ("chan", "paper"))
    half = epsilon / 2 if split == "chan" else epsilon
    return half, half


def hybrid_guarantee(epsilon_log, epsilon_tree, *, tree_log_base=2,
                     noise_multiplier=1.0) -> PureDP:
    r"""Standard accounting of the hybrid counter, composed from its two parts.

    The logarithmic counter is :math:`(\varepsilon_L/m)`-DP and the epoch trees
    :math:`(\varepsilon_B/(c\,m))`-DP (:func:`tree_scale_factor`, m the noise multiplier);
    one item enters both, so they compose (:func:`dpolearn.accounting.compose`).

    >>> hybrid_guarantee(0.5, 0.5)
    PureDP(epsilon=1)
    >>> round(float(hybrid_guarantee(1.0, 1.0, tree_log_base="e").epsilon), 4)
    2.4427
    """
    tree_cost = 1.0 / tree_scale_factor(tree_log_base)
    return compose(PureDP(epsilon=scalar_if_uniform(epsilon_log / noise_multiplier)),
                   PureDP(epsilon=scalar_if_uniform(tree_cost * epsilon_tree / noise_multiplier)))


def _where(where, shape) -> np.ndarray:
    if where is None:
        return np.ones(shape, dtype=bool)
    mask = np.asarray(where)
    if mask.dtype != bool:
        raise TypeError(f"where must be a boolean array, got dtype {mask.dtype}")
    return np.broadcast_to(mask, shape)


# ------------------------------------------------------------------------------ binary (tree)
class BinaryCounter:
    r"""The binary (tree) mechanism of Chan, Shi and Song, batched over streams.

    Item :math:`\tau` closes the p-sum (tree node) at level :math:`i` = lowest set bit of
    :math:`\tau`, which covers the last :math:`2^i` items; that p-sum is released once with
    fresh noise :math:`\mathrm{Lap}(b)`, :math:`b = L/\varepsilon`, and the noise is kept for
    every later release that uses the node. The release at :math:`\tau` is the sum of the noisy
    p-sums of the set bits of :math:`\tau`.

    Parameters
    ----------
    shape : int or tuple of ints
        Shape of the batch of independent streams, e.g. ``(n_runs, n_arms)``.
    epsilon : float or array broadcastable to ``shape``
        Privacy parameter of each stream's whole output sequence, > 0.
    levels : int or int array broadcastable to ``shape``
        Number of tree levels L >= 0; the counter accepts at most :math:`2^L - 1` items
        (Chan's "T-bounded" mechanism with :math:`T = 2^L`). Use
        ``levels = floor(log2 T) + 1`` for a stream of length T. 0 means an empty tree that
        accepts no item (the hybrid counter's first epoch).
    rng : None, int or numpy Generator
        Source of all noise.
    noise_scale : float or array, optional
        Override of the node noise scale b (default ``levels / epsilon``); the guarantee is then
        ``levels / noise_scale`` (used for the natural-log tree of the hybrid counter).
    noise_multiplier : float
        Factor applied to every noise scale (default 1); below 1 builds a deliberately weakened
        counter, and ``guarantee`` reports the larger epsilon it really has.

    Attributes
    ----------
    count : ndarray of int, shape ``shape``
        Items seen by each stream since its last (re)start, :math:`\tau`.
    alpha, alpha_hat : ndarray, shape ``shape + (max_levels,)``
        Exact and noisy p-sums (the algorithm box's :math:`\alpha_i`, :math:`\hat\alpha_i`).

    Notes
    -----
    Privacy: an item lies in at most L p-sums (one per level), each released once with
    Laplace noise of scale L/epsilon, so the whole output sequence is epsilon-DP under
    replacement of one item (basic composition over levels). ``guarantee`` reports
    ``PureDP(levels / noise_scale)``.

    Restarts: :meth:`restart` empties selected streams and may give them a new number of
    levels (and so a new noise scale), with fresh noise for every later node. This is the
    2^L-bounded restartable mechanism of DP-TS (Hu and Hegde 2022, Algorithm 1), where each
    arm's tree restarts at its block boundaries with ``levels = r + 1``.

    References
    ----------
    .. [CSS11] Chan, Shi and Song (2011), Algorithm 2 and Theorem 3.5.

    Examples
    --------
    >>> c = BinaryCounter(2, epsilon=1.0, levels=3, rng=0)
    >>> c.guarantee
    PureDP(epsilon=1)
    >>> c.variance(7)          # 3 nodes of Lap(3): 3 * 2 * 9
    54.0
    >>> import numpy as np
    >>> exact = BinaryCounter(1, epsilon=np.inf, levels=3)
    >>> [float(exact.step(1.0)[0]) for _ in range(4)]
    [1.0, 2.0, 3.0, 4.0]
    """

    def __init__(self, shape, *, epsilon, levels, rng=None, noise_scale=None,
                 noise_multiplier: float = 1.0):
        self.shape = stream_shape(shape)
        self.noise_multiplier = check_positive("noise_multiplier", noise_multiplier)
        eps = check_epsilon(epsilon, allow_inf=True)
        self.epsilon = per_stream("epsilon", eps, self.shape, positive=False)
        self.levels = self._check_levels(levels)
        self._fixed_scale = None
        if noise_scale is not None:
            scale = np.asarray(noise_scale, dtype=float)
            if np.any(~(scale >= 0)):
                raise ValueError(f"noise_scale must be >= 0, got {noise_scale!r}")
            self._fixed_scale = np.broadcast_to(scale, self.shape).copy()
        self._rng = as_rng(rng)
        width = max(int(self.levels.max()), 1)
        self.count = np.zeros(self.shape, dtype=np.int64)
        self.alpha = np.zeros(self.shape + (width,))
        self.alpha_hat = np.zeros(self.shape + (width,))
        self.scale = self._scale_for(self.levels)

    def _check_levels(self, levels) -> np.ndarray:
        arr = np.asarray(levels)
        if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
            raise TypeError(f"levels must be an int or an int array, got {levels!r}")
        if np.any(arr < 0):
            raise ValueError(f"levels must be >= 0, got {levels!r}")
        return np.broadcast_to(arr.astype(np.int64), self.shape).copy()

    def _scale_for(self, levels):
        if self._fixed_scale is not None:
            return self._fixed_scale.copy()
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.noise_multiplier * np.where(levels > 0, levels / self.epsilon, 0.0)

    @property
    def noise_scale(self) -> np.ndarray:
        """Node noise scale b of every stream, the one actually drawn with (read-only copy)."""
        return self.scale.copy()

    # -- the algorithm box -------------------------------------------------------------------
    def step(self, x, where=None) -> np.ndarray:
        """Feed one item to every stream (or to the streams where ``where`` is True).

        Parameters
        ----------
        x : float or array broadcastable to ``shape``
            The new items, in [0, 1].
        where : bool array broadcastable to ``shape``, optional

        Returns
        -------
        ndarray of shape ``shape``: the current release of every stream.
        """
        mask = _where(where, self.shape)
        x = np.broadcast_to(np.asarray(x, dtype=float), self.shape)
        tau = self.count + mask                                   # tau += 1
        if np.any(mask & (tau >= (1 << self.levels))):
            raise ValueError(f"stream longer than 2**levels - 1 items; levels = "
                             f"{int(self.levels[mask & (tau >= (1 << self.levels))][0])}")
        self.count = tau
        i = np.where(mask, lowest_set_bit(np.maximum(tau, 1)), 0)  # level of the closed node
        lev = np.arange(self.alpha.shape[-1])
        below = mask[..., None] & (lev < i[..., None])
        at = mask[..., None] & (lev == i[..., None])
        # alpha_i <- x + sum_{j<i} alpha_j ; alpha_j, alpha_hat_j <- 0 for j < i
        new_alpha = x + np.where(below, self.alpha, 0.0).sum(-1)
        self.alpha = np.where(below, 0.0, self.alpha)
        self.alpha_hat = np.where(below, 0.0, self.alpha_hat)
        self.alpha = np.where(at, new_alpha[..., None], self.alpha)
        # alpha_hat_i <- alpha_i + Lap(b): drawn once, kept until the node is discarded
        noise = self.scale * self._rng.laplace(0.0, 1.0, size=self.shape)
        self.alpha_hat = np.where(at, (new_alpha + noise)[..., None], self.alpha_hat)
        return self.output()

    def output(self) -> np.ndarray:
        """Current release: sum of the noisy p-sums of the set bits of ``count``."""
        lev = np.arange(self.alpha.shape[-1])
        bits = (self.count[..., None] >> lev) & 1
        return (self.alpha_hat * bits).sum(-1)

    def restart(self, where=None, levels=None) -> None:
        """Empty the selected streams (all by default), optionally with a new number of levels.

        Later nodes of a restarted stream get fresh noise of scale ``levels / epsilon``.
        """
        mask = _where(where, self.shape)
        if levels is not None:
            new = self._check_levels(levels)
            self.levels = np.where(mask, new, self.levels)
            width = int(self.levels.max())
            if width > self.alpha.shape[-1]:
                pad = [(0, 0)] * len(self.shape) + [(0, width - self.alpha.shape[-1])]
                self.alpha = np.pad(self.alpha, pad)
                self.alpha_hat = np.pad(self.alpha_hat, pad)
            self.scale = np.where(mask, self._scale_for(self.levels), self.scale)
        self.count = np.where(mask, 0, self.count)
        self.alpha = np.where(mask[..., None], 0.0, self.alpha)
        self.alpha_hat = np.where(mask[..., None], 0.0, self.alpha_hat)

    # -- analytic companions ------------------------------------------------------------------
    def variance(self, n):
        r"""Variance of the release error at stream position n,
        :math:`2 b^2\,\mathrm{popcount}(n)`."""
        out = 2.0 * np.square(scalar_if_uniform(self.scale)) * popcount(n)
        return float(out) if np.ndim(out) == 0 else out

    @property
    def guarantee(self) -> PureDP:
        """``PureDP(levels / noise_scale)`` for each stream (epsilon unless overridden)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            eps = np.where(self.levels > 0, self.levels / self.scale, 0.0)
        return PureDP(epsilon=scalar_if_uniform(eps))

    @staticmethod
    def noise_process(n_max: int, *, levels: int, epsilon=None, noise_scale=None, shape=(),
                      rng=None) -> np.ndarray:
        r"""Closed form: the release error at positions 1..n_max, drawn all at once.

        With :math:`\eta_{j,m}` i.i.d. Lap(1), one per node (level j, node id m), the release
        at :math:`\tau` is :math:`\sum_{s\le\tau} x_s + b\sum_{j:\,\mathrm{bit}_j(\tau)=1}
        \eta_{j,\tau \gg j}` (Chan, Shi and Song 2011, Algorithm 2, written as a noise process).
        Returns an array of shape
        ``shape + (n_max,)``; add ``np.cumsum(x, -1)`` to get the releases.
        """
        n_max = check_positive_int("n_max", n_max)
        levels = check_positive_int("levels", levels, minimum=0)
        if n_max >= 1 << levels:
            raise ValueError(f"n_max must be <= 2**levels - 1 = {(1 << levels) - 1}, got {n_max}")
        shape = stream_shape(shape) if shape != () else ()
        if noise_scale is None:
            if epsilon is None:
                raise TypeError("noise_process needs epsilon or noise_scale")
            eps = np.asarray(check_epsilon(epsilon, allow_inf=True), dtype=float)
            noise_scale = levels / eps
        b = np.asarray(noise_scale, dtype=float)[..., None]
        rng = as_rng(rng)
        tau = np.arange(1, n_max + 1)
        out = np.zeros(shape + (n_max,))
        for j in range(levels):
            eta = rng.laplace(0.0, 1.0, size=shape + ((n_max >> j) + 1,))
            bit = ((tau >> j) & 1).astype(bool)
            out[..., bit] += eta[..., tau[bit] >> j]
        return b * out


# ------------------------------------------------------------------------------- logarithmic
class LogarithmicCounter:
    r"""The logarithmic mechanism of Chan, Shi and Song, batched over streams.

    The running sum :math:`\beta` absorbs every item; at each power of two it also absorbs a
    fresh :math:`\mathrm{Lap}(1/\varepsilon)` that **stays** in :math:`\beta`, and only then is
    :math:`\beta` released. Between powers of two the last release is repeated.

    Parameters
    ----------
    shape : int or tuple of ints
    epsilon : float or array broadcastable to ``shape``, > 0
    rng : None, int or numpy Generator
    noise_multiplier : float
        Factor applied to every noise scale (default 1); below 1 builds a deliberately weakened
        counter, and ``guarantee`` reports the larger epsilon it really has.

    Notes
    -----
    The released values are the noisy sums of the disjoint blocks
    :math:`(2^{i-1}, 2^i]` (and of item 1), each an epsilon-DP Laplace release of
    sensitivity 1; an item is in one block, so the sequence is epsilon-DP. A variant that draws
    fresh noise at each power of two (instead of accumulating it) releases noisy values of
    overlapping sums and is *not* epsilon-DP (reading ``reading-log-counter-noise`` of the
    book's appendix of readings and errata); it is not offered.

    References
    ----------
    .. [CSS11] Chan, Shi and Song (2011), Algorithm 3.

    Examples
    --------
    >>> c = LogarithmicCounter(1, epsilon=0.5, rng=0)
    >>> c.variance(8)        # 4 Laplace(2) draws: 4 * 2 * 4
    32.0
    """

    def __init__(self, shape, *, epsilon, rng=None, noise_multiplier: float = 1.0):
        self.shape = stream_shape(shape)
        self.noise_multiplier = check_positive("noise_multiplier", noise_multiplier)
        self.epsilon = per_stream("epsilon", check_epsilon(epsilon, allow_inf=True),
                                   self.shape, positive=False)
        self.scale = self.noise_multiplier * (1.0 / self.epsilon)
        self._rng = as_rng(rng)
        self.count = np.zeros(self.shape, dtype=np.int64)
        self.beta = np.zeros(self.shape)
        self.released = np.zeros(self.shape)

    def step(self, x, where=None) -> np.ndarray:
        """Feed one item; returns the current (last released) value of every stream."""
        mask = _where(where, self.shape)
        x = np.broadcast_to(np.asarray(x, dtype=float), self.shape)
        self.count = self.count + mask                            # n += 1
        self.beta = self.beta + np.where(mask, x, 0.0)            # beta += x
        release = mask & is_power_of_two(self.count)                     # n a power of 2:
        noise = self.scale * self._rng.laplace(0.0, 1.0, size=self.shape)
        self.beta = np.where(release, self.beta + noise, self.beta)   # beta += Lap(1/eps)
        self.released = np.where(release, self.beta, self.released)   # output beta
        return self.output()

    def output(self) -> np.ndarray:
        """The value released at the last power of two <= count (0 before any item)."""
        return self.released.copy()

    def variance(self, n):
        r"""Noise variance of the release at the last power of two :math:`2^k \le n`:
        :math:`2(k+1)/\varepsilon^2`."""
        k = floor_log2(np.maximum(np.asarray(n), 1))
        out = 2.0 * (k + 1) * np.square(scalar_if_uniform(self.scale))
        return float(out) if np.ndim(out) == 0 else out

    @property
    def noise_scale(self) -> np.ndarray:
        """Laplace scale of each power-of-two draw, the one actually used (read-only copy)."""
        return self.scale.copy()

    @property
    def guarantee(self) -> PureDP:
        return PureDP(epsilon=scalar_if_uniform(1.0 / self.scale))

    @staticmethod
    def noise_process(n_max: int, *, epsilon, shape=(), rng=None) -> np.ndarray:
        r"""Closed form of the noise at positions 1..n_max of the *last release*:
        :math:`\frac1\varepsilon\sum_{i=0}^{\lfloor\log_2 n\rfloor}\xi_i`, shape
        ``shape + (n_max,)``."""
        n_max = check_positive_int("n_max", n_max)
        b = 1.0 / np.asarray(check_epsilon(epsilon, allow_inf=True), dtype=float)
        rng = as_rng(rng)
        shape = stream_shape(shape) if shape != () else ()
        k = floor_log2(np.arange(1, n_max + 1))
        xi = rng.laplace(0.0, 1.0, size=shape + (int(k[-1]) + 1,))
        return np.asarray(b)[..., None] * np.cumsum(xi, axis=-1)[..., k]


# ------------------------------------------------------------------------------------ hybrid
def hybrid_error_bound(n, gamma, *, epsilon_log, epsilon_tree):
    r"""High-probability error bound of the hybrid counter (Tossou and Dimitrakakis, eq. 2.2).

    :math:`\nu(n,\gamma) = \sqrt8\ln(4/\gamma)\,[1/\varepsilon_L
    + \mathbb 1\{n \text{ not a power of } 2\}\log_2(n)/\varepsilon_B]`; with
    :math:`\varepsilon_L = \varepsilon_B = \varepsilon` and :math:`\gamma = t^{-4}` this is the
    :math:`\nu_a` of their Algorithm 1; it follows from Chan, Shi and Song (2011),
    Corollary 2.9.
    """
    n = np.asarray(n, dtype=np.int64)
    tree = np.where(is_power_of_two(n), 0.0, np.log2(np.maximum(n, 1)))
    return np.sqrt(8.0) * np.log(4.0 / np.asarray(gamma, dtype=float)) * (
        1.0 / np.asarray(epsilon_log) + tree / np.asarray(epsilon_tree))


class HybridCounter:
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
        mask = _where(where, self.shape)
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


# --------------------------------------------------------------- fast path for the bandits
def _bit_tables(n_max: int):
    """Lookup tables for 0..n_max: lowest set bit, floor(log2), power-of-two flag."""
    n = np.arange(n_max + 1, dtype=np.int64)
    n[0] = 1
    return lowest_set_bit(n), floor_log2(n), is_power_of_two(n)


class CounterNoise:
    r"""The noise process of a hybrid or binary counter, advanced one stream per row.

    A bandit feeds the pulled arm's counter only; this object keeps, for every
    ``(run, arm)`` stream, the current release error (the closed form of the counter:
    release = exact prefix sum + this noise), and updates it with a few numpy operations per
    round for all runs together. It draws exactly the noises of the counter it mirrors:
    node noises that are kept while their node is in use, and (hybrid) one logarithmic noise per
    power of two that stays forever.

    Parameters
    ----------
    n_rows, n_cols : int
        Batch shape ``(n_runs, n_arms)``.
    kind : {"hybrid", "binary"}
    epsilon_log, epsilon_tree : array of shape (n_rows, 1) or float
        Budgets of the two halves (hybrid), or ``epsilon_tree`` only (binary).
    levels : int
        Binary kind only: the tree's number of levels (node scale ``levels/epsilon_tree``).
    tree_log_base : {2, "e"}
    rng : numpy Generator
    noise_multiplier : float
        Factor applied to every noise scale (default 1); below 1 builds a deliberately weakened
        counter, and ``guarantee`` reports the larger epsilon it really has.

    Attributes
    ----------
    noise : ndarray of shape (n_rows, n_cols)
        Current release error of every stream.
    b_log : ndarray of shape (n_rows,)
        Hybrid kind: Laplace scale of the logarithmic draws.
    b_node : ndarray of shape (n_rows,)
        Binary kind: Laplace scale of the tree nodes.
    count : ndarray of int, shape (n_rows, n_cols)

    Notes
    -----
    Tests check that its output has the distribution of :class:`HybridCounter` /
    :class:`BinaryCounter` at every position (``tests/test_counters.py``). Node noise of
    level j is stored in ``node[..., j]`` while bit j of the count is set, so the tree part of
    the error is ``node.sum(-1)``. When the count reaches n with lowest set bit i, the nodes
    below i are discarded and node i is drawn; at a power of two (hybrid) the tree is empty and
    the draw goes to the logarithmic part instead.
    """

    _CHUNK = 2048

    def __init__(self, n_rows: int, n_cols: int, *, kind: str, epsilon_tree, epsilon_log=None,
                 levels: Optional[int] = None, tree_log_base=2, rng=None,
                 noise_multiplier: float = 1.0):
        self.kind = check_choice("kind", kind, ("hybrid", "binary"))
        self.tree_log_base = check_choice("tree_log_base", tree_log_base, (2, "e"))
        self.noise_multiplier = m = check_positive("noise_multiplier", noise_multiplier)
        self._rng = as_rng(rng)
        self.eps_tree = np.broadcast_to(np.asarray(epsilon_tree, dtype=float), (n_rows, 1))[:, 0]
        if kind == "hybrid":
            self.eps_log = np.broadcast_to(np.asarray(epsilon_log, dtype=float), (n_rows, 1))[:, 0]
            self.b_log = m * (1.0 / self.eps_log)
            factor = tree_scale_factor(tree_log_base)
            self._inv_eps_tree = m * (factor / self.eps_tree)   # tree scale = k * this
            width = 20
        else:
            self.levels = check_positive_int("levels", levels)
            self.b_node = m * (self.levels / self.eps_tree)
            width = self.levels
        self.count = np.zeros((n_rows, n_cols), dtype=np.int64)
        self.node = np.zeros((n_rows, n_cols, width))     # scaled node noises of set bits
        self.log_noise = np.zeros((n_rows, n_cols))
        self.noise = np.zeros((n_rows, n_cols))           # current release error
        self._grow_tables(1 << 12)
        self._buf = np.empty((0, 0))
        self._pos = 0

    @property
    def guarantee(self) -> PureDP:
        """The guarantee of the counters this noise mirrors: :func:`hybrid_guarantee`, or
        ``PureDP(epsilon_tree / noise_multiplier)`` for the binary kind (one item lies in at
        most ``levels`` nodes of scale ``levels / epsilon_tree``)."""
        if self.kind == "hybrid":
            return hybrid_guarantee(self.eps_log, self.eps_tree, tree_log_base=self.tree_log_base,
                                    noise_multiplier=self.noise_multiplier)
        return PureDP(epsilon=scalar_if_uniform(self.eps_tree / self.noise_multiplier))

    def tree_noise_scale(self, k) -> np.ndarray:
        """Laplace scale of the tree nodes actually drawn, per row: ``k * m c / epsilon_tree``
        for the epoch-k tree (hybrid) or ``m * levels / epsilon_tree`` (binary, k ignored)."""
        if self.kind == "binary":
            return self.b_node.copy()
        return k * self._inv_eps_tree

    def _grow_tables(self, n_max):
        self._lowbit, self._log2, self._pow2 = _bit_tables(n_max)
        width = self.node.shape[-1]
        keep = np.arange(width)[None, :] >= np.arange(width + 1)[:, None]
        self._keep = keep.astype(float)                  # keep[i, j] = 1 if j >= i

    def _draw(self, size: int) -> np.ndarray:
        """Lap(1) draws, taken from pre-drawn blocks (same distribution, fewer calls)."""
        if self._pos >= self._buf.shape[0] or self._buf.shape[1] != size:
            self._buf = self._rng.laplace(0.0, 1.0, size=(self._CHUNK, size))
            self._pos = 0
        out = self._buf[self._pos]
        self._pos += 1
        return out

    def _ensure(self, n_max: int) -> None:
        if self.kind == "binary" and n_max >= 1 << self.levels:
            raise ValueError(f"stream longer than 2**levels - 1 = {(1 << self.levels) - 1}")
        if n_max >= len(self._lowbit):
            need = int(floor_log2(n_max)) + 2
            if need > self.node.shape[-1]:
                self.node = np.ascontiguousarray(
                    np.pad(self.node, [(0, 0), (0, 0), (0, need - self.node.shape[-1])]))
            self._grow_tables(max(2 * n_max, 2 * len(self._lowbit)))

    def advance(self, rows: np.ndarray, cols: np.ndarray) -> None:
        """One more item in stream ``(rows[r], cols[r])`` for each r; updates ``noise``."""
        flat = rows * self.count.shape[1] + cols           # one index array: faster gathers
        count, node_all = self.count.reshape(-1), self.node.reshape(-1, self.node.shape[-1])
        n = count[flat] + 1
        count[flat] = n
        n_top = n.max()
        if n_top >= len(self._lowbit) or (self.kind == "binary" and n_top >= 1 << self.levels):
            self._ensure(int(n_top))
            node_all = self.node.reshape(-1, self.node.shape[-1])
        i = self._lowbit[n]
        node = node_all[flat] * self._keep[i]             # discard the nodes below level i
        draw = self._draw(len(flat))
        r = np.arange(len(flat))
        noise = self.noise.reshape(-1)
        if self.kind == "binary":
            node[r, i] = self.b_node[rows] * draw         # new p-sum node at level i
            noise[flat] = node.sum(1)
        else:
            pow2 = self._pow2[n]                          # new epoch: empty tree, and
            node[r, i] = np.where(pow2, 0.0, self._log2[n] * self._inv_eps_tree[rows] * draw)
            log_all = self.log_noise.reshape(-1)
            log = log_all[flat] + np.where(pow2, self.b_log[rows] * draw, 0.0)
            log_all[flat] = log                           # the log noise stays forever
            noise[flat] = log + node.sum(1)
        node_all[flat] = node

    def advance_all(self) -> None:
        """One more item in every stream, when all streams have the same count (DP-UCB)."""
        n = int(self.count[0, 0]) + 1
        if np.any(self.count != n - 1):
            raise ValueError("advance_all needs equal counts in every stream")
        self._ensure(n)
        self.count += 1
        i = int(self._lowbit[n])
        self.node[:, :, :i] = 0.0
        draw = self._draw(self.count.size).reshape(self.count.shape)
        if self.kind == "binary":
            self.node[:, :, i] = self.b_node[:, None] * draw
            self.noise = self.node.sum(-1)
        elif self._pow2[n]:
            self.node[:, :, i] = 0.0
            self.log_noise += self.b_log[:, None] * draw
            self.noise = self.log_noise.copy()
        else:
            self.node[:, :, i] = int(self._log2[n]) * self._inv_eps_tree[:, None] * draw
            self.noise = self.log_noise + self.node.sum(-1)
