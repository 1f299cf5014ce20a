"""The Laplace mechanism, and the one-draw release of a disjoint block sum."""
from __future__ import annotations

import numpy as np

from .._validation import as_rng, check_epsilon, check_interval, check_positive, scalar_or_array
from ..accounting import PureDP
from ._base import GuaranteeFor
from .ledger import report_release

__all__ = ["LaplaceMechanism", "laplace_block_release", "block_release_guarantee"]


def laplace_block_release(block_sums, scale, rng: np.random.Generator, *,
                          sensitivity=1.0, source: str = "Laplace block release") -> np.ndarray:
    r"""Release sums of disjoint blocks of rewards: ``block_sums + Lap(scale)``, one draw each.

    One reward in [0, 1] lies in exactly one block and moves its sum by at most 1, so with
    ``scale = 1/epsilon`` the releases are epsilon-DP together (Laplace mechanism per block,
    parallel composition over disjoint blocks; Dwork and Roth 2014, Theorem 3.6). This is the
    release of the lazy doubling mean (Hu, Huang, Mehta and Hegde, Algorithms 1 and 3), of
    DP-TS's logarithmic part (Hu and Hegde 2022, Algorithm 1) and of DP-SE and AdaP.

    Parameters
    ----------
    block_sums : float or array
        Exact sums of the blocks being released.
    scale : float or array broadcastable to ``block_sums``
        Laplace scale of each draw (sensitivity / epsilon, times any noise multiplier).
    rng : numpy Generator
    sensitivity : float or array broadcastable to ``block_sums``
        Largest change of one block's value when one reward changes (1 for a sum of rewards
        in [0, 1], ``1/n`` for a mean of n); reported to the release ledger
        (:mod:`dpolearn.mechanisms.ledger`) with the scale.
    source : str
        The mechanism's name in the release ledger.
    """
    released = block_sums + rng.laplace(0.0, scale)
    return report_release(source, block_sums, released, scale=scale, sensitivity=sensitivity)


def block_release_guarantee(scale, sensitivity=1.0) -> PureDP:
    """The record of :func:`laplace_block_release`: ``PureDP(sensitivity / scale)`` for all
    releases together (one Laplace draw per disjoint block, parallel composition).

    >>> block_release_guarantee(scale=2.0)
    PureDP(epsilon=0.5)
    """
    return PureDP(epsilon=np.asarray(sensitivity, dtype=float) / np.asarray(scale, dtype=float))


class LaplaceMechanism(GuaranteeFor):
    r"""Release ``value + Lap(noise_scale)`` with ``noise_scale = sensitivity / epsilon``.

    Parameters
    ----------
    epsilon : float or array-like
        Privacy parameter, > 0 (an array gives one mechanism per row of a batch).
    sensitivity : float
        Largest change of the released value between neighbouring inputs (L1), > 0.
    noise_multiplier : float
        Factor applied to the calibrated noise scale (default 1). A value below 1 builds a
        deliberately weakened mechanism; ``guarantee`` then reports the larger epsilon it
        really has, ``epsilon / noise_multiplier``.

    Notes
    -----
    For neighbouring inputs with values ``v`` and ``v'``, ``|v - v'| <= sensitivity``, the
    output densities satisfy :math:`p_v(y)/p_{v'}(y) = \exp((|y-v'|-|y-v|)/b)
    \le e^{\Delta/b}`, so the release is (Delta / b)-DP (Dwork, McSherry, Nissim and Smith
    2006). In the bandit chapters the value is a sum of rewards in [0, 1] and one round's
    reward is replaced, so the sensitivity is 1.

    Examples
    --------
    >>> mech = LaplaceMechanism(epsilon=0.5)
    >>> mech.noise_scale, mech.variance(), mech.guarantee
    (2.0, 8.0, PureDP(epsilon=0.5))
    >>> LaplaceMechanism(epsilon=0.5, noise_multiplier=0.5).guarantee
    PureDP(epsilon=1)
    """

    def __init__(self, *, epsilon, sensitivity: float = 1.0, noise_multiplier: float = 1.0):
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = check_positive("sensitivity", sensitivity)
        self.noise_multiplier = check_positive("noise_multiplier", noise_multiplier)

    @property
    def noise_scale(self):
        """Laplace scale actually drawn with: noise_multiplier * sensitivity / epsilon."""
        return self.noise_multiplier * (self.sensitivity / self.epsilon)

    @property
    def guarantee(self) -> PureDP:
        """``PureDP(sensitivity / noise_scale)``, i.e. epsilon / noise_multiplier."""
        return PureDP(epsilon=self.epsilon / self.noise_multiplier)

    def randomise(self, value, rng=None):
        """Noisy release of ``value`` (a finite float or array); ``rng`` is a seed or Generator."""
        value = np.asarray(check_interval("value", value))
        b = self.noise_scale
        noise = as_rng(rng).laplace(0.0, 1.0, size=np.broadcast(value, b).shape)
        out = value + b * noise
        out = report_release("Laplace mechanism", value, out, scale=b, sensitivity=self.sensitivity)
        return scalar_or_array(out)

    def variance(self):
        """Variance of the noise, 2 b^2."""
        return 2.0 * self.noise_scale ** 2

    def bias(self) -> float:
        return 0.0

    def log_density(self, y, value):
        """Log density of the output ``y`` when the true value is ``value``."""
        b = self.noise_scale
        return -np.log(2 * b) - np.abs(np.asarray(y, dtype=float) - value) / b

    def privacy_loss(self, y, value, neighbour_value):
        """Privacy loss log p_value(y) - log p_neighbour(y) at output ``y``."""
        return self.log_density(y, value) - self.log_density(y, neighbour_value)

    def __repr__(self) -> str:
        extra = ("" if self.noise_multiplier == 1.0
                 else f", noise_multiplier={self.noise_multiplier!r}")
        return (f"LaplaceMechanism(epsilon={self.epsilon!r}, sensitivity={self.sensitivity!r}"
                f"{extra})")
