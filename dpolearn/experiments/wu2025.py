"""Experiments of Wu and Wang (2025): Table 1 and the book's simulations of its claims.

The paper has no experiments of its own. Its rates table is reproduced as data, and the
simulations check its claims: regret flat in T (E1), the dependence on K (E2, log K or
log^2 K), on epsilon (E3), the privacy of each noise scale (E7) and the Bernoulli-resampling
example of its Section 3.1 (corrected: erratum ``erratum-wu2025-example`` of the book's
appendix of readings and errata). Stochastic runs use the exact
epoch-level simulator; deterministic ones use the exact expected regret (no Monte Carlo).
"""
from __future__ import annotations

import numpy as np

from .._validation import check_positive_int
from ..envs import TwoPointExperts
from ..fullinfo.epoch_sim import (
    exact_regret_deterministic,
    privacy_loss_two_actions,
    two_action_probability,
)
from ..plotting import errorbar, shared_legend, subplots, sweep_styles
from ..simulate import simulate
from . import _settings, catalogue
from ._settings import Setting
from .catalogue import WU2025_VARIANTS, experts_style
from .engine import sweep
from .registry import derive_seed, parallel_map, register, regret_rows

__all__ = ["E1_SETTINGS", "E2_SETTINGS", "E3_SETTINGS", "PRIVACY_SETTINGS", "RESAMPLING_SETTINGS",
           "VARIANTS", "lin_instance", "make_policy", "two_level"]

#: The variants compared everywhere: display name -> (RNMFTNL settings of the ``"wu2025"``
#: preset of :mod:`~dpolearn.experiments.catalogue`, None for the naive FTNL; the label whose
#: book-wide style the variant takes, as in the comparison chapter).
VARIANTS = {
    name: (WU2025_VARIANTS[name], key)
    for name, key in (("Laplace 2/ε", "RNM-FTNL (strict, Lap)"),
                      ("Exp 2/ε", "RNM-FTNL (strict, Exp)"),
                      ("Exp 1/ε (paper)", "RNM-FTNL (wu2025 preset, Exp)"),
                      ("Gumbel 2/ε", "RNM-FTNL (strict, Gumbel)"),
                      ("Laplace 1/ε (Hu et al.)", "RNM-FTNL (hu2021 preset)"),
                      ("Naive FTNL (Laplace K/ε)", "Naive FTNL"))
}


def make_policy(name: str, epsilon, resample: bool = True):
    """The policy of a display name in :data:`VARIANTS` (Naive FTNL never resamples)."""
    if name not in VARIANTS:
        raise ValueError(f"name must be one of {list(VARIANTS)}, got {name!r}")
    return catalogue.make_policy(name, epsilon, preset="wu2025", resample=resample)


def _style(name):
    """The variant's book-wide style (:func:`~dpolearn.experiments.catalogue.experts_style`):
    solid for the strict 2/eps scales, dashed for the papers' 1/eps scales, dotted for the
    naive FTNL."""
    return experts_style(VARIANTS[name][1])


# ---------------------------------------------------------------------------------------------
# Table 1: rates
# ---------------------------------------------------------------------------------------------
TABLE1 = [
    # setting, kind, bound, source
    (
        "original",
        "instance-dependent",
        "lower",
        r"$\ln K/\Delta_{\min} + \ln K/\varepsilon$",
        "Hu et al. (2021)",
    ),
    (
        "original",
        "instance-dependent",
        "upper",
        r"$\ln K/\Delta_{\min} + \ln K\ln T/\varepsilon$",
        "Hu et al. (2021)",
    ),
    (
        "original",
        "instance-dependent",
        "upper",
        r"$\ln K/\Delta_{\min} + \ln^2 K/\varepsilon$",
        "Wu and Wang (2025)",
    ),
    (
        "original",
        "instance-independent",
        "lower",
        r"$\sqrt{T\ln K} + \ln K/\varepsilon$",
        "Hu et al. (2021)",
    ),
    (
        "original",
        "instance-independent",
        "upper",
        r"$\sqrt{T\ln K} + K\ln K\ln^2 T/\varepsilon$",
        "Jain and Thakurta (2014)",
    ),
    (
        "original",
        "instance-independent",
        "upper",
        r"$\sqrt{T\ln K} + \ln K\ln T/\varepsilon$",
        "Asi et al. (2023); Hu et al. (2021)",
    ),
    (
        "original",
        "instance-independent",
        "upper",
        r"$\sqrt{T\log K} + \log^2 K/\varepsilon$",
        "Wu and Wang (2025)",
    ),
    ("deterministic", "instance-dependent", "lower", r"$\log K/\varepsilon$", "Wu and Wang (2025)"),
    (
        "deterministic",
        "instance-dependent",
        "upper",
        r"$\log^2 K/\varepsilon$",
        "Wu and Wang (2025), Cor. 10",
    ),
    (
        "deterministic",
        "instance-dependent",
        "upper",
        r"$\log K/\varepsilon$",
        "Wu and Wang (2025), Thm 11",
    ),
]


