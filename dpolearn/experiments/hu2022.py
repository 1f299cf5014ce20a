"""Experiments of the chapter "Private Thompson Sampling" (Hu and Hegde, UAI 2022).

* ``hu2022-table`` -- the whole grid: DP-TS, Lazy-DP-TS, Anytime-Lazy-UCB, DP-SE (max and sum
  forms of the epoch length) at every eps in {500, 1, 0.5, 0.25, 0.1}, plus non-private
  Beta-TS, on the five-armed instance (0.75, 0.625, 0.5, 0.375, 0.25). One batched simulation
  per algorithm (all epsilons are rows of one batch). Its summary is the final-regret table
  (mean and standard error at T); its figure plots final regret against epsilon.
* ``hu2022-fig1`` ... ``hu2022-fig5`` -- Figures 1-5 of the paper re-drawn from that grid
  (eps = 500, 1, 0.5, 0.25, 0.1): the paper's curves (DP-TS only in Figure 1, where the paper
  shows it), DP-SE's sum form dashed and non-private TS dotted as references.
* :func:`claims` -- the paper's three orderings checked on the final regret.

Lazy-DP-TS uses base-2 logarithms in its bonus here, as Hu and Hegde write (reading
``reading-lazy-ts-log`` of the book's appendix of readings and errata; the ``hu2021-*``
experiments use ln); Anytime-Lazy-UCB and DP-SE use ln. The paper states
neither the number of runs nor DP-SE's constants: we use 50 runs per epsilon at paper scale
(reading ``reading-unstated-experiment-details``: at least 20), beta = 1/T and both
epoch-length forms (``reading-baseline-parameters``).
"""
from __future__ import annotations

from typing import Dict, List

import numpy as np

from ..envs import BernoulliBandit
from ..plotting import errorbar, regret, shared_legend, style_of, subplots
from . import _settings
from ._settings import Setting
from .catalogue import make_policy
from .engine import checkpoints, sweep
from .registry import derive_seed, parallel_map, register, regret_rows, run

__all__ = ["EPSILONS", "FIGURES", "MEANS", "PRIVATE", "claims", "table"]

MEANS = (0.75, 0.625, 0.5, 0.375, 0.25)
#: Figure number -> epsilon, as in the paper (Figures 1-5)
FIGURES = {1: 500.0, 2: 1.0, 3: 0.5, 4: 0.25, 5: 0.1}
EPSILONS = tuple(FIGURES.values())
PRIVATE = ("DP-TS", "Lazy-DP-TS", "Anytime-Lazy-UCB", "DP-SE", "DP-SE (sum)")
NONPRIVATE = "TS (Beta)"
#: (horizon, runs per epsilon); "paper" is the paper's T = 10^5
_SIZES = {"quick": (20_000, 10), "paper": (100_000, 50)}

#: What ``run("hu2022-table", scale, **overrides)`` may change; the figures take the same.
TABLE_SETTINGS = (
    Setting("means", _settings.means, MEANS, "Bernoulli arm means of the instance (K >= 2)."),
    Setting("epsilons", _settings.epsilons, EPSILONS,
            "The privacy parameters of the grid; every private algorithm runs at each."),
    Setting("horizon", _settings.horizon, {s: h for s, (h, _) in _SIZES.items()},
            "Rounds per run."),
    Setting("n_runs", _settings.n_runs, {s: n for s, (_, n) in _SIZES.items()},
            "Runs per (algorithm, epsilon) cell."),
    Setting("algorithms", _settings.algorithms(PRIVATE), PRIVATE,
            f"The private algorithms, among {list(PRIVATE)} (non-private Beta-TS is always "
            "run as the reference)."),
)


def _checkpoints(horizon: int) -> np.ndarray:
    """Log-spaced and linear checkpoints together, so both axis scales draw smoothly."""
    return checkpoints(horizon, log=120, linear=300)


def _task(task):
    """One algorithm at every epsilon, as ONE batch of ``len(epsilons) * n_runs`` runs."""
    name, means, epsilons, horizon, n_runs, seed, progress = task
    env = BernoulliBandit(means)
    if name == NONPRIVATE:
        res = sweep(lambda cols: make_policy(name, horizon=horizon, preset="hu2022"), env,
                    horizon, [{}], n_runs, seed, checkpoints=_checkpoints(horizon),
                    progress=progress)
        return {None: res[0]}
    parts = sweep(lambda cols: make_policy(name, cols["epsilon"], horizon, preset="hu2022"),
                  env, horizon, [{"epsilon": e} for e in epsilons], n_runs, seed,
                  checkpoints=_checkpoints(horizon), progress=progress,
                  label=name if name == "DP-SE (sum)" else None)   # legend and table name
    return dict(zip(epsilons, parts))


