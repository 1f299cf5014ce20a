"""dpolearn.testing.check_policy: a correct policy passes, and each deliberately broken
variant fails exactly the check named after its defect (and the report says so)."""
import numpy as np
import pytest

from dpolearn._validation import check_epsilon
from dpolearn.accounting import PureDP
from dpolearn.policy import Policy
from dpolearn.testing import CHECKS, PolicyContractError, as_factory, check_policy

FAST = {"horizon": 60, "n_runs": 6, "n_single": 30}


class NoisyGreedy(Policy):
    """A correct toy policy: round robin, then greedy on means perturbed by fresh noise."""

    label = "Noisy greedy"

    def __init__(self, *, epsilon=1.0):
        self.epsilon = check_epsilon(epsilon)

    def reset(self, n_runs, n_arms, rng):
        self._rng = rng
        self._sums = np.zeros((n_runs, n_arms))
        self._counts = np.zeros((n_runs, n_arms))

    def select(self, t):
        n_runs, n_arms = self._sums.shape
        if t <= n_arms:
            return np.full(n_runs, t - 1, dtype=np.int64)
        noisy = self._sums / np.maximum(self._counts, 1) + self._rng.laplace(
            0, 1.0, self._sums.shape
        )
        return np.argmax(noisy, axis=1)

    def update(self, t, arms, rewards):
        rows = np.arange(len(arms))
        self._sums[rows, arms] += rewards
        self._counts[rows, arms] += 1

    @property
    def guarantee(self):
        return PureDP(epsilon=self.epsilon)        # a toy: the contract does not check truth

    def params(self):
        return {"epsilon": self.epsilon}


class BadShape(NoisyGreedy):
    def select(self, t):
        return list(super().select(t))


class OutOfRange(NoisyGreedy):
    def select(self, t):
        arms = super().select(t)
        return arms + (t == 7)                     # arm n_arms in round 7


class ZeroBasedRounds(NoisyGreedy):
    def __init__(self, *, epsilon=1.0, horizon=60):
        super().__init__(epsilon=epsilon)
        self.horizon = horizon

    def reset(self, n_runs, n_arms, rng):
        super().reset(n_runs, n_arms, rng)
        self._log = np.zeros(self.horizon)         # indexed by t as if rounds were 0..T-1

    def update(self, t, arms, rewards):
        super().update(t, arms, rewards)
        self._log[t] = rewards.mean()

    def params(self):
        return {"epsilon": self.epsilon, "horizon": self.horizon}


class GlobalRNG(NoisyGreedy):
    def select(self, t):
        arms = super().select(t)
        flip = np.random.random(arms.shape) < 0.1  # noqa: NPY002 (the broken variant)
        return np.where(flip, 0, arms)


class BatchLeaks(NoisyGreedy):
    """Explores with probability 1 / n_runs: a batch behaves unlike single runs."""

    def select(self, t):
        arms = super().select(t)
        n_runs, n_arms = self._sums.shape
        explore = self._rng.random(n_runs) < 1.0 / n_runs
        return np.where(explore, self._rng.integers(n_arms, size=n_runs), arms)


class NoRecord(NoisyGreedy):
    @property
    def guarantee(self):
        return {"epsilon": self.epsilon}


class WrongRepr(NoisyGreedy):
    def __repr__(self):                        # not the constructor call: eval fails
        return f"WrongRepr(eps={self.epsilon!r})"


class WrongParams(NoisyGreedy):
    def params(self):                          # not the constructor's argument names
        return {"eps": self.epsilon}


class AcceptsAnyEpsilon(NoisyGreedy):
    def __init__(self, *, epsilon=1.0):
        self.epsilon = epsilon


class ExpectsLossVectors(NoisyGreedy):
    def update(self, t, arms, rewards):
        super().update(t, arms, rewards[np.arange(len(arms)), arms])


class NoFeedbackKind(NoisyGreedy):
    feedback = "partial"


def test_correct_policy_passes_every_check():
    report = check_policy(NoisyGreedy, **FAST)
    assert report.ok and report.failures == []
    assert report.passed == list(CHECKS)


@pytest.mark.parametrize("cls, name", [
    (BadShape, "select_shape"), (OutOfRange, "arms_in_range"), (ZeroBasedRounds, "rounds"),
    (GlobalRNG, "no_global_rng"), (BatchLeaks, "batch_equals_single"), (NoRecord, "guarantee"),
    (WrongRepr, "params_repr"), (AcceptsAnyEpsilon, "bad_epsilon"),
    (ExpectsLossVectors, "feedback"), (NoFeedbackKind, "interface"),
])
def test_each_broken_variant_fails_its_check(cls, name):
    report = check_policy(cls, raise_on_fail=False, **FAST)
    assert name in report.failed, str(report)
    with pytest.raises(PolicyContractError, match=name):
        check_policy(cls, **FAST)


