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

import numpy as np

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
from .catalogue import make_policy
from .engine import checkpoints, sweep
from .registry import derive_seed, parallel_map, register, regret_rows, run

MEANS = (0.95, 0.75, 0.55, 0.35, 0.15)
ALPHAS = (0.0, 0.25, 0.5, 0.75, 1.0)
B_GRID = (0, 1, 500, 1000, 2000, 5000, 100000)      # Appendix E.1
PAPER_BEST = {0.0: (1, 1.178), 1.0: (2000, 60.46)}  # Section 5.3: b and c the paper chose
EPS_BASELINES = 0.5                                 # Appendix E.2
#: per scale: horizons of Figure 3 (the last is T for Figures 4-7) and runs per configuration
SIZES = {"quick": ((10**3, 3 * 10**3, 10**4), 10),
         "paper": ((10**3, 10**4, 10**5, 10**6), 20)}
_CHAPTER = "gdp_ts_ucb_experiments"          # Figures 3-7; the (eps, delta) table is in gdp_ts_ucb


def sizes(scale):
    """``(T_grid, T, n_runs)`` of a scale."""
    grid, n_runs = SIZES[scale]
    return grid, grid[-1], n_runs


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
    kind, T, n_runs, params, seed = task
    # a fresh copy: spawning children mutates a SeedSequence, and a reused task must give the
    # same result whether it runs here or in a worker process
    seed = np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key)
    env = BernoulliBandit(MEANS)
    if kind == "dpts":                                   # alpha sweep of DP-TS-UCB
        cells = [dict(alpha=float(a)) for a in np.asarray(params["alpha"], dtype=float)]
        label = "DP-TS-UCB"
    elif kind == "mtsg":                                 # (b, c) sweep of M-TS-Gaussian
        cells = [dict(b=int(bi), c=float(ci)) for bi, ci in
                 zip(np.asarray(params["b"], dtype=np.int64), np.asarray(params["c"], dtype=float))]
        label = "M-TS-Gaussian"
    else:                                                # an (eps, 0)-DP baseline
        cells = [dict(epsilon=EPS_BASELINES)]
        label = kind

    def policy(cols):
        if kind in ("dpts", "mtsg"):
            return make_policy(label, horizon=T, preset="hu2025", **cols)
        return make_policy(label, EPS_BASELINES, T, preset="hu2025")

    def guarantee(cell):                 # the configuration's own (scalar) guarantee
        return make_policy(label, horizon=T, preset="hu2025", **cell).guarantee

    return sweep(policy, env, T, cells, n_runs, seed, checkpoints=_checkpoints(T),
                 params=[dict(c, horizon=T) for c in cells], replace_params=True,
                 guarantee=guarantee if kind in ("dpts", "mtsg") else None)


# ------------------------------------------------------------------ Figure 3
#: the alpha grid cut in two batches for the longest runs, so that --jobs 2 keeps both cores busy
ALPHA_HALVES = (ALPHAS[:3], ALPHAS[3:])


def _fig3_compute(scale, seed, jobs, progress):
    grid, T_max, n_runs = sizes(scale)
    tasks, owner = [], []
    for T in grid:
        halves = ALPHA_HALVES if T == T_max else (ALPHAS,)
        for h, alphas in enumerate(halves):
            tasks.append(("dpts", T, n_runs, dict(alpha=alphas),
                          derive_seed("hu2025", "dpts", T, h, seed)))
            owner.append(int(T))
    out = parallel_map(_task, tasks, jobs)
    results = {int(T): [] for T in grid}
    for T, parts in zip(owner, out):
        results[T] += parts
    final_mean = np.array([[r.final_mean for r in results[T]] for T in grid])
    final_se = np.array([[r.final_se for r in results[T]] for T in grid])
    T_fine = np.unique(np.geomspace(grid[0], 10**7, 60).astype(np.int64))
    eta = np.array([[dp_ts_ucb_gdp(int(T), a) for a in ALPHAS] for T in T_fine])
    return {"T_grid": np.asarray(grid), "alphas": np.asarray(ALPHAS), "results": results,
            "final_mean": final_mean, "final_se": final_se, "T_fine": T_fine, "eta": eta,
            "n_runs": n_runs}


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
         plot=_fig3_plot, summary=_fig3_summary, chapter=_CHAPTER)(_fig3_compute)


# ------------------------------------------------------------------ Figure 4
def _fig4_compute(scale, seed, jobs, progress):
    _, T, n_runs = sizes(scale)
    fig3 = run("hu2025-fig3", scale, seed=seed, jobs=jobs, progress=progress)
    c = 5.0 * np.log(T) ** np.asarray(ALPHAS)            # same regret bound as DP-TS-UCB(alpha)
    tasks = [("mtsg", T, n_runs, dict(b=[0] * len(h), c=5.0 * np.log(T) ** np.asarray(h)),
              derive_seed("hu2025", "fig4", k, seed)) for k, h in enumerate(ALPHA_HALVES)]
    mtsg = sum(parallel_map(_task, tasks, jobs), [])
    return {"alphas": np.asarray(ALPHAS), "T": T, "dpts": fig3["results"][T], "mtsg": mtsg,
            "c": c, "eta_dpts": np.array([dp_ts_ucb_gdp(T, a) for a in ALPHAS]),
            "eta_mtsg": np.asarray(mts_gaussian_gdp(T, 0, c))}


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
         plot=_fig4_plot, summary=_fig4_summary, chapter=_CHAPTER)(_fig4_compute)


