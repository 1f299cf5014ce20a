"""One seed rule for every entry point: an int >= 0 or a SeedSequence, never advanced.

The same seed object given twice gives the same bits; ``None``, bools, floats, strings,
Generators and negative numbers are refused with an error naming ``seed`` (never numpy's own
message).
"""
import numpy as np
import pytest

import dpolearn as dpl
from dpolearn._validation import as_seed_sequence
from dpolearn.envs import TwoPointExperts
from dpolearn.fullinfo import RNMFTNL

BAD_SEEDS = [(None, TypeError), ("abc", TypeError), (1.5, TypeError), (True, TypeError),
             (np.random.default_rng(0), TypeError), (np.int64(-1), ValueError), (-3, ValueError),
             ([1, 2], TypeError)]


def _simulate(seed):
    return dpl.simulate(dpl.BetaTS(), dpl.BernoulliBandit([0.6, 0.5]), 200, 4, seed=seed)


def _simulate_blocks(seed):                # a block path (DP-SE) under the same rule
    from dpolearn.bandits import DPSE

    return dpl.simulate(DPSE(epsilon=1.0, horizon=3000, beta=0.5),
                        dpl.BernoulliBandit([0.6, 0.5]), 3000, 4, seed=seed)


def _simulate_epochs(seed):             # the epoch path (RNM-FTNL on two-point experts)
    return dpl.simulate(RNMFTNL(epsilon=1.0), TwoPointExperts.bernoulli([0.3, 0.5]), 2000, 8,
                        seed=seed)


def _audit_sampler(seed):
    from dpolearn.audit import sample_actions

    table = np.array([[1.0, 0.0]] * 6)

    class Actions:                         # sample_actions' output as a Result-like pair
        def __init__(self, a):
            self.regret = self.pulls = a
    return Actions(sample_actions(dpl.BetaTS(), table, 5, seed=seed))


ENTRY_POINTS = {"simulate": _simulate, "simulate (block path)": _simulate_blocks,
                "simulate (epoch path)": _simulate_epochs, "audit.sample_actions": _audit_sampler}


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_same_seed_sequence_object_twice_gives_the_same_bits(name):
    run = ENTRY_POINTS[name]
    seed = np.random.SeedSequence(2024)
    before = (seed.entropy, seed.spawn_key, seed.n_children_spawned)
    a, b = run(seed), run(seed)
    assert np.array_equal(a.regret, b.regret) and np.array_equal(a.pulls, b.pulls)
    assert (seed.entropy, seed.spawn_key, seed.n_children_spawned) == before   # not advanced
    c = run(np.random.SeedSequence(2024))                                         # equal object
    assert np.array_equal(a.regret, c.regret)


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_int_and_numpy_int_seeds_agree(name):
    run = ENTRY_POINTS[name]
    a, b = run(7), run(np.int64(7))
    assert np.array_equal(a.regret, b.regret) and np.array_equal(a.pulls, b.pulls)


@pytest.mark.parametrize("name", ["simulate", "simulate (block path)", "simulate (epoch path)"])
@pytest.mark.parametrize("seed, exc", BAD_SEEDS)
def test_bad_seeds_are_refused_naming_seed(name, seed, exc):
    with pytest.raises(exc, match=r"^seed must be a non-negative int or a numpy SeedSequence"):
        ENTRY_POINTS[name](seed)


@pytest.mark.parametrize("seed, exc", BAD_SEEDS)
def test_as_seed_sequence_refuses_what_the_rule_refuses(seed, exc):
    with pytest.raises(exc, match="seed"):
        as_seed_sequence(seed)


def test_as_seed_sequence_copies():
    seed = np.random.SeedSequence(5, spawn_key=(1, 2))
    copy = as_seed_sequence(seed)
    assert copy is not seed
    assert (copy.entropy, copy.spawn_key, copy.pool_size) == (5, (1, 2), seed.pool_size)
    copy.spawn(3)
    assert seed.n_children_spawned == 0
    assert as_seed_sequence(np.uint8(3)).entropy == 3


def _laplace_audit(seed):
    from dpolearn.audit import arm_pulled, audit

    def sampler(data, n, seq):              # one Laplace release thresholded at 0.5
        x = data + np.random.default_rng(seq).laplace(size=n)
        return np.stack([(x > 0.5).astype(int)], axis=1)

    return audit(sampler, (0.0, 1.0), [arm_pulled(1, 1)], n_trials=500, seed=seed)


def test_audit_same_seed_sequence_twice_gives_the_same_result():
    seed = np.random.SeedSequence(11)
    assert _laplace_audit(seed) == _laplace_audit(seed)


def test_audit_refuses_seed_none():
    with pytest.raises(TypeError, match="^seed must be a non-negative int"):
        _laplace_audit(None)
