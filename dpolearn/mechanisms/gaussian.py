"""The Gaussian mechanism."""
from __future__ import annotations

import math

import numpy as np

from .._validation import as_rng, check_delta, check_epsilon, check_positive
from ..accounting import GaussianDP
from ._base import GuaranteeFor
from .ledger import report_release

__all__ = ["GaussianMechanism"]


class GaussianMechanism(GuaranteeFor):
    r"""Release ``value + N(0, sigma^2)``.

    Parameters
    ----------
    sigma : float
        Standard deviation of the noise, > 0.
    sensitivity : float
        Largest L2 change of the released value between neighbouring inputs, > 0.
    noise_multiplier : float
        Factor applied to sigma when drawing (default 1); below 1 builds a deliberately
        weakened mechanism whose ``guarantee`` reports the larger mu it really has.

    Notes
    -----
    Telling ``value`` from ``value + sensitivity`` through this release is exactly the test of
    N(0, 1) against N(mu, 1) with ``mu = sensitivity / sigma``, so the mechanism is
    mu-GDP (Dong, Roth and Su 2022, Theorem 2.7); ``guarantee`` reports ``GaussianDP(mu)``.
    Use :meth:`classical` for the textbook (epsilon, delta) calibration
    ``sigma = sensitivity * sqrt(2 ln(1.25/delta)) / epsilon`` (valid for epsilon < 1, Dwork
    and Roth 2014, Theorem A.1); its ``guarantee`` is still the exact GDP record, which implies
    the requested (epsilon, delta).

    Examples
    --------
    >>> GaussianMechanism(sigma=2.0).guarantee
    GaussianDP(mu=0.5)
    """

    def __init__(self, *, sigma, sensitivity: float = 1.0, noise_multiplier: float = 1.0):
        self.sigma = check_positive("sigma", sigma)
        self.sensitivity = check_positive("sensitivity", sensitivity)
        self.noise_multiplier = check_positive("noise_multiplier", noise_multiplier)

    @property
    def noise_scale(self):
        """Standard deviation actually drawn with: noise_multiplier * sigma."""
        return self.noise_multiplier * self.sigma

    @classmethod
    def classical(cls, *, epsilon: float, delta: float, sensitivity: float = 1.0):
        """The (epsilon, delta) calibration of Dwork and Roth (epsilon in (0, 1))."""
        epsilon = check_epsilon(epsilon)
        if epsilon >= 1:
            raise ValueError(f"epsilon must be < 1 for the classical calibration, got {epsilon!r}")
        delta = check_delta(delta)
        if delta == 0:
            raise ValueError(f"delta must be > 0 for the Gaussian mechanism, got {delta!r}")
        sensitivity = check_positive("sensitivity", sensitivity)
        return cls(sigma=sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon,
                   sensitivity=sensitivity)

    @property
    def mu(self):
        """sensitivity / noise_scale."""
        return self.sensitivity / self.noise_scale

    @property
    def guarantee(self) -> GaussianDP:
        return GaussianDP(mu=self.mu)

    def randomise(self, value, rng=None):
        value = np.asarray(value, dtype=float)
        sigma = self.noise_scale
        out = value + sigma * as_rng(rng).standard_normal(np.broadcast(value, sigma).shape)
        out = np.asarray(report_release("Gaussian mechanism", value, out, scale=sigma,
                                        sensitivity=self.sensitivity, noise="gaussian"))
        return float(out) if out.ndim == 0 else out

    def variance(self):
        return self.noise_scale ** 2

    def bias(self) -> float:
        return 0.0

    def privacy_loss(self, y, value, neighbour_value):
        """log p_value(y) - log p_neighbour(y); Gaussian with mean mu^2/2 under ``value``."""
        y = np.asarray(y, dtype=float)
        return ((y - neighbour_value) ** 2 - (y - value) ** 2) / (2 * self.noise_scale ** 2)

    def __repr__(self) -> str:
        extra = ("" if self.noise_multiplier == 1.0
                 else f", noise_multiplier={self.noise_multiplier!r}")
        return (f"GaussianMechanism(sigma={self.sigma!r}, sensitivity={self.sensitivity!r}"
                f"{extra})")
