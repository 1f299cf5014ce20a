"""Bernoulli KL divergence and the KL-UCB index, vectorised."""
from __future__ import annotations

import numpy as np
from scipy.special import xlogy

__all__ = ["kl_bernoulli", "klucb_upper"]

_EPS = 1e-15


def kl_bernoulli(p, q) -> np.ndarray:
    r"""kl(p, q) = p ln(p/q) + (1-p) ln((1-p)/(1-q)), with 0 ln 0 = 0.

    >>> round(float(kl_bernoulli(0.5, 0.6)), 6)
    0.020411
    """
    p = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    q = np.clip(np.asarray(q, dtype=float), _EPS, 1 - _EPS)
    return xlogy(p, p / q) + xlogy(1 - p, (1 - p) / (1 - q))



def klucb_upper(p, d, newton_steps: int = 10) -> np.ndarray:
    r"""KL-UCB index :math:`\max\{q \in [p, 1] : \mathrm{kl}(p, q) \le d\}`, elementwise.

    ``p`` is an empirical mean in [0, 1] (values outside are clipped) and ``d >= 0`` the
    exploration level; both broadcast.

    Newton's method in the variable :math:`u = -\ln(1-q)`, in which
    :math:`\mathrm{kl}(p, q(u))` is convex and increasing with slope :math:`(q-p)/q \le 1`,
    so the iteration is well behaved even when the index is close to 1. It starts from the
    smaller of two upper bounds on the root (Pinsker's :math:`q \le p + \sqrt{d/2}` and
    :math:`u \le (d + H(p))/(1-p)`); from the right of the root of a convex increasing
    function Newton's iterates decrease monotonically, so the index is not under-estimated
    (beyond floating-point rounding).
    The default agrees with a 200-step bisection to about 1e-12 (tested).

    >>> klucb_upper(np.array([0.1, 0.5]), 0.2).round(5).tolist()
    [0.37839, 0.78709]
    """
    p = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    d = np.maximum(np.asarray(d, dtype=float), 0.0)
    p, d = np.broadcast_arrays(p, d)
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = -(xlogy(p, p) + xlogy(1 - p, 1 - p))
        u_pinsker = -np.log1p(-np.minimum(p + np.sqrt(d / 2.0), 1.0))
        u = np.minimum(u_pinsker, (d + entropy) / (1.0 - p))
        u = np.where(np.isfinite(u), u, 50.0)
        for _ in range(newton_steps):
            q = -np.expm1(-u)
            excess = kl_bernoulli(p, q) - d
            slope = np.where(q > 0, (q - p) / q, 0.0)
            step = np.divide(excess, slope, out=np.zeros_like(u), where=(slope > 0) & (excess > 0))
            u = u - step
        q = -np.expm1(-u)
    q = np.maximum(q, p)
    return np.where(p >= 1.0, 1.0, q)
