"""One contract every policy in the package keeps (in the spirit of sklearn's common checks).

The contract itself is `dpolearn.testing.check_policy`, which users run on their own policies.

Each exported policy needs an example configuration in EXAMPLES; a policy added to the package
without one fails `test_every_exported_policy_has_an_example`. The second half checks what the
`Policy` base derives from a constructor: `params()` and `repr` (scikit-learn's `get_params`
rule: every argument stored under its own name), `paper_claim`, the one `reset` preamble, and
guarantees known before `reset`.
"""
import inspect
import math

import numpy as np
import pytest

import dpolearn as dpl
from dpolearn import _algorithms, bandits, fullinfo
from dpolearn.accounting import ApproxDP, GaussianDP, NotPrivate, PureDP
from dpolearn.bandits.baselines import SumCountPolicy
from dpolearn.plotting import LABEL_ORDER
from dpolearn.policy import Policy
from dpolearn.testing import check_policy

HORIZON = 300
N_ARMS = 3                 # the number of arms the contract runs on (Private-UCB's n_trees)


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
        "PrivateUCB": lambda e: bandits.PrivateUCB(epsilon=e, horizon=HORIZON, n_trees=N_ARMS),
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
    for entry in _algorithms.ENTRIES:           # a new algorithm: its own "common" factory
        own = entry.presets.get("common", {}).get(entry.label)
        if own is not None and entry.policy.__name__ not in ex:
            ex[entry.policy.__name__] = (lambda f: lambda e: f(e, HORIZON))(own)
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
    report = check_policy(lambda epsilon, horizon: EXAMPLES[name](epsilon), horizon=HORIZON,
                          n_arms=N_ARMS)
    assert report.ok


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_label_is_known_to_the_book(name):
    """The book's own policies also have a display label with a fixed colour."""
    assert EXAMPLES[name](1.0).label in LABEL_ORDER


# ------------------------------------------------------------------ declared once
#: Non-default configurations of every class: arrays, weakened variants, diagnostics, the
#: arguments each class adds (every one must round-trip through repr and params as well).
VARIANTS = {
    "KLUCB": lambda: bandits.KLUCB(c=3.0),
    "BetaTS": lambda: bandits.BetaTS(bernoulli_trick=True),
    "GaussianTS": lambda: bandits.GaussianTS(prior="empirical"),
    "UniformPlay": lambda: bandits.UniformPlay(feedback="full"),
    "Hedge": lambda: fullinfo.Hedge(learning_rate=0.3, horizon=100),
    "DPUCBBound": lambda: bandits.DPUCBBound(epsilon=np.array([0.5, 1.0]), split="paper",
                                             tree_log_base="e", noise_multiplier=0.5),
    "DPUCB": lambda: bandits.DPUCB(epsilon=0.5, noise_multiplier=0.25),
    "DPUCBInt": lambda: bandits.DPUCBInt(epsilon=0.01, v=1.3, schedule="lemmaB1_x",
                                         index="frozen", delta_prime=1e-6,
                                         noise_multiplier=0.5),
    "PrivateUCB": lambda: bandits.PrivateUCB(epsilon=[0.5, 2.0], horizon=64,
                                             variant="chan_bound", noise_multiplier=0.5),
    "AnytimeLazyUCB": lambda: bandits.AnytimeLazyUCB(epsilon=math.inf, log="log2"),
    "LazyDPTS": lambda: bandits.LazyDPTS(epsilon=[0.5, 1.0], noise_multiplier=0.5),
    "DPTS": lambda: bandits.DPTS(epsilon=1.0, bernoulli_trick=True, log_share=1.0,
                                 tree_share=0.25, noise_multiplier=0.5),
    "DPSE": lambda: bandits.DPSE(epsilon=0.5, horizon=1000, r_e_form="sum", beta=0.01),
    "AdaPUCB": lambda: bandits.AdaPUCB(epsilon=[0.5, 1.0], alpha=4.0),
    "AdaPKLUCB": lambda: bandits.AdaPKLUCB(epsilon=2.0),
    "DPTSUCB": lambda: bandits.DPTSUCB(alpha=[0.0, 1.0], horizon=[100, 200], budget="ceil",
                                       max_init=-math.inf, literal_thm46=True,
                                       track_privacy=True, noise_multiplier=0.5),
    "MTSGaussian": lambda: bandits.MTSGaussian(b=[0, 2], c=[1.0, 2.0], horizon=100,
                                               track_privacy=True, noise_multiplier=0.5),
    "RNMFTNL": lambda: fullinfo.RNMFTNL(epsilon=0.5, noise="gumbel", noise_factor=3.0,
                                        resample=True, first_action="first",
                                        noise_multiplier=0.5),
    "NaiveFTNL": lambda: fullinfo.NaiveFTNL(epsilon=0.5, first_action="first"),
}


