"""check_privacy: the white-box privacy checker passes the book's private policies and catches
the privacy bugs a researcher writes, each with a report naming the round or the reward.

The planted bugs are small custom policies, as a reader of the own-bandit chapter would write
them: a raw-mean term in an index, a lazy mean that never forgets, noise at half the scale
the claim needs, a release every round charged once. The weakened mechanisms are the kinds of
change the mutation campaign makes: a mechanism drawing half its declared noise, a mechanism
that stops reporting its releases.
"""
from __future__ import annotations

import numpy as np
import pytest

import dpolearn.mechanisms.lazy_mean as lazy_mean_module
from dpolearn import Policy, PureDP
from dpolearn.bandits import DPTSUCB, UCB1, AnytimeLazyUCB, LazyDPTS
from dpolearn.fullinfo import RNMFTNL
from dpolearn.mechanisms import LaplaceMechanism, LazyDoublingPrivateMean
from dpolearn.mechanisms.ledger import active_recorder, recording, report_release
from dpolearn.testing import (
    PRIVACY_CHECKS,
    PrivacyCheckError,
    PrivacyFinding,
    RecordingGenerator,
    check_privacy,
)

SMALL = {"horizon": 24, "long_horizon": 160, "n_long": 3}


class _LazyIndex(Policy):
    """A Lazy-UCB-style index on the package's lazy mean (the honest base of the bugs)."""

    label = "lazy index"

    def __init__(self, *, epsilon):
        self.epsilon = epsilon

    def _initialise(self, n_runs, n_arms, rng):
        self._rng = rng
        self.mean_ = LazyDoublingPrivateMean(n_runs, n_arms, epsilon=self.epsilon, rng=rng)

    def index(self, t):
        O = self.mean_.batch_size
        return self.mean_.mu_tilde + np.sqrt(3 * np.log(t) / O) + 3 * np.log(t) / (self.epsilon * O)

    def select(self, t):
        if t <= self.n_arms:
            return np.full(self.n_runs, t - 1)
        return np.argmax(self.index(t), axis=1)

    def update(self, t, arms, rewards):
        self.mean_.observe(arms, rewards)

    @property
    def guarantee(self):
        return PureDP(epsilon=self.epsilon)


class RawMeanTerm(_LazyIndex):
    """Bug: one index term reads the raw empirical mean (every reward leaks)."""

    label = "raw-mean term"

    def _initialise(self, n_runs, n_arms, rng):
        super()._initialise(n_runs, n_arms, rng)
        self.sums_, self.counts_ = np.zeros((n_runs, n_arms)), np.zeros((n_runs, n_arms))

    def index(self, t):
        raw = self.sums_ / np.maximum(self.counts_, 1)
        return 0.5 * (self.mean_.mu_tilde + raw) + np.sqrt(np.log(t) / self.counts_)

    def update(self, t, arms, rewards):
        super().update(t, arms, rewards)
        rows = np.arange(self.n_runs)
        self.sums_[rows, arms] += rewards
        self.counts_[rows, arms] += 1


class NeverForgets(_LazyIndex):
    """Bug: at pull counts 1, 2, 4, ... it releases the mean of *all* the arm's rewards."""

    label = "never forgets"

    def _initialise(self, n_runs, n_arms, rng):
        self._rng = rng
        self.mech = LaplaceMechanism(epsilon=self.epsilon)
        self.sums_, self.counts_ = np.zeros((n_runs, n_arms)), np.zeros((n_runs, n_arms))
        self.mu_ = np.zeros((n_runs, n_arms))
        self.O_ = np.ones((n_runs, n_arms))

    def index(self, t):
        log_t, O = np.log(t), self.O_
        return self.mu_ + np.sqrt(3 * log_t / O) + 3 * log_t / (self.epsilon * O)

    def update(self, t, arms, rewards):
        rows = np.arange(self.n_runs)
        self.sums_[rows, arms] += rewards
        self.counts_[rows, arms] += 1
        n = self.counts_[rows, arms]
        for r in np.flatnonzero(np.log2(n) % 1 == 0):          # n is a power of two
            a = arms[r]
            self.mu_[r, a] = self.mech.randomise(self.sums_[r, a], self._rng) / n[r]
            self.O_[r, a] = n[r]


