"""DP-UCB-BOUND, DP-UCB, DP-UCB-INT and Private-UCB: index formulas, schedules, noise,
privacy accounting, batching."""
import math

import numpy as np
import pytest

import dpolearn as dpl
from dpolearn.accounting import ApproxDP, PureDP
from dpolearn.bandits.dp_ucb import DPUCB, DPUCBBound, DPUCBInt, PrivateUCB
from dpolearn.mechanisms.counters import HybridCounter
from dpolearn.mechanisms.interval_mean import calibrate_epsilon

DELTA = math.exp(-10)


def _drive(policy, counts, rng=0, reward=1.0):
    """reset a 1-run policy and feed it pulls so that arm a has counts[a] pulls."""
    policy.reset(1, len(counts), np.random.default_rng(rng))
    t = 0
    for a, c in enumerate(counts):
        for _ in range(c):
            t += 1
            policy.update(t, np.array([a]), np.array([reward]))
    return t


@pytest.mark.parametrize("eps", [1.0, 0.1])
def test_dp_ucb_bound_bonus_matches_paper_formula(eps):
    """nu_a = sqrt(8) ln(4 t^4)/eps * (1 + log2 n) off powers of two and sqrt(8) ln(4 t^4)/eps
    at powers of two (Algorithm 1, split="paper")."""
    counts = [8, 5, 13, 1, 64, 100]
    p = DPUCBBound(epsilon=eps, split="paper")
    _drive(p, counts)
    for t in (200, 5000, 10 ** 5):
        c = math.sqrt(8) * math.log(4 * t ** 4) / eps
        expected = [(c if (n & (n - 1)) == 0 else c * (1 + math.log2(n))) / n for n in counts]
        np.testing.assert_allclose(p.bonus(t)[0], expected, rtol=1e-12)
    # the index is noisy mean + UCB width + bonus, and select takes its argmax
    t = 300
    index = (p.noisy_sums() / p.counts_ + np.sqrt(2 * math.log(t) / p.counts_) + p.bonus(t))
    assert p.select(t)[0] == int(np.argmax(index[0]))


def test_dp_ucb_bound_chan_split_doubles_bonus():
    counts = [6, 16]
    chan, paper = DPUCBBound(epsilon=0.5), DPUCBBound(epsilon=0.5, split="paper")
    _drive(chan, counts)
    _drive(paper, counts)
    np.testing.assert_allclose(chan.bonus(1000), 2 * paper.bonus(1000))


def test_initial_rounds_pull_each_arm():
    for p in (DPUCBBound(epsilon=1.0), DPUCB(epsilon=1.0),
              PrivateUCB(epsilon=1.0, horizon=100)):
        p.reset(3, 4, np.random.default_rng(0))
        for t in range(1, 5):
            assert p.select(t).tolist() == [t - 1] * 3
            p.update(t, p.select(t), np.ones(3))


def test_dp_ucb_feeds_every_counter_every_round():
    p = DPUCB(epsilon=1.0, split="paper")
    res_counts = []
    p.reset(2, 3, np.random.default_rng(0))
    for t in range(1, 41):
        arms = p.select(t)
        p.update(t, arms, np.ones(2))
        res_counts.append(p.noise_.count.copy())
    assert np.all(res_counts[-1] == 40)                    # every H_b has stream length t
    assert p.counts_.sum() == 80                           # n_a counts real pulls only
    t = 41
    index = p.noisy_sums() / p.counts_ + np.sqrt(2 * math.log(t) / p.counts_)
    np.testing.assert_array_equal(p.select(t), np.argmax(index, axis=1))


def _release_error_z(noise, counts, var_fn):
    var = np.array([var_fn(int(n)) for n in counts.ravel()]).reshape(counts.shape)
    return noise / np.sqrt(var)


