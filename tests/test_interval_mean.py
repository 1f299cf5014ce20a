"""The interval-based Laplace mean of DP-UCB-INT: schedules, calibration, accountant, noise."""
import math

import numpy as np
import pytest

from dpolearn.accounting import ApproxDP, advanced_composition
from dpolearn.mechanisms import LaplaceMechanism
from dpolearn.mechanisms.interval_mean import (
    IntervalLaplaceMean,
    calibrate_epsilon,
    cor31_bound,
    fixed_schedule,
    heterogeneous_advanced_composition,
    interval_accountant,
    lemma_b1_schedule,
    release_schedule,
    thm34_bound,
    zeta,
)

DELTA = math.exp(-10)


@pytest.mark.parametrize("target,expected,ceil_inv", [(1.0, 3.964317e-3, 253),
                                                      (0.1, 4.631731e-5, 21591)])
def test_calibration_matches_spec_table(target, expected, ceil_inv):
    eps = calibrate_epsilon(target, DELTA, 1.1)
    assert eps == pytest.approx(expected, rel=1e-6)
    assert math.ceil(1 / eps) == ceil_inv
    # plugging back into Corollary 3.1's advanced branch returns the target
    assert cor31_bound(eps, 10, v=1.1, delta_prime=DELTA)["advanced"] == pytest.approx(
        target, abs=1e-12)


def test_zeta():
    assert zeta(1.1) == pytest.approx(10.584448, rel=1e-6)
    assert zeta(2.0) == pytest.approx(math.pi ** 2 / 6)


@pytest.mark.parametrize("target,variant,expected", [
    (1.0, "x", [124, 324, 545, 776, 1012]),
    (1.0, "y", [46, 177, 354, 554, 767]),
    (0.1, "x", [9834, 26777, 45603, 65252, 85354]),
    (0.1, "y", [1751, 10814, 24866, 41361, 59184, 77815, 96982]),
])
def test_lemma_b1_schedule_matches_spec_table(target, variant, expected):
    eps = calibrate_epsilon(target, DELTA, 1.1)
    pts = lemma_b1_schedule(eps, 1.1, variant, 100_000)
    assert pts[:len(expected)].tolist() == expected
    f = math.ceil(1 / eps)
    assert np.all(np.diff(np.concatenate([[0], pts])) <= f)       # every interval <= ceil(1/eps)


def test_lemma_b1_intervals_grow_towards_ceiling():
    eps = calibrate_epsilon(1.0, DELTA, 1.1)
    gaps = np.diff(lemma_b1_schedule(eps, 1.1, "y", 100_000))
    assert gaps[-1] == 252 and np.all(np.diff(gaps) >= -1)
    assert np.diff(lemma_b1_schedule(eps, 1.1, "x", 100_000))[-1] == 253


def test_lemma_b1_condition_holds_and_is_minimal():
    eps, v = 0.05, 1.2
    for variant, p in (("x", v / 2), ("y", v)):
        pts = lemma_b1_schedule(eps, v, variant, 3000)
        prev = 0
        for w in pts:
            seg = np.arange(prev + 1, w + 1, dtype=float) ** -p
            assert seg.sum() >= w ** -p / eps
            if w - 1 > prev:                                   # W - 1 fails the condition
                assert seg[:-1].sum() < (w - 1) ** -p / eps
            prev = w


def test_fixed_schedule():
    assert fixed_schedule(0.3, 20).tolist() == [4, 8, 12, 16, 20]
    eps = calibrate_epsilon(1.0, DELTA, 1.1)
    assert fixed_schedule(eps, 1000).tolist() == [253, 506, 759]
    assert release_schedule(0.3, schedule="fixed", n_max=9).tolist() == [4, 8]


