"""Tests of Anytime-Lazy-UCB and Lazy-DP-TS (Hu, Huang, Mehta and Hegde, Algorithms 1 and 3;
Hu and Hegde 2022, Algorithm 2)."""
import numpy as np
import pytest
from helpers import drive

from dpolearn import BernoulliBandit, simulate
from dpolearn.accounting import PureDP
from dpolearn.bandits import DPSE, AdaPKLUCB, AnytimeLazyUCB, LazyDPTS
from dpolearn.mechanisms import LazyDoublingPrivateMean

POLICIES = [AnytimeLazyUCB, LazyDPTS]
S1 = (0.75, 0.625, 0.5, 0.375, 0.25)


# ---- construction -------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", POLICIES)
@pytest.mark.parametrize("bad, exc", [(0, ValueError), (-1, ValueError), ("1", TypeError),
                                      (np.nan, ValueError), (None, TypeError),
                                      ([0.5, -1.0], ValueError)])
def test_invalid_epsilon(cls, bad, exc):
    with pytest.raises(exc, match="epsilon"):
        cls(epsilon=bad)


@pytest.mark.parametrize("cls", POLICIES)
def test_invalid_log_and_positional_epsilon(cls):
    with pytest.raises(ValueError, match="log"):
        cls(epsilon=1.0, log="log10")
    with pytest.raises(TypeError):
        cls(1.0)                                  # privacy parameters are keyword-only


@pytest.mark.parametrize("cls", POLICIES)
def test_labels_and_guarantee(cls):
    p = cls(epsilon=0.5)
    assert p.label == {"AnytimeLazyUCB": "Anytime-Lazy-UCB", "LazyDPTS": "Lazy-DP-TS"}[cls.__name__]
    assert p.guarantee == PureDP(0.5)
    assert p.params() == {"epsilon": 0.5, "log": "ln"}


def test_lazy_dpts_log_default_is_natural_and_log2_option():
    assert LazyDPTS(epsilon=1.0).log == "ln"
    assert LazyDPTS(epsilon=1.0, log="log2").log == "log2"


# ---- schedule and initialisation ----------------------------------------------------------------

@pytest.mark.parametrize("cls", POLICIES)
def test_initialisation_pulls_arm_t_in_round_t(cls):
    chosen = drive(cls(epsilon=1.0), S1, 5, 4)
    np.testing.assert_array_equal(chosen, np.repeat(np.arange(5)[:, None], 4, axis=1))


@pytest.mark.parametrize("cls", POLICIES)
def test_uses_the_shared_lazy_mechanism_and_its_schedule(cls):
    p = cls(epsilon=1.0)
    drive(p, S1, 400, 3)
    assert isinstance(p.mean_, LazyDoublingPrivateMean)
    n = p.mean_.n_pulls
    np.testing.assert_array_equal(p.mean_.batch_index, np.floor(np.log2(n + 1)) - 1)
    np.testing.assert_array_equal(p.mean_.batch_size, 2.0 ** p.mean_.batch_index)


# ---- the Anytime-Lazy-UCB index -----------------------------------------------------------------

@pytest.mark.parametrize("log, fn", [("ln", np.log), ("log2", np.log2)])
def test_ucb_index_uses_log_of_current_round_and_last_batch_size(log, fn):
    eps = np.array([0.3, 1.0, 2.5])
    p = AnytimeLazyUCB(epsilon=eps, log=log)
    drive(p, S1, 300, 3)
    mu, O, n = p.mean_.mu_tilde, p.mean_.batch_size, p.mean_.n_pulls
    assert np.any(O != n)                          # the test can tell O_j from total pulls
    for t in (301, 1000, 54321):
        expected = mu + np.sqrt(3 * fn(t) / O) + 3 * fn(t) / (eps[:, None] * O)
        np.testing.assert_allclose(p.index(t), expected, rtol=1e-12)
        wrong = mu + np.sqrt(3 * fn(t) / n) + 3 * fn(t) / (eps[:, None] * n)
        assert not np.allclose(p.index(t), wrong)
        np.testing.assert_array_equal(p.select(t), np.argmax(expected, axis=1))


def test_ucb_with_infinite_epsilon_is_noise_free_lazy_ucb():
    p = AnytimeLazyUCB(epsilon=np.inf)
    drive(p, S1, 200, 2)
    assert np.all(p.privacy_bonus(200) == 0)
    # the private mean of each arm is the exact mean of a batch, hence a multiple of 1/O
    np.testing.assert_allclose(np.round(p.mean_.mu_tilde * p.mean_.batch_size),
                               p.mean_.mu_tilde * p.mean_.batch_size, atol=1e-12)


# ---- Lazy-DP-TS: clip and Beta parameters -------------------------------------------------------