def _table1(scale, seed, jobs, progress):
    cols = ("setting", "regret", "bound", "rate", "source")
    return {"columns": cols, "rows": [dict(zip(cols, row)) for row in TABLE1]}


register(
    "wu2025-table1",
    title="Wu and Wang (2025), Table 1: regret rates of private stochastic DTOL",
    chapter="experts_experiments",
)(_table1)


# ---------------------------------------------------------------------------------------------
# E1: regret against T (flat curves)
# ---------------------------------------------------------------------------------------------
E1_SIZES = {"quick": dict(Ks=(4, 64), eps=(0.1, 1.0), log2T=30, n_runs=150),
            "paper": dict(Ks=(4, 64, 1024), eps=(0.1, 1.0), log2T=30, n_runs=2000)}


def two_level(K: int, low: float = 0.4, gap: float = 0.2) -> np.ndarray:
    """The two-level (TL) instance: one action with mean loss ``low``, K - 1 with ``low + gap``.

    The best action is put last, so the "first action" start of Hu et al. is not handed the
    optimum (every variant here is symmetric in the actions otherwise).
    """
    return np.r_[np.full(K - 1, low + gap), low]


def _eps_sweep(name, eps, n_runs, horizon, instance, seed, ck):
    """One variant at every epsilon of ``eps`` as ONE batch; one Result per epsilon, each with
    its scalar epsilon in params and its own guarantee."""
    return sweep(lambda cols: make_policy(name, cols["epsilon"]), instance, horizon,
                 [{"epsilon": float(e)} for e in eps], n_runs, seed, checkpoints=ck)


def _e1_task(task):
    name, K, eps, log2T, n_runs, seed = task
    ck = 2 ** np.arange(1, log2T + 1, dtype=np.int64) - 1
    return _eps_sweep(name, eps, n_runs, int(ck[-1]), TwoPointExperts.bernoulli(two_level(K)),
                      seed, ck)


def _numbers_of_actions(name, value):
    """Distinct numbers of actions K >= 2, in increasing order."""
    return _settings.distinct_ints(name, value, "numbers of actions K >= 2", 2, 2 ** 20)


def _log2_horizon(name, value):
    """T = 2**value - 1 rounds, value in [2, 40] (the simulator runs whole epochs)."""
    return check_positive_int(name, value, minimum=2, maximum=40)


#: What ``run("wu2025-regret-vs-T", scale, **overrides)`` may change.
E1_SETTINGS = (
    Setting("Ks", _numbers_of_actions, {s: c["Ks"] for s, c in E1_SIZES.items()},
            "Numbers of actions K of the two-level instances, one row of panels each."),
    Setting("epsilons", _settings.epsilons, {s: c["eps"] for s, c in E1_SIZES.items()},
            "Privacy parameters, one column of panels each."),
    Setting("log2_horizon", _log2_horizon, {s: c["log2T"] for s, c in E1_SIZES.items()},
            "The horizon is T = 2**log2_horizon - 1 (checkpoints at every 2**j - 1)."),
    Setting("n_runs", _settings.n_runs, {s: c["n_runs"] for s, c in E1_SIZES.items()},
            "Runs per curve."),
    Setting("algorithms", _settings.algorithms(tuple(VARIANTS)), tuple(VARIANTS),
            f"The variants, among {list(VARIANTS)}."),
)


