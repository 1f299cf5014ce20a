r"""Gaussian differential privacy (GDP): trade-off functions and exact conversions.

A mechanism is **mu-GDP** (Dong, Roth and Su 2022) when telling two neighbouring inputs apart
from its output is at least as hard as telling N(0, 1) from N(mu, 1). This module provides

* the trade-off curves :func:`tradeoff_gaussian` (``G_mu``) and :func:`tradeoff_eps_delta`
  (the piecewise-linear curve of (eps, delta)-DP);
* the Gaussian mechanism as a GDP mechanism (:func:`gaussian_mechanism_gdp`) and composition
  (:func:`gdp_compose`);
* the exact primal-dual conversion mu-GDP <-> (eps, delta(eps))-DP for all eps >= 0
  (:func:`gdp_delta`, :func:`gdp_log_delta`, :func:`gdp_epsilon`; the record
  :func:`dpolearn.accounting.gdp_to_approx`),
  computed in log space;
* two standard facts that are **not** in Hu et al. (2025), labelled as such:
  :func:`pure_dp_to_gdp` (pure eps-DP -> mu-GDP) and :func:`gdp_to_zcdp` /
  :func:`gdp_to_renyi` (mu-GDP -> zCDP / Renyi DP).

Numerics. The conversion (Dong, Roth and Su 2022, Corollary 2.13; Hu et al. 2025, Theorem 2.4)

.. math:: \delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2)
          - e^{\varepsilon}\,\Phi(-\varepsilon/\mu - \mu/2)

is a difference of two numbers that both underflow (mu = 1, eps >= 40) or that cancel. With
``a = -eps/mu + mu/2`` and ``b = a - mu`` one has ``eps = (b^2 - a^2)/2`` exactly, so writing
``Phi(z) = erfcx(-z/sqrt 2) exp(-z^2/2) / 2`` the factor ``e^eps`` cancels analytically:

.. math:: \log\delta = \log\Phi(a)
          + \log\bigl(1 - \mathrm{erfcx}(-b/\sqrt2)/\mathrm{erfcx}(-a/\sqrt2)\bigr)
          \qquad (a \le 0),

which stays finite and accurate for mu up to 100 and eps up to 1e5 and beyond. For ``a > 0``
(only possible when eps < mu^2/2) the direct form ``log Phi(a) + log1p(-exp(eps + log Phi(b) -
log Phi(a)))`` has no large cancellation.
"""
from __future__ import annotations

import math
from typing import Union

import numpy as np
from scipy.optimize import brentq
from scipy.special import erfcx, log_ndtr, ndtr, ndtri, ndtri_exp

from ._validation import check_interval, check_positive, check_probability, scalar_or_array

__all__ = [
    "tradeoff_gaussian",
    "tradeoff_eps_delta",
    "gaussian_mechanism_gdp",
    "gdp_compose",
    "gdp_delta",
    "gdp_log_delta",
    "gdp_epsilon",
    "gdp_epsilon_from_log_delta",
    "pure_dp_to_gdp",
    "gdp_to_zcdp",
    "gdp_to_renyi",
]

ArrayLike = Union[float, np.ndarray]
_SQRT2 = math.sqrt(2.0)


# --------------------------------------------------------------------------- trade-off curves
def tradeoff_gaussian(x: ArrayLike, mu: ArrayLike) -> ArrayLike:
    r"""The Gaussian trade-off function :math:`G_\mu(x) = \Phi(\Phi^{-1}(1-x) - \mu)`.

    ``G_mu(x)`` is the smallest type-II error of any test between N(0, 1) and N(mu, 1) whose
    type-I error is at most ``x`` (Neyman-Pearson).

    Parameters
    ----------
    x : float or array
        Type-I error levels in [0, 1].
    mu : float or array
        GDP parameter, > 0 (broadcast against ``x``).

    References
    ----------
    Dong, Roth and Su (2022), Definition 2.4; Hu et al. (2025), Section 2.2.

    Examples
    --------
    >>> round(tradeoff_gaussian(0.5, 1.0), 6)
    0.158655
    >>> float(tradeoff_gaussian(1e-20, 20.0)) < 1e-26
    True
    """
    x = np.asarray(check_probability("x", x), dtype=float)
    mu = check_positive("mu", mu)
    # Phi^{-1}(1 - x) = -Phi^{-1}(x): the lower tail keeps tiny x (1 - 1e-20 rounds to 1).
    return scalar_or_array(ndtr(-ndtri(x) - mu))


