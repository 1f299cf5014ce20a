"""Every public constructor and function refuses bad input with a clear error.

The public names are generated from ``__all__`` of ``dpolearn``, of every subpackage and public
module, and of every module those export: each public class and function must have at least one
bad-input case in ``CASES`` below, so a new public name without one fails
:func:`test_every_public_name_has_a_bad_input_case`. Each case must raise ``TypeError`` or
``ValueError`` whose message names the parameter (and, where the case says so, shows the value).
No case is expected to fail: there is no xfail mark in this file.
"""
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import dpolearn as dpl
import dpolearn.coursework  # noqa: F401  (the package does not import it: the cases below use dpl.coursework)
from dpolearn import (
    accounting,
    audit,
    bandits,
    envs,
    experiments,
    fullinfo,
    lower_bounds,
    plotting,
)
from dpolearn import mechanisms as mech
from dpolearn.fullinfo import epoch_sim
from dpolearn.simulate import Block, BlockPolicy, play_blocks


# --------------------------------------------------------------------------- the public names
def _public_modules():
    names = ["dpolearn"] + [f"dpolearn.{m.name}" for m in pkgutil.iter_modules(dpl.__path__)
                            if not m.name.startswith("_")]
    seen, queue = [], list(names)
    while queue:
        name = queue.pop(0)
        if name in seen:
            continue
        seen.append(name)
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            value = getattr(module, attr)
            if inspect.ismodule(value) and value.__name__.startswith("dpolearn"):
                queue.append(value.__name__)
    return [importlib.import_module(n) for n in seen]


def public_callables():
    """{object id: "module.name"} of every public class and function (exceptions excluded)."""
    found = {}
    for module in _public_modules():
        for attr in getattr(module, "__all__", []):
            value = getattr(module, attr)
            if not (inspect.isclass(value) or inspect.isfunction(value)):
                continue                               # constants, typing aliases, modules
            if inspect.isclass(value) and issubclass(value, BaseException):
                continue                               # warnings and errors take a message
            found.setdefault(id(value), f"{module.__name__}.{attr}")
    return found


def _resolve(path):
    module, _, attr = path.rpartition(".")
    return getattr(importlib.import_module(module), attr)


# --------------------------------------------------------------------------- helpers for cases
def _bandit():
    return dpl.BernoulliBandit([0.6, 0.5])


def _result():
    return dpl.simulate(dpl.UCB1(), _bandit(), 20, 4, seed=0)


def _two_point():
    return envs.TwoPointExperts.bernoulli([0.2, 0.5])


def _figure():
    fig, ax = plotting.subplots()
    return fig, ax


NAN, INF = float("nan"), float("inf")

