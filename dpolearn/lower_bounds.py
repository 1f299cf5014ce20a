r"""Lower bounds for private online learning: the hard instances and the bound formulas.

Two constructions for the full-information (experts) problem under pure epsilon-DP, and the
bandit lower bounds the papers cite, all as functions of (K, gaps, epsilon, T):

* **Theorem 12 of Hu, Huang, Mehta and Hegde** (stochastic experts): the K product-Bernoulli
  instances :func:`hu2021_hard_instances`, their exact pairwise total-variation and KL
  distances (:func:`tv_distance_matrix`, :func:`kl_matrix`), the DP Fano error bound of
  Acharya, Sun and Zhang as corrected in that paper (:func:`dp_fano_error_bound`), and the
  batch-to-online conversion (:func:`majority_vote`, :func:`batch_to_online`) that turns it
  into the regret bound :func:`hu2021_privacy_regret_lower_bound` (``0.0098 ln K / epsilon``).
* **Theorem 7 of Wu and Wang** (deterministic experts): the cyclic instances
  :func:`wu2025_cyclic_instances`, the bound on the average probability of playing a
  near-best action (:func:`wu2025_success_probability_bound`) and the regret bounds
  :func:`wu2025_regret_lower_bound` (integral form, finite T or T = inf) and
  :func:`wu2025_regret_lower_bound_sum` (the sum before the integral step).
* **Bandits** (cited, not proved, in Hu et al.): :func:`lai_robbins_lower_bound`
  (non-private, asymptotic), :func:`shariff_sheffet_lower_bound` (private, order only),
  :func:`private_sub_ucb_rate` and :func:`azize_basu_minimax_lower_bound`.

Every function validates its inputs and refuses values outside the domain of the theorem it
implements with a ``ValueError`` naming the parameter and the value.

References
----------
.. [HHMH] Hu, Huang, Mehta and Hegde, "Near-optimal algorithms for differentially private
   online learning in a stochastic environment", arXiv:2102.07929v3, Theorem 12 and
   Appendix D.3.
.. [WW] Wu and Wang, "Improved regret in stochastic decision-theoretic online learning under
   differential privacy", Theorem 7 and Appendix E.
.. [ASZ] Acharya, Sun and Zhang, "Differentially private Assouad, Fano, and Le Cam",
   ALT 2021, Theorem 2 and Corollary 4.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
from scipy import special

from ._validation import (
    check_bool,
    check_choice,
    check_epsilon,
    check_interval,
    check_means,
    check_positive,
    check_positive_int,
    scalar_or_array,
)
from .bandits.kl import kl_bernoulli
from .envs import BernoulliExperts
from .simulate import simulate

__all__ = [
    "hu2021_hard_instances", "product_bernoulli_pmf", "tv_distance_matrix", "kl_matrix",
    "tv_witness_set", "dp_fano_error_bound", "fano_error_bound", "hu2021_sample_complexity",
    "hu2021_theorem12_min_horizon", "hu2021_privacy_regret_lower_bound", "majority_vote",
    "BatchToOnline", "batch_to_online",
    "wu2025_cyclic_instances", "wu2025_near_best_sets", "wu2025_success_probability_bound",
    "wu2025_regret_lower_bound", "wu2025_regret_lower_bound_sum",
    "lai_robbins_lower_bound", "lai_robbins_constant", "shariff_sheffet_lower_bound",
    "private_sub_ucb_rate",
    "azize_basu_minimax_lower_bound",
]

#: Largest K for which the exact pmf over {0,1}^K is enumerated.
MAX_ENUMERATE_K = 16


# ----------------------------------------------------------------------------------------------
# Theorem 12 of Hu, Huang, Mehta and Hegde: the packing, its distances, DP Fano
# ----------------------------------------------------------------------------------------------
def hu2021_hard_instances(n_arms: int, gap: float) -> np.ndarray:
    r"""The K product-Bernoulli reward instances of Theorem 12 (Hu, Huang, Mehta and Hegde).

    Instance j gives every action mean reward 1/2 except action j, whose mean is 1/2 + gap:
    action j is the unique best action and every other action has gap exactly ``gap``
    (Appendix D.3, Step 1).

    Parameters
    ----------
    n_arms : int
        Number of actions K >= 2 (Theorem 12 itself needs K >= 4).
    gap : float
        Delta in (0, 1/2), so that all means lie in [0, 1] (Theorem 12 needs Delta < 1/4).

    Returns
    -------
    ndarray of shape (K, K)
        Row j holds the mean rewards of instance j (rows = hidden best action).

    Examples
    --------
    >>> hu2021_hard_instances(3, 0.1).tolist()
    [[0.6, 0.5, 0.5], [0.5, 0.6, 0.5], [0.5, 0.5, 0.6]]
    """
    n_arms = check_positive_int("n_arms", n_arms, minimum=2)
    gap = check_interval("gap", gap, 0.0, 0.5, low_open=True, high_open=True)
    return 0.5 + gap * np.eye(n_arms)


def product_bernoulli_pmf(means: Any) -> np.ndarray:
    r"""Exact pmf of a product of independent Bernoulli coordinates over {0,1}^K.

    Parameters
    ----------
    means : array-like of shape (K,), 2 <= K <= 16
        Success probabilities in [0, 1].

    Returns
    -------
    ndarray of shape (2**K,)
        ``pmf[x]`` where the binary digits of the index x (most significant first) are
        x_1 ... x_K, i.e. the order of ``itertools.product([0, 1], repeat=K)``.
    """
    mu = check_means(means)
    if mu.ndim != 1 or mu.size > MAX_ENUMERATE_K:
        raise ValueError(f"means must have shape (K,) with K <= {MAX_ENUMERATE_K}, "
                         f"got shape {mu.shape}")
    grid = np.array(list(itertools.product((0, 1), repeat=mu.size)), dtype=float)   # (2^K, K)
    return np.prod(np.where(grid == 1, mu, 1.0 - mu), axis=1)


def tv_distance_matrix(instances: Any) -> np.ndarray:
    r"""Exact pairwise total-variation distances of product-Bernoulli instances.

    :math:`\mathrm{TV}(P_i, P_j) = \tfrac12 \sum_{x \in \{0,1\}^K} |P_i(x) - P_j(x)|`,
    computed by enumerating all :math:`2^K` outcomes (K <= 16). For the Theorem 12 instances
    every off-diagonal entry equals the gap (Appendix D.3, Step 1 and footnote 12).

    Parameters
    ----------
    instances : array-like of shape (n_instances, K)

    Returns
    -------
    ndarray of shape (n_instances, n_instances)
    """
    arr = check_means(instances, name="instances", ndim=(2,), min_rows=2)
    pmfs = np.stack([product_bernoulli_pmf(row) for row in arr])
    return 0.5 * np.abs(pmfs[:, None, :] - pmfs[None, :, :]).sum(axis=2)


def kl_matrix(instances: Any) -> np.ndarray:
    r"""Pairwise KL divergences :math:`\mathrm{KL}(P_i \| P_j)` of product-Bernoulli instances.

    KL is additive over independent coordinates, so
    :math:`\mathrm{KL}(P_i\|P_j) = \sum_a \mathrm{kl}(\mu_{i,a}, \mu_{j,a})`. For the Theorem 12
    instances each off-diagonal entry is
    :math:`\mathrm{kl}(\tfrac12+\Delta, \tfrac12) + \mathrm{kl}(\tfrac12, \tfrac12+\Delta)`.

    Returns
    -------
    ndarray of shape (n_instances, n_instances)
        ``inf`` where some coordinate of P_j has mean 0 or 1 while P_i's does not.
    """
    arr = check_means(instances, name="instances", ndim=(2,), min_rows=2)
    p = arr[:, None, :]
    q = arr[None, :, :]
    with np.errstate(divide="ignore"):
        impossible = ((q == 0) & (p > 0)) | ((q == 1) & (p < 1))
    out = kl_bernoulli(p, q).sum(axis=2)
    out[impossible.any(axis=2)] = np.inf
    np.fill_diagonal(out, 0.0)
    return out


def tv_witness_set(n_arms: int, i: int, j: int) -> np.ndarray:
    r"""Boolean mask over {0,1}^K of the set :math:`\{x: x_i = 1, x_j = 0\}` (footnote 12).

    For the Theorem 12 instances, :math:`P_i(A) - P_j(A) = \mathrm{TV}(P_i, P_j) = \Delta` on
    this set. Same outcome order as :func:`product_bernoulli_pmf`; ``i``, ``j`` are 0-based.
    """
    n_arms = check_positive_int("n_arms", n_arms, minimum=2)
    if n_arms > MAX_ENUMERATE_K:
        raise ValueError(f"n_arms must be <= {MAX_ENUMERATE_K} to enumerate, got {n_arms}")
    for name, v in (("i", i), ("j", j)):
        check_positive_int(name, v, minimum=0)
        if v >= n_arms:
            raise ValueError(f"{name} must be < n_arms ({n_arms}), got {v}")
    if i == j:
        raise ValueError(f"i and j must differ, got i = j = {i}")
    grid = np.array(list(itertools.product((0, 1), repeat=n_arms)))
    return (grid[:, i] == 1) & (grid[:, j] == 0)


def dp_fano_error_bound(n_arms: int, n_samples, epsilon, tv):
    r"""DP Fano lower bound on the minimax error of any epsilon-DP selector (eq. 56).

    For K hypotheses whose pairwise total-variation distances are at most ``tv``, any
    epsilon-DP selector that sees n i.i.d. samples errs, on some hypothesis, with
    probability at least

    .. math:: 0.45 \min\{1, (K-1)\, e^{-10\, \varepsilon\, n\, \mathrm{tv}}\}.

    This is the privacy part of Theorem 2 / Corollary 4 of Acharya, Sun and Zhang in the form
    Hu, Huang, Mehta and Hegde derive for selectors with 0/1 loss (Appendix D.3, Step 2: the
    factor 1/2 of ASZ dropped for selectors and an inequality of ASZ corrected); the coupling
    distance is ``n * tv`` (coordinate-wise maximal coupling).

    Parameters
    ----------
    n_arms : int
        Number of hypotheses K >= 2.
    n_samples : float or array
        Sample size n >= 0 (real values allowed for plotting).
    epsilon : float or array
        Privacy parameter > 0 (``inf`` allowed: the bound is then 0 for n > 0).
    tv : float or array
        Bound on the pairwise TV distance, in (0, 1].

    Returns
    -------
    float or ndarray (broadcast of the array arguments)

    Examples
    --------
    >>> round(dp_fano_error_bound(10, 0, 1.0, 0.1), 3)
    0.45
    """
    K = check_positive_int("n_arms", n_arms, minimum=2)
    n = check_interval("n_samples", n_samples, 0.0)
    eps = check_epsilon(epsilon, allow_inf=True)
    tv = check_interval("tv", tv, 0.0, 1.0, low_open=True)
    n_arr = np.asarray(n, dtype=float)
    # n = 0 carries no information even when epsilon = inf (avoid inf * 0)
    eps_n = np.where(n_arr == 0, 0.0, np.asarray(eps) * np.where(n_arr == 0, 1.0, n_arr))
    expo = 10.0 * eps_n * np.asarray(tv)
    log_term = math.log(K - 1) - expo
    out = 0.45 * np.exp(np.minimum(0.0, log_term))
    return scalar_or_array(out)


def fano_error_bound(n_arms: int, n_samples, kl):
    r"""Classical (non-private) Fano bound on the minimax error of any selector.

    With K hypotheses whose pairwise KL divergences are at most ``kl``, from n samples:
    :math:`P(\text{error}) \ge 1 - (n\,\mathrm{kl} + \ln 2)/\ln K`, floored at 0
    (the non-private term of ASZ Corollary 4 for 0/1 loss).
    """
    K = check_positive_int("n_arms", n_arms, minimum=2)
    n = check_interval("n_samples", n_samples, 0.0)
    kl = check_interval("kl", kl, 0.0)
    out = np.maximum(0.0, 1.0 - (np.asarray(n) * np.asarray(kl) + math.log(2)) / math.log(K))
    return scalar_or_array(out)


def hu2021_sample_complexity(n_arms: int, epsilon, gap):
    r"""The sample size :math:`m^* = \ln K / (10\, \varepsilon\, \Delta)` of Theorem 12.

    Below it, :func:`dp_fano_error_bound` is at least ``0.45 (K-1)/K`` (>= 0.2 for K >= 2):
    no epsilon-DP selector identifies the hidden best action reliably.
    """
    K = check_positive_int("n_arms", n_arms, minimum=2)
    eps = check_epsilon(epsilon)
    gap = check_interval("gap", gap, 0.0, 1.0, low_open=True)
    out = math.log(K) / (10.0 * np.asarray(eps) * np.asarray(gap))
    return scalar_or_array(out)


def hu2021_theorem12_min_horizon(n_arms: int, epsilon: float, gap: float) -> float:
    r"""Smallest horizon of Theorem 12 (Hu, Huang, Mehta and Hegde).

    :math:`\max\{\ln K/(16\Delta^2),\ \ln K/(10\varepsilon\Delta)\}`; needs K >= 4 and
    Delta in (0, 1/4).
    """
    K = check_positive_int("n_arms", n_arms, minimum=4)
    eps = check_epsilon(epsilon)
    gap = check_interval("gap", gap, 0.0, 0.25, low_open=True, high_open=True)
    return max(math.log(K) / (16.0 * gap ** 2), math.log(K) / (10.0 * eps * gap))


def hu2021_privacy_regret_lower_bound(n_arms: int, epsilon, gap: float = 0.1, *,
                                      horizon: Optional[float] = None,
                                      integer_rounds: bool = False):
    r"""The privacy term of Theorem 12 (Hu, Huang, Mehta and Hegde): ``0.0098 ln K / epsilon``.

    Some Theorem 12 instance (gap Delta) makes every epsilon-DP full-information learner pay
    regret at least :math:`0.2 \cdot 0.49 \cdot m^* \cdot \Delta` with
    :math:`m^* = \ln K/(10\varepsilon\Delta)` (Appendix D.3, Step 3), i.e.
    :math:`0.0098 \ln K/\varepsilon`, for every horizon :math:`T \ge m^*`.

    Parameters
    ----------
    n_arms : int
        K >= 4 (Theorem 12).
    epsilon : float or array
        Privacy parameter > 0.
    gap : float
        Delta in (0, 1/4) (Theorem 12; the paper's text after the theorem prints
        "Delta_min > 1/4", a typo).
    horizon : float, optional
        If given, must be >= m* (the bound needs the learner to play at least m* rounds).
    integer_rounds : bool
        Use :math:`\lfloor m^* \rfloor` rounds instead of the real m* (the paper's constant
        treats m* as real); then ``epsilon <= ln K / (10 gap)`` is needed for m* >= 1.

    Returns
    -------
    float or ndarray
    """
    integer_rounds = check_bool("integer_rounds", integer_rounds)
    K = check_positive_int("n_arms", n_arms, minimum=4)
    eps = check_epsilon(epsilon)
    gap = check_interval("gap", gap, 0.0, 0.25, low_open=True, high_open=True)
    m_star = np.asarray(hu2021_sample_complexity(K, eps, gap))
    if horizon is not None:
        horizon = check_positive("horizon", horizon, allow_inf=True)
        if np.any(horizon < m_star):
            raise ValueError(f"horizon must be >= m* = ln K/(10 epsilon gap) = "
                             f"{float(np.max(m_star)):.4g}, got {horizon!r}")
    if integer_rounds:
        m_star = np.floor(m_star)
        if np.any(m_star < 1):
            raise ValueError(f"epsilon must be <= ln K/(10 gap) = {math.log(K) / (10 * gap):.4g} "
                             f"for m* >= 1 round, got {epsilon!r}")
    out = 0.2 * 0.49 * m_star * gap
    return scalar_or_array(out)


# ----------------------------------------------------------------------------------------------
# Step 3 of Theorem 12: the batch-to-online conversion, as a simulation
# ----------------------------------------------------------------------------------------------
def majority_vote(pulls: Any) -> np.ndarray:
    r"""The selector of the batch-to-online conversion: the most played action.

    Parameters
    ----------
    pulls : array-like of shape (n_runs, K)
        How often each action was played in the m rounds (e.g. ``Result.pulls``); rows may
        also be cumulative weights of simplex plays.

    Returns
    -------
    ndarray of shape (n_runs,)
        Index of the largest count per row (ties: lowest index, a data-independent rule).
    """
    arr = np.asarray(pulls, dtype=float)
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise ValueError(f"pulls must have shape (n_runs, K) with K >= 2, got shape {arr.shape}")
    return np.argmax(arr, axis=1)


@dataclass
class BatchToOnline:
    """What :func:`batch_to_online` measured.

    Attributes
    ----------
    n_samples : int
        The batch size m (rounds the learner was run for).
    selected : ndarray of shape (n_instances, n_runs)
        The majority-vote action for each hidden instance and run.
    error : ndarray of shape (n_instances,)
        Fraction of runs whose majority vote missed the hidden best action.
    low_weight : ndarray of shape (n_instances,)
        Fraction of runs in which the best action got < 0.51 m of the plays (the event that
        costs regret >= 0.49 m Delta in Step 3).
    regret : ndarray of shape (n_instances, n_runs)
        Pseudo-regret over the m rounds.
    """

    n_samples: int
    selected: np.ndarray
    error: np.ndarray
    low_weight: np.ndarray
    regret: np.ndarray

    def __post_init__(self):
        check_positive_int("n_samples", self.n_samples)
        for name in ("selected", "error", "low_weight", "regret"):
            value = getattr(self, name)
            if not isinstance(value, np.ndarray):
                raise TypeError(f"{name} must be a numpy array, got {value!r}")
        for name in ("error", "low_weight"):
            value = getattr(self, name)
            if value.ndim != 1 or np.any(np.isnan(value) | (value < 0) | (value > 1)):
                raise ValueError(f"{name} must be a 1-D array of fractions in [0, 1], got "
                                 f"{value!r}")

    @property
    def max_error(self) -> float:
        """The minimax quantity of eq. (56): the error on the worst hidden instance."""
        return float(self.error.max())


def batch_to_online(policy, instances: Any, n_samples: int, n_runs: int, seed: Any = 0,
                    *, kind: str = "reward") -> BatchToOnline:
    r"""Run a full-information learner on m samples and select by majority vote (Step 3).

    For each hidden instance j (row of ``instances``, e.g. :func:`hu2021_hard_instances`),
    ``n_runs`` runs of ``policy`` see ``n_samples`` i.i.d. vectors of
    :class:`~dpolearn.envs.BernoulliExperts`; the selector outputs the most played action.
    All instances and runs form one batch (2-D means), so this is one call of
    :func:`~dpolearn.simulate.simulate`. An epsilon-DP learner makes an epsilon-DP selector
    (post-processing), so its worst-case error obeys :func:`dp_fano_error_bound`.

    Parameters
    ----------
    policy : Policy
        A full-information policy (``feedback == "full"``).
    instances : array-like of shape (n_instances, K)
        Coordinate means, one instance per row.
    n_samples : int
        Batch size m >= 1.
    n_runs : int
        Runs per instance.
    seed : int or SeedSequence
    kind : {"reward", "loss"}
        Whether ``instances`` are mean rewards (Hu et al.) or mean losses (Wu and Wang).

    Returns
    -------
    BatchToOnline
    """
    arr = check_means(instances, name="instances", ndim=(2,), min_rows=2)
    m = check_positive_int("n_samples", n_samples)
    n_runs = check_positive_int("n_runs", n_runs)
    kind = check_choice("kind", kind, ("reward", "loss"))
    G = arr.shape[0]
    env = BernoulliExperts(np.repeat(arr, n_runs, axis=0), kind=kind)
    res = simulate(policy, env, horizon=m, n_runs=G * n_runs, seed=seed, checkpoints=[m],
                   progress=False)
    best = np.argmax(arr, axis=1) if kind == "reward" else np.argmin(arr, axis=1)
    hidden = np.repeat(best, n_runs)
    selected = majority_vote(res.pulls)
    best_weight = res.pulls[np.arange(G * n_runs), hidden]
    return BatchToOnline(
        n_samples=m,
        selected=selected.reshape(G, n_runs),
        error=(selected != hidden).reshape(G, n_runs).mean(axis=1),
        low_weight=(best_weight < 0.51 * m).reshape(G, n_runs).mean(axis=1),
        regret=res.regret[:, -1].reshape(G, n_runs),
    )


# ----------------------------------------------------------------------------------------------
# Theorem 7 of Wu and Wang: the cyclic deterministic instances
# ----------------------------------------------------------------------------------------------
def wu2025_cyclic_instances(n_arms: int, gap_min: float) -> np.ndarray:
    r"""The K deterministic loss instances of Theorem 7 (Wu and Wang, Appendix E).

    In instance l the loss of action l is 0, its two cyclic neighbours l-1 and l+1 have loss
    ``gap_min``, and every other action has loss 1. The near-best set is
    :math:`S_l = \{l-1, l, l+1\}` (indices mod K); actions outside it have gap 1.

    Parameters
    ----------
    n_arms : int
        K >= 6 (the proof averages over the K - 5 instances whose near-best sets are disjoint
        from S_l).
    gap_min : float
        Delta_min in (0, 1].

    Returns
    -------
    ndarray of shape (K, K)
        Row l holds the (deterministic) losses of instance l.
    """
    K = check_positive_int("n_arms", n_arms, minimum=6)
    gap_min = check_interval("gap_min", gap_min, 0.0, 1.0, low_open=True)
    out = np.ones((K, K))
    rows = np.arange(K)
    out[rows, rows] = 0.0
    out[rows, (rows - 1) % K] = gap_min
    out[rows, (rows + 1) % K] = gap_min
    return out


def wu2025_near_best_sets(n_arms: int) -> np.ndarray:
    """Boolean (K, K) mask: entry (l, i) is True when action i is in S_l = {l-1, l, l+1}."""
    K = check_positive_int("n_arms", n_arms, minimum=6)
    d = np.abs(np.arange(K)[:, None] - np.arange(K)[None, :])
    return np.minimum(d, K - d) <= 1


def _shift(exponent: str) -> float:
    # "paper": group privacy factor e^{t eps} as printed; "tight": e^{(t-1) eps}, valid
    # because the action of round t depends on the t - 1 earlier loss vectors only.
    return {"paper": 0.0, "tight": 1.0}[check_choice("exponent", exponent, ("paper", "tight"))]


def wu2025_success_probability_bound(t, n_arms: int, epsilon, *, exponent: str = "paper"):
    r"""Upper bound on the average probability of playing a near-best action in round t.

    For any epsilon-DP learner, :math:`\frac1K \sum_l P[I_t^{(l)} \in S_l] \le
    3e^{t\varepsilon}/(3e^{t\varepsilon} + K - 5)` (Theorem 7, Appendix E), computed stably as
    a logistic function. It stays near 3/(K-2) until :math:`t\varepsilon \approx \ln((K-5)/3)`.

    Parameters
    ----------
    t : int, float or array
        Round(s) t >= 1.
    n_arms : int
        K >= 6.
    epsilon : float or array
        Privacy parameter > 0.
    exponent : {"paper", "tight"}
        ``"paper"`` uses the printed group-privacy factor :math:`e^{t\varepsilon}`;
        ``"tight"`` uses :math:`e^{(t-1)\varepsilon}` (also valid, slightly stronger).
    """
    K = check_positive_int("n_arms", n_arms, minimum=6)
    t = check_interval("t", t, 1.0)
    eps = check_epsilon(epsilon)
    x = (np.asarray(t) - _shift(exponent)) * np.asarray(eps)
    out = special.expit(x + math.log(3.0) - math.log(K - 5))
    return scalar_or_array(out)


def wu2025_regret_lower_bound(n_arms: int, epsilon, horizon=np.inf, *, exponent: str = "paper"):
    r"""The regret lower bound LB(T) of Theorem 7 (Wu and Wang), in closed form.

    Some cyclic instance forces regret at least

    .. math:: \mathrm{LB}(T) = \int_1^{T+1} \frac{K-5}{3e^{t\varepsilon}+K-5}\,dt
              = \frac1\varepsilon
                \ln\frac{3 + (K-5)e^{-\varepsilon}}{3 + (K-5)e^{-(T+1)\varepsilon}},

    and :math:`\mathrm{LB}(\infty) = \ln(1 + (K-5)e^{-\varepsilon}/3)/\varepsilon`
    :math:`\ge \ln((K-5)/3)/\varepsilon - 1` (Appendix E). ``exponent="tight"`` shifts t by one
    (integral from 0 to T).

    Parameters
    ----------
    n_arms : int
        K >= 6.
    epsilon : float or array
        > 0.
    horizon : float or array
        T >= 1, or ``inf`` for the limit.
    """
    K = check_positive_int("n_arms", n_arms, minimum=6)
    eps = np.asarray(check_epsilon(epsilon))
    T = np.asarray(check_interval("horizon", horizon, 1.0, allow_inf=True))
    s = _shift(exponent)
    # F(t) = -ln(3 + (K-5) e^{-t eps}) / eps is an antiderivative of (K-5)/(3e^{t eps}+K-5).
    upper = np.log(3.0 + (K - 5) * np.exp(-(T + 1.0 - s) * eps))
    lower = np.log(3.0 + (K - 5) * np.exp(-(1.0 - s) * eps))
    out = (lower - upper) / eps
    return scalar_or_array(out)


def wu2025_regret_lower_bound_sum(n_arms: int, epsilon: float, horizon: int, *,
                                  exponent: str = "paper") -> np.ndarray:
    r"""The bound before the integral step: :math:`\sum_{t\le T} (K-5)/(3e^{t\varepsilon}+K-5)`.

    Returns the running sums for T = 1..horizon, shape (horizon,); each entry is >= the
    closed form :func:`wu2025_regret_lower_bound` at the same T.
    """
    K = check_positive_int("n_arms", n_arms, minimum=6)
    eps = check_epsilon(epsilon)
    T = check_positive_int("horizon", horizon)
    t = np.arange(1, T + 1) - _shift(exponent)
    terms = special.expit(-(t * eps + math.log(3.0) - math.log(K - 5)))
    return np.cumsum(terms)


# ----------------------------------------------------------------------------------------------
# Bandit lower bounds cited by Hu, Huang, Mehta and Hegde (Section 4, Theorem 3 remarks)
# ----------------------------------------------------------------------------------------------
def _gaps(means: Any) -> np.ndarray:
    mu = check_means(means, ndim=(1,))
    return mu.max() - mu


def lai_robbins_constant(means: Any) -> float:
    r"""The Lai-Robbins constant :math:`\sum_{j:\Delta_j>0}\Delta_j/\mathrm{kl}(\mu_j,\mu^*)`
    of a Bernoulli instance.

    No consistent policy has ``regret(T) / ln T`` below it as T grows (Lai and Robbins 1985,
    Theorem 2); it is an asymptotic rate, not a bound at any finite T.

    Parameters
    ----------
    means : array-like of shape (K,)
        Bernoulli means in (0, 1).

    >>> round(lai_robbins_constant([0.9, 0.6]), 4)
    0.9639
    """
    mu = check_means(means)
    if mu.ndim != 1 or np.any((mu <= 0) | (mu >= 1)):
        raise ValueError(f"means must have shape (K,) with entries in (0, 1), got {mu.tolist()}")
    gaps = mu.max() - mu
    sub = gaps > 0
    return float(np.sum(gaps[sub] / kl_bernoulli(mu[sub], mu.max())))


def lai_robbins_lower_bound(means: Any, horizon) -> float:
    r"""Lai and Robbins' asymptotic lower bound for consistent Bernoulli bandit algorithms.

    :math:`\liminf_T R(T)/\ln T \ge \sum_{j:\Delta_j>0} \Delta_j / \mathrm{kl}(\mu_j, \mu^*)`;
    returns the right-hand side times :math:`\ln T` (non-private reference; asymptotic, so
    finite-T regret may lie below it).

    Parameters
    ----------
    means : array-like of shape (K,)
        Bernoulli means in (0, 1).
    horizon : float or array
        T >= 1.
    """
    const = lai_robbins_constant(means)
    T = np.asarray(check_interval("horizon", horizon, 1.0))
    out = const * np.log(T)
    return scalar_or_array(out)


def shariff_sheffet_lower_bound(means: Any, epsilon, horizon, *, constant: float = 1.0):
    r"""Shape of the private bandit lower bound of Shariff and Sheffet (2018), as cited by Hu et al.

    :math:`c \cdot \max\{\sum_{j:\Delta_j>0} \ln T/\Delta_j,\; K' \ln T/\varepsilon\}`, with K'
    the number of suboptimal arms: any epsilon-DP algorithm with sub-polynomial regret on every
    instance pays this much up to a constant. The theorem is an Omega statement; ``constant``
    (default 1) only draws its shape and is **not** a proved constant.

    Parameters
    ----------
    means : array-like of shape (K,)
        Bernoulli means in [0, 1] with at least one suboptimal arm.
    epsilon : float or array
        > 0.
    horizon : float or array
        T >= 1.
    constant : float
        c > 0.
    """
    gaps = _gaps(means)
    sub = gaps[gaps > 0]
    if sub.size == 0:
        raise ValueError(f"means must have at least one suboptimal arm, "
                         f"got {np.asarray(means).tolist()}")
    eps = np.asarray(check_epsilon(epsilon))
    log_t = np.log(np.asarray(check_interval("horizon", horizon, 1.0)))
    c = check_positive("constant", constant)
    out = c * np.maximum(np.sum(1.0 / sub) * log_t, sub.size * log_t / eps)
    return scalar_or_array(out)


def private_sub_ucb_rate(means: Any, epsilon, horizon, *, constant: float = 1.0):
    r"""The optimal private instance-dependent rate (private sub-UCB).

    :math:`c\sum_{j:\Delta_j>0} \ln T/\min\{\Delta_j, \varepsilon\}`.

    Upper bounds (Anytime-Lazy-UCB, Lazy-DP-TS, DP-SE) and the lower bound of Shariff and
    Sheffet meet at this order (Hu et al., remarks after Theorem 3). ``constant`` only scales
    the shape.
    """
    gaps = _gaps(means)
    sub = gaps[gaps > 0]
    if sub.size == 0:
        raise ValueError(f"means must have at least one suboptimal arm, "
                         f"got {np.asarray(means).tolist()}")
    eps = np.asarray(check_epsilon(epsilon))[..., None]
    log_t = np.log(np.asarray(check_interval("horizon", horizon, 1.0)))
    c = check_positive("constant", constant)
    out = c * np.sum(1.0 / np.minimum(sub, eps), axis=-1) * log_t
    return scalar_or_array(out)


def azize_basu_minimax_lower_bound(n_arms: int, horizon, epsilon, *,
                                   privacy_constant: float = 1.0):
    r"""Minimax lower bound for epsilon-DP bandits (Azize and Basu 2022), with explicit parts.

    :math:`\max\{\tfrac{1}{27}\sqrt{(K-1)T},\; c\,(K-1)/\varepsilon\}`. The first term is the
    non-private minimax bound with the constant of Lattimore and Szepesvari (Theorem 15.2,
    T >= K - 1); the privacy term is drawn with ``privacy_constant`` c (default 1), which is
    a shape, not a proved constant.
    """
    K = check_positive_int("n_arms", n_arms, minimum=2)
    T = np.asarray(check_interval("horizon", horizon, K - 1.0))
    eps = np.asarray(check_epsilon(epsilon))
    c = check_positive("privacy_constant", privacy_constant)
    out = np.maximum(np.sqrt((K - 1) * T) / 27.0, c * (K - 1) / eps)
    return scalar_or_array(out)
