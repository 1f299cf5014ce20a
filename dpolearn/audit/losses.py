r"""Exact and white-box privacy losses: computed from a mechanism's output law (report-noisy-max,
Laplace releases, the hybrid counter's node structure) or from the noise a run actually drew
(the GDP ledger of the Thompson-sampling policies, the interval mean's releases), not sampled
as in the black-box auditor.
"""
from __future__ import annotations

import math
from typing import Tuple

import numpy as np
from scipy import stats

from .._validation import (
    as_float_array,
    check_bool,
    check_positive,
    check_positive_int,
    show,
)
from ..accounting import ApproxDP, GaussianDP, PureDP, heterogeneous_advanced_composition
from ..mechanisms import ExponentialMechanism, LaplaceMechanism, ReportNoisyMax
from ..mechanisms.counters import tree_scale_factor
from ..mechanisms.noisy_max import noise_difference_sf
from ..policy import Policy
from ..simulate import simulate

__all__ = ["exact_epsilon", "rnm_exact_epsilon", "rnm_event_losses", "laplace_difference_sf",
           "laplace_event_loss", "laplace_composed", "gaussian_composed",
           "hybrid_counter_exact_epsilon", "whitebox_gdp", "whitebox_interval_mean"]


# ------------------------------------------------------------------------------ exact losses
def _as_selection_mechanism(rnm) -> ReportNoisyMax:
    """``rnm`` itself, or the report-noisy-max behind an exponential mechanism."""
    if isinstance(rnm, ExponentialMechanism):
        return rnm.report_noisy_max
    if not isinstance(rnm, ReportNoisyMax):
        raise TypeError(f"rnm must be a ReportNoisyMax or ExponentialMechanism, got {show(rnm)}")
    return rnm


def rnm_event_losses(rnm, scores, neighbour) -> np.ndarray:
    """Exact privacy loss ln P(i | scores) - ln P(i | neighbour) of each selection, shape (K,)
    (:meth:`~dpolearn.mechanisms.ReportNoisyMax.privacy_loss`)."""
    return _as_selection_mechanism(rnm).privacy_loss(scores, neighbour)


def laplace_difference_sf(a, scale):
    r""":math:`P(Z_0 - Z_1 > a)` for i.i.d. :math:`Z_i \sim \mathrm{Lap}(b)`: the Laplace case of
    :func:`~dpolearn.mechanisms.noisy_max.noise_difference_sf`.

    Two-action report-noisy-max with Laplace noise selects action 0 with probability
    ``laplace_difference_sf(s_1 - s_0, b)``.

    >>> float(laplace_difference_sf(0.0, 1.0))
    0.5
    """
    return noise_difference_sf(a, "laplace", scale)


def rnm_exact_epsilon(rnm, scores, neighbour) -> float:
    r"""Largest \|privacy loss\| over all output sets for one pair of score vectors
    (:meth:`~dpolearn.mechanisms.ReportNoisyMax.max_privacy_loss`)."""
    return _as_selection_mechanism(rnm).max_privacy_loss(scores, neighbour)


def laplace_event_loss(c: float, value: float, neighbour: float, scale: float, *,
                       complement: bool = False) -> float:
    r"""Exact privacy loss of the event {Y > c} for Y = value + Lap(scale) against neighbour.

    With ``value > neighbour`` it equals :math:`(value - neighbour)/scale` once c is at or
    beyond the larger value, and is smaller below it: the tail event is where the bound is
    attained. ``complement=True`` gives the loss of {Y <= c} with the roles swapped
    (log P(Y <= c | neighbour) - log P(Y <= c | value)), the tail event on the other side.
    """
    scale = check_positive("scale", scale)
    for name, v in (("c", c), ("value", value), ("neighbour", neighbour)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer,
                                                                  np.floating)) or np.isnan(v):
            raise TypeError(f"{name} must be a real number, got {show(v)}")
    if check_bool("complement", complement):
        lp = stats.laplace.logcdf(c, loc=neighbour, scale=scale)
        lq = stats.laplace.logcdf(c, loc=value, scale=scale)
    else:
        lp = stats.laplace.logsf(c, loc=value, scale=scale)
        lq = stats.laplace.logsf(c, loc=neighbour, scale=scale)
    return float(lp - lq)