def _e1(scale, seed, jobs, progress, Ks=None, epsilons=None, log2_horizon=None, n_runs=None,
        algorithms=tuple(VARIANTS)):
    cfg = dict(E1_SIZES[scale])
    for key, value in (("Ks", Ks), ("eps", epsilons), ("log2T", log2_horizon),
                       ("n_runs", n_runs)):
        if value is not None:
            cfg[key] = value
    tasks = [(name, K, cfg["eps"], cfg["log2T"], cfg["n_runs"],
              derive_seed("wu2025-regret-vs-T", name, K, seed))
             for name in algorithms for K in cfg["Ks"]]
    out = parallel_map(_e1_task, tasks, jobs)
    results = {(t[0], t[1], e): r for t, rs in zip(tasks, out) for e, r in zip(cfg["eps"], rs)}
    data = {"results": results, **cfg}
    if algorithms != tuple(VARIANTS):
        data["algorithms"] = algorithms
    return data


def _e1_plot(data):
    Ks, eps = data["Ks"], data["eps"]
    fig, axes = subplots(len(Ks), len(eps), sharex=True)       # rows: K, columns: epsilon
    for k, K in enumerate(Ks):
        for i, e in enumerate(eps):
            ax = axes[k, i]
            for name in data.get("algorithms", VARIANTS):
                res = data["results"][(name, K, e)]
                m, se = res.mean(), res.se()
                line, = ax.plot(res.checkpoints, m, label=name, ms=4, markevery=(0.02 * i, 0.12),
                                **_style(name))
                line._dpolearn_se = se
                ax.fill_between(res.checkpoints, m - 2 * se, m + 2 * se, color=line.get_color(),
                                alpha=0.15, lw=0)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.text(0.03, 0.95, f"K = {K}, ε = {e:g}", transform=ax.transAxes, va="top")
            if k == len(Ks) - 1:
                ax.set_xlabel("horizon T (rounds)")
            if i == 0:
                ax.set_ylabel("pseudo-regret")
    shared_legend(fig, axes)
    return fig


def _e1_summary(data):
    rows = []
    for (name, K, e), res in data["results"].items():
        rows += regret_rows("wu2025-regret-vs-T", f"K={K}", [res], epsilon=e, variant=name)
    return rows


register("wu2025-regret-vs-T", title="RNM-FTNL regret against T on Bernoulli two-level instances",
         plot=_e1_plot, summary=_e1_summary, chapter="experts_experiments",
         settings=E1_SETTINGS)(_e1)


# ---------------------------------------------------------------------------------------------
# E2: dependence on K (exact, deterministic setting; Monte Carlo, stochastic setting)
# ---------------------------------------------------------------------------------------------
E2_SIZES = {"quick": dict(log2K_tl=tuple(range(1, 13)), log2K_lin=tuple(range(1, 8)),
                          log2K_mc=tuple(range(1, 8)), n_runs=100),
            "paper": dict(log2K_tl=tuple(range(1, 15)), log2K_lin=tuple(range(1, 11)),
                          log2K_mc=tuple(range(1, 11)), n_runs=1000)}
E2_NAMES = ("Laplace 2/ε", "Exp 2/ε", "Exp 1/ε (paper)", "Gumbel 2/ε", "Laplace 1/ε (Hu et al.)")
E2_EPS_MC = 0.05


def lin_instance(K: int) -> np.ndarray:
    """LIN: gaps (j - 1) / (K - 1), best action last."""
    return np.arange(K)[::-1] / (K - 1)


def _e2_exact(task):
    family, name, K = task
    kwargs = VARIANTS[name][0]
    mu = two_level(K, low=0.0, gap=1.0) if family == "TL" else lin_instance(K)
    # eps = 1 and gaps of order 1: eps * R(inf) is what the theorems bound by log K or log^2 K
    return exact_regret_deterministic(
        mu,
        epsilon=1.0,
        noise=kwargs["noise"],
        noise_factor=kwargs["noise_factor"],
        first_action=kwargs.get("first_action", "uniform"),
    )


