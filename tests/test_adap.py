"""Tests of AdaP-UCB and AdaP-KLUCB (Azize and Basu 2022, Algorithm 1)."""
import numpy as np
import pytest
from helpers import drive
from scipy.optimize import brentq

from dpolearn import BernoulliBandit, GaussianBandit, PrivacyAssumptionWarning, simulate
from dpolearn.accounting import PureDP
from dpolearn.bandits import AdaPKLUCB, AdaPUCB

POLICIES = [AdaPUCB, AdaPKLUCB]


def kl(p, q):
    out = 0.0
    if p > 0:
        out += p * np.log(p / q)
    if p < 1:
        out += (1 - p) * np.log((1 - p) / (1 - q))
    return out


def klucb_by_bisection(p, d):
    if p >= 1:
        return 1.0
    def f(q):
        return kl(p, q) - d
    return 1.0 if f(1 - 1e-15) <= 0 else brentq(f, p, 1 - 1e-15, xtol=1e-14)



# ---- construction -------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", POLICIES)
@pytest.mark.parametrize("kwargs, exc, name", [({"epsilon": 0}, ValueError, "epsilon"),
                                               ({"epsilon": "x"}, TypeError, "epsilon"),
                                               ({"epsilon": 1, "alpha": 3.0}, ValueError, "alpha"),
                                               ({"epsilon": 1, "alpha": -1}, ValueError, "alpha")])
def test_invalid_parameters(cls, kwargs, exc, name):
    with pytest.raises(exc, match=name):
        cls(**kwargs)


@pytest.mark.parametrize("cls", POLICIES)
def test_defaults_label_guarantee(cls):
    p = cls(epsilon=0.5)
    assert p.alpha == 3.1 and p.guarantee == PureDP(0.5)
    assert p.label == {"AdaPUCB": "AdaP-UCB", "AdaPKLUCB": "AdaP-KLUCB"}[cls.__name__]


# ---- indices ------------------------------------------------------------------------------------

def test_adap_ucb_index_formula():
    p = AdaPUCB(epsilon=np.array([0.5, 2.0]), alpha=3.5)
    drive(p, (0.7, 0.5, 0.2), 400, 2)
    mu, n = p.mu_tilde_, p.n_last_
    eps = np.array([[0.5], [2.0]])
    t_l = 401
    expected = mu + np.sqrt(3.5 * np.log(2 * t_l) / (2 * n)) + 3.5 * np.log(t_l) / (eps * n)
    np.testing.assert_allclose(p.index(t_l), expected, rtol=1e-12)


def test_adap_klucb_index_formula():
    p = AdaPKLUCB(epsilon=np.array([0.3, 5.0]))
    drive(p, (0.7, 0.5, 0.2), 600, 2)
    mu, n = p.mu_tilde_, p.n_last_
    eps = np.array([[0.3], [5.0]])
    t_l = 601
    level = 3.1 * np.log(t_l)
    breve = np.clip(mu + level / (eps * n), 0, 1)
    got = p.index(t_l)
    for i in range(2):
        for a in range(3):
            assert got[i, a] == pytest.approx(klucb_by_bisection(breve[i, a], level / n[i, a]),
                                              abs=1e-9)
            assert got[i, a] >= breve[i, a]


def test_adap_klucb_clip_at_both_ends():
    p = AdaPKLUCB(epsilon=1.0)
    drive(p, (0.5, 0.5), 2, 1)
    p.mu_tilde_[:] = [[-1e6, 1e6]]
    got = p.index(3)
    assert got[0, 1] == 1.0                               # clipped to 1: index 1
    assert got[0, 0] == pytest.approx(klucb_by_bisection(0.0, 3.1 * np.log(3)), abs=1e-9)


# ---- episodes -----------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", POLICIES)
def test_commits_until_the_count_doubles(cls):
    """After init, each episode repeats one arm exactly N_A(t_l - 1) times."""
    T, K = 3000, 3
    chosen = drive(cls(epsilon=1.0), (0.6, 0.5, 0.4), T, 1)[:, 0]
    np.testing.assert_array_equal(chosen[:K], np.arange(K))
    counts = np.ones(K, dtype=int)
    t = K
    while t < T:
        arm = chosen[t]
        length = counts[arm]
        seg = chosen[t: t + length]
        assert np.all(seg == arm)                        # committed for the whole episode
        counts[arm] += len(seg)
        t += length
    # batch sizes of each arm: 1 (init), 1, 2, 4, ...: every count is a power of two or truncated
    assert counts.sum() == T