# name -> list of (call, expected exception type, regex the message must match[, mark])
CASES = {
    # ---------------------------------------------------------------- simulator and policy
    "dpolearn.simulate": [
        (lambda: dpl.simulate(dpl.UCB1(), "env", 10), TypeError, r"env must be .*'env'"),
        (
            lambda: dpl.simulate(dpl.UCB1(), _bandit(), 10**20),
            ValueError,
            r"horizon must be <= \d+, got 100000000000000000000",
        ),
        (
            lambda: dpl.simulate(dpl.UCB1(), _bandit(), 10.5),
            TypeError,
            "horizon must be an integer, got 10.5",
        ),
        (lambda: dpl.simulate(dpl.UCB1(), _bandit(), 0), ValueError, "horizon must be >= 1, got 0"),
        (
            lambda: dpl.simulate(dpl.UCB1(), _bandit(), 10, 0),
            ValueError,
            "n_runs must be >= 1, got 0",
        ),
        (lambda: dpl.simulate("UCB1", _bandit(), 10), TypeError, "policy must be .*'UCB1'"),
        (lambda: dpl.simulate(dpl.UCB1(), _bandit(), 10, seed=-1), ValueError, "seed.*-1"),
        (lambda: dpl.simulate(dpl.UCB1(), _bandit(), 10, seed=None), TypeError, "seed.*None"),
        (
            lambda: dpl.simulate(dpl.UCB1(), _bandit(), 10, checkpoints=[2.5, 10]),
            ValueError,
            "checkpoints must hold whole numbers, got 2.5",
        ),
        (
            lambda: dpl.simulate(dpl.UCB1(), _bandit(), 10, checkpoints=[0, 5]),
            ValueError,
            "checkpoints.*0",
        ),
        (
            lambda: dpl.simulate(dpl.UCB1(), _bandit(), 10, progress="no"),
            TypeError,
            "progress must be True or False, got 'no'",
        ),
        (
            lambda: dpl.simulate(dpl.UCB1(), _bandit(), 10, block_updates=1),
            TypeError,
            "block_updates must be True or False, got 1",
        ),
        (lambda: dpl.simulate(dpl.FTL(), _bandit(), 10), ValueError, "feedback"),
        (
            lambda: dpl.simulate(dpl.UCB1(), dpl.BernoulliBandit([[0.5, 0.4]] * 3), 10, 2),
            ValueError,
            "n_runs must equal .*3.*got 2",
        ),
    ],
    "dpolearn.make_checkpoints": [
        (
            lambda: dpl.make_checkpoints(10, "linear", n_points=0),
            ValueError,
            "n_points must be >= 1, got 0",
        ),
        (lambda: dpl.make_checkpoints(10, [2.5, 10]), ValueError, "checkpoints.*2.5"),
        (lambda: dpl.make_checkpoints(10, "weird"), ValueError, "checkpoints.*'weird'"),
        (lambda: dpl.make_checkpoints(10, True), TypeError, "checkpoints.*True"),
        (lambda: dpl.make_checkpoints(10, [[1, 2]]), ValueError, "checkpoints"),
        (lambda: dpl.make_checkpoints(10, []), ValueError, "checkpoints"),
        (lambda: dpl.make_checkpoints(10, ["1", "2"]), TypeError, "checkpoints"),
        (lambda: dpl.make_checkpoints(0), ValueError, "horizon must be >= 1, got 0"),
    ],
    "dpolearn.simulate.Block": [
        (lambda: Block(np.arange(2), np.array([0.5, 1.0]), np.ones(2, int)),
         TypeError, r"Block arms must be integers or booleans, got array\(\[0.5, 1. \]\)"),
        (lambda: Block(np.arange(2), np.zeros(3, int), np.ones(2, int)),
         ValueError, r"got shapes \(2,\), \(3,\) and \(2,\)"),
        (lambda: Block(np.arange(2), np.zeros(2, int), np.array([1, 0])),
         ValueError, r"pulls must be >= 1 .*got pulls array\(\[1, 0\]\)"),
        (lambda: Block(np.arange(1), np.zeros((1, 2), bool), np.ones(1, int)),
         ValueError, "every set of arms non-empty"),
        (lambda: Block(np.arange(1), np.zeros(1, int), np.ones(1, int), "no"),
         TypeError, "resampled must be True or False, got 'no'"),
    ],
    "dpolearn.simulate.BlockPolicy": [
        (lambda: BlockPolicy().check_horizon(0), ValueError,
         "horizon must be >= 1, got 0"),
    ],
    "dpolearn.simulate.play_blocks": [
        (lambda: play_blocks(dpl.UCB1(), _bandit(), 10, [10], 1), TypeError,
         "policy must be a BlockPolicy, got UCB1"),
        (lambda: play_blocks(bandits.AdaPUCB(epsilon=1), dpl.GaussianBandit(
            [0.5, 0.4]), 10, [10], 1), TypeError, "env must offer exact block draws"),
        (lambda: play_blocks(bandits.AdaPUCB(epsilon=1), _bandit(), 10, [10], 0),
         ValueError, "n_runs must be >= 1, got 0"),
    ],
    "dpolearn.Result": [
        (lambda: _result().split(0), ValueError, "n_groups must be >= 1, got 0"),
        (lambda: _result().split(3), ValueError, "n_groups must divide n_runs .*got 3"),
        (lambda: _result().split(2.0), TypeError, "n_groups must be an integer, got 2.0"),
        (lambda: _result().select_runs([7]), ValueError, "rows must lie in .*got 7"),
        (lambda: _result().select_runs([True, False]), ValueError, "rows as a mask"),
    ],
    "dpolearn.Policy": [
        (lambda: dpl.Policy().check_horizon(0), ValueError, "horizon must be >= 1, got 0"),
        (
            lambda: bandits.DPSE(epsilon=1, horizon=10).check_horizon(11),
            ValueError,
            r"horizon=10\), got horizon=11",
        ),
    ],
    # ---------------------------------------------------------------- environments
    "dpolearn.BernoulliBandit": [
        (
            lambda: dpl.BernoulliBandit([0.5, 1.2]),
            ValueError,
            r"means must lie in \[0.0, 1.0\], got 1.2",
        ),
        (lambda: dpl.BernoulliBandit([0.5]), ValueError, "K >= 2"),
        (lambda: dpl.BernoulliBandit([[[0.5, 0.2]]]), ValueError, "shape"),
        (lambda: dpl.BernoulliBandit([0.5, NAN]), ValueError, "finite"),
        (lambda: dpl.BernoulliBandit(["0.9", "0.6"]), TypeError, r"means must be .*'0.9'"),
        (lambda: dpl.BernoulliBandit([True, False]), TypeError, "means"),
        (lambda: _bandit().reset(2, None), TypeError, "rng must be a numpy Generator, got None"),
        (lambda: _bandit().means_for(0), ValueError, "n_runs must be >= 1, got 0"),
    ],
    "dpolearn.GaussianBandit": [
        (lambda: dpl.GaussianBandit([0.0, 1.0], sigma=0), ValueError, "sigma must be .*got 0"),
        (lambda: dpl.GaussianBandit([0.0, 1.0], sigma=[1, 2]), TypeError, "sigma"),
        (lambda: dpl.GaussianBandit([0.0, INF]), ValueError, "means must be finite"),
    ],
    "dpolearn.BernoulliExperts": [
        (lambda: dpl.BernoulliExperts([0.2, 0.3], kind="gain"), ValueError, "kind.*'gain'"),
        (lambda: dpl.BernoulliExperts([0.2, 0.3], kind=1), TypeError, "kind.*1"),
        (lambda: dpl.BernoulliExperts(["0.2", "0.3"]), TypeError, "means"),
    ],
    "dpolearn.FixedSequence": [
        (lambda: dpl.FixedSequence(np.ones((3, 1))), ValueError, "losses"),
        (lambda: dpl.FixedSequence(2 * np.ones((3, 2))), ValueError, "losses must lie in .*2"),
        (lambda: dpl.FixedSequence("abc"), TypeError, "losses"),
    ],
    "dpolearn.envs.ReplayBandit": [
        (lambda: envs.ReplayBandit(np.ones((3, 1))), ValueError, "rewards"),
        (lambda: envs.ReplayBandit([[0.5, -1.0]]), ValueError, "rewards must lie in .*-1"),
    ],
    "dpolearn.envs.TwoPointExperts": [
        (
            lambda: envs.TwoPointExperts([0.5, 0.5], [0.2, 0.9], [0.1, 0.1]),
            ValueError,
            "high must be >= low",
        ),
        (lambda: envs.TwoPointExperts([0, 0], [1, 1], [0.5, 1.5]), ValueError, "p_high.*1.5"),
        (lambda: envs.TwoPointExperts([0, 0], [1, 1, 1], [0.5, 0.5]), ValueError, "broadcast"),
        (
            lambda: _two_point().loss_block_sums(3, resampled="yes"),
            TypeError,
            "resampled must be True or False, got 'yes'",
        ),
    ],
    # ---------------------------------------------------------------- accounting
    "dpolearn.PureDP": [(lambda: dpl.PureDP(-1), ValueError, "epsilon.*-1")],
    "dpolearn.ApproxDP": [(lambda: dpl.ApproxDP(1.0, 1.5), ValueError, "delta.*1.5")],
    "dpolearn.GaussianDP": [(lambda: dpl.GaussianDP(-2), ValueError, "mu.*-2")],
    "dpolearn.NotPrivate": [(lambda: dpl.NotPrivate(1), TypeError, "reason.*1")],
    "dpolearn.accounting.compose": [
        (lambda: accounting.compose(), ValueError, "compose needs at least one"),
        (lambda: accounting.compose(1.0), TypeError, "1.0"),
    ],
    "dpolearn.accounting.advanced_composition": [
        (lambda: accounting.advanced_composition(1.0, 0.0, 0, 1e-5), ValueError, "k.*0"),
    ],
    "dpolearn.accounting.heterogeneous_advanced_composition": [
        (
            lambda: accounting.heterogeneous_advanced_composition([1.0, -1.0], 1e-5),
            ValueError,
            "epsilon.*-1",
        ),
    ],
    "dpolearn.accounting.tradeoff_gaussian": [
        (lambda: accounting.tradeoff_gaussian(1.5, 1.0), ValueError, "x.*1.5"),
    ],
    "dpolearn.accounting.tradeoff_eps_delta": [
        (lambda: accounting.tradeoff_eps_delta(0.5, -1.0, 0.0), ValueError, "epsilon.*-1"),
    ],
    "dpolearn.accounting.gaussian_mechanism_gdp": [
        (lambda: accounting.gaussian_mechanism_gdp(1.0, 0.0), ValueError, "sigma.*0"),
    ],
    "dpolearn.accounting.gdp_compose": [
        (lambda: accounting.gdp_compose(-1.0), ValueError, "mu.*-1"),
    ],
    "dpolearn.accounting.gdp_delta": [
        (lambda: accounting.gdp_delta(1.0, -1.0), ValueError, "mu.*-1"),
    ],
    "dpolearn.accounting.gdp_log_delta": [
        (lambda: accounting.gdp_log_delta(1.0, "a"), TypeError, "mu.*'a'"),
    ],
    "dpolearn.accounting.gdp_epsilon": [
        (lambda: accounting.gdp_epsilon(1.5, 1.0), ValueError, "delta.*1.5"),
    ],
    "dpolearn.accounting.gdp_epsilon_from_log_delta": [
        (lambda: accounting.gdp_epsilon_from_log_delta(1.0, 1.0), ValueError, "log_delta.*1"),
    ],
    "dpolearn.accounting.gdp_equivalent_epsilon": [
        (lambda: accounting.gdp_equivalent_epsilon(0.0), ValueError, "mu must be > 0.*0"),
        (lambda: accounting.gdp_equivalent_epsilon(NAN), ValueError, "mu must be > 0.*nan"),
    ],
    "dpolearn.accounting.privacy_level": [
        (lambda: accounting.privacy_level(0.5), TypeError, "guarantee.*0.5"),
    ],
    "dpolearn.accounting.gdp_to_approx": [
        (lambda: accounting.gdp_to_approx(1.0, 2.0), ValueError, "delta.*2"),
    ],
    "dpolearn.accounting.pure_dp_to_gdp": [
        (lambda: accounting.pure_dp_to_gdp(-1.0), ValueError, "epsilon.*-1"),
    ],
    "dpolearn.accounting.gdp_to_zcdp": [
        (lambda: accounting.gdp_to_zcdp(NAN), ValueError, "mu.*nan"),
    ],
    "dpolearn.accounting.gdp_to_renyi": [
        (lambda: accounting.gdp_to_renyi(1.0, 0.5), ValueError, "order.*0.5"),
    ],
    # ---------------------------------------------------------------- audit
    "dpolearn.audit.AuditResult": [
        (
            lambda: audit.AuditResult(0.1, 0.2, 1.5, 0.0, "e", 0.1, 0.2, 10),
            ValueError,
            "confidence.*1.5",
        ),
    ],
    "dpolearn.audit.epsilon_lower_bound": [
        (lambda: audit.epsilon_lower_bound(11, 10, 1, 10), ValueError, "k1.*11"),
        (
            lambda: audit.epsilon_lower_bound(1, 10, 1, 10, confidence=1.5),
            ValueError,
            "confidence.*1.5",
        ),
    ],
    "dpolearn.audit.epsilon_lower_bounds": [
        (lambda: audit.epsilon_lower_bounds([11], 10, [1], 10), ValueError, "k1.*11"),
        (lambda: audit.epsilon_lower_bounds([1.5], 10, [1], 10), TypeError, "k1.*float"),
        (lambda: audit.epsilon_lower_bounds([1], 10, [1, 2], 10), ValueError, "k1 and k2.*shape"),
    ],
    "dpolearn.audit.search_audit": [
        (lambda: audit.search_audit(dpl.UCB1()), TypeError, "factory.*UCB1"),
        (lambda: audit.search_audit(dpl.UCB1, n_select=0), ValueError, "n_select.*0"),
        (lambda: audit.search_audit(dpl.UCB1, horizon=1), ValueError, "horizon.*1"),
    ],
    "dpolearn.audit.SearchAuditResult": [
        (lambda: audit.SearchAuditResult(0.1, 0.2, 0.95, 0.0, "e", 0.1, 0.2, 10, runs=-1),
         ValueError, "runs.*-1"),
        (lambda: audit.SearchAuditResult(0.1, 0.2, 0.95, 0.0, "e", 0.1, 0.2, 10, pair=3),
         TypeError, "pair.*3"),
    ],
    "dpolearn.audit.claimed_epsilon": [
        (lambda: audit.claimed_epsilon(dpl.UCB1, 2), TypeError, "policy.*UCB1"),
        (lambda: audit.claimed_epsilon(dpl.UCB1(), 1), ValueError, "n_arms.*1"),
    ],
    "dpolearn.audit.extreme_tables": [
        (lambda: audit.extreme_tables(1, 2), ValueError, "horizon.*1"),
    ],
    "dpolearn.audit.neighbouring_pairs": [
        (lambda: audit.neighbouring_pairs(4, "2"), TypeError, "n_arms.*'2'"),
    ],
    "dpolearn.audit.clopper_pearson": [
        (lambda: audit.clopper_pearson(11, 10, 0.95), ValueError, "k.*11"),
        (lambda: audit.clopper_pearson(1.5, 10, 0.95), TypeError, "k.*1.5"),
        (lambda: audit.clopper_pearson(1, 10, 1.5), ValueError, "confidence.*1.5"),
    ],
    "dpolearn.audit.sample_actions": [
        (lambda: audit.sample_actions(dpl.UCB1(), [[0.5, 0.4]], 0), ValueError, "n_trials.*0"),
        (
            lambda: audit.sample_actions(dpl.UCB1(), [[0.5, 0.4]], 2, seed=None),
            TypeError,
            "seed.*None",
        ),
    ],
    "dpolearn.audit.Event": [
        (lambda: audit.Event("e", "not callable"), TypeError, "indicator"),
    ],
    "dpolearn.audit.arm_pulled": [(lambda: audit.arm_pulled(0, 0), ValueError, "t.*0")],
    "dpolearn.audit.action_sequence": [
        (lambda: audit.action_sequence([]), ValueError, "seq"),
    ],
    "dpolearn.audit.pulls_at_least": [
        (lambda: audit.pulls_at_least(0, 5, -1), ValueError, "k.*-1"),
    ],
    "dpolearn.audit.output_above": [
        (lambda: audit.output_above("a"), TypeError, "c.*'a'"),
    ],
    "dpolearn.audit.selected": [(lambda: audit.selected(-1), ValueError, "i.*-1")],
    "dpolearn.audit.audit": [
        (lambda: audit.audit(None, (0, 1), []), TypeError, "sampler"),
        (
            lambda: audit.audit(
                lambda d, n, s: np.zeros((n, 1)), (0, 1), [audit.selected(0)], seed=None
            ),
            TypeError,
            "seed.*None",
        ),
    ],
    "dpolearn.audit.audit_policy": [
        (
            lambda: audit.audit_policy(
                dpl.UCB1, ([[1.0, 0.0]], [[0.0, 1.0]]), [audit.arm_pulled(0, 1)], n_trials=0
            ),
            ValueError,
            "n_trials.*0",
        ),
    ],
    "dpolearn.audit.adversarial_pairs": [
        (lambda: audit.adversarial_pairs("nonsense"), ValueError, "family.*'nonsense'"),
    ],
    "dpolearn.audit.exact_epsilon": [
        (lambda: audit.exact_epsilon("laplace", 0.0, 1.0), TypeError, "mechanism"),
    ],
    "dpolearn.audit.rnm_exact_epsilon": [
        (lambda: audit.rnm_exact_epsilon("rnm", [0, 1], [1, 0]), TypeError, "rnm"),
    ],
    "dpolearn.audit.rnm_event_losses": [
        (lambda: audit.rnm_event_losses("rnm", [0, 1], [1, 0]), TypeError, "rnm"),
    ],
    "dpolearn.audit.laplace_difference_sf": [
        (lambda: audit.laplace_difference_sf(1.0, -1.0), ValueError, "scale.*-1"),
    ],
    "dpolearn.audit.laplace_event_loss": [
        (lambda: audit.laplace_event_loss(0.5, 0.0, 1.0, 0.0), ValueError, "scale.*0"),
    ],
    "dpolearn.audit.laplace_composed": [
        (lambda: audit.laplace_composed([1.0], [-1.0]), ValueError, "scales.*-1"),
    ],
    "dpolearn.audit.gaussian_composed": [
        (lambda: audit.gaussian_composed([1.0], [0.0]), ValueError, "sigmas.*0"),
    ],
    "dpolearn.audit.hybrid_counter_exact_epsilon": [
        (lambda: audit.hybrid_counter_exact_epsilon(1.0, 1.0, 0), ValueError, "n_max.*0"),
    ],
    "dpolearn.audit.whitebox_gdp": [
        (
            lambda: audit.whitebox_gdp(dpl.UCB1(), _bandit(), 10),
            ValueError,
            "policy must be built with track_privacy=True, got UCB1",
        ),
    ],
    "dpolearn.audit.whitebox_interval_mean": [
        (lambda: audit.whitebox_interval_mean(None, 0), ValueError, "n_max.*0"),
    ],
    # ---------------------------------------------------------------- bandit policies
    "dpolearn.UCB1": [(lambda: dpl.UCB1(1), TypeError, "argument")],
    "dpolearn.KLUCB": [(lambda: dpl.KLUCB(c=-1), ValueError, "c must be .*-1")],
    "dpolearn.BetaTS": [
        (
            lambda: dpl.BetaTS(bernoulli_trick="no"),
            TypeError,
            "bernoulli_trick must be True or False, got 'no'",
        ),
    ],
    "dpolearn.GaussianTS": [(lambda: dpl.GaussianTS(prior="flat"), ValueError, "prior.*'flat'")],
    "dpolearn.UniformPlay": [
        (lambda: dpl.UniformPlay(feedback="partial"), ValueError, "feedback.*'partial'"),
    ],
    "dpolearn.bandits.AnytimeLazyUCB": [
        (lambda: bandits.AnytimeLazyUCB(epsilon=0), ValueError, "epsilon.*0"),
        (lambda: bandits.AnytimeLazyUCB(epsilon=1, log="log10"), ValueError, "log.*'log10'"),
    ],
    "dpolearn.bandits.LazyDPTS": [
        (lambda: bandits.LazyDPTS(epsilon="1"), TypeError, "epsilon.*'1'"),
    ],
    "dpolearn.bandits.DPSE": [
        (lambda: bandits.DPSE(epsilon=1, horizon=0), ValueError, "horizon.*0"),
        (lambda: bandits.DPSE(epsilon=1, horizon=10, r_e_form="min"), ValueError, "r_e_form"),
        (lambda: bandits.DPSE(epsilon=1, horizon=10, beta=1.0), ValueError, "beta.*1"),
        (
            lambda: dpl.simulate(
                bandits.DPSE(epsilon=np.ones((2, 2)), horizon=10), _bandit(), 10, 4
            ),
            ValueError,
            r"epsilon must be a scalar or have one entry per run",
        ),
    ],
    "dpolearn.bandits.AdaPUCB": [
        (lambda: bandits.AdaPUCB(epsilon=1, alpha=3), ValueError, "alpha must be > 3.*got 3"),
    ],
    "dpolearn.bandits.AdaPKLUCB": [
        (lambda: bandits.AdaPKLUCB(epsilon=-1), ValueError, "epsilon.*-1"),
        (
            lambda: dpl.simulate(bandits.AdaPKLUCB(epsilon=[1.0, 2.0, 3.0]), _bandit(), 10, 2),
            ValueError,
            r"epsilon must be a scalar or have one entry per run \(2\)",
        ),
    ],
    "dpolearn.bandits.DPTSUCB": [
        (lambda: bandits.DPTSUCB(alpha=1.0, horizon=0), ValueError, "horizon"),
        (
            lambda: bandits.DPTSUCB(alpha=1.0, horizon=100, track_privacy="no"),
            TypeError,
            "track_privacy.*'no'",
        ),
    ],
    "dpolearn.bandits.MTSGaussian": [
        (lambda: bandits.MTSGaussian(b=-1, c=1, horizon=10), ValueError, "b.*-1"),
    ],
    "dpolearn.bandits.DPUCBBound": [
        (lambda: bandits.DPUCBBound(epsilon=1, split="half"), ValueError, "split.*'half'"),
    ],
    "dpolearn.bandits.DPUCB": [
        (lambda: bandits.DPUCB(epsilon=1, tree_log_base=3), ValueError, "tree_log_base.*3"),
    ],
    "dpolearn.bandits.DPUCBInt": [
        (lambda: bandits.DPUCBInt(epsilon=1, v=1.0), ValueError, "v.*1"),
    ],
    "dpolearn.bandits.PrivateUCB": [
        (lambda: bandits.PrivateUCB(epsilon=1.0, horizon=1.5), TypeError, "horizon.*1.5"),
        (
            lambda: bandits.PrivateUCB(epsilon=1.0, horizon=100, variant="x"),
            ValueError,
            "variant.*'x'",
        ),
    ],
    "dpolearn.bandits.DPTS": [
        (lambda: bandits.DPTS(epsilon=1, bernoulli_trick="no"), TypeError, "bernoulli_trick.*'no'"),
    ],
    # ---------------------------------------------------------------- full information
    "dpolearn.FTL": [(lambda: dpl.FTL(1), TypeError, "argument")],
    "dpolearn.Hedge": [
        (lambda: dpl.Hedge(learning_rate=0), ValueError, "learning_rate.*0"),
        (lambda: dpl.Hedge(horizon=2.5), TypeError, "horizon.*2.5"),
    ],
    "dpolearn.fullinfo.RNMFTNL": [
        (
            lambda: fullinfo.RNMFTNL(epsilon=1, resample="no"),
            TypeError,
            "resample must be True or False, got 'no'",
        ),
        (lambda: fullinfo.RNMFTNL(epsilon=1, noise="cauchy"), ValueError, "noise.*'cauchy'"),
    ],
    "dpolearn.fullinfo.NaiveFTNL": [
        (
            lambda: fullinfo.NaiveFTNL(epsilon=1, first_action="last"),
            ValueError,
            "first_action.*'last'",
        ),
    ],
    "dpolearn.fullinfo.epoch_sim.epoch_loss_sums": [
        (lambda: epoch_sim.epoch_loss_sums(_two_point(), 0, False, 2, 0), ValueError, "n.*0"),
        (
            lambda: epoch_sim.epoch_loss_sums(_two_point(), 2, "no", 2, 0),
            TypeError,
            "resample.*'no'",
        ),
        (lambda: epoch_sim.epoch_loss_sums([0.2, 0.5], 2, False, 2, 0), TypeError, "instance"),
    ],
    "dpolearn.fullinfo.epoch_sim.exact_regret_deterministic": [
        (
            lambda: epoch_sim.exact_regret_deterministic([0.0, 1.0], epsilon=1.0, horizon=0),
            ValueError,
            "horizon.*0",
        ),
    ],
    "dpolearn.fullinfo.epoch_sim.privacy_loss_two_actions": [
        (lambda: epoch_sim.privacy_loss_two_actions(1.0, noise="normal"), ValueError, "noise"),
    ],
    "dpolearn.fullinfo.epoch_sim.two_action_probability": [
        (
            lambda: epoch_sim.two_action_probability(
                envs.TwoPointExperts.bernoulli([0.1, 0.2, 0.3]), 1, resample=True
            ),
            ValueError,
            "instance",
        ),
        (
            lambda: epoch_sim.two_action_probability(_two_point(), 1, resample=True, scale=-1),
            ValueError,
            "scale.*-1",
        ),
        (
            lambda: epoch_sim.two_action_probability([0.1, 0.2], 1, resample=True),
            TypeError,
            "instance",
        ),
    ],
    # ---------------------------------------------------------------- mechanisms
    "dpolearn.mechanisms.LaplaceMechanism": [
        (lambda: mech.LaplaceMechanism(epsilon=0), ValueError, "epsilon must be .*got 0"),
        (lambda: mech.LaplaceMechanism(epsilon=NAN), ValueError, "epsilon must be .*nan"),
        (lambda: mech.LaplaceMechanism(epsilon=INF), ValueError, "epsilon must be .*inf"),
        (lambda: mech.LaplaceMechanism(epsilon=None), TypeError, "epsilon.*None"),
        (lambda: mech.LaplaceMechanism(epsilon=[1, "a"]), TypeError, "epsilon"),
        (lambda: mech.LaplaceMechanism(epsilon=1.0, sensitivity=0), ValueError, "sensitivity"),
    ],
    "dpolearn.mechanisms.GaussianMechanism": [
        (lambda: mech.GaussianMechanism(sigma=-1), ValueError, "sigma.*-1"),
        (lambda: mech.GaussianMechanism.classical(epsilon=0.5, delta=0), ValueError, "delta"),
    ],
    "dpolearn.mechanisms.ReportNoisyMax": [
        (
            lambda: mech.ReportNoisyMax(epsilon=1.0, monotone="no"),
            TypeError,
            "monotone must be True or False, got 'no'",
        ),
        (lambda: mech.ReportNoisyMax(epsilon=1.0, noise="cauchy"), ValueError, "noise"),
        (lambda: mech.ReportNoisyMax(epsilon=1.0, scale=1.0), ValueError, "exactly one"),
        (
            lambda: mech.ReportNoisyMax(epsilon=1.0).selection_probabilities([1.0]),
            ValueError,
            "scores",
        ),
    ],
    "dpolearn.mechanisms.ExponentialMechanism": [
        (lambda: mech.ExponentialMechanism(epsilon=-1), ValueError, "epsilon.*-1"),
        (
            lambda: mech.ExponentialMechanism(epsilon=1.0, monotone="no"),
            TypeError,
            "monotone.*'no'",
        ),
    ],
    "dpolearn.mechanisms.LazyDoublingPrivateMean": [
        (lambda: mech.LazyDoublingPrivateMean(0, 2, epsilon=1.0), ValueError, "n_runs.*0"),
    ],
    "dpolearn.mechanisms.lazy_schedule": [
        (lambda: mech.lazy_schedule(0), ValueError, "n_pulls.*0"),
        (lambda: mech.lazy_schedule(2.7), ValueError, "n_pulls.*2.7"),
    ],
    "dpolearn.mechanisms.BinaryCounter": [
        # levels=0 is a documented empty tree (the hybrid counter's first epoch), which
        # refuses every item (tests/test_counters.py); negative or fractional levels are errors
        (lambda: mech.BinaryCounter(2, epsilon=1.0, levels=-1), ValueError, "levels.*-1"),
        (lambda: mech.BinaryCounter(2, epsilon=1.0, levels=1.5), TypeError, "levels.*1.5"),
    ],
    "dpolearn.mechanisms.LogarithmicCounter": [
        (lambda: mech.LogarithmicCounter(2, epsilon=0), ValueError, "epsilon.*0"),
    ],
    "dpolearn.mechanisms.HybridCounter": [
        (lambda: mech.HybridCounter(2, epsilon=1.0, split="thirds"), ValueError, "split"),
    ],
    "dpolearn.mechanisms.CounterNoise": [
        (lambda: mech.CounterNoise(2, 2, kind="ternary", epsilon_tree=1.0), ValueError, "kind"),
    ],
    "dpolearn.mechanisms.IntervalLaplaceMean": [
        (
            lambda: mech.IntervalLaplaceMean(2, epsilon=1.0, schedule="never"),
            ValueError,
            "schedule.*'never'",
        ),
    ],
    "dpolearn.mechanisms.calibrate_epsilon": [
        (lambda: mech.calibrate_epsilon(-1.0, 1e-5), ValueError, "epsilon_target.*-1"),
    ],
    "dpolearn.mechanisms.lemma_b1_schedule": [
        (lambda: mech.lemma_b1_schedule(1.0, 1.1, "nope", 10), ValueError, "variant.*'nope'"),
    ],
    # ---------------------------------------------------------------- lower bounds
    "dpolearn.lower_bounds.hu2021_hard_instances": [
        (lambda: lower_bounds.hu2021_hard_instances(1, 0.1), ValueError, "n_arms.*1"),
    ],
    "dpolearn.lower_bounds.product_bernoulli_pmf": [
        (lambda: lower_bounds.product_bernoulli_pmf([1.5, 0.5]), ValueError, "means.*1.5"),
    ],
    "dpolearn.lower_bounds.tv_distance_matrix": [
        (lambda: lower_bounds.tv_distance_matrix("abc"), TypeError, "instances"),
    ],
    "dpolearn.lower_bounds.kl_matrix": [
        (lambda: lower_bounds.kl_matrix([[1.5, 0.5]]), ValueError, "instances.*1.5"),
    ],
    "dpolearn.lower_bounds.tv_witness_set": [
        (lambda: lower_bounds.tv_witness_set(3, 0, 5), ValueError, "j.*5"),
    ],
    "dpolearn.lower_bounds.dp_fano_error_bound": [
        (lambda: lower_bounds.dp_fano_error_bound(3, 10, -1.0, 0.1), ValueError, "epsilon.*-1"),
    ],
    "dpolearn.lower_bounds.fano_error_bound": [
        (lambda: lower_bounds.fano_error_bound(1, 10, 0.1), ValueError, "n_arms.*1"),
    ],
    "dpolearn.lower_bounds.hu2021_sample_complexity": [
        (lambda: lower_bounds.hu2021_sample_complexity(3, 1.0, 0.0), ValueError, "gap.*0"),
    ],
    "dpolearn.lower_bounds.hu2021_theorem12_min_horizon": [
        (lambda: lower_bounds.hu2021_theorem12_min_horizon(4, 0.0, 0.1), ValueError, "epsilon.*0"),
    ],
    "dpolearn.lower_bounds.hu2021_privacy_regret_lower_bound": [
        (
            lambda: lower_bounds.hu2021_privacy_regret_lower_bound(3, 1.0, integer_rounds="no"),
            TypeError,
            "integer_rounds.*'no'",
        ),
    ],
    "dpolearn.lower_bounds.majority_vote": [
        (lambda: lower_bounds.majority_vote([1, 2]), ValueError, "pulls"),
    ],
    "dpolearn.lower_bounds.BatchToOnline": [
        (
            lambda: lower_bounds.BatchToOnline(
                0, np.zeros(1), np.zeros(1), np.zeros(1), np.zeros(1)
            ),
            ValueError,
            "n_samples.*0",
        ),
    ],
    "dpolearn.lower_bounds.batch_to_online": [
        (
            lambda: lower_bounds.batch_to_online(dpl.UCB1, [[0.5, 0.4], [0.4, 0.5]], 0, 2),
            ValueError,
            "n_samples.*0",
        ),
    ],
    "dpolearn.lower_bounds.wu2025_cyclic_instances": [
        (lambda: lower_bounds.wu2025_cyclic_instances(6, -0.1), ValueError, "gap_min.*-0.1"),
    ],
    "dpolearn.lower_bounds.wu2025_near_best_sets": [
        (lambda: lower_bounds.wu2025_near_best_sets(1.5), TypeError, "n_arms.*1.5"),
    ],
    "dpolearn.lower_bounds.wu2025_success_probability_bound": [
        (
            lambda: lower_bounds.wu2025_success_probability_bound(10, 6, 1.0, exponent="x"),
            ValueError,
            "exponent.*'x'",
        ),
    ],
    "dpolearn.lower_bounds.wu2025_regret_lower_bound": [
        (lambda: lower_bounds.wu2025_regret_lower_bound(6, -1.0), ValueError, "epsilon.*-1"),
    ],
    "dpolearn.lower_bounds.wu2025_regret_lower_bound_sum": [
        (lambda: lower_bounds.wu2025_regret_lower_bound_sum(6, 1.0, 0), ValueError, "horizon.*0"),
    ],
    "dpolearn.lower_bounds.lai_robbins_lower_bound": [
        (lambda: lower_bounds.lai_robbins_lower_bound([0.5, 0.4], -5), ValueError, "horizon.*-5"),
    ],
    "dpolearn.lower_bounds.lai_robbins_constant": [
        (lambda: lower_bounds.lai_robbins_constant(["0.5", "0.4"]), TypeError, "means"),
    ],
    "dpolearn.lower_bounds.shariff_sheffet_lower_bound": [
        (
            lambda: lower_bounds.shariff_sheffet_lower_bound([0.5, 0.4], 0.0, 100),
            ValueError,
            "epsilon.*0",
        ),
    ],
    "dpolearn.lower_bounds.private_sub_ucb_rate": [
        (lambda: lower_bounds.private_sub_ucb_rate([0.5, 0.4], 1.0, 0), ValueError, "horizon.*0"),
    ],
    "dpolearn.lower_bounds.azize_basu_minimax_lower_bound": [
        (lambda: lower_bounds.azize_basu_minimax_lower_bound(1, 100, 1.0), ValueError, "n_arms.*1"),
    ],
    # ---------------------------------------------------------------- experiments
    "dpolearn.experiments.Experiment": [
        (lambda: experiments.Experiment("x", "t", "not callable"), TypeError, "compute"),
    ],
    "dpolearn.experiments.cache_dir": [
        (lambda: experiments.cache_dir(1), TypeError, "argument"),
    ],
    "dpolearn.experiments.check_out_dir": [
        (lambda: experiments.check_out_dir(None), TypeError, "out"),
    ],
    "dpolearn.experiments.derive_seed": [
        (lambda: experiments.derive_seed(), ValueError, "derive_seed needs at least one key"),
        (lambda: experiments.derive_seed(object()), TypeError, "derive_seed keys"),
    ],
    "dpolearn.experiments.executor": [
        (lambda: experiments.executor("dask"), TypeError, "argument")
    ],
    "dpolearn.experiments.figure": [
        (lambda: experiments.figure("no-such-figure", {}), ValueError, "no-such-figure"),
    ],
    "dpolearn.experiments.get": [
        (lambda: experiments.get("no-such-figure"), ValueError, "experiment.*no-such-figure"),
    ],
    "dpolearn.experiments.ids": [(lambda: experiments.ids("all"), TypeError, "argument")],
    "dpolearn.experiments.parallel_map": [
        (lambda: experiments.parallel_map(abs, [1], jobs=0), ValueError, "jobs.*0"),
    ],
    "dpolearn.experiments.progress_default": [
        (lambda: experiments.progress_default(True), TypeError, "argument"),
    ],
    "dpolearn.experiments.refresh_session": [
        (lambda: experiments.refresh_session(1), TypeError, "argument"),
    ],
    "dpolearn.experiments.register": [
        (lambda: experiments.register(3, title="t"), TypeError, "id.*3"),
    ],
    "dpolearn.experiments.regret_rows": [
        (lambda: experiments.regret_rows("x", "p", [1.0]), TypeError, "results"),
    ],
    "dpolearn.experiments.run": [
        (lambda: experiments.run("no-such-figure"), ValueError, "no-such-figure"),
        (lambda: experiments.run(experiments.ids()[0], seed=None), TypeError, "seed.*None"),
    ],
    "dpolearn.experiments.scale": [
        (lambda: experiments.scale("huge"), ValueError, "scale.*'huge'")
    ],
    "dpolearn.experiments.set_executor": [
        (lambda: experiments.set_executor("threads"), ValueError, "'threads'"),
    ],
    "dpolearn.experiments.set_scale": [
        (lambda: experiments.set_scale("huge"), ValueError, "'huge'"),
    ],
    "dpolearn.experiments.source_hash": [
        (lambda: experiments.source_hash("x"), TypeError, "argument")
    ],
    "dpolearn.experiments.write_outputs": [
        (
            lambda: experiments.write_outputs("no-such-figure", {}, "/tmp"),
            ValueError,
            "no-such-figure",
        ),
    ],
    # ---------------------------------------------------------------- plotting
    "dpolearn.plotting.use_style": [(lambda: plotting.use_style("dark"), TypeError, "argument")],
    "dpolearn.plotting.color_of": [(lambda: plotting.color_of(3), TypeError, "label.*3")],
    "dpolearn.plotting.mark_reference": [
        (lambda: plotting.mark_reference("a line"), TypeError, "lines.*a line")],
    "dpolearn.plotting.is_reference": [
        (lambda: plotting.is_reference(3), TypeError, "line.*3")],
    "dpolearn.widgets.Slider": [(lambda: dpl.widgets.Slider([2, 1]), ValueError, "values.*2, 1")],
    "dpolearn.widgets.Choice": [(lambda: dpl.widgets.Choice("ab"), TypeError, "options.*ab")],
    "dpolearn.widgets.Fixed": [(lambda: dpl.widgets.Fixed(1, live=3), TypeError, "live.*3")],
    "dpolearn.widgets.interactive": [
        (lambda: dpl.widgets.interactive(print, x=[1, 2]), TypeError, "control 'x'")],
    "dpolearn.widgets.precomputing": [
        (lambda: dpl.widgets.precomputing("fig-x"), TypeError, "argument")],
    "dpolearn.plotting.style_of": [(lambda: plotting.style_of(None), TypeError, "label.*None")],
    "dpolearn.plotting.sweep_styles": [(lambda: plotting.sweep_styles(0), ValueError, "n.*0")],
    "dpolearn.plotting.subplots": [
        (lambda: plotting.subplots(0), ValueError, "nrows.*0"),
    ],
    "dpolearn.plotting.regret": [
        (lambda: plotting.regret([]), ValueError, "results"),
        (lambda: plotting.regret(_result(), band="wide"), ValueError, "band.*'wide'"),
    ],
    "dpolearn.plotting.errorbar": [
        (
            lambda: plotting.errorbar(
                np.ravel(_figure()[1])[0], [1, 2], [1, 2], [0.1, 0.1, 0.1], "x"
            ),
            ValueError,
            "se",
        ),
    ],
    "dpolearn.plotting.shared_legend": [
        (lambda: plotting.shared_legend("fig"), TypeError, "fig"),
    ],
    "dpolearn.plotting.export": [
        (lambda: plotting.export("fig", "name", "out"), TypeError, "fig"),
        (lambda: plotting.export(_figure()[0], "name", None), TypeError, "outdir.*None"),
    ],
    "dpolearn.plotting.export_data": [
        (lambda: plotting.export_data("fig", "name", "out"), TypeError, "fig"),
        (lambda: plotting.export_data(_figure()[0], "a/b", "out"), ValueError, "name.*a/b"),
    ],
}


