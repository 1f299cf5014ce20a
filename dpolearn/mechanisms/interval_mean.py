r"""The interval-based Laplace mean of DP-UCB-INT (Tossou and Dimitrakakis 2016).

Each arm's empirical mean is released only at a sparse set of pull counts
:math:`\mathcal W = \{W_1, W_2, \dots\}` (about :math:`1/\varepsilon` pulls apart), each time
with Laplace noise of scale :math:`n^{v/2-1}`; between release points the last release is
reused. A release at count n is :math:`n^{-v/2}`-DP (Lemma 3.1), and the privacy of the whole
sequence comes from composing these shrinking budgets (Theorem 3.4). The input epsilon does not
enter the noise at all: it only spaces the releases.

This module offers the release schedules (fixed :math:`\lceil 1/\varepsilon\rceil` and the two
variants of Lemma B.1), the exact accountant over a schedule (basic and advanced composition),
the paper's closed-form bounds (Theorem 3.4, Corollary 3.1) and the input-epsilon calibration of
Corollary 3.2.

References
----------
.. [TD16] Tossou and Dimitrakakis, "Algorithms for differentially private multi-armed bandits",
   AAAI 2016: Algorithm 3, Lemma 3.1, Theorem 3.4, Corollaries 3.1 and 3.2, Lemma B.1.
"""
from __future__ import annotations

import math
from typing import Dict

import numpy as np
from scipy.special import zeta as _zeta

from .._arrays import per_stream, scalar_if_uniform, stream_shape
from .._validation import (
    as_rng,
    check_choice,
    check_epsilon,
    check_positive,
    check_positive_int,
    check_probability,
)
from ..accounting import ApproxDP, PureDP, heterogeneous_advanced_composition
from ._base import GuaranteeFor
from .ledger import report_release

__all__ = ["IntervalLaplaceMean", "SCHEDULES", "calibrate_epsilon", "fixed_schedule",
           "lemma_b1_schedule", "release_schedule", "interval_accountant",
           "heterogeneous_advanced_composition", "thm34_bound", "cor31_bound",
           "cor31_advanced_epsilon", "check_v", "zeta"]

SCHEDULES = ("fixed", "lemmaB1_y", "lemmaB1_x")


def check_v(v) -> float:
    """The noise exponent v of DP-UCB-INT, a real number in (1, 1.5] (Tossou and
    Dimitrakakis 2016, Lemma 3.1); ``TypeError``/``ValueError`` naming ``v`` otherwise."""
    if isinstance(v, (str, bytes, bool)) or v is None:
        raise TypeError(f"v must be a real number, got {v!r}")
    v = float(v)
    if not (1.0 < v <= 1.5):
        raise ValueError(f"v must lie in (1, 1.5], got {v!r}")
    return v


def zeta(v: float) -> float:
    """Riemann zeta function at v > 1 (zeta(1.1) = 10.5844...)."""
    v = check_epsilon(v, name="v")
    if v <= 1:
        raise ValueError(f"v must be > 1, got {v!r}")
    return float(_zeta(v))


def calibrate_epsilon(epsilon_target: float, delta_prime: float, v: float = 1.1) -> float:
    r"""Input epsilon that makes DP-UCB-INT (epsilon_target, delta_prime)-DP (Corollary 3.2).

    Solves :math:`2\varepsilon\zeta(v) + \sqrt{2\varepsilon\zeta(v)\ln(1/\delta')} =
    \varepsilon'` (the advanced-composition branch of Corollary 3.1):
    :math:`\varepsilon_{in} = \big(\sqrt{(\ln(1/\delta') + 4\varepsilon')/(8\zeta(v))}
    - \sqrt{\ln(1/\delta')/(8\zeta(v))}\big)^2`.

    Examples
    --------
    >>> f"{calibrate_epsilon(1.0, math.exp(-10), 1.1):.6e}"
    '3.964317e-03'
    >>> f"{calibrate_epsilon(0.1, math.exp(-10), 1.1):.6e}"
    '4.631731e-05'
    """
    eps = check_epsilon(epsilon_target, name="epsilon_target")
    if eps > 1:
        raise ValueError(f"epsilon_target must be <= 1 (Corollary 3.2), got {epsilon_target!r}")
    dp = check_probability("delta_prime", delta_prime, open_low=True)
    z = zeta(check_v(v))
    log_term = math.log(1.0 / dp)
    return (math.sqrt((log_term + 4 * eps) / (8 * z)) - math.sqrt(log_term / (8 * z))) ** 2


