"""Block paths against the round-by-round algorithm, run by run, on the same rewards.

Every block path (DP-SE in both epoch-length forms, AdaP-UCB, AdaP-KLUCB, the RNM-FTNL epoch
path) must play exactly the round-by-round algorithm. Here both paths see the *same* rewards:
the environment holds, for every run and arm, a stack of rewards fixed in advance (the n-th pull
of arm j in run r pays ``stack[r, j, n]``), so a block draw is a deterministic sum of the stack.
Both paths also draw their noise from the same policy stream (same seed; DP-SE and AdaP are run
one run at a time so that the noise draws come in the same order). Then pulls and the regret at
*every* round must be identical: moving an epoch or episode boundary by one round, or cutting
the last block wrongly at the horizon, changes the pulls of some round and fails these tests.

Gaps are multiples of 1/8, so both ways of adding up the regret are exact in floating point.
The in-distribution agreement tests in ``test_dpse.py``, ``test_adap.py`` and
``test_epoch_sim.py`` remain as a second check with the environments' own random draws.
"""
import numpy as np
import pytest

from dpolearn import simulate
from dpolearn.bandits import DPSE, AdaPKLUCB, AdaPUCB
from dpolearn.fullinfo import RNMFTNL
from dpolearn.simulate import UNTIL_HORIZON, Block, BlockPolicy


class StackBandit:
    """Bandit whose n-th pull of arm j in run r pays ``stacks[r, j, n]`` (0-based n)."""

    feedback = "bandit"
    reward_range = (0.0, 1.0)
    max_horizon = None
    regret_kind = "pseudo"
    has_block_sums = True

    def __init__(self, means, stacks):
        self.means = np.asarray(means, dtype=float)
        self.stacks = np.asarray(stacks, dtype=float)             # (n_runs, K, depth)
        self.n_arms = self.means.shape[-1]
        zero = np.zeros(self.stacks.shape[:2] + (1,))
        self._cum = np.concatenate([zero, np.cumsum(self.stacks, axis=2)], axis=2)

    def gaps_for(self, n_runs):
        m = np.broadcast_to(self.means, (n_runs, self.n_arms))
        return m.max(axis=1, keepdims=True) - m

    def reset(self, n_runs, rng):
        assert n_runs == self.stacks.shape[0]
        self._next = np.zeros((n_runs, self.n_arms), dtype=np.int64)   # next unread entry

    def pull_flat(self, flat):
        runs, arms = np.divmod(np.asarray(flat), self.n_arms)
        out = self.stacks[runs, arms, self._next[runs, arms]]
        self._next[runs, arms] += 1
        return out

    def block_sums(self, rows, arms, n):
        rows, arms, n = np.broadcast_arrays(rows, arms, n)
        start = self._next[rows, arms]
        out = self._cum[rows, arms, start + n] - self._cum[rows, arms, start]
        np.add.at(self._next, (rows, arms), n)
        return out


class StackExperts:
    """Full information: run r's loss vector of round t is ``table[r, t - 1]``."""

    feedback = "full"
    reward_range = (0.0, 1.0)
    max_horizon = None
    regret_kind = "pseudo"
    has_block_sums = True

    def __init__(self, means, table):
        self.means = np.asarray(means, dtype=float)
        self.table = np.asarray(table, dtype=float)               # (n_runs, T, K)
        self.n_arms = self.means.shape[-1]
        zero = np.zeros((self.table.shape[0], 1, self.n_arms))
        self._cum = np.concatenate([zero, np.cumsum(self.table, axis=1)], axis=1)

    def gaps_for(self, n_runs):
        m = np.broadcast_to(self.means, (n_runs, self.n_arms))
        return m - m.min(axis=1, keepdims=True)

    def reset(self, n_runs, rng):
        assert n_runs == self.table.shape[0]
        self._t = 0                                               # rounds served so far

    def losses(self, t):
        self._t += 1
        assert t == self._t
        return self.table[:, t - 1]

    def loss_block_sums(self, n, resampled=False):
        assert not resampled, "the coupled tests use RNM-FTNL without resampling"
        out = self._cum[:, self._t + n] - self._cum[:, self._t]
        self._t += n
        return out


MEANS = np.array([0.75, 0.5, 0.625, 0.25])       # gaps multiples of 1/8


def _stacks(n_runs, depth, seed, means=MEANS):
    rng = np.random.default_rng(seed)
    return (rng.random((n_runs, len(means), depth)) < means[None, :, None]).astype(float)


def _both_paths(make_policy, make_env, horizon, seed):
    every_round = np.arange(1, horizon + 1)
    fast = simulate(make_policy(), make_env(), horizon, 1, seed, checkpoints=every_round,
                    progress=False)
    slow = simulate(make_policy(), make_env(), horizon, 1, seed, checkpoints=every_round,
                    progress=False, block_updates=False)
    return fast, slow


def _assert_identical(fast, slow, what):
    np.testing.assert_array_equal(fast.pulls, slow.pulls, err_msg=f"pulls differ: {what}")
    diff = np.flatnonzero(fast.regret[0] != slow.regret[0])
    assert diff.size == 0, (f"{what}: per-round regret first differs in round {diff[0] + 1} "
                            f"(block {fast.regret[0, diff[0]]}, round by round "
                            f"{slow.regret[0, diff[0]]})")


