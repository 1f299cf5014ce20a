"""Check a policy: the contract every policy of the book keeps, and its privacy claim.

:func:`check_policy` runs one configured policy (yours or the book's) through the properties
the simulator, the auditor and the experiments rely on, in the spirit of scikit-learn's
``check_estimator``: every check runs, every failure is collected with a message saying what
was expected and what happened, and the result is one :class:`PolicyCheckReport`.

The checks, by name:

``interface``
    The object is a :class:`~dpolearn.policy.Policy` with a string ``label`` and ``feedback``
    equal to ``"bandit"`` or ``"full"``.
``feedback``
    The policy runs on an environment of its own feedback kind: a bandit policy receives the
    pulled arm's reward, shape (n_runs,); a full-information one the whole loss vector,
    shape (n_runs, n_arms).
``select_shape``
    ``select(t)`` returns an integer array of shape (n_runs,) in every round.
``arms_in_range``
    Every selected arm is in ``0 .. n_arms - 1`` (arms are 0-based).
``rounds``
    Rounds are 1-based: the policy is driven with t = 1, ..., T and must not fail at the
    first round or at round T (where 0-based bookkeeping usually breaks), and the pull counts
    of a simulation add up to T in every run.
``reproducible``
    The same seed gives bit-identical action sequences and regret curves.
``no_global_rng``
    Neither numpy's legacy global generator nor Python's ``random`` module is used: their states
    are unchanged by a simulation, and reseeding them does not change its results.
``batch_equals_single``
    A batch of n runs behaves like n separate single runs. For a policy whose actions do not
    depend on its random stream (checked on two seeds), every row of a batch on a replayed
    reward table equals the single run exactly; otherwise the mean final regret of a batch
    and of ``n`` single runs (``n_runs=1``) agree within four standard errors.
``guarantee``
    ``guarantee`` is a record of :mod:`dpolearn.accounting` (``PureDP``, ``ApproxDP``,
    ``GaussianDP`` or ``NotPrivate``) that passes the record's own validation, before and after
    ``reset``, with a scalar or one entry per run.
``params_repr``
    ``params()`` is a dict, and ``eval(repr(policy))`` in a namespace holding the policy's
    class (and numpy as ``np``, ``array``, ``inf``, ``nan``) builds a policy with equal
    ``params()``.
``bad_epsilon``
    If the policy takes a privacy parameter ``epsilon`` (in ``params()`` or as an attribute), the
    factory raises ``ValueError`` or ``TypeError`` naming ``epsilon`` for 0, -1, nan and the
    string ``"1"`` (for a policy given as an instance or a zero-argument callable, its class is
    rebuilt from ``params()`` with that ``epsilon``).

What the checks cannot see: whether the stated guarantee is *true*. That is the job of
:func:`check_privacy` (white-box: the releases of the package's mechanisms, replayed on
neighbouring reward streams, and a ledger of which rewards entered which release, composed
against the guarantee) and of the audits of :mod:`dpolearn.audit` (black-box lower bounds on
neighbouring reward tables) and :func:`dpolearn.leaderboard.audit_claim`.

Examples
--------
>>> from dpolearn import UCB1
>>> report = check_policy(UCB1, horizon=60, n_runs=4, n_single=8)
>>> report.ok
True
"""
from __future__ import annotations

import copy
import inspect
import math
import random
import sys
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Callable, List, Tuple

import numpy as np

from ._validation import check_bool, check_positive, check_positive_int
from .accounting import (
    ApproxDP,
    GaussianDP,
    NotPrivate,
    PureDP,
    compose,
    heterogeneous_advanced_composition,
)
from .audit import sample_actions
from .envs import BernoulliBandit, BernoulliExperts
from .mechanisms.ledger import recording
from .policy import Policy
from .simulate import simulate

__all__ = ["check_policy", "PolicyCheckReport", "PolicyContractError", "as_factory",
           "CHECKS", "check_privacy", "PrivacyCheckReport", "PrivacyFinding", "PrivacyCheckError",
           "PRIVACY_CHECKS", "RecordingGenerator"]

#: The names of the checks, in the order they run.
CHECKS = ("interface", "feedback", "select_shape", "arms_in_range", "rounds", "reproducible",
          "no_global_rng", "batch_equals_single", "guarantee", "params_repr", "bad_epsilon")

_RECORDS = (PureDP, ApproxDP, GaussianDP, NotPrivate)
_BAD_EPSILONS = (0.0, -1.0, float("nan"), "1")


class PolicyContractError(AssertionError):
    """Raised by :func:`check_policy` when at least one check fails; lists every failure."""


@dataclass
class PolicyCheckReport:
    """The outcome of :func:`check_policy`.

    Attributes
    ----------
    label : str
        The checked policy's ``label`` (or its type name when it has none).
    passed : list of str
        Names of the checks that passed.
    failures : list of (str, str)
        ``(check name, message)`` for every check that failed.
    skipped : list of (str, str)
        ``(check name, reason)`` for checks that do not apply (e.g. ``bad_epsilon`` for a
        policy without ``epsilon``) or could not run because an earlier check failed.
    """

    label: str
    passed: List[str] = field(default_factory=list)
    failures: List[Tuple[str, str]] = field(default_factory=list)
    skipped: List[Tuple[str, str]] = field(default_factory=list)

    def __post_init__(self):
        if not isinstance(self.label, str):
            raise TypeError(f"label must be a str, got {self.label!r}")
        if not isinstance(self.passed, list) or not all(isinstance(n, str) for n in self.passed):
            raise TypeError(f"passed must be a list of check names, got {self.passed!r}")
        for name in ("failures", "skipped"):
            value = getattr(self, name)
            if not isinstance(value, list) or not all(
                    isinstance(v, tuple) and len(v) == 2 and all(isinstance(s, str) for s in v)
                    for v in value):
                raise TypeError(f"{name} must be a list of (check, message) pairs of str, "
                                f"got {value!r}")

    @property
    def ok(self) -> bool:
        """True when no check failed."""
        return not self.failures

    @property
    def failed(self) -> List[str]:
        """Names of the failed checks."""
        return [name for name, _ in self.failures]

    def __str__(self) -> str:
        head = (f"{self.label}: {len(self.passed)} checks passed, {len(self.failures)} failed, "
                f"{len(self.skipped)} skipped")
        lines = [head]
        lines += [f"  FAILED {name}: {msg}" for name, msg in self.failures]
        lines += [f"  skipped {name}: {why}" for name, why in self.skipped]
        return "\n".join(lines)