@pytest.mark.parametrize("cls", [DPUCBBound, DPUCB])
def test_policy_counter_noise_has_analytic_variance_and_half_noise_is_caught(cls):
    """White-box privacy check: rewards reach the index only through the hybrid counters;
    their errors inside the policy have exactly the variance of an eps-per-half counter.
    A variant with half the noise (epsilon doubled inside) is caught by the same check."""
    n_runs, horizon, eps = 3000, 40, 1.0

    def z_var(policy):
        res = dpl.simulate(policy, dpl.BernoulliBandit([0.7, 0.4]), horizon, n_runs, seed=3,
                           progress=False)
        assert res.regret.shape[0] == n_runs
        counter = HybridCounter(1, epsilon=eps, split="paper")
        z = _release_error_z(policy.noise_.noise, policy.noise_.count, counter.variance)
        return z.ravel()

    z = z_var(cls(epsilon=eps, split="paper"))
    # sum of Laplace terms: kurtosis <= 6 (one term), so sd of z^2 <= sqrt(6 + 2)
    tol = 4.5 * math.sqrt(8.0 / z.size)
    assert abs(np.mean(z ** 2) - 1.0) < tol

    class Half(cls):
        def reset(self, n_runs, n_arms, rng):
            eps_saved = self.epsilon
            self.epsilon = 2 * eps_saved
            super().reset(n_runs, n_arms, rng)
            self.epsilon = eps_saved

    z_half = z_var(Half(epsilon=eps, split="paper"))
    assert abs(np.mean(z_half ** 2) - 1.0) > tol


def test_dp_ucb_int_round_robin_and_one_draw_per_release():
    eps = calibrate_epsilon(1.0, DELTA, 1.1)
    for schedule, f0 in (("fixed", 253), ("lemmaB1_y", 46), ("lemmaB1_x", 124)):
        p = DPUCBInt(epsilon=eps, schedule=schedule)
        res_arms = []
        p.reset(2, 3, np.random.default_rng(0))
        assert p.f0_.tolist() == [f0, f0]
        for t in range(1, 3 * f0 + 1):
            arms = p.select(t)
            res_arms.append(arms[0])
            p.update(t, arms, np.full(2, 0.5))
        assert res_arms == [(t - 1) % 3 for t in range(1, 3 * f0 + 1)]
        assert p.mean_.n_draws == 2 * 3                    # one release per arm and run
        assert np.all(p.mean_.n_rel == f0)
        # after the round robin, more rounds: exactly one draw per (arm, release point)
        for t in range(3 * f0 + 1, 3 * f0 + 2000):
            p.update(t, p.select(t), np.full(2, 0.5))
        pts = p.mean_.release_points(int(p.counts_.max()))
        expected = sum(int(np.sum(pts <= c)) for c in p.counts_.ravel())
        assert p.mean_.n_draws == expected


def test_dp_ucb_int_index_modes():
    eps = 0.1
    for mode in ("A", "current_n", "frozen"):
        p = DPUCBInt(epsilon=eps, index_mode=mode)
        p.reset(1, 2, np.random.default_rng(1))
        for t in range(1, 60):
            arms = p.select(t)
            p.update(t, arms, np.array([0.3 + 0.4 * arms[0]]))
        t = 60
        mu, n_rel = p.mean_.mu_tilde, p.mean_.n_rel
        if mode == "A":
            index = mu + np.sqrt(2 * math.log(t) / n_rel)
        elif mode == "current_n":
            index = mu + np.sqrt(2 * math.log(t) / p.counts_)
        else:
            index = mu + np.sqrt(2 * np.log(p._t_rel) / n_rel)
            assert np.all(p._t_rel > 1)
        assert p.select(t)[0] == int(np.argmax(index[0]))