def fixed_schedule(epsilon: float, n_max: int) -> np.ndarray:
    r"""Release points :math:`f, 2f, \dots \le n_{max}` with :math:`f = \lceil 1/\varepsilon\rceil`
    (Algorithm 3 as printed)."""
    eps = check_epsilon(epsilon)
    n_max = check_positive_int("n_max", n_max)
    f = math.ceil(1.0 / eps)
    return np.arange(f, n_max + 1, f, dtype=np.int64)


def lemma_b1_schedule(epsilon: float, v: float, variant: str, n_max: int) -> np.ndarray:
    r"""Release points of Lemma B.1 up to ``n_max``.

    :math:`W_0 = 0`; :math:`W_{j+1}` is the smallest :math:`W > W_j` with
    :math:`\sum_{i=W_j+1}^{W} i^{-p} \ge W^{-p}/\varepsilon`, where :math:`p = v` for the
    y-variant (certifies the advanced-composition branch) and :math:`p = v/2` for the
    x-variant (the basic branch). Because :math:`g(W) = C(W) - W^{-p}/\varepsilon` with
    :math:`C(W) = \sum_{i\le W} i^{-p}` increases in W, each point is one ``searchsorted``.

    Examples
    --------
    >>> eps = calibrate_epsilon(1.0, math.exp(-10), 1.1)
    >>> lemma_b1_schedule(eps, 1.1, "y", 800).tolist()
    [46, 177, 354, 554, 767]
    """
    eps = check_epsilon(epsilon)
    v = check_v(v)
    check_choice("variant", variant, ("x", "y"))
    n_max = check_positive_int("n_max", n_max)
    p = v if variant == "y" else v / 2
    w = np.arange(1, n_max + 1, dtype=float)
    terms = w ** -p
    cum = np.cumsum(terms)                               # C(W), index W - 1
    g = cum - terms / eps                                # increasing in W
    points = []
    c_prev = 0.0                                         # C(W_0) = 0
    while True:
        idx = int(np.searchsorted(g, c_prev, side="left"))
        if idx >= n_max:
            break
        points.append(idx + 1)
        c_prev = cum[idx]
    return np.asarray(points, dtype=np.int64)


def release_schedule(epsilon: float, *, schedule: str = "fixed", v: float = 1.1,
                     n_max: int) -> np.ndarray:
    """Release points up to ``n_max`` for ``schedule`` in ``SCHEDULES``."""
    check_choice("schedule", schedule, SCHEDULES)
    if schedule == "fixed":
        return fixed_schedule(epsilon, n_max)
    return lemma_b1_schedule(epsilon, v, schedule[-1], n_max)


def interval_accountant(release_points, *, v: float = 1.1,
                        delta_prime: float = math.exp(-10)) -> Dict[str, object]:
    r"""Exact privacy of a set of releases of one arm (the worst case: all pulls on one arm).

    Release at count n costs :math:`n^{-v/2}` (Lemma 3.1). Returns ``{"basic": PureDP(sum),
    "advanced": ApproxDP(...), "n_releases": m}``.
    """
    v = check_v(v)
    pts = np.asarray(release_points, dtype=float)
    eps_i = pts ** (-v / 2)
    return {"basic": PureDP(epsilon=float(eps_i.sum())),
            "advanced": heterogeneous_advanced_composition(eps_i, delta_prime),
            "n_releases": int(pts.size)}