# ------------------------------------------------------------------ factories
def as_factory(policy_or_factory: Any) -> Callable[[Any, int], Policy]:
    """A callable ``(epsilon, horizon) -> Policy`` from a Policy subclass or such a callable.

    A :class:`~dpolearn.policy.Policy` subclass is called with the keyword arguments
    ``epsilon`` and ``horizon`` that its ``__init__`` accepts (``UCB1`` gets neither,
    ``DPSE`` both); any other callable is returned as it is and must accept
    ``(epsilon, horizon)`` positionally.
    """
    obj = policy_or_factory
    if isinstance(obj, type) and issubclass(obj, Policy):
        accepted = inspect.signature(obj.__init__).parameters

        def factory(epsilon, horizon):
            kwargs = {}
            if "epsilon" in accepted:
                kwargs["epsilon"] = epsilon
            if "horizon" in accepted:
                kwargs["horizon"] = horizon
            return obj(**kwargs)

        factory.__name__ = obj.__name__
        return factory
    if isinstance(obj, Policy):
        raise TypeError(f"policy_or_factory must be a Policy subclass or a callable "
                        f"(epsilon, horizon) -> Policy returning a fresh policy, got the "
                        f"instance {obj!r}")
    if not callable(obj):
        raise TypeError(f"policy_or_factory must be a Policy subclass or a callable "
                        f"(epsilon, horizon) -> Policy, got {obj!r}")
    return obj


def _contract_factory(obj: Any) -> Tuple[Callable[[Any, int], Policy], Callable[[Any], Policy]]:
    """``(factory, with_epsilon)`` for :func:`check_policy`.

    ``factory(epsilon, horizon)`` builds a fresh policy; ``with_epsilon(value, horizon)`` builds
    one with that privacy parameter (for the ``bad_epsilon`` check; ``None``: its own). A
    Policy subclass or a two-argument callable gets ``epsilon`` and ``horizon``; a policy
    instance is copied, and a zero-argument callable is called, and both keep their own
    configuration, so ``with_epsilon`` rebuilds their class from ``params()`` with ``epsilon``
    replaced.
    """
    if isinstance(obj, Policy):
        def factory(epsilon, horizon):
            return copy.deepcopy(obj)
    elif callable(obj) and not isinstance(obj, type) and _takes_no_arguments(obj):
        def factory(epsilon, horizon):
            return obj()
    else:
        factory = as_factory(obj)
        return factory, factory

    def with_epsilon(value, horizon):
        policy = factory(None, None)
        params = policy.params()
        if value is not None:
            params["epsilon"] = value
        return type(policy)(**params)

    factory.__name__ = getattr(obj, "__name__", type(obj).__name__)
    return factory, with_epsilon


