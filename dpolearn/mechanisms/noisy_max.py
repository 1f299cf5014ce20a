"""Report-noisy-max and the exponential mechanism, with their exact selection laws."""
from __future__ import annotations

import numpy as np
from scipy import special, stats

from .._validation import (
    as_rng,
    check_bool,
    check_choice,
    check_epsilon,
    check_interval,
    check_positive,
)
from ..accounting import PureDP
from ._base import GuaranteeFor

__all__ = ["ReportNoisyMax", "ExponentialMechanism", "NOISE_FAMILIES", "selection_probabilities",
           "noise_difference_sf", "noise_difference_log_sf"]

#: Noise families of report-noisy-max: frozen scipy distributions with unit scale.
NOISE_FAMILIES = {
    "laplace": stats.laplace(),
    "exponential": stats.expon(),
    "gumbel": stats.gumbel_r(),
}


# ------------------------------------------------------------------ exact selection law
def _gauss_legendre_pieces(edges, nodes_per_piece):
    x, w = np.polynomial.legendre.leggauss(nodes_per_piece)
    a, b = np.asarray(edges[:-1]), np.asarray(edges[1:])
    half = (b - a)[:, None] / 2
    return ((a + b)[:, None] / 2 + half * x).ravel(), (half * w).ravel()


def _laplace_logcdf(z):
    return np.where(z < 0, np.log(0.5) + np.minimum(z, 0), np.log1p(-0.5 * np.exp(-np.abs(z))))


def selection_probabilities(scores, noise: str = "laplace", scale: float = 1.0) -> np.ndarray:
    r"""Exact :math:`P[\arg\max_j (s_j + Z_j) = i]` for i.i.d. noise :math:`Z_j` of scale b.

    * Gumbel: :math:`\mathrm{softmax}(s/b)` (the exponential mechanism).
    * Exponential: with :math:`p_i = e^{(s_i - \max s)/b}`,
      :math:`P(j) = p_j \int_0^1 \prod_{i \ne j} (1 - p_i t)\,dt` (permute-and-flip,
      McKenna and Sheldon 2020), by Gauss-Legendre on geometric sub-intervals of [0, 1].
    * Laplace: :math:`P(j) = \int f(x - s_j) \prod_{i\ne j} F(x - s_i)\,dx` (f, F the
      Laplace density and distribution function), by composite Gauss-Legendre between the
      kinks, in log space.

    Equal scores are grouped, so instances with few distinct scores and huge K are cheap;
    actions more than 90 b below the best get probability 0 (< e^-90). ``scale = 0`` is the
    noiseless argmax (lowest index among ties). Agrees with adaptive quadrature of the same
    integrals to about 1e-15 (tested).

    Parameters
    ----------
    scores : array of shape (K,), K >= 2
    noise : {"laplace", "exponential", "gumbel"}
    scale : float >= 0

    Returns
    -------
    ndarray of shape (K,), summing to 1.

    Examples
    --------
    >>> selection_probabilities([1.0, 0.0], "gumbel", 1.0).round(4).tolist()
    [0.7311, 0.2689]
    """
    u = np.asarray(check_interval("scores", scores))
    if u.ndim != 1 or u.size < 2:
        raise ValueError(f"scores must be a 1-D array with K >= 2 entries, got shape {u.shape}")
    noise = check_choice("noise", noise, tuple(NOISE_FAMILIES))
    if scale == 0:
        out = np.zeros(u.size)
        out[np.argmax(u)] = 1.0
        return out
    scale = check_positive("scale", scale)
    vals, inv, counts = np.unique(u, return_inverse=True, return_counts=True)
    x = (vals - vals.max()) / float(scale)                   # standardised, max = 0
    if noise == "gumbel":
        return np.exp(x[inv] - special.logsumexp(x, b=counts))
    keep = x > -90.0
    xk, ck = x[keep], counts[keep]
    per_member = np.zeros(vals.size)
    if noise == "exponential":
        edges = np.concatenate([[0.0], 2.0 ** np.arange(-60, 1)])
        t, w = _gauss_legendre_pieces(edges, 24)
        p = np.exp(xk)
        idx = np.flatnonzero(keep)
        total = np.zeros(t.size)                             # log prod_i (1 - p_i t)^{c_i}
        for s in range(0, xk.size, 512):
            total += np.log1p(-np.outer(t, p[s:s + 512])) @ ck[s:s + 512]
        for s in range(0, xk.size, 512):
            own = np.log1p(-np.outer(t, p[s:s + 512]))      # leave one member out
            per_member[idx[s:s + 512]] = p[s:s + 512] * (w @ np.exp(total[:, None] - own))
    else:                                                    # Laplace
        kinks = np.unique(np.clip(xk, -45.0, 45.0))
        coarse = np.unique(np.concatenate([[-45.0, 45.0], kinks]))
        fine = [np.linspace(a, b, max(2, int(np.ceil((b - a) / 0.5)) + 1))
                for a, b in zip(coarse[:-1], coarse[1:])]
        edges = np.unique(np.concatenate(fine))
        y, w = _gauss_legendre_pieces(edges, 8)
        total = np.zeros(y.size)
        for s in range(0, xk.size, 512):
            total += _laplace_logcdf(y[:, None] - xk[None, s:s + 512]) @ ck[s:s + 512]
        for s in range(0, xk.size, 512):
            z = y[:, None] - xk[None, s:s + 512]
            log_integrand = np.log(0.5) - np.abs(z) - _laplace_logcdf(z) + total[:, None]
            per_member[np.flatnonzero(keep)[s:s + 512]] = w @ np.exp(log_integrand)
    probs = per_member[inv]
    return probs / probs.sum()