def tradeoff_eps_delta(x: ArrayLike, epsilon: ArrayLike, delta: ArrayLike) -> ArrayLike:
    r"""The trade-off function of (eps, delta)-DP,
    :math:`f_{\varepsilon,\delta}(x) = \max\{0,\ 1-\delta-e^{\varepsilon}x,\
    e^{-\varepsilon}(1-\delta-x)\}`.

    A mechanism is (eps, delta)-DP exactly when its trade-off curve lies above this
    piecewise-linear curve (Dong, Roth and Su 2022, Proposition 2.5).

    Examples
    --------
    >>> tradeoff_eps_delta(0.0, 1.0, 0.1)
    0.9
    """
    x = np.asarray(check_probability("x", x), dtype=float)
    eps = check_interval("epsilon", epsilon, 0.0, allow_inf=True)
    delta = np.asarray(check_probability("delta", delta), dtype=float)
    return scalar_or_array(np.maximum.reduce([np.zeros(np.broadcast(x, eps, delta).shape),
                                   1.0 - delta - np.exp(eps) * x,
                                   np.exp(-eps) * (1.0 - delta - x)]))


# --------------------------------------------------------------------- mechanism, composition
def gaussian_mechanism_gdp(sensitivity: ArrayLike, sigma: ArrayLike) -> ArrayLike:
    r"""GDP parameter of releasing ``f(D) + N(0, sigma^2)`` when ``|f(D) - f(D')| <= sensitivity``.

    The two output distributions are N(f(D), sigma^2) and N(f(D'), sigma^2): after rescaling
    by sigma, a test between N(0, 1) and N(sensitivity/sigma, 1). So the release is
    ``mu = sensitivity / sigma``-GDP, and the curve is attained: the bound is exact.

    References
    ----------
    Dong, Roth and Su (2022), Theorem 2.7. :class:`dpolearn.mechanisms.GaussianMechanism`
    reports the same value as ``GaussianDP(mu)``.

    Examples
    --------
    >>> gaussian_mechanism_gdp(1.0, 4.0)
    0.25
    """
    sens = check_positive("sensitivity", sensitivity)
    sigma = check_positive("sigma", sigma)
    return scalar_or_array(np.asarray(sens, dtype=float) / np.asarray(sigma, dtype=float))


def gdp_compose(*mus: ArrayLike) -> ArrayLike:
    r"""Adaptive composition of mu_1-, ..., mu_m-GDP mechanisms:
    :math:`\sqrt{\mu_1^2 + \dots + \mu_m^2}`-GDP.

    References
    ----------
    Dong, Roth and Su (2022), Corollary 3.3; Hu et al. (2025), Theorem 4.7.

    Examples
    --------
    >>> gdp_compose(3.0, 4.0)
    5.0
    """
    if not mus:
        raise ValueError("gdp_compose needs at least one mu, got none")
    total = sum(np.square(np.asarray(check_positive("mu", m), dtype=float)) for m in mus)
    return scalar_or_array(np.sqrt(total))


