"""Privacy guarantees as data, and the rules that compose and convert them.

Every private object in :mod:`dpolearn` exposes a ``guarantee`` property returning one of the
frozen records below. This module composes them:

* :func:`compose` -- basic (sequential) composition: epsilons and deltas add, GDP mus add in
  quadrature;
* :func:`advanced_composition` -- the k-fold advanced composition theorem for (eps, delta)-DP,
  and :func:`heterogeneous_advanced_composition` for pure releases with different budgets.

Every algorithm of the package builds its ``guarantee`` by asking its mechanisms for their
records and composing them here, so a privacy factor is written once, where the mechanism
that spends it is defined.

All records use the event-level neighbouring relation of the book: two reward streams are
neighbours when they differ in the reward vector of exactly one round.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Union

import numpy as np
from scipy.special import log_ndtr

from ._validation import (
    check_delta,
    check_epsilon,
    check_positive,
    check_positive_int,
    check_probability,
    scalar_or_array,
)

# Gaussian DP: trade-off functions and the exact mu-GDP <-> (eps, delta) conversion live in
# dpolearn/gdp.py; re-exported here so `dpolearn.accounting.gdp_delta` etc. work.
from .gdp import (
    gaussian_mechanism_gdp,
    gdp_compose,
    gdp_delta,
    gdp_epsilon,
    gdp_epsilon_from_log_delta,
    gdp_log_delta,
    gdp_to_renyi,
    gdp_to_zcdp,
    pure_dp_to_gdp,
    tradeoff_eps_delta,
    tradeoff_gaussian,
)

__all__ = [
    "PureDP",
    "ApproxDP",
    "GaussianDP",
    "NotPrivate",
    "Guarantee",
    "compose",
    "advanced_composition",
    "heterogeneous_advanced_composition",
]


def _fmt(value) -> str:
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=6, separator=", ")
    return f"{value:.6g}"


def _check_nonnegative(name, value):
    """Guarantee records admit 0 (a data-independent output) and inf."""
    arr = np.asarray(value, dtype=float)
    if np.any(arr == 0):
        if np.any(np.isnan(arr) | (arr < 0)):
            raise ValueError(f"{name} must be >= 0, got {value!r}")
        return scalar_or_array(arr)
    return check_epsilon(value, name=name, allow_inf=True)


@dataclass(frozen=True, repr=False)
class PureDP:
    """Pure epsilon-differential privacy (delta = 0).

    ``epsilon`` is a float, or an array with one entry per run for batched sweeps.
    """

    epsilon: Union[float, np.ndarray]

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_nonnegative("epsilon", self.epsilon))

    def __repr__(self) -> str:
        return f"PureDP(epsilon={_fmt(self.epsilon)})"

    def __eq__(self, other) -> bool:
        return isinstance(other, PureDP) and np.array_equal(self.epsilon, other.epsilon)

    @property
    def delta(self) -> float:
        return 0.0


@dataclass(frozen=True, repr=False)
class ApproxDP:
    """(epsilon, delta)-differential privacy.

    ``epsilon = 0`` is a legitimate record (for example mu-GDP with a delta at least
    ``delta(0)``: only the additive slack is needed).

    >>> ApproxDP(0.0, 0.5)
    ApproxDP(epsilon=0, delta=0.5)
    """

    epsilon: Union[float, np.ndarray]
    delta: Union[float, np.ndarray]

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _check_nonnegative("epsilon", self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))

    def __repr__(self) -> str:
        return f"ApproxDP(epsilon={_fmt(self.epsilon)}, delta={_fmt(self.delta)})"

    def __eq__(self, other) -> bool:
        return (isinstance(other, ApproxDP) and np.array_equal(self.epsilon, other.epsilon)
                and np.array_equal(self.delta, other.delta))


@dataclass(frozen=True, repr=False)
class GaussianDP:
    """mu-Gaussian differential privacy (Dong, Roth and Su 2022).

    Distinguishing two neighbouring inputs is at least as hard as telling N(0, 1) from
    N(mu, 1).
    """

    mu: Union[float, np.ndarray]

    def __post_init__(self):
        object.__setattr__(self, "mu", check_positive("mu", self.mu, allow_inf=True))

    def __repr__(self) -> str:
        return f"GaussianDP(mu={_fmt(self.mu)})"

    def __eq__(self, other) -> bool:
        return isinstance(other, GaussianDP) and np.array_equal(self.mu, other.mu)


@dataclass(frozen=True)
class NotPrivate:
    """No privacy guarantee.

    Parameters
    ----------
    reason : str, optional
        Why no guarantee holds when that is not obvious: ``None`` for a non-private baseline;
        a sentence for a private policy run where the assumption behind its guarantee fails
        (e.g. rewards outside [0, 1], see :func:`dpolearn.simulate`).

    >>> NotPrivate()
    NotPrivate()
    >>> NotPrivate(reason="rewards outside [0, 1]")
    NotPrivate(reason='rewards outside [0, 1]')
    """

    reason: str | None = None

    def __post_init__(self):
        if self.reason is not None and not isinstance(self.reason, str):
            raise TypeError(f"reason must be a str or None, got {self.reason!r}")

    def __repr__(self) -> str:
        return "NotPrivate()" if self.reason is None else f"NotPrivate(reason={self.reason!r})"


Guarantee = Union[PureDP, ApproxDP, GaussianDP, NotPrivate]


def compose(*guarantees: Guarantee) -> Guarantee:
    """Basic sequential composition of several guarantees on the same data.

    Pure and approximate DP compose by adding epsilons and deltas; mu-GDP composes to
    sqrt(sum mu_i^2) (Dong, Roth and Su 2022, Corollary 3.3). Mixing GDP with (eps, delta)
    records is refused: convert first.

    >>> compose(PureDP(0.5), PureDP(0.25))
    PureDP(epsilon=0.75)
    >>> compose(GaussianDP(3.0), GaussianDP(4.0))
    GaussianDP(mu=5)
    """
    if not guarantees:
        raise ValueError("compose needs at least one guarantee, got none")
    for g in guarantees:
        if not isinstance(g, (PureDP, ApproxDP, GaussianDP, NotPrivate)):
            raise TypeError(f"guarantees must be PureDP, ApproxDP, GaussianDP or NotPrivate, "
                            f"got {g!r}")
    if any(isinstance(g, NotPrivate) for g in guarantees):
        return NotPrivate()
    if all(isinstance(g, GaussianDP) for g in guarantees):
        return GaussianDP(mu=np.sqrt(sum(np.square(g.mu) for g in guarantees)))
    if any(isinstance(g, GaussianDP) for g in guarantees):
        raise ValueError("cannot compose GaussianDP with (eps, delta) records directly; "
                         "convert with dpolearn.accounting first")
    epsilon = sum(g.epsilon for g in guarantees)
    delta = sum(g.delta for g in guarantees)
    if np.all(np.asarray(delta) == 0):
        return PureDP(epsilon=epsilon)
    return ApproxDP(epsilon=epsilon, delta=np.minimum(delta, np.nextafter(1.0, 0.0)))


def _advanced_epsilon(sum_eps_expm1, sum_eps_squared, delta_prime: float) -> float:
    r"""The epsilon of advanced composition from its two sums,
    :math:`\sqrt{2\ln(1/\delta')\sum_i\varepsilon_i^2}
    + \sum_i\varepsilon_i(e^{\varepsilon_i}-1)`."""
    return math.sqrt(2 * math.log(1 / delta_prime) * sum_eps_squared) + sum_eps_expm1


def advanced_composition(epsilon: float, delta: float, k: int, delta_prime: float) -> ApproxDP:
    r"""k-fold adaptive composition of an (epsilon, delta)-DP mechanism (advanced composition).

    Returns (eps', k delta + delta') with
    :math:`\varepsilon' = \sqrt{2k\ln(1/\delta')}\,\varepsilon + k\varepsilon(e^\varepsilon - 1)`.

    References
    ----------
    Dwork, Rothblum and Vadhan (2010); Dwork and Roth (2014), Theorem 3.20.

    >>> round(advanced_composition(0.1, 0.0, 100, 1e-5).epsilon, 4)
    5.8502
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k = check_positive_int("k", k)
    delta_prime = check_probability("delta_prime", delta_prime, open_low=True, open_high=True)
    eps_total = _advanced_epsilon(k * epsilon * math.expm1(epsilon), k * epsilon ** 2, delta_prime)
    return ApproxDP(epsilon=eps_total, delta=min(k * delta + delta_prime, math.nextafter(1.0, 0.0)))