def _e2_mc(task):
    name, K, n_runs, epsilon, seed = task
    mu = two_level(K, low=0.25, gap=0.5)
    res = simulate(make_policy(name, epsilon), TwoPointExperts.bernoulli(mu), 2 ** 30 - 1,
                          n_runs, seed=seed, checkpoints=[2 ** 30 - 1],
                   progress=False)
    return res


def _log2_sizes(maximum):
    """A check of distinct exponents k in [1, maximum] (K = 2**k actions), in increasing order."""
    def check(name, value):
        return _settings.distinct_ints(name, value, f"exponents k in [1, {maximum}] (K = 2**k)",
                                       1, maximum)
    return check


#: What ``run("wu2025-regret-vs-K", scale, **overrides)`` may change.
E2_SETTINGS = (
    Setting("log2K_tl", _log2_sizes(20), {s: c["log2K_tl"] for s, c in E2_SIZES.items()},
            "Exponents k of the deterministic two-level instances, K = 2**k (exact, k <= 20)."),
    Setting("log2K_lin", _log2_sizes(20), {s: c["log2K_lin"] for s, c in E2_SIZES.items()},
            "Exponents k of the deterministic LIN instances, K = 2**k (exact, k <= 20)."),
    Setting("log2K_mc", _log2_sizes(16), {s: c["log2K_mc"] for s, c in E2_SIZES.items()},
            "Exponents k of the Bernoulli two-level instances, K = 2**k (simulated, k <= 16)."),
    Setting("n_runs", _settings.n_runs, {s: c["n_runs"] for s, c in E2_SIZES.items()},
            "Runs per simulated point."),
    Setting("epsilon", _settings.positive_float, E2_EPS_MC,
            "The privacy parameter of the simulated panel."),
    Setting("algorithms", _settings.algorithms(E2_NAMES), E2_NAMES,
            f"The variants, among {list(E2_NAMES)}."),
)


def _e2(scale, seed, jobs, progress, log2K_tl=None, log2K_lin=None, log2K_mc=None, n_runs=None,
        epsilon=E2_EPS_MC, algorithms=E2_NAMES):
    cfg = dict(E2_SIZES[scale])
    for key, value in (("log2K_tl", log2K_tl), ("log2K_lin", log2K_lin),
                       ("log2K_mc", log2K_mc), ("n_runs", n_runs)):
        if value is not None:
            cfg[key] = value
    exact_tasks = [("TL", n, 2 ** k) for n in algorithms for k in cfg["log2K_tl"]]
    exact_tasks += [("LIN", n, 2 ** k) for n in algorithms for k in cfg["log2K_lin"]]
    mc_tasks = [(n, 2 ** k, cfg["n_runs"], epsilon,
                 derive_seed("wu2025-regret-vs-K", n, k, seed))
                for n in algorithms for k in cfg["log2K_mc"]]
    exact = parallel_map(_e2_exact, exact_tasks, jobs)
    mc = parallel_map(_e2_mc, mc_tasks, jobs)
    data = {"exact": {t: v for t, v in zip(exact_tasks, exact)},
            "mc": {(t[0], t[1]): r for t, r in zip(mc_tasks, mc)}, "eps_mc": epsilon, **cfg}
    if algorithms != E2_NAMES:
        data["algorithms"] = algorithms
    return data