def test_dp_ucb_int_release_noise_scale_and_half_noise_caught():
    """At the end of the round robin every arm has just released s/f0 + Lap(f0^(v/2-1))."""
    eps, v, n_runs = 0.05, 1.1, 20_000                      # f0 = 20
    f0 = 20

    def mean_abs_ratio(policy):
        policy.reset(n_runs, 2, np.random.default_rng(4))
        rng = np.random.default_rng(5)
        for t in range(1, 2 * f0 + 1):
            arms = policy.select(t)
            policy.update(t, arms, (rng.random(n_runs) < 0.5).astype(float))
        err = policy.mean_.mu_tilde - policy.sums_ / policy.counts_
        return np.abs(err).mean() / f0 ** (v / 2 - 1)     # E|Lap(b)| / b = 1

    tol = 4.5 / math.sqrt(2 * n_runs)
    assert abs(mean_abs_ratio(DPUCBInt(epsilon=eps, v=v)) - 1) < tol

    half = DPUCBInt(epsilon=eps, v=v, noise_multiplier=0.5)
    assert abs(mean_abs_ratio(half) - 1) > tol
    assert half.guarantee.epsilon > DPUCBInt(epsilon=eps, v=v).guarantee.epsilon


def test_dp_ucb_int_from_target_and_guarantee():
    p = DPUCBInt.from_target(np.array([1.0, 0.1]))
    np.testing.assert_allclose(p.epsilon, [3.964317e-3, 4.631731e-5], rtol=1e-6)
    g = p.guarantee
    assert isinstance(g, ApproxDP)
    np.testing.assert_allclose(g.epsilon, [1.0, 0.1], rtol=1e-9)
    assert g.delta == pytest.approx(DELTA)


def test_private_ucb_bonus_and_guarantee():
    T, K, eps = 10 ** 5, 2, 1.0
    p = PrivateUCB(epsilon=eps, horizon=T)
    assert p.levels == 17
    _drive(p, [5, 9])
    t = 1000
    expected = math.log(T) ** 2 * math.log(K * T * math.log(T) * t ** 4) / (eps / K)
    assert p.bonus(t)[0, 0] == pytest.approx(expected)
    assert p.guarantee == PureDP(eps / K) and p.paper_claim == PureDP(eps)
    assert PrivateUCB(epsilon=eps, horizon=T, variant="MT_noK").guarantee == PureDP(eps)
    chan = PrivateUCB(epsilon=eps, horizon=T, variant="chan_bound")
    _drive(chan, [3, 3])
    assert chan.bonus(t)[0, 0] == pytest.approx(4 * math.log(t) * 17 ** 1.5 / eps)
    with pytest.raises(ValueError, match="horizon"):
        p.update(T + 1, np.array([0]), np.array([1.0]))


def test_guarantees_and_claims():
    assert DPUCBBound(epsilon=1.0).guarantee == PureDP(1.0)
    assert DPUCBBound(epsilon=1.0, split="paper").guarantee == PureDP(2.0)
    assert DPUCBBound(epsilon=1.0, split="paper").paper_claim == PureDP(1.0)
    assert DPUCB(epsilon=0.1, split="paper").guarantee == PureDP(0.2)
    g = DPUCBBound(epsilon=np.array([1.0, 0.1])).guarantee
    np.testing.assert_allclose(g.epsilon, [1.0, 0.1])


ALL = [
    lambda e: DPUCBBound(epsilon=e, split="paper"),
    lambda e: DPUCB(epsilon=e),
    lambda e: DPUCBInt(epsilon=np.minimum(e, 1.0) / 10),
    lambda e: PrivateUCB(epsilon=e, horizon=500),
]


@pytest.mark.parametrize("make", ALL)
def test_same_seed_same_result_and_sweep_split(make):
    env = dpl.BernoulliBandit([0.8, 0.5, 0.3])
    a = dpl.simulate(make(1.0), env, 300, 6, seed=11, progress=False)
    b = dpl.simulate(make(1.0), env, 300, 6, seed=11, progress=False)
    np.testing.assert_array_equal(a.regret, b.regret)
    sweep = dpl.simulate(make(np.repeat([1.0, 0.5], 3)), env, 300, 6, seed=2, progress=False)
    assert [r.n_runs for r in sweep.split(2)] == [3, 3]