def _extend_from_live_modules():
    """Cases for public names of modules under active development elsewhere (looked up lazily,
    so this file imports even if one of them is renamed)."""
    more = {}
    try:
        testing = importlib.import_module("dpolearn.testing")
        more["dpolearn.testing.check_policy"] = [
            (lambda: testing.check_policy(dpl.UCB1, horizon=0), ValueError, "horizon.*0")]
        more["dpolearn.testing.as_factory"] = [
            (lambda: testing.as_factory("UCB1"), TypeError, "'UCB1'")]
        more["dpolearn.testing.PolicyCheckReport"] = [
            (lambda: testing.PolicyCheckReport(3), TypeError, "label.*3")]
    except ImportError:
        pass
    try:
        board = importlib.import_module("dpolearn.leaderboard")
        more["dpolearn.leaderboard.evaluate"] = [
            (lambda: board.evaluate(dpl.UCB1, horizon=0), ValueError, "horizon.*0"),
            (lambda: board.evaluate(dpl.UCB1, audit_method="guess"), ValueError,
             "audit_method.*'guess'"),
            (lambda: board.evaluate([]), ValueError, "factory.*\\[\\]")]
        more["dpolearn.leaderboard.Leaderboard"] = [
            (lambda: board.Leaderboard("x", [], {}, (), 0, 1), ValueError, "horizon.*0")]
        more["dpolearn.leaderboard.audit_claim"] = [
            (lambda: board.audit_claim(dpl.UCB1, n_trials=0), ValueError, "n_trials.*0"),
            (lambda: board.audit_claim(dpl.UCB1, method="look"), ValueError, "method.*'look'")]
        more["dpolearn.leaderboard.whitebox_ledger"] = [
            (lambda: board.whitebox_ledger(dpl.UCB1, horizon=0), ValueError, "horizon.*0")]
    except ImportError:
        pass
    return more


