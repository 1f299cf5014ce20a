"""Non-private baselines: formulas, regret behaviour, KL-UCB index."""
import numpy as np
import pytest

import dpolearn as dpl
from dpolearn.bandits.kl import kl_bernoulli, klucb_upper


@pytest.mark.parametrize("p, d, expected", [(0.1, 0.2, 0.378391), (0.5, 0.2, 0.787088)])
def test_klucb_reference_values(p, d, expected):
    assert klucb_upper(p, d) == pytest.approx(expected, abs=1e-6)


def test_klucb_matches_bisection_over_the_domain():
    rng = np.random.default_rng(0)
    p = np.concatenate([rng.random(20000), [0.0, 1.0, 1 - 1e-9, 1e-9]])
    d = 10 ** rng.uniform(-9, 1.5, p.size)
    lo, hi = p.copy(), np.ones_like(p)
    for _ in range(200):
        mid = (lo + hi) / 2
        above = kl_bernoulli(p, mid) > d
        hi, lo = np.where(above, mid, hi), np.where(above, lo, mid)
    assert np.max(np.abs(klucb_upper(p, d) - lo)) < 1e-9


def test_ucb1_index_formula():
    pol = dpl.UCB1()
    pol.reset(1, 3, np.random.default_rng(0))
    pol.sums_[:] = [[3.0, 1.0, 2.0]]
    pol.counts_[:] = [[4.0, 1.0, 5.0]]
    t = 11
    index = pol.sums_ / pol.counts_ + np.sqrt(2 * np.log(t) / pol.counts_)
    assert pol.select(t)[0] == np.argmax(index[0]) == 1


def test_ucb1_initialisation_pulls_each_arm_once():
    pol = dpl.UCB1()
    pol.reset(4, 3, np.random.default_rng(0))
    assert [pol.select(t).tolist() for t in (1, 2, 3)] == [[0] * 4, [1] * 4, [2] * 4]


def test_gaussian_ts_ag_prior_is_standard_normal_before_data():
    pol = dpl.GaussianTS()
    pol.reset(20000, 2, np.random.default_rng(1))
    # with no data both arms sample N(0, 1): each wins half the time
    wins = np.mean(pol.select(1) == 0)
    assert abs(wins - 0.5) < 4 * np.sqrt(0.25 / 20000)


def test_hedge_probabilities_follow_exponential_weights():
    pol = dpl.Hedge(learning_rate=0.7)
    n = 40000
    pol.reset(n, 3, np.random.default_rng(2))
    pol.cum_losses_[:] = [0.0, 1.0, 3.0]
    freq = np.bincount(pol.select(5), minlength=3) / n
    w = np.exp(-0.7 * np.array([0.0, 1.0, 3.0]))
    p = w / w.sum()
    assert np.all(np.abs(freq - p) < 4 * np.sqrt(p * (1 - p) / n))


def test_ftl_follows_the_leader():
    pol = dpl.FTL()
    pol.reset(1, 3, np.random.default_rng(0))
    pol.update(1, np.array([0]), np.array([[0.5, 0.2, 0.9]]))
    assert pol.select(2)[0] == 1


def test_uniform_play_is_zero_dp_and_uniform():
    pol = dpl.UniformPlay()
    assert pol.guarantee == dpl.PureDP(0.0)
    pol.reset(30000, 3, np.random.default_rng(0))
    freq = np.bincount(pol.select(1), minlength=3) / 30000
    assert np.all(np.abs(freq - 1 / 3) < 4 * np.sqrt(2 / 9 / 30000))


@pytest.fixture(scope="module")
def ucb_ts_runs():
    env = dpl.BernoulliBandit([0.9, 0.6])
    ucb = dpl.simulate(dpl.UCB1(), env, 100_000, 20, seed=2024, progress=False)
    ts = dpl.simulate(dpl.BetaTS(), env, 100_000, 20, seed=2025, progress=False)
    return ucb, ts


def test_ucb1_regret_is_logarithmic_and_below_its_bound(ucb_ts_runs):
    ucb, _ = ucb_ts_runs
    gaps = [0.0, 0.3]
    bounds = np.array([dpl.UCB1.regret_bound(gaps, t) for t in ucb.checkpoints])
    # the mean (plus 3 standard errors) stays below the finite-time bound at every checkpoint
    assert np.all(ucb.mean() - 3 * ucb.se() <= bounds)
    # logarithmic growth: regret(T) / ln T settles; from T = 10^3 to 10^5 the ratio changes
    # by far less than the 100x a linear regret would show
    r3 = ucb.mean()[np.searchsorted(ucb.checkpoints, 1000)]
    r5 = ucb.mean()[-1]
    assert r5 / r3 < 2.5 * np.log(1e5) / np.log(1e3)
    assert r5 > r3


def test_thompson_sampling_beats_ucb1(ucb_ts_runs):
    ucb, ts = ucb_ts_runs
    diff = ucb.final_mean - ts.final_mean
    se = np.hypot(ucb.final_se, ts.final_se)
    assert diff > 3 * se