@pytest.mark.parametrize("log, fn", [("ln", np.log), ("log2", np.log2)])
def test_lazy_dpts_shift_clip_and_beta_parameters(log, fn):
    eps = np.array([0.1, 1.0, 50.0])
    p = LazyDPTS(epsilon=eps, log=log)
    drive(p, S1, 500, 3)
    mu, O = p.mean_.mu_tilde, p.mean_.batch_size
    t = 777
    mu_bar = np.clip(mu + 3 * fn(t) / (eps[:, None] * O), 0, 1)
    np.testing.assert_allclose(p.shifted_mean(t), mu_bar, rtol=1e-12)
    a, b = p.beta_params(t)
    np.testing.assert_allclose(a, mu_bar * O + 1)
    np.testing.assert_allclose(b, (1 - mu_bar) * O + 1)
    assert np.all(a >= 1) and np.all(b >= 1)


def test_lazy_dpts_clip_at_both_ends():
    p = LazyDPTS(epsilon=1.0)
    drive(p, (0.5, 0.5), 50, 1)
    O = p.mean_.batch_size.copy()
    p.mean_.mu_tilde[:] = [[-1e6, 1e6]]                 # far below 0 and far above 1
    a, b = p.beta_params(51)
    np.testing.assert_allclose(a, [[1.0, O[0, 1] + 1]])   # Beta(1, O+1) and Beta(O+1, 1)
    np.testing.assert_allclose(b, [[O[0, 0] + 1, 1.0]])
    # theta_0 ~ Beta(1, O_0+1) is small, theta_1 ~ Beta(O_1+1, 1) is large: arm 1 nearly always
    picks = np.array([p.select(51)[0] for _ in range(200)])
    assert picks.mean() > 0.9


def test_lazy_dpts_draws_follow_the_beta_posterior():
    """Statistical: P(J = 0) for two arms equals P(theta_0 > theta_1) of the stated Betas."""
    n = 40_000
    p = LazyDPTS(epsilon=2.0)
    p.reset(n, 2, np.random.default_rng(0))
    for t, (arm, x) in enumerate([(0, 1.0), (1, 0.0), (0, 1.0), (0, 0.0)], start=1):
        p.update(t, np.full(n, arm), np.full(n, x))
    a, b = p.beta_params(5)
    picks = p.select(5)
    ref = np.random.default_rng(1)
    theta = ref.beta(a, b)                              # independent draws, same parameters
    p_ref = np.mean(np.argmax(theta, axis=1) == 0)
    se = np.sqrt(2 * p_ref * (1 - p_ref) / n)
    assert abs(np.mean(picks == 0) - p_ref) < 4 * se


# ---- batching, seeds ----------------------------------------------------------------------------

@pytest.mark.parametrize("cls", POLICIES)
def test_same_seed_same_regret(cls):
    r1 = simulate(cls(epsilon=0.5), BernoulliBandit(S1), 2000, 3, seed=7, progress=False)
    r2 = simulate(cls(epsilon=0.5), BernoulliBandit(S1), 2000, 3, seed=7, progress=False)
    np.testing.assert_array_equal(r1.regret, r2.regret)


def test_batched_rows_equal_single_runs_without_noise():
    """With eps = inf and a fixed reward table, each row of a batch is its own single run."""
    T, K = 300, 3
    table = (np.random.default_rng(4).random((3, T, K)) < [0.7, 0.5, 0.3]).astype(float)
    p = AnytimeLazyUCB(epsilon=np.inf)
    p.reset(3, K, np.random.default_rng(0))
    batch = []
    for t in range(1, T + 1):
        arms = p.select(t)
        batch.append(arms)
        p.update(t, arms, table[np.arange(3), t - 1, arms])
    batch = np.array(batch)
    for i in range(3):
        q = AnytimeLazyUCB(epsilon=np.inf)
        q.reset(1, K, np.random.default_rng(99))
        for t in range(1, T + 1):
            arm = q.select(t)
            assert arm[0] == batch[t - 1, i]
            q.update(t, arm, table[i, t - 1, arm])


@pytest.mark.parametrize("cls", POLICIES)
def test_epsilon_sweep_batch_agrees_with_separate_runs(cls):
    """An epsilon array in one batch has the same regret distribution as separate runs."""
    eps, n, T = np.array([0.2, 2.0]), 200, 3000
    batch = simulate(cls(epsilon=np.repeat(eps, n)), BernoulliBandit((0.7, 0.5, 0.4)), T,
                     2 * n, seed=1, progress=False).split(2)
    for e, part in zip(eps, batch):
        single = simulate(cls(epsilon=e), BernoulliBandit((0.7, 0.5, 0.4)), T, n, seed=2,
                          progress=False)
        se = np.hypot(part.final_se, single.final_se)
        assert abs(part.final_mean - single.final_mean) < 4 * se
    assert batch[0].final_mean > batch[1].final_mean      # smaller epsilon, more regret