@pytest.mark.parametrize("cls", POLICIES)
def test_private_mean_uses_the_last_episode_only(cls):
    """White-box: with noise removed the private mean equals the last episode's mean."""
    p = cls(epsilon=1e12)
    T = 500
    p.reset(1, 2, np.random.default_rng(0))
    rr = np.random.default_rng(3)
    hist = {0: [], 1: []}
    for t in range(1, T + 1):
        arm = p.select(t)
        x = float(rr.random() < (0.7 if arm[0] == 0 else 0.4))
        hist[arm[0]].append(x)
        p.update(t, arm, np.array([x]))
    for a in (0, 1):
        n = int(p.n_last_[0, a])
        open_pulls = p._len[0] - p._left[0] if (p.arm_[0] == a and p._left[0] > 0) else 0
        done = len(hist[a]) - open_pulls              # samples of closed episodes
        assert p.mu_tilde_[0, a] == pytest.approx(np.mean(hist[a][done - n: done]), abs=1e-9)


# ---- block simulation ---------------------------------------------------------------------------

def _loop(policy, env, T, n, seed, ck):
    return simulate(policy, env, T, n, seed=seed, checkpoints=ck, progress=False,
                    block_updates=False)


@pytest.mark.parametrize("cls", POLICIES)
def test_block_simulation_agrees_in_distribution(cls):
    T, ck = 6000, [3, 10, 500, 2000, 6000]
    env = BernoulliBandit((0.7, 0.55, 0.5))
    fast = simulate(cls(epsilon=0.5), env, T, 2000, seed=1, checkpoints=ck, progress=False)
    slow = _loop(cls(epsilon=0.5), env, T, 300, 2, ck)
    for j in range(len(ck)):
        se = np.hypot(fast.se()[j], slow.se()[j])
        assert abs(fast.mean()[j] - slow.mean()[j]) < 4 * se + 1e-9, (j, fast.mean(), slow.mean())
    sp = np.hypot(fast.pulls.std(0) / np.sqrt(2000), slow.pulls.std(0) / np.sqrt(300))
    assert np.all(np.abs(fast.pulls.mean(0) - slow.pulls.mean(0)) < 4 * sp + 1e-9)
    np.testing.assert_array_equal(fast.pulls.sum(1), T)


def _episode_log(cls):
    """A subclass of ``cls`` that records the start round of every episode and the index
    I_a(t_l) it chose by (one run)."""
    class Logged(cls):
        def _initialise(self, n_runs, n_arms, rng):
            super()._initialise(n_runs, n_arms, rng)
            self.log = []

        def _start_episodes(self, rows, t_l):
            t_col = np.broadcast_to(np.asarray(t_l, dtype=float), rows.shape)[:, None]
            idx = self._index(self.mu_tilde_[rows], self.n_last_[rows], self._eps[rows], t_col)
            self.log.append((int(t_col[0, 0]), idx[0].copy()))
            super()._start_episodes(rows, t_l)

    return Logged


@pytest.mark.parametrize("cls", POLICIES)
@pytest.mark.parametrize("seed", range(4))
def test_block_path_starts_each_episode_at_the_round_by_round_round_and_index(cls, seed):
    """Coupled exactly: one run, rewards fixed by the means (0 or 1), so the only randomness is
    the policy's Laplace draws, one per episode in the same order on both paths. Every episode
    must then start in the same round, with the same index, on the block path as round by
    round: not only the same pulls (an index evaluated in the wrong round can leave the pulls
    unchanged)."""
    env, T = BernoulliBandit((1.0, 0.0, 1.0)), 3000
    fast, slow = _episode_log(cls)(epsilon=0.5), _episode_log(cls)(epsilon=0.5)
    simulate(fast, env, T, 1, seed=seed, checkpoints=[T], progress=False)
    _loop(slow, env, T, 1, seed, [T])
    assert len(slow.log) >= 8, "too few episodes to compare"
    assert [t for t, _ in fast.log] == [t for t, _ in slow.log]
    for (t, a), (_, b) in zip(fast.log, slow.log):
        np.testing.assert_allclose(a, b, rtol=1e-13, err_msg=f"index at round {t}")


def test_block_simulation_first_rounds_exact():
    res = simulate(AdaPUCB(epsilon=1.0), BernoulliBandit((0.9, 0.6, 0.2)), 100, 3, seed=0,
                   checkpoints=[1, 2, 3], progress=False)
    np.testing.assert_allclose(res.regret[:, :3], [[0, 0.3, 1.0]] * 3)