def _e2_plot(data):
    fig, axes = subplots(2, 2, sharey=True)
    panels = [axes[0, 0], axes[0, 1], axes[1, 0]]
    axes[1, 1].axis("off")
    names = data.get("algorithms", E2_NAMES)
    for ax, family in zip(panels[:2], ("TL", "LIN")):
        for name in names:
            pts = sorted(
                (K, v) for (f, n, K), v in data["exact"].items() if f == family and n == name
            )
            K, v = np.array(pts).T
            ax.plot(K, v / np.log(K), ms=4, label=name, **_style(name))
        ax.set_xscale("log", base=2)
        ax.set_xlabel("number of actions K")
        ax.text(0.0, 1.02, f"{family}, deterministic, exact", transform=ax.transAxes,
                va="bottom")
    ax = panels[2]
    eps = data["eps_mc"]
    for name in names:
        pts = sorted((K, r.final_mean, r.final_se) for (n, K), r in data["mc"].items() if n == name)
        K, m, se = np.array(pts).T
        errorbar(ax, K, eps * m / np.log(K), eps * se / np.log(K), name, z=2.0, ms=4,
                 **_style(name))
    ax.set_xscale("log", base=2)
    ax.set_xlabel("number of actions K")
    ax.text(0.0, 1.02, f"TL Bernoulli, B = 1, ε = {eps:g}", transform=ax.transAxes, va="bottom")
    for ax in panels:
        ax.set_ylim(bottom=0)
    for ax in axes[:, 0]:
        ax.set_ylabel("ε · R(∞) / ln K")
    handles, labels = panels[0].get_legend_handles_labels()
    axes[1, 1].legend(handles, labels, loc="center")
    return fig


def _e2_summary(data):
    rows = []
    for (name, K), res in sorted(data["mc"].items()):
        rows += regret_rows("wu2025-regret-vs-K", f"TL Bernoulli K={K}", [res],
                            epsilon=data["eps_mc"], variant=name)
    return rows


register("wu2025-regret-vs-K", title="ε·R(∞) against K: log K or log² K?", plot=_e2_plot,
         summary=_e2_summary, chapter="experts_experiments", settings=E2_SETTINGS)(_e2)


# ---------------------------------------------------------------------------------------------
# E3: dependence on epsilon
# ---------------------------------------------------------------------------------------------
E3_SIZES = {"quick": dict(eps=tuple(np.logspace(-3, 2, 11)), K=64, n_runs=100),
            "paper": dict(eps=tuple(np.logspace(-3, 2, 21)), K=64, n_runs=1000)}


def _e3_task(task):
    name, eps, K, n_runs, seed = task
    horizon = 2 ** 30 - 1
    return _eps_sweep(name, eps, n_runs, horizon, TwoPointExperts.bernoulli(two_level(K)), seed,
                      [horizon])


#: What ``run("wu2025-regret-vs-eps", scale, **overrides)`` may change.
E3_SETTINGS = (
    Setting("epsilons", _settings.epsilons,
            {s: tuple(float(e) for e in c["eps"]) for s, c in E3_SIZES.items()},
            "Privacy parameters (the x axis)."),
    Setting("K", lambda name, value: check_positive_int(name, value, minimum=2, maximum=2 ** 20),
            {s: c["K"] for s, c in E3_SIZES.items()},
            "Number of actions of the two-level instance (gap 0.2)."),
    Setting("n_runs", _settings.n_runs, {s: c["n_runs"] for s, c in E3_SIZES.items()},
            "Runs per point."),
    Setting("algorithms", _settings.algorithms(tuple(VARIANTS)), tuple(VARIANTS),
            f"The variants, among {list(VARIANTS)}."),
)


def _e3(scale, seed, jobs, progress, epsilons=None, K=None, n_runs=None,
        algorithms=tuple(VARIANTS)):
    cfg = dict(E3_SIZES[scale])
    for key, value in (("eps", epsilons), ("K", K), ("n_runs", n_runs)):
        if value is not None:
            cfg[key] = value
    tasks = [
        (name, cfg["eps"], cfg["K"], cfg["n_runs"], derive_seed("wu2025-regret-vs-eps", name, seed))
        for name in algorithms
    ]
    out = parallel_map(_e3_task, tasks, jobs)
    return {"results": {t[0]: rs for t, rs in zip(tasks, out)}, **cfg}


