"""The simulator's bookkeeping, reproducibility and checkpoints."""
import numpy as np
import pytest

import dpolearn as dpl
from dpolearn.policy import Policy


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
    for spec in ("log", "linear", 7, [3, 5]):
        ck = dpl.make_checkpoints(1000, spec)
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
