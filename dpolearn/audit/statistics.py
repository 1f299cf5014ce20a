r"""The statistics of an audit: Clopper-Pearson intervals and the lower confidence bound on
epsilon from two event counts, and :class:`~dpolearn.audit.AuditResult`, what an audit found.

References
----------
.. [JUO20] Jagielski, Ullman and Oprea, "Auditing differentially private machine learning:
   how private is private SGD?", NeurIPS 2020 (Clopper-Pearson lower bounds on epsilon).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np
from scipy import special

from .._validation import as_float_array, check_positive_int, check_probability, show

__all__ = ["clopper_pearson", "epsilon_lower_bound", "epsilon_lower_bounds", "AuditResult"]


def _check_count(name: str, value, n: int) -> int:
    """An event count: an integer in [0, n] (``TypeError``/``ValueError`` naming it otherwise)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer count, got {show(value)}")
    if not 0 <= value <= n:
        raise ValueError(f"{name} must lie in [0, {n}] (the number of trials), got {show(value)}")
    return int(value)


def clopper_pearson(k: int, n: int, confidence: float) -> Tuple[float, float]:
    """Two-sided Clopper-Pearson interval for a binomial proportion (k successes in n).

    ``k`` must be an integer in [0, n], ``n >= 1`` and ``confidence`` in (0, 1).

    >>> lo, hi = clopper_pearson(50, 100, 0.95)
    >>> round(lo, 4), round(hi, 4)
    (0.3983, 0.6017)
    """
    n = check_positive_int("n", n)
    k = _check_count("k", k, n)
    confidence = check_probability("confidence", confidence, open_low=True, open_high=True)
    lo, hi = _clopper_pearson_arrays(np.asarray(k), n, confidence)
    return float(lo), float(hi)


def epsilon_lower_bound(k1: int, n1: int, k2: int, n2: int, *, confidence: float = 0.95,
                        delta: float = 0.0) -> Tuple[float, float]:
    r"""Lower confidence bound and point estimate of epsilon from two event counts.

    ``k1`` of ``n1`` trials on D and ``k2`` of ``n2`` trials on D' fell in the event A. Each
    probability gets a two-sided Clopper-Pearson interval at level
    :math:`1-(1-\text{confidence})/2`, so both hold together with probability at least
    ``confidence``; on that event every candidate below is a valid lower bound on any epsilon
    for which the mechanism is (epsilon, delta)-DP:
    :math:`\ln\frac{\underline p-\delta}{\bar q}`, :math:`\ln\frac{\underline q-\delta}{\bar p}`,
    and the same for the complement of A. Returns ``(lower, estimate)``, both >= 0.

    >>> lo, est = epsilon_lower_bound(5000, 10000, 1839, 10000)
    >>> round(est, 3), lo < est
    (1.0, True)
    """
    n1 = check_positive_int("n1", n1)
    n2 = check_positive_int("n2", n2)
    k1 = _check_count("k1", k1, n1)
    k2 = _check_count("k2", k2, n2)
    confidence = check_probability("confidence", confidence, open_low=True, open_high=True)
    delta = check_probability("delta", delta, open_high=True)
    lower, est = epsilon_lower_bounds(k1, n1, k2, n2, confidence=confidence, delta=delta)
    return float(lower), float(est)


def _clopper_pearson_arrays(k: np.ndarray, n: int, confidence: float):
    """:func:`clopper_pearson` on an integer array of counts (no validation)."""
    alpha = 1.0 - confidence
    with np.errstate(invalid="ignore"):
        # quantiles of Beta(k, n - k + 1) and Beta(k + 1, n - k)
        lo = np.where(k == 0, 0.0, special.betaincinv(np.maximum(k, 1), n - k + 1, alpha / 2))
        hi = np.where(k == n, 1.0, special.betaincinv(k + 1, np.maximum(n - k, 1),
                                                      1 - alpha / 2))
    return lo, hi