# coursework (the problem sets' checks), figure texts, the white-box checker, experiment settings
_VARIANT = {"student": "alice", "set": "set1", "params": {}, "signature": "0"}
CASES.update({
    "dpolearn.coursework.assert_all_close": [
        (lambda: dpl.coursework.assert_all_close({}, [1.0], rel=1e-9, what="q", form="f"),
         TypeError, r"expected.*\[1.0\]")],
    "dpolearn.coursework.assert_close": [
        (lambda: dpl.coursework.assert_close(1.0, 1.0, rel=-1, what="q", form="a number"),
         ValueError, "tolerance.*rel=-1")],
    "dpolearn.coursework.draw": [
        (lambda: dpl.coursework.draw(3, "alice", "set1", {}), ValueError, "term_key.*3")],
    "dpolearn.coursework.fingerprint": [
        (lambda: dpl.coursework.fingerprint("nope"), TypeError, "variant.*'nope'")],
    "dpolearn.coursework.grader_identity": [
        (lambda: dpl.coursework.grader_identity(3), TypeError, "default.*3")],
    "dpolearn.coursework.make_variant": [
        (lambda: dpl.coursework.make_variant("", "alice", "set1", {}), ValueError,
         "term_key.*''")],
    "dpolearn.coursework.sign": [
        (lambda: dpl.coursework.sign(3, "alice", "set1", {}), ValueError, "term_key.*3")],
    "dpolearn.coursework.student_call": [
        (lambda: dpl.coursework.student_call(abs, 1, what=3), TypeError, "what.*3")],
    "dpolearn.coursework.trusted_params": [
        (lambda: dpl.coursework.trusted_params(_VARIANT, ["alice"], "q1_3"), TypeError,
         "issued.*alice")],
    "dpolearn.coursework.verify": [
        (lambda: dpl.coursework.verify(_VARIANT, ""), ValueError, "term_key.*''")],
    "dpolearn.experiments.Setting": [
        (lambda: experiments.Setting("horizon", 3, 1, "the horizon"), TypeError, "check.*3")],
    "dpolearn.experiments.scale_note": [
        (lambda: experiments.scale_note(width=0), ValueError, "width.*0")],
    "dpolearn.experiments.settings": [
        (lambda: experiments.settings("no-such-figure"), ValueError, "no-such-figure")],
    "dpolearn.experiments.start_method": [
        (lambda: experiments.start_method("fork"), TypeError, "argument")],
    "dpolearn.figure_text.describe_axes": [
        (lambda: dpl.figure_text.describe_axes("nope"), TypeError, "ax.*str")],
    "dpolearn.figure_text.describe_figure": [
        (lambda: dpl.figure_text.describe_figure("nope"), TypeError, "fig.*str")],
    "dpolearn.testing.PrivacyCheckReport": [
        (lambda: dpl.testing.PrivacyCheckReport(label=3, guarantee=None), TypeError, "label.*3")],
    "dpolearn.testing.PrivacyFinding": [
        (lambda: dpl.testing.PrivacyFinding(check="nope", message="m"), ValueError,
         "check.*'nope'")],
    "dpolearn.testing.RecordingGenerator": [
        (lambda: dpl.testing.RecordingGenerator(seed=-1), ValueError, "seed.*-1")],
    "dpolearn.testing.check_privacy": [
        (lambda: dpl.testing.check_privacy(dpl.bandits.UCB1, horizon=0), ValueError,
         "horizon.*0")],
})
CASES.update(_extend_from_live_modules())