@pytest.mark.parametrize("make", ALL)
def test_single_runs_behave_like_the_batch(make):
    """n_runs=1 simulations (many seeds) and one batch give the same distribution of the
    final regret and of the pulls (tolerance from the sample size)."""
    env = dpl.BernoulliBandit([0.7, 0.4])
    n, horizon = 100, 120
    batch = dpl.simulate(make(1.0), env, horizon, n, seed=0, progress=False)
    singles = [dpl.simulate(make(1.0), env, horizon, 1, seed=1000 + s, progress=False)
               for s in range(n)]
    final_single = np.array([r.regret[0, -1] for r in singles])
    final_batch = batch.regret[:, -1]
    sd = math.sqrt((final_single.var(ddof=1) + final_batch.var(ddof=1)) / n) + 1e-9
    assert abs(final_single.mean() - final_batch.mean()) < 4.5 * sd + 0.3  # + one gap (ties)


def test_eps_array_batch_matches_scalar_batches():
    """A sweep over epsilon in one batch agrees in distribution with separate runs."""
    env = dpl.BernoulliBandit([0.9, 0.6])
    n, horizon = 150, 400
    sweep = dpl.simulate(DPUCBBound(epsilon=np.repeat([1.0, 0.1], n), split="paper"), env,
                         horizon, 2 * n, seed=5, progress=False).split(2)
    for eps, part in zip((1.0, 0.1), sweep):
        alone = dpl.simulate(DPUCBBound(epsilon=eps, split="paper"), env, horizon, n, seed=6,
                             progress=False)
        sd = math.sqrt((alone.regret[:, -1].var(ddof=1) + part.regret[:, -1].var(ddof=1)) / n)
        assert abs(alone.final_mean - part.final_mean) < 4.5 * sd + 1e-9


@pytest.mark.parametrize("call,exc", [
    (lambda: DPUCBBound(epsilon=0), ValueError),
    (lambda: DPUCBBound(epsilon="1"), TypeError),
    (lambda: DPUCBBound(epsilon=1.0, split="half"), ValueError),
    (lambda: DPUCB(epsilon=-1), ValueError),
    (lambda: DPUCBInt(epsilon=2.0), ValueError),
    (lambda: DPUCBInt(epsilon=0.1, v=2.0), ValueError),
    (lambda: DPUCBInt(epsilon=0.1, schedule="lemma"), ValueError),
    (lambda: DPUCBInt(epsilon=0.1, index_mode="B"), ValueError),
    (lambda: PrivateUCB(epsilon=1.0, horizon=1.5), TypeError),
    (lambda: PrivateUCB(epsilon=1.0, horizon=100, variant="x"), ValueError),
])
def test_invalid(call, exc):
    with pytest.raises(exc):
        call()


def _reference(cls):
    """The same policy reading its sums from the incremental HybridCounter (Chan's box)
    instead of the closed form 'exact sum + CounterNoise'."""
    class Reference(cls):
        def reset(self, n_runs, n_arms, rng):
            super().reset(n_runs, n_arms, rng)
            eps = np.broadcast_to(np.asarray(self.epsilon, dtype=float), (n_runs,))[:, None]
            self.ref_ = HybridCounter((n_runs, n_arms), epsilon=eps, split=self.split, rng=rng)

        def noisy_sums(self):
            return self.ref_.output()

        def update(self, t, arms, rewards):
            super().update(t, arms, rewards)
            x = np.zeros((self.n_runs, self.n_arms))
            x[self._rows, arms] = rewards
            mask = np.ones_like(x, dtype=bool)          # DP-UCB: every counter gets an item
            if cls is not DPUCB:                          # DP-UCB-BOUND: the pulled arm's only
                mask = np.zeros_like(x, dtype=bool)
                mask[self._rows, arms] = True
            self.ref_.step(x, where=mask)
    return Reference