def _grid(scale, seed, jobs, progress, means=MEANS, epsilons=EPSILONS, horizon=None,
          n_runs=None, algorithms=PRIVATE) -> Dict:
    horizon = horizon or _SIZES[scale][0]
    n_runs = n_runs or _SIZES[scale][1]
    names = algorithms + (NONPRIVATE,)
    tasks = [(name, means, epsilons, horizon, n_runs, derive_seed("hu2022-table", name, seed),
              progress) for name in names]
    out = parallel_map(_task, tasks, jobs)
    results = {}
    for name, by_eps in zip(names, out):
        for e, res in by_eps.items():
            results[(name, e)] = res
    return {"results": results, "horizon": horizon, "n_runs": n_runs, "means": means,
            "epsilons": epsilons, "algorithms": algorithms, "nonprivate": NONPRIVATE}


def table(data) -> List[Dict]:
    """Final regret at T, one row per (epsilon, algorithm): mean and standard error."""
    rows = []
    for e in data["epsilons"]:
        for name in data["algorithms"]:
            res = data["results"][(name, e)]
            rows.append({"epsilon": e, "algorithm": name, "mean": res.final_mean,
                         "se": res.final_se, "n_runs": res.n_runs})
    ref = data["results"][(data["nonprivate"], None)]
    rows.append({"epsilon": np.inf, "algorithm": data["nonprivate"], "mean": ref.final_mean,
                 "se": ref.final_se, "n_runs": ref.n_runs})
    return rows


def _summary(data):
    rows = []
    for e in data["epsilons"]:
        res = [data["results"][(name, e)] for name in data["algorithms"]]
        rows += regret_rows("hu2022-table", f"eps={e:g}", res, epsilon=e)
    rows += regret_rows(
        "hu2022-table", "non-private", [data["results"][(data["nonprivate"], None)]]
    )
    return rows


def _dp_se_form(name):
    """DP-SE's sum form of the epoch length: DP-SE's colour and marker, dashed."""
    if not name.endswith("(sum)"):
        return {}
    style = style_of("DP-SE")
    return {"color": style["color"], "marker": style["marker"], "ls": "--"}


def _plot_table(data):
    """Final regret against epsilon, one line per algorithm (log-log), TS as a reference."""
    fig, axes = subplots()
    ax = axes[0, 0]
    eps = np.array(data["epsilons"])
    order = np.argsort(eps)
    for name in data["algorithms"]:
        m = np.array([data["results"][(name, e)].final_mean for e in eps])[order]
        se = np.array([data["results"][(name, e)].final_se for e in eps])[order]
        errorbar(ax, eps[order], m, se, name, **_dp_se_form(name))
    ref = data["results"][(data["nonprivate"], None)]
    style = style_of(data["nonprivate"])
    ax.axhline(ref.final_mean, color=style["color"], ls=":", lw=1.5,
               label=f"{data['nonprivate']} (not private)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("privacy parameter ε")
    ax.set_ylabel(f"pseudo-regret at T = {data['horizon']:,}")
    shared_legend(fig, axes)
    return fig


register("hu2022-table", title="Final regret of DP-TS, Lazy-DP-TS, Anytime-Lazy-UCB and DP-SE "
         "at eps in {500, 1, 0.5, 0.25, 0.1} (mean and standard error)", plot=_plot_table,
         summary=_summary, chapter="private_ts_experiments", settings=TABLE_SETTINGS)(_grid)


# ---------------------------------------------------------------------------------------------
# Figures 1-5: one epsilon each, cut from the grid
# ---------------------------------------------------------------------------------------------
def _figure(number, scale, seed, jobs, progress, **overrides):
    epsilons = overrides.get("epsilons", (FIGURES[number],))
    # At the paper's instance and size, a figure is cut from the whole grid (one cache entry
    # for all five figures); at other settings the grid runs at the figure's epsilons only.
    shared = overrides.keys() <= {"epsilons"} and set(epsilons) <= set(EPSILONS)
    grid = run("hu2022-table", scale, seed=seed, jobs=jobs, progress=progress,
               **({} if shared else dict(overrides, epsilons=epsilons)))
    algorithms = overrides.get("algorithms", PRIVATE)
    shown = algorithms if number == 1 else tuple(n for n in algorithms if n != "DP-TS")
    return {"figure": number, "epsilons": epsilons, "horizon": grid["horizon"],
            "n_runs": grid["n_runs"], "means": grid["means"], "algorithms": shown,
            "results": {(n, e): grid["results"][(n, e)] for n in shown for e in epsilons},
            "reference": grid["results"][(NONPRIVATE, None)]}


def _plot_figure(data):
    """The paper's curves, one panel per epsilon; Figure 1 at its own epsilon gets a second
    panel with a logarithmic regret axis."""
    epsilons = data["epsilons"]
    log_panel = data["figure"] == 1 and len(epsilons) == 1
    fig, axes = subplots(1, 2 if log_panel else len(epsilons))
    names = [n for n in data["algorithms"] if not n.endswith("(sum)")]
    for k, ax in enumerate(axes[0]):
        e = epsilons[0 if log_panel else k]
        regret([data["results"][(n, e)] for n in names], ax=ax, legend=False)
        if ("DP-SE (sum)", e) in data["results"]:
            regret(data["results"][("DP-SE (sum)", e)], ax=ax, legend=False, band=None, lw=1.5,
                   **_dp_se_form("DP-SE (sum)"))
        regret(data["reference"], ax=ax, legend=False, band=None, ls=":", lw=1.5,
               labels=["TS (Beta), not private"], style_keys=[NONPRIVATE])
        ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 0))
        if log_panel and k == 1:
            ax.set_yscale("log")
            ax.set_ylim(bottom=10)
        if k > 0:
            ax.set_ylabel("")
        if k == 0 or not log_panel:
            ax.text(0.02, 0.97, f"ε = {e:g}", transform=ax.transAxes, va="top")
    shared_legend(fig, axes)
    return fig