def _params():
    out = []
    for name, cases in CASES.items():
        for i, case in enumerate(cases):
            call, exc, match = case[:3]
            marks = case[3:] if len(case) > 3 else ()
            out.append(pytest.param(call, exc, match, id=f"{name}-{i}", marks=marks))
    return out


# --------------------------------------------------------------------------- the tests
def test_every_public_name_has_a_bad_input_case():
    covered = set()
    for name in CASES:
        covered.add(id(_resolve(name)))
    missing = sorted(n for key, n in public_callables().items() if key not in covered)
    assert not missing, f"public names without a bad-input case in tests/test_invalid.py: {missing}"


def test_every_case_names_a_public_name():
    public = set(public_callables())
    stray = [name for name in CASES if id(_resolve(name)) not in public]
    assert not stray, f"cases for names that are not public: {stray}"


@pytest.mark.parametrize("call, exc, match", _params())
def test_bad_input_is_a_clear_error(call, exc, match):
    with pytest.raises(exc, match=match) as info:
        call()
    assert isinstance(info.value, (TypeError, ValueError))


def test_check_bool_refuses_truthy_values():
    from dpolearn._validation import check_bool

    for value in ("no", "False", 0, 1, None, [True]):
        with pytest.raises(TypeError, match="flag must be True or False"):
            check_bool("flag", value)
    assert check_bool("flag", np.bool_(True)) is True