@pytest.mark.parametrize("cls", [DPUCBBound, DPUCB])
def test_fast_counter_path_agrees_with_incremental_counters(cls):
    """The policies' closed-form counters give the same regret distribution as the same
    policies driven by the incremental HybridCounter (tolerance from the sample size)."""
    env = dpl.BernoulliBandit([0.7, 0.5, 0.4])
    n, horizon = 400, 200
    fast = dpl.simulate(cls(epsilon=1.0, split="paper"), env, horizon, n, seed=1, progress=False)
    ref = dpl.simulate(_reference(cls)(epsilon=1.0, split="paper"), env, horizon, n, seed=2,
                       progress=False)
    a, b = fast.regret[:, -1], ref.regret[:, -1]
    sd = math.sqrt((a.var(ddof=1) + b.var(ddof=1)) / n)
    assert abs(a.mean() - b.mean()) < 4.5 * sd
    pa, pb = fast.pulls.mean(0), ref.pulls.mean(0)
    sdp = np.sqrt((fast.pulls.var(0, ddof=1) + ref.pulls.var(0, ddof=1)) / n)
    assert np.all(np.abs(pa - pb) < 4.5 * sdp + 1e-9)


# ------------------------------------------------------------------ guarantees from the draws
@pytest.mark.parametrize("cls", [DPUCB, DPUCBBound])
@pytest.mark.parametrize("base", [2, "e"])
def test_guarantee_is_the_loss_of_the_counter_noise_drawn(cls, base):
    """White-box: the worst item (first of an epoch k) costs 1/b_L + k/b_B(k) with the scales
    the policy's counters draw with; the guarantee must equal it, with and without a noise
    multiplier (a dropped 1/ln 2 for the natural-log tree would show here)."""
    for multiplier in (1.0, 0.25):
        p = cls(epsilon=0.6, tree_log_base=base, noise_multiplier=multiplier)
        p.reset(2, 3, np.random.default_rng(0))
        k = 7
        loss = 1.0 / p.noise_.b_log + k / p.noise_.tree_noise_scale(k)
        np.testing.assert_allclose(p.guarantee.epsilon, loss, rtol=1e-12)


def test_private_ucb_guarantee_is_the_tree_loss_drawn():
    p = PrivateUCB(epsilon=0.6, horizon=100, noise_multiplier=0.5)
    p.reset(1, 3, np.random.default_rng(0))
    loss = p.levels / p.noise_.tree_noise_scale(0)[0]        # one item in every level
    assert float(p.guarantee.epsilon) == pytest.approx(loss, rel=1e-12)
    assert float(p.guarantee.epsilon) == pytest.approx(2 * 0.6 / 3)


def test_dp_ucb_int_index_names_and_round_trip():
    p = DPUCBInt(epsilon=0.01, index="frozen", delta_prime=1e-6, noise_multiplier=0.5)
    again = eval(repr(p), {"DPUCBInt": DPUCBInt})
    assert again.params() == p.params() and again.guarantee == p.guarantee
    assert DPUCBInt(epsilon=0.01, index_mode="A").index == "alg3"     # the older spelling
    with pytest.raises(ValueError, match="index"):
        DPUCBInt(epsilon=0.01, index="A")


@pytest.mark.parametrize("make", [
    lambda: DPUCB(epsilon=0.5, split="paper", tree_log_base="e", noise_multiplier=0.5),
    lambda: DPUCBBound(epsilon=np.array([0.5, 1.0])),
    lambda: PrivateUCB(epsilon=1.0, horizon=64, variant="MT_noK"),
])
def test_repr_round_trips(make):
    p = make()
    again = eval(repr(p), {"DPUCB": DPUCB, "DPUCBBound": DPUCBBound, "PrivateUCB": PrivateUCB,
                           "array": np.array})
    assert repr(again) == repr(p) and again.guarantee == p.guarantee