# DP-SE: beta = 0.5 and a large epsilon give short epochs, so several eliminations (and a
# horizon that cuts an epoch) happen within a few thousand rounds; eps = 1 keeps the noise
# large enough that the runs differ in what they eliminate.
@pytest.mark.parametrize("form", ["max", "sum"])
@pytest.mark.parametrize("epsilon", [1.0, 20.0])
def test_dpse_block_path_equals_round_by_round(form, epsilon):
    horizon, fewest = 11_000, []
    for run in range(4):
        stack = _stacks(1, horizon, seed=100 + run)
        fast, slow = _both_paths(
            lambda: DPSE(epsilon=epsilon, horizon=horizon, beta=0.5, r_e_form=form),
            lambda stack=stack: StackBandit(MEANS, stack), horizon, seed=run)
        _assert_identical(fast, slow, f"DP-SE {form}, eps={epsilon}, run {run}")
        fewest.append(tuple(fast.pulls[0]))
    # teeth: arms were eliminated inside the horizon, and not the same way in every run
    assert max(min(p) for p in fewest) < horizon // len(MEANS) and len(set(fewest)) > 1


@pytest.mark.parametrize("form", ["max", "sum"])
def test_dpse_block_path_cut_at_every_horizon(form):
    """Horizons that end inside the first and second epochs, and right at a boundary."""
    stack = _stacks(1, 3000, seed=7)
    p = DPSE(epsilon=20.0, horizon=3000, beta=0.5, r_e_form=form)
    first_epoch = int(p._length(np.array([1]), np.array([4]), np.array([20.0]))[0]) * 4
    for horizon in (first_epoch - 1, first_epoch, first_epoch + 1, first_epoch + 37):
        fast, slow = _both_paths(
            lambda horizon=horizon: DPSE(epsilon=20.0, horizon=horizon, beta=0.5, r_e_form=form),
            lambda: StackBandit(MEANS, stack), horizon, seed=3)
        _assert_identical(fast, slow, f"DP-SE {form}, T={horizon}")


@pytest.mark.parametrize("cls", [AdaPUCB, AdaPKLUCB])
@pytest.mark.parametrize("epsilon", [0.5, 50.0])
def test_adap_block_path_equals_round_by_round(cls, epsilon):
    for run in range(6):
        horizon = 1500 + 97 * run                 # horizons that cut episodes at various points
        stack = _stacks(1, horizon, seed=200 + run)
        fast, slow = _both_paths(lambda: cls(epsilon=epsilon),
                                 lambda stack=stack: StackBandit(MEANS, stack), horizon, seed=run)
        _assert_identical(fast, slow, f"{cls.__name__}, eps={epsilon}, run {run}")


@pytest.mark.parametrize("cls", [AdaPUCB, AdaPKLUCB])
def test_adap_block_path_short_horizons(cls):
    """Horizons inside the initialisation rounds and the first episodes."""
    stack = _stacks(1, 40, seed=11)
    for horizon in range(1, 40):
        fast, slow = _both_paths(lambda: cls(epsilon=2.0), lambda: StackBandit(MEANS, stack),
                                 horizon, seed=5)
        _assert_identical(fast, slow, f"{cls.__name__}, T={horizon}")


@pytest.mark.parametrize("first_action", ["uniform", "first"])
@pytest.mark.parametrize("noise", ["laplace", "exponential", "gumbel"])
def test_rnm_ftnl_epoch_path_equals_round_by_round(first_action, noise):
    """All runs in one batch: both paths call report-noisy-max once per epoch for every run."""
    n_runs = 40
    for horizon in (1, 2, 3, 7, 8, 100, 255, 256, 1000):
        rng = np.random.default_rng(horizon)
        table = (rng.random((n_runs, horizon, len(MEANS))) < MEANS).astype(float)
        every_round = np.arange(1, horizon + 1)
        kwargs = {"checkpoints": every_round, "progress": False}
        def make(noise=noise, first_action=first_action):
            return RNMFTNL(epsilon=2.0, noise=noise, first_action=first_action)
        fast = simulate(make(), StackExperts(MEANS, table), horizon, n_runs, 9, **kwargs)
        slow = simulate(make(), StackExperts(MEANS, table), horizon, n_runs, 9,
                        block_updates=False, **kwargs)
        np.testing.assert_array_equal(fast.pulls, slow.pulls, err_msg=f"T={horizon}")
        np.testing.assert_array_equal(fast.regret, slow.regret, err_msg=f"T={horizon}")
    # teeth: the runs must not all play the same actions
    assert len({tuple(row) for row in fast.pulls}) > 1


def _recording(cls):
    """``cls`` logging every evaluation of its index: (rounds t_l, index of every arm)."""

    class Recording(cls):
        def _index(self, mu_tilde, n, eps, t_l):
            out = super()._index(mu_tilde, n, eps, t_l)
            rounds = np.broadcast_to(np.asarray(t_l, dtype=float), (len(out), 1))[:, 0]
            self.__dict__.setdefault("log", []).append((rounds.copy(), out.copy()))
            return out

    return Recording


