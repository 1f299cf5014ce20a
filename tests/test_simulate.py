"""The simulator's bookkeeping, reproducibility and checkpoints."""
import numpy as np
import pytest

import dpolearn as dpl
from dpolearn.policy import Policy
from dpolearn.simulate import play_blocks


class Scripted(Policy):
    """Plays a fixed arm sequence (the same in every run)."""

    label = "Scripted"

    def __init__(self, arms):
        self.arms = np.asarray(arms)

    def reset(self, n_runs, n_arms, rng):
        self.n_runs = n_runs
        self.seen = []

    def select(self, t):
        return np.full(self.n_runs, self.arms[(t - 1) % len(self.arms)])

    def update(self, t, arms, rewards):
        self.seen.append(rewards.copy())


def test_pseudo_regret_is_sum_of_gaps_of_pulled_arms():
    means = [0.2, 0.9, 0.5]
    script = [0, 1, 2, 2, 0, 1, 1]
    res = dpl.simulate(Scripted(script), dpl.BernoulliBandit(means), horizon=7, n_runs=3, seed=0,
                       checkpoints=range(1, 8))
    gaps = 0.9 - np.array(means)
    expected = np.cumsum(gaps[script])
    assert np.allclose(res.regret, expected[None, :])
    assert res.pulls.tolist() == [[2, 3, 2]] * 3
    assert res.checkpoints.tolist() == list(range(1, 8))


def test_per_run_instances_have_their_own_gaps():
    means = np.array([[0.1, 0.5], [0.9, 0.2]])
    res = dpl.simulate(Scripted([0]), dpl.BernoulliBandit(means), horizon=10, n_runs=2, seed=0)
    assert res.regret[:, -1].tolist() == pytest.approx([4.0, 0.0])


def test_rewards_have_the_arm_means():
    pol = Scripted([0, 1])
    dpl.simulate(pol, dpl.BernoulliBandit([0.3, 0.8]), horizon=4000, n_runs=50, seed=3)
    rewards = np.array(pol.seen)              # (T, n_runs)
    n = rewards[0::2].size
    for arm, mu in [(0, 0.3), (1, 0.8)]:
        mean = rewards[arm::2].mean()
        assert abs(mean - mu) < 4 * np.sqrt(mu * (1 - mu) / n)


def test_same_seed_same_bits_different_seed_differs():
    env = dpl.BernoulliBandit([0.7, 0.5, 0.4])
    a = dpl.simulate(dpl.BetaTS(), env, 500, 8, seed=11)
    b = dpl.simulate(dpl.BetaTS(), env, 500, 8, seed=11)
    c = dpl.simulate(dpl.BetaTS(), env, 500, 8, seed=12)
    assert np.array_equal(a.regret, b.regret) and np.array_equal(a.pulls, b.pulls)
    assert not np.array_equal(a.regret, c.regret)


def test_runs_are_not_copies_of_each_other():
    res = dpl.simulate(dpl.BetaTS(), dpl.BernoulliBandit([0.5, 0.45]), 300, 20, seed=0)
    assert len({tuple(row) for row in res.pulls}) > 1


def test_checkpoints_log_and_linear_end_at_horizon():
    for points in ("log", "linear", 7, [3, 5]):
        ck = dpl.make_checkpoints(1000, points)
        assert ck[-1] == 1000 and np.all(np.diff(ck) > 0) and ck[0] >= 1


def test_result_summaries():
    res = dpl.simulate(dpl.UCB1(), dpl.BernoulliBandit([0.9, 0.6]), 200, 10, seed=0)
    assert res.mean().shape == res.se().shape == (len(res.checkpoints),)
    assert res.final_se == pytest.approx(res.regret[:, -1].std(ddof=1) / np.sqrt(10))
    lo, hi = res.quantile([0.1, 0.9])
    assert np.all(lo <= hi)
    parts = res.split(2)
    assert [p.n_runs for p in parts] == [5, 5]
    assert np.array_equal(np.vstack([p.regret for p in parts]), res.regret)
    assert res.summary()["algorithm"] == "UCB1"


def test_fixed_sequence_regret_is_against_best_action_in_hindsight():
    losses = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [0, 1]], dtype=float)
    policy = Scripted([0])
    policy.feedback = "full"
    res = dpl.simulate(policy, dpl.FixedSequence(losses), 5, 2, seed=0,
                       checkpoints=[1, 2, 3, 4, 5])
    # learner's loss: 1,2,2,2,2 ; best fixed: min(L0, L1) = 0,0,1,2,2
    assert res.regret[0].tolist() == [1, 2, 1, 0, 0]


def test_full_information_reward_env_converted_to_losses():
    env = dpl.BernoulliExperts([0.9, 0.2], kind="reward")
    res = dpl.simulate(dpl.FTL(), env, 2000, 10, seed=0)
    assert res.pulls[:, 0].mean() > 1900
    assert env.gaps_for(1).tolist() == [[0.0, pytest.approx(0.7)]]