def test_env_without_block_draws_runs_round_by_round():
    with pytest.warns(PrivacyAssumptionWarning):          # Gaussian rewards: no guarantee
        res = simulate(AdaPKLUCB(epsilon=1.0), GaussianBandit((0.5, 0.0), 0.1), 300, 2,
                       seed=0, progress=False)
    assert res.pulls.sum() == 600


@pytest.mark.parametrize("cls", POLICIES)
def test_epsilon_sweep_batch_agrees_with_separate_runs(cls):
    eps, n, T = np.array([0.2, 2.0]), 400, 20_000
    env = BernoulliBandit((0.7, 0.5, 0.4))
    parts = simulate(cls(epsilon=np.repeat(eps, n)), env, T, 2 * n, seed=1,
                     progress=False).split(2)
    for e, part in zip(eps, parts):
        single = simulate(cls(epsilon=e), env, T, n, seed=2, progress=False)
        assert abs(part.final_mean - single.final_mean) < 4 * np.hypot(
            part.final_se, single.final_se
        )


# ---- privacy ------------------------------------------------------------------------------------

class HalfNoiseAdaPUCB(AdaPUCB):
    """Deliberately broken: Laplace noise of scale 1/(2 eps) on the episode sums."""

    def _close(self, rows, arms, sums, lengths):
        noise = self._rng.laplace(0.0, 0.5 / self._eps[rows, 0])
        self.mu_tilde_[rows, arms] = (sums + noise) / lengths
        self.n_last_[rows, arms] = lengths


def _p_first_episode_arm0(policy, x0, n=200_000, seed=0):
    """P(A_1 = arm 0) for K = 2 when round 1's reward (arm 0) is x0 and round 2's is 1."""
    policy.reset(n, 2, np.random.default_rng(seed))
    policy.update(1, np.zeros(n, dtype=int), np.full(n, x0))
    policy.update(2, np.ones(n, dtype=int), np.ones(n))
    return np.mean(policy.select(3) == 0)


@pytest.mark.parametrize("cls", POLICIES)
def test_neighbouring_streams_satisfy_dp_inequality(cls):
    eps, n = 1.0, 200_000
    p_hi = _p_first_episode_arm0(cls(epsilon=eps), 1.0, n, 1)
    p_lo = _p_first_episode_arm0(cls(epsilon=eps), 0.0, n, 2)
    for a, b in ((p_hi, p_lo), (1 - p_lo, 1 - p_hi)):
        rel = np.sqrt((1 - a) / (n * a) + (1 - b) / (n * b))
        assert a / b * (1 - 4 * rel) <= np.exp(eps)


def test_half_noise_variant_is_caught():
    """Equal widths at t_l = 3 (n = 1 for both): A_1 = 0 iff Z_0 - Z_1 > 1 - x_0.

    Correct noise: ratio 0.5 / (0.75 e^-1) = 1.81; half noise: 0.5 / e^-2 = 3.69 > e.
    """
    eps, n = 1.0, 200_000
    p_hi = _p_first_episode_arm0(HalfNoiseAdaPUCB(epsilon=eps), 1.0, n, 1)
    p_lo = _p_first_episode_arm0(HalfNoiseAdaPUCB(epsilon=eps), 0.0, n, 2)
    rel = np.sqrt((1 - p_hi) / (n * p_hi) + (1 - p_lo) / (n * p_lo))
    assert p_hi / p_lo * (1 - 4 * rel) > np.exp(eps)
    good = _p_first_episode_arm0(AdaPUCB(epsilon=eps), 1.0, n, 1) / \
        _p_first_episode_arm0(AdaPUCB(epsilon=eps), 0.0, n, 2)
    assert good == pytest.approx(0.5 / (0.75 * np.exp(-1)), rel=0.03)


@pytest.mark.parametrize("cls", POLICIES)
def test_single_run_slices_behave_like_the_batch(cls):
    T, n = 20_000, 150
    env = BernoulliBandit((0.7, 0.5, 0.45))
    batch = simulate(cls(epsilon=1.0), env, T, n, seed=1, progress=False)
    single = np.array([simulate(cls(epsilon=1.0), env, T, 1, seed=100 + i,
                                progress=False).final_mean for i in range(n)])
    se = np.hypot(batch.final_se, single.std(ddof=1) / np.sqrt(n))
    assert abs(batch.final_mean - single.mean()) < 4 * se
