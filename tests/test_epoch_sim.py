"""Epoch-level simulation (the epoch path of dpolearn.simulate), exact RNM selection
probabilities and exact deterministic regret."""
import time

import numpy as np
import pytest

import dpolearn as dpl
from dpolearn.envs import TwoPointExperts
from dpolearn.fullinfo import RNMFTNL, NaiveFTNL
from dpolearn.fullinfo.epoch_sim import (
    epoch_loss_sums,
    exact_regret_deterministic,
    two_action_probability,
)
from dpolearn.mechanisms import ExponentialMechanism, ReportNoisyMax
from dpolearn.mechanisms.noisy_max import noise_difference_sf
from dpolearn.mechanisms.noisy_max import selection_probabilities as rnm_probabilities

NOISES = ("laplace", "exponential", "gumbel")


def per_round(policy, env, horizon, n_runs, **kwargs):
    """The round-by-round reference: the same policy with block play switched off."""
    return dpl.simulate(policy, env, horizon, n_runs, block_updates=False, **kwargs)


def close_means(a, b, k=4.5):
    se = np.hypot(a.se(), b.se())
    return np.all(np.abs(a.mean() - b.mean()) <= k * se + 1e-12)


# --- epoch-level simulation agrees with the per-round algorithm --------------------------------
@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("resample", [False, True])
def test_epoch_level_matches_per_round(noise, resample):
    env = dpl.BernoulliExperts([0.35, 0.5, 0.55, 0.7])
    kw = {"epsilon": 0.7, "noise": noise, "resample": resample}
    ck = [1, 3, 10, 31, 64, 127]
    fast = dpl.simulate(RNMFTNL(**kw), env, 127, 3000, seed=1, checkpoints=ck)
    slow = per_round(RNMFTNL(**kw), env, 127, 3000, seed=2, checkpoints=ck)
    assert close_means(fast, slow)
    # distribution of the action of the last epoch (J_6): compare frequencies
    for res in (fast, slow):
        assert res.pulls.sum(axis=1).tolist() == [127] * 3000
    f_fast = (fast.pulls == 64).mean(axis=0)
    f_slow = (slow.pulls == 64).mean(axis=0)
    p = (f_fast + f_slow) / 2
    assert np.all(np.abs(f_fast - f_slow) <= 4.5 * np.sqrt(2 * p * (1 - p) / 3000) + 1e-12)


def test_two_point_epoch_sums_match_per_round_sums():
    inst = TwoPointExperts(np.array([0.3, 0.2]), np.array([0.3, 0.9]), np.array([0.0, 0.2]))
    rng = np.random.default_rng(0)
    n, runs = 8, 50_000
    G = epoch_loss_sums(inst, n, False, runs, rng)
    per_round = np.where(rng.random((runs, n, 2)) < inst.p_high, inst.high, inst.low).sum(axis=1)
    for j in range(2):
        se = np.hypot(G[:, j].std(), per_round[:, j].std()) / np.sqrt(runs)
        assert abs(G[:, j].mean() - per_round[:, j].mean()) <= 4.5 * se + 1e-12
        assert (
            abs(G[:, j].mean() - n * inst.means[j]) <= 4.5 * G[:, j].std() / np.sqrt(runs) + 1e-12
        )
    Gr = epoch_loss_sums(inst, n, True, runs, rng)
    assert np.allclose(Gr, np.round(Gr)) and abs(Gr[:, 1].mean() - n * 0.34) < 4.5 * np.sqrt(
        n * 0.34 * 0.66 / runs
    )


def test_resampling_changes_nothing_on_bernoulli_instances():
    env = dpl.BernoulliExperts([0.4, 0.6, 0.6])
    a = per_round(RNMFTNL(epsilon=0.5, resample=False), env, 63, 3000, seed=3,
                  checkpoints=[7, 63])
    b = per_round(RNMFTNL(epsilon=0.5, resample=True), env, 63, 3000, seed=4,
                  checkpoints=[7, 63])
    assert close_means(a, b)