def noise_difference_log_sf(x, noise: str = "laplace", scale: float = 1.0):
    r"""``log P(Z_2 - Z_1 > x)`` for i.i.d. noise of scale b (see :func:`noise_difference_sf`)."""
    noise = check_choice("noise", noise, tuple(NOISE_FAMILIES))
    z = np.asarray(x, dtype=float) / check_positive("scale", scale)
    a = np.abs(z)
    if noise == "gumbel":                                 # logistic difference
        return -np.logaddexp(0.0, z)
    if noise == "exponential":                            # difference is Laplace(b)
        upper = np.log(0.5) - a                           # z >= 0
    else:                                                 # difference of two Laplace(b)
        upper = np.log(0.5) + np.log1p(a / 2) - a
    return np.where(z >= 0, upper, np.log1p(-np.exp(upper)))


def noise_difference_sf(x, noise: str = "laplace", scale: float = 1.0):
    r"""Tail of the difference of two i.i.d. noises: :math:`P(Z_2 - Z_1 > x)`, closed forms.

    Laplace(b): :math:`\tfrac12(1 + |x|/(2b))\,e^{-|x|/b}` for x >= 0; exponential(b) (the
    difference is Laplace(b)): :math:`\tfrac12 e^{-x/b}`; Gumbel(b) (the difference is
    logistic): :math:`1/(1 + e^{x/b})`; for x < 0, :math:`1 - P(Z_2 - Z_1 > -x)`.
    Two-action report-noisy-max selects action 1 with probability
    ``noise_difference_sf(s_0 - s_1, noise, b)``.

    >>> float(noise_difference_sf(0.0))
    0.5
    >>> round(float(noise_difference_sf(1.0)), 6)          # (2 + 1) e^-1 / 4
    0.27591
    """
    return np.exp(noise_difference_log_sf(x, noise, scale))