def _e3_plot(data):
    fig, axes = subplots()
    ax = axes[0, 0]
    eps = np.asarray(data["eps"])
    for name, rs in data["results"].items():
        m = np.array([r.final_mean for r in rs])
        se = np.array([r.final_se for r in rs])
        line, = ax.plot(eps, m, ms=4, label=name, **_style(name))
        line._dpolearn_se = se
        ax.fill_between(eps, m - 2 * se, m + 2 * se, color=line.get_color(), alpha=0.15, lw=0)
    ref_name = "Gumbel 2/ε" if "Gumbel 2/ε" in data["results"] else next(iter(data["results"]))
    ref = data["results"][ref_name][0].final_mean
    ax.plot(eps[:5], ref * eps[0] / eps[:5], "k:", lw=1, label="slope −1")
    ax.axvline(0.2, color="0.5", lw=1, ls="--")
    ax.annotate(" ε = Δ", xy=(0.2, 0.03), xycoords=("data", "axes fraction"), color="0.4")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("privacy parameter ε")
    ax.set_ylabel("pseudo-regret at T = 2³⁰ − 1")
    shared_legend(fig, axes, ncol=3)
    return fig


def _e3_summary(data):
    rows = []
    for name, rs in data["results"].items():
        for e, r in zip(data["eps"], rs):
            rows += regret_rows(
                "wu2025-regret-vs-eps", f"K={data['K']}", [r], epsilon=e, variant=name
            )
    return rows


register("wu2025-regret-vs-eps", title="RNM-FTNL regret against ε (TL, K = 64, Δ = 0.2)",
         plot=_e3_plot, summary=_e3_summary, chapter="experts_experiments",
         settings=E3_SETTINGS)(_e3)


# ---------------------------------------------------------------------------------------------
# E7: exact privacy loss of the noise scales, K = 2
# ---------------------------------------------------------------------------------------------
PRIVACY_CURVES = {
    "Laplace 2/ε": ("laplace", 2.0), "Exp 2/ε": ("exponential", 2.0),
    "Exp 1/ε (paper)": ("exponential", 1.0), "Gumbel 2/ε": ("gumbel", 2.0),
    "Laplace 1/ε (Hu et al.)": ("laplace", 1.0),
}


#: What ``run("wu2025-privacy", scale, **overrides)`` may change.
PRIVACY_SETTINGS = (
    Setting("epsilon", _settings.positive_float, 1.0,
            "The privacy parameter of the curves (the noise scales are c / epsilon)."),
    Setting("table_epsilons", _settings.epsilons, (0.5, 1.0, 2.0),
            "The privacy parameters of the table of worst-case losses."),
    Setting("algorithms", _settings.algorithms(tuple(PRIVACY_CURVES)), tuple(PRIVACY_CURVES),
            f"The noise scales, among {list(PRIVACY_CURVES)}."),
)


def _privacy(scale, seed, jobs, progress, epsilon=1.0, table_epsilons=(0.5, 1.0, 2.0),
             algorithms=tuple(PRIVACY_CURVES)):
    eps = epsilon
    d = np.linspace(-12, 10, 1101)
    chosen = {name: PRIVACY_CURVES[name] for name in algorithms}
    curves = {name: privacy_loss_two_actions(d, noise=noise, scale=c / eps)
              for name, (noise, c) in chosen.items()}
    table = {
        name: [
            float(privacy_loss_two_actions(0.0, noise=noise, scale=c / e)) for e in table_epsilons
        ]
        for name, (noise, c) in chosen.items()
    }
    return {"epsilon": eps, "d": d, "curves": curves, "table_eps": table_epsilons, "table": table}


def _privacy_plot(data):
    fig, axes = subplots()
    ax = axes[0, 0]
    for name, loss in data["curves"].items():
        ax.plot(data["d"], loss, label=name, markevery=0.1, ms=4, **_style(name))
    eps = data["epsilon"]
    ax.axhline(eps, color="k", lw=1)
    ax.axhline(2 * eps, color="k", lw=1, ls=":")
    ax.text(data["d"][0], eps * 1.02, "ε (the claim)", va="bottom")
    ax.text(data["d"][0], 2 * eps * 0.98, "2ε", va="top")
    ax.set_xlabel("score difference G₂ − G₁ before the replacement")
    ax.set_ylabel(f"privacy loss (ε = {eps:g})")
    shared_legend(fig, axes, ncol=3)
    return fig


register(
    "wu2025-privacy",
    title="Exact privacy loss of report-noisy-max, K = 2, one replaced vector",
    plot=_privacy_plot,
    chapter="experts",
    settings=PRIVACY_SETTINGS,
)(_privacy)


