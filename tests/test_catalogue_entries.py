"""One entry per algorithm (``dpolearn/_algorithms.py``), and every table derived from it.

The tables that used to be typed by hand (plotting's label lists, the catalogue's privacy kinds
and presets, the comparison's algorithm list, epsilon grid and task costs) must hold every
entry, and an entry added at run time (a test-local one here) must show up in each of them.
"""
import math
import textwrap
from pathlib import Path

import numpy as np
import pytest

from bookkit import myst
from dpolearn import BernoulliBandit, _algorithms, plotting, simulate
from dpolearn._algorithms import ENTRIES, Entry
from dpolearn._validation import as_row_param, check_epsilon, check_positive_int
from dpolearn.accounting import PureDP, compose
from dpolearn.bandits.baselines import SumCountPolicy
from dpolearn.experiments import catalogue, compare, compare_setup
from dpolearn.fullinfo.baselines import LossSumPolicy
from dpolearn.policy import Policy
from dpolearn.testing import check_policy

# what a factory needs beyond epsilon and horizon, per (preset, label)
_OPTIONS = {("hu2025", "DP-TS-UCB"): dict(alpha=0.5),
            ("hu2025", "M-TS-Gaussian"): dict(b=1, c=2.0)}


def _build(preset, label, horizon=1000):
    return catalogue.make_policy(label, 0.5, horizon, preset=preset,
                                 **_OPTIONS.get((preset, label), {}))


# ------------------------------------------------------------------ the entries themselves
def test_one_entry_per_algorithm_class_and_label():
    labels = [e.label for e in ENTRIES]
    classes = [e.policy for e in ENTRIES]
    assert len(set(labels)) == len(labels) and len(set(classes)) == len(classes)


@pytest.mark.parametrize("e", ENTRIES, ids=lambda e: e.label)
def test_every_preset_label_builds_the_entry_class(e):
    for preset, table in e.presets.items():
        for label in table:
            policy = _build(preset, label)
            assert type(policy) is e.policy, (preset, label)
            assert policy.label == e.label


@pytest.mark.parametrize("e", ENTRIES, ids=lambda e: e.label)
def test_the_declared_privacy_kind_is_the_kind_of_the_guarantee(e):
    kinds = {"PureDP": "pure", "ApproxDP": "approx", "GaussianDP": "gdp", "NotPrivate": "none"}
    for preset, table in e.presets.items():
        for label in table:
            kind = kinds[type(_build(preset, label).guarantee).__name__]
            assert kind == e.privacy, (preset, label)


# ------------------------------------------------------------------ the derived tables
@pytest.mark.parametrize("e", ENTRIES, ids=lambda e: e.label)
def test_every_derived_table_holds_every_entry(e):
    assert e.label in plotting.ALGORITHM_LABELS and e.label in plotting.LABEL_ORDER
    assert plotting.LABEL_ORDER.index(e.label) == ENTRIES.index(e)      # its place, its style
    assert catalogue.PRIVACY[e.label] == e.privacy == catalogue.privacy_kind(e.label)
    for preset, table in e.presets.items():
        assert set(table) <= set(catalogue.labels(preset))
        assert set(table) <= set(catalogue.PRESETS[preset])
    if e.feedback == "bandit" and e.label in e.presets.get("common", {}):
        assert compare_setup.BANDIT_ALGORITHMS[e.label] == e.privacy
        grid = compare_setup.epsilon_grid(e.label)
        assert grid == (tuple(x for x in compare_setup.EPSILONS if x <= e.max_epsilon)
                        if e.takes_epsilon else ())
        assert compare._task_cost((e.label, 4)) == e.task_cost * 2.0
    for label in e.presets.get("common", {}):
        if label != e.label:
            assert label in plotting.VARIANT_LABELS


