"""The policy catalogue: display label -> policy, with each paper's own settings as a preset.

Every experiment that builds policies from display labels builds them here, so the same label
means the same configuration everywhere it is used with the same preset. Each algorithm is one
entry (its class, label, privacy kind, presets and comparison settings) in the package's list
of algorithms, ``dpolearn/_algorithms.py``; this module's tables are derived from the entries,
live (:data:`PRIVACY`, :data:`PRESETS`), like the plotting styles and the comparison's tables.

A *preset* names whose settings a label takes:

``"common"``
    The comparison chapter's common privacy scale (``book/comparison.md``): every private
    bandit algorithm configured so that its honest guarantee is the grid's epsilon.
    DP-UCB-BOUND and DP-UCB split the budget as Chan et al. do (``split="chan"``);
    DP-UCB-INT is calibrated to ``(eps, e^-10)``-DP by Tossou and Dimitrakakis (2016),
    Corollary 3.2; Private-UCB uses the ``"MT_noK"`` budget (its guarantee is then eps);
    M-TS-Gaussian gets ``mu = pure_dp_to_gdp(eps)`` with b = T/500 pre-pulls (Hu et al. 2025
    use b = 2000 at T = 10^6, Section 5.3); DP-TS-UCB runs at alpha = 1, its most private
    setting (Hu et al. 2025, Theorem 4.3). The full-information labels are the strict noise
    families of RNM-FTNL and the two papers' presets, named by their input epsilon.
``"tossou2016"``
    Tossou and Dimitrakakis (2016), Figure 2: DP-UCB-BOUND and DP-UCB with the paper's own
    budget split (``split="paper"``), DP-UCB-INT calibrated by Corollary 3.2 with
    delta' = e^-10 and v = 1.1 (its Section 5), Private-UCB of Mishra and Thakurta with its
    horizon; the epsilon given is the *target*.
``"hu2021"``
    Hu, Huang, Mehta and Hegde (arXiv:2102.07929v3), Section 6: Anytime-Lazy-UCB and
    Lazy-DP-TS (natural logarithms), DP-SE of Sajed and Sheffet (max form of the epoch
    length, beta = 1/T) and AdaP-KLUCB of Azize and Basu (alpha = 3.1).
``"hu2022"``
    Hu and Hegde (UAI 2022), Section 5: DP-TS, Lazy-DP-TS with base-2 logarithms (as the paper
    writes), Anytime-Lazy-UCB, DP-SE in its max and sum forms, non-private Beta-TS.
``"hu2025"``
    Hu, Huang, Zhang, Lécuyer and Hegde (ICML 2025), Section 5 and Appendix E: DP-TS-UCB at a
    given alpha, M-TS-Gaussian at given (b, c), and the (eps, 0)-DP baselines of Appendix E.2
    (eps = 0.5: Anytime-Lazy-UCB, Lazy-DP-TS, DP-SE).
``"wu2025"``
    Wu and Wang (2025): the RNM-FTNL noise families at the strict 2/eps scale, their own
    Exp(1/eps) (Table 2), Hu et al.'s Lap(1/eps) with action 0 first, and the naive FTNL
    (:data:`WU2025_VARIANTS`); option ``resample``.
``"primer"``
    The primer's non-private pair: UCB1 (Auer et al. 2002) and Beta-TS.

Every factory is called as ``factory(epsilon, horizon, **options)``; ``epsilon`` may be a scalar
or an array with one entry per run (a batched sweep). :func:`make_policy` is the entry point.
"""
from __future__ import annotations

from typing import Any

from .. import _algorithms
from .._algorithms import (
    DP_TS_UCB_ALPHA,
    DP_UCB_INT_DELTA,
    HU2025_BASELINE_EPSILON,
    TOSSOU2016_V,
    WU2025_VARIANTS,
    DerivedMap,
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
PRIVACY = DerivedMap(lambda: {e.label: e.privacy for e in _algorithms.ENTRIES})

#: preset name -> {display label: factory(epsilon, horizon, ``**options``) -> Policy}
PRESETS = DerivedMap(lambda: {p: _algorithms.factories(p)
                             for p in _algorithms.presets()})


def labels(preset: str = "common") -> tuple[str, ...]:
    """The display labels a preset can build, in catalogue order."""
    return tuple(_algorithms.labels(preset))


def privacy_kind(label: str) -> str:
    """"none", "pure", "approx" or "gdp": the kind of guarantee the policy ``label`` has
    (a variant ``"<label> (<detail>)"`` has the kind of ``<label>``)."""
    return _algorithms.entry(label).privacy


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
        One of :data:`PRESETS` (see the module docstring for whose settings each holds).
    **options
        Further constructor settings a preset's factory takes (DP-UCB-INT's ``schedule`` in
        ``"tossou2016"``, ``alpha`` and ``b``, ``c`` in ``"hu2025"``).
    """
    table = _algorithms.factories(preset)
    if label not in table:
        raise ValueError(f"label must be one of {list(table)} (preset {preset!r}), got {label!r}")
    if epsilon is None:
        return table[label](horizon=horizon, **options)
    return table[label](epsilon, horizon, **options)
