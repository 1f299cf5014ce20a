"""The book's algorithms, one entry each: the single table every list of algorithms derives from.

An :class:`Entry` names an algorithm's policy class and display label, its kind of privacy,
the settings each paper (and the comparison chapter) runs it with (*presets*), and what the
comparison chapter needs to schedule it. Its place in ``ENTRIES`` is its book-wide plotting
style (:func:`dpolearn.plotting.style_of`). Every other table is derived from these entries:

* ``dpolearn.plotting.ALGORITHM_LABELS`` and ``VARIANT_LABELS`` (the styled labels);
* ``dpolearn.experiments.catalogue.PRIVACY`` and ``PRESETS`` (``make_policy``);
* ``dpolearn.experiments.compare_setup.BANDIT_ALGORITHMS`` and ``epsilon_grid``;
* the comparison's task costs (``Entry.task_cost``).

So adding an algorithm is a class plus one entry here (``CONTRIBUTING.md``, "Adding an
algorithm"). The derived tables are live
(``DerivedMap``, ``DerivedList``): they read ``ENTRIES`` when used.

The presets are described in :mod:`dpolearn.experiments.catalogue`.

Every factory is called as ``factory(epsilon, horizon, **options)``; ``epsilon`` may be a scalar
or an array with one entry per run (a batched sweep).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._validation import check_positive_int
from .bandits import (
    DPSE,
    DPTS,
    DPTSUCB,
    DPUCB,
    KLUCB,
    UCB1,
    AdaPKLUCB,
    AdaPUCB,
    AnytimeLazyUCB,
    BetaTS,
    DPUCBBound,
    DPUCBInt,
    GaussianTS,
    LazyDPTS,
    MTSGaussian,
    PrivateUCB,
    UniformPlay,
)
from .fullinfo import FTL, RNMFTNL, Hedge, NaiveFTNL
from .gdp import pure_dp_to_gdp
from .policy import Policy

__all__ = ["Entry", "ENTRIES", "PRIVACY_KINDS", "DerivedMap", "DerivedList", "entry", "labels",
           "presets", "factories", "DP_UCB_INT_DELTA", "DP_TS_UCB_ALPHA", "TOSSOU2016_V",
           "HU2025_BASELINE_EPSILON",
           "WU2025_VARIANTS", "mts_pre_pulls"]

Factory = Callable[..., Policy]

#: What a guarantee can be: none, pure eps-DP, (eps, delta)-DP or Gaussian DP.
PRIVACY_KINDS = ("none", "pure", "approx", "gdp")

#: delta' of DP-UCB-INT: Tossou and Dimitrakakis (2016), Figure 2 (Corollary 3.2 calibration)
DP_UCB_INT_DELTA = math.exp(-10)
#: v of DP-UCB-INT's Corollary 3.2 calibration in Tossou and Dimitrakakis (2016), Section 5
TOSSOU2016_V = 1.1
#: alpha of DP-TS-UCB on the common scale: 1, the most private setting (mu about 2.87 at any T)
DP_TS_UCB_ALPHA = 1.0
#: epsilon of the pure-DP baselines of Hu et al. (2025), Appendix E.2
HU2025_BASELINE_EPSILON = 0.5

#: Wu and Wang (2025): the RNM-FTNL variants their Table 2 and Section 3 compare, as
#: RNMFTNL settings (None: the naive FTNL, Laplace K/eps per action, never resampling).
WU2025_VARIANTS: dict[str, dict[str, Any] | None] = {
    "Laplace 2/ε": dict(noise="laplace", noise_factor="strict"),
    "Exp 2/ε": dict(noise="exponential", noise_factor="strict"),
    "Exp 1/ε (paper)": dict(noise="exponential", noise_factor="wu2025"),
    "Gumbel 2/ε": dict(noise="gumbel", noise_factor="strict"),
    "Laplace 1/ε (Hu et al.)": dict(noise="laplace", noise_factor="hu2021",
                                    first_action="first"),
    "Naive FTNL (Laplace K/ε)": None,
}


@dataclass(frozen=True)
class Entry:
    """One algorithm of the book.

    Parameters
    ----------
    policy : type
        The :class:`~dpolearn.policy.Policy` subclass; the entry's label is its ``label``.
    privacy : {"none", "pure", "approx", "gdp"}
        The kind of its guarantee; a variant ``"<label> (<detail>)"`` has the same kind.
    presets : dict
        Preset name -> {display label: ``factory(epsilon, horizon, **options)``}. A preset may
        build the algorithm under variant labels (several settings side by side); the
        ``"common"`` preset's variants are styled book-wide like algorithms.
    takes_epsilon : bool
        Whether the comparison runs it over the epsilon grid (``False``: once, without one).
    max_epsilon : float
        The largest grid epsilon it can be configured for (DP-UCB-INT's calibration needs
        eps <= 1).
    task_cost : float
        Relative cost per round in the comparison (measured at quick scale), only used to
        schedule the longest tasks first.
    """

    policy: type
    privacy: str
    presets: Mapping[str, Mapping[str, Factory]] = field(default_factory=dict)
    takes_epsilon: bool = True
    max_epsilon: float = math.inf
    task_cost: float = 1.0

    def __post_init__(self):
        if not (isinstance(self.policy, type) and issubclass(self.policy, Policy)):
            raise TypeError(f"policy must be a Policy subclass, got {self.policy!r}")
        if self.privacy not in PRIVACY_KINDS:
            raise ValueError(f"privacy must be one of {PRIVACY_KINDS}, got {self.privacy!r}")

    @property
    def label(self) -> str:
        """The display label: the policy class's ``label``."""
        return self.policy.label

    @property
    def feedback(self) -> str:
        """``"bandit"`` or ``"full"``: the policy class's feedback."""
        return self.policy.feedback