def heterogeneous_advanced_composition(epsilons, delta_prime: float) -> ApproxDP:
    r"""Advanced composition of pure releases with different budgets :math:`\varepsilon_i`.

    Returns :math:`(\sum_i\varepsilon_i(e^{\varepsilon_i}-1)
    + \sqrt{2\ln(1/\delta')\sum_i\varepsilon_i^2},\ \delta')`; for k equal budgets this is
    :func:`advanced_composition` with delta = 0.

    References
    ----------
    Dwork, Rothblum and Vadhan (2010), Theorem III.3, in the heterogeneous form used by
    Tossou and Dimitrakakis (2016), Theorem 3.4; Kairouz, Oh and Viswanath (2015).

    >>> heterogeneous_advanced_composition([], 1e-5)
    ApproxDP(epsilon=0, delta=1e-05)
    >>> a = heterogeneous_advanced_composition([0.1] * 100, 1e-5).epsilon
    >>> abs(a - advanced_composition(0.1, 0.0, 100, 1e-5).epsilon) < 1e-12
    True
    """
    e = np.asarray(epsilons, dtype=float).ravel()
    if e.size and np.any(np.isnan(e) | (e < 0)):
        raise ValueError(f"epsilons must be >= 0, got {epsilons!r}")
    dp = check_probability("delta_prime", delta_prime, open_low=True, open_high=True)
    if e.size == 0:
        return ApproxDP(epsilon=0.0, delta=dp)
    total = _advanced_epsilon(float(np.sum(e * np.expm1(e))), float(np.sum(e ** 2)), dp)
    return ApproxDP(epsilon=total, delta=dp)