class HalfNoise(_LazyIndex):
    """Bug: "centred rewards have sensitivity 1/2", so the lazy mean gets 2 epsilon."""

    label = "half noise"

    def _initialise(self, n_runs, n_arms, rng):
        self._rng = rng
        self.mean_ = LazyDoublingPrivateMean(n_runs, n_arms, epsilon=2 * self.epsilon, rng=rng)


class OwnHalfNoise(NeverForgets):
    """Bug: the policy draws its Laplace noise itself, at half the scale (and forgets nothing)."""

    label = "own half noise"

    def update(self, t, arms, rewards):
        rows = np.arange(self.n_runs)
        self.sums_[rows, arms] += rewards
        self.counts_[rows, arms] += 1
        n = self.counts_[rows, arms]
        noise = self._rng.laplace(0.0, 0.5 / self.epsilon, size=self.n_runs)
        self.mu_[rows, arms] = (self.sums_[rows, arms] + noise) / n
        self.O_[rows, arms] = n


class EveryRound(NeverForgets):
    """Bug: a release of the arm's noisy running sum every round, charged as one epsilon."""

    label = "every round"

    def update(self, t, arms, rewards):
        rows = np.arange(self.n_runs)
        self.sums_[rows, arms] += rewards
        self.counts_[rows, arms] += 1
        n = self.counts_[rows, arms]
        self.mu_[rows, arms] = self.mech.randomise(self.sums_[rows, arms], self._rng) / n
        self.O_[rows, arms] = n


def _failure(report, check) -> PrivacyFinding:
    assert check in report.failed, str(report)
    return next(f for f in report.failures if f.check == check)


# ------------------------------------------------------------------ honest policies pass
@pytest.mark.parametrize("factory", [_LazyIndex, AnytimeLazyUCB, LazyDPTS])
def test_honest_lazy_policies_pass_every_check(factory):
    report = check_privacy(factory, **SMALL)
    assert report.ok and report.passed == list(PRIVACY_CHECKS)
    assert report.releases >= 10                    # the checks saw releases, not nothing
    assert report.streams == SMALL["horizon"] + SMALL["n_long"]


def test_accepts_a_zero_argument_factory_and_an_instance():
    for form in (lambda: _LazyIndex(epsilon=0.5), _LazyIndex(epsilon=0.5)):
        report = check_privacy(form, **SMALL)
        assert report.ok and report.guarantee == PureDP(epsilon=0.5)


# ------------------------------------------------------------------ the four planted bugs
def test_raw_mean_term_fails_release_only_naming_the_round_and_the_reward():
    report = check_privacy(RawMeanTerm, raise_on_fail=False, **SMALL)
    finding = _failure(report, "release_only")
    assert finding.round is not None and finding.reward_round is not None
    assert finding.round > finding.reward_round          # the leak shows after the change
    assert f"round {finding.round}" in finding.message
    assert f"the reward of round {finding.reward_round} (arm {finding.arm})" in finding.message


def test_lazy_mean_that_never_forgets_fails_the_ledger_naming_the_reward():
    report = check_privacy(NeverForgets, raise_on_fail=False, **SMALL)
    assert report.failed == ["ledger"]
    finding = _failure(report, "ledger")
    # a reward seen at pull 1 enters the releases at pulls 1, 2, 4, 8, ...: at least three
    assert len(finding.releases) >= 3
    assert all("Laplace mechanism" in r for r in finding.releases)
    assert f"round {finding.reward_round}" in finding.message
    assert "more than the guarantee PureDP(epsilon=1)" in finding.message


def test_release_every_round_charged_once_fails_the_ledger():
    report = check_privacy(EveryRound, raise_on_fail=False, **SMALL)
    finding = _failure(report, "ledger")
    assert len(finding.releases) >= 4
    assert report.failed == ["ledger"]


def test_noise_at_half_the_needed_scale_fails_the_ledger():
    report = check_privacy(HalfNoise, raise_on_fail=False, **SMALL)
    finding = _failure(report, "ledger")
    assert "lazy mean" in finding.releases[0] and "eps 2" in finding.releases[0]
    assert "PureDP(epsilon=2)" in finding.message