def test_reward_kind_is_loss_one_minus_reward():
    a = dpl.simulate(RNMFTNL(epsilon=1.0), dpl.BernoulliExperts([0.6, 0.4, 0.4], kind="reward"),
                     2 ** 12, 2000, seed=5)
    b = dpl.simulate(
        RNMFTNL(epsilon=1.0), dpl.BernoulliExperts([0.4, 0.6, 0.6]), 2**12, 2000, seed=6
    )
    assert close_means(a, b)


def test_epoch_path_deterministic_matches_exact_and_fixed_sequence():
    mu = np.array([0.0, 0.3, 0.3, 1.0, 1.0])
    T = 255
    exact = exact_regret_deterministic(
        mu, epsilon=1.0, noise="laplace", horizon=np.array([7, 64, T])
    )
    ep = dpl.simulate(RNMFTNL(epsilon=1.0), TwoPointExperts.deterministic(mu), T, 4000, seed=7,
                      checkpoints=[7, 64, T])
    assert np.all(np.abs(ep.mean() - exact) <= 4.5 * ep.se())
    per_round = dpl.simulate(RNMFTNL(epsilon=1.0), dpl.FixedSequence(np.tile(mu, (T, 1))), T, 4000,
                             seed=8, checkpoints=[7, 64, T])
    assert np.all(np.abs(per_round.mean() - exact) <= 4.5 * per_round.se())


def test_epoch_path_checkpoints_inside_epochs_are_linear():
    res = dpl.simulate(RNMFTNL(epsilon=np.inf, first_action="first"),
                       TwoPointExperts.deterministic([0.5, 0.0]), 20, 1, checkpoints=range(1, 21))
    # J_0 = 0 (gap 0.5) in round 1, then the noiseless leader (action 1, gap 0) forever
    assert res.regret[0].tolist() == [0.5] * 20
    res = dpl.simulate(NaiveFTNL(epsilon=1e-9, first_action="first"),
                       TwoPointExperts.deterministic([0.5, 0.0]), 20, 1, checkpoints=range(1, 21))
    assert np.all(np.diff(res.regret[0]) >= 0)


def test_regret_vs_T_up_to_2_pow_30_in_seconds():
    env = dpl.BernoulliExperts(np.r_[0.4, np.full(63, 0.6)])
    start = time.perf_counter()
    res = dpl.simulate(RNMFTNL(epsilon=np.repeat([0.1, 1.0], 500), noise="gumbel", resample=True),
                       env, 2 ** 30 - 1, 1000, seed=9)
    assert time.perf_counter() - start < 5.0
    lo, hi = res.split(2)
    # flat: T-independence once the leader is found (Wu and Wang 2025, Sec. 4)
    i20 = np.searchsorted(res.checkpoints, 2 ** 20)
    assert abs(hi.mean()[-1] - hi.mean()[i20]) < 1e-9
    assert lo.final_mean > hi.final_mean


# --- exact selection probabilities --------------------------------------------------------------
SCORES = np.array(
    [0.0, 0.0, -0.4, -0.4, -0.4, -1.1, -1.1, -2.0, -2.0, -2.0]
)  # 10 actions, 4 groups


@pytest.mark.parametrize("noise", NOISES)
def test_rnm_probabilities_match_monte_carlo(noise):
    n = 400_000
    rnm = ReportNoisyMax(scale=0.6, noise=noise)
    rng = np.random.default_rng(10)
    freq = np.bincount(rnm.select(np.broadcast_to(SCORES, (n, 10)), rng), minlength=10) / n
    p = rnm_probabilities(SCORES, noise, 0.6)
    assert abs(p.sum() - 1) < 1e-12
    assert np.all(np.abs(freq - p) <= 4.5 * np.sqrt(p * (1 - p) / n))


@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("scale", [0.05, 0.6, 7.0])
def test_rnm_probabilities_match_quadrature(noise, scale):
    p = rnm_probabilities(SCORES, noise, scale)
    q = ReportNoisyMax(scale=scale, noise=noise).selection_probabilities(SCORES)
    np.testing.assert_allclose(p, q, atol=2e-8)


