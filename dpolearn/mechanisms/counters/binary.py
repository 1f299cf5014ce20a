r"""The binary (tree) counter of Chan, Shi and Song (2011, Algorithm 2), batched over streams.

References
----------
.. [CSS11] Chan, Shi and Song, "Private and continual release of statistics", ACM TISSEC 14(3),
   2011: Algorithm 2 and Theorem 3.5.
"""
from __future__ import annotations

import numpy as np

from ..._arrays import per_stream, scalar_if_uniform, stream_shape
from ..._validation import as_rng, check_epsilon, check_positive, check_positive_int
from ...accounting import PureDP
from .._base import GuaranteeFor
from ..ledger import active_recorder, report_release
from ._bits import lowest_set_bit, popcount, stream_mask

__all__ = ["BinaryCounter"]


class BinaryCounter(GuaranteeFor):
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

    _one_stream = (1,)                      # guarantee_for builds one stream

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
        mask = stream_mask(where, self.shape)
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
        released = (self.alpha_hat * bits).sum(-1)
        if active_recorder() is None:
            return released
        # one item lies in at most `levels` nodes: the stream of outputs costs it the guarantee
        return report_release("binary counter", (self.alpha * bits).sum(-1), released,
                              cost=self._item_cost)

    def _item_cost(self) -> np.ndarray:
        """Epsilon of each stream, as :attr:`guarantee` states it (levels / noise_scale)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.levels > 0, self.levels / self.scale, 0.0)

    def restart(self, where=None, levels=None) -> None:
        """Empty the selected streams (all by default), optionally with a new number of levels.

        Later nodes of a restarted stream get fresh noise of scale ``levels / epsilon``.
        """
        mask = stream_mask(where, self.shape)
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