@pytest.mark.parametrize("cls", POLICIES)
def test_single_run_slice_behaves_like_the_batch(cls):
    """n_runs = 1 repeated runs have the distribution of the rows of a batch."""
    T, n_single = 1000, 40
    batch = simulate(cls(epsilon=1.0), BernoulliBandit((0.6, 0.4)), T, n_single, seed=3,
                     progress=False)
    singles = np.array([simulate(cls(epsilon=1.0), BernoulliBandit((0.6, 0.4)), T, 1,
                                 seed=100 + i, progress=False).final_mean
                        for i in range(n_single)])
    se = np.hypot(batch.final_se, singles.std(ddof=1) / np.sqrt(n_single))
    assert abs(batch.final_mean - singles.mean()) < 4 * se


# ---- privacy ------------------------------------------------------------------------------------

def _first_decision_prob(policy, x0, n=200_000, seed=0):
    """P(J_3 = arm 0) for K = 2 when arm 0's first reward is x0 and arm 1's is 1."""
    policy.reset(n, 2, np.random.default_rng(seed))
    policy.update(1, np.zeros(n, dtype=int), np.full(n, x0))
    policy.update(2, np.ones(n, dtype=int), np.ones(n))
    return np.mean(policy.select(3) == 0)


def _ratio_bounds(p_a, p_b, n, k=4.0):
    rel = np.sqrt((1 - p_a) / (n * p_a) + (1 - p_b) / (n * p_b))
    r = p_a / p_b
    return r * (1 - k * rel), r * (1 + k * rel)


@pytest.mark.parametrize("cls", POLICIES)
def test_neighbouring_first_rewards_satisfy_dp_inequality(cls):
    """Streams differing in round 1's reward vector: P(J_3 = 0) moves by at most e^eps."""
    eps, n = 1.0, 200_000
    p_hi = _first_decision_prob(cls(epsilon=eps), 1.0, n, seed=1)
    p_lo = _first_decision_prob(cls(epsilon=eps), 0.0, n, seed=2)
    for a, b in ((p_hi, p_lo), (1 - p_lo, 1 - p_hi)):     # both events, both directions
        lo, _ = _ratio_bounds(a, b, n)
        assert lo <= np.exp(eps)


def HalfNoiseUCB(*, epsilon):
    """Deliberately broken: Laplace noise of scale 1/(2 eps)."""
    return AnytimeLazyUCB(epsilon=epsilon, noise_multiplier=0.5)


def test_half_noise_ucb_is_caught():
    """At t = 3 both arms have O = 1 and equal widths: J_3 = 0 iff x_0 + Z_0 > 1 + Z_1.

    Correct noise: P(Z_0 - Z_1 > 0) / P(Z_0 - Z_1 > 1) = 0.5 / (0.75 e^-1) = 1.81 < e.
    Half noise: 0.5 / e^-2 = 3.69 > e.
    """
    eps, n = 1.0, 200_000
    good = _first_decision_prob(AnytimeLazyUCB(epsilon=eps), 1.0, n, 1) / \
        _first_decision_prob(AnytimeLazyUCB(epsilon=eps), 0.0, n, 2)
    assert good == pytest.approx(0.5 / (0.75 * np.exp(-1)), rel=0.03)
    p_hi = _first_decision_prob(HalfNoiseUCB(epsilon=eps), 1.0, n, 1)
    p_lo = _first_decision_prob(HalfNoiseUCB(epsilon=eps), 0.0, n, 2)
    lo, _ = _ratio_bounds(p_hi, p_lo, n)
    assert lo > np.exp(eps)


@pytest.mark.parametrize("cls", POLICIES)
def test_open_batch_rewards_never_influence_decisions(cls):
    """Flip one reward: decisions stay identical until the batch holding it is processed."""
    T, K, s = 600, 3, 200
    base = (np.random.default_rng(8).random((T, K)) < 0.5).astype(float)

    def run(flip):
        p = cls(epsilon=0.7)
        p.reset(1, K, np.random.default_rng(0))
        arms, processed_at = [], None
        for t in range(1, T + 1):
            arm = p.select(t)
            arms.append(int(arm[0]))
            x = base[t - 1, arm].copy()
            if flip and t == s:
                x = 1.0 - x
            r_before = p.mean_.batch_index[0, arm[0]]
            p.update(t, arm, x)
            if t >= s and processed_at is None and arm[0] == arms[s - 1] \
                    and p.mean_.batch_index[0, arm[0]] != r_before:
                processed_at = t                 # the batch holding round s's reward closes
                released = (p.mean_.mu_tilde[0, arm[0]], p.mean_.batch_size[0, arm[0]])
        return arms, processed_at, released

    same, t_proc, (mu, O) = run(False)
    flipped, t_proc2, (mu2, O2) = run(True)
    assert t_proc == t_proc2 and t_proc > s + 10      # the reward really waited in an open batch
    assert same[:t_proc] == flipped[:t_proc]          # decisions up to the processing round
    # same noise draws (same decisions so far), so the release moves by exactly 1/O
    assert O == O2 and abs(mu - mu2) == pytest.approx(1.0 / O)