def test_gumbel_is_exponential_mechanism_and_scale_zero_is_argmax():
    em = ExponentialMechanism(epsilon=1.3)
    np.testing.assert_allclose(
        rnm_probabilities(SCORES, "gumbel", 2 / 1.3), em.probabilities(SCORES)
    )
    assert rnm_probabilities(SCORES, "laplace", 0.0).tolist() == [1.0] + [0.0] * 9


def test_rnm_probabilities_large_K_grouped():
    u = np.r_[0.0, np.full(16383, -3.0)]
    for noise in NOISES:
        p = rnm_probabilities(u, noise, 1.0)
        assert abs(p.sum() - 1) < 1e-12 and np.allclose(p[1:], p[1])
    with pytest.raises(ValueError, match="scores"):
        rnm_probabilities([1.0], "laplace", 1.0)
    with pytest.raises(ValueError, match="noise"):
        rnm_probabilities([1.0, 2.0], "normal", 1.0)


@pytest.mark.parametrize("noise", NOISES)
def test_noise_difference_sf_matches_two_action_probabilities(noise):
    for x in (-2.5, 0.0, 0.3, 4.0):
        p = ReportNoisyMax(scale=1.3, noise=noise).selection_probabilities([0.0, -x])
        assert abs(noise_difference_sf(x, noise, 1.3) - p[1]) < 1e-9


# --- the two-action resampling example of Wu and Wang, Section 3.1 ----------------------------
PRINTED = TwoPointExperts(np.array([0.3, 0.0]), np.array([0.3, 0.4]), np.array([0.0, 0.8]))
CORRECTED = TwoPointExperts(np.array([0.3, 0.2]), np.array([0.3, 0.9]), np.array([0.0, 0.2]))


def test_example_means():
    np.testing.assert_allclose(PRINTED.means, [0.3, 0.32])
    np.testing.assert_allclose(CORRECTED.means, [0.3, 0.34])


@pytest.mark.parametrize(
    "inst, n, eps, b0, b1",
    [
        (PRINTED, 1, np.inf, 0.2000, 0.4900),
        (PRINTED, 1, 2, 0.4948, 0.4955),
        (PRINTED, 1, 1, 0.4975, 0.4976),
        (CORRECTED, 1, np.inf, 0.8000, 0.4800),
        (CORRECTED, 1, 2, 0.4913, 0.4910),
        (CORRECTED, 1, 1, 0.4952, 0.4952),
        (CORRECTED, 1, 10, 0.5092, 0.4805),
        (CORRECTED, 1, 50, 0.7261, 0.4800),
        (CORRECTED, 2, np.inf, 0.6400, 0.4687),
        (CORRECTED, 2, 2, 0.4828, 0.4835),
        (CORRECTED, 2, 1, 0.4904, 0.4906),
        (CORRECTED, 2, 10, 0.4932, 0.4693),
        (CORRECTED, 2, 50, 0.6325, 0.4687),
        (CORRECTED, 8, np.inf, 0.5033, 0.4333),
        (CORRECTED, 8, 2, 0.4359, 0.4510),
        (CORRECTED, 8, 1, 0.4630, 0.4674),
    ],
)
def test_resampling_example_probabilities(inst, n, eps, b0, b1):
    b = 0.0 if np.isinf(eps) else 2.0 / eps
    got0 = two_action_probability(inst, n, resample=False, noise="laplace", scale=b)
    got1 = two_action_probability(inst, n, resample=True, noise="laplace", scale=b)
    assert abs(got0 - b0) < 6e-5 and abs(got1 - b1) < 6e-5


def test_resampling_example_by_simulation():
    # The exact formula against Monte Carlo of the epoch-level policy, both B.
    n_runs = 40_000
    for resample in (False, True):
        res = dpl.simulate(RNMFTNL(epsilon=10.0, resample=resample), CORRECTED, 4, n_runs,
                           seed=12, checkpoints=[4])
        # round 4 plays J_2 (from the n = 2 rounds 2, 3); pulls of action 1 in round 4 only:
        p = two_action_probability(CORRECTED, 2, resample=resample, scale=0.2)
        pol = RNMFTNL(epsilon=10.0, resample=resample)
        pol.reset(n_runs, 2, np.random.default_rng(13))
        G = epoch_loss_sums(CORRECTED, 2, resample, n_runs, np.random.default_rng(14))
        f = np.mean(pol.noisy_leader(G) == 1)
        assert abs(f - p) < 4.5 * np.sqrt(p * (1 - p) / n_runs)
        assert res.regret.shape == (n_runs, 1)
    with pytest.raises(ValueError, match="K = 2"):
        two_action_probability(TwoPointExperts.bernoulli([0.1, 0.2, 0.3]), 1, resample=True)