# ---------------------------------------------------------------------------------------------
# Section 3.1: the Bernoulli-resampling example, printed and corrected (exact)
# ---------------------------------------------------------------------------------------------
PRINTED_EXAMPLE = TwoPointExperts(np.array([0.3, 0.0]), np.array([0.3, 0.4]), np.array([0.0, 0.8]))
CORRECTED_EXAMPLE = TwoPointExperts(
    np.array([0.3, 0.2]), np.array([0.3, 0.9]), np.array([0.0, 0.2])
)


def _epoch_lengths(name, value):
    """Distinct epoch lengths n in [1, 64], in increasing order."""
    return _settings.distinct_ints(name, value, "epoch lengths n in [1, 64]", 1, 64)


_RESAMPLING_EPS = tuple(float(e) for e in np.logspace(-1, 2.5, 36))

#: What ``run("wu2025-resampling", scale, **overrides)`` may change.
RESAMPLING_SETTINGS = (
    Setting("epsilons", _settings.epsilons, _RESAMPLING_EPS,
            "Privacy parameters of the Laplace 2/ε noise (the x axis; default 36 "
            "log-spaced values from 0.1 to 10**2.5)."),
    Setting("ns", _epoch_lengths, (1, 2, 8),
            "Epoch lengths n (samples of each loss per epoch), one colour each."),
)


def _resampling(scale, seed, jobs, progress, epsilons=_RESAMPLING_EPS, ns=(1, 2, 8)):
    eps = np.asarray(epsilons)
    curves = {}
    for label, inst in (("printed", PRINTED_EXAMPLE), ("corrected", CORRECTED_EXAMPLE)):
        for n in ns:
            for b in (False, True):
                curves[(label, n, b)] = np.array([
                    two_action_probability(inst, n, resample=b, noise="laplace", scale=2.0 / e)
                    for e in eps])
                curves[(label, n, b, "inf")] = two_action_probability(inst, n, resample=b,
                                                                      scale=0.0)
    return {"eps": eps, "ns": ns, "curves": curves}


def _resampling_plot(data):
    fig, axes = subplots(1, 2, sharey=True)
    styles = {n: {"color": st["color"], "marker": st["marker"]}      # line style: B
              for n, st in zip(data["ns"], sweep_styles(len(data["ns"])))}
    for ax, label in zip(axes[0], ("printed", "corrected")):
        for n in data["ns"]:
            for b, ls in ((False, "-"), (True, "--")):
                ax.plot(data["eps"], data["curves"][(label, n, b)], ls=ls, ms=4,
                        markevery=0.15, mfc="white" if b else None, label=f"n = {n}, B = {int(b)}",
                        **styles[n])
        ax.axhline(0.5, color="k", lw=1, ls=":")
        ax.set_xscale("log")
        ax.set_xlabel("privacy parameter ε (Laplace 2/ε)")
        ax.text(0.0, 1.02, f"{label} example", transform=ax.transAxes, va="bottom")
    axes[0, 0].set_ylabel("P[J = suboptimal action 2]")
    shared_legend(fig, axes, ncol=3, title="n: samples per loss; B = 1: Bernoulli resampling")
    return fig


register(
    "wu2025-resampling",
    title="Bernoulli resampling on the two-action example (printed and corrected)",
    plot=_resampling_plot,
    chapter="experts",
    settings=RESAMPLING_SETTINGS,
)(_resampling)

__doc__ += f"""
.. rubric:: Settings

``run(id, scale, **overrides)`` changes any of these (checked before anything runs; each
setting gets its own cache entry; ``wu2025-table1`` has none). ``wu2025-regret-vs-T``:

{_settings.describe(E1_SETTINGS)}
``wu2025-regret-vs-K``:

{_settings.describe(E2_SETTINGS)}
``wu2025-regret-vs-eps``:

{_settings.describe(E3_SETTINGS)}
``wu2025-privacy``:

{_settings.describe(PRIVACY_SETTINGS)}
``wu2025-resampling``:

{_settings.describe(RESAMPLING_SETTINGS)}"""