def test_the_derived_tables_are_in_entry_order():
    labels = [e.label for e in ENTRIES]
    assert list(plotting.ALGORITHM_LABELS) == labels
    assert list(catalogue.PRIVACY) == labels
    assert list(compare_setup.BANDIT_ALGORITHMS) == [
        lab for lab in labels if lab in compare_setup.BANDIT_ALGORITHMS]
    assert list(plotting.LABEL_ORDER) == (labels + list(plotting.VARIANT_LABELS)
                                          + plotting.MECHANISM_LABELS + plotting.COUNTER_LABELS)


def test_the_comparison_runs_every_bandit_class_of_the_package():
    assert set(compare_setup.BANDIT_ALGORITHMS) == compare_setup.exported_bandit_labels()


def test_every_label_keeps_its_own_style():
    styles = [tuple(plotting.style_of(lab).items())
              for lab in plotting.ALGORITHM_LABELS + plotting.VARIANT_LABELS]
    assert len(set(styles)) == len(styles)


# ------------------------------------------------------------------ a test-local entry
class Greedy(SumCountPolicy):
    """Follow the empirical leader after one pull of each arm (a test-local algorithm)."""

    label = "Greedy (test)"

    def __init__(self, *, epsilon=math.inf):
        self.epsilon = epsilon

    def select(self, t):
        if t <= self.n_arms:
            return np.full(self.n_runs, t - 1)
        return np.argmax(self.sums_ / self.counts_, axis=1)


class Follow(LossSumPolicy):
    label = "Follow"

    def select(self, t):
        return np.argmin(self.cum_losses_, axis=1)


GREEDY = Entry(Greedy, "none", max_epsilon=1.0, task_cost=7.0, presets={
    "common": {"Greedy (test)": lambda epsilon=None, horizon=None: Greedy(
        epsilon=math.inf if epsilon is None else epsilon)},
    "primer": {"Greedy (test)": lambda epsilon=None, horizon=None: Greedy()}})
FOLLOW = Entry(Follow, "none", takes_epsilon=False, presets={
    "common": {"Follow (lazy)": lambda epsilon=None, horizon=None: Follow(),
               "Follow (eager)": lambda epsilon=None, horizon=None: Follow()}})


@pytest.fixture
def with_test_entries(monkeypatch):
    monkeypatch.setattr(_algorithms, "ENTRIES", [*ENTRIES, GREEDY, FOLLOW])


def test_a_test_local_entry_shows_up_in_every_derived_table(with_test_entries):
    n = len(ENTRIES)
    assert list(plotting.ALGORITHM_LABELS)[n:] == ["Greedy (test)", "Follow"]
    assert list(plotting.VARIANT_LABELS)[-2:] == ["Follow (lazy)", "Follow (eager)"]
    assert plotting.LABEL_ORDER.index("Greedy (test)") == n
    assert plotting.style_of("Greedy (test)") == {
        "color": plotting.PALETTE[n % len(plotting.PALETTE)],
        "linestyle": plotting._LINESTYLES[n % 4], "marker": plotting._MARKERS[n % 11]}
    assert catalogue.PRIVACY["Greedy (test)"] == "none" == catalogue.privacy_kind("Follow (lazy)")
    assert catalogue.labels("primer")[-1] == "Greedy (test)"
    assert "Greedy (test)" in catalogue.PRESETS["common"]
    assert isinstance(catalogue.make_policy("Greedy (test)", 0.5, preset="common"), Greedy)
    assert isinstance(catalogue.make_policy("Follow (eager)"), Follow)
    assert list(compare_setup.BANDIT_ALGORITHMS)[-1] == "Greedy (test)"
    assert "Follow (lazy)" not in compare_setup.BANDIT_ALGORITHMS     # full information
    assert compare_setup.epsilon_grid("Greedy (test)") == (0.1, 0.25, 0.5, 1.0)
    assert compare._task_cost(("Greedy (test)", 9)) == 21.0
    assert isinstance(compare_setup.make_bandit_policy("Greedy (test)", 0.5, 100), Greedy)


def test_without_the_test_entries_the_tables_do_not_hold_them():
    assert "Greedy (test)" not in plotting.ALGORITHM_LABELS
    assert "Greedy (test)" not in catalogue.PRIVACY
    assert "Greedy (test)" not in compare_setup.BANDIT_ALGORITHMS
    with pytest.raises(ValueError, match="label.*Greedy"):
        compare_setup.epsilon_grid("Greedy (test)")


