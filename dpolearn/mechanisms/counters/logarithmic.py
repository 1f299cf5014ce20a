r"""The logarithmic counter of Chan, Shi and Song (2011, Algorithm 3), batched over streams.

References
----------
.. [CSS11] Chan, Shi and Song, "Private and continual release of statistics", ACM TISSEC 14(3),
   2011: Algorithm 3.
"""
from __future__ import annotations

import numpy as np

from ..._arrays import per_stream, scalar_if_uniform, stream_shape
from ..._validation import (
    as_rng,
    check_epsilon,
    check_positive,
    check_positive_int,
    floor_log2,
    is_power_of_two,
)
from ...accounting import PureDP
from .._base import GuaranteeFor
from ._bits import stream_mask

__all__ = ["LogarithmicCounter"]


class LogarithmicCounter(GuaranteeFor):
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

    _one_stream = (1,)                      # guarantee_for builds one stream

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
        mask = stream_mask(where, self.shape)
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
