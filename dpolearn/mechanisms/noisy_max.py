"""Report-noisy-max and the exponential mechanism."""
from __future__ import annotations

import numpy as np
from scipy import integrate, special, stats

from .._validation import as_rng, check_choice, check_epsilon, check_positive
from ..accounting import PureDP

__all__ = ["ReportNoisyMax", "ExponentialMechanism", "NOISE_FAMILIES"]

#: Noise families of report-noisy-max: frozen scipy distributions with unit scale.
NOISE_FAMILIES = {
    "laplace": stats.laplace(),
    "exponential": stats.expon(),
    "gumbel": stats.gumbel_r(),
}


class ReportNoisyMax:
    r"""Report the index of the largest noisy score, ``argmax_j (s_j + Z_j)``.

    Parameters
    ----------
    epsilon : float, optional
        Target privacy parameter; sets ``scale = c * sensitivity / epsilon`` with ``c = 1`` for
        monotone scores and ``c = 2`` otherwise. Give either ``epsilon`` or ``scale``.
    scale : float, optional
        Noise scale b, > 0; the guarantee is then computed from it.
    noise : {"laplace", "exponential", "gumbel"}
        Law of the i.i.d. noise Z_j (Laplace(b), one-sided Exp(b) or Gumbel(b)).
    sensitivity : float
        Largest change of any single score between neighbouring inputs.
    monotone : bool
        True when, between neighbours, all scores move in the same direction (counting queries).

    Notes
    -----
    With general (two-sided) score changes of at most Delta, each of the three noise families at
    scale b gives (2 Delta / b)-DP; with monotone changes, (Delta / b)-DP (Dwork and Roth 2014,
    Claim 3.9; Gumbel noise is the exponential mechanism; exponential noise is permute-and-flip,
    McKenna and Sheldon 2020). In the experts setting one round's whole loss vector may be
    replaced, so scores (cumulative losses) move in arbitrary directions: ``monotone=False`` is
    the honest choice there. The 2x is not slack: :func:`dpolearn.audit` style exact computations
    with :meth:`selection_probabilities` show the loss approaching 2 Delta / b.

    Examples
    --------
    >>> rnm = ReportNoisyMax(epsilon=1.0)
    >>> rnm.scale, rnm.guarantee
    (2.0, PureDP(epsilon=1))
    >>> ReportNoisyMax(scale=1.0, noise="gumbel").guarantee
    PureDP(epsilon=2)
    """

    def __init__(self, *, epsilon=None, scale=None, noise: str = "laplace",
                 sensitivity: float = 1.0, monotone: bool = False):
        self.noise = check_choice("noise", noise, tuple(NOISE_FAMILIES))
        self.sensitivity = check_positive("sensitivity", sensitivity)
        self.monotone = bool(monotone)
        factor = 1.0 if self.monotone else 2.0
        if (epsilon is None) == (scale is None):
            raise ValueError(f"give exactly one of epsilon and scale, got epsilon={epsilon!r}, scale={scale!r}")
        if epsilon is not None:
            self.scale = factor * self.sensitivity / check_epsilon(epsilon)
        else:
            self.scale = check_positive("scale", scale)

    @property
    def guarantee(self) -> PureDP:
        factor = 1.0 if self.monotone else 2.0
        return PureDP(epsilon=factor * self.sensitivity / self.scale)

    def sample_noise(self, shape, rng) -> np.ndarray:
        rng = as_rng(rng)
        if self.noise == "laplace":
            z = rng.laplace(0.0, 1.0, size=shape)
        elif self.noise == "exponential":
            z = rng.standard_exponential(size=shape)
        else:
            z = rng.gumbel(0.0, 1.0, size=shape)
        return self.scale * z

    def select(self, scores, rng=None) -> np.ndarray:
        """Index of the noisy maximum along the last axis (ties: lowest index)."""
        scores = np.asarray(scores, dtype=float)
        return np.argmax(scores + self.sample_noise(scores.shape, rng), axis=-1)

    def selection_probabilities(self, scores) -> np.ndarray:
        r"""Exact P(argmax = i) for a 1-D score vector, shape (K,).

        Gumbel noise has the closed form softmax(s / b). For Laplace and exponential noise,
        :math:`P(i) = \int f(z)\prod_{j\ne i} F((s_i - s_j)/b + z)\,dz` by quadrature.
        """
        s = np.asarray(scores, dtype=float)
        if s.ndim != 1 or s.size < 2:
            raise ValueError(f"scores must be a 1-D array with K >= 2 entries, got shape {s.shape}")
        x = s / self.scale
        if self.noise == "gumbel":
            return special.softmax(x)
        dist = NOISE_FAMILIES[self.noise]
        lo, hi = dist.support()
        probs = np.empty(s.size)
        for i in range(s.size):
            diff = x[i] - np.delete(x, i)

            def integrand(z, diff=diff):
                return dist.pdf(z) * np.prod(dist.cdf(diff + z))

            # Split the integral at the kinks of the integrand for an accurate quadrature.
            kinks = sorted({0.0, *(-diff).tolist()})
            edges = [max(lo, -60.0)] + [k for k in kinks if lo < k < 60.0] + [60.0]
            probs[i] = sum(integrate.quad(integrand, a, b, epsabs=1e-13, epsrel=1e-11, limit=200)[0]
                           for a, b in zip(edges[:-1], edges[1:]))
        return probs / probs.sum()

    def __repr__(self) -> str:
        return (f"ReportNoisyMax(scale={self.scale!r}, noise={self.noise!r}, "
                f"sensitivity={self.sensitivity!r}, monotone={self.monotone!r})")


class ExponentialMechanism:
    r"""Sample index j with probability proportional to exp(epsilon u_j / (c Delta)).

    ``c = 2`` in general and ``c = 1`` for monotone utilities (McSherry and Talwar 2007). It is
    report-noisy-max with Gumbel noise of scale c Delta / epsilon, and is sampled that way.

    Examples
    --------
    >>> em = ExponentialMechanism(epsilon=2.0)
    >>> em.probabilities([0.0, 1.0]).round(4).tolist()
    [0.2689, 0.7311]
    """

    def __init__(self, *, epsilon, sensitivity: float = 1.0, monotone: bool = False):
        self.epsilon = check_epsilon(epsilon)
        self._rnm = ReportNoisyMax(epsilon=self.epsilon, noise="gumbel",
                                   sensitivity=sensitivity, monotone=monotone)

    @property
    def guarantee(self) -> PureDP:
        return PureDP(epsilon=self.epsilon)

    def probabilities(self, utilities) -> np.ndarray:
        u = np.asarray(utilities, dtype=float)
        return special.softmax(u / self._rnm.scale, axis=-1)

    def select(self, utilities, rng=None) -> np.ndarray:
        return self._rnm.select(utilities, rng)
