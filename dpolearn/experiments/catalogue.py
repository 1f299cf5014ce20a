"""The policy catalogue: display label -> policy, with each paper's own settings as a preset.

Every experiment that builds policies from display labels builds them here, so the same label
means the same configuration everywhere it is used with the same preset. A *preset* names whose
settings a label takes:

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

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..bandits import (
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
from ..fullinfo import FTL, RNMFTNL, Hedge, NaiveFTNL
from ..gdp import pure_dp_to_gdp
from ..plotting import style_of
from ..policy import Policy

__all__ = ["PRESETS", "PRIVACY", "DP_UCB_INT_DELTA", "DP_TS_UCB_ALPHA", "TOSSOU2016_V",
           "HU2025_BASELINE_EPSILON", "WU2025_VARIANTS", "PAPER_SCALE_LABELS", "experts_style",
           "labels", "make_policy",
           "mts_pre_pulls", "privacy_kind"]

#: delta' of DP-UCB-INT: Tossou and Dimitrakakis (2016), Figure 2 (Corollary 3.2 calibration)
DP_UCB_INT_DELTA = math.exp(-10)
#: v of DP-UCB-INT's Corollary 3.2 calibration in Tossou and Dimitrakakis (2016), Section 5
TOSSOU2016_V = 1.1
#: alpha of DP-TS-UCB on the common scale: 1, the most private setting (mu about 2.87 at any T)
DP_TS_UCB_ALPHA = 1.0
#: epsilon of the pure-DP baselines of Hu et al. (2025), Appendix E.2
HU2025_BASELINE_EPSILON = 0.5

Factory = Callable[..., Policy]

#: Display label -> privacy kind of the policy: "none", "pure", "approx" ((eps, delta)) or
#: "gdp" (Gaussian DP). Variants "<label> (<detail>)" take the kind of their label.
PRIVACY: dict[str, str] = {
    "UCB1": "none", "KL-UCB": "none", "TS (Beta)": "none", "TS (Gaussian)": "none",
    "Uniform": "pure",
    "DP-UCB-BOUND": "pure", "DP-UCB": "pure", "DP-UCB-INT": "approx", "Private-UCB": "pure",
    "Anytime-Lazy-UCB": "pure", "DP-TS": "pure", "Lazy-DP-TS": "pure", "DP-SE": "pure",
    "AdaP-UCB": "pure", "AdaP-KLUCB": "pure", "DP-TS-UCB": "gdp", "M-TS-Gaussian": "gdp",
    "FTL": "none", "Hedge": "none", "RNM-FTNL": "pure", "Naive FTNL": "pure",
}


def mts_pre_pulls(horizon: int) -> int:
    """Round-robin pre-pulls b of M-TS-Gaussian on the common scale: T/500 (Hu et al. 2025 use
    b = 2000 at T = 10^6, Section 5.3)."""
    return max(1, int(horizon) // 500)


def _need_epsilon(label: str, epsilon: Any) -> None:
    if epsilon is None:
        raise ValueError(f"epsilon is required for {label}, got None")


# ------------------------------------------------------------------ the common scale
def _common_mts_gaussian(epsilon, horizon):
    """M-TS-Gaussian at mu = pure_dp_to_gdp(eps): c = T / ((b + 1) mu^2), b = T/500."""
    b = mts_pre_pulls(horizon)
    mu = pure_dp_to_gdp(epsilon)
    b_arr = np.full(np.shape(epsilon), b, dtype=np.int64) if np.ndim(epsilon) else b
    return MTSGaussian(b=b_arr, c=horizon / ((b + 1) * np.asarray(mu) ** 2), horizon=horizon)


def _common(factory: Callable[[np.ndarray, Any], Policy], label: str) -> Factory:
    """A common-scale factory: epsilon required and read as a float array."""
    def build(epsilon=None, horizon=None):
        _need_epsilon(label, epsilon)
        return factory(np.asarray(epsilon, dtype=float), horizon)
    return build


_COMMON_BANDITS: dict[str, Factory] = {
    "UCB1": lambda epsilon=None, horizon=None: UCB1(),
    "KL-UCB": lambda epsilon=None, horizon=None: KLUCB(),
    "TS (Beta)": lambda epsilon=None, horizon=None: BetaTS(),
    "TS (Gaussian)": lambda epsilon=None, horizon=None: GaussianTS(),
    "Uniform": lambda epsilon=None, horizon=None: UniformPlay(),
    "DP-UCB-BOUND": _common(lambda e, T: DPUCBBound(epsilon=e, split="chan"), "DP-UCB-BOUND"),
    "DP-UCB": _common(lambda e, T: DPUCB(epsilon=e, split="chan"), "DP-UCB"),
    "DP-UCB-INT": _common(lambda e, T: DPUCBInt.from_target(e, delta_prime=DP_UCB_INT_DELTA),
                          "DP-UCB-INT"),
    "Private-UCB": _common(lambda e, T: PrivateUCB(epsilon=e, horizon=T, variant="MT_noK"),
                           "Private-UCB"),
    "Anytime-Lazy-UCB": _common(lambda e, T: AnytimeLazyUCB(epsilon=e), "Anytime-Lazy-UCB"),
    "DP-TS": _common(lambda e, T: DPTS(epsilon=e), "DP-TS"),
    "Lazy-DP-TS": _common(lambda e, T: LazyDPTS(epsilon=e), "Lazy-DP-TS"),
    "DP-SE": _common(lambda e, T: DPSE(epsilon=e, horizon=T), "DP-SE"),
    "AdaP-UCB": _common(lambda e, T: AdaPUCB(epsilon=e), "AdaP-UCB"),
    "AdaP-KLUCB": _common(lambda e, T: AdaPKLUCB(epsilon=e), "AdaP-KLUCB"),
    "DP-TS-UCB": lambda epsilon=None, horizon=None: DPTSUCB(alpha=DP_TS_UCB_ALPHA,
                                                            horizon=horizon),
    "M-TS-Gaussian": _common(_common_mts_gaussian, "M-TS-Gaussian"),
}


def _plain(factory: Callable[[Any, Any], Policy], label: str) -> Factory:
    """A paper-preset factory: epsilon required, passed on as given (scalar or per-run)."""
    def build(epsilon=None, horizon=None, **options):
        _need_epsilon(label, epsilon)
        return factory(epsilon, horizon, **options)
    return build


_COMMON_FULLINFO: dict[str, Factory] = {
    "FTL": lambda epsilon=None, horizon=None: FTL(),
    "Hedge": lambda epsilon=None, horizon=None: Hedge(horizon=horizon),
    "RNM-FTNL (strict, Lap)": _plain(lambda e, T: RNMFTNL(epsilon=e), "RNM-FTNL"),
    "RNM-FTNL (strict, Exp)": _plain(lambda e, T: RNMFTNL(epsilon=e, noise="exponential"),
                                     "RNM-FTNL"),
    "RNM-FTNL (strict, Gumbel)": _plain(lambda e, T: RNMFTNL(epsilon=e, noise="gumbel"),
                                        "RNM-FTNL"),
    "RNM-FTNL (hu2021 preset)": _plain(lambda e, T: RNMFTNL.hu2021(epsilon=e), "RNM-FTNL"),
    "RNM-FTNL (wu2025 preset, Lap)": _plain(lambda e, T: RNMFTNL.wu2025(epsilon=e), "RNM-FTNL"),
    "RNM-FTNL (wu2025 preset, Exp)": _plain(
        lambda e, T: RNMFTNL.wu2025(epsilon=e, noise="exponential"), "RNM-FTNL"),
    "Naive FTNL": _plain(lambda e, T: NaiveFTNL(epsilon=e), "Naive FTNL"),
}

# ------------------------------------------------------------------ the papers' presets
_TOSSOU2016: dict[str, Factory] = {
    "UCB1": lambda epsilon=None, horizon=None, **_: UCB1(),
    "DP-UCB-BOUND": _plain(lambda e, T: DPUCBBound(epsilon=e, split="paper"), "DP-UCB-BOUND"),
    "DP-UCB": _plain(lambda e, T: DPUCB(epsilon=e, split="paper"), "DP-UCB"),
    "DP-UCB-INT": _plain(
        lambda e, T, schedule="lemmaB1_y": DPUCBInt.from_target(
            e, delta_prime=DP_UCB_INT_DELTA, v=TOSSOU2016_V, schedule=schedule),
        "DP-UCB-INT"),
    "Private-UCB": _plain(lambda e, T: PrivateUCB(epsilon=e, horizon=T), "Private-UCB"),
}

_HU2021: dict[str, Factory] = {
    "Anytime-Lazy-UCB": _plain(lambda e, T: AnytimeLazyUCB(epsilon=e), "Anytime-Lazy-UCB"),
    "Lazy-DP-TS": _plain(lambda e, T: LazyDPTS(epsilon=e), "Lazy-DP-TS"),
    "DP-SE": _plain(lambda e, T: DPSE(epsilon=e, horizon=T), "DP-SE"),       # max form, 1/T
    "AdaP-KLUCB": _plain(lambda e, T: AdaPKLUCB(epsilon=e), "AdaP-KLUCB"),   # alpha = 3.1
    # full information (Section 5): their own reading of RNM-FTNL, and the references
    "RNM-FTNL": _plain(lambda e, T: RNMFTNL.hu2021(epsilon=e), "RNM-FTNL"),
    "FTL": lambda epsilon=None, horizon=None: FTL(),
    "Hedge": lambda epsilon=None, horizon=None: Hedge(),
}

_HU2022: dict[str, Factory] = {
    "DP-TS": _plain(lambda e, T: DPTS(epsilon=e), "DP-TS"),
    "Lazy-DP-TS": _plain(lambda e, T: LazyDPTS(epsilon=e, log="log2"), "Lazy-DP-TS"),
    "Anytime-Lazy-UCB": _plain(lambda e, T: AnytimeLazyUCB(epsilon=e), "Anytime-Lazy-UCB"),
    "DP-SE": _plain(lambda e, T: DPSE(epsilon=e, horizon=T, r_e_form="max"), "DP-SE"),
    "DP-SE (sum)": _plain(lambda e, T: DPSE(epsilon=e, horizon=T, r_e_form="sum"), "DP-SE"),
    "TS (Beta)": lambda epsilon=None, horizon=None: BetaTS(),
}

_HU2025: dict[str, Factory] = {
    "DP-TS-UCB": lambda epsilon=None, horizon=None, *, alpha: DPTSUCB(alpha=alpha,
                                                                      horizon=horizon),
    "M-TS-Gaussian": lambda epsilon=None, horizon=None, *, b, c: MTSGaussian(b=b, c=c,
                                                                             horizon=horizon),
    "Anytime-Lazy-UCB": lambda epsilon=HU2025_BASELINE_EPSILON, horizon=None: AnytimeLazyUCB(
        epsilon=epsilon),
    "Lazy-DP-TS": lambda epsilon=HU2025_BASELINE_EPSILON, horizon=None: LazyDPTS(
        epsilon=epsilon),
    "DP-SE": lambda epsilon=HU2025_BASELINE_EPSILON, horizon=None: DPSE(epsilon=epsilon,
                                                                       horizon=horizon),
}

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


def _wu2025(settings: dict[str, Any] | None, label: str) -> Factory:
    def build(epsilon, horizon=None, resample: bool = True):
        if settings is None:
            return NaiveFTNL(epsilon=epsilon)
        return RNMFTNL(epsilon=epsilon, resample=resample, **settings)
    return _plain(build, label)


_WU2025: dict[str, Factory] = {name: _wu2025(settings, name)
                               for name, settings in WU2025_VARIANTS.items()}

_PRIMER: dict[str, Factory] = {
    "UCB1": lambda epsilon=None, horizon=None: UCB1(),
    "TS (Beta)": lambda epsilon=None, horizon=None: BetaTS(),
}

#: preset name -> {display label: factory(epsilon, horizon, ``**options``) -> Policy}
PRESETS: dict[str, dict[str, Factory]] = {
    "common": {**_COMMON_BANDITS, **_COMMON_FULLINFO},
    "tossou2016": _TOSSOU2016,
    "hu2021": _HU2021,
    "hu2022": _HU2022,
    "hu2025": _HU2025,
    "wu2025": _WU2025,
    "primer": _PRIMER,
}


def _check_preset(preset: Any) -> dict[str, Factory]:
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ValueError(f"preset must be one of {list(PRESETS)}, got {preset!r}")
    return PRESETS[preset]


def labels(preset: str = "common") -> tuple[str, ...]:
    """The display labels a preset can build, in catalogue order."""
    return tuple(_check_preset(preset))


def privacy_kind(label: str) -> str:
    """"none", "pure", "approx" or "gdp": the kind of guarantee the policy ``label`` has
    (a variant ``"<label> (<detail>)"`` has the kind of ``<label>``)."""
    if not isinstance(label, str):
        raise TypeError(f"label must be a str, got {label!r}")
    base = label if label in PRIVACY else label.split(" (")[0]
    if base not in PRIVACY:
        raise ValueError(f"label must be one of {sorted(PRIVACY)} or a variant of one, "
                         f"got {label!r}")
    return PRIVACY[base]


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
    table = _check_preset(preset)
    if label not in table:
        raise ValueError(f"label must be one of {list(table)} (preset {preset!r}), got {label!r}")
    if epsilon is None:
        return table[label](horizon=horizon, **options)
    return table[label](epsilon, horizon, **options)
