"""The Laplace mechanism."""
from __future__ import annotations

import numpy as np

from .._validation import as_rng, check_epsilon, check_positive
from ..accounting import PureDP

__all__ = ["LaplaceMechanism"]


class LaplaceMechanism:
    r"""Release ``value + Lap(sensitivity / epsilon)``.

    Parameters
    ----------
    epsilon : float or array-like
        Privacy parameter, > 0 (an array gives one mechanism per row of a batch).
    sensitivity : float
        Largest change of the released value between neighbouring inputs (L1), > 0.

    Notes
    -----
    For neighbouring inputs with values ``v`` and ``v'``, ``|v - v'| <= sensitivity``, the
    output densities satisfy :math:`p_v(y)/p_{v'}(y) = \exp((|y-v'|-|y-v|)\,\varepsilon/\Delta)
    \le e^{\varepsilon}`, so the release is epsilon-DP (Dwork, McSherry, Nissim and Smith 2006).
    In the bandit chapters the value is a sum of rewards in [0, 1] and one round's reward is
    replaced, so the sensitivity is 1.

    Examples
    --------
    >>> mech = LaplaceMechanism(epsilon=0.5)
    >>> mech.scale, mech.variance(), mech.guarantee
    (2.0, 8.0, PureDP(epsilon=0.5))
    """

    def __init__(self, *, epsilon, sensitivity: float = 1.0):
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = check_positive("sensitivity", sensitivity)

    @property
    def scale(self):
        """Laplace scale b = sensitivity / epsilon."""
        return self.sensitivity / self.epsilon

    @property
    def guarantee(self) -> PureDP:
        return PureDP(epsilon=self.epsilon)

    def randomise(self, value, rng=None):
        """Noisy release of ``value`` (float or array); ``rng`` is a seed or Generator."""
        value = np.asarray(value, dtype=float)
        noise = as_rng(rng).laplace(0.0, 1.0, size=np.broadcast(value, self.scale).shape)
        out = value + self.scale * noise
        return float(out) if out.ndim == 0 else out

    def variance(self):
        """Variance of the noise, 2 b^2."""
        return 2.0 * self.scale ** 2

    def bias(self) -> float:
        return 0.0

    def log_density(self, y, value):
        """Log density of the output ``y`` when the true value is ``value``."""
        b = self.scale
        return -np.log(2 * b) - np.abs(np.asarray(y, dtype=float) - value) / b

    def privacy_loss(self, y, value, neighbour_value):
        """Privacy loss log p_value(y) - log p_neighbour(y) at output ``y``."""
        return self.log_density(y, value) - self.log_density(y, neighbour_value)

    def tail_bound(self, beta: float):
        """Half-width w with P(|noise| > w) = beta exactly: b ln(1 / beta)."""
        from .._validation import check_probability

        beta = check_probability("beta", beta, open_low=True, open_high=True)
        return self.scale * np.log(1.0 / beta)

    def __repr__(self) -> str:
        return f"LaplaceMechanism(epsilon={self.epsilon!r}, sensitivity={self.sensitivity!r})"