def gdp_to_approx(mu: float, delta: float) -> ApproxDP:
    """The (eps(delta), delta)-DP record implied by mu-GDP, as an ``ApproxDP``.

    Examples
    --------
    >>> gdp_to_approx(1.0, 1e-5)
    ApproxDP(epsilon=4.37718, delta=1e-05)
    """
    return ApproxDP(epsilon=gdp_epsilon(delta, mu), delta=delta)


def gdp_equivalent_epsilon(mu) -> float | np.ndarray:
    r"""The epsilon whose eps-DP algorithms are exactly mu-GDP: the inverse of
    :func:`~dpolearn.gdp.pure_dp_to_gdp`, :math:`\varepsilon = \ln\Phi(\mu/2) - \ln\Phi(-\mu/2)`.

    Examples
    --------
    >>> round(float(gdp_equivalent_epsilon(pure_dp_to_gdp(0.5))), 12)
    0.5
    """
    mu = np.asarray(check_positive("mu", mu, allow_inf=True))
    return scalar_or_array(log_ndtr(mu / 2) - log_ndtr(-mu / 2))


def privacy_level(guarantee: Guarantee, epsilon: float | None = None) -> dict:
    """A guarantee record placed on one common scale (the comparison chapter's privacy axis).

    Returns ``kind``, ``text`` (short description for tables), ``epsilon`` (the epsilon of the
    comparison axis: eps for pure and (eps, delta), the GDP-equivalent epsilon for GDP, inf for
    none), ``delta`` (0 for pure; for GDP, delta at ``epsilon`` given or the equivalent one) and
    ``mu`` (GDP level; for pure eps-DP the smallest valid mu; None for (eps, delta)).
    """
    if isinstance(guarantee, NotPrivate):
        return {"kind": "none", "text": "not private", "epsilon": math.inf, "delta": 1.0,
                "mu": math.inf}
    if isinstance(guarantee, PureDP):
        e = float(np.asarray(guarantee.epsilon))
        return {"kind": "pure", "text": f"{e:g}-DP", "epsilon": e, "delta": 0.0,
                "mu": float(pure_dp_to_gdp(e)) if e > 0 else 0.0}
    if isinstance(guarantee, ApproxDP):
        e, d = float(np.asarray(guarantee.epsilon)), float(np.asarray(guarantee.delta))
        return {"kind": "approx", "text": f"({e:.3g}, {d:.2g})-DP", "epsilon": e, "delta": d,
                "mu": None}
    if isinstance(guarantee, GaussianDP):
        mu = float(np.asarray(guarantee.mu))
        e = gdp_equivalent_epsilon(mu) if epsilon is None else float(epsilon)
        d = float(gdp_delta(e, mu))
        return {"kind": "gdp", "text": f"{mu:.3g}-GDP (δ = {d:.2g} at ε = {e:.3g})",
                "epsilon": e, "delta": d, "mu": mu}
    raise TypeError(f"guarantee must be a dpolearn guarantee record, got {guarantee!r}")


__all__ += ["tradeoff_gaussian", "tradeoff_eps_delta", "gaussian_mechanism_gdp", "gdp_compose",
            "gdp_delta", "gdp_log_delta", "gdp_epsilon", "gdp_epsilon_from_log_delta",
            "gdp_to_approx", "pure_dp_to_gdp", "gdp_to_zcdp", "gdp_to_renyi",
            "gdp_equivalent_epsilon", "privacy_level"]