def exact_epsilon(mechanism, data, neighbour) -> float:
    r"""Exact epsilon of one neighbouring pair, where the output law is computable.

    * :class:`~dpolearn.mechanisms.LaplaceMechanism` on values ``data`` and ``neighbour``:
      the density ratio is largest in the tails, :math:`|v - v'|/b`.
    * :class:`~dpolearn.mechanisms.ReportNoisyMax` (any noise family) or
      :class:`~dpolearn.mechanisms.ExponentialMechanism` on score vectors with K = 2 or 3:
      :func:`rnm_exact_epsilon` (quadrature or closed form).

    Use it instead of sampling wherever it applies; the auditor's sampled bound on the same
    pair can only be smaller (up to its confidence level).
    """
    if isinstance(mechanism, LaplaceMechanism):
        diff = np.max(np.abs(np.asarray(data, dtype=float) - np.asarray(neighbour, dtype=float)))
        return float(diff / np.max(mechanism.noise_scale))
    if isinstance(mechanism, ExponentialMechanism):
        mechanism = mechanism.report_noisy_max
    if isinstance(mechanism, ReportNoisyMax):
        k = np.asarray(data).size
        if k not in (2, 3):
            raise ValueError(f"exact report-noisy-max needs K = 2 or 3 scores, got K = {k}")
        return rnm_exact_epsilon(mechanism, data, neighbour)
    raise TypeError(f"mechanism must be a LaplaceMechanism, ReportNoisyMax or "
                    f"ExponentialMechanism, got {mechanism!r}")


def _sensitivities_and_scales(sensitivities, name: str, scales):
    """Validated float arrays: sensitivities >= 0 and finite, noise scales > 0 (same shape)."""
    s = as_float_array("sensitivities", sensitivities)
    b = as_float_array(name, scales)
    if np.any(np.isnan(s) | (s < 0) | np.isinf(s)):
        raise ValueError(f"sensitivities must be finite and >= 0, got {show(sensitivities)}")
    if np.any(np.isnan(b) | (b <= 0)):
        raise ValueError(f"{name} must be > 0, got {show(scales)}")
    try:
        np.broadcast(s, b)
    except ValueError:
        raise ValueError(f"sensitivities and {name} must have the same shape, got shapes "
                         f"{s.shape} and {b.shape}") from None
    return s, b


def laplace_composed(sensitivities, scales) -> PureDP:
    r"""White-box pure-DP loss of Laplace releases touched by one record:
    :math:`\sum_i \Delta_i / b_i` (basic composition, exact for the worst output)."""
    s, b = _sensitivities_and_scales(sensitivities, "scales", scales)
    return PureDP(epsilon=float(np.sum(s / b)))


def gaussian_composed(sensitivities, sigmas) -> GaussianDP:
    r"""White-box GDP level of Gaussian releases touched by one record:
    :math:`\sqrt{\sum_i (\Delta_i/\sigma_i)^2}` (Dong, Roth and Su 2022, Corollary 3.3)."""
    s, sig = _sensitivities_and_scales(sensitivities, "sigmas", sigmas)
    return GaussianDP(mu=float(np.sqrt(np.sum((s / sig) ** 2))))