# ------------------------------------------------------------------ Figure 6
def _fig6_compute(scale, seed, jobs, progress):
    _, T, n_runs = sizes(scale)
    tasks, cs = [], {}
    for a in (0.0, 1.0):
        cs[a] = np.asarray(match_c(T, a, np.asarray(B_GRID)))   # same GDP as DP-TS-UCB(alpha)
        tasks.append(("mtsg", T, n_runs, dict(b=B_GRID, c=cs[a]),
                      derive_seed("hu2025", "fig6", a, seed)))
    out = parallel_map(_task, tasks, jobs)
    return {"T": T, "b": np.asarray(B_GRID), "c": cs, "results": dict(zip((0.0, 1.0), out)),
            "eta": {a: dp_ts_ucb_gdp(T, a) for a in (0.0, 1.0)}}


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
         plot=_fig6_plot, summary=_fig6_summary, chapter=_CHAPTER)(_fig6_compute)


# ------------------------------------------------------------------ Figure 5
def _fig5_compute(scale, seed, jobs, progress):
    _, T, _ = sizes(scale)
    fig3 = run("hu2025-fig3", scale, seed=seed, jobs=jobs, progress=progress)
    fig6 = run("hu2025-fig6", scale, seed=seed, jobs=jobs, progress=progress)
    out = {"T": T, "dpts": {}, "mtsg": {}, "paper_b": {}, "best_b": {}}
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


def _fig5_plot(data, extra=None):
    fig, axes = subplots(1, 2)
    for ax, a in zip(axes[0], (0.0, 1.0)):
        regret([data["dpts"][a], data["mtsg"][a]], ax=ax, legend=False,
               labels=["DP-TS-UCB", _matched_label(data["mtsg"][a])],
               style_keys=["DP-TS-UCB", "M-TS-Gaussian"])
        if extra is not None:                            # (eps, 0)-DP baselines: dashed
            regret(extra, ax=ax, legend=False, ls="--",
                   labels=[f"{r.label} (ε = {EPS_BASELINES})" for r in extra],
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
         plot=_fig5_plot, summary=_fig5_summary, chapter=_CHAPTER)(_fig5_compute)


# ------------------------------------------------------------------ Figure 7
BASELINES = ("DP-SE", "Anytime-Lazy-UCB", "Lazy-DP-TS")


def _fig7_compute(scale, seed, jobs, progress):
    _, T, n_runs = sizes(scale)
    fig5 = run("hu2025-fig5", scale, seed=seed, jobs=jobs, progress=progress)
    tasks = [(name, T, n_runs, {}, derive_seed("hu2025", "fig7", name, seed)) for name in BASELINES]
    base = [parts[0] for parts in parallel_map(_task, tasks, jobs)]
    return dict(
        fig5, baselines=base, eps=EPS_BASELINES, eta_baselines=pure_dp_to_gdp(EPS_BASELINES)
    )


def _fig7_plot(data):
    return _fig5_plot(data, extra=data["baselines"])


def _fig7_summary(data):
    return _fig5_summary(data) + regret_rows("hu2025-fig7", "eps=0.5", data["baselines"])


register("hu2025-fig7", title="Figure 5 plus (eps, 0)-DP algorithms at eps = 0.5 (Fig. 7)",
         plot=_fig7_plot, summary=_fig7_summary, chapter=_CHAPTER)(_fig7_compute)


# ------------------------------------------------------------------ (eps, delta) table
def eps_delta_table(T=10**6, deltas=(1e-5, 1e-6)):
    """One row per alpha: phi, floor(phi), mu (Thm 4.4), sqrt(2 phi) (literal Thm 4.6), the
    sharper sqrt(floor(phi)/ln^a T), eps at each delta (Thm 4.4's mu) and delta(eps = 1)."""
    rows = []
    for a in ALPHAS:
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


def _table_compute(scale, seed, jobs, progress):
    T = 10**6  # the paper's T at every scale (no simulation)
    eps = np.geomspace(0.1, 1e6, 500)
    log_delta = {a: gdp_log_delta(eps, dp_ts_ucb_gdp(T, a)) for a in ALPHAS}
    return {"T": T, "rows": eps_delta_table(T), "eps": eps, "log_delta": log_delta,
            "eps_baseline_mu": pure_dp_to_gdp(EPS_BASELINES)}


def _table_plot(data):
    fig, axes = subplots()
    ax = axes[0, 0]
    for a, style in zip(ALPHAS, sweep_styles(len(ALPHAS))):
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
         plot=_table_plot, summary=_table_summary, chapter="gdp_ts_ucb")(_table_compute)