# ------------------------------------------------------------------ factories
def mts_pre_pulls(horizon: int) -> int:
    """Round-robin pre-pulls b of M-TS-Gaussian on the common scale: T/500 (Hu et al. 2025 use
    b = 2000 at T = 10^6, Section 5.3)."""
    return max(1, check_positive_int("horizon", horizon) // 500)


def _need_epsilon(label: str, epsilon: Any) -> None:
    if epsilon is None:
        raise ValueError(f"epsilon is required for {label}, got None")


def _common(factory: Callable[[np.ndarray, Any], Policy], label: str) -> Factory:
    """A common-scale factory: epsilon required and read as a float array."""
    def build(epsilon=None, horizon=None):
        _need_epsilon(label, epsilon)
        return factory(np.asarray(epsilon, dtype=float), horizon)
    return build


def _plain(factory: Callable[..., Policy], label: str) -> Factory:
    """A paper-preset factory: epsilon required, passed on as given (scalar or per-run)."""
    def build(epsilon=None, horizon=None, **options):
        _need_epsilon(label, epsilon)
        return factory(epsilon, horizon, **options)
    return build


def _fixed(make: Callable[[], Policy]) -> Factory:
    """A factory of a policy without epsilon or horizon."""
    def build(epsilon=None, horizon=None):
        return make()
    return build


def _common_mts_gaussian(epsilon, horizon):
    """M-TS-Gaussian at mu = pure_dp_to_gdp(eps): c = T / ((b + 1) mu^2), b = T/500."""
    b = mts_pre_pulls(horizon)
    mu = pure_dp_to_gdp(epsilon)
    b_arr = np.full(np.shape(epsilon), b, dtype=np.int64) if np.ndim(epsilon) else b
    return MTSGaussian(b=b_arr, c=horizon / ((b + 1) * np.asarray(mu) ** 2), horizon=horizon)


def _wu2025(settings: dict[str, Any] | None, label: str) -> Factory:
    def build(epsilon, horizon=None, resample: bool = True):
        if settings is None:
            return NaiveFTNL(epsilon=epsilon)
        return RNMFTNL(epsilon=epsilon, resample=resample, **settings)
    return _plain(build, label)


def _tossou2016_int(e, T, schedule="lemmaB1_y"):
    return DPUCBInt.from_target(e, delta_prime=DP_UCB_INT_DELTA, v=TOSSOU2016_V,
                                schedule=schedule)


# ------------------------------------------------------------------ the entries
#: Every algorithm of the book, in the order of the book's tables and styles.
ENTRIES: list[Entry] = [
    Entry(UCB1, "none", task_cost=0.6, takes_epsilon=False, presets={
        "common": {"UCB1": _fixed(UCB1)},
        "tossou2016": {"UCB1": lambda epsilon=None, horizon=None, **_: UCB1()},
        "primer": {"UCB1": _fixed(UCB1)}}),
    Entry(KLUCB, "none", task_cost=15.0, takes_epsilon=False, presets={
        "common": {"KL-UCB": _fixed(KLUCB)}}),
    Entry(BetaTS, "none", task_cost=1.4, takes_epsilon=False, presets={
        "common": {"TS (Beta)": _fixed(BetaTS)},
        "hu2022": {"TS (Beta)": _fixed(BetaTS)},
        "primer": {"TS (Beta)": _fixed(BetaTS)}}),
    Entry(GaussianTS, "none", task_cost=0.7, takes_epsilon=False, presets={
        "common": {"TS (Gaussian)": _fixed(GaussianTS)}}),
    Entry(UniformPlay, "pure", task_cost=0.6, takes_epsilon=False, presets={
        "common": {"Uniform": _fixed(UniformPlay)}}),
    Entry(DPUCBBound, "pure", task_cost=3.5, presets={
        "common": {"DP-UCB-BOUND": _common(lambda e, T: DPUCBBound(epsilon=e, split="chan"),
                                           "DP-UCB-BOUND")},
        "tossou2016": {"DP-UCB-BOUND": _plain(lambda e, T: DPUCBBound(epsilon=e, split="paper"),
                                              "DP-UCB-BOUND")}}),
    Entry(DPUCB, "pure", task_cost=2.7, presets={
        "common": {"DP-UCB": _common(lambda e, T: DPUCB(epsilon=e, split="chan"), "DP-UCB")},
        "tossou2016": {"DP-UCB": _plain(lambda e, T: DPUCB(epsilon=e, split="paper"),
                                        "DP-UCB")}}),
    Entry(DPUCBInt, "approx", task_cost=1.6, max_epsilon=1.0, presets={
        "common": {"DP-UCB-INT": _common(
            lambda e, T: DPUCBInt.from_target(e, delta_prime=DP_UCB_INT_DELTA), "DP-UCB-INT")},
        "tossou2016": {"DP-UCB-INT": _plain(_tossou2016_int, "DP-UCB-INT")}}),
    Entry(PrivateUCB, "pure", task_cost=2.3, presets={
        "common": {"Private-UCB": _common(
            lambda e, T: PrivateUCB(epsilon=e, horizon=T, variant="MT_noK"), "Private-UCB")},
        "tossou2016": {"Private-UCB": _plain(lambda e, T: PrivateUCB(epsilon=e, horizon=T),
                                             "Private-UCB")}}),
    Entry(AnytimeLazyUCB, "pure", task_cost=1.3, presets={
        "common": {"Anytime-Lazy-UCB": _common(lambda e, T: AnytimeLazyUCB(epsilon=e),
                                               "Anytime-Lazy-UCB")},
        "hu2021": {"Anytime-Lazy-UCB": _plain(lambda e, T: AnytimeLazyUCB(epsilon=e),
                                              "Anytime-Lazy-UCB")},
        "hu2022": {"Anytime-Lazy-UCB": _plain(lambda e, T: AnytimeLazyUCB(epsilon=e),
                                              "Anytime-Lazy-UCB")},
        "hu2025": {"Anytime-Lazy-UCB": lambda epsilon=HU2025_BASELINE_EPSILON, horizon=None:
                   AnytimeLazyUCB(epsilon=epsilon)}}),
    Entry(DPTS, "pure", task_cost=14.0, presets={
        "common": {"DP-TS": _common(lambda e, T: DPTS(epsilon=e), "DP-TS")},
        "hu2022": {"DP-TS": _plain(lambda e, T: DPTS(epsilon=e), "DP-TS")}}),
    Entry(LazyDPTS, "pure", task_cost=4.3, presets={
        "common": {"Lazy-DP-TS": _common(lambda e, T: LazyDPTS(epsilon=e), "Lazy-DP-TS")},
        "hu2021": {"Lazy-DP-TS": _plain(lambda e, T: LazyDPTS(epsilon=e), "Lazy-DP-TS")},
        "hu2022": {"Lazy-DP-TS": _plain(lambda e, T: LazyDPTS(epsilon=e, log="log2"),
                                        "Lazy-DP-TS")},
        "hu2025": {"Lazy-DP-TS": lambda epsilon=HU2025_BASELINE_EPSILON, horizon=None:
                   LazyDPTS(epsilon=epsilon)}}),
    Entry(DPSE, "pure", task_cost=0.05, presets={
        "common": {"DP-SE": _common(lambda e, T: DPSE(epsilon=e, horizon=T), "DP-SE")},
        "hu2021": {"DP-SE": _plain(lambda e, T: DPSE(epsilon=e, horizon=T), "DP-SE")},
        "hu2022": {"DP-SE": _plain(lambda e, T: DPSE(epsilon=e, horizon=T, r_e_form="max"),
                                   "DP-SE"),
                   "DP-SE (sum)": _plain(lambda e, T: DPSE(epsilon=e, horizon=T, r_e_form="sum"),
                                         "DP-SE")},
        "hu2025": {"DP-SE": lambda epsilon=HU2025_BASELINE_EPSILON, horizon=None:
                   DPSE(epsilon=epsilon, horizon=horizon)}}),
    Entry(AdaPUCB, "pure", task_cost=0.35, presets={
        "common": {"AdaP-UCB": _common(lambda e, T: AdaPUCB(epsilon=e), "AdaP-UCB")}}),
    Entry(AdaPKLUCB, "pure", task_cost=1.2, presets={
        "common": {"AdaP-KLUCB": _common(lambda e, T: AdaPKLUCB(epsilon=e), "AdaP-KLUCB")},
        "hu2021": {"AdaP-KLUCB": _plain(lambda e, T: AdaPKLUCB(epsilon=e), "AdaP-KLUCB")}}),
    Entry(DPTSUCB, "gdp", task_cost=0.9, takes_epsilon=False, presets={
        "common": {"DP-TS-UCB": lambda epsilon=None, horizon=None: DPTSUCB(
            alpha=DP_TS_UCB_ALPHA, horizon=horizon)},
        "hu2025": {"DP-TS-UCB": lambda epsilon=None, horizon=None, *, alpha: DPTSUCB(
            alpha=alpha, horizon=horizon)}}),
    Entry(MTSGaussian, "gdp", task_cost=1.0, presets={
        "common": {"M-TS-Gaussian": _common(_common_mts_gaussian, "M-TS-Gaussian")},
        "hu2025": {"M-TS-Gaussian": lambda epsilon=None, horizon=None, *, b, c: MTSGaussian(
            b=b, c=c, horizon=horizon)}}),
    Entry(FTL, "none", takes_epsilon=False, presets={
        "common": {"FTL": _fixed(FTL)},
        "hu2021": {"FTL": _fixed(FTL)}}),
    Entry(Hedge, "none", takes_epsilon=False, presets={
        "common": {"Hedge": lambda epsilon=None, horizon=None: Hedge(horizon=horizon)},
        "hu2021": {"Hedge": _fixed(Hedge)}}),
    Entry(RNMFTNL, "pure", presets={
        "common": {
            "RNM-FTNL (strict, Lap)": _plain(lambda e, T: RNMFTNL(epsilon=e), "RNM-FTNL"),
            "RNM-FTNL (strict, Exp)": _plain(lambda e, T: RNMFTNL(epsilon=e, noise="exponential"),
                                             "RNM-FTNL"),
            "RNM-FTNL (strict, Gumbel)": _plain(lambda e, T: RNMFTNL(epsilon=e, noise="gumbel"),
                                                "RNM-FTNL"),
            "RNM-FTNL (hu2021 preset)": _plain(lambda e, T: RNMFTNL.hu2021(epsilon=e),
                                               "RNM-FTNL"),
            "RNM-FTNL (wu2025 preset, Lap)": _plain(lambda e, T: RNMFTNL.wu2025(epsilon=e),
                                                    "RNM-FTNL"),
            "RNM-FTNL (wu2025 preset, Exp)": _plain(
                lambda e, T: RNMFTNL.wu2025(epsilon=e, noise="exponential"), "RNM-FTNL")},
        # full information (Section 5): Hu et al.'s own reading of RNM-FTNL
        "hu2021": {"RNM-FTNL": _plain(lambda e, T: RNMFTNL.hu2021(epsilon=e), "RNM-FTNL")},
        "wu2025": {name: _wu2025(settings, name) for name, settings in WU2025_VARIANTS.items()
                   if settings is not None}}),
    Entry(NaiveFTNL, "pure", presets={
        "common": {"Naive FTNL": _plain(lambda e, T: NaiveFTNL(epsilon=e), "Naive FTNL")},
        "wu2025": {name: _wu2025(settings, name) for name, settings in WU2025_VARIANTS.items()
                   if settings is None}}),
]


# ------------------------------------------------------------------ derived, live tables
class _Derived:
    """A read-only table recomputed by ``build()`` (from ``ENTRIES``) each time it is read."""

    def __init__(self, build: Callable[[], Any]):
        if not callable(build):
            raise TypeError(f"build must be a function returning the table, got {build!r}")
        self._build = build

    def __getitem__(self, key):
        return self._build()[key]

    def __len__(self) -> int:
        return len(self._build())

    def __repr__(self) -> str:
        return repr(self._build())


class DerivedMap(_Derived, Mapping):
    """A read-only dict recomputed from ``ENTRIES`` each time it is read."""

    def __iter__(self) -> Iterator:
        return iter(self._build())


class DerivedList(_Derived, Sequence):
    """A read-only list recomputed from ``ENTRIES`` each time it is read (``+`` gives a
    list)."""

    def __add__(self, other) -> list:
        return list(self) + list(other)

    def __radd__(self, other) -> list:
        return list(other) + list(self)

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)