def test_as_row_param_refuses_two_dimensional_per_run_values():
    from dpolearn._validation import as_row_param

    with pytest.raises(
        ValueError, match=r"epsilon must be a scalar or have one entry per run \(4\)"
    ):
        as_row_param("epsilon", np.ones((2, 2)), 4)
    assert as_row_param("epsilon", [1.0, 2.0], 2).shape == (2, 1)


def test_check_int_array_refuses_fractions_and_text():
    from dpolearn._validation import check_int_array

    with pytest.raises(ValueError, match="n must hold whole numbers, got 2.7"):
        check_int_array("n", 2.7)
    with pytest.raises(TypeError, match="n must be an integer"):
        check_int_array("n", ["1"])
    assert check_int_array("n", [3, 4.0]).tolist() == [3, 4]


def test_a_new_public_name_without_a_case_is_noticed(monkeypatch):
    def brand_new_function(x):
        return x

    monkeypatch.setattr(envs, "brand_new_function", brand_new_function, raising=False)
    monkeypatch.setattr(envs, "__all__", [*envs.__all__, "brand_new_function"])
    covered = {id(_resolve(name)) for name in CASES}
    missing = [n for key, n in public_callables().items() if key not in covered]
    assert missing == ["dpolearn.envs.brand_new_function"]