def test_feedback_mismatch_is_refused():
    with pytest.raises(ValueError, match="feedback"):
        dpl.simulate(dpl.FTL(), dpl.BernoulliBandit([0.5, 0.4]), 10, 1)


def test_progress_bar_can_be_switched_on_and_off(capsys):
    dpl.simulate(dpl.UCB1(), dpl.BernoulliBandit([0.5, 0.4]), 10_000, 2, progress=True)
    assert "UCB1" in capsys.readouterr().err
    dpl.simulate(dpl.UCB1(), dpl.BernoulliBandit([0.5, 0.4]), 10_000, 2, progress=False)
    assert capsys.readouterr().err == ""


def test_split_slices_per_run_parameters_and_guarantees():
    from dpolearn.bandits import LazyDPTS

    eps = np.repeat([0.5, 1.0], 3)
    res = dpl.simulate(LazyDPTS(epsilon=eps), dpl.BernoulliBandit([0.6, 0.4]), 50, 6, seed=0)
    low, high = res.split(2)
    assert low.params["epsilon"] == 0.5 and high.params["epsilon"] == 1.0
    assert low.guarantee == dpl.PureDP(0.5) and high.guarantee == dpl.PureDP(1.0)
    rows = dpl.experiments.regret_rows("x", "p", [low, high])
    assert [r["epsilon"] for r in rows] == [0.5, 1.0]


def test_a_seed_sequence_object_can_be_reused():
    seed = np.random.SeedSequence(42)
    env = dpl.BernoulliBandit([0.6, 0.5])
    a = dpl.simulate(dpl.BetaTS(), env, 300, 4, seed=seed)
    b = dpl.simulate(dpl.BetaTS(), env, 300, 4, seed=seed)
    assert np.array_equal(a.regret, b.regret)


# ---- the configured horizon -------------------------------------------------------------------

def _horizon_policies():
    from dpolearn.bandits import DPSE, DPTSUCB, MTSGaussian, PrivateUCB

    return {"MTSGaussian": lambda: MTSGaussian(b=1, c=1, horizon=100, track_privacy=True),
            "DPTSUCB": lambda: DPTSUCB(alpha=1.0, horizon=100),
            "DPSE": lambda: DPSE(epsilon=1.0, horizon=100),
            "PrivateUCB": lambda: PrivateUCB(epsilon=1.0, horizon=100),
            "Hedge": lambda: dpl.Hedge(horizon=100)}


@pytest.mark.parametrize("name", ["MTSGaussian", "DPTSUCB", "DPSE", "PrivateUCB", "Hedge"])
def test_a_run_longer_than_the_configured_horizon_is_refused(name):
    policy = _horizon_policies()[name]()
    env = (dpl.BernoulliExperts([0.2, 0.5]) if policy.feedback == "full"
           else dpl.BernoulliBandit([0.6, 0.5]))
    with pytest.raises(ValueError, match=r"horizon=100\).*horizon=101"):
        dpl.simulate(policy, env, 101, 2, seed=0)
    res = dpl.simulate(policy, env, 100, 2, seed=0)          # exactly the horizon is fine
    assert res.pulls.sum() == 200


def test_per_run_configured_horizons_use_the_smallest():
    from dpolearn.bandits import DPTSUCB

    policy = DPTSUCB(alpha=1.0, horizon=np.array([50, 80]))
    with pytest.raises(ValueError, match="horizon=50"):
        dpl.simulate(policy, dpl.BernoulliBandit([0.6, 0.5]), 51, 2)
    assert policy.check_horizon(50) == 50


def test_anytime_policies_declare_no_horizon():
    assert dpl.UCB1().horizon is None and dpl.Hedge().horizon is None
    assert dpl.UCB1().check_horizon(10 ** 9) == 10 ** 9


def test_block_paths_check_the_horizon_themselves():
    from dpolearn.bandits import DPSE

    p = DPSE(epsilon=1.0, horizon=50)
    env = dpl.BernoulliBandit([0.6, 0.5])
    env.reset(1, np.random.default_rng(0))
    p.reset(1, 2, np.random.default_rng(1))
    with pytest.raises(ValueError, match="horizon"):
        play_blocks(p, env, 51, np.array([51]), 1)


# ---- rewards outside [0, 1] void a privacy guarantee -----------------------------------------

def test_private_policy_on_unbounded_rewards_warns_and_records_no_guarantee():
    from dpolearn.bandits import DPSE

    env = dpl.GaussianBandit([0.5, 0.0])
    with pytest.warns(dpl.PrivacyAssumptionWarning, match=r"\[0, 1\]"):
        res = dpl.simulate(DPSE(epsilon=1.0, horizon=200), env, 200, 2, seed=0)
    assert isinstance(res.guarantee, dpl.NotPrivate)
    assert "GaussianBandit" in res.guarantee.reason and "[0, 1]" in res.guarantee.reason
    # the record and its reason survive slicing a batch
    assert res.select_runs([0]).guarantee == res.guarantee