@pytest.mark.parametrize("scale, exc", [(-1.0, ValueError), (np.nan, ValueError), ("1", TypeError),
                                        (None, TypeError), (True, TypeError)])
def test_two_action_probability_refuses_a_bad_noise_scale(scale, exc):
    with pytest.raises(exc, match="scale"):
        two_action_probability(CORRECTED, 2, resample=False, scale=scale)


# --- exact regret in the deterministic setting ----------------------------------------------------
def test_exact_regret_two_actions_hand_value():
    hand = 0.5 + sum(2 ** m / (1 + np.exp(2 ** (m - 1) / 2)) for m in range(1, 12))
    assert abs(exact_regret_deterministic([0.0, 1.0], epsilon=1.0, noise="gumbel") - hand) < 1e-10
    # Exp: P(J = 1) = P(Q_2 - Q_1 > x) = exp(-x / b) / 2 for x > 0 (b = 2)
    hand_exp = 0.5 + sum(2 ** m * 0.5 * np.exp(-(2 ** (m - 1)) / 2) for m in range(1, 14))
    assert (
        abs(exact_regret_deterministic([0.0, 1.0], epsilon=1.0, noise="exponential") - hand_exp)
        < 1e-9
    )


@pytest.mark.parametrize("noise, scale, values", [
    ("gumbel", "strict", {2: 3.583, 4: 7.315, 16: 15.094, 1024: 38.300}),
    ("exponential", "strict", {2: 2.536, 4: 5.594, 16: 12.820, 1024: 34.992}),
    ("exponential", "wu2025", {2: 1.214, 4: 2.574, 16: 5.982}),
    ("laplace", "strict", {2: 3.911, 4: 7.322, 16: 14.597, 1024: 37.622}),
])
def test_exact_regret_two_level_reference_values(noise, scale, values):
    # eps R(inf) on the two-level instance with eps * Delta = 1
    for K, v in values.items():
        mu = np.r_[0.0, np.ones(K - 1)]
        assert (
            abs(exact_regret_deterministic(mu, epsilon=1.0, noise=noise, noise_factor=scale) - v)
            < 1.5e-3
        )


@pytest.mark.parametrize("noise", NOISES)
def test_exact_regret_scale_invariance_and_limits(noise):
    mu = np.array([0.1, 0.15, 0.4, 0.9])
    a = 0.5 * exact_regret_deterministic(mu, epsilon=0.5, noise=noise)
    b = 2.0 * exact_regret_deterministic(mu[0] + (mu - mu[0]) / 4, epsilon=2.0, noise=noise)
    assert abs(a - b) < 1e-8 * a
    T = 2 ** np.arange(1, 61, dtype=np.int64) - 1
    R = exact_regret_deterministic(mu, epsilon=0.5, noise=noise, horizon=T)
    assert np.all(np.diff(R) >= -1e-12)
    assert abs(R[-1] - exact_regret_deterministic(mu, epsilon=0.5, noise=noise)) < 1e-8 * R[-1]
    first = exact_regret_deterministic(
        mu, epsilon=0.5, noise=noise, horizon=1, first_action="first"
    )
    assert first == 0.0


def test_exact_regret_per_round_definition_small_T():
    # R(T) as a sum over rounds of E[Delta_{I_t}] with the epoch of each round.
    mu = np.array([0.0, 0.2, 0.7])
    d = mu - mu.min()
    for T in range(1, 20):
        total = 0.0
        for t in range(1, T + 1):
            m = int(t).bit_length() - 1  # I_t = J_{r(t) - 1}
            p = (
                np.full(3, 1 / 3)
                if m == 0
                else rnm_probabilities(-(2 ** (m - 1)) * d, "laplace", 2.0)
            )
            total += d @ p
        assert abs(exact_regret_deterministic(mu, epsilon=1.0, horizon=T) - total) < 1e-12


