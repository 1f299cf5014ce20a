"""Experiments of Hu, Huang, Zhang, Lécuyer and Hegde (ICML 2025): Figures 3-7 and a table of
(eps, delta) guarantees.

Common set-up (Section 5): K = 5 Bernoulli arms with means (0.95, 0.75, 0.55, 0.35, 0.15),
20 runs, T = 10^6, alpha in {0, 0.25, 0.5, 0.75, 1}; pseudo-regret including the K initial
rounds. Every alpha sweep (and every M-TS-Gaussian (b, c) sweep) is one batch; independent
batches run through ``parallel_map`` with per-task seeds, so results do not depend on --jobs.

Sharing: Figures 4, 5 and 7 reuse the DP-TS-UCB runs of Figure 3 at the largest T, and
Figure 5 reuses the M-TS-Gaussian sweep of Figure 6, through the cached ``run`` of those ids.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .._validation import check_positive_int, show
from ..bandits.dp_ts_ucb import (
    DPTSUCB,
    dp_ts_ucb_gdp,
    match_c,
    mts_gaussian_gdp,
    sampling_budget,
)
from ..envs import BernoulliBandit
from ..gdp import gdp_delta, gdp_epsilon, gdp_log_delta, pure_dp_to_gdp
from ..plotting import errorbar, regret, shared_legend, style_of, subplots, sweep_styles
from . import _settings
from ._settings import Setting
from .catalogue import make_policy
from .engine import checkpoints, sweep
from .registry import derive_seed, parallel_map, register, regret_rows, run

__all__ = ["ALPHAS", "BASELINES", "B_GRID", "MEANS", "SETTINGS", "best_b", "eps_delta_table",
           "sizes"]

MEANS = (0.95, 0.75, 0.55, 0.35, 0.15)
ALPHAS = (0.0, 0.25, 0.5, 0.75, 1.0)
B_GRID = (0, 1, 500, 1000, 2000, 5000, 100000)      # Appendix E.1
PAPER_BEST = {0.0: (1, 1.178), 1.0: (2000, 60.46)}  # Section 5.3: b and c the paper chose
EPS_BASELINES = 0.5                                 # Appendix E.2
BASELINES = ("DP-SE", "Anytime-Lazy-UCB", "Lazy-DP-TS")   # the (eps, 0)-DP algorithms of E.2
#: per scale: horizons of Figure 3 (the last is T for Figures 4-7) and runs per configuration
SIZES = {"quick": ((10**3, 3 * 10**3, 10**4), 10),
         "paper": ((10**3, 10**4, 10**5, 10**6), 20)}
_CHAPTER = "gdp_ts_ucb_experiments"          # Figures 3-7; the (eps, delta) table is in gdp_ts_ucb


def sizes(scale):
    """``(T_grid, T, n_runs)`` of a scale."""
    grid, n_runs = SIZES[scale]
    return grid, grid[-1], n_runs


def _increasing(name, value, what, check_one):
    """Distinct values, each checked by ``check_one(name[i], v)``, in increasing order."""
    items = _settings.sequence(name, value, what)
    out = tuple(check_one(f"{name}[{i}]", v) for i, v in enumerate(items))
    if len(set(out)) != len(out):
        raise ValueError(f"{name} must not repeat a value, got {show(value)}")
    return tuple(sorted(out))


def _alpha(name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in [0, 1], got {show(value)}")
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a number in [0, 1], got {show(value)}")
    return float(value)


def _alphas(name, value):
    """Distinct alphas of DP-TS-UCB in [0, 1], in increasing order."""
    return _increasing(name, value, "alphas in [0, 1]", _alpha)


def _horizons(name, value):
    """Distinct horizons T >= 2, in increasing order."""
    return _increasing(name, value, "horizons T >= 2", _settings.horizon)


def _pre_pulls(name, value):
    """Distinct numbers of pre-pulls b >= 0 of M-TS-Gaussian, in increasing order."""
    return _increasing(name, value, "numbers of pre-pulls b >= 0",
                       lambda n, v: check_positive_int(n, v, minimum=0))


_MEANS = Setting("means", _settings.means, MEANS, "Bernoulli arm means of the instance.")
_HORIZON = Setting("horizon", _settings.horizon, {s: sizes(s)[1] for s in SIZES},
                   "The horizon T.")
_N_RUNS = Setting("n_runs", _settings.n_runs, {s: sizes(s)[2] for s in SIZES},
                  "Runs per configuration.")
_ALPHAS = Setting("alphas", _alphas, ALPHAS, "The alphas of DP-TS-UCB, in [0, 1].")
#: What ``run(id, scale, **overrides)`` may change, per experiment id.
SETTINGS = {
    "hu2025-fig3": (_MEANS, Setting("horizons", _horizons, {s: SIZES[s][0] for s in SIZES},
                                    "The horizons T (the x axis)."), _N_RUNS, _ALPHAS),
    "hu2025-fig4": (_MEANS, _HORIZON, _N_RUNS, _ALPHAS),
    "hu2025-fig6": (_MEANS, _HORIZON, _N_RUNS,
                    Setting("b_grid", _pre_pulls, B_GRID,
                            "The pre-pulls b of M-TS-Gaussian swept (c matched to each).")),
    "hu2025-fig5": (_MEANS, _HORIZON, _N_RUNS),
    "hu2025-fig7": (_MEANS, _HORIZON, _N_RUNS,
                    Setting("epsilon", _settings.positive_float, EPS_BASELINES,
                            "The privacy parameter of the (eps, 0)-DP algorithms."),
                    Setting("algorithms", _settings.algorithms(BASELINES), BASELINES,
                            f"The (eps, 0)-DP algorithms added to Figure 5, among "
                            f"{list(BASELINES)}.")),
    "hu2025-table-eps-delta": (Setting("horizon", _settings.horizon, 10**6, "The horizon T."),
                               _ALPHAS),
}


def _halves(alphas):
    """The alpha grid cut in two batches (the longest runs), so that --jobs 2 keeps both cores
    busy."""
    cut = (len(alphas) + 1) // 2
    return tuple(h for h in (alphas[:cut], alphas[cut:]) if h)


def _overrides(**values):
    """The keyword overrides of a nested ``run``: those given (not None)."""
    return {k: v for k, v in values.items() if v is not None}


def _checkpoints(T):
    """Linear points for the curves on a linear axis plus log points for the early rounds."""
    return checkpoints(T, log=40, linear=100)


# ------------------------------------------------------------------ simulation tasks
def _task(task):
    """One batch: ``(kind, T, n_runs, params, seed)`` -> list of Results (one per config).

    ``kind`` is ``"dpts"`` (an alpha sweep of DP-TS-UCB), ``"mtsg"`` (a (b, c) sweep of
    M-TS-Gaussian) or the label of an (eps, 0)-DP baseline of Appendix E.2. Each Result records
    its configuration and T in ``params`` and the guarantee of that configuration alone.
    """
    kind, means, T, n_runs, params, seed = task
    # a fresh copy: spawning children mutates a SeedSequence, and a reused task must give the
    # same result whether it runs here or in a worker process
    seed = np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key)
    env = BernoulliBandit(means)
    if kind == "dpts":                                   # alpha sweep of DP-TS-UCB
        cells = [dict(alpha=float(a)) for a in np.asarray(params["alpha"], dtype=float)]
        label = "DP-TS-UCB"
    elif kind == "mtsg":                                 # (b, c) sweep of M-TS-Gaussian
        cells = [dict(b=int(bi), c=float(ci)) for bi, ci in
                 zip(np.asarray(params["b"], dtype=np.int64), np.asarray(params["c"], dtype=float))]
        label = "M-TS-Gaussian"
    else:                                                # an (eps, 0)-DP baseline
        eps = params.get("epsilon", EPS_BASELINES)
        cells = [dict(epsilon=eps)]
        label = kind

    def policy(cols):
        if kind in ("dpts", "mtsg"):
            return make_policy(label, horizon=T, preset="hu2025", **cols)
        return make_policy(label, eps, T, preset="hu2025")

    def guarantee(cell):                 # the configuration's own (scalar) guarantee
        return make_policy(label, horizon=T, preset="hu2025", **cell).guarantee

    return sweep(policy, env, T, cells, n_runs, seed, checkpoints=_checkpoints(T),
                 params=[dict(c, horizon=T) for c in cells], replace_params=True,
                 guarantee=guarantee if kind in ("dpts", "mtsg") else None)


# ------------------------------------------------------------------ Figure 3
#: the alpha grid cut in two batches for the longest runs, so that --jobs 2 keeps both cores busy
ALPHA_HALVES = _halves(ALPHAS)


def _fig3_compute(scale, seed, jobs, progress, means=MEANS, horizons=None, n_runs=None,
                  alphas=ALPHAS):
    grid, T_max, default_runs = sizes(scale)
    if horizons is not None:
        grid, T_max = horizons, horizons[-1]
    n_runs = n_runs or default_runs
    tasks, owner = [], []
    for T in grid:
        halves = _halves(alphas) if T == T_max else (alphas,)
        for h, part in enumerate(halves):
            tasks.append(("dpts", means, T, n_runs, dict(alpha=part),
                          derive_seed("hu2025", "dpts", T, h, seed)))
            owner.append(int(T))
    out = parallel_map(_task, tasks, jobs)
    results = {int(T): [] for T in grid}
    for T, parts in zip(owner, out):
        results[T] += parts
    final_mean = np.array([[r.final_mean for r in results[T]] for T in grid])
    final_se = np.array([[r.final_se for r in results[T]] for T in grid])
    T_fine = np.unique(np.geomspace(grid[0], 10**7, 60).astype(np.int64))
    eta = np.array([[dp_ts_ucb_gdp(int(T), a) for a in alphas] for T in T_fine])
    data = {"T_grid": np.asarray(grid), "alphas": np.asarray(alphas), "results": results,
            "final_mean": final_mean, "final_se": final_se, "T_fine": T_fine, "eta": eta,
            "n_runs": n_runs}
    if means != MEANS:
        data["means"] = means
    return data


def _fig3_plot(data):
    fig, axes = subplots(1, 2)
    ax, bx = axes[0]
    for j, (a, style) in enumerate(zip(data["alphas"], sweep_styles(len(data["alphas"])))):
        errorbar(ax, data["T_grid"], data["final_mean"][:, j], data["final_se"][:, j],
                 f"DP-TS-UCB, α = {a:g}", **style)
        bx.plot(data["T_fine"], data["eta"][:, j], markevery=0.15, label=f"DP-TS-UCB, α = {a:g}",
                **style)
    bx.plot(data["T_fine"], np.sqrt(data["T_fine"] / 2.0), "k--", lw=1.5,
            label="TS-Gaussian √(T/2)")
    ax.set_xscale("log")
    ax.set_xlabel("horizon T")
    ax.set_ylabel("pseudo-regret at T")
    bx.set_xscale("log")
    bx.set_yscale("log")
    bx.set_xlabel("horizon T")
    bx.set_ylabel("GDP parameter μ (Thm 4.4)")
    shared_legend(fig, axes)
    return fig


def _fig3_summary(data):
    rows = []
    for T in data["T_grid"]:
        rows += regret_rows("hu2025-fig3", f"T={int(T)}", data["results"][int(T)])
    return rows


register("hu2025-fig3", title="DP-TS-UCB: regret and GDP level against alpha and T (Fig. 3)",
         plot=_fig3_plot, summary=_fig3_summary, chapter=_CHAPTER,
         settings=SETTINGS["hu2025-fig3"])(_fig3_compute)


# ------------------------------------------------------------------ Figure 4
def _fig3_at(scale, seed, jobs, progress, means, horizon, n_runs, alphas=None):
    """The DP-TS-UCB runs of Figure 3 at T: the paper's grid when nothing is overridden (its
    cache entry), else Figure 3 at this one horizon (the same runs at T: same seeds)."""
    if means is None and horizon is None and n_runs is None and alphas is None:
        return run("hu2025-fig3", scale, seed=seed, jobs=jobs, progress=progress)
    return run("hu2025-fig3", scale, seed=seed, jobs=jobs, progress=progress,
               horizons=[horizon or sizes(scale)[1]],
               **_overrides(means=means, n_runs=n_runs, alphas=alphas))


def _fig4_compute(scale, seed, jobs, progress, means=None, horizon=None, n_runs=None,
                  alphas=None):
    _, T, default_runs = sizes(scale)
    fig3 = _fig3_at(scale, seed, jobs, progress, means, horizon, n_runs, alphas)
    T, n_runs = horizon or T, n_runs or default_runs
    alphas = alphas or ALPHAS
    c = 5.0 * np.log(T) ** np.asarray(alphas)            # same regret bound as DP-TS-UCB(alpha)
    tasks = [("mtsg", means or MEANS, T, n_runs,
              dict(b=[0] * len(h), c=5.0 * np.log(T) ** np.asarray(h)),
              derive_seed("hu2025", "fig4", k, seed)) for k, h in enumerate(_halves(alphas))]
    mtsg = sum(parallel_map(_task, tasks, jobs), [])
    return {"alphas": np.asarray(alphas), "T": T, "dpts": fig3["results"][T], "mtsg": mtsg,
            "c": c, "eta_dpts": np.array([dp_ts_ucb_gdp(T, a) for a in alphas]),
            "eta_mtsg": np.asarray(mts_gaussian_gdp(T, 0, c)),
            **({} if means is None else {"means": means})}


def _fig4_plot(data):
    fig, axes = subplots(1, 2)
    ax, bx = axes[0]
    a = data["alphas"]
    names = {"dpts": "DP-TS-UCB", "mtsg": "M-TS-Gaussian (b = 0, c = 5 ln^α T)"}
    for key, label in (("dpts", "DP-TS-UCB"), ("mtsg", "M-TS-Gaussian")):
        m = np.array([r.final_mean for r in data[key]])
        se = np.array([r.final_se for r in data[key]])
        errorbar(ax, a, m, se, names[key], **style_of(label))
    bx.plot(a, data["eta_dpts"], label=names["dpts"], **style_of("DP-TS-UCB"))
    bx.plot(a, data["eta_mtsg"], label=names["mtsg"], **style_of("M-TS-Gaussian"))
    ax.set_xlabel("α")
    ax.set_ylabel(f"pseudo-regret at T = {data['T']:,}")
    bx.set_yscale("log")
    bx.set_xlabel("α")
    bx.set_ylabel("GDP parameter μ")
    shared_legend(fig, axes)
    return fig


def _fig4_summary(data):
    return (regret_rows("hu2025-fig4", "DP-TS-UCB(alpha)", data["dpts"])
            + regret_rows("hu2025-fig4", "M-TS-G(b=0, c=5 ln^alpha T)", data["mtsg"]))


register("hu2025-fig4", title="DP-TS-UCB vs M-TS-Gaussian with the same regret bound (Fig. 4)",
         plot=_fig4_plot, summary=_fig4_summary, chapter=_CHAPTER,
         settings=SETTINGS["hu2025-fig4"])(_fig4_compute)


# ------------------------------------------------------------------ Figure 6
def _fig6_compute(scale, seed, jobs, progress, means=MEANS, horizon=None, n_runs=None,
                  b_grid=B_GRID):
    _, T, default_runs = sizes(scale)
    T, n_runs = horizon or T, n_runs or default_runs
    tasks, cs = [], {}
    for a in (0.0, 1.0):
        cs[a] = np.asarray(match_c(T, a, np.asarray(b_grid)))   # same GDP as DP-TS-UCB(alpha)
        tasks.append(("mtsg", means, T, n_runs, dict(b=b_grid, c=cs[a]),
                      derive_seed("hu2025", "fig6", a, seed)))
    out = parallel_map(_task, tasks, jobs)
    data = {"T": T, "b": np.asarray(b_grid), "c": cs, "results": dict(zip((0.0, 1.0), out)),
            "eta": {a: dp_ts_ucb_gdp(T, a) for a in (0.0, 1.0)}}
    if means != MEANS:
        data["means"] = means
    return data


def best_b(data, alpha):
    """The b of the sweep with the lowest mean final regret."""
    finals = [r.final_mean for r in data["results"][alpha]]
    return int(data["b"][int(np.argmin(finals))])


def _fig6_plot(data):
    fig, axes = subplots(1, 2, sharey=True)
    styles = sweep_styles(len(data["b"]))
    for ax, a in zip(axes[0], (0.0, 1.0)):
        for res, b, style in zip(data["results"][a], data["b"], styles):
            regret(res, ax=ax, labels=[f"b = {b:,}"], colors=[style["color"]], legend=False,
                   ls=style["linestyle"], marker=style["marker"])
        ax.set_yscale("log")
        ax.set_ylim(bottom=1.0)
        ax.set_xlabel("round t")
        ax.text(0.03, 0.97, f"α = {a:g}, μ = {data['eta'][a]:.4g}", transform=ax.transAxes,
                va="top")
    axes[0, 1].set_ylabel("")
    shared_legend(fig, axes, title="M-TS-Gaussian, pre-pulls b (c matched to the GDP level)")
    return fig


def _fig6_summary(data):
    return sum((regret_rows("hu2025-fig6", f"alpha={a:g}", data["results"][a]) for a in (0.0, 1.0)),
               [])


register("hu2025-fig6", title="M-TS-Gaussian parameter sweep at matched GDP (Fig. 6)",
         plot=_fig6_plot, summary=_fig6_summary, chapter=_CHAPTER,
         settings=SETTINGS["hu2025-fig6"])(_fig6_compute)


# ------------------------------------------------------------------ Figure 5
def _fig5_compute(scale, seed, jobs, progress, means=None, horizon=None, n_runs=None):
    T = horizon or sizes(scale)[1]
    fig3 = _fig3_at(scale, seed, jobs, progress, means, horizon, n_runs)
    fig6 = run("hu2025-fig6", scale, seed=seed, jobs=jobs, progress=progress,
               **_overrides(means=means, horizon=horizon, n_runs=n_runs))
    out = {"T": T, "dpts": {}, "mtsg": {}, "paper_b": {}, "best_b": {}}
    if means is not None:
        out["means"] = means
    for a in (0.0, 1.0):
        out["dpts"][a] = fig3["results"][T][ALPHAS.index(a)]
        b_paper = PAPER_BEST[a][0]                       # the paper's choice (b = 1 / b = 2000)
        out["mtsg"][a] = fig6["results"][a][B_GRID.index(b_paper)]
        out["paper_b"][a] = b_paper
        out["best_b"][a] = best_b(fig6, a)               # what our own sweep would pick
    out["eta"] = fig6["eta"]
    return out


def _matched_label(res):
    return f"M-TS-Gaussian (b = {res.params['b']:,}, c = {res.params['c']:.3g})"


def _fig5_plot(data, extra=None, eps=EPS_BASELINES):
    fig, axes = subplots(1, 2)
    for ax, a in zip(axes[0], (0.0, 1.0)):
        regret([data["dpts"][a], data["mtsg"][a]], ax=ax, legend=False,
               labels=["DP-TS-UCB", _matched_label(data["mtsg"][a])],
               style_keys=["DP-TS-UCB", "M-TS-Gaussian"])
        if extra is not None:                            # (eps, 0)-DP baselines: dashed
            regret(extra, ax=ax, legend=False, ls="--",
                   labels=[f"{r.label} (ε = {eps})" for r in extra],
                   style_keys=[r.label for r in extra])
        ax.set_ylim(bottom=0)
        ax.text(0.03, 0.97, f"α = {a:g}, μ = {data['eta'][a]:.4g}", transform=ax.transAxes,
                va="top")
    axes[0, 1].set_ylabel("")
    shared_legend(fig, axes)
    return fig


def _fig5_summary(data):
    return sum((regret_rows("hu2025-fig5", f"alpha={a:g}", [data["dpts"][a], data["mtsg"][a]])
                for a in (0.0, 1.0)), [])


register("hu2025-fig5", title="DP-TS-UCB vs M-TS-Gaussian with the same GDP level (Fig. 5)",
         plot=_fig5_plot, summary=_fig5_summary, chapter=_CHAPTER,
         settings=SETTINGS["hu2025-fig5"])(_fig5_compute)


# ------------------------------------------------------------------ Figure 7


def _fig7_compute(scale, seed, jobs, progress, means=None, horizon=None, n_runs=None,
                  epsilon=EPS_BASELINES, algorithms=BASELINES):
    _, T, default_runs = sizes(scale)
    T, n_runs_ = horizon or T, n_runs or default_runs
    fig5 = run("hu2025-fig5", scale, seed=seed, jobs=jobs, progress=progress,
               **_overrides(means=means, horizon=horizon, n_runs=n_runs))
    tasks = [(name, means or MEANS, T, n_runs_, {"epsilon": epsilon},
              derive_seed("hu2025", "fig7", name, seed)) for name in algorithms]
    base = [parts[0] for parts in parallel_map(_task, tasks, jobs)]
    return dict(fig5, baselines=base, eps=epsilon, eta_baselines=pure_dp_to_gdp(epsilon))


def _fig7_plot(data):
    return _fig5_plot(data, extra=data["baselines"], eps=data["eps"])


def _fig7_summary(data):
    return _fig5_summary(data) + regret_rows("hu2025-fig7", f"eps={data['eps']:g}",
                                             data["baselines"])


register("hu2025-fig7", title="Figure 5 plus (eps, 0)-DP algorithms at eps = 0.5 (Fig. 7)",
         plot=_fig7_plot, summary=_fig7_summary, chapter=_CHAPTER,
         settings=SETTINGS["hu2025-fig7"])(_fig7_compute)


# ------------------------------------------------------------------ (eps, delta) table
def eps_delta_table(T=10**6, deltas=(1e-5, 1e-6), alphas=ALPHAS):
    """One row per alpha: phi, floor(phi), mu (Thm 4.4), sqrt(2 phi) (literal Thm 4.6), the
    sharper sqrt(floor(phi)/ln^a T), eps at each delta (Thm 4.4's mu) and delta(eps = 1)."""
    rows = []
    for a in alphas:
        mu = dp_ts_ucb_gdp(T, a)
        mu46 = dp_ts_ucb_gdp(T, a, literal_thm46=True)
        row = {
            "alpha": a,
            "phi": sampling_budget(T, a),
            "floor_phi": np.floor(sampling_budget(T, a)),
            "mu_thm44": mu,
            "mu_thm46_literal": mu46,
            "mu_tight": DPTSUCB(alpha=a, horizon=T).tight_gdp(),
        }
        for d in deltas:
            row[f"eps_at_delta={d:g}"] = gdp_epsilon(d, mu)
            row[f"eps46_at_delta={d:g}"] = gdp_epsilon(d, mu46)
        row["delta_at_eps=1"] = gdp_delta(1.0, mu)
        rows.append(row)
    return rows


def _table_compute(scale, seed, jobs, progress, horizon=10**6, alphas=ALPHAS):
    T = horizon  # by default the paper's T at every scale (no simulation)
    eps = np.geomspace(0.1, 1e6, 500)
    log_delta = {a: gdp_log_delta(eps, dp_ts_ucb_gdp(T, a)) for a in alphas}
    return {"T": T, "rows": eps_delta_table(T, alphas=alphas), "eps": eps, "log_delta": log_delta,
            "eps_baseline_mu": pure_dp_to_gdp(EPS_BASELINES)}


def _table_plot(data):
    fig, axes = subplots()
    ax = axes[0, 0]
    for a, style in zip(data["log_delta"], sweep_styles(len(data["log_delta"]))):
        ax.plot(data["eps"], data["log_delta"][a] / np.log(10), markevery=0.1,
                label=f"α = {a:g} (μ = {dp_ts_ucb_gdp(data['T'], a):.4g})", **style)
    ax.axhline(-5, color="k", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("ε (log scale)")
    ax.set_ylabel("log10 δ(ε)")
    ax.set_ylim(-12, 0.5)
    ax.legend(title=f"DP-TS-UCB, T = {data['T']:,}")
    return fig


def _table_summary(data):
    return [{"experiment": "hu2025-table-eps-delta", "panel": f"T={data['T']}",
             "algorithm": "DP-TS-UCB", "epsilon": "", "horizon": data["T"], "n_runs": 0,
             "final_regret_mean": "", "final_regret_se": "",
             "params": f"alpha={row['alpha']:g}", **row} for row in data["rows"]]


register("hu2025-table-eps-delta", title="(eps, delta) guarantees of DP-TS-UCB per alpha, T = 10^6",
         plot=_table_plot, summary=_table_summary, chapter="gdp_ts_ucb",
         settings=SETTINGS["hu2025-table-eps-delta"])(_table_compute)

__doc__ += f"""
.. rubric:: Settings

``run(id, scale, **overrides)`` changes any of these (checked before anything runs; each
setting gets its own cache entry). With an override, Figures 4, 5 and 7 read Figure 3 at their
one horizon T (and Figures 5 and 7 read Figure 6) at the same overrides. ``hu2025-fig3``:

{_settings.describe(SETTINGS["hu2025-fig3"])}
``hu2025-fig4``:

{_settings.describe(SETTINGS["hu2025-fig4"])}
``hu2025-fig6``:

{_settings.describe(SETTINGS["hu2025-fig6"])}
``hu2025-fig5``:

{_settings.describe(SETTINGS["hu2025-fig5"])}
``hu2025-fig7``:

{_settings.describe(SETTINGS["hu2025-fig7"])}
``hu2025-table-eps-delta`` (no simulation):

{_settings.describe(SETTINGS["hu2025-table-eps-delta"])}"""