def entry(label: str) -> Entry:
    """The entry of the algorithm ``label`` (a variant ``"<label> (<detail>)"``, or any label
    of the entry's presets, finds its algorithm)."""
    if not isinstance(label, str):
        raise TypeError(f"label must be a str, got {label!r}")
    for e in ENTRIES:
        if e.label == label:
            return e
    for e in ENTRIES:
        if label.split(" (")[0] == e.label or any(label in t for t in e.presets.values()):
            return e
    raise ValueError(f"label must be one of {[e.label for e in ENTRIES]} or a variant of one, "
                     f"got {label!r}")


def presets() -> list[str]:
    """Every preset some entry has, in order of first appearance."""
    return list(dict.fromkeys(p for e in ENTRIES for p in e.presets))


def factories(preset: str) -> dict[str, Factory]:
    """{display label: factory} of one preset, in entry order."""
    names = presets()
    if not isinstance(preset, str) or preset not in names:
        raise ValueError(f"preset must be one of {names}, got {preset!r}")
    return {label: f for e in ENTRIES for label, f in e.presets.get(preset, {}).items()}


def labels(preset: str | None = None) -> list[str]:
    """Every entry's display label in entry order, or with ``preset`` the labels that preset
    builds (variants included)."""
    if preset is None:
        return [e.label for e in ENTRIES]
    return list(factories(preset))
