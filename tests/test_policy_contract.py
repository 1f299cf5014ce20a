"""One contract every policy in the package keeps (in the spirit of sklearn's common checks).

Each exported policy needs an example configuration in EXAMPLES; a policy added to the package
without one fails `test_every_exported_policy_has_an_example`.
"""
import inspect

import numpy as np
import pytest

import dpolearn as dpl
from dpolearn import accounting, bandits, fullinfo
from dpolearn.plotting import LABEL_ORDER
from dpolearn.policy import Policy

HORIZON = 300


def _examples():
    """name -> factory(epsilon) for every exported policy (epsilon ignored if not private)."""
    ex = {
        "UCB1": lambda e: dpl.UCB1(),
        "KLUCB": lambda e: dpl.KLUCB(),
        "BetaTS": lambda e: dpl.BetaTS(),
        "GaussianTS": lambda e: dpl.GaussianTS(),
        "UniformPlay": lambda e: dpl.UniformPlay(),
        "FTL": lambda e: dpl.FTL(),
        "Hedge": lambda e: dpl.Hedge(),
    }
    optional = {
        "DPUCBBound": lambda e: bandits.DPUCBBound(epsilon=e),
        "DPUCB": lambda e: bandits.DPUCB(epsilon=e),
        "DPUCBInt": lambda e: bandits.DPUCBInt(epsilon=e),
        "PrivateUCB": lambda e: bandits.PrivateUCB(epsilon=e, horizon=HORIZON),
        "AnytimeLazyUCB": lambda e: bandits.AnytimeLazyUCB(epsilon=e),
        "LazyDPTS": lambda e: bandits.LazyDPTS(epsilon=e),
        "DPTS": lambda e: bandits.DPTS(epsilon=e),
        "DPSE": lambda e: bandits.DPSE(epsilon=e, horizon=HORIZON),
        "AdaPUCB": lambda e: bandits.AdaPUCB(epsilon=e),
        "AdaPKLUCB": lambda e: bandits.AdaPKLUCB(epsilon=e),
        "DPTSUCB": lambda e: bandits.DPTSUCB(alpha=0.5, horizon=HORIZON),
        "MTSGaussian": lambda e: bandits.MTSGaussian(b=1, c=1.178, horizon=HORIZON),
        "RNMFTNL": lambda e: fullinfo.RNMFTNL(epsilon=e),
        "NaiveFTNL": lambda e: fullinfo.NaiveFTNL(epsilon=e),
    }
    exported = set(bandits.__all__) | set(fullinfo.__all__)
    ex.update({k: v for k, v in optional.items() if k in exported})
    return ex


EXAMPLES = _examples()


def _exported_policies():
    out = []
    for mod in (bandits, fullinfo):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isclass(obj) and issubclass(obj, Policy):
                out.append(name)
    return out


def test_every_exported_policy_has_an_example():
    missing = [n for n in _exported_policies() if n not in EXAMPLES]
    assert not missing, f"add contract examples for {missing}"


def _env(policy):
    if policy.feedback == "full":
        return dpl.BernoulliExperts([0.3, 0.5, 0.6], kind="loss")
    return dpl.BernoulliBandit([0.7, 0.5, 0.4])


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_policy_contract(name):
    policy = EXAMPLES[name](1.0)
    # a display label the book's legends know, and a guarantee record
    assert policy.label in LABEL_ORDER
    assert isinstance(policy.guarantee, (accounting.PureDP, accounting.ApproxDP,
                                         accounting.GaussianDP, accounting.NotPrivate))
    assert isinstance(policy.params(), dict)
    repr(policy)
    env = _env(policy)
    a = dpl.simulate(policy, env, HORIZON, 6, seed=7, progress=False)
    b = dpl.simulate(EXAMPLES[name](1.0), env, HORIZON, 6, seed=7, progress=False)
    assert np.array_equal(a.regret, b.regret), "same seed must give identical results"
    assert a.pulls.sum(axis=1).tolist() == [HORIZON] * 6
    assert np.all(np.isfinite(a.regret)) and np.all(np.diff(a.regret, axis=1) >= -1e-12)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_select_returns_valid_arm_indices(name):
    policy = EXAMPLES[name](0.5)
    env = _env(policy)
    env.reset(5, np.random.default_rng(0))
    policy.reset(5, env.n_arms, np.random.default_rng(1))
    for t in range(1, 40):
        arms = policy.select(t)
        assert arms.shape == (5,) and np.issubdtype(arms.dtype, np.integer)
        assert np.all((arms >= 0) & (arms < env.n_arms))
        feedback = env.pull(t, arms) if policy.feedback == "bandit" else env.losses(t)
        policy.update(t, arms, feedback)