def test_accountant_matches_spec_values():
    """Exact accountant with N = 1e5 pulls of one arm."""
    expected = {(0.1, "fixed"): (0.011, 0.026), (0.1, "lemmaB1_y"): (0.035, 0.083),
                (1.0, "fixed"): (1.48, 0.49), (1.0, "lemmaB1_y"): (1.68, 0.80)}
    for (target, schedule), (basic, adv) in expected.items():
        eps = calibrate_epsilon(target, DELTA, 1.1)
        acc = interval_accountant(release_schedule(eps, schedule=schedule, n_max=100_000),
                                  v=1.1, delta_prime=DELTA)
        assert acc["basic"].epsilon == pytest.approx(basic, abs=0.006)
        assert acc["advanced"].epsilon == pytest.approx(adv, abs=0.006)
        # the exact advanced accounting meets the target (Corollary 3.2)
        assert acc["advanced"].epsilon <= target
        # and is dominated by Theorem 3.4's advanced branch and Corollary 3.1
        assert acc["advanced"].epsilon <= thm34_bound(eps, 100_000, delta_prime=DELTA)["advanced"]


def test_paper_bounds_spec_values():
    e01 = calibrate_epsilon(0.1, DELTA, 1.1)
    e1 = calibrate_epsilon(1.0, DELTA, 1.1)
    assert thm34_bound(e01, 100_000, delta_prime=DELTA)["basic"] == pytest.approx(0.0182, abs=1e-4)
    assert thm34_bound(e1, 100_000, delta_prime=DELTA)["basic"] == pytest.approx(1.56, abs=0.01)
    # Corollary 3.1's basic branch dominates Theorem 3.4's (integral test)
    for t in (10, 1000, 100_000):
        assert cor31_bound(e1, t)["basic"] >= thm34_bound(e1, t)["basic"]


def test_heterogeneous_composition_reduces_to_homogeneous():
    for eps, k in ((0.1, 50), (0.01, 1000)):
        het = heterogeneous_advanced_composition([eps] * k, 1e-5)
        hom = advanced_composition(eps, 0.0, k, 1e-5)
        assert het.epsilon == pytest.approx(hom.epsilon, rel=1e-12)


def test_one_draw_per_release_point_and_values():
    rng = np.random.default_rng(0)
    m = IntervalLaplaceMean((3, 2), epsilon=0.25, v=1.1, rng=1)
    x = rng.random((30, 3, 2))
    for t in range(30):
        m.add(x[t])
    assert m.n_draws == 6 * len(m.release_points(30))            # points 4, 8, ..., 28
    assert np.all(m.n_rel == 28)
    # stale between releases: adding items 29, 30 does not change mu_tilde
    before = m.mu_tilde.copy()
    m.add(np.zeros((3, 2)))
    np.testing.assert_array_equal(before, m.mu_tilde)
    # add_at agrees with add on the counts and sums
    m2 = IntervalLaplaceMean((3, 2), epsilon=0.25, v=1.1, rng=1)
    for t in range(30):
        for c in range(2):
            m2.add_at(np.arange(3), np.full(3, c), x[t, :, c])
    np.testing.assert_allclose(m2.sums, x.sum(0))
    assert m2.n_draws == 6 * 7


def test_release_noise_has_lemma31_scale():
    """Empirical Laplace scale n^(v/2-1) at the release points (tolerance from n)."""
    n_streams, v = 20_000, 1.1
    m = IntervalLaplaceMean(n_streams, epsilon=1 / 16, v=v, rng=2)
    true = np.zeros(n_streams)
    for t in range(1, 33):
        x = np.full(n_streams, 0.5)
        m.add(x)
        true += x
        if t in (16, 32):
            err = m.mu_tilde - true / t
            b = t ** (v / 2 - 1)
            # E|Lap(b)| = b, sd |Lap(b)| = b
            assert abs(np.abs(err).mean() - b) < 4.5 * b / math.sqrt(n_streams)


