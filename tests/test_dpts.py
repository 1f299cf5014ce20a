"""Tests of DP-TS (Hu and Hegde 2022, Algorithm 1) and the hu2022 experiments.

Kinds: (a) unit tests pinning the bonus, the block schedule and the noise bookkeeping of
Algorithm 1 and its Remarks (with a "unit-noise" generator whose Laplace draws equal their scale, so
every noise shows up exactly); (b) seeded statistical tests with tolerances from the sample
size; (c) white-box privacy accounting on neighbouring reward streams, with broken variants
that must be caught; (d) batch-vs-single-run and epsilon-sweep consistency.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import dpolearn as dpl
from dpolearn.accounting import NotPrivate, PureDP
from dpolearn.bandits.baselines import BetaTS
from dpolearn.bandits.dpts import BONUS_CONSTANT, DPTS, dpts_bonus
from dpolearn.mechanisms.counters import lowest_set_bit


# --------------------------------------------------------------------------- helpers
class UnitNoise(np.random.Generator):
    """A Generator whose Laplace draws equal their scale (so noise = scale, exactly) and whose
    Beta draws are the Beta means (deterministic); everything else is a normal PCG64 stream."""

    def laplace(self, loc=0.0, scale=1.0, size=None):
        s = np.asarray(scale, dtype=float)
        if size is not None:
            s = np.broadcast_to(s, size)
        return loc + np.array(s, dtype=float)

    def beta(self, a, b, size=None):
        return np.asarray(a, dtype=float) / (
            np.asarray(a, dtype=float) + np.asarray(b, dtype=float)
        )


def unit_rng(seed=0):
    return UnitNoise(np.random.PCG64(seed))


def drive(policy, rewards, arms=None, rng=None, n_arms=2):
    """Play ``policy`` on a reward table ``rewards[t-1, run, arm]``; if ``arms`` (shape (T,)
    or (T, n_runs)) is given, those arms are pulled instead of the policy's choices (rounds
    1..K always pull arm t). Returns the pulled arms, shape (T, n_runs)."""
    T, n_runs, K = rewards.shape
    policy.reset(n_runs, K, rng if rng is not None else np.random.default_rng(0))
    rows = np.arange(n_runs)
    played = np.empty((T, n_runs), dtype=np.int64)
    for t in range(1, T + 1):
        chosen = policy.select(t)
        if arms is not None and t > K:
            chosen = np.broadcast_to(np.asarray(arms[t - 1]), (n_runs,)).astype(np.int64)
        policy.update(t, chosen, rewards[t - 1, rows, chosen])
        played[t - 1] = chosen
    return played


MEANS5 = (0.75, 0.625, 0.5, 0.375, 0.25)


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "bad, exc",
    [
        (0, ValueError),
        (-1, ValueError),
        (float("nan"), ValueError),
        ("1", TypeError),
        (None, TypeError),
        ([1.0, -2.0], ValueError),
    ],
)
def test_invalid_epsilon(bad, exc):
    with pytest.raises(exc, match="epsilon"):
        DPTS(epsilon=bad)


def test_epsilon_is_keyword_only_and_array_length_checked():
    with pytest.raises(TypeError):
        DPTS(1.0)                    # positional: refused, epsilon is keyword-only
    with pytest.raises(TypeError, match="bernoulli_trick"):
        DPTS(epsilon=1.0, bernoulli_trick="yes")
    policy = DPTS(epsilon=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="epsilon"):
        policy.reset(2, 3, np.random.default_rng(0))


def test_guarantee_records():
    assert DPTS(epsilon=0.5).guarantee == PureDP(0.5)
    g = DPTS(epsilon=np.array([0.1, 1.0])).guarantee
    assert isinstance(g, PureDP) and np.array_equal(g.epsilon, [0.1, 1.0])
    assert DPTS(epsilon=np.inf).guarantee == NotPrivate()
    assert DPTS(epsilon=2.0).label == "DP-TS"


# --------------------------------------------------------------------------- formulas
def test_bonus_formula():
    assert BONUS_CONSTANT == pytest.approx(16.970562748477143, rel=1e-15)
    # v = 6 sqrt 8 log2(O+1) log2(t) / (eps O), hand-computed values
    assert dpts_bonus(1.0, 1, 6) == pytest.approx(6 * math.sqrt(8) * 1 * math.log2(6), rel=1e-14)
    # 6 sqrt8 log2(2) log2(6) / 500
    assert dpts_bonus(500.0, 1, 6) == pytest.approx(0.08775, abs=5e-5)
    assert dpts_bonus(500.0, 1000, 10**5) == pytest.approx(0.005623, abs=5e-6)
    assert dpts_bonus(2.0, 7, 1024) == pytest.approx(6 * math.sqrt(8) * 3 * 10 / 14, rel=1e-14)
    assert dpts_bonus(np.inf, 5, 100) == 0.0


def test_policy_bonus_and_posterior_use_total_pulls():
    eps = np.array([0.5, 4.0, 3000.0])
    policy = DPTS(epsilon=eps)
    rewards = np.random.default_rng(0).random((40, 3, 3))
    drive(policy, rewards, arms=np.r_[[0] * 3, [0, 1, 2, 0, 0, 1] * 6, 0], rng=unit_rng())
    t = 41
    O = policy.O_.astype(float)
    expected = BONUS_CONSTANT * np.log2(O + 1) * math.log2(t) / (eps[:, None] * O)
    np.testing.assert_allclose(policy.bonus(t), expected, rtol=1e-13)
    a, b = policy.posterior_params(t)
    mu_bar = np.clip(policy.mu_tilde_ + expected, 0, 1)
    assert np.all((mu_bar[2] > 0) & (mu_bar[2] < 1))          # eps = 3000: the clip is inactive
    np.testing.assert_allclose(a, mu_bar * O + 1, rtol=1e-13)
    np.testing.assert_allclose(b, (1 - mu_bar) * O + 1, rtol=1e-13)


# --------------------------------------------------------------------------- schedule
# O_j: (r_j, observations in C_j, |Psi_j|, #Lap(2/eps) in C, #BM noises), Remarks after Algorithm 1
SCHEDULE = {
    1: (0, 1, 0, 1, 0), 2: (0, 1, 1, 1, 1), 3: (1, 3, 0, 2, 0), 4: (1, 3, 1, 2, 1),
    5: (1, 3, 2, 2, 1), 6: (1, 3, 3, 2, 2), 7: (2, 7, 0, 3, 0), 8: (2, 7, 1, 3, 1),
    14: (2, 7, 7, 3, 3), 15: (3, 15, 0, 4, 0),
}


def test_schedule_and_noise_bookkeeping_one_arm():
    """Pull arm 0 again and again: after each pull check r_j, what C_j covers, how many noises
    of which scale C_j and B_j hold (unit noise: each noise equals its scale)."""
    eps = 0.8
    T = 140
    rng = np.random.default_rng(5)
    x = rng.random(T)                                  # rewards in [0, 1] of arm 0, in order
    policy = DPTS(epsilon=eps)
    policy.reset(1, 2, unit_rng())
    obs = []
    for t in range(1, T + 2):
        arm = 1 if t == 2 else 0
        val = 0.3 if arm == 1 else x[len(obs)]
        policy.update(t, np.array([arm]), np.array([val]))
        if arm == 1:
            continue
        obs.append(val)
        O = len(obs)
        r = int(policy.r_[0, 0])
        assert policy.O_[0, 0] == O
        assert r == math.floor(math.log2(O + 1)) - 1                     # Remark (a)
        m = 2 ** (r + 1) - 1                                             # C covers x_1..x_m
        n_psi = O - m
        assert 0 <= n_psi <= m                                           # n - m <= m
        assert policy.psi_count_[0, 0] == n_psi
        # C_j = sum(x_1..x_m) + (r+1) noises of scale 2/eps
        assert policy.C_[0, 0] == pytest.approx(sum(obs[:m]) + (r + 1) * 2 / eps, abs=1e-9)
        assert policy.n_log_noises_[0, 0] == r + 1
        # B_j = sum(Psi) + popcount(|Psi|) noises of scale 2(r+1)/eps
        n_bm = bin(n_psi).count("1")
        assert n_bm <= r + 1
        assert policy.B_[0, 0] == pytest.approx(sum(obs[m:]) + n_bm * 2 * (r + 1) / eps, abs=1e-9)
        assert policy.n_bm_noises_[0, 0] == n_bm
        assert policy.mu_tilde_[0, 0] == pytest.approx((policy.C_[0, 0] + policy.B_[0, 0]) / O)
        if O in SCHEDULE:
            assert SCHEDULE[O] == (r, m, n_psi, r + 1, n_bm)
    assert len(obs) == T


def test_epsilon_inf_gives_the_exact_empirical_mean():
    T, n_runs, K = 600, 6, 3
    rng = np.random.default_rng(1)
    rewards = (rng.random((T, n_runs, K)) < np.array([0.7, 0.5, 0.3])).astype(float)
    rewards[:, :3] = rng.random((T, 3, K))                  # [0, 1] rewards too
    policy = DPTS(epsilon=np.inf)
    played = drive(policy, rewards, rng=np.random.default_rng(2))
    rows = np.arange(n_runs)
    sums = np.zeros((n_runs, K))
    counts = np.zeros((n_runs, K))
    for t in range(T):
        sums[rows, played[t]] += rewards[t, rows, played[t]]
        counts[rows, played[t]] += 1
    np.testing.assert_array_equal(policy.O_, counts)
    np.testing.assert_allclose(policy.mu_tilde_, sums / counts, rtol=0, atol=1e-12)
    assert np.all(policy.bonus(T + 1) == 0)


def test_beta_parameters_valid_and_clipping_exercised():
    """Small epsilon: the noisy means leave [0, 1] (the naive-TS failure), yet every Beta
    parameter is >= 1 and alpha + beta = O + 2."""
    policy = DPTS(epsilon=0.05)
    res_rewards = (np.random.default_rng(3).random((300, 200, 2)) < [0.6, 0.4]).astype(float)
    drive(policy, res_rewards, rng=np.random.default_rng(4))
    assert (policy.mu_tilde_ < 0).any() and (policy.mu_tilde_ > 1).any()
    for t in (301, 10**4, 10**9):
        a, b = policy.posterior_params(t)
        assert np.all(a >= 1) and np.all(b >= 1)
        np.testing.assert_allclose(a + b, policy.O_ + 2.0)
    # a tiny bonus (huge eps) would leave negative means: the clip maps them to Beta(1, O + 1)
    policy._eps = np.full(policy.n_runs, 1e300)
    a, b = policy.posterior_params(301)
    neg = policy.mu_tilde_ < 0
    np.testing.assert_array_equal(a[neg], 1.0)
    np.testing.assert_allclose(b[neg], policy.O_[neg] + 1.0)


def test_initialisation_pulls_each_arm_once_then_samples():
    policy = DPTS(epsilon=1.0)
    policy.reset(4, 3, np.random.default_rng(0))
    for t in (1, 2, 3):
        arms = policy.select(t)
        np.testing.assert_array_equal(arms, t - 1)
        policy.update(t, arms, np.ones(4))
    np.testing.assert_array_equal(policy.O_, 1)
    np.testing.assert_array_equal(policy.r_, 0)
    arms = policy.select(4)
    assert arms.shape == (4,) and arms.dtype.kind == "i"


# --------------------------------------------------------------------------- statistics
def test_noise_of_private_sum_matches_the_schedule_variance():
    """Var(O mu_tilde - true sum) = (r+1) 2 (2/eps)^2 + popcount 2 (2(r+1)/eps)^2 at O = 13
    (r = 2, |Psi| = 6: 3 + 2 noises); tolerance 5 standard errors of the sample variance."""
    eps, n_runs, O = 0.7, 20000, 13
    rng = np.random.default_rng(11)
    x = rng.random(O + 1)
    rewards = np.broadcast_to(np.stack([x, x], axis=1)[:, None, :], (O + 1, n_runs, 2)).copy()
    policy = DPTS(epsilon=eps)
    drive(policy, rewards, arms=np.zeros(O + 1, dtype=int), rng=np.random.default_rng(12))
    assert np.all(policy.O_[:, 0] == O)
    err = policy.mu_tilde_[:, 0] * O - x[[0] + list(range(2, O + 1))].sum()
    b_log, b_bm = 2 / eps, 2 * 3 / eps
    var = 3 * 2 * b_log ** 2 + 2 * 2 * b_bm ** 2
    kappa4 = 3 * 12 * b_log ** 4 + 2 * 12 * b_bm ** 4               # 4th cumulant of Lap(b): 12 b^4
    se_var = math.sqrt((kappa4 + 2 * var ** 2) / n_runs)
    assert abs(err.var(ddof=1) - var) < 5 * se_var
    assert abs(err.mean()) < 5 * math.sqrt(var / n_runs)


def test_epsilon_inf_behaves_like_beta_ts_after_round_robin():
    """Remark (b): with epsilon = inf, DP-TS is Beta-TS after one pull of each arm. Compare the
    mean final regret of 3000 runs each within 4.5 standard errors."""
    class RoundRobinTS(BetaTS):
        def select(self, t):
            if t <= self.n_arms:
                return np.full(self.n_runs, t - 1)
            return super().select(t)

    env = dpl.BernoulliBandit([0.6, 0.45, 0.3])
    a = dpl.simulate(DPTS(epsilon=np.inf), env, 150, n_runs=3000, seed=1)
    b = dpl.simulate(RoundRobinTS(), env, 150, n_runs=3000, seed=2)
    se = math.hypot(a.final_se, b.final_se)
    assert abs(a.final_mean - b.final_mean) < 4.5 * se
    for arm in range(3):
        pa, pb = a.pulls[:, arm], b.pulls[:, arm]
        se = math.hypot(pa.std() / math.sqrt(len(pa)), pb.std() / math.sqrt(len(pb)))
        assert abs(pa.mean() - pb.mean()) < 4.5 * se


def test_private_is_worse_than_nonprivate_and_regret_sublinear_at_large_eps():
    env = dpl.BernoulliBandit([0.75, 0.5])
    res = dpl.simulate(DPTS(epsilon=np.repeat([np.inf, 500.0, 0.5], 40)), env, 4000,
                       n_runs=120, seed=3)
    inf, big, small = res.split(3)
    # the bonus shifts every arm's posterior up: at eps = 0.5 and T = 4000 it saturates (v > 1)
    assert small.final_mean > big.final_mean + 5 * math.hypot(small.final_se, big.final_se)
    # at eps = 500 regret grows much more slowly than linearly: second half < first half / 2
    k = np.searchsorted(big.checkpoints, 2000)
    first, total = big.mean()[k], big.final_mean
    assert total - first < 0.5 * first


# --------------------------------------------------------------------------- privacy
class RecordingDPTS(DPTS):
    """DP-TS that records every released noisy statistic as (kind, key, exact value, scale):
    blocks of the logarithmic part (kind "C") and p-sums of the binary mechanism (kind "B")."""

    def reset(self, n_runs, n_arms, rng):
        super().reset(n_runs, n_arms, rng)
        self.releases = []
        self._blocks = np.zeros((n_runs, n_arms), dtype=np.int64)
        self._t = 0

    def _release(self, value, scale):
        if np.ndim(value) and np.size(value):
            for v, s in zip(np.ravel(value), np.broadcast_to(scale, np.shape(value)).ravel()):
                self.releases.append(("C", None, float(v), float(s)))
        return super()._release(value, scale)

    def update(self, t, arms, rewards):
        n_before = len(self.releases)
        super().update(t, arms, rewards)
        assert self.n_runs == 1
        j = int(arms[0])
        for k in range(n_before, len(self.releases)):     # key C releases by (arm, block)
            kind, _, v, s = self.releases[k]
            self.releases[k] = (kind, (j, int(self._blocks[0, j])), v, s)
            self._blocks[0, j] += 1
        n = int(self.tree_.count[0, j])
        if t > self.n_arms and self.psi_count_[0, j] > 0:          # a p-sum was formed
            i = int(lowest_set_bit(n))
            key = (j, int(self.r_[0, j]), i, n >> i)                # arm, block, level, node
            self.releases.append(("B", key, float(self.tree_.alpha[0, j, i]),
                                  float(self.tree_.scale[0, j])))


def privacy_loss(cls, eps, arms, x, h):
    """Privacy loss of all releases when the reward of round h flips 1 <-> 0, with the pulls
    fixed (given the same released values the same arms are pulled: post-processing).
    Returns (loss of the C releases, loss of the B releases)."""
    x2 = x.copy()
    x2[h - 1] = 1.0 - x2[h - 1]
    out = []
    for xs in (x, x2):
        pol = cls(epsilon=eps)
        rewards = np.zeros((len(xs), 1, 2))
        rewards[np.arange(len(xs)), 0, arms] = xs
        drive(pol, rewards, arms=arms, rng=np.random.default_rng(0))
        out.append({(k, key): (v, s) for k, key, v, s in pol.releases})
    a, b = out
    assert a.keys() == b.keys()
    loss = {"C": 0.0, "B": 0.0}
    for key, (v, s) in a.items():
        assert b[key][1] == s
        loss[key[0]] += abs(v - b[key][0]) / s             # log-density ratio bound of Laplace
    return loss["C"], loss["B"]


def _pulls(T=70):
    rng = np.random.default_rng(7)
    arms = np.r_[0, 1, (rng.random(T - 2) < 0.7).astype(int) ^ 1]
    x = (rng.random(T) < 0.5).astype(float)
    return arms, x


def test_privacy_each_half_is_half_epsilon_and_total_epsilon():
    """Theorem 1: for every round h, flipping its reward changes the released statistics by a
    privacy loss <= eps/2 in C and <= eps/2 in the binary mechanisms; both are attained."""
    eps = 0.9
    arms, x = _pulls()
    worst_c = worst_b = 0.0
    for h in range(1, len(x) + 1):
        lc, lb = privacy_loss(RecordingDPTS, eps, arms, x, h)
        assert lc <= 0.5 * eps + 1e-12 and lb <= 0.5 * eps + 1e-12
        worst_c, worst_b = max(worst_c, lc), max(worst_b, lb)
    assert worst_c == pytest.approx(0.5 * eps) and worst_b == pytest.approx(0.5 * eps)
    assert DPTS(epsilon=eps).guarantee == PureDP(worst_c + worst_b)


@pytest.mark.parametrize("field", ["tree_share", "log_share"])
def test_privacy_broken_variant_with_half_the_noise_is_caught(field):
    """Giving either half the whole epsilon (half the Laplace scale) breaks eps-DP: the same
    accounting finds a round whose privacy loss exceeds eps, and the variant's own guarantee
    (composed from its two parts) reports that larger loss honestly."""
    def broken(**kwargs):
        return RecordingDPTS(**kwargs, **{field: 1.0})
    eps = 0.9
    arms, x = _pulls()
    worst = max(sum(privacy_loss(broken, eps, arms, x, h)) for h in range(1, len(x) + 1))
    assert worst > eps * 1.2
    assert worst <= DPTS(epsilon=eps, **{field: 1.0}).guarantee.epsilon + 1e-12


def test_privacy_noise_multiplier_reported_honestly():
    """Half of every Laplace scale: the white-box loss doubles and so does the guarantee."""
    def broken(**kwargs):
        return RecordingDPTS(**kwargs, noise_multiplier=0.5)
    eps = 0.9
    arms, x = _pulls()
    worst = max(sum(privacy_loss(broken, eps, arms, x, h)) for h in range(1, len(x) + 1))
    assert worst == pytest.approx(2 * eps)
    assert DPTS(epsilon=eps, noise_multiplier=0.5).guarantee == PureDP(2 * eps)


def test_bernoulli_trick_must_be_a_bool():
    with pytest.raises(TypeError, match="bernoulli_trick"):
        DPTS(epsilon=1.0, bernoulli_trick="no")


def test_decisions_read_only_released_values():
    """mu_tilde is rebuilt from the released C blocks and the live noisy p-sums alone."""
    arms, x = _pulls(40)
    pol = RecordingDPTS(epsilon=1.0)
    rewards = np.zeros((40, 1, 2))
    rewards[np.arange(40), 0, arms] = x
    drive(pol, rewards, arms=arms, rng=np.random.default_rng(3))
    for j in range(2):
        c_noisy = pol.C_[0, j]
        n = int(pol.tree_.count[0, j])
        bits = [(n >> i) & 1 for i in range(pol.tree_.alpha_hat.shape[-1])]
        b_noisy = float(np.dot(bits, pol.tree_.alpha_hat[0, j]))
        assert pol.mu_tilde_[0, j] == pytest.approx((c_noisy + b_noisy) / pol.O_[0, j])
        # C is the sum of this arm's released (noisy) blocks
        c_exact = sum(v for k, key, v, s in pol.releases if k == "C" and key[0] == j)
        n_blocks = sum(1 for k, key, v, s in pol.releases if k == "C" and key[0] == j)
        assert n_blocks == pol.r_[0, j] + 1
        assert abs(c_noisy - c_exact) > 0                   # noise was added


# --------------------------------------------------------------------------- batching
def test_batch_rows_equal_single_runs_under_deterministic_noise():
    """With unit noise and deterministic Beta draws, every row of an epsilon sweep equals the
    same run simulated alone with a scalar epsilon."""
    T, K = 300, 3
    eps = np.array([0.1, 1.0, 500.0, np.inf])
    rng = np.random.default_rng(9)
    rewards = (rng.random((T, len(eps), K)) < [0.7, 0.5, 0.4]).astype(float)
    batch = DPTS(epsilon=eps)
    played = drive(batch, rewards, rng=unit_rng())
    for i, e in enumerate(eps):
        single = DPTS(epsilon=e)
        p1 = drive(single, rewards[:, i:i + 1], rng=unit_rng())
        np.testing.assert_array_equal(p1[:, 0], played[:, i])
        np.testing.assert_allclose(single.mu_tilde_[0], batch.mu_tilde_[i], rtol=1e-13)
        np.testing.assert_array_equal(single.O_[0], batch.O_[i])


def test_single_runs_agree_in_distribution_with_the_batch():
    env = dpl.BernoulliBandit([0.7, 0.5])
    T, n = 150, 120
    batch = dpl.simulate(DPTS(epsilon=1.0), env, T, n_runs=n, seed=21)
    singles = np.array([dpl.simulate(DPTS(epsilon=1.0), env, T, n_runs=1, seed=1000 + s)
                        .final_mean for s in range(n)])
    se = math.hypot(batch.final_se, singles.std(ddof=1) / math.sqrt(n))
    assert abs(batch.final_mean - singles.mean()) < 4.5 * se


def test_same_seed_same_result_and_sweep_split():
    env = dpl.BernoulliBandit(MEANS5)
    eps = np.repeat([0.5, 5.0], 3)
    a = dpl.simulate(DPTS(epsilon=eps), env, 500, n_runs=6, seed=4)
    b = dpl.simulate(DPTS(epsilon=eps), env, 500, n_runs=6, seed=4)
    np.testing.assert_array_equal(a.regret, b.regret)
    parts = a.split(2)
    assert [p.n_runs for p in parts] == [3, 3]
    np.testing.assert_array_equal(parts[1].regret, a.regret[3:])


# --------------------------------------------------------------------------- experiments
def _tiny_grid(monkeypatch, jobs=1):
    from dpolearn.experiments import hu2022
    monkeypatch.setitem(hu2022._SIZES, "quick", (300, 2))
    return hu2022._grid("quick", seed=0, jobs=jobs, progress=False)


def test_hu2022_grid_structure_tables_and_figures(monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpolearn.experiments import hu2022

    grid = _tiny_grid(monkeypatch)
    assert set(grid["epsilons"]) == {500.0, 1.0, 0.5, 0.25, 0.1}
    for name in hu2022.PRIVATE:
        for e in grid["epsilons"]:
            res = grid["results"][(name, e)]
            assert res.n_runs == 2 and res.horizon == 300 and res.params["epsilon"] == e
            assert res.label == name
    assert grid["results"][("TS (Beta)", None)].n_runs == 2
    rows = hu2022.table(grid)
    assert len(rows) == 5 * len(hu2022.PRIVATE) + 1
    summary = hu2022._summary(grid)
    assert {r["algorithm"] for r in summary} == set(hu2022.PRIVATE) | {"TS (Beta)"}
    assert all(r["epsilon"] == "" for r in summary if r["algorithm"] == "TS (Beta)")
    fig = hu2022._plot_table(grid)
    plt.close(fig)
    for number, e in hu2022.FIGURES.items():
        data = {"figure": number, "epsilons": (e,), "horizon": 300, "n_runs": 2,
                "means": hu2022.MEANS,
                "algorithms": hu2022.PRIVATE if number == 1 else hu2022.PRIVATE[1:],
                "results": {(n, e): grid["results"][(n, e)] for n in hu2022.PRIVATE},
                "reference": grid["results"][("TS (Beta)", None)]}
        plt.close(hu2022._plot_figure(data))
        assert len(hu2022._fig_summary(data)) == len(data["algorithms"])
    ids = dpl.experiments.ids()
    assert {"hu2022-table"} | {f"hu2022-fig{n}" for n in range(1, 6)} <= set(ids)


def test_hu2022_results_do_not_depend_on_jobs(monkeypatch):
    a = _tiny_grid(monkeypatch, jobs=1)
    b = _tiny_grid(monkeypatch, jobs=2)
    for key, res in a["results"].items():
        np.testing.assert_array_equal(res.regret, b["results"][key].regret)


def test_hu2022_claims_logic():
    from dpolearn.experiments import hu2022
    from dpolearn.simulate import Result

    def fake(final, spread):
        reg = np.array([[final - spread], [final + spread]], dtype=float)  # mean final, se spread
        return Result(reg, np.array([10]), np.zeros((2, 2)), "x", 10, 2, 0)

    finals = {"DP-TS": 10.0, "Lazy-DP-TS": 20.0, "Anytime-Lazy-UCB": 100.0, "DP-SE": 21.0,
              "DP-SE (sum)": 5.0}
    data = {"epsilons": (500.0, 1.0), "results": {}}
    for e in data["epsilons"]:
        for name, f in finals.items():
            data["results"][(name, e)] = fake(
                f if e > 1 else f * (50 if name == "DP-TS" else 1), 1.0
            )
    out = hu2022.claims(data)
    big, small = out
    assert big["(i) DP-TS < Lazy-DP-TS"] is True
    assert big["Lazy-DP-TS < Anytime-Lazy-UCB"] is True
    assert big["Lazy-DP-TS < DP-SE"] is None                 # 20 vs 21, se = 1 each: unresolved
    assert big["Lazy-DP-TS < DP-SE (sum)"] is False          # reversed
    assert "(iii) DP-SE < DP-TS" not in big and "(i) DP-TS < Lazy-DP-TS" not in small
    assert small["(iii) Lazy-DP-TS < DP-TS"] is True and small["(iii) DP-SE < DP-TS"] is True