def thm34_bound(epsilon: float, t: int, *, v: float = 1.1,
                delta_prime: float = math.exp(-10)) -> Dict[str, float]:
    r"""The two branches of Theorem 3.4 after t steps: ``{"basic": C, "advanced": D}`` with
    :math:`C = \varepsilon\sum_{n\le t} n^{-v/2}` and
    :math:`D = \varepsilon\sum_n n^{-v/2}(e^{n^{-v/2}}-1) + \sqrt{2\varepsilon\ln(1/\delta')
    \sum_n n^{-v}}`."""
    eps = check_epsilon(epsilon)
    v = check_v(v)
    t = check_positive_int("t", t)
    dp = check_probability("delta_prime", delta_prime, open_low=True)
    n = np.arange(1, t + 1, dtype=float)
    a = n ** (-v / 2)
    basic = eps * a.sum()
    adv = eps * np.sum(a * np.expm1(a)) + math.sqrt(2 * eps * math.log(1 / dp) * np.sum(n ** -v))
    return {"basic": float(basic), "advanced": float(adv)}


def cor31_advanced_epsilon(epsilon, v: float, delta_prime: float, *,
                           noise_multiplier: float = 1.0):
    r"""The t-free advanced branch of Corollary 3.1 (Tossou and Dimitrakakis 2016):
    :math:`2\varepsilon\zeta(v) + \sqrt{2\varepsilon\zeta(v)\ln(1/\delta')}`.

    Vectorised over ``epsilon`` (the input epsilon, <= 1). The corollary bounds the releases'
    budgets :math:`\varepsilon_n = n^{-v/2}` by :math:`\sum\varepsilon_n^2 \le
    \varepsilon\zeta(v)` and uses :math:`e^x - 1 \le 2x` on [0, 1]. With a noise multiplier
    m every budget is divided by m: :math:`\sum\varepsilon_n^2` shrinks by :math:`m^2` and
    :math:`e^x - 1 \le c\,x` on :math:`[0, 1/m]` with :math:`c = \max(2, m(e^{1/m}-1))`,
    so the bound is :math:`c\,\varepsilon\zeta(v)/m^2 + \sqrt{2\varepsilon\zeta(v)
    \ln(1/\delta')}/m` (the corollary itself for m = 1).
    """
    eps = np.asarray(epsilon, dtype=float)
    z = zeta(v)
    m = noise_multiplier
    if m == 1.0:
        return 2 * eps * z + np.sqrt(2 * eps * z * math.log(1 / delta_prime))
    slope = max(2.0, m * math.expm1(1.0 / m))
    return slope * eps * z / m ** 2 + np.sqrt(2 * eps * z * math.log(1 / delta_prime)) / m


def cor31_bound(epsilon: float, t: int, *, v: float = 1.1,
                delta_prime: float = math.exp(-10)) -> Dict[str, float]:
    r"""Corollary 3.1: ``basic`` :math:`\varepsilon(t^{1-v/2} - v/2)/(1 - v/2)` and the
    t-free ``advanced`` :math:`2\varepsilon\zeta(v) + \sqrt{2\varepsilon\zeta(v)\ln(1/\delta')}`
    (:func:`cor31_advanced_epsilon`)."""
    eps = check_epsilon(epsilon)
    v = check_v(v)
    t = check_positive_int("t", t)
    dp = check_probability("delta_prime", delta_prime, open_low=True)
    return {"basic": eps * (t ** (1 - v / 2) - v / 2) / (1 - v / 2),
            "advanced": float(cor31_advanced_epsilon(eps, v, dp))}