def _namespace():
    ns = {name: getattr(mod, name) for mod in (bandits, fullinfo) for name in mod.__all__}
    return dict(ns, array=np.array, inf=math.inf, nan=math.nan)


def _same(a, b) -> bool:
    """Parameter dicts equal, arrays entry by entry."""
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray)
                                        else a[k] == b[k] for k in a)


CONFIGS = [(name, EXAMPLES[name]) for name in sorted(EXAMPLES)] + \
          [(f"{name} (variant)", make) for name, make in sorted(VARIANTS.items())]


@pytest.mark.parametrize("name, make", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_repr_and_params_round_trip(name, make):
    policy = make(0.5) if name in EXAMPLES else make()
    again = eval(repr(policy), _namespace())
    assert type(again) is type(policy)
    assert repr(again) == repr(policy)
    assert _same(again.params(), policy.params())


@pytest.mark.parametrize("name, make", sorted(VARIANTS.items()))
def test_params_are_the_constructor_arguments(name, make):
    """params() holds every constructor argument under its own name, except a quiet one at
    its default; the repr names every argument that is not at its default."""
    policy = make()
    params = policy.params()
    for p in list(inspect.signature(type(policy).__init__).parameters.values())[1:]:
        value = getattr(policy, p.name)
        at_default = p.default is not p.empty and not isinstance(value, np.ndarray) \
            and value is not None and value == p.default or value is p.default
        if p.name in type(policy).quiet_params and at_default:
            assert p.name not in params
        else:
            assert p.name in params
        assert (f"{p.name}=" in repr(policy)) == (not at_default), (p.name, repr(policy))


def test_the_repr_leaves_defaults_out():
    assert repr(bandits.LazyDPTS(epsilon=0.5)) == "LazyDPTS(epsilon=0.5)"
    assert repr(bandits.LazyDPTS(epsilon=0.5, log="log2", noise_multiplier=0.5)) == \
        "LazyDPTS(epsilon=0.5, log='log2', noise_multiplier=0.5)"
    assert repr(dpl.UCB1()) == "UCB1()"
    assert repr(bandits.DPUCBInt(epsilon=0.1, index_mode="A")) == "DPUCBInt(epsilon=0.1)"


def test_noise_multiplier_is_shown_where_a_class_has_it():
    """Left out at its default 1 (the book's configurations), shown when set: in params and
    in the repr, with no code of the class's own."""
    with_it = 0
    for name, make in sorted(EXAMPLES.items()):
        default = make(0.5)
        cls = type(default)
        if "noise_multiplier" not in inspect.signature(cls.__init__).parameters:
            continue
        with_it += 1
        assert "noise_multiplier" not in default.params(), name
        assert "noise_multiplier" not in repr(default), name
        weakened = cls(**dict(default.params(), noise_multiplier=0.5))
        assert weakened.params()["noise_multiplier"] == 0.5, name
        assert "noise_multiplier=0.5" in repr(weakened), name
    assert with_it >= 10


def test_a_subclass_with_a_new_argument_shows_it_without_code():
    class Tempered(bandits.LazyDPTS):
        label = "Tempered Lazy-DP-TS"

        def __init__(self, *, epsilon, temperature: float = 1.0, log: str = "ln"):
            super().__init__(epsilon=epsilon, log=log)
            self.temperature = temperature

    p = Tempered(epsilon=0.5, temperature=2.0)
    assert p.params() == {"epsilon": 0.5, "temperature": 2.0, "log": "ln"}
    assert repr(p) == "Tempered(epsilon=0.5, temperature=2.0)"
    assert repr(Tempered(epsilon=0.5)) == "Tempered(epsilon=0.5)"
    again = eval(repr(p), {"Tempered": Tempered})
    assert again.params() == p.params()

    class Greedy(SumCountPolicy):
        def __init__(self, explore: int = 1):
            self.explore = explore

    assert Greedy(explore=3).params() == {"explore": 3} and repr(Greedy()) == "Greedy()"


def test_an_argument_not_stored_under_its_name_is_an_error():
    class Renamed(Policy):
        def __init__(self, epsilon=1.0):
            self.eps = epsilon

    with pytest.raises(AttributeError, match="Renamed must store its constructor argument "
                                             "'epsilon' as self.epsilon"):
        Renamed().params()
    assert repr(Renamed()).startswith("<Renamed must store its constructor argument 'epsilon'")


# ------------------------------------------------------------------ paper_claim
def test_paper_claim_defaults_to_the_guarantee():
    class Declared(Policy):
        @property
        def guarantee(self):
            return PureDP(epsilon=0.3)

    assert Declared().paper_claim == PureDP(epsilon=0.3)
    assert dpl.UCB1().paper_claim == NotPrivate()
    for make in (lambda: bandits.LazyDPTS(epsilon=0.5), lambda: bandits.DPSE(epsilon=0.5,
                                                                              horizon=100),
                 lambda: bandits.DPTSUCB(alpha=1.0, horizon=100)):
        p = make()
        assert p.paper_claim == p.guarantee


def test_a_class_whose_paper_claims_more_overrides_paper_claim():
    p = fullinfo.RNMFTNL.hu2021(epsilon=1.0)
    assert p.guarantee == PureDP(epsilon=2.0) and p.paper_claim == PureDP(epsilon=1.0)
    q = bandits.DPUCB(epsilon=1.0, split="paper")
    assert q.guarantee == PureDP(epsilon=2.0) and q.paper_claim == PureDP(epsilon=1.0)


# ------------------------------------------------------------------ guarantees before reset
def _record(g):
    """A guarantee as comparable data (type and fields, arrays as lists)."""
    fields = {k: np.asarray(v).tolist() for k, v in vars(g).items()}
    return type(g).__name__, fields


@pytest.mark.parametrize("name, make", CONFIGS, ids=[c[0] for c in CONFIGS])
@pytest.mark.parametrize("n_arms", [2, 3])
def test_the_guarantee_is_known_before_reset_and_does_not_move(name, make, n_arms):
    policy = make(0.5) if name in EXAMPLES else make()
    if isinstance(policy, bandits.PrivateUCB) and policy.n_trees is not None:
        policy = type(policy)(**dict(policy.params(), n_trees=n_arms))
    before = policy.guarantee
    assert isinstance(before, (PureDP, ApproxDP, GaussianDP, NotPrivate))
    n_runs = 2
    policy.reset(n_runs, n_arms, np.random.default_rng(0))
    assert _record(policy.guarantee) == _record(before)


def test_private_ucb_guarantee_with_its_number_of_arms():
    """MT_K splits epsilon over K trees: given K (n_trees) the guarantee is epsilon / K on
    construction; without it, the bound epsilon (valid for every K) until reset tells K."""
    given = bandits.PrivateUCB(epsilon=0.9, horizon=100, n_trees=3)
    assert given.guarantee == PureDP(epsilon=0.3)
    unknown = bandits.PrivateUCB(epsilon=0.9, horizon=100)
    assert unknown.guarantee == PureDP(epsilon=0.9)
    unknown.reset(1, 3, np.random.default_rng(0))
    assert unknown.guarantee == PureDP(epsilon=0.3)
    with pytest.raises(ValueError, match="n_arms.*n_trees = 3.*got n_arms=2"):
        given.reset(1, 2, np.random.default_rng(0))


# ------------------------------------------------------------------ one reset preamble
@pytest.mark.parametrize("name", sorted(EXAMPLES))
@pytest.mark.parametrize("bad, error, match", [
    (dict(n_runs=0), ValueError, "n_runs must be >= 1, got 0"),
    (dict(n_runs=2.0), TypeError, "n_runs must be an integer, got 2.0"),
    (dict(n_arms=0), ValueError, "n_arms must be >= 1, got 0"),
    (dict(n_arms="2"), TypeError, "n_arms must be an integer, got '2'"),
    (dict(rng=7), TypeError, "rng must be a numpy Generator, got 7"),
    (dict(rng=np.random.RandomState(0)), TypeError, "rng must be a numpy Generator"),  # noqa: NPY002 (the wrong kind on purpose)
])
def test_reset_checks_its_arguments_in_the_base(name, bad, error, match):
    policy = EXAMPLES[name](0.5)
    args = dict(dict(n_runs=2, n_arms=2, rng=np.random.default_rng(0)), **bad)
    with pytest.raises(error, match=match):
        policy.reset(**args)
    assert not hasattr(policy, "n_runs")                 # refused before any state is set


def test_no_policy_of_the_package_writes_its_own_reset():
    own = [cls.__qualname__ for mod in (bandits, fullinfo) for name in mod.__all__
           for cls in [getattr(mod, name)] if inspect.isclass(cls) and issubclass(cls, Policy)
           for klass in cls.__mro__ if klass is not Policy and "reset" in vars(klass)]
    assert own == []