# ------------------------------------------------------------------- mu-GDP -> (eps, delta)
def _log1mexp(x: np.ndarray) -> np.ndarray:
    """log(1 - exp(x)) for x <= 0, accurate near 0 and for very negative x."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(x > -math.log(2.0), np.log(-np.expm1(np.minimum(x, 0.0))),
                        np.log1p(-np.exp(np.minimum(x, 0.0))))


def _inverse_mills_excess(s: np.ndarray) -> np.ndarray:
    r"""``1/R(s) - s`` > 0, with :math:`R(s) = \Phi(-s)/\varphi(s)` the Mills ratio.

    It is minus the derivative of ``log R``. Directly through ``erfcx`` for s < 3; for s >= 3
    by Laplace's continued fraction :math:`1/(s + 2/(s + 3/(s + \dots)))`, which avoids the
    cancellation of ``1/R(s) - s`` for large s (60 terms reach full double precision there).
    """
    s = np.asarray(s, dtype=float)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        direct = math.sqrt(2.0 / math.pi) / erfcx(np.minimum(s, 3.0) / _SQRT2) - np.minimum(s, 3.0)
        tail = np.maximum(s, 3.0)
        frac = tail.copy()
        for k in range(60, 1, -1):
            frac = tail + k / frac
    return np.where(s < 3.0, direct, 1.0 / frac)


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(16)


def _log_mills_ratio_drop(t: np.ndarray, mu: np.ndarray) -> np.ndarray:
    r""":math:`\log R(t+\mu) - \log R(t) = -\int_t^{t+\mu}(1/R(s) - s)\,ds`, by 16-point
    Gauss-Legendre quadrature (used only where the drop is small, so the integrand varies little
    over the interval and the rule is exact to rounding)."""
    half = mu / 2.0
    s = (t + half)[..., None] + half[..., None] * _GL_NODES
    return -half * (_inverse_mills_excess(s) * _GL_WEIGHTS).sum(-1)


def gdp_log_delta(epsilon: ArrayLike, mu: ArrayLike) -> ArrayLike:
    r"""Natural log of :func:`gdp_delta`, finite where delta itself underflows to 0.

    Parameters
    ----------
    epsilon : float or array, >= 0
    mu : float or array, > 0 (broadcast against ``epsilon``)

    Returns
    -------
    float or array
        ``log delta(eps)``, in (-inf, 0]; finite and accurate to a few units in the 13th
        digit for mu in [1e-8, 1e3] and eps in [0, 1e10] (tested against 50-digit arithmetic).

    Notes
    -----
    With ``t = eps/mu - mu/2`` and the Mills ratio ``R(s) = Phi(-s)/phi(s)``,
    ``delta = Phi(-t) (1 - R(t+mu)/R(t))`` exactly (the factor ``e^eps`` cancels). The log of
    the ratio is computed as in the module docstring; where it is close to 0 (small mu, or
    large t) that difference of two logarithms cancels, and it is computed instead as the
    integral of the derivative of ``log R`` over ``[t, t+mu]``, which has no cancellation.

    Examples
    --------
    >>> round(gdp_log_delta(100.0, 1.0), 3)
    -4960.255
    """
    eps = check_interval("epsilon", epsilon, 0.0, allow_inf=True)
    mu = check_positive("mu", mu)
    eps, mu = np.broadcast_arrays(eps, mu)
    a = -eps / mu + mu / 2.0
    b = a - mu
    log_phi_a = log_ndtr(a)
    # a <= 0: e^eps cancels analytically; the ratio erfcx(-b/s2)/erfcx(-a/s2) lies in (0, 1).
    with np.errstate(over="ignore", invalid="ignore"):
        neg = np.log(erfcx(-b / _SQRT2)) - np.log(erfcx(-np.minimum(a, 0.0) / _SQRT2))
        pos = eps + log_ndtr(b) - log_phi_a
    x = np.minimum(np.where(a <= 0.0, neg, pos), 0.0)
    small = x > -0.1
    if np.any(small):
        x = np.where(small, _log_mills_ratio_drop(-a, mu), x)
    return scalar_or_array(log_phi_a + _log1mexp(x))


def gdp_delta(epsilon: ArrayLike, mu: ArrayLike) -> ArrayLike:
    r"""The exact delta(eps) of a mu-GDP mechanism (the primal-dual conversion).

    A mechanism is mu-GDP if and only if it is (eps, delta(eps))-DP for every eps >= 0, with

    .. math:: \delta(\varepsilon) = \Phi\Bigl(-\frac{\varepsilon}{\mu} + \frac{\mu}{2}\Bigr)
              - e^{\varepsilon}\,\Phi\Bigl(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\Bigr).

    Parameters
    ----------
    epsilon : float or array, >= 0
    mu : float or array, > 0 (broadcast against ``epsilon``)

    Returns
    -------
    float or array in [0, 1)
        Underflows to 0 for large eps (use :func:`gdp_log_delta` there).

    References
    ----------
    Dong, Roth and Su (2022), Corollary 2.13; Hu et al. (2025), Theorem 2.4.

    Examples
    --------
    >>> round(gdp_delta(1.0, 1.0), 6)
    0.126937
    """
    return scalar_or_array(np.exp(np.asarray(gdp_log_delta(epsilon, mu))))


#: Below this log delta, :func:`_eps_for` solves the Gaussian tail in closed form (the root
#: finder's bracket would overflow near log delta = -1.8e308).
_FAR_TAIL = -1e200


def _eps_for(log_delta: float, mu: float) -> float:
    """Smallest eps >= 0 with log delta(eps) <= log_delta (scalar)."""
    if gdp_log_delta(0.0, mu) <= log_delta:
        return 0.0
    if log_delta < _FAR_TAIL:
        # log delta = -t^2/2 - ln t - ln sqrt(2 pi) + ln(mu/(t + mu)) + o(1) with
        # t = eps/mu - mu/2 (the Gaussian tail); here t > 1e100, and the logarithmic terms
        # move t by less than 1e-195 of itself: t = sqrt(-2 log delta) to double precision.
        # sqrt(2) sqrt(-x), not sqrt(-2x): the latter overflows for log delta < -9e307.
        return mu * (math.sqrt(2.0) * math.sqrt(-log_delta) + mu / 2.0)
    f = lambda e: gdp_log_delta(e, mu) - log_delta          # noqa: E731  (decreasing in e)
    # delta(eps) <= Phi(-eps/mu + mu/2), so eps_hi = mu^2/2 - mu Phi^{-1}(delta) is an upper
    # bound (in log space via the Gaussian tail when delta is tiny); grow it if needed.
    z = ndtri(math.exp(log_delta)) if log_delta > -700 else -math.sqrt(-2.0 * log_delta)
    hi = max(mu * mu / 2.0 - mu * z, 1e-12)
    while f(hi) > 0:
        hi *= 2.0
    lo = 0.0
    return brentq(f, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)


def gdp_epsilon(delta: ArrayLike, mu: ArrayLike) -> ArrayLike:
    r"""The inverse conversion: the smallest eps >= 0 with delta(eps) <= ``delta``.

    Parameters
    ----------
    delta : float or array in (0, 1)
    mu : float or array, > 0 (broadcast against ``delta``)

    Returns
    -------
    float or array
        eps(delta); 0 when ``delta >= delta(0) = 2 Phi(mu/2) - 1``.

    Notes
    -----
    Root-finding (Brent) on ``log delta(eps) - log delta``, bracketed by the Gaussian tail
    bound and grown by doubling; relative accuracy about 1e-15.

    Examples
    --------
    >>> round(gdp_epsilon(1e-5, 1.0), 5)
    4.37718
    """
    delta = np.asarray(check_probability("delta", delta, open_low=True, open_high=True),
                       dtype=float)
    mu = check_positive("mu", mu)
    d, m = np.broadcast_arrays(delta, mu)
    out = np.array([_eps_for(math.log(dv), float(mv)) for dv, mv in zip(d.ravel(), m.ravel())])
    return scalar_or_array(out.reshape(d.shape))


def gdp_epsilon_from_log_delta(log_delta: ArrayLike, mu: ArrayLike) -> ArrayLike:
    """:func:`gdp_epsilon` for a target given as ``log delta`` (< 0).

    Use it where delta underflows (``log_delta < -745``) or lies so close to 1 that the float
    delta has lost the digits that determine eps (for mu >= 10 and eps < 1, ``delta(eps)``
    differs from 1 only in the 7th digit). Every finite ``log_delta < 0`` has a finite eps,
    about ``mu sqrt(-2 log_delta)`` far in the tail (down to ``-1.8e308``, the most negative
    float); ``-inf`` (delta = 0) is refused with a ValueError, since mu-GDP reaches delta = 0
    at no finite eps.

    Examples
    --------
    >>> round(gdp_epsilon_from_log_delta(-4960.255, 1.0), 3)
    100.0
    """
    ld = check_interval("log_delta", log_delta, high=0.0, high_open=True)
    mu = check_positive("mu", mu)
    d, m = np.broadcast_arrays(ld, mu)
    out = np.array([_eps_for(float(dv), float(mv)) for dv, mv in zip(d.ravel(), m.ravel())])
    return scalar_or_array(out.reshape(d.shape))


# ------------------------------------------------- standard facts NOT from Hu et al. (2025)
def pure_dp_to_gdp(epsilon: ArrayLike) -> ArrayLike:
    r"""The smallest mu such that every eps-DP mechanism is mu-GDP:
    :math:`\mu = 2\Phi^{-1}\bigl(e^\varepsilon/(1+e^\varepsilon)\bigr)`.

    *Standard fact, not from Hu et al. (2025).* The eps-DP curve ``f_{eps,0}`` has its kink on
    the diagonal at ``x* = 1/(1+e^eps)``, and ``G_mu`` crosses the diagonal at
    ``Phi(-mu/2)``. Choosing ``Phi(-mu/2) = x*`` makes the two curves meet at the kink and at
    both ends; ``G_mu`` is convex, so on each side of the kink it lies below the chord, which
    is ``f_{eps,0}``. A smaller mu would put ``G_mu(x*)`` above ``x*``.

    Examples
    --------
    For large eps, mu is about :math:`2\sqrt{2\varepsilon}` (finite for every finite eps).

    >>> round(pure_dp_to_gdp(0.5), 4)
    0.6239
    >>> round(pure_dp_to_gdp(800.0) / (2 * (2 * 800.0) ** 0.5), 3)
    0.997
    """
    eps = np.asarray(check_positive("epsilon", epsilon), dtype=float)
    # Phi^{-1}(e^eps/(1+e^eps)) = -Phi^{-1}(1/(1+e^eps)), computed via the lower tail. For
    # eps >= 700, where e^eps overflows, the inverse is taken in log space:
    # log(1/(1+e^eps)) = -logaddexp(0, eps).
    with np.errstate(over="ignore"):
        direct = -2.0 * ndtri(1.0 / (1.0 + np.exp(np.minimum(eps, 700.0))))
    return scalar_or_array(np.where(eps < 700.0, direct, -2.0 * ndtri_exp(-np.logaddexp(0.0, eps))))


def gdp_to_zcdp(mu: ArrayLike) -> ArrayLike:
    r"""mu-GDP implies rho-zCDP with :math:`\rho = \mu^2/2`.

    *Standard fact, not from Hu et al. (2025)*: the privacy-loss of N(0,1) vs N(mu,1) has
    Renyi divergence ``a mu^2 / 2`` of every order ``a`` (Bun and Steinke 2016); for a general
    mu-GDP mechanism this follows from the Blackwell ordering of Dong, Roth and Su (2022).

    Examples
    --------
    >>> gdp_to_zcdp(2.0)
    2.0
    """
    mu = check_positive("mu", mu)
    return scalar_or_array(mu * mu / 2.0)


def gdp_to_renyi(mu: ArrayLike, order: ArrayLike) -> ArrayLike:
    r"""mu-GDP implies (a, a mu^2/2)-Renyi DP for every order a > 1.

    *Standard fact, not from Hu et al. (2025)* (Mironov 2017, Proposition 7 for the Gaussian
    mechanism).

    Examples
    --------
    >>> gdp_to_renyi(1.0, 2.0)
    1.0
    """
    mu = check_positive("mu", mu)
    order = check_interval("order", order, 1, low_open=True, allow_inf=True)
    return scalar_or_array(order * mu * mu / 2.0)