def hybrid_counter_exact_epsilon(epsilon_log: float, epsilon_tree: float, n_max: int, *,
                                 tree_log_base=2) -> Tuple[float, int]:
    r"""Exact worst-case privacy loss of the hybrid counter over its first ``n_max`` items.

    The releases determine every noisy p-sum (logarithmic blocks :math:`2^{k-1}+1..2^k` with
    :math:`\mathrm{Lap}(1/\varepsilon_L)`; in epoch k a tree over :math:`2^k+1..2^{k+1}-1`
    whose nodes carry :math:`\mathrm{Lap}(k/\varepsilon_B)`, or :math:`\ln(2^k)/\varepsilon_B`
    with natural-log trees). Changing item p by 1 moves each p-sum containing it by 1, so its
    loss is :math:`\sum 1/b` over those p-sums (:func:`laplace_composed`). Returns
    ``(worst loss, position attaining it)``.
    """
    n_max = check_positive_int("n_max", n_max)
    loss = np.zeros(n_max + 1)
    factor = tree_scale_factor(tree_log_base)
    k = 0
    while (1 << k) <= n_max:
        lo = (1 << (k - 1)) + 1 if k else 1
        loss[lo:min((1 << k), n_max) + 1] += epsilon_log      # one logarithmic block
        size = 1 << k
        if k:
            b = factor * k / epsilon_tree
            for j in range(k):                                 # tree levels of epoch k
                for m in range(1, (size >> j) + 1):
                    first, last = size + (m - 1) * (1 << j) + 1, size + m * (1 << j)
                    if last < 2 * size and last <= n_max:
                        loss[first:last + 1] += 1.0 / b
        k += 1
    p = int(np.argmax(loss[1:]) + 1)
    return float(loss[p]), p


# ------------------------------------------------------------------------------ white-box
def whitebox_gdp(policy: Policy, env, horizon: int, *, n_runs: int = 4, seed=0,
                 normalised: bool = False) -> float:
    r"""Composed GDP level of the worst single observation in a run of a Gaussian-DP policy.

    Runs ``policy`` (which must support ``track_privacy=True``, as
    :class:`~dpolearn.bandits.DPTSUCB` and :class:`~dpolearn.bandits.MTSGaussian` do) and
    reads its ledger: every posterior draw is a Gaussian mechanism on an empirical mean, with
    sensitivity 1/n and the standard deviation actually used, and the mu^2 of the draws that
    one observation feeds add up (:func:`gaussian_composed`). Returns the largest level over
    runs, to compare with ``policy.guarantee.mu``.

    ``normalised=True`` (DP-TS-UCB only) scales each posterior's sum by its n, which is what
    the proof bounds for every posterior (the n = 1 worst case), so the check is sharp even
    when no n = 1 posterior uses its whole budget in a short run.
    """
    check_bool("normalised", normalised)
    if not getattr(policy, "track_privacy", False):
        raise ValueError(f"policy must be built with track_privacy=True, got {policy!r}")
    simulate(policy, env, horizon, n_runs, seed=seed, checkpoints=[horizon], progress=False)
    if normalised:
        return float(np.max(policy.privacy_ledger(normalised=True)))
    return float(np.max(policy.privacy_ledger()))


def whitebox_interval_mean(mechanism_factory, n_max: int, *, n_samples: int = 4000,
                           delta_prime: float = math.exp(-10), seed=0) -> ApproxDP:
    r"""White-box (epsilon, delta) of the interval Laplace mean (DP-UCB-INT), from its releases.

    Feeds ``n_max`` zero rewards to ``n_samples`` independent streams of the mechanism built by
    ``mechanism_factory(shape, rng)``, collects the released noise at every release point n,
    and estimates its Laplace scale by the mean absolute value (:math:`E|\mathrm{Lap}(b)|=b`).
    A release of :math:`s/n` has sensitivity 1/n, so it costs
    :math:`\varepsilon_n = (1/n)/\hat b_n`; one reward (the worst: the first of an arm) enters
    every release, and the costs compose by heterogeneous advanced composition with
    ``delta_prime``. The estimate's relative error is about :math:`1/\sqrt{n_{samples}}`.
    """
    n_max = check_positive_int("n_max", n_max)
    mech = mechanism_factory((n_samples, 1), np.random.default_rng(seed))
    eps_n = []
    last = np.zeros((n_samples, 1), dtype=np.int64)
    for _ in range(n_max):
        mech.add(0.0)
        released = mech.n_rel != last
        if np.all(released):
            n = float(mech.n_rel[0, 0])
            b_hat = float(np.mean(np.abs(mech.mu_tilde)))       # the sums are 0: pure noise
            eps_n.append((1.0 / n) / b_hat)
            last = mech.n_rel.copy()
    return heterogeneous_advanced_composition(eps_n, delta_prime)