@pytest.mark.parametrize("cls, also_correct", [
    (BadShape, ["arms_in_range", "guarantee", "params_repr", "bad_epsilon"]),
    (WrongRepr, ["select_shape", "rounds", "reproducible", "no_global_rng",
                 "batch_equals_single", "guarantee", "bad_epsilon"]),
    (NoRecord, ["select_shape", "rounds", "reproducible", "params_repr", "bad_epsilon"]),
])
def test_one_defect_does_not_fail_the_other_checks(cls, also_correct):
    report = check_policy(cls, raise_on_fail=False, **FAST)
    assert set(also_correct) <= set(report.passed), str(report)


def test_unreproducible_policy_fails_reproducibility():
    class FreshEntropy(NoisyGreedy):
        def reset(self, n_runs, n_arms, rng):
            super().reset(n_runs, n_arms, np.random.default_rng())

    report = check_policy(FreshEntropy, raise_on_fail=False, **FAST)
    assert "reproducible" in report.failed


def test_several_defects_are_all_listed():
    class Everything(WrongRepr):
        @property
        def guarantee(self):
            return "1-DP"

        def select(self, t):
            return np.asarray(super().select(t), dtype=float)

    report = check_policy(Everything, raise_on_fail=False, **FAST)
    assert {"select_shape", "guarantee", "params_repr"} <= set(report.failed)
    text = str(report)
    assert all(f"FAILED {n}" in text for n in ("select_shape", "guarantee", "params_repr"))


def test_the_check_leaves_the_global_rng_as_it_found_it():
    """The reseeding probe of no_global_rng restores the caller's global state."""
    np.random.seed(5)  # noqa: NPY002 (the global state is what is checked)
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    check_policy(NoisyGreedy, **FAST)
    assert np.array_equal(np.random.get_state()[1], before)  # noqa: NPY002


def test_factory_callable_and_policy_without_epsilon():
    report = check_policy(lambda epsilon, horizon: NoisyGreedy(epsilon=2 * epsilon), **FAST)
    assert report.ok
    from dpolearn import UCB1
    report = check_policy(UCB1, **FAST)
    assert report.ok and ("bad_epsilon", "the policy has no epsilon parameter") in report.skipped


@pytest.mark.parametrize("form", ["zero-argument factory", "instance"])
def test_a_zero_argument_factory_and_an_instance_are_checked_too(form):
    configured = NoisyGreedy(epsilon=0.25)
    given = (lambda: NoisyGreedy(epsilon=0.25)) if form != "instance" else configured
    report = check_policy(given, epsilon=5.0, **FAST)   # their own epsilon is kept
    assert report.ok and report.passed == list(CHECKS), str(report)
    assert not hasattr(configured, "_rng"), "the instance given is copied, never reset or run"


@pytest.mark.parametrize("form", ["zero-argument factory", "instance"])
@pytest.mark.parametrize("cls, name", [(AcceptsAnyEpsilon, "bad_epsilon"),
                                       (BadShape, "select_shape"),
                                       (WrongRepr, "params_repr")])
def test_a_broken_instance_or_zero_argument_factory_fails_its_check(form, cls, name):
    given = (lambda: cls()) if form != "instance" else cls()
    report = check_policy(given, raise_on_fail=False, **FAST)
    assert name in report.failed, str(report)


def test_an_instance_whose_params_do_not_rebuild_it_fails_bad_epsilon():
    report = check_policy(WrongParams(), raise_on_fail=False, **FAST)
    assert "bad_epsilon" in report.failed
    assert "could not be rebuilt from its params()" in dict(report.failures)["bad_epsilon"]


@pytest.mark.parametrize("bad, exc", [(NoisyGreedy(), TypeError), (3, TypeError)])
def test_invalid_factory(bad, exc):
    with pytest.raises(exc, match="policy_or_factory"):
        as_factory(bad)


@pytest.mark.parametrize("kw", [{"horizon": 1}, {"n_runs": 1}, {"n_arms": 1}, {"epsilon": -1},
                                {"n_single": 2}])
def test_invalid_arguments(kw):
    with pytest.raises(ValueError, match=next(iter(kw))):
        check_policy(NoisyGreedy, **kw)