# --------------------------------------------------------- bad input that used to get through
class _Counted:
    """A factory that counts its calls, to show that bad input is refused before any work."""

    def __init__(self, make):
        self.make, self.calls = make, 0

    def __call__(self, *args):
        self.calls += 1
        return self.make()


class _RecordingUCB1(dpl.UCB1):
    """UCB1 that records whether the simulator started on it."""

    resets = 0

    def reset(self, n_runs, n_arms, rng):
        type(self).resets += 1
        super().reset(n_runs, n_arms, rng)


def _export_dirs(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    return a_file, a_file / "below"


@pytest.mark.parametrize("call, exc, match", [
    (lambda: mech.LaplaceMechanism(epsilon=1).randomise(NAN), ValueError, "value.*nan"),
    (lambda: mech.LaplaceMechanism(epsilon=1).randomise([0.0, INF]), ValueError, "value.*inf"),
    (lambda: mech.ReportNoisyMax(epsilon=1).selection_probabilities([NAN, 0.0]), ValueError,
     "scores.*nan"),
    (lambda: bandits.DPUCBInt.from_target("0.5"), TypeError, "epsilon_target.*'0.5'"),
    (lambda: accounting.gdp_epsilon_from_log_delta(-INF, 1.0), ValueError, "log_delta.*-inf"),
    (lambda: mech.CounterNoise(2, 2, kind="hybrid", epsilon_tree=1.0, epsilon_log=-1.0),
     ValueError, "epsilon_log.*-1.0"),
    (lambda: mech.CounterNoise(2, 2, kind="binary", epsilon_tree="1", levels=3), TypeError,
     "epsilon_tree.*'1'"),
    (lambda: mech.CounterNoise(2, 2, kind="hybrid", epsilon_tree=1.0), TypeError,
     "epsilon_log.*None"),
    (lambda: experiments.engine.columns([{"epsilon": 1.0}], 0), ValueError, "n_runs.*0"),
    (lambda: experiments.engine.columns([{"epsilon": 1.0}], 2.5), TypeError, "n_runs.*2.5"),
    (lambda: experiments.set_executor("dask", scheduler=8786), TypeError, "scheduler.*8786"),
    (lambda: experiments.set_executor("dask", scheduler=" "), ValueError, "scheduler.*' '"),
])
def test_bad_input_that_used_to_get_through(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_set_executor_checks_its_argument_before_importing_dask(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)     # `import distributed` fails
    with pytest.raises(TypeError, match="scheduler.*8786"):
        experiments.set_executor("dask", scheduler=8786)
    with pytest.raises(ImportError):
        experiments.set_executor("dask", scheduler="tcp://127.0.0.1:1")


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"raise_on_fail": "no"}, TypeError, "raise_on_fail.*'no'"),
    ({"raise_on_fail": 0}, TypeError, "raise_on_fail.*0"),
])
def test_check_policy_refuses_a_truthy_flag_before_any_work(kwargs, exc, match):
    from dpolearn.testing import check_policy

    factory = _Counted(dpl.UCB1)
    with pytest.raises(exc, match=match):
        check_policy(factory, **kwargs)
    assert factory.calls == 0


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"audit": "no"}, TypeError, "audit.*'no'"),
    ({"audit": False, "audit_trials": 0}, ValueError, "audit_trials.*0"),
    ({"audit": True, "audit_trials": 2.5}, TypeError, "audit_trials.*2.5"),
])
def test_evaluate_refuses_bad_audit_arguments_before_any_work(kwargs, exc, match):
    from dpolearn.leaderboard import evaluate

    factory = _Counted(lambda: bandits.AnytimeLazyUCB(epsilon=1.0))
    with pytest.raises(exc, match=match):
        evaluate(factory, algorithms=["DP-SE"], epsilons=[1.0], horizon=50, n_runs=2, **kwargs)
    assert factory.calls == 0