def test_private_policy_on_bounded_rewards_keeps_its_guarantee(recwarn):
    from dpolearn.bandits import DPSE

    res = dpl.simulate(DPSE(epsilon=1.0, horizon=200), dpl.BernoulliBandit([0.5, 0.1]), 200, 2)
    assert res.guarantee == dpl.PureDP(1.0)
    assert not [w for w in recwarn if issubclass(w.category, dpl.PrivacyAssumptionWarning)]


def test_non_private_policy_on_unbounded_rewards_does_not_warn(recwarn):
    res = dpl.simulate(dpl.UCB1(), dpl.GaussianBandit([0.5, 0.0]), 100, 2)
    assert res.guarantee == dpl.NotPrivate() and res.guarantee.reason is None
    assert not [w for w in recwarn if issubclass(w.category, dpl.PrivacyAssumptionWarning)]


# ---- what environments declare ----------------------------------------------------------------

def test_environments_declare_range_length_regret_and_block_draws():
    from dpolearn.envs import ReplayBandit, TwoPointExperts

    table = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    cases = [(dpl.BernoulliBandit([0.5, 0.4]), (0.0, 1.0), None, "pseudo", True),
             (dpl.GaussianBandit([0.5, 0.4]), (-np.inf, np.inf), None, "pseudo", False),
             (dpl.BernoulliExperts([0.5, 0.4]), (0.0, 1.0), None, "pseudo", True),
             (TwoPointExperts.bernoulli([0.5, 0.4]), (0.0, 1.0), None, "pseudo", True),
             (dpl.FixedSequence(table), (0.0, 1.0), 3, "hindsight", False),
             (ReplayBandit(table), (0.0, 1.0), 3, "pseudo", False)]
    for env, rng, length, regret, blocks in cases:
        assert (tuple(env.reward_range), env.max_horizon, env.regret_kind, env.has_block_sums) \
            == (rng, length, regret, blocks), env


@pytest.mark.parametrize("make", [lambda t: dpl.FixedSequence(t),
                                  lambda t: __import__("dpolearn.envs").envs.ReplayBandit(t)])
def test_finite_tables_refuse_longer_runs(make):
    env = make(np.zeros((5, 2)))
    policy = dpl.FTL() if env.feedback == "full" else dpl.UCB1()
    with pytest.raises(ValueError, match=r"max_horizon=5.*horizon=6"):
        dpl.simulate(policy, env, 6, 1)


def test_bernoulli_block_sums_have_the_binomial_law():
    env = dpl.BernoulliBandit([[0.25, 0.75], [0.5, 0.1]])
    env.reset(2, np.random.default_rng(0))
    n, reps = 40, 20_000
    rows = np.repeat([0, 1], reps)
    arms = np.tile([1, 0], reps)
    sums = env.block_sums(rows, arms, n)
    for r, a, p in [(0, 1, 0.75), (1, 0, 0.5)]:
        x = sums[(rows == r) & (arms == a)]
        assert abs(x.mean() - n * p) < 5 * np.sqrt(n * p * (1 - p) / reps)
        assert abs(x.var() - n * p * (1 - p)) < 5 * n * p * (1 - p) * np.sqrt(2 / reps)
    single = env.block_sums(np.zeros(reps, int), np.zeros(reps, int), 1)
    assert set(np.unique(single)) <= {0.0, 1.0}
    assert abs(single.mean() - 0.25) < 5 * np.sqrt(0.25 * 0.75 / reps)


def test_two_point_experts_round_by_round_and_block_sums_agree_in_law():
    from dpolearn.envs import TwoPointExperts

    env = TwoPointExperts([0.3, 0.2], [0.3, 0.9], [0.0, 0.25])
    env.reset(4000, np.random.default_rng(1))
    per_round = sum(env.losses(t) for t in range(1, 9))          # 8 rounds by hand
    block = env.loss_block_sums(8)
    resampled = env.loss_block_sums(8, resampled=True)
    mean = 8 * env.means
    for x in (per_round, block, resampled):
        assert np.all(np.abs(x.mean(axis=0) - mean) < 5 * x.std(axis=0) / np.sqrt(4000) + 1e-12)
    # without resampling the sums take the two-point values only
    assert set(np.unique(block[:, 0])) == {0.3 * 8}
    assert set(np.unique(resampled[:, 0])) > {0.0}


def test_policies_on_two_point_experts_without_a_block_path_run_round_by_round():
    from dpolearn.envs import TwoPointExperts

    res = dpl.simulate(dpl.Hedge(), TwoPointExperts.deterministic([0.25, 0.5]), 200, 3, seed=0)
    assert res.pulls.sum() == 600 and res.regret[:, -1].min() >= 0