def test_noise_drawn_by_the_policy_itself_is_reported_as_unverifiable():
    report = check_privacy(OwnHalfNoise, raise_on_fail=False, **SMALL)
    finding = _failure(report, "mechanisms_only")
    assert "rng.laplace" in finding.message and "black-box" in finding.message
    assert __name__ in finding.message                    # the module that drew it
    _failure(report, "release_only")       # its noisy means are data the mechanisms never saw


def test_failure_raises_with_the_report():
    with pytest.raises(PrivacyCheckError) as info:
        check_privacy(NeverForgets, **SMALL)
    assert "FAILED ledger" in str(info.value)
    assert info.value.report.failed == ["ledger"]


# ------------------------------------------------------------------ weakened mechanisms
def _half_noise_release(block_sums, scale, rng, *, sensitivity=1.0, source="lazy mean"):
    released = block_sums + rng.laplace(0.0, 0.5 * np.asarray(scale))     # half the noise
    return report_release(source, block_sums, released, scale=scale, sensitivity=sensitivity)


def _unreported_release(block_sums, scale, rng, *, sensitivity=1.0, source="lazy mean"):
    return block_sums + rng.laplace(0.0, scale)                           # no ledger entry


def test_a_mechanism_drawing_half_its_declared_noise_fails_the_noise_check(monkeypatch):
    monkeypatch.setattr(lazy_mean_module, "laplace_block_release", _half_noise_release)
    report = check_privacy(AnytimeLazyUCB, raise_on_fail=False, **SMALL)
    # (the replacement lives in this test module, so its draws are also "outside")
    assert "noise" in report.failed and "ledger" not in report.failed
    finding = _failure(report, "noise")
    assert "lazy mean" in finding.message and finding.round is not None
    assert "scale 0.5 where it declares 1" in finding.message


def test_a_mechanism_that_stops_reporting_fails_release_only(monkeypatch):
    monkeypatch.setattr(lazy_mean_module, "laplace_block_release", _unreported_release)
    report = check_privacy(AnytimeLazyUCB, raise_on_fail=False, **SMALL)
    assert report.releases == 0
    _failure(report, "release_only")


# ------------------------------------------------------------------ the ledger and inputs
def test_ledger_is_inactive_outside_the_checker():
    assert active_recorder() is None
    value = np.array([1.0, 2.0])
    assert report_release("x", value, value + 1, scale=1.0) is not None
    with recording(object()):
        with pytest.raises(RuntimeError, match="do not nest"):
            with recording(object()):
                pass
    assert active_recorder() is None


def test_recording_generator_unit_mode_returns_the_scale():
    rng = RecordingGenerator(0, unit=True)
    assert rng.laplace(0.0, 2.5) == 2.5
    assert np.all(rng.normal(1.0, 3.0, size=4) == 4.0)
    assert [c[0] for c in rng.calls] == ["laplace", "normal"]
    assert rng.outside and rng.outside[0][1] == __name__      # drawn from this test module


@pytest.mark.parametrize("kwargs,name", [
    ({"epsilon": 0}, "epsilon"), ({"horizon": 1}, "horizon"), ({"n_arms": 1}, "n_arms"),
    ({"horizon": 30, "long_horizon": 20}, "long_horizon"), ({"n_long": -1}, "n_long"),
    ({"seed": -1}, "seed"), ({"raise_on_fail": "no"}, "raise_on_fail"),
])
def test_bad_arguments_are_errors_naming_them(kwargs, name):
    with pytest.raises((ValueError, TypeError), match=name):
        check_privacy(_LazyIndex, **kwargs)


def test_non_private_and_full_information_policies_are_refused():
    with pytest.raises(ValueError, match="NotPrivate"):
        check_privacy(UCB1, **SMALL)
    with pytest.raises(ValueError, match="bandit"):
        check_privacy(RNMFTNL, **SMALL)


def test_a_factory_that_cannot_build_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="policy_or_factory.*alpha"):
        check_privacy(DPTSUCB, **SMALL)                  # needs alpha: the class alone fails
    with pytest.raises(TypeError, match="policy_or_factory"):
        check_privacy(3, **SMALL)