class IntervalLaplaceMean(GuaranteeFor):
    r"""Per-stream interval-based Laplace mean (the mechanism of DP-UCB-INT), batched.

    Every stream (one arm of one run) accumulates its sum ``s`` and count ``n``; when ``n``
    first reaches a release point, it releases :math:`\tilde\mu = s/n + \mathrm{Lap}(n^{v/2-1})`
    and keeps it (and ``n_rel = n``) until the next release point.

    Parameters
    ----------
    shape : int or tuple of ints
        Batch of streams, e.g. ``(n_runs, n_arms)``.
    epsilon : float or array broadcastable to ``shape``, > 0
        Input epsilon: it only sets the spacing of the release points.
    v : float in (1, 1.5]
        Noise exponent (1.1 in the paper's experiments).
    schedule : {"fixed", "lemmaB1_y", "lemmaB1_x"}
    delta_prime : float in (0, 1)
        The delta of the reported ``guarantee`` (default e^-10, as in the paper's experiments).
    rng : None, int or numpy Generator
    noise_multiplier : float
        Factor applied to every release's noise scale (default 1); below 1 builds a deliberately
        weakened mechanism, and ``guarantee`` reports the larger epsilon it really has.

    Attributes
    ----------
    sums, counts, mu_tilde, n_rel : ndarray of shape ``shape``
    n_draws : int
        Number of Laplace draws so far (exactly one per stream and release point).

    Notes
    -----
    Lemma 3.1: the release at count n is the Laplace mechanism on a mean of sensitivity 1/n
    with scale :math:`n^{v/2-1}`, hence :math:`n^{-v/2}`-DP. Releases of one arm compose
    (see :meth:`accountant`); arms compose in parallel. No noise is drawn between release
    points, and the released mean is not refreshed between them (reading
    ``reading-interval-release-points`` of the book's appendix of readings and errata:
    re-drawing every round would make the number of releases unbounded).

    Examples
    --------
    >>> m = IntervalLaplaceMean(1, epsilon=0.25, v=1.1, rng=0)
    >>> m.release_points(12).tolist()
    [4, 8, 12]
    """

    _one_stream = (1,)                      # guarantee_for builds one stream

    def __init__(self, shape, *, epsilon, v: float = 1.1, schedule: str = "fixed",
                 delta_prime: float = math.exp(-10), rng=None, noise_multiplier: float = 1.0):
        self.shape = stream_shape(shape)
        self.noise_multiplier = check_positive("noise_multiplier", noise_multiplier)
        self.epsilon = per_stream("epsilon", epsilon, self.shape)
        self.v = check_v(v)
        self.schedule = check_choice("schedule", schedule, SCHEDULES)
        self.delta_prime = check_probability("delta_prime", delta_prime, open_low=True,
                                             open_high=True)
        self._rng = as_rng(rng)
        values, group = np.unique(self.epsilon, return_inverse=True)
        self._eps_values = values
        self._group = group.reshape(self.shape)
        self._cap = 0
        self._table = np.zeros((len(values), 1), dtype=bool)
        self.sums = np.zeros(self.shape)
        self.counts = np.zeros(self.shape, dtype=np.int64)
        self.mu_tilde = np.zeros(self.shape)
        self.n_rel = np.zeros(self.shape, dtype=np.int64)
        self.n_draws = 0

    def release_points(self, n_max: int, epsilon=None) -> np.ndarray:
        """Release points up to ``n_max`` for ``epsilon`` (default: the first stream's)."""
        eps = float(self.epsilon.ravel()[0]) if epsilon is None else epsilon
        return release_schedule(eps, schedule=self.schedule, v=self.v, n_max=n_max)

    def first_release(self) -> np.ndarray:
        """f_0 = W_1 per stream (the length of DP-UCB-INT's round-robin phase per arm)."""
        self._ensure(1)
        first = np.array([np.argmax(row) if row.any() else -1 for row in self._table])
        while np.any(first < 0):
            self._ensure(2 * self._cap)
            first = np.array([np.argmax(row) if row.any() else -1 for row in self._table])
        return first[self._group]

    def _ensure(self, n: int) -> None:
        """Grow the membership tables n in W to cover counts up to n."""
        if n <= self._cap:
            return
        cap = max(n, 2 * self._cap, 1024)
        table = np.zeros((len(self._eps_values), cap + 1), dtype=bool)
        for g, eps in enumerate(self._eps_values):
            table[g, release_schedule(eps, schedule=self.schedule, v=self.v, n_max=cap)] = True
        self._table, self._cap = table, cap

    def add(self, x, where=None) -> None:
        """Add one reward to every selected stream and release where a release point is hit."""
        mask = np.ones(self.shape, bool) if where is None else np.broadcast_to(where, self.shape)
        x = np.broadcast_to(np.asarray(x, dtype=float), self.shape)
        self.sums = self.sums + np.where(mask, x, 0.0)            # s += x
        self.counts = self.counts + mask                          # n += 1
        self._ensure(int(self.counts.max()))
        hit = mask & self._table[self._group, self.counts]        # n in W (first time)
        if np.any(hit):
            n = self.counts[hit].astype(float)
            noise = self._rng.laplace(0.0, 1.0, size=n.size) * self.noise_scale(n)
            exact = self.sums[hit] / n
            self.mu_tilde[hit] = report_release(                  # s/n + Lap(n^{v/2-1})
                "interval mean", exact, exact + noise, scale=self.noise_scale(n),
                sensitivity=1.0 / n)
            self.n_rel[hit] = self.counts[hit]
            self.n_draws += int(n.size)

    def add_at(self, rows: np.ndarray, cols: np.ndarray, x: np.ndarray):
        """Fast path for bandits: one reward for stream ``(rows[r], cols[r])`` per r.

        Returns the boolean mask of the entries that released (or None if none did)."""
        self.sums[rows, cols] += x
        n = self.counts[rows, cols] + 1
        self.counts[rows, cols] = n
        if int(n.max()) > self._cap:
            self._ensure(int(n.max()))
        hit = self._table[self._group[rows, cols], n]
        if np.any(hit):
            r, c, nh = rows[hit], cols[hit], n[hit].astype(float)
            noise = self._rng.laplace(0.0, 1.0, size=nh.size) * self.noise_scale(nh)
            exact = self.sums[r, c] / nh
            self.mu_tilde[r, c] = report_release("interval mean", exact, exact + noise,
                                                 scale=self.noise_scale(nh), sensitivity=1.0 / nh)
            self.n_rel[r, c] = n[hit]
            self.n_draws += int(nh.size)
            return hit
        return None

    def noise_scale(self, n):
        """Laplace scale actually drawn with at count n: noise_multiplier * n^(v/2 - 1)."""
        scale = np.asarray(n, dtype=float) ** (self.v / 2 - 1)
        return scale if self.noise_multiplier == 1.0 else self.noise_multiplier * scale

    def release_epsilon(self, n):
        """Privacy cost of one release at count n (Lemma 3.1): n^(-v/2) / noise_multiplier."""
        return np.asarray(n, dtype=float) ** (-self.v / 2) / self.noise_multiplier

    def accountant(self, n_max: int, delta_prime: float = math.exp(-10),
                   epsilon=None) -> Dict[str, object]:
        """Exact basic and advanced composition over the releases up to ``n_max`` pulls."""
        points = self.release_points(n_max, epsilon)
        if self.noise_multiplier == 1.0:
            return interval_accountant(points, v=self.v, delta_prime=delta_prime)
        eps_i = self.release_epsilon(points)
        return {"basic": PureDP(epsilon=float(eps_i.sum())),
                "advanced": heterogeneous_advanced_composition(eps_i, delta_prime),
                "n_releases": int(points.size)}

    @property
    def guarantee(self) -> ApproxDP:
        r"""Anytime guarantee (Corollary 3.1, advanced branch, independent of t):
        :math:`(2\varepsilon\zeta(v) + \sqrt{2\varepsilon\zeta(v)\ln(1/\delta')},\ \delta')`.

        Valid for input epsilon <= 1 (it uses :math:`e^x \le 1 + 2x` on [0, 1] and the sums of
        Theorem 3.4, which dominate the exact accountant for every schedule offered here);
        see :func:`cor31_advanced_epsilon`, also for the noise multiplier."""
        return self.anytime_guarantee(self.epsilon, v=self.v, delta_prime=self.delta_prime,
                                      noise_multiplier=self.noise_multiplier)

    @staticmethod
    def anytime_guarantee(epsilon, *, v: float, delta_prime: float,
                          noise_multiplier: float = 1.0) -> ApproxDP:
        """The record of :attr:`guarantee` for an input epsilon (float or per-stream array),
        without building the mechanism (DP-UCB-INT reports it before any run)."""
        total = cor31_advanced_epsilon(scalar_if_uniform(epsilon), v, delta_prime,
                                       noise_multiplier=noise_multiplier)
        return ApproxDP(epsilon=scalar_if_uniform(total), delta=delta_prime)