def _takes_no_arguments(fn: Callable) -> bool:
    """Whether ``fn`` is called with no argument and cannot take ``(epsilon, horizon)``."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    try:
        signature.bind(None, None)
    except TypeError:
        try:
            signature.bind()
        except TypeError:
            return False
        return True
    return False


# ------------------------------------------------------------------ helpers
def _test_env(feedback: str, n_arms: int):
    means = np.linspace(0.7, 0.3, n_arms)
    if feedback == "full":
        return BernoulliExperts(1.0 - means, kind="loss")
    return BernoulliBandit(means)


def _replay_table(horizon: int, n_arms: int, seed: int = 12345) -> np.ndarray:
    """A fixed 0/1 table (rewards or losses), the same for every run."""
    rng = np.random.default_rng(seed)
    return (rng.random((horizon, n_arms)) < np.linspace(0.7, 0.3, n_arms)).astype(float)


def _values_equal(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_values_equal(a[k], b[k]) for k in a)
    if isinstance(a, (np.ndarray, list, tuple)) or isinstance(b, (np.ndarray, list, tuple)):
        try:
            return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
        except TypeError:
            return np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _global_rng_states():
    # the legacy global generator is what a careless policy would use: save it to restore it
    return np.random.get_state(), random.getstate()  # noqa: NPY002


def _states_equal(s1, s2) -> bool:
    (np1, py1), (np2, py2) = s1, s2
    return (np1[0] == np2[0] and np.array_equal(np1[1], np2[1]) and np1[2:] == np2[2:]
            and py1 == py2)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


# ------------------------------------------------------------------ the checks
class _Checker:
    def __init__(self, factory, with_epsilon, epsilon, horizon, n_runs, n_arms, n_single, seed):
        self.factory, self.with_epsilon = factory, with_epsilon
        self.epsilon, self.horizon = epsilon, horizon
        self.n_runs, self.n_arms, self.n_single, self.seed = n_runs, n_arms, n_single, seed

    def fresh(self) -> Policy:
        return self.factory(self.epsilon, self.horizon)

    def simulate(self, n_runs, seed, policy=None):
        policy = self.fresh() if policy is None else policy
        return simulate(policy, _test_env(policy.feedback, self.n_arms), self.horizon, n_runs,
                        seed=seed, progress=False)

    def actions(self, n_runs, seed):
        table = _replay_table(self.horizon, self.n_arms)
        return sample_actions(self.fresh(), table, n_runs, seed=seed)

    # -- interface and driving by hand
    def interface(self, policy):
        problems = []
        if not isinstance(policy, Policy):
            return [
                f"the factory must return a dpolearn.policy.Policy, got {type(policy).__name__}"
            ]
        if not isinstance(getattr(policy, "label", None), str):
            problems.append(f"label must be a str, got {getattr(policy, 'label', None)!r}")
        if getattr(policy, "feedback", None) not in ("bandit", "full"):
            problems.append(f"feedback must be 'bandit' or 'full', got "
                            f"{getattr(policy, 'feedback', None)!r}")
        return problems

    def drive(self, report):
        """Play the policy round by round; fills feedback, select_shape, arms_in_range, rounds."""
        policy = self.fresh()
        env = _test_env(policy.feedback, self.n_arms)
        n, K = self.n_runs, self.n_arms
        env.reset(n, np.random.default_rng(1))
        shape_bad = range_bad = None
        try:
            policy.reset(n, K, np.random.default_rng(2))
        except Exception as exc:
            report.failures.append(("rounds", f"reset(n_runs={n}, n_arms={K}, rng) raised "
                                              f"{_describe(exc)}"))
            return
        for t in range(1, self.horizon + 1):
            stage = "select"
            try:
                arms = policy.select(t)
                arr = np.asarray(arms)
                if shape_bad is None and (not isinstance(arms, np.ndarray) or arr.shape != (n,)
                                          or not np.issubdtype(arr.dtype, np.integer)):
                    shape_bad = (f"select({t}) must return an integer ndarray of shape ({n},), "
                                 f"got {type(arms).__name__} of shape {arr.shape} and dtype "
                                 f"{arr.dtype}")
                if np.issubdtype(arr.dtype, np.number) and arr.shape == (n,):
                    outside = (arr < 0) | (arr >= K) | (arr != np.round(arr))
                    if range_bad is None and np.any(outside):
                        range_bad = (f"select({t}) returned arms {arr.tolist()}, outside "
                                     f"0..{K - 1}")
                    arms = np.clip(arr, 0, K - 1).astype(np.int64)
                else:
                    arms = np.zeros(n, dtype=np.int64)
                stage = "update"
                if policy.feedback == "bandit":
                    fb = env.pull(t, arms)
                else:
                    fb = env.losses(t)
                policy.update(t, arms, fb)
            except Exception as exc:
                where = ("the first round (rounds are 1-based)" if t == 1 else
                         f"the last round T = {self.horizon}" if t == self.horizon else
                         f"round {t}")
                # a defect of the feedback format shows in the first updates; one of 0-based
                # bookkeeping in select, or at the last round
                name = "feedback" if stage == "update" and t < self.horizon else "rounds"
                kind = ("a reward array of shape (n_runs,)" if policy.feedback == "bandit"
                        else "a loss array of shape (n_runs, n_arms)")
                msg = f"{stage}({t}, ...) raised {_describe(exc)} at {where}"
                if stage == "update":
                    msg += f"; a {policy.feedback!r} policy receives {kind}"
                report.failures.append((name, msg))
                for other in ("select_shape", "arms_in_range"):
                    report.skipped.append((other, f"the drive stopped at round {t}"))
                return
        for name, bad in (("select_shape", shape_bad), ("arms_in_range", range_bad)):
            if bad is None:
                report.passed.append(name)
            else:
                report.failures.append((name, bad))
        report.passed.append("feedback")
        report.passed.append("rounds")

    def pull_counts(self):
        res = self.simulate(self.n_runs, self.seed)
        total = res.pulls.sum(axis=1)
        if not np.all(total == self.horizon):
            return [f"pull counts add up to {sorted(set(total.tolist()))} per run, not T = "
                    f"{self.horizon}"]
        return []

    def reproducible(self):
        a1 = self.actions(self.n_runs, self.seed)
        a2 = self.actions(self.n_runs, self.seed)
        r1 = self.simulate(self.n_runs, self.seed)
        r2 = self.simulate(self.n_runs, self.seed)
        problems = []
        if not np.array_equal(a1, a2):
            problems.append("two runs with the same seed chose different actions "
                            f"(first difference at round {int(np.argmax((a1 != a2).any(0))) + 1})")
        if not (np.array_equal(r1.regret, r2.regret) and np.array_equal(r1.pulls, r2.pulls)):
            problems.append("two simulations with the same seed gave different regret")
        return problems

    def no_global_rng(self):
        problems = []
        before = _global_rng_states()
        first = self.simulate(self.n_runs, self.seed)
        after = _global_rng_states()
        if not _states_equal(before, after):
            problems.append("a simulation changed the state of the global RNG (np.random.* or "
                            "random.*): draw only from the rng given to reset")
        saved = _global_rng_states()
        try:
            np.random.seed(987654)  # noqa: NPY002 (perturb the global state on purpose)
            random.seed(987654)
            second = self.simulate(self.n_runs, self.seed)
        finally:
            np.random.set_state(saved[0])  # noqa: NPY002
            random.setstate(saved[1])
        if not np.array_equal(first.regret, second.regret):
            problems.append("results changed when the global RNG was reseeded")
        return problems

    def batch_equals_single(self):
        a = self.actions(1, 1)
        b = self.actions(1, 2)
        if np.array_equal(a, b):
            # the actions do not depend on the random stream: rows must equal the single run
            batch = self.actions(self.n_runs, 3)
            rows = np.flatnonzero(~np.all(batch == a, axis=1))
            if rows.size:
                return [f"the policy looks deterministic (equal actions on two seeds), but rows "
                        f"{rows.tolist()} of a batch of {self.n_runs} on the same reward table "
                        f"differ from the single run"]
            return []
        n = self.n_single
        batch = self.simulate(n, self.seed)
        single = np.array([self.simulate(1, np.random.SeedSequence([self.seed, 1, i])).final_mean
                           for i in range(n)])
        se = math.hypot(batch.final_se, single.std(ddof=1) / math.sqrt(n))
        diff = abs(batch.final_mean - single.mean())
        if diff > 4 * se + 1e-12:
            return [f"mean final regret of a batch of {n} runs ({batch.final_mean:.4g}) and of "
                    f"{n} single runs ({single.mean():.4g}) differ by {diff:.3g} > 4 standard "
                    f"errors ({4 * se:.3g}): runs of a batch must be independent copies"]
        return []

    def guarantee(self):
        problems = []
        policy = self.fresh()
        for when in ("before reset", "after reset"):
            if when == "after reset":
                try:
                    policy.reset(self.n_runs, self.n_arms, np.random.default_rng(0))
                except Exception as exc:
                    problems.append(f"reset raised {_describe(exc)}")
                    break
            try:
                g = policy.guarantee
            except Exception as exc:
                problems.append(f"reading guarantee {when} raised {_describe(exc)}")
                continue
            if not isinstance(g, _RECORDS):
                problems.append(f"guarantee {when} must be PureDP, ApproxDP, GaussianDP or "
                                f"NotPrivate from dpolearn.accounting, got {g!r}")
                continue
            if is_dataclass(g):
                values = {f.name: getattr(g, f.name) for f in fields(g)}
                try:
                    type(g)(**values)
                except (TypeError, ValueError) as exc:
                    problems.append(f"guarantee {when} {g!r} is not a valid record: {exc}")
                for name, v in values.items():
                    shape = np.shape(v)
                    if shape not in ((), (self.n_runs,)) and when == "after reset":
                        problems.append(f"guarantee field {name} has shape {shape}; expected a "
                                        f"scalar or one entry per run ({self.n_runs},)")
        return problems

    def params_repr(self):
        policy = self.fresh()
        try:
            params = policy.params()
        except Exception as exc:
            return [f"params() raised {_describe(exc)}"]
        if not isinstance(params, dict):
            return [f"params() must return a dict, got {type(params).__name__}"]
        text = repr(policy)
        namespace = {type(policy).__name__: type(policy), "np": np, "array": np.array,
                     "inf": math.inf, "nan": math.nan}
        try:
            rebuilt = eval(text, namespace)        # the check is defined by eval(repr(policy))
        except Exception as exc:
            return [f"eval(repr(policy)) failed for {text!r}: {_describe(exc)}; repr must show "
                    f"the constructor arguments (params() gives them)"]
        try:
            same = _values_equal(rebuilt.params(), params)
        except Exception as exc:
            return [f"params() of the rebuilt policy could not be compared: {_describe(exc)}"]
        if not same:
            return [f"eval(repr(policy)) has params {rebuilt.params()!r}, not {params!r}"]
        return []

    def bad_epsilon(self):
        policy = self.fresh()
        try:
            takes = "epsilon" in policy.params() or hasattr(policy, "epsilon")
        except Exception:
            takes = hasattr(policy, "epsilon")
        if not takes:
            return None
        if self.with_epsilon is not self.factory:
            try:
                self.with_epsilon(None, self.horizon)
            except Exception as exc:
                return [f"the policy could not be rebuilt from its params() "
                        f"({_describe(exc)}): params() must give the constructor arguments"]
        problems = []
        for bad in _BAD_EPSILONS:
            try:
                self.with_epsilon(bad, self.horizon)
            except (ValueError, TypeError) as exc:
                if "epsilon" not in str(exc):
                    problems.append(f"epsilon={bad!r} raised {_describe(exc)}, whose message "
                                    f"does not name epsilon")
            except Exception as exc:
                problems.append(f"epsilon={bad!r} raised {_describe(exc)}; expected ValueError "
                                f"or TypeError naming epsilon")
            else:
                problems.append(f"epsilon={bad!r} was accepted; expected ValueError or "
                                f"TypeError naming epsilon")
        return problems


def check_policy(policy_or_factory, *, epsilon: float = 1.0, horizon: int = 200,
                 n_runs: int = 8, n_arms: int = 3, n_single: int = 40, seed: int = 0,
                 raise_on_fail: bool = True) -> PolicyCheckReport:
    """Run the policy contract of the book on a policy and report every broken property.

    Parameters
    ----------
    policy_or_factory : Policy subclass, Policy instance, or callable
        What builds the policy checked, in one of four forms:

        * a Policy subclass (``check_policy(MyPolicy)``), called with the ``epsilon`` and
          ``horizon`` below when its ``__init__`` accepts them (wrapped by
          :func:`as_factory`);
        * a callable ``(epsilon, horizon) -> Policy`` returning a fresh configured policy;
        * a zero-argument callable (``check_policy(lambda: MyPolicy(epsilon=0.5))``), called
          for each fresh policy;
        * a configured instance (``check_policy(MyPolicy(epsilon=0.5))``), deep-copied for
          each fresh policy (it is never reset or run itself).

        The last two keep their own configuration: ``epsilon`` and ``horizon`` below are
        ignored, and ``bad_epsilon`` rebuilds the policy's class from its ``params()`` with
        ``epsilon`` replaced.
    epsilon : float
        The privacy parameter of the configuration checked, > 0 (classes and two-argument
        callables only).
    horizon : int
        Rounds per simulation, >= 2.
    n_runs : int
        Runs per batch, >= 2.
    n_arms : int
        Arms (or experts) of the test environments, >= 2.
    n_single : int
        Runs of the statistical batch-versus-single comparison, >= 4 (used only for policies
        whose actions depend on their random stream).
    seed : int
        Seed of every simulation, >= 0; the checks are deterministic given it.
    raise_on_fail : bool
        If True (default), raise :class:`PolicyContractError` listing every failed check;
        if False, return the report and let the caller look at ``report.failures``.

    Returns
    -------
    PolicyCheckReport
        ``.ok``, ``.passed``, ``.failures`` (name, message), ``.skipped``.

    Raises
    ------
    PolicyContractError
        With ``raise_on_fail=True``, when a check fails (an ``AssertionError``).

    Notes
    -----
    The check names and what each one tests are listed in the module docstring
    (:mod:`dpolearn.testing`). A check that raises an unexpected exception is reported as
    failed with that exception. Later checks that need a working simulation are skipped when
    the interface or the round-by-round drive already failed.
    """
    factory, with_epsilon = _contract_factory(policy_or_factory)
    check_positive("epsilon", epsilon)
    horizon = check_positive_int("horizon", horizon, minimum=2)
    n_runs = check_positive_int("n_runs", n_runs, minimum=2)
    n_arms = check_positive_int("n_arms", n_arms, minimum=2)
    n_single = check_positive_int("n_single", n_single, minimum=4)
    seed = check_positive_int("seed", seed, minimum=0)
    raise_on_fail = check_bool("raise_on_fail", raise_on_fail)
    checker = _Checker(factory, with_epsilon, epsilon, horizon, n_runs, n_arms, n_single, seed)

    try:
        policy = checker.fresh()
    except Exception as exc:
        raise TypeError(f"policy_or_factory(epsilon={epsilon!r}, horizon={horizon!r}) must "
                        f"build a policy, but raised {_describe(exc)}") from exc
    label = getattr(policy, "label", None)
    report = PolicyCheckReport(label=label if isinstance(label, str) else type(policy).__name__)

    problems = checker.interface(policy)
    if problems:
        report.failures.append(("interface", "; ".join(problems)))
        for name in CHECKS[1:]:
            report.skipped.append((name, "the interface check failed"))
        return _finish(report, raise_on_fail)
    report.passed.append("interface")

    checker.drive(report)
    drive_failed = any(name in ("rounds", "feedback") for name in report.failed)

    def run(name, fn, needs_simulation=True):
        if needs_simulation and drive_failed:
            if name not in report.failed:
                report.skipped.append((name, "the policy could not be driven for T rounds"))
            return
        try:
            problems = fn()
        except Exception as exc:
            problems = [f"raised {_describe(exc)}"]
        if problems is None:
            report.skipped.append((name, "the policy has no epsilon parameter"))
        elif problems:
            report.failures.append((name, "; ".join(problems)))
        elif name not in report.passed and name not in report.failed:
            report.passed.append(name)

    run("rounds", checker.pull_counts)
    if "rounds" in report.failed and "rounds" in report.passed:
        report.passed.remove("rounds")          # driven by hand, but the simulator disagrees
    run("reproducible", checker.reproducible)
    run("no_global_rng", checker.no_global_rng)
    run("batch_equals_single", checker.batch_equals_single)
    run("guarantee", checker.guarantee, needs_simulation=False)
    run("params_repr", checker.params_repr, needs_simulation=False)
    run("bad_epsilon", checker.bad_epsilon, needs_simulation=False)
    order = {name: i for i, name in enumerate(CHECKS)}
    report.passed.sort(key=order.get)
    report.failures.sort(key=lambda f: order.get(f[0], len(CHECKS)))
    return _finish(report, raise_on_fail)


def _finish(report: PolicyCheckReport, raise_on_fail: bool) -> PolicyCheckReport:
    if raise_on_fail and not report.ok:
        raise PolicyContractError(str(report))
    return report


# =================================================================== the privacy checker
#: The names of the checks of :func:`check_privacy`, in the order they are reported.
PRIVACY_CHECKS = ("mechanisms_only", "release_only", "sensitivity", "ledger", "noise")

_NOISE_METHODS = ("laplace", "normal", "gumbel", "exponential", "standard_normal",
                  "standard_exponential")


class RecordingGenerator(np.random.Generator):
    """A numpy Generator that logs every noise draw; in unit mode each standardised noise is +1.

    ``calls`` holds ``(method, scale, output)`` for every Laplace, Gaussian, Gumbel and
    exponential draw; ``outside`` holds ``(method, module)`` for those drawn by code outside
    the ``dpolearn`` package (a policy adding its own noise). Other methods (uniforms, Beta,
    binomial, integers) are the real ones. In unit mode (``unit=True``) every such draw
    returns ``loc + scale``: a release ``value + b * Z`` then shows ``value + b``, so the scale
    really used can be read off the release, whatever arithmetic produced it.

    Parameters
    ----------
    seed : int
        Seed of the underlying PCG64 stream (the non-noise draws are those of
        ``np.random.Generator(np.random.PCG64(seed))``).
    unit : bool
        Unit mode (see above).
    """

    def __init__(self, seed: int = 0, *, unit: bool = False):
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
        super().__init__(np.random.PCG64(seed))
        self.unit = check_bool("unit", unit)
        self.calls = []
        self.outside = []

    def _noise(self, method, loc, scale, size, real):
        module = sys._getframe(2).f_globals.get("__name__", "")   # who called rng.<method>
        if not (module == "dpolearn" or module.startswith("dpolearn.")):
            self.outside.append((method, module))
        if self.unit:
            shape = (size if size is not None
                     else np.broadcast(np.asarray(loc), np.asarray(scale)).shape)
            out = np.broadcast_to(np.asarray(loc, dtype=float) + np.asarray(scale, dtype=float),
                                  shape).astype(float)
            out = float(out) if out.ndim == 0 else out
        else:
            out = real()
        self.calls.append((method, np.array(scale, dtype=float), np.array(out, dtype=float)))
        return out

    def laplace(self, loc=0.0, scale=1.0, size=None):
        """Laplace draws, logged (unit mode: ``loc + scale``)."""
        return self._noise("laplace", loc, scale, size,
                           lambda: np.random.Generator.laplace(self, loc, scale, size))

    def normal(self, loc=0.0, scale=1.0, size=None):
        """Normal draws, logged (unit mode: ``loc + scale``)."""
        return self._noise("normal", loc, scale, size,
                           lambda: np.random.Generator.normal(self, loc, scale, size))

    def gumbel(self, loc=0.0, scale=1.0, size=None):
        """Gumbel draws, logged (unit mode: ``loc + scale``)."""
        return self._noise("gumbel", loc, scale, size,
                           lambda: np.random.Generator.gumbel(self, loc, scale, size))

    def exponential(self, scale=1.0, size=None):
        """Exponential draws, logged (unit mode: ``scale``)."""
        return self._noise("exponential", 0.0, scale, size,
                           lambda: np.random.Generator.exponential(self, scale, size))

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        """Standard normal draws, logged (unit mode: 1)."""
        return self._noise("standard_normal", 0.0, 1.0, size,
                           lambda: np.random.Generator.standard_normal(self, size))

    def standard_exponential(self, size=None, dtype=np.float64, method="zig", out=None):
        """Standard exponential draws, logged (unit mode: 1)."""
        return self._noise("standard_exponential", 0.0, 1.0, size,
                           lambda: np.random.Generator.standard_exponential(self, size))

    def draws(self, method, since=0):
        """Calls of ``method`` from index ``since`` on."""
        return [c for c in self.calls[since:] if c[0] == method]


@dataclass
class PrivacyFinding:
    """One failed check of :func:`check_privacy`.

    Attributes
    ----------
    check : str
        One of :data:`PRIVACY_CHECKS`.
    message : str
        What was expected and what happened.
    round : int or None
        The round (1-based) where it showed: the first changed action, the release.
    reward_round : int or None
        The round whose reward was changed (release-only, sensitivity, ledger).
    arm : int or None
        The arm of that reward (or of the changed action).
    releases : list of str
        Ledger: the releases the reward entered, as ``"source at round t (cost c)"``.
    """

    check: str
    message: str
    round: Any = None
    reward_round: Any = None
    arm: Any = None
    releases: List[str] = field(default_factory=list)

    def __post_init__(self):
        if self.check not in PRIVACY_CHECKS:
            raise ValueError(f"check must be one of {PRIVACY_CHECKS}, got {self.check!r}")
        if not isinstance(self.message, str):
            raise TypeError(f"message must be a str, got {self.message!r}")

    def __str__(self) -> str:
        return f"{self.check}: {self.message}"


@dataclass
class PrivacyCheckReport:
    """The outcome of :func:`check_privacy`.

    Attributes
    ----------
    label : str
        The policy's ``label``.
    guarantee : record of :mod:`dpolearn.accounting`
        The guarantee checked (the policy's, after ``reset``).
    passed : list of str
        Names of the checks that passed.
    failures : list of PrivacyFinding
        The first finding of every failed check.
    streams : int
        Number of neighbouring reward streams played.
    releases : int
        Number of mechanism releases seen on the first stream.
    """

    label: str
    guarantee: Any
    passed: List[str] = field(default_factory=list)
    failures: List[PrivacyFinding] = field(default_factory=list)
    streams: int = 0
    releases: int = 0

    def __post_init__(self):
        if not isinstance(self.label, str):
            raise TypeError(f"label must be a str, got {self.label!r}")
        if not all(isinstance(f, PrivacyFinding) for f in self.failures):
            raise TypeError(f"failures must be PrivacyFinding records, got {self.failures!r}")

    @property
    def ok(self) -> bool:
        """True when no check failed."""
        return not self.failures

    @property
    def failed(self) -> List[str]:
        """Names of the failed checks."""
        return [f.check for f in self.failures]

    def __str__(self) -> str:
        head = (f"{self.label} ({self.guarantee!r}): {len(self.passed)} privacy checks passed, "
                f"{len(self.failures)} failed ({self.streams} neighbouring streams, "
                f"{self.releases} releases)")
        return "\n".join([head] + [f"  FAILED {f}" for f in self.failures])


class PrivacyCheckError(AssertionError):
    """Raised by :func:`check_privacy` when a check fails; its message is the report."""

    def __init__(self, report: PrivacyCheckReport):
        super().__init__(str(report))
        self.report = report


class _Diverged(Exception):
    """The replayed stream asked for a release the recorded stream did not make."""

    def __init__(self, index: int, source: str):
        super().__init__(f"release {index} ({source})")
        self.index, self.source = index, source


@dataclass
class _Release:
    source: str
    round: int
    exact: np.ndarray          # the released elements' exact values (flat)
    out: np.ndarray            # their noisy values (flat)
    cost: np.ndarray           # cost of each element (epsilon, or mu when gaussian)
    sensitivity: np.ndarray
    noise: str
    continual: bool
    positions: np.ndarray      # flat positions of the elements in the reported array
    full: Any                  # the whole released value, returned when replaying
    scale: Any = None          # declared scale of each element (NaN for a counter's output)


class _Recorder:
    """Receives the releases of :mod:`dpolearn.mechanisms.ledger`; replays another stream's."""

    def __init__(self, replay: List[_Release] | None = None):
        self.log: List[_Release] = []
        self.replay = replay
        self.round = 0

    def release(self, source, exact, released, *, scale, sensitivity, noise, cost, where):
        exact_a, out_a = np.asarray(exact, dtype=float), np.asarray(released, dtype=float)
        shape = np.broadcast(exact_a, out_a).shape
        mask = (np.ones(shape, dtype=bool) if where is None
                else np.broadcast_to(np.asarray(where, dtype=bool), shape))
        continual = scale is None
        if continual:
            cost_a = np.asarray(cost() if callable(cost) else cost, dtype=float)
            scale_a = np.full(shape, np.nan)
        else:
            with np.errstate(divide="ignore"):
                cost_a = np.asarray(sensitivity, dtype=float) / np.asarray(scale, dtype=float)
            scale_a = np.broadcast_to(np.asarray(scale, dtype=float), shape)

        every = where is None

        def pick(a):
            if every:
                return np.array(a, dtype=float).reshape(-1) if np.shape(a) == shape \
                    else np.broadcast_to(a, shape).reshape(-1).astype(float)
            return np.broadcast_to(a, shape)[mask].astype(float)

        entry = _Release(source, self.round, pick(exact_a), pick(out_a), pick(cost_a),
                         pick(np.asarray(sensitivity, dtype=float)), noise, continual,
                         np.flatnonzero(mask), np.array(released, copy=True), pick(scale_a))
        index = len(self.log)
        self.log.append(entry)
        if self.replay is None:
            return released
        if (index >= len(self.replay) or self.replay[index].source != source
                or self.replay[index].positions.shape != entry.positions.shape
                or np.shape(self.replay[index].full) != np.shape(released)):
            raise _Diverged(index, source)
        full = self.replay[index].full
        return float(full) if full.ndim == 0 else full.copy()


def _privacy_factory(obj, epsilon):
    factory, _ = _contract_factory(obj)
    return lambda horizon: factory(epsilon, horizon)


def _play(build, table, rng, recorder):
    """Play one run (n_runs=1) on ``table`` (rounds x arms); the actions and the policy."""
    horizon, n_arms = table.shape
    policy = build(horizon)
    policy.reset(1, n_arms, rng)
    actions = np.full(horizon, -1, dtype=np.int64)
    with recording(recorder):
        for t in range(1, horizon + 1):
            recorder.round = t
            arm = int(np.asarray(policy.select(t)).reshape(-1)[0])
            actions[t - 1] = arm
            recorder.round = t
            policy.update(t, np.array([arm]), np.array([table[t - 1, arm]]))
    return actions, policy


def _guarantee_epsilon_like(g):
    """(kind, level) of a guarantee: ('pure', eps), ('approx', (eps, delta)), ('gdp', mu)."""
    if isinstance(g, PureDP):
        return "pure", float(np.max(g.epsilon))
    if isinstance(g, ApproxDP):
        return "approx", (float(np.max(g.epsilon)), float(np.max(g.delta)))
    return "gdp", float(np.max(g.mu))


def _compose_costs(kind, level, costs):
    """The composed record of one reward's releases and whether it is within the guarantee.

    ``costs`` holds ``(noise, cost)`` pairs; Laplace releases and counters are pure epsilons,
    Gaussian ones mu-GDP."""
    lap = [c for n, c in costs if n == "laplace"]
    gau = [c for n, c in costs if n == "gaussian"]
    if kind == "gdp":
        if lap:
            return None, False
        total = compose(*[GaussianDP(mu=c) for c in gau]) if gau else GaussianDP(mu=0.0)
        return total, float(total.mu) <= level * (1 + 1e-9)
    if gau:
        return None, False
    total = compose(*[PureDP(epsilon=c) for c in lap]) if lap else PureDP(epsilon=0.0)
    eps = level if kind == "pure" else level[0]
    if float(total.epsilon) <= eps * (1 + 1e-9):
        return total, True
    if kind == "approx":                    # adaptive releases on one arm: advanced composition
        adv = heterogeneous_advanced_composition(lap, level[1])
        return adv, float(adv.epsilon) <= eps * (1 + 1e-9)
    return total, False


def _release_name(r: _Release) -> str:
    if r.continual:
        return f"{r.source} at round {r.round} (its stream: eps {float(np.max(r.cost)):.3g})"
    unit = "mu" if r.noise == "gaussian" else "eps"
    return f"{r.source} at round {r.round} ({unit} {float(np.max(r.cost)):.3g})"


def check_privacy(policy_or_factory, *, epsilon: float = 1.0, horizon: int = 48,
                  long_horizon: int = 400, n_long: int = 4, n_arms: int = 3, seed: int = 0,
                  raise_on_fail: bool = True) -> PrivacyCheckReport:
    """Check, white-box, that a bandit policy built from the package's mechanisms is as private
    as its ``guarantee`` says.

    Every mechanism of :mod:`dpolearn.mechanisms` (Laplace and Gaussian mechanisms, the lazy
    and interval means, the counters, and the noisy draws of the built-in policies) reports
    each release to a ledger (:mod:`dpolearn.mechanisms.ledger`): the exact value, the noisy
    value, the declared noise scale and sensitivity. The checker plays the policy (one run) on
    a fixed 0/1 reward table and on neighbouring tables, each with the reward of one round
    flipped, at every round of a short horizon and at sampled rounds of a long one; on a
    neighbouring table every release is *replayed*: the policy receives the first table's
    noisy values. Then:

    ``mechanisms_only``
        The policy draws no noise itself (from the generator it is given) outside the
        package's mechanisms. If it does, the checker cannot see what that noise protects:
        such a policy can be checked only black-box (:func:`dpolearn.leaderboard.audit_claim`,
        :mod:`dpolearn.audit`).
    ``release_only``
        With every release replayed, changing one reward changes no action: the policy reads
        the rewards only through its mechanisms. A change (reported with its round, the arm
        and the changed reward) means the policy reads data outside them, e.g. an index with
        a raw empirical mean in one term.
    ``sensitivity``
        No release's exact value moves by more than its declared sensitivity when one reward
        changes (a larger move means noise too small for the data it protects).
    ``ledger``
        The releases whose exact value moved are the ones the changed reward entered. Their
        costs (the declared ``sensitivity / scale``; a continual counter's stream counts once),
        composed with :func:`dpolearn.accounting.compose` (advanced composition when the
        guarantee is ``ApproxDP``), must not exceed the policy's guarantee. A failure names
        the reward, the releases it entered and the total: e.g. a lazy mean that never
        forgets, or a release every round charged once.
    ``noise``
        On a run with a unit-noise :class:`RecordingGenerator` (every standardised draw +1),
        every release's noise is at least the scale it declares (catches noise drawn at a
        fraction of the declared scale).

    Parameters
    ----------
    policy_or_factory : Policy subclass, Policy instance, or callable
        As for :func:`check_policy`: a class (called with ``epsilon`` and ``horizon`` when its
        ``__init__`` takes them), a callable ``(epsilon, horizon) -> Policy``, a zero-argument
        callable, or a configured instance (deep-copied for every run).
    epsilon : float
        Privacy parameter of the configuration checked, > 0 (classes and two-argument
        callables only).
    horizon : int
        Rounds of the short run, >= 2; every one of its rewards is flipped in turn.
    long_horizon : int
        Rounds of the long run, >= ``horizon``; ``n_long`` of its rewards (rounds spread
        geometrically from 1) are flipped. A policy with a smaller ``horizon`` attribute is
        run for its own horizon.
    n_long : int
        Neighbouring streams of the long run, >= 0.
    n_arms : int
        Arms of the reward tables, >= 2.
    seed : int
        Seed of the reward tables and of the policy's generator, >= 0.
    raise_on_fail : bool
        If True (default), raise :class:`PrivacyCheckError` when a check fails.

    Returns
    -------
    PrivacyCheckReport
        ``.ok``, ``.passed``, ``.failures`` (:class:`PrivacyFinding`: check, message, round,
        reward round, arm, releases).

    Raises
    ------
    PrivacyCheckError
        With ``raise_on_fail=True``, when a check fails (an ``AssertionError``).
    ValueError
        If the policy is not a bandit policy or its guarantee is ``NotPrivate``.

    Notes
    -----
    The checks are the white-box counterpart of the coupling proofs of differential privacy
    (LightDP, ShadowDP and CheckDP verify the same two facts statically): the actions are
    post-processing of the releases, and every reward's releases compose to the guarantee.
    They are sound only for what the mechanisms report: the counters' own noise schedules are
    checked against their guarantees by the package's tests, not here. The checker sees the
    neighbouring tables it plays, not every table: a pass is evidence, not a proof. A leak
    shows in ``release_only`` only when it changes an action, i.e. near a tie of the index; at
    small ``epsilon`` the privacy widths of a UCB-type index dominate it and can hide a small
    leak on every table played. The data flow does not depend on ``epsilon``, so check at a
    large one as well (e.g. ``epsilon=50``): the package's own tests do.

    Examples
    --------
    >>> from dpolearn.bandits import AnytimeLazyUCB
    >>> check_privacy(AnytimeLazyUCB, horizon=16, long_horizon=64, n_long=2).ok
    True
    """
    check_positive("epsilon", epsilon)
    horizon = check_positive_int("horizon", horizon, minimum=2)
    long_horizon = check_positive_int("long_horizon", long_horizon, minimum=2)
    if long_horizon < horizon:
        raise ValueError(f"long_horizon must be >= horizon = {horizon}, got {long_horizon}")
    n_long = check_positive_int("n_long", n_long, minimum=0)
    n_arms = check_positive_int("n_arms", n_arms, minimum=2)
    seed = check_positive_int("seed", seed, minimum=0)
    raise_on_fail = check_bool("raise_on_fail", raise_on_fail)
    build = _privacy_factory(policy_or_factory, epsilon)
    try:
        probe = build(long_horizon)
    except Exception as exc:
        raise TypeError(f"policy_or_factory(epsilon={epsilon!r}, horizon={long_horizon!r}) must "
                        f"build a policy, but raised {_describe(exc)}") from exc
    if not isinstance(probe, Policy):
        raise TypeError(f"policy_or_factory must build a dpolearn Policy, got {probe!r}")
    if probe.feedback != "bandit":
        raise ValueError(f"check_privacy checks bandit policies; {probe.label!r} has feedback "
                         f"{probe.feedback!r}")
    own_horizon = getattr(probe, "horizon", None)
    if isinstance(own_horizon, (int, np.integer)) and not isinstance(own_horizon, bool):
        long_horizon = min(long_horizon, int(own_horizon))
        horizon = min(horizon, long_horizon)
    probe.reset(1, n_arms, np.random.default_rng(seed))
    guarantee = probe.guarantee
    if isinstance(guarantee, NotPrivate) or not isinstance(guarantee, _RECORDS):
        raise ValueError(f"policy_or_factory builds {probe.label!r}, whose guarantee is "
                         f"{guarantee!r}: there is no privacy claim to check")
    kind, level = _guarantee_epsilon_like(guarantee)
    report = PrivacyCheckReport(label=probe.label, guarantee=guarantee)
    found = {}                                              # check -> first finding

    def fail(finding):
        found.setdefault(finding.check, finding)

    means = np.linspace(0.7, 0.3, n_arms)
    outside = []
    plans = [(horizon, list(range(1, horizon + 1)))]
    if n_long and long_horizon > horizon:
        plans.append((long_horizon, _sampled_rounds(long_horizon, n_long)))
    for length, rounds in plans:
        table = (np.random.default_rng([seed, length]).random((length, n_arms))
                 < means).astype(float)
        first = _Recorder()
        rng = RecordingGenerator(seed)
        actions, _ = _play(build, table, rng, first)
        outside += [(m, mod, None) for m, mod in rng.outside]
        report.releases += len(first.log)
        for j in rounds:
            arm = int(actions[j - 1])
            neighbour = table.copy()
            neighbour[j - 1, arm] = 1.0 - table[j - 1, arm]
            second = _Recorder(replay=first.log)
            report.streams += 1
            reward = (f"the reward of round {j} (arm {arm}) changed from "
                      f"{table[j - 1, arm]:g} to {neighbour[j - 1, arm]:g}")
            try:
                actions2, _ = _play(build, neighbour, RecordingGenerator(seed), second)
            except _Diverged as exc:
                r = second.log[-1].round if second.log else j
                fail(PrivacyFinding("release_only", f"round {r}: with {reward}, the policy "
                                    f"asked for release {exc.index} from '{exc.source}', which "
                                    f"the first stream did not make at that point: when it "
                                    f"releases depends on the rewards outside its mechanisms",
                                    round=r, reward_round=j, arm=arm))
                continue
            moved = np.flatnonzero(actions2 != actions)
            if moved.size:
                t = int(moved[0]) + 1
                fail(PrivacyFinding(
                    "release_only", f"round {t}: the policy chose arm {int(actions2[t - 1])} "
                    f"instead of {int(actions[t - 1])} when {reward}, with every mechanism "
                    f"release replayed unchanged: its actions read the rewards outside its "
                    f"mechanisms (e.g. an index term computed from the raw empirical mean)",
                    round=t, reward_round=j, arm=arm))
                continue
            _ledger_of_one_reward(first.log, second.log, j, arm, reward, kind, level,
                                  guarantee, fail)
    if outside:
        method, module, _ = outside[0]
        fail(PrivacyFinding(
            "mechanisms_only", f"the policy draws noise itself ({len(outside)} draws; the first "
            f"rng.{method} in module {module!r}), outside the package's mechanisms: "
            f"check_privacy cannot tell what that noise protects or whether its scale is right; "
            f"release it through dpolearn.mechanisms (e.g. LaplaceMechanism), or check the policy "
            f"black-box only (dpolearn.leaderboard.audit_claim, dpolearn.audit)"))
    _check_noise(build, horizon, n_arms, means, seed, fail)
    for name in PRIVACY_CHECKS:
        if name in found:
            report.failures.append(found[name])
        else:
            report.passed.append(name)
    if raise_on_fail and not report.ok:
        raise PrivacyCheckError(report)
    return report


def _sampled_rounds(long_horizon: int, n_long: int):
    if n_long == 0:
        return []
    picks = np.unique(np.round(np.geomspace(1, long_horizon, n_long)).astype(int))
    return [int(j) for j in picks]


def _ledger_of_one_reward(log1, log2, j, arm, reward, kind, level, guarantee, fail):
    """The sensitivity and ledger checks for the reward of round ``j`` (same actions)."""
    entered = []                                  # (release, cost) of every release it entered
    continual = {}
    for r1, r2 in zip(log1, log2):
        diff = np.abs(r2.exact - r1.exact)
        moved = diff > 1e-12
        if not moved.any():
            continue
        for e in np.flatnonzero(moved):
            ratio = diff[e] / r1.sensitivity[e]
            if ratio > 1 + 1e-9:
                fail(PrivacyFinding(
                    "sensitivity", f"round {r1.round}: the release '{r1.source}' moved by "
                    f"{diff[e]:.4g} when {reward}, more than its declared sensitivity "
                    f"{r1.sensitivity[e]:.4g}: its noise is {ratio:.3g} times too small for "
                    f"what it protects", round=r1.round, reward_round=j, arm=arm))
            cost = float(r1.cost[e]) * max(1.0, ratio)
            if r1.continual:
                key = (r1.source, int(r1.positions[e]))
                if cost > continual.get(key, (None, -1.0))[1]:
                    continual[key] = (r1, cost)
            else:
                entered.append((r1, cost))
    entered += list(continual.values())
    if not entered:
        return
    total, within = _compose_costs(kind, level, [(r.noise, c) for r, c in entered])
    if within:
        return
    names = [_release_name(r) for r, _ in entered]
    shown = ", ".join(names[:6]) + (f", ... ({len(names)} in all)" if len(names) > 6 else "")
    what = ("cannot be composed with it" if total is None
            else f"compose to {total!r}, more than the guarantee")
    plural = "release" if len(entered) == 1 else "releases"
    fail(PrivacyFinding(
        "ledger", f"{reward}: that reward entered {len(entered)} {plural} ({shown}), whose "
        f"costs {what} {guarantee!r}", round=entered[-1][0].round, reward_round=j, arm=arm,
        releases=names))


def _check_noise(build, horizon, n_arms, means, seed, fail):
    """Unit-noise run: every release's noise is at least its declared scale."""
    table = (np.random.default_rng([seed, 1]).random((horizon, n_arms)) < means).astype(float)
    recorder = _Recorder()
    _play(build, table, RecordingGenerator(seed, unit=True), recorder)
    for r in recorder.log:
        if r.continual:
            continue
        drawn = r.out - r.exact
        short = drawn < r.scale * (1 - 1e-9)
        if short.any():
            e = int(np.flatnonzero(short)[0])
            fail(PrivacyFinding(
                "noise", f"round {r.round}: '{r.source}' added noise of scale {drawn[e]:.4g} "
                f"where it declares {r.scale[e]:.4g} (measured with unit noise): its cost "
                f"{r.cost[e]:.4g} assumes the declared scale, so it is really "
                f"{r.cost[e] * r.scale[e] / max(drawn[e], 1e-300):.4g}", round=r.round))
            return
