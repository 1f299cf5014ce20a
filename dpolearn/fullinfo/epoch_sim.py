"""Exact laws of RNM-FTNL's epochs (Wu and Wang 2025, Algorithm 1 and Sec. 4).

RNM-FTNL's actions depend only on the epoch decisions J_0, J_1, ..., and each J_r depends only
on the loss sums G_r of epoch r. So the laws of interest can be computed from G_r directly
instead of looping over the 2^(r-1) rounds of the epoch:

* with Bernoulli resampling (B = 1) on any product instance, G_{r,j} ~ Binomial(n_r, mu_j);
* without it (B = 0) on two-point losses (a_j w.p. 1 - p_j, b_j w.p. p_j),
  G_{r,j} = n_r a_j + (b_j - a_j) Binomial(n_r, p_j); deterministic losses are the case a = b.

This module draws one epoch's sums (:func:`epoch_loss_sums`), computes the exact probability
of each decision for K = 2 (:func:`two_action_probability`) and the exact privacy loss of one
decision (:func:`privacy_loss_two_actions`), and, in the deterministic setting, the exact
expected regret (:func:`exact_regret_deterministic`, from the selection probabilities of
report-noisy-max, :func:`dpolearn.mechanisms.noisy_max.selection_probabilities`).
Simulating a policy over a horizon is :func:`dpolearn.simulate`, which plays RNM-FTNL an epoch
at a time from the same sums by itself (:func:`dpolearn.simulate.play_blocks`), so horizons like
T = 2^30 take milliseconds.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from .._validation import (
    as_float_array,
    as_rng,
    check_bool,
    check_choice,
    check_epsilon,
    check_means,
    check_positive,
    check_positive_int,
)
from ..envs import TwoPointExperts
from ..mechanisms.noisy_max import (
    NOISE_FAMILIES,
    noise_difference_log_sf,
    noise_difference_sf,
    selection_probabilities,
)
from .rnm_ftnl import RNMFTNL, n_epochs

__all__ = [
    "epoch_loss_sums",
    "exact_regret_deterministic",
    "privacy_loss_two_actions",
    "two_action_probability",
]


# ---------------------------------------------------------------------------------------------
# One epoch's loss sums
# ---------------------------------------------------------------------------------------------
def epoch_loss_sums(instance: TwoPointExperts, n: int, resample: bool, n_runs: int,
                    rng) -> np.ndarray:
    """One epoch's loss sums G_r of n rounds, shape (n_runs, K), exact in distribution.

    A stand-alone draw from a fresh copy of ``instance`` (see
    :meth:`dpolearn.envs.TwoPointExperts.loss_block_sums`).
    """
    if not isinstance(instance, TwoPointExperts):
        raise TypeError(f"instance must be a TwoPointExperts, got {instance!r}")
    n = check_positive_int("n", n)
    resample = check_bool("resample", resample)
    n_runs = check_positive_int("n_runs", n_runs)
    env = TwoPointExperts(instance.low, instance.high, instance.p_high)
    env.reset(n_runs, as_rng(rng))
    return env.loss_block_sums(n, resampled=resample)


# ---------------------------------------------------------------------------------------------
# Exact expected regret in the deterministic setting (Wu and Wang 2025, Sec. 4)
# ---------------------------------------------------------------------------------------------
def exact_regret_deterministic(means, *, epsilon, noise: str = "laplace", noise_factor="strict",
                               horizon=None, first_action: str = "uniform",
                               tol: float = 1e-12, max_epochs: int = 400):
    r"""Exact expected pseudo-regret of RNM-FTNL (B = 0) when every loss vector equals ``means``.

    With p_m = P[J_m = .], p_0 uniform (or a point mass on action 0) and, for m >= 1,
    p_m = RNM probabilities of the scores -2^(m-1) mu at the noise scale b = c / epsilon:

    .. math:: R(T) = \sum_{r=1}^{R(T)} n_r^{\rm eff}(T) \sum_j \Delta_j p_{r-1}(j), \qquad
              R(\infty) = \bar\Delta + \sum_{m\ge1} 2^m \sum_j \Delta_j p_m(j).

    Parameters
    ----------
    means : array-like of shape (K,)
        The deterministic losses.
    epsilon : float
        Privacy parameter (> 0, may be inf).
    noise : {"laplace", "exponential", "gumbel"}
    noise_factor : {"strict", "wu2025", "hu2021"} or float
        As in :class:`~dpolearn.fullinfo.RNMFTNL`.
    horizon : int or array of ints, optional
        If omitted, the limit R(infinity) (the series is summed until its terms fall below
        ``tol``).
    first_action : {"uniform", "first"}

    Returns
    -------
    float or ndarray
        R(infinity), or R(T) for each horizon.

    References
    ----------
    Wu and Wang (2025), Section 4 (deterministic setting) and Theorem 11.

    Examples
    --------
    >>> round(exact_regret_deterministic([0.0, 1.0], epsilon=1.0, noise="gumbel"), 3)
    3.583
    """
    mu = check_means(means)
    if mu.ndim != 1:
        raise ValueError(f"means must have shape (K,), got shape {mu.shape}")
    epsilon = float(check_epsilon(epsilon, allow_inf=True))
    noise = check_choice("noise", noise, tuple(NOISE_FAMILIES))
    first_action = check_choice("first_action", first_action, ("uniform", "first"))
    scale = RNMFTNL(epsilon=epsilon, noise=noise, noise_factor=noise_factor).noise_scale()
    delta = mu - mu.min()
    e0 = delta.mean() if first_action == "uniform" else delta[0]

    def expected_gap(m):                                   # E[Delta_{J_m}], m >= 1
        return float(delta @ selection_probabilities(-(2.0 ** (m - 1)) * delta, noise, scale))

    if horizon is None:
        total, prev = e0, np.inf
        for m in range(1, max_epochs + 1):
            term = 2.0 ** m * expected_gap(m)
            total += term
            if term < tol * max(1.0, total) and term <= prev:
                return float(total)
            prev = term
        raise RuntimeError(f"series did not converge within max_epochs={max_epochs}")
    T = np.atleast_1d(np.asarray(horizon))
    if T.dtype.kind not in "iu" or np.any(T < 1):
        raise ValueError(f"horizon must be positive integers, got {horizon!r}")
    R = max(n_epochs(int(t)) for t in T)
    e = np.zeros(R)
    e[0] = e0
    for m in range(1, R):
        e[m] = expected_gap(m)
        if e[m] == 0.0:
            break
    out = np.zeros(T.shape)
    for r in range(1, R + 1):
        first, last = 2 ** (r - 1), 2 ** r - 1
        n_eff = np.clip(np.minimum(last, T) - first + 1, 0, None).astype(float)
        out += n_eff * e[r - 1]
    return out if np.ndim(horizon) else float(out[0])


# ---------------------------------------------------------------------------------------------
# Two actions: closed forms (resampling example, privacy losses)
# ---------------------------------------------------------------------------------------------
def two_action_probability(instance: TwoPointExperts, n: int, *, resample: bool,
                           noise: str = "laplace", scale: float = 1.0) -> float:
    r"""Exact P[J_r = 1] (the second action) after an epoch of n rounds, K = 2.

    Enumerates the joint law of the two epoch sums (binomial) and applies
    P[J = 1 | G] = P(Q_2 - Q_1 > G_2 - G_1) for i.i.d. noise Q_1, Q_2 of scale b.

    Parameters
    ----------
    instance : TwoPointExperts
        Two actions, shape (2,).
    n : int
        Length of the epoch (rounds), >= 1.
    resample : bool
        Bernoulli resampling (B = 1 of Wu and Wang 2025) before the sums are taken.
    noise : {"laplace", "exponential", "gumbel"}
        Family of the report-noisy-max noise.
    scale : float
        The noise scale b, >= 0; ``scale = 0`` is the noiseless argmax with ties counted as one
        half.

    Returns
    -------
    float
        P[J_r = 1].
    """
    if not isinstance(instance, TwoPointExperts):
        raise TypeError(f"instance must be a TwoPointExperts, got {instance!r}")
    if instance.n_arms != 2 or instance.p_high.ndim != 1:
        raise ValueError(f"instance must have K = 2 actions and shape (2,), got {instance!r}")
    n = check_positive_int("n", n)
    resample = check_bool("resample", resample)
    noise = check_choice("noise", noise, tuple(NOISE_FAMILIES))
    noiseless = as_float_array("scale", scale).ndim == 0 and float(scale) == 0.0
    if not noiseless:
        scale = check_positive("scale", scale)
    k = np.arange(n + 1)
    sums, weights = [], []
    for j in range(2):
        if resample:
            p, lo, hi = instance.means[j], 0.0, 1.0
        else:
            p, lo, hi = instance.p_high[j], instance.low[j], instance.high[j]
        sums.append(n * lo + (hi - lo) * k)
        weights.append(np.exp(stats.binom.logpmf(k, n, p)))
    d = sums[1][None, :] - sums[0][:, None]                 # G_2 - G_1
    wgt = np.outer(weights[0], weights[1])
    if noiseless:
        cond = (d < -1e-12) + 0.5 * (np.abs(d) <= 1e-12)
    else:
        cond = noise_difference_sf(d, noise, scale)
    return float((wgt * cond).sum())


def privacy_loss_two_actions(d, *, noise: str = "laplace", scale: float = 1.0,
                             shift: float = 2.0) -> np.ndarray:
    r"""Exact privacy loss of report-noisy-max with K = 2 between scores differing by ``shift``.

    Under replace-one-vector neighbours the two epoch sums move by at most 1 each, in any
    direction, so the score difference d = G_2 - G_1 can move to d + 2. Returns
    :math:`\max_{j}|\ln P(J=j\mid d) - \ln P(J=j\mid d+{\rm shift})|` for each d.
    """
    noise = check_choice("noise", noise, tuple(NOISE_FAMILIES))
    d = np.asarray(d, dtype=float)
    ls = noise_difference_log_sf(d, noise, scale)
    ls2 = noise_difference_log_sf(d + shift, noise, scale)
    # log P(J = 0 | d) = log P(Q_2 - Q_1 < d) = log sf(-d) by symmetry of Q_2 - Q_1
    lc = noise_difference_log_sf(-d, noise, scale)
    lc2 = noise_difference_log_sf(-(d + shift), noise, scale)
    return np.maximum(np.abs(ls - ls2), np.abs(lc - lc2))
