"""Tests of dpolearn.lower_bounds: formulas, domains, monotonicity, and the batch-to-online
argument as a seeded simulation."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from dpolearn import lower_bounds as lb
from dpolearn.bandits.kl import kl_bernoulli
from dpolearn.fullinfo import FTL
from dpolearn.mechanisms import ReportNoisyMax


# ---------------------------------------------------------------------------------------------
# Theorem 12 instances: means, TV, KL, witness set
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("K,gap", [(2, 0.3), (4, 0.1), (6, 0.2), (9, 0.05), (12, 0.24)])
def test_hard_instances_tv_matrix_has_gap_off_diagonal(K, gap):
    inst = lb.hu2021_hard_instances(K, gap)
    assert inst.shape == (K, K)
    # row j: action j has mean 1/2 + gap, the others 1/2; action j uniquely best with all gaps = gap
    np.testing.assert_allclose(np.diag(inst), 0.5 + gap)
    np.testing.assert_allclose(inst[~np.eye(K, dtype=bool)], 0.5)
    np.testing.assert_array_equal(np.argmax(inst, axis=1), np.arange(K))
    tv = lb.tv_distance_matrix(inst)
    np.testing.assert_allclose(tv[~np.eye(K, dtype=bool)], gap, atol=1e-12)
    np.testing.assert_allclose(np.diag(tv), 0.0, atol=1e-15)


def test_pmf_sums_to_one_and_matches_hand_value():
    pmf = lb.product_bernoulli_pmf([0.2, 0.7])
    # order (0,0), (0,1), (1,0), (1,1)
    np.testing.assert_allclose(pmf, [0.8 * 0.3, 0.8 * 0.7, 0.2 * 0.3, 0.2 * 0.7])
    assert math.isclose(lb.product_bernoulli_pmf(np.full(10, 0.37)).sum(), 1.0)


def test_tv_matrix_of_generic_product_is_symmetric_metric():
    rng = np.random.default_rng(3)
    inst = rng.uniform(0.05, 0.95, size=(4, 5))
    tv = lb.tv_distance_matrix(inst)
    np.testing.assert_allclose(tv, tv.T)
    for i in range(4):
        for j in range(4):
            for k in range(4):
                assert tv[i, j] <= tv[i, k] + tv[k, j] + 1e-12
    # single-coordinate difference: TV equals the difference of the means
    a = np.array([[0.3, 0.5, 0.5], [0.6, 0.5, 0.5]])
    assert math.isclose(lb.tv_distance_matrix(a)[0, 1], 0.3)


@pytest.mark.parametrize("K,gap,i,j", [(4, 0.1, 0, 1), (6, 0.2, 3, 5), (5, 0.05, 4, 0)])
def test_witness_set_attains_tv(K, gap, i, j):
    inst = lb.hu2021_hard_instances(K, gap)
    A = lb.tv_witness_set(K, i, j)
    p_i = lb.product_bernoulli_pmf(inst[i])
    p_j = lb.product_bernoulli_pmf(inst[j])
    assert math.isclose(p_i[A].sum() - p_j[A].sum(), gap, abs_tol=1e-12)


@pytest.mark.parametrize("gap", [0.01, 0.1, 0.2, 0.45])
def test_kl_matrix_formula(gap):
    inst = lb.hu2021_hard_instances(5, gap)
    kl = lb.kl_matrix(inst)
    expected = float(kl_bernoulli(0.5 + gap, 0.5) + kl_bernoulli(0.5, 0.5 + gap))
    np.testing.assert_allclose(kl[~np.eye(5, dtype=bool)], expected, rtol=1e-12)
    np.testing.assert_allclose(np.diag(kl), 0.0)
    # Pinsker: TV <= sqrt(KL / 2)
    assert gap <= math.sqrt(expected / 2) + 1e-12


def test_kl_matrix_infinite_for_point_masses():
    kl = lb.kl_matrix([[0.0, 0.5], [0.5, 0.5]])
    assert kl[1, 0] == np.inf and np.isfinite(kl[0, 1])


# ---------------------------------------------------------------------------------------------
# DP Fano bound and the regret bound of Theorem 12
# ---------------------------------------------------------------------------------------------
def test_dp_fano_formula_values():
    K, eps, tv = 10, 0.5, 0.1
    for n in [0, 1, 5, 20, 100]:
        expected = 0.45 * min(1.0, (K - 1) * math.exp(-10 * eps * n * tv))
        assert math.isclose(lb.dp_fano_error_bound(K, n, eps, tv), expected, rel_tol=1e-12)
    # eps = inf: no private selector constraint beyond n = 0
    assert lb.dp_fano_error_bound(K, 0, np.inf, tv) == 0.45
    assert lb.dp_fano_error_bound(K, 3, np.inf, tv) == 0.0


def test_dp_fano_monotone_in_eps_and_n():
    n = np.arange(0, 400)
    for eps in [0.05, 0.2, 1.0]:
        b = lb.dp_fano_error_bound(8, n, eps, 0.1)
        assert np.all(np.diff(b) <= 0)
    eps = np.geomspace(1e-3, 10, 50)
    b = lb.dp_fano_error_bound(8, 30, eps, 0.1)
    assert np.all(np.diff(b) <= 0)


@pytest.mark.parametrize("K", [2, 4, 16, 1000])
def test_below_sample_complexity_error_is_at_least_0_2(K):
    eps, gap = 0.3, 0.1
    m = lb.hu2021_sample_complexity(K, eps, gap)
    assert math.isclose(m, math.log(K) / (10 * eps * gap))
    n = np.linspace(0, m, 20)
    b = lb.dp_fano_error_bound(K, n, eps, gap)
    assert np.all(b >= 0.45 * (K - 1) / K - 1e-12)
    assert np.all(b >= 0.2)


def test_fano_error_bound():
    assert math.isclose(lb.fano_error_bound(8, 10, 0.01), 1 - (0.1 + math.log(2)) / math.log(8))
    assert lb.fano_error_bound(8, 10_000, 0.01) == 0.0


def test_theorem12_privacy_term_is_0_0098_lnK_over_eps():
    for K, eps in [(4, 0.1), (5, 0.25), (100, 1.0)]:
        assert math.isclose(lb.hu2021_privacy_regret_lower_bound(K, eps, 0.1),
                            0.0098 * math.log(K) / eps, rel_tol=1e-12)
    # Theorem 12 of Hu, Huang, Mehta and Hegde: K = 5, eps = 0.25 gives 0.0098 ln 5 / 0.25 = 0.063
    assert round(lb.hu2021_privacy_regret_lower_bound(5, 0.25), 3) == 0.063
    eps = np.geomspace(0.01, 2, 30)
    assert np.all(np.diff(lb.hu2021_privacy_regret_lower_bound(8, eps, 0.1)) < 0)
    # integer rounds never exceed the real-valued bound
    assert lb.hu2021_privacy_regret_lower_bound(8, 0.1, 0.1, integer_rounds=True) <= \
        lb.hu2021_privacy_regret_lower_bound(8, 0.1, 0.1)


def test_theorem12_min_horizon():
    K, eps, gap = 16, 0.5, 0.1
    assert math.isclose(lb.hu2021_theorem12_min_horizon(K, eps, gap),
                        max(math.log(K) / (16 * gap ** 2), math.log(K) / (10 * eps * gap)))


# ---------------------------------------------------------------------------------------------
# Theorem 7 of Wu and Wang
# ---------------------------------------------------------------------------------------------
def test_cyclic_instances_structure():
    K, d = 8, 0.3
    inst = lb.wu2025_cyclic_instances(K, d)
    S = lb.wu2025_near_best_sets(K)
    for l in range(K):
        assert inst[l, l] == 0.0
        assert inst[l, (l - 1) % K] == d and inst[l, (l + 1) % K] == d
        assert np.all(inst[l, ~S[l]] == 1.0)        # every action outside S_l has gap 1
        assert S[l].sum() == 3
        # exactly K - 5 instances have near-best sets disjoint from S_l
        assert sum(not np.any(S[l] & S[m]) for m in range(K)) == K - 5


@pytest.mark.parametrize("K,lb_inf_01,lb_inf_1,sum_01,sum_1", [
    (6, 2.636, 0.116, 2.753, 0.178),
    (16, 14.627, 0.854, 15.011, 1.162),
    (64, 29.336, 2.108, 29.801, 2.557),
    (1024, 57.312, 4.836, 57.665, 5.333),
])
def test_wu_reference_values(K, lb_inf_01, lb_inf_1, sum_01, sum_1):
    # reference values of Wu and Wang's bound, computed independently by direct summation
    assert round(lb.wu2025_regret_lower_bound(K, 0.1), 3) == pytest.approx(lb_inf_01, abs=1e-3)
    assert round(lb.wu2025_regret_lower_bound(K, 1.0), 3) == pytest.approx(lb_inf_1, abs=1e-3)
    assert lb.wu2025_regret_lower_bound_sum(K, 0.1, 100)[-1] == pytest.approx(sum_01, abs=1e-3)
    assert lb.wu2025_regret_lower_bound_sum(K, 1.0, 100)[-1] == pytest.approx(sum_1, abs=1e-3)


@pytest.mark.parametrize("K,eps,T", [(6, 0.1, 10), (20, 0.5, 37), (300, 0.05, 500)])
@pytest.mark.parametrize("exponent", ["paper", "tight"])
def test_wu_closed_form_equals_integral_and_sum_dominates(K, eps, T, exponent):
    s = 0.0 if exponent == "paper" else 1.0
    g = lambda t: (K - 5) / (3 * math.exp((t - s) * eps) + K - 5)   # noqa: E731
    val, _ = integrate.quad(g, 1, T + 1, epsabs=1e-12)
    closed = lb.wu2025_regret_lower_bound(K, eps, T, exponent=exponent)
    assert closed == pytest.approx(val, rel=1e-9)
    sums = lb.wu2025_regret_lower_bound_sum(K, eps, T, exponent=exponent)
    assert sums[-1] == pytest.approx(sum(g(t) for t in range(1, T + 1)), rel=1e-12)
    # the sum (the bound before the integral step) dominates the closed form at every T
    closed_all = lb.wu2025_regret_lower_bound(K, eps, np.arange(1, T + 1), exponent=exponent)
    assert np.all(sums >= closed_all - 1e-12)


def test_wu_lb_increases_to_limit_and_decreases_in_eps():
    K, eps = 64, 0.2
    T = np.arange(1, 150)
    vals = lb.wu2025_regret_lower_bound(K, eps, T)
    lim = lb.wu2025_regret_lower_bound(K, eps)
    assert np.all(np.diff(vals) > 0) and np.all(vals < lim)
    assert lb.wu2025_regret_lower_bound(K, eps, 10 ** 5) == pytest.approx(lim, rel=1e-12)
    assert lim == pytest.approx(math.log(1 + (K - 5) * math.exp(-eps) / 3) / eps)
    assert lim >= math.log((K - 5) / 3) / eps - 1
    eps_grid = np.geomspace(0.01, 5, 40)
    assert np.all(np.diff(lb.wu2025_regret_lower_bound(K, eps_grid)) < 0)


def test_wu_success_bound_formula_and_monotonicity():
    K, eps = 50, 0.3
    t = np.arange(1, 100)
    b = lb.wu2025_success_probability_bound(t, K, eps)
    np.testing.assert_allclose(b, 3 * np.exp(t * eps) / (3 * np.exp(t * eps) + K - 5), rtol=1e-12)
    assert np.all(np.diff(b) > 0) and np.all((b > 0) & (b < 1))
    assert lb.wu2025_success_probability_bound(10, K, 0.1) < lb.wu2025_success_probability_bound(
        10, K, 0.5
    )
    # no overflow far out
    assert lb.wu2025_success_probability_bound(1e6, K, 1.0) == pytest.approx(1.0)
    # regret bound = sum of failure-probability bounds
    fail = 1 - lb.wu2025_success_probability_bound(t, K, eps)
    np.testing.assert_allclose(np.cumsum(fail), lb.wu2025_regret_lower_bound_sum(K, eps, 99))


@pytest.mark.parametrize("K,eps,gap", [(8, 0.5, 0.5), (30, 0.2, 0.25), (200, 1.0, 0.5)])
def test_private_selector_respects_wu_success_bound_and_noiseless_one_breaks_it(K, eps, gap):
    """A strictly eps-DP report-noisy-max (Gumbel 2/eps) on n deterministic loss vectors is a
    learner's action in round t = n + 1; its exact success probability must obey the bound.
    The noiseless argmax (FTL, not private) is the broken variant: it violates the bound."""
    inst = lb.wu2025_cyclic_instances(K, gap)
    S = lb.wu2025_near_best_sets(K)
    rnm = ReportNoisyMax(epsilon=eps, noise="gumbel")
    for n in [1, 2, 4, 8]:
        bound = lb.wu2025_success_probability_bound(n + 1, K, eps)
        success = np.mean([rnm.selection_probabilities(-n * inst[l])[S[l]].sum() for l in range(K)])
        assert success <= bound + 1e-12
    n = 1
    noiseless = np.mean([S[l][np.argmin(n * inst[l])] for l in range(K)])
    assert noiseless == 1.0 > lb.wu2025_success_probability_bound(n + 1, K, eps)


# ---------------------------------------------------------------------------------------------
# Batch-to-online conversion (Step 3 of Theorem 12), seeded simulations
# ---------------------------------------------------------------------------------------------
def test_majority_vote():
    np.testing.assert_array_equal(lb.majority_vote([[1, 3, 2], [2, 2, 0], [0, 0, 5]]), [1, 0, 2])


def test_batch_to_online_m1_is_exact():
    """FTL plays action 0 in round 1 (ties: lowest index), so with m = 1 the majority vote is
    action 0 in every run: error exactly 1 on instances 1..K-1 and 0 on instance 0."""
    K = 5
    out = lb.batch_to_online(FTL(), lb.hu2021_hard_instances(K, 0.2), 1, n_runs=7, seed=1)
    np.testing.assert_array_equal(out.error, [0.0] + [1.0] * (K - 1))
    assert out.selected.shape == (K, 7)


def _ftl_majority_reference(inst, m, n_runs, rng):
    """Independent reference: FTL on rewards (argmax cumulative reward, lowest index first),
    majority vote over its m plays."""
    K = inst.shape[1]
    errors = []
    for j, mu in enumerate(inst):
        X = (rng.random((n_runs, m, K)) < mu).astype(float)
        cum = np.concatenate([np.zeros((n_runs, 1, K)), np.cumsum(X, axis=1)[:, :-1]], axis=1)
        plays = np.argmax(cum, axis=2)                           # (n_runs, m)
        counts = np.stack([(plays == a).sum(axis=1) for a in range(K)], axis=1)
        errors.append(np.mean(np.argmax(counts, axis=1) != j))
    return np.array(errors)


def test_batch_to_online_agrees_with_reference_simulation():
    K, gap, m, n = 4, 0.2, 15, 3000
    inst = lb.hu2021_hard_instances(K, gap)
    out = lb.batch_to_online(FTL(), inst, m, n_runs=n, seed=11)
    ref = _ftl_majority_reference(inst, m, n, np.random.default_rng(12))
    p = np.clip((out.error + ref) / 2, 0.01, 0.99)
    tol = 5 * np.sqrt(2 * p * (1 - p) / n)                        # two independent estimates
    assert np.all(np.abs(out.error - ref) <= tol), (out.error, ref, tol)


def test_batch_to_online_events_and_regret_accounting():
    """Deterministic consequences of Step 3, run by run: a wrong majority vote implies the best
    action got < 0.51 m plays, and then the regret over the m rounds is >= 0.49 m Delta."""
    K, gap, m = 6, 0.15, 20
    out = lb.batch_to_online(FTL(), lb.hu2021_hard_instances(K, gap), m, n_runs=400, seed=5)
    hidden = np.arange(K)[:, None]
    wrong = out.selected != hidden
    assert np.all(out.low_weight >= out.error)
    # pseudo-regret = gap * (number of non-best plays) on these instances
    assert np.all(out.regret[wrong] >= 0.49 * m * gap - 1e-9)
    assert np.all(out.regret <= m * gap + 1e-9)


def test_batch_to_online_private_selector_obeys_fano_and_nonprivate_breaks_it():
    """Below m*, the eps-DP Fano bound says any eps-DP selector errs with probability >= 0.2 on
    some instance. An eps-DP selector (RNM with Laplace 2/eps on the m reward sums) must
    respect it (up to Monte Carlo error); FTL's majority vote (not private) is the broken
    variant and violates it."""
    K, gap, eps, n = 8, 0.24, 0.005, 4000
    inst = lb.hu2021_hard_instances(K, gap)
    m = int(lb.hu2021_sample_complexity(K, eps, gap))           # = 173 rounds
    bound = lb.dp_fano_error_bound(K, m, eps, gap)
    assert bound >= 0.2
    rng = np.random.default_rng(2024)
    rnm = ReportNoisyMax(epsilon=eps, noise="laplace")
    worst = 0.0
    for j, mu in enumerate(inst):
        sums = rng.binomial(m, mu, size=(n, K)).astype(float)
        worst = max(worst, np.mean(rnm.select(sums, rng) != j))
    assert worst >= bound - 4 * math.sqrt(bound * (1 - bound) / n)
    ftl = lb.batch_to_online(FTL(), inst, m, n_runs=n // 4, seed=3)
    assert ftl.max_error < bound - 4 * math.sqrt(bound * (1 - bound) / (n // 4))


# ---------------------------------------------------------------------------------------------
# Bandit lower bounds
# ---------------------------------------------------------------------------------------------
def test_lai_robbins_value():
    T = 10_000
    val = lb.lai_robbins_lower_bound([0.9, 0.6, 0.5], T)
    expected = (0.3 / kl_bernoulli(0.6, 0.9) + 0.4 / kl_bernoulli(0.5, 0.9)) * math.log(T)
    assert val == pytest.approx(float(expected), rel=1e-12)
    assert lb.lai_robbins_lower_bound([0.9, 0.6], 1) == 0.0


def test_private_bandit_shapes():
    means, T = [0.75, 0.625, 0.5, 0.375, 0.25], 10 ** 6
    gaps = np.array([0.125, 0.25, 0.375, 0.5])
    lt = math.log(T)
    assert lb.shariff_sheffet_lower_bound(means, 0.01, T) == pytest.approx(4 * lt / 0.01)
    assert lb.shariff_sheffet_lower_bound(means, 100.0, T) == pytest.approx(np.sum(1 / gaps) * lt)
    eps = np.geomspace(1e-3, 10, 30)
    assert np.all(np.diff(lb.shariff_sheffet_lower_bound(means, eps, T)) <= 0)
    rate = lb.private_sub_ucb_rate(means, eps, T)
    assert np.all(np.diff(rate) <= 0)
    assert lb.private_sub_ucb_rate(means, 1.0, T) == pytest.approx(np.sum(1 / gaps) * lt)
    assert lb.private_sub_ucb_rate(means, 0.2, T) == pytest.approx(
        (1 / 0.125 + 1 / 0.2 * 3) * lt)
    # the sub-UCB rate is within a factor 2 of the (constant-1) Shariff-Sheffet shape
    ss = lb.shariff_sheffet_lower_bound(means, eps, T)
    assert np.all(ss <= rate + 1e-9) and np.all(rate <= 2 * ss + 1e-9)


def test_azize_basu_two_regimes():
    K, T = 5, 10 ** 6
    assert lb.azize_basu_minimax_lower_bound(K, T, 100.0) == pytest.approx(math.sqrt(4 * T) / 27)
    assert lb.azize_basu_minimax_lower_bound(K, T, 1e-4) == pytest.approx(4 / 1e-4)


# ---------------------------------------------------------------------------------------------
# Domain errors
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: lb.hu2021_hard_instances(1, 0.1), ValueError, "n_arms must be >= 2, got 1"),
        (lambda: lb.hu2021_hard_instances(4.0, 0.1), TypeError, "n_arms must be an integer"),
        (
            lambda: lb.hu2021_hard_instances(4, 0.5),
            ValueError,
            r"gap must lie in \(0.0, 0.5\), got 0.5",
        ),
        (lambda: lb.hu2021_hard_instances(4, -0.1), ValueError,
         r"gap must lie in \(0.0, 0.5\), got -0.1"),
        (lambda: lb.hu2021_hard_instances(4, "0.1"), TypeError, "gap must be a real number"),
        (lambda: lb.product_bernoulli_pmf(np.full(17, 0.5)), ValueError, "K <= 16"),
        (lambda: lb.tv_distance_matrix([[0.5, 0.5]]), ValueError, "at least 2 rows"),
        (
            lambda: lb.tv_distance_matrix([[0.5, 1.2], [0.5, 0.5]]),
            ValueError,
            "instances must lie in",
        ),
        (lambda: lb.tv_witness_set(4, 1, 1), ValueError, "i and j must differ"),
        (lambda: lb.tv_witness_set(4, 0, 4), ValueError, "j must be < n_arms"),
        (lambda: lb.dp_fano_error_bound(1, 5, 1.0, 0.1), ValueError, "n_arms must be >= 2"),
        (
            lambda: lb.dp_fano_error_bound(5, -1, 1.0, 0.1),
            ValueError,
            "n_samples must be finite and >= 0.0, got -1",
        ),
        (
            lambda: lb.dp_fano_error_bound(5, 3, 0.0, 0.1),
            ValueError,
            "epsilon must be > 0, got 0.0",
        ),
        (
            lambda: lb.dp_fano_error_bound(5, 3, 1.0, 1.5),
            ValueError,
            r"tv must lie in \(0.0, 1.0\], got 1.5",
        ),
        (lambda: lb.fano_error_bound(5, 3, -0.1), ValueError, "kl must be finite and >= 0.0"),
        (
            lambda: lb.hu2021_privacy_regret_lower_bound(3, 1.0),
            ValueError,
            "n_arms must be >= 4, got 3",
        ),
        (
            lambda: lb.hu2021_privacy_regret_lower_bound(5, 1.0, 0.25),
            ValueError,
            r"gap must lie in \(0.0, 0.25\)",
        ),
        (
            lambda: lb.hu2021_privacy_regret_lower_bound(5, -1.0),
            ValueError,
            "epsilon must be finite and > 0, got -1.0",
        ),
        (
            lambda: lb.hu2021_privacy_regret_lower_bound(5, 0.1, 0.1, horizon=10),
            ValueError,
            "horizon must be >= m",
        ),
        (
            lambda: lb.hu2021_privacy_regret_lower_bound(5, 10.0, 0.1, integer_rounds=True),
            ValueError,
            "for m\\* >= 1 round",
        ),
        (lambda: lb.hu2021_theorem12_min_horizon(5, 1.0, 0.3), ValueError, "gap must lie in"),
        (
            lambda: lb.batch_to_online(FTL(), lb.hu2021_hard_instances(4, 0.1), 0, 2),
            ValueError,
            "n_samples must be >= 1",
        ),
        (
            lambda: lb.batch_to_online(FTL(), lb.hu2021_hard_instances(4, 0.1), 3, 2, kind="gain"),
            ValueError,
            "kind must be one of",
        ),
        (lambda: lb.majority_vote([1, 2, 3]), ValueError, "pulls must have shape"),
        (lambda: lb.wu2025_cyclic_instances(5, 0.5), ValueError, "n_arms must be >= 6, got 5"),
        (lambda: lb.wu2025_cyclic_instances(8, 0.0), ValueError,
         r"gap_min must lie in \(0.0, 1.0\], got 0.0"),
        (
            lambda: lb.wu2025_cyclic_instances(8, 1.5),
            ValueError,
            r"gap_min must lie in \(0.0, 1.0\], got 1.5",
        ),
        (
            lambda: lb.wu2025_success_probability_bound(0, 8, 1.0),
            ValueError,
            "t must be finite and >= 1.0, got 0",
        ),
        (
            lambda: lb.wu2025_success_probability_bound(3, 8, 1.0, exponent="loose"),
            ValueError,
            "exponent must be one of",
        ),
        (
            lambda: lb.wu2025_regret_lower_bound(8, 1.0, 0.5),
            ValueError,
            "horizon must be >= 1.0, got 0.5",
        ),
        (lambda: lb.wu2025_regret_lower_bound(8, np.nan), ValueError, "epsilon must be"),
        (
            lambda: lb.wu2025_regret_lower_bound_sum(8, 1.0, 0),
            ValueError,
            "horizon must be >= 1, got 0",
        ),
        (lambda: lb.lai_robbins_lower_bound([1.0, 0.5], 100), ValueError, r"entries in \(0, 1\)"),
        (
            lambda: lb.lai_robbins_lower_bound([0.9, 0.5], 0.5),
            ValueError,
            "horizon must be finite and >= 1.0",
        ),
        (
            lambda: lb.shariff_sheffet_lower_bound([0.5, 0.5], 1.0, 100),
            ValueError,
            "at least one suboptimal arm",
        ),
        (
            lambda: lb.shariff_sheffet_lower_bound([0.9, 0.5], 1.0, 100, constant=0),
            ValueError,
            "constant must be",
        ),
        (lambda: lb.private_sub_ucb_rate([0.9], 1.0, 100), ValueError, "K >= 2"),
        (
            lambda: lb.azize_basu_minimax_lower_bound(5, 3, 1.0),
            ValueError,
            "horizon must be finite and >= 4.0, got 3",
        ),
    ],
)
def test_domain_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_cyclic_exact_success_matches_simulation():
    """The exact per-round success probability used by lowerbounds-cyclic agrees with a seeded
    simulation of RNM-FTNL (Gumbel 2/eps) on a cyclic instance, epoch by epoch."""
    from dpolearn.envs import FixedSequence
    from dpolearn.experiments.lowerbounds import _exact_success
    from dpolearn.fullinfo import RNMFTNL
    from dpolearn.simulate import simulate

    K, gap, eps, T, n = 16, 0.5, 0.5, 64, 4000
    inst = lb.wu2025_cyclic_instances(K, gap)
    res = simulate(RNMFTNL(epsilon=eps, noise="gumbel"), FixedSequence(np.tile(inst[0], (T, 1))),
                   T, n, seed=9, checkpoints=np.arange(1, T + 1), progress=False)
    inc = np.diff(np.concatenate([np.zeros((n, 1)), res.regret], axis=1), axis=1)
    mc = (inc < 1 - 1e-9).mean(axis=0)
    exact = _exact_success(K, gap, eps, T)
    for t in (1, 2, 4, 8, 16, 32):                               # one round per epoch
        tol = 4 * math.sqrt(exact[t - 1] * (1 - exact[t - 1]) / n)
        assert abs(mc[t - 1] - exact[t - 1]) <= tol, (t, mc[t - 1], exact[t - 1])
    # and the private learner respects Theorem 7's bound in every round
    assert np.all(exact <= lb.wu2025_success_probability_bound(np.arange(1, T + 1), K, eps))


def test_array_arguments_equal_scalar_calls():
    """Batched (array) arguments give exactly the scalar results, element by element."""
    eps = np.array([0.05, 0.3, 1.0, 4.0])
    n = np.array([0, 3, 10, 50])
    np.testing.assert_allclose(lb.dp_fano_error_bound(8, n[:, None], eps[None, :], 0.2),
                               [[lb.dp_fano_error_bound(8, int(a), float(e), 0.2) for e in eps]
                                for a in n])
    np.testing.assert_allclose(lb.wu2025_regret_lower_bound(20, eps, 30),
                               [lb.wu2025_regret_lower_bound(20, float(e), 30) for e in eps])
    np.testing.assert_allclose(
        lb.hu2021_privacy_regret_lower_bound(8, eps, 0.2),
        [lb.hu2021_privacy_regret_lower_bound(8, float(e), 0.2) for e in eps],
    )
    means = [0.7, 0.5, 0.45]
    np.testing.assert_allclose(lb.private_sub_ucb_rate(means, eps, 1000),
                               [lb.private_sub_ucb_rate(means, float(e), 1000) for e in eps])
    np.testing.assert_allclose(lb.shariff_sheffet_lower_bound(means, eps, 1000),
                               [lb.shariff_sheffet_lower_bound(means, float(e), 1000) for e in eps])


def test_regret_eps_experiment_summary_has_one_epsilon_per_row(monkeypatch):
    """The registered sweep runs as one batch per algorithm and splits back into one Result per
    epsilon, each with its own epsilon and guarantee (tiny sizes: this is a wiring test)."""
    from dpolearn.experiments import lowerbounds as exp

    monkeypatch.setitem(exp._REGRET_SIZES, "quick", (np.array([0.1, 1.0]), 64, 2, 64, 2))
    data = exp._regret_eps("quick", 0, 1, False)
    rows = exp._summary_regret_eps(data)
    private = [r for r in rows if r["algorithm"] in ("RNM-FTNL", "Anytime-Lazy-UCB", "Lazy-DP-TS")]
    assert [r["epsilon"] for r in private] == [0.1, 1.0] * 3
    assert [r["n_runs"] for r in private[:2]] == [exp.HU_K * 2] * 2
    assert all(res.guarantee.epsilon == e for res, e in zip(data["RNM-FTNL"], (0.1, 1.0)))
    assert {r["algorithm"] for r in rows if r["epsilon"] == ""} == {"FTL", "Hedge"}


def test_lai_robbins_constant_and_bound():
    means = [0.9, 0.6, 0.5]
    c = lb.lai_robbins_constant(means)
    assert c == pytest.approx(0.3 / kl_bernoulli(0.6, 0.9) + 0.4 / kl_bernoulli(0.5, 0.9))
    assert lb.lai_robbins_lower_bound(means, 1000) == pytest.approx(c * np.log(1000))