class ReportNoisyMax(GuaranteeFor):
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
    noise_multiplier : float
        Factor applied to the scale when drawing (default 1); below 1 builds a deliberately
        weakened mechanism, and ``guarantee`` reports the larger epsilon it really has.

    Notes
    -----
    With general (two-sided) score changes of at most Delta, each of the three noise families at
    scale b gives (2 Delta / b)-DP; with monotone changes, (Delta / b)-DP (Dwork and Roth 2014,
    Claim 3.9; Gumbel noise is the exponential mechanism; exponential noise is permute-and-flip,
    McKenna and Sheldon 2020). In the experts setting one round's whole loss vector may be
    replaced, so scores (cumulative losses) move in arbitrary directions: ``monotone=False`` is
    the honest choice there. The 2x is not slack: the exact :meth:`max_privacy_loss` of
    neighbouring score vectors approaches 2 Delta / b.

    Examples
    --------
    >>> rnm = ReportNoisyMax(epsilon=1.0)
    >>> rnm.noise_scale, rnm.guarantee
    (2.0, PureDP(epsilon=1))
    >>> ReportNoisyMax(scale=1.0, noise="gumbel").guarantee
    PureDP(epsilon=2)
    >>> ReportNoisyMax(epsilon=1.0, noise_multiplier=0.5).guarantee
    PureDP(epsilon=2)
    """

    def __init__(self, *, epsilon=None, scale=None, noise: str = "laplace",
                 sensitivity: float = 1.0, monotone: bool = False,
                 noise_multiplier: float = 1.0):
        self.noise = check_choice("noise", noise, tuple(NOISE_FAMILIES))
        self.sensitivity = check_positive("sensitivity", sensitivity)
        self.monotone = check_bool("monotone", monotone)
        self.noise_multiplier = check_positive("noise_multiplier", noise_multiplier)
        if (epsilon is None) == (scale is None):
            raise ValueError(f"give exactly one of epsilon and scale, got epsilon={epsilon!r}, "
                             f"scale={scale!r}")
        if epsilon is not None:
            calibrated = self._factor * self.sensitivity / check_epsilon(epsilon)
        else:
            calibrated = check_positive("scale", scale)
        self._calibrated_scale = calibrated
        self._noise_scale = self.noise_multiplier * calibrated

    @property
    def noise_scale(self) -> float:
        """The scale b actually drawn with: noise_multiplier times the calibrated scale."""
        return self._noise_scale

    @staticmethod
    def privacy_factor(monotone: bool) -> float:
        """c in ``epsilon = c * sensitivity / scale``: 1 for monotone scores, 2 otherwise
        (Dwork and Roth 2014, Claim 3.9; the same for the three noise families)."""
        return 1.0 if monotone else 2.0

    @property
    def _factor(self) -> float:
        return self.privacy_factor(self.monotone)

    @property
    def guarantee(self) -> PureDP:
        """``PureDP(c * sensitivity / noise_scale)``, c = 1 (monotone) or 2."""
        return PureDP(epsilon=self._factor * self.sensitivity / self.noise_scale)

    def sample_noise(self, shape, rng) -> np.ndarray:
        rng = as_rng(rng)
        if self.noise == "laplace":
            z = rng.laplace(0.0, 1.0, size=shape)
        elif self.noise == "exponential":
            z = rng.standard_exponential(size=shape)
        else:
            z = rng.gumbel(0.0, 1.0, size=shape)
        return self.noise_scale * z

    def select(self, scores, rng=None) -> np.ndarray:
        """Index of the noisy maximum along the last axis (ties: lowest index)."""
        scores = np.asarray(scores, dtype=float)
        return np.argmax(scores + self.sample_noise(scores.shape, rng), axis=-1)

    def selection_probabilities(self, scores) -> np.ndarray:
        """Exact P(argmax = i) for a 1-D score vector, shape (K,)
        (:func:`selection_probabilities`)."""
        return selection_probabilities(scores, self.noise, self.noise_scale)

    def difference_sf(self, x):
        """P(Z_2 - Z_1 > x) for two of this mechanism's noises (:func:`noise_difference_sf`)."""
        return noise_difference_sf(x, self.noise, self.noise_scale)

    def privacy_loss(self, scores, neighbour) -> np.ndarray:
        r"""Exact privacy loss :math:`\ln P_s(i) - \ln P_{s'}(i)` of every output i, shape (K,)."""
        return (np.log(self.selection_probabilities(scores))
                - np.log(self.selection_probabilities(neighbour)))

    def max_privacy_loss(self, scores, neighbour) -> float:
        r"""Exact epsilon of one pair of score vectors: :math:`\max_i |\ln P_s(i) - \ln P_{s'}(i)|`.

        For a discrete output the worst set is a single outcome (a ratio of sums never exceeds
        the largest ratio of its terms), so this is the exact epsilon of the pair."""
        return float(np.max(np.abs(self.privacy_loss(scores, neighbour))))

    def params(self) -> dict:
        out = {"scale": self._calibrated_scale, "noise": self.noise,
               "sensitivity": self.sensitivity, "monotone": self.monotone}
        if self.noise_multiplier != 1.0:
            out["noise_multiplier"] = self.noise_multiplier
        return out

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"ReportNoisyMax({args})"


class ExponentialMechanism(GuaranteeFor):
    r"""Sample index j with probability proportional to exp(epsilon u_j / (c Delta)).

    ``c = 2`` in general and ``c = 1`` for monotone utilities (McSherry and Talwar 2007). It is
    report-noisy-max with Gumbel noise of scale c Delta / epsilon, and is sampled that way.

    Examples
    --------
    >>> em = ExponentialMechanism(epsilon=2.0)
    >>> em.probabilities([0.0, 1.0]).round(4).tolist()
    [0.2689, 0.7311]
    """

    def __init__(self, *, epsilon, sensitivity: float = 1.0, monotone: bool = False,
                 noise_multiplier: float = 1.0):
        self.epsilon = check_epsilon(epsilon)
        #: The equivalent report-noisy-max with Gumbel noise (how the mechanism samples).
        self.report_noisy_max = ReportNoisyMax(epsilon=self.epsilon, noise="gumbel",
                                               sensitivity=sensitivity, monotone=monotone,
                                               noise_multiplier=noise_multiplier)
        self.noise_multiplier = self.report_noisy_max.noise_multiplier

    @property
    def noise_scale(self) -> float:
        """Gumbel scale actually drawn with, c Delta / epsilon times the noise multiplier."""
        return self.report_noisy_max.noise_scale

    @property
    def guarantee(self) -> PureDP:
        """``PureDP(epsilon / noise_multiplier)``."""
        return PureDP(epsilon=self.epsilon / self.noise_multiplier)

    def probabilities(self, utilities) -> np.ndarray:
        u = np.asarray(utilities, dtype=float)
        return special.softmax(u / self.report_noisy_max.noise_scale, axis=-1)

    def select(self, utilities, rng=None) -> np.ndarray:
        return self.report_noisy_max.select(utilities, rng)
