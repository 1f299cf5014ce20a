"""The policy catalogue: display label -> policy, with each paper's own settings as a preset.

Every experiment that builds policies from display labels builds them here, so the same label
means the same configuration everywhere it is used with the same preset. The entries (one per
algorithm: class, label, privacy kind, presets, comparison settings) are
:data:`dpolearn.algorithms.ENTRIES`; this module's tables are derived from them, live
(:data:`PRIVACY`, :data:`PRESETS`). The presets (``common``, ``tossou2016``, ``hu2021``,
``hu2022``, ``hu2025``, ``wu2025``, ``primer``) are described in :mod:`dpolearn.algorithms`.

Every factory is called as ``factory(epsilon, horizon, **options)``; ``epsilon`` may be a scalar
or an array with one entry per run (a batched sweep). :func:`make_policy` is the entry point.
"""
from __future__ import annotations

from typing import Any

from .. import algorithms
from ..algorithms import (
    DP_TS_UCB_ALPHA,
    DP_UCB_INT_DELTA,
    HU2025_BASELINE_EPSILON,
    TOSSOU2016_V,
    WU2025_VARIANTS,
    DerivedMap,
    Factory,
    mts_pre_pulls,
)
from ..plotting import style_of
from ..policy import Policy

__all__ = ["PRESETS", "PRIVACY", "DP_UCB_INT_DELTA", "DP_TS_UCB_ALPHA", "TOSSOU2016_V",
           "HU2025_BASELINE_EPSILON", "WU2025_VARIANTS", "PAPER_SCALE_LABELS", "experts_style",
           "labels", "make_policy",
           "mts_pre_pulls", "privacy_kind"]

#: Display label -> privacy kind of the policy: "none", "pure", "approx" ((eps, delta)) or
#: "gdp" (Gaussian DP). Variants "<label> (<detail>)" take the kind of their label.
PRIVACY: DerivedMap = DerivedMap(lambda: {e.label: e.privacy for e in algorithms.ENTRIES})

#: preset name -> {display label: factory(epsilon, horizon, ``**options``) -> Policy}
PRESETS: DerivedMap = DerivedMap(lambda: {p: algorithms.preset_table(p)
                                          for p in algorithms.preset_names()})


def _check_preset(preset: Any) -> dict[str, Factory]:
    names = algorithms.preset_names()
    if not isinstance(preset, str) or preset not in names:
        raise ValueError(f"preset must be one of {names}, got {preset!r}")
    return algorithms.preset_table(preset)


def labels(preset: str = "common") -> tuple[str, ...]:
    """The display labels a preset can build, in catalogue order."""
    return tuple(_check_preset(preset))


def privacy_kind(label: str) -> str:
    """"none", "pure", "approx" or "gdp": the kind of guarantee the policy ``label`` has
    (a variant ``"<label> (<detail>)"`` has the kind of ``<label>``)."""
    return algorithms.entry(label).privacy


#: Full-information labels at a paper's own 1/eps noise scale, honestly only 2 eps-DP at the
#: epsilon they are given: Hu et al. (2021) Lap(1/eps), Wu and Wang (2025) Table 2 Exp(1/eps)
#: (their Laplace preset is Lap(2/eps), the strict scale).
PAPER_SCALE_LABELS = ("RNM-FTNL (hu2021 preset)", "RNM-FTNL (wu2025 preset, Exp)")


def experts_style(label: str) -> dict[str, Any]:
    """The book-wide line style of a full-information label, the one convention of every
    experts figure: colour and marker of :func:`dpolearn.plotting.style_of`, a solid line for
    RNM-FTNL at the strict 2/eps scale, dashed for the papers' 1/eps scales
    (:data:`PAPER_SCALE_LABELS`), dotted for the naive FTNL; other labels keep their style."""
    style = style_of(label)
    if label == "Naive FTNL":
        style["linestyle"] = ":"
    elif label in PAPER_SCALE_LABELS:
        style["linestyle"] = "--"
    elif label.startswith("RNM-FTNL ("):
        style["linestyle"] = "-"
    return style


def make_policy(label: str, epsilon: Any = None, horizon: int | None = None, *,
                preset: str = "common", **options: Any) -> Policy:
    """The policy ``label`` with the settings of ``preset``.

    Parameters
    ----------
    label : str
        A display label of the preset (:func:`labels`).
    epsilon : float or array, optional
        Privacy parameter, one value or one per run; required by the private labels except
        where the preset fixes it (the baselines of ``"hu2025"``).
    horizon : int, optional
        T, for the policies that need it (DP-SE, Private-UCB, DP-TS-UCB, M-TS-Gaussian).
    preset : str
        One of :data:`PRESETS` (:mod:`dpolearn.algorithms` says whose settings each holds).
    **options
        Further constructor settings a preset's factory takes (DP-UCB-INT's ``schedule`` in
        ``"tossou2016"``, ``alpha`` and ``b``, ``c`` in ``"hu2025"``).
    """
    table = _check_preset(preset)
    if label not in table:
        raise ValueError(f"label must be one of {list(table)} (preset {preset!r}), got {label!r}")
    if epsilon is None:
        return table[label](horizon=horizon, **options)
    return table[label](epsilon, horizon, **options)