def test_release_privacy_loss_is_lemma31_and_half_noise_caught():
    """Each release is the Laplace mechanism on a mean of sensitivity 1/n: the worst-case
    log density ratio on neighbouring streams is n^(-v/2). Half the noise doubles it, beyond
    the per-release budget the accountant assumes."""
    v = 1.1
    for n in (1, 46, 253, 10_000):
        eps_n = n ** (-v / 2)
        mech = LaplaceMechanism(epsilon=eps_n, sensitivity=1.0 / n)
        assert mech.noise_scale == pytest.approx(n ** (v / 2 - 1))
        y = np.linspace(-3, 3, 2001)
        loss = mech.privacy_loss(y, 0.5, 0.5 + 1.0 / n)
        assert np.max(np.abs(loss)) == pytest.approx(eps_n, rel=1e-9)
        half = LaplaceMechanism(epsilon=2 * eps_n, sensitivity=1.0 / n)   # half the noise
        assert np.max(np.abs(half.privacy_loss(y, 0.5, 0.5 + 1.0 / n))) > 1.5 * eps_n
    m = IntervalLaplaceMean(1, epsilon=0.1, v=v)
    assert m.release_epsilon(100) == pytest.approx(100 ** (-v / 2))
    assert m.noise_scale(100) == pytest.approx(1.0 / (100 * m.release_epsilon(100)))


def test_guarantee_anytime():
    eps = calibrate_epsilon(1.0, DELTA, 1.1)
    g = IntervalLaplaceMean(2, epsilon=eps, v=1.1, delta_prime=DELTA).guarantee
    assert isinstance(g, ApproxDP)
    assert g.epsilon == pytest.approx(1.0, abs=1e-12) and g.delta == pytest.approx(DELTA)


def test_per_stream_epsilon_uses_own_schedule():
    m = IntervalLaplaceMean((2, 2), epsilon=np.array([[0.5], [0.25]]), rng=0)
    assert m.first_release().tolist() == [[2, 2], [4, 4]]
    for _ in range(4):
        m.add(1.0)
    assert m.n_rel.tolist() == [[4, 4], [4, 4]]
    assert m.n_draws == 2 * 2 + 2 * 1


@pytest.mark.parametrize("call,exc", [
    (lambda: calibrate_epsilon(2.0, DELTA), ValueError),
    (lambda: calibrate_epsilon(0.5, 0.0), ValueError),
    (lambda: lemma_b1_schedule(0.1, 1.6, "y", 10), ValueError),
    (lambda: lemma_b1_schedule(0.1, 1.1, "z", 10), ValueError),
    (lambda: IntervalLaplaceMean(2, epsilon=-1), ValueError),
    (lambda: IntervalLaplaceMean(2, epsilon=0.1, schedule="lemma"), ValueError),
    (lambda: IntervalLaplaceMean(2, epsilon=0.1, v="1.1"), TypeError),
])
def test_invalid(call, exc):
    with pytest.raises(exc):
        call()


@pytest.mark.parametrize("multiplier", [0.25, 0.5, 2.0])
@pytest.mark.parametrize("schedule", ["fixed", "lemmaB1_y", "lemmaB1_x"])
def test_noise_multiplier_guarantee_dominates_the_exact_accountant(multiplier, schedule):
    """With every release's noise times m, each release costs n^(-v/2) / m; the reported
    anytime bound (Corollary 3.1 generalised to m) must still dominate the exact advanced
    composition of those costs, and for m < 1 exceed the honest guarantee."""
    eps = calibrate_epsilon(1.0, DELTA, 1.1)
    mech = IntervalLaplaceMean(1, epsilon=eps, v=1.1, schedule=schedule, delta_prime=DELTA,
                               noise_multiplier=multiplier)
    exact = mech.accountant(200_000, delta_prime=DELTA)["advanced"].epsilon
    assert exact <= mech.guarantee.epsilon
    assert mech.noise_scale(100) == pytest.approx(multiplier * 100 ** (1.1 / 2 - 1))
    honest = IntervalLaplaceMean(1, epsilon=eps, v=1.1, delta_prime=DELTA).guarantee.epsilon
    assert (mech.guarantee.epsilon > honest) == (multiplier < 1)
