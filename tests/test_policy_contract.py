"""One contract every policy in the package keeps (in the spirit of sklearn's common checks).

The contract itself is `dpolearn.testing.check_policy`, which users run on their own policies.

Each exported policy needs an example configuration in EXAMPLES; a policy added to the package
without one fails `test_every_exported_policy_has_an_example`.
"""
import inspect

import pytest

import dpolearn as dpl
from dpolearn import bandits, fullinfo
from dpolearn.plotting import LABEL_ORDER
from dpolearn.policy import Policy
from dpolearn.testing import check_policy

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


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_policy_contract(name):
    """Every exported policy passes dpolearn.testing.check_policy (the whole contract)."""
    report = check_policy(lambda epsilon, horizon: EXAMPLES[name](epsilon), horizon=HORIZON)
    assert report.ok


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_label_is_known_to_the_book(name):
    """The book's own policies also have a display label with a fixed colour."""
    assert EXAMPLES[name](1.0).label in LABEL_ORDER