# ---- regret sanity ----------------------------------------------------------------------


@pytest.mark.slow
def test_regret_sanity_on_setting_1():
    """eps = 1, T = 1e5, 20 runs: all four algorithms sublinear; Lazy-DP-TS < Anytime-Lazy-UCB."""
    T, n = 100_000, 20
    ck = [T // 4, T // 2, T]
    res = {}
    for pol in (AnytimeLazyUCB(epsilon=1.0), LazyDPTS(epsilon=1.0),
                DPSE(epsilon=1.0, horizon=T), AdaPKLUCB(epsilon=1.0)):
        res[pol.label] = r = simulate(pol, BernoulliBandit(S1), T, n, seed=2021,
                                      checkpoints=ck, progress=False)
        m = r.mean()
        # sublinear: the second half of the horizon costs much less than the first half
        assert m[2] - m[1] < 0.5 * m[1], (pol.label, m)
        # and far below uniform play's linear regret T * mean gap
        assert m[2] < 0.2 * T * np.mean(max(S1) - np.array(S1)), (pol.label, m)
    ts, ucb = res["Lazy-DP-TS"], res["Anytime-Lazy-UCB"]
    assert ts.final_mean + 4 * np.hypot(ts.final_se, ucb.final_se) < ucb.final_mean


# ---- the hu2021 experiments (tiny sizes) --------------------------------------------------------

def test_hu2021_grid_is_one_batch_per_algorithm_and_independent_of_jobs(monkeypatch):
    from dpolearn.experiments import hu2021

    monkeypatch.setitem(hu2021._SIZES, "quick", (400, 3))
    one = hu2021._grid("quick", 5, 1, False)
    two = hu2021._grid("quick", 5, 2, False)
    assert len(one["results"]) == 2 * 3 * 4
    for key, res in one["results"].items():
        setting, eps, name = key
        assert res.label == name and res.n_runs == 3 and res.params["epsilon"] == eps
        np.testing.assert_array_equal(res.regret, two["results"][key].regret)
        # the rows of this cell ran on this cell's instance: regret = sum of gaps x pulls
        gaps = max(hu2021.SETTINGS[setting]) - np.array(hu2021.SETTINGS[setting])
        np.testing.assert_allclose(res.regret[:, -1], res.pulls @ gaps)
    rows = hu2021._grid_summary(one)
    assert len(rows) == 24 and {r["algorithm"] for r in rows} == set(hu2021.ALGORITHMS)
    verdicts = hu2021.claims(one, 1)
    assert [v["epsilon"] for v in verdicts] == list(hu2021.EPSILONS)
    for v in verdicts:
        ts, ucb = v["Lazy-DP-TS"], v["Anytime-Lazy-UCB"]
        assert v["TS<UCB"] == (ts[0] + 2 * np.hypot(ts[1], ucb[1]) < ucb[0])


@pytest.mark.parametrize("eps, gap, v24, d24, v72, d72", [
    (0.25, 0.125, 21221, 15, 63662, 16), (0.25, 0.25, 5305, 13, 15915, 14),
    (0.25, 0.375, 3537, 12, 10610, 14), (0.25, 0.5, 2653, 12, 7958, 13),
    (1.0, 0.375, 2358, 12, 7074, 13), (0.5, 0.5, 1326, 11, 3979, 12),
    (0.25, 0.1, 33157, 16, 99472, 17)])
def test_private_sample_complexity_table(eps, gap, v24, d24, v72, d72):
    """c ln T / (gap min(gap, eps)) at T = 10^6 and its ceil-log2, for c = 24 and 72 (the
    constants of the proofs of Theorems 3 and 5), evaluated by hand."""
    from dpolearn.bandits.lazy import private_sample_complexity

    for c, v, d in ((24, v24, d24), (72, v72, d72)):
        value, dd = private_sample_complexity(gap, eps, 10**6, c=c)
        assert round(float(value)) == v and int(dd) == d
    with pytest.raises(ValueError, match="gap"):
        private_sample_complexity(0.0, eps, 10**6)