def test_sweep_refuses_n_runs_before_building_the_policy():
    from dpolearn.experiments import engine

    built = []
    with pytest.raises(ValueError, match="n_runs must be >= 1, got 0"):
        engine.sweep(lambda cols: built.append(cols), envs.BernoulliBandit([0.9, 0.5]), 10,
                     [{"epsilon": 1.0}], 0, 0, checkpoints="log")
    assert built == []


def test_simulate_refuses_a_bad_progress_variable_before_running(monkeypatch):
    monkeypatch.setenv("DPOLEARN_PROGRESS", "maybe")
    _RecordingUCB1.resets = 0
    with pytest.raises(ValueError, match="DPOLEARN_PROGRESS.*'maybe'"):
        dpl.simulate(_RecordingUCB1(), envs.BernoulliBandit([0.9, 0.5]), 10)
    assert _RecordingUCB1.resets == 0
    # an explicit progress argument does not read the variable
    dpl.simulate(_RecordingUCB1(), envs.BernoulliBandit([0.9, 0.5]), 10, progress=False)


def test_beta_thompson_sampling_refuses_unbounded_rewards_with_a_clear_message():
    policy = bandits.BetaTS()
    with pytest.raises(ValueError, match=r"env must give values in \[0.0, 1.0\] for TS \(Beta\)"
                                         r".*GaussianBandit.*\[-inf, inf\]"):
        dpl.simulate(policy, envs.GaussianBandit([0.1, 0.0]), 1000, n_runs=10)
    assert not hasattr(policy, "sums_"), "refused before the policy was reset"


def test_export_refuses_bad_directories_by_name(tmp_path):
    fig, _ = _figure()
    a_file, below_a_file = _export_dirs(tmp_path)
    with pytest.raises(ValueError, match="outdir must be a directory, got .*a-file.*existing file"):
        plotting.export(fig, "demo", a_file)
    with pytest.raises(ValueError, match="outdir must be a writable directory, got .*below"):
        plotting.export(fig, "demo", below_a_file)
    with pytest.raises(TypeError, match="outdir must be a directory path, got 5"):
        plotting.export(fig, "demo", 5)
    with pytest.raises(ValueError, match="outdir must be a directory path, got ''"):
        plotting.export(fig, "demo", "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"], "nothing written"