def _log_ratios(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """max(0, ln(num/den)) elementwise; 0 when num <= 0, inf when den <= 0 < num."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(np.where(num > 0, num, 1.0) / np.where(den > 0, den, 1.0))
    out = np.where(den <= 0, np.inf, np.maximum(out, 0.0))
    return np.where(num <= 0, 0.0, out)


def epsilon_lower_bounds(k1, n1: int, k2, n2: int, *, confidence: float = 0.95,
                         delta: float = 0.0) -> Tuple[np.ndarray, np.ndarray]:
    """:func:`epsilon_lower_bound` for arrays of event counts ``k1``, ``k2`` (same shape),
    evaluated elementwise: what a search ranks its many candidate events with.

    Returns ``(lower, estimate)``, float arrays of the counts' shape.

    >>> lo, est = epsilon_lower_bounds([5000, 10], 10000, [1839, 10], 10000)
    >>> [round(float(v), 3) for v in est]
    [1.0, 0.0]
    """
    n1 = check_positive_int("n1", n1)
    n2 = check_positive_int("n2", n2)
    k1 = np.asarray(k1)
    k2 = np.asarray(k2)
    for name, k, n in (("k1", k1, n1), ("k2", k2, n2)):
        if k.dtype.kind not in "iu":
            raise TypeError(f"{name} must be an integer array of counts, got dtype {k.dtype}")
        if k.size and (k.min() < 0 or k.max() > n):
            raise ValueError(f"{name} must lie in [0, {n}] (the number of trials), got "
                             f"values in [{k.min()}, {k.max()}]")
    if k1.shape != k2.shape:
        raise ValueError(f"k1 and k2 must have the same shape, got {k1.shape} and {k2.shape}")
    confidence = check_probability("confidence", confidence, open_low=True, open_high=True)
    delta = check_probability("delta", delta, open_high=True)
    each = 1.0 - (1.0 - confidence) / 2           # both intervals hold with prob. >= confidence
    p_lo, p_hi = _clopper_pearson_arrays(k1, n1, each)
    q_lo, q_hi = _clopper_pearson_arrays(k2, n2, each)
    p, q = k1 / n1, k2 / n2
    lower = np.maximum.reduce([_log_ratios(p_lo - delta, q_hi), _log_ratios(q_lo - delta, p_hi),
                               _log_ratios((1 - p_hi) - delta, 1 - q_lo),
                               _log_ratios((1 - q_hi) - delta, 1 - p_lo)])
    est = np.maximum.reduce([_log_ratios(p - delta, q), _log_ratios(q - delta, p),
                             _log_ratios(1 - p - delta, 1 - q), _log_ratios(1 - q - delta, 1 - p)])
    return lower, est


@dataclass(frozen=True)
class AuditResult:
    """What one audit found.

    Attributes
    ----------
    epsilon_lower : float
        Lower confidence bound on epsilon (valid with probability ``confidence``).
    epsilon_estimate : float
        Point estimate from the observed frequencies (not a bound).
    confidence, delta : float
        Confidence level of the bound and the delta it assumes (0 for pure DP).
    event : str
        Name of the event (and neighbouring pair) that gave the bound.
    p, q : float
        Observed frequencies of the event on D and on D'.
    n_trials : int
        Trials per side used for the bound (selection trials not included).
    claimed : float or None
        The epsilon the audited object claims (its ``guarantee``), for the verdict.
    """

    epsilon_lower: float
    epsilon_estimate: float
    confidence: float
    delta: float
    event: str
    p: float
    q: float
    n_trials: int
    claimed: Optional[float] = None

    def __post_init__(self):
        names = ("epsilon_lower", "epsilon_estimate") + (() if self.claimed is None
                                                         else ("claimed",))
        for name in names:                             # epsilons: >= 0, inf allowed
            value = as_float_array(name, getattr(self, name))
            if value.ndim != 0 or np.isnan(value) or value < 0:
                raise ValueError(f"{name} must be a number >= 0, got {show(getattr(self, name))}")
        check_probability("confidence", self.confidence, open_low=True, open_high=True)
        check_probability("delta", self.delta, open_high=True)
        check_probability("p", self.p)
        check_probability("q", self.q)
        if not isinstance(self.event, str):
            raise TypeError(f"event must be a str, got {show(self.event)}")
        check_positive_int("n_trials", self.n_trials)

    @property
    def violated(self) -> bool:
        """True when the lower bound exceeds the claimed epsilon (the claim is refuted)."""
        return self.claimed is not None and self.epsilon_lower > self.claimed

    @property
    def verdict(self) -> str:
        if self.claimed is None:
            return "no claim"
        return "VIOLATED" if self.violated else "consistent"