def _fig_summary(data):
    rows = []
    for e in data["epsilons"]:
        rows += regret_rows(f"hu2022-fig{data['figure']}", f"eps={e:g}",
                            [data["results"][(n, e)] for n in data["algorithms"]], epsilon=e)
    return rows


def _make_fig(number):
    def compute(scale, seed, jobs, progress, **overrides):
        return _figure(number, scale, seed, jobs, progress, **overrides)
    compute.__qualname__ = f"hu2022_fig{number}"
    return compute


def _figure_settings(number):
    """The grid's settings, except that ``epsilons`` defaults to the figure's own epsilon."""
    own = Setting("epsilons", _settings.epsilons, (FIGURES[number],),
                  "The privacy parameters drawn, one panel each.")
    return tuple(own if s.name == "epsilons" else s for s in TABLE_SETTINGS)


for _n, _e in FIGURES.items():
    register(f"hu2022-fig{_n}", title=f"Figure {_n}: cumulative regret at eps = {_e:g}, "
             "K = 5, T = 10^5", plot=_plot_figure, summary=_fig_summary,
             chapter="private_ts_experiments", settings=_figure_settings(_n))(_make_fig(_n))

__doc__ += f"""
.. rubric:: Settings

``run(id, scale, **overrides)`` changes any of these (checked before anything runs; each
setting gets its own cache entry). ``hu2022-table``:

{_settings.describe(TABLE_SETTINGS)}
``hu2022-fig1`` ... ``hu2022-fig5`` take the same settings, except that ``epsilons`` (default:
the figure's own epsilon) are the panels drawn, e.g.
``run("hu2022-fig2", "quick", means=[0.7, 0.5, 0.4], epsilons=[0.5])``.
"""


# ---------------------------------------------------------------------------------------------
# The paper's claims, checked on the final regret
# ---------------------------------------------------------------------------------------------
def claims(data, k: float = 2.0) -> List[Dict]:
    """Check the orderings of Hu and Hegde's Section 4 at every epsilon.

    "a < b" counts as shown when the difference of the final means exceeds ``k`` standard
    errors of the difference; otherwise the pair is reported as not resolved (``None``) or
    reversed (``False``).

    (i) eps = 500: DP-TS < Lazy-DP-TS < min(Anytime-Lazy-UCB, DP-SE);
    (ii) eps <= 1: Lazy-DP-TS < min(Anytime-Lazy-UCB, DP-SE);
    (iii) eps <= 1: DP-TS worse than the other three.

    DP-SE is the max form (the book's default); the sum form is reported alongside.
    """
    r = data["results"]

    def less(a, b, e):
        ra, rb = r[(a, e)], r[(b, e)]
        diff = rb.final_mean - ra.final_mean
        se = float(np.hypot(ra.final_se, rb.final_se))
        if diff > k * se:
            return True
        if diff < -k * se:
            return False
        return None

    out = []
    for e in data["epsilons"]:
        row = {"epsilon": e}
        if e > 1:
            row["(i) DP-TS < Lazy-DP-TS"] = less("DP-TS", "Lazy-DP-TS", e)
        for other in ("Anytime-Lazy-UCB", "DP-SE", "DP-SE (sum)"):
            row[f"Lazy-DP-TS < {other}"] = less("Lazy-DP-TS", other, e)
        if e <= 1:
            for other in ("Lazy-DP-TS", "Anytime-Lazy-UCB", "DP-SE"):
                row[f"(iii) {other} < DP-TS"] = less(other, "DP-TS", e)
        out.append(row)
    return out