# ------------------------------------------------------------------ bad entries
@pytest.mark.parametrize("args, error, match", [
    ((int, "none"), TypeError, "policy must be a Policy subclass, got <class 'int'>"),
    ((Policy(), "none"), TypeError, "policy must be a Policy subclass"),
    ((Greedy, "private"), ValueError, "privacy must be one of .* got 'private'"),
])
def test_a_bad_entry_is_refused(args, error, match):
    with pytest.raises(error, match=match):
        Entry(*args)


@pytest.mark.parametrize("call, error, match", [
    (lambda: _algorithms.entry(3), TypeError, "label must be a str, got 3"),
    (lambda: _algorithms.entry("No such"), ValueError, "label must be one of .* got 'No such'"),
    (lambda: _algorithms.factories("nope"), ValueError, "preset must be one of .* got 'nope'"),
    (lambda: _algorithms.labels(3), ValueError, "preset must be one of .* got 3"),
    (lambda: _algorithms.DerivedMap({}), TypeError, "build must be a function"),
    (lambda: _algorithms.DerivedList([]), TypeError, "build must be a function"),
    (lambda: _algorithms.mts_pre_pulls(0), ValueError, "horizon must be >= 1, got 0"),
    (lambda: _algorithms.mts_pre_pulls(1e4), TypeError, "horizon must be an integer"),
])
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ------------------------------------------------------------------ CONTRIBUTING's example
def _contributing_example():
    """The two code blocks of CONTRIBUTING.md's "Adding an algorithm": the class, the entry."""
    text = (Path(__file__).resolve().parents[1] / "CONTRIBUTING.md").read_text(encoding="utf-8")
    blocks, inside = [], False
    for block in myst.read(text).blocks:
        if isinstance(block, myst.Heading) and block.level <= 2:
            inside = block.title.strip() == "Adding an algorithm"
        elif inside and isinstance(block, myst.CodeBlock) and block.language == "python":
            blocks.append("\n".join(block.body) + "\n")
    assert len(blocks) == 2, "the example is one class and one entry"
    return blocks


def test_the_contributing_example_is_a_class_plus_one_entry(monkeypatch):
    class_code, entry_code = _contributing_example()
    namespace = dict(np=np, SumCountPolicy=SumCountPolicy, check_epsilon=check_epsilon,
                     check_positive_int=check_positive_int, as_row_param=as_row_param,
                     compose=compose, PureDP=PureDP)
    exec(class_code, namespace)
    cls = namespace["PrivateETC"]
    entry = eval(textwrap.dedent(entry_code).strip().rstrip(","),
                 dict(vars(_algorithms), PrivateETC=cls))
    monkeypatch.setattr(_algorithms, "ENTRIES", [*ENTRIES, entry])

    assert repr(cls(epsilon=0.5, m=50)) == "PrivateETC(epsilon=0.5, m=50)"
    assert cls(epsilon=0.5).params() == {"epsilon": 0.5, "m": 100}
    assert cls(epsilon=0.5).paper_claim == PureDP(epsilon=0.5)
    assert "Private-ETC" in plotting.ALGORITHM_LABELS
    assert catalogue.PRIVACY["Private-ETC"] == "pure"
    assert compare_setup.epsilon_grid("Private-ETC") == compare_setup.EPSILONS
    policy = catalogue.make_policy("Private-ETC", 0.5)
    assert type(policy) is cls and policy.guarantee == PureDP(epsilon=0.5)
    report = check_policy(lambda epsilon, horizon: cls(epsilon=epsilon, m=3), horizon=60,
                          raise_on_fail=False)
    assert report.ok, str(report)
    res = simulate(policy, BernoulliBandit([0.9, 0.1]), horizon=400, n_runs=8, seed=1)
    assert np.all(res.pulls[:, 0] == 100 + 200)     # explores 100 each, then the clear winner