def test_exact_regret_invalid():
    with pytest.raises(ValueError, match="horizon"):
        exact_regret_deterministic([0.0, 1.0], epsilon=1.0, horizon=np.array([0]))
    with pytest.raises(ValueError, match="epsilon"):
        exact_regret_deterministic([0.0, 1.0], epsilon=-1.0)
    with pytest.raises(ValueError, match="means"):
        exact_regret_deterministic([[0.0, 1.0]], epsilon=1.0)


# --- Lemma 6 of Wu and Wang: monotonicity under resampling ---------------------------------
@pytest.mark.parametrize("noise", NOISES)
def test_lemma6_monotone_selection_with_resampling(noise):
    # Exact P[J = j] for K = 3, B = 1, n = 4 by enumerating the binomial sums: smaller mean loss
    # must be chosen at least as often, and P[J = j-th best] <= 1/j.
    from scipy import stats

    n, mu, scale = 4, np.array([0.55, 0.3, 0.45]), 0.8
    k = np.arange(n + 1)
    pmf = [stats.binom.pmf(k, n, m) for m in mu]
    p = np.zeros(3)
    for a in k:
        for b in k:
            for c in k:
                w = pmf[0][a] * pmf[1][b] * pmf[2][c]
                p += w * rnm_probabilities(-np.array([a, b, c], float), noise, scale)
    order = np.argsort(mu)
    assert np.all(np.diff(p[order]) <= 1e-12)
    assert np.all(p[order] <= 1.0 / np.arange(1, 4) + 1e-12)


# --- experiments: results do not depend on the number of processes -------------------------
def test_experiment_results_do_not_depend_on_jobs(monkeypatch):
    from dpolearn.experiments import wu2025
    from dpolearn.experiments.registry import SUMMARY_COLUMNS

    monkeypatch.setitem(wu2025.E1_SIZES, "quick",
                        {"Ks": (4,), "eps": (0.1, 1.0), "log2T": 12, "n_runs": 20})
    one = wu2025._e1(scale="quick", seed=0, jobs=1, progress=False)
    two = wu2025._e1(scale="quick", seed=0, jobs=2, progress=False)
    assert one["results"].keys() == two["results"].keys()
    for key in one["results"]:
        assert np.array_equal(one["results"][key].regret, two["results"][key].regret)
    rows = wu2025._e1_summary(one)
    assert len(rows) == len(wu2025.VARIANTS) * 2
    assert list(rows[0])[:8] == SUMMARY_COLUMNS[:8]
    assert {r["epsilon"] for r in rows} == {0.1, 1.0}
    one_eps = {r["epsilon"]: r for r in rows if "Exp 1/ε" in r["params"]}
    assert one["results"][("Exp 1/ε (paper)", 4, 0.1)].guarantee.epsilon == pytest.approx(0.2)
    assert "epsilon" not in one_eps[0.1]["params"]


def test_instance_sweep_as_one_batch_with_2d_means():
    # Two instances x two epsilons in one batch (rows repeat each cell 1500 times).
    cells = [(np.array([0.3, 0.5, 0.5]), 0.3), (np.array([0.6, 0.2, 0.7]), 0.3),
             (np.array([0.3, 0.5, 0.5]), 3.0), (np.array([0.6, 0.2, 0.7]), 3.0)]
    n = 1500
    means = np.repeat(np.array([m for m, _ in cells]), n, axis=0)
    eps = np.repeat([e for _, e in cells], n)
    batch = dpl.simulate(RNMFTNL(epsilon=eps, noise="gumbel"), dpl.BernoulliExperts(means), 255,
                         len(cells) * n, seed=20, checkpoints=[15, 255])
    for (m, e), part in zip(cells, batch.split(len(cells))):
        alone = dpl.simulate(RNMFTNL(epsilon=e, noise="gumbel"), dpl.BernoulliExperts(m), 255, n,
                             seed=21, checkpoints=[15, 255])
        assert close_means(part, alone)