@pytest.mark.parametrize("cls", [AdaPUCB, AdaPKLUCB])
@pytest.mark.parametrize("epsilon", [0.5, 50.0])
def test_adap_block_path_starts_episodes_at_the_same_rounds_with_the_same_indices(cls, epsilon):
    """Each episode's index I_a(t_l) is evaluated at the episode's first round t_l.

    The arm choices alone can hide a wrong t_l (an index evaluated one round early often picks
    the same arm), so both paths log every index they evaluate: the rounds t_l and the values
    of every arm must be identical, episode by episode.
    """
    for run in range(3):
        horizon = 1200 + 131 * run
        stack = _stacks(1, horizon, seed=300 + run)
        logs = []
        for block_updates in (True, False):
            policy = _recording(cls)(epsilon=epsilon)
            simulate(policy, StackBandit(MEANS, stack), horizon, 1, run, checkpoints=[horizon],
                     progress=False, block_updates=block_updates)
            logs.append(policy.log)
        fast, slow = logs
        rounds = [int(t[0]) for t, _ in slow]
        assert [int(t[0]) for t, _ in fast] == rounds, f"{cls.__name__}, run {run}"
        for (_, a), (_, b), t_l in zip(fast, slow, rounds):
            np.testing.assert_array_equal(a, b, err_msg=f"{cls.__name__}, run {run}, t_l={t_l}")
        # teeth: many episodes, the first right after the initial round robin
        assert len(rounds) > 10 and rounds[0] == len(MEANS) + 1


class ExploreThenCommit(BlockPolicy):
    """A policy written for the block protocol: m rounds of round robin, then the best arm.

    Round by round: round t <= m K pulls arm (t - 1) mod K; later rounds the arm with the
    largest exploration sum (lowest index on ties). As blocks: one round robin of m pulls per
    arm, then a committed arm until the horizon.
    """

    label = "ETC"

    def __init__(self, m):
        self.m = m

    def reset(self, n_runs, n_arms, rng):
        self.n_runs, self.n_arms = n_runs, n_arms
        self.sums = np.zeros((n_runs, n_arms))
        self.best = np.zeros(n_runs, dtype=np.int64)

    def select(self, t):
        if t <= self.m * self.n_arms:
            return np.full(self.n_runs, (t - 1) % self.n_arms)
        return self.best

    def update(self, t, arms, rewards):
        if t <= self.m * self.n_arms:
            self.sums[np.arange(self.n_runs), arms] += rewards
            if t == self.m * self.n_arms:
                self.best = np.argmax(self.sums, axis=1)

    def propose(self, rows, t):
        if t[0] == 1:
            every_arm = np.ones((len(rows), self.n_arms), dtype=bool)
            return Block(rows, every_arm, np.full(len(rows), self.m))
        return Block(rows, self.best[rows], np.full(len(rows), UNTIL_HORIZON))

    def observe(self, block, sums):
        self.sums[block.rows] = sums
        self.best[block.rows] = np.argmax(sums, axis=1)


def test_a_policy_written_for_the_block_protocol_is_played_in_blocks():
    """simulate recognises the protocol, and the loop's round robin, commitment until the
    horizon and truncation agree with the policy's own round-by-round play."""
    stack = _stacks(1, 400, seed=17)
    calls = []

    class Counting(ExploreThenCommit):
        def propose(self, rows, t):
            calls.append(int(t[0]))
            return super().propose(rows, t)

    for m, horizon in ((5, 400), (30, 119), (30, 120), (30, 121), (1, 3)):
        fast, slow = _both_paths(lambda m=m: Counting(m), lambda: StackBandit(MEANS, stack),
                                 horizon, seed=0)
        _assert_identical(fast, slow, f"ETC m={m}, T={horizon}")
    assert calls[:2] == [1, 21]               # played in blocks: the exploration, then one arm


def test_block_play_refuses_a_wrong_proposal():
    env = StackBandit(MEANS, _stacks(2, 50, seed=1))

    class NotABlock(ExploreThenCommit):
        def propose(self, rows, t):
            return rows

    class OtherRuns(ExploreThenCommit):
        def propose(self, rows, t):
            return super().propose(rows[:1], t[:1])

    for cls, exc, match in ((NotABlock, TypeError, "must return a Block"),
                            (OtherRuns, ValueError, "must return a block of the runs")):
        with pytest.raises(exc, match=match):
            simulate(cls(2), env, 50, 2, 0, progress=False)


def test_full_information_blocks_must_cover_every_run_with_one_length():
    class Staggered(RNMFTNL):
        def propose(self, rows, t):
            block = super().propose(rows, t)
            return Block(block.rows, block.arms, block.pulls + np.arange(len(rows)))

    with pytest.raises(ValueError, match="every run with one length"):
        simulate(Staggered(epsilon=1.0), StackExperts(MEANS, np.zeros((3, 20, 4))), 20, 3, 0,
                 progress=False)
