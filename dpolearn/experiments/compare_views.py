"""Tables, rankings and derived figures of the comparison chapter (``book/comparison.md``),
read from the cells of ``compare-bandits`` (nothing here simulates).

* :func:`leaderboard`, :func:`leaderboard_markdown`, :func:`winners`, :func:`ranking_matrix`:
  the tables of the chapter.
* ``compare-ranking`` -- heat map of final regret relative to the best algorithm, per
  instance and epsilon (the same runs as ``compare-bandits``).
* ``compare-gap`` -- the two-armed cells of the same runs, final regret against the gap.

A cell is a dict ``{"algorithm", "instance", "epsilon", "result", "level"}`` (``epsilon`` is
None for the runs without one); ``level`` is :func:`dpolearn.accounting.privacy_level` of the
cell's guarantee.
"""
from __future__ import annotations

import math
import re

import numpy as np

from ..plotting import errorbar, mark_reference, shared_legend, subplots
from .catalogue import privacy_kind
from .registry import register, regret_rows, run

__all__ = ["cell", "label_grid", "private_labels", "leaderboard", "leaderboard_markdown", "winners",
           "ranking_matrix", "summary_rows", "log_ticks", "short_instance"]


def cell(data, algorithm: str, instance: str, epsilon=None):
    """The cell dict of ``algorithm`` on ``instance`` at ``epsilon`` (None: eps-free runs)."""
    for c in data["cells"]:
        if c["algorithm"] == algorithm and c["instance"] == instance and c["epsilon"] == epsilon:
            return c
    raise KeyError(f"no cell ({algorithm!r}, {instance!r}, {epsilon!r})")


def label_grid(data, label: str) -> tuple:
    """The grid epsilons at which ``label`` has cells in ``data`` (() if it runs without one)."""
    have = {c["epsilon"] for c in data["cells"] if c["algorithm"] == label}
    return tuple(e for e in data["epsilons"] if e in have)


def private_labels(data) -> list:
    """The algorithms of ``data`` that run at the grid's epsilons (have a cell with one)."""
    with_eps = {c["algorithm"] for c in data["cells"] if c["epsilon"] is not None}
    return [a for a in data["algorithms"] if a in with_eps]


# ------------------------------------------------------------------ tables
def leaderboard(data, instance: str) -> list[dict]:
    """One row per algorithm: privacy text and {epsilon: (mean, se)} of the final regret.

    eps-free algorithms have their one value under the key ``None``. Rows are sorted by the
    final regret at eps = 1 (eps-free rows by their value), private rows first.
    """
    rows = []
    for label in data["algorithms"]:
        cells = [c for c in data["cells"] if c["algorithm"] == label and c["instance"] == instance]
        values = {c["epsilon"]: (c["result"].final_mean, c["result"].final_se) for c in cells}
        kind = privacy_kind(label)
        if kind == "pure":
            text = "ε-DP" if label != "Uniform" else "0-DP (ignores data)"
        elif kind == "approx":
            text = "(ε, e⁻¹⁰)-DP, ε ≤ 1 only"
        elif label == "M-TS-Gaussian":
            text = "μ(ε)-GDP, μ(ε) = 2Φ⁻¹(eᵋ/(1+eᵋ))"
        elif label == "DP-TS-UCB":
            lv = cells[0]["level"]
            text = f"{lv['mu']:.3g}-GDP (α = 1), like ε ≈ {lv['epsilon']:.2g}"
        else:
            text = "none"
        key = 1.0 if 1.0 in values else None
        rows.append({"algorithm": label, "privacy": text, "values": values,
                     "sort": (None in values, values.get(key, (math.inf, 0))[0])})
    rows.sort(key=lambda r: r["sort"])
    return rows


def leaderboard_markdown(data, instance: str) -> str:
    """The leaderboard of one instance as a Markdown table (mean ± standard error)."""
    eps = data["epsilons"]
    head = ("| algorithm | privacy | " + " | ".join(f"ε = {e:g}" for e in eps)
            + " | no ε |\n|---|---|" + "---:|" * (len(eps) + 1) + "\n")
    lines = []
    for row in leaderboard(data, instance):
        cells = []
        for e in list(eps) + [None]:
            if e in row["values"]:
                m, se = row["values"][e]
                cells.append(f"{m:,.0f} ± {se:,.0f}")
            else:
                cells.append("")
        lines.append(f"| {row['algorithm']} | {row['privacy']} | " + " | ".join(cells) + " |")
    return head + "\n".join(lines)


def winners(data, instances=None, labels=None) -> list[dict]:
    """Per (instance, epsilon): the private algorithm with the lowest mean final regret among
    ``labels`` (default: every algorithm with a grid epsilon), the runner-up, and whether the
    lead exceeds two standard errors of the difference."""
    instances = instances or data["leaderboard_instances"]
    labels = labels or private_labels(data)
    out = []
    for inst in instances:
        for e in data["epsilons"]:
            cand = [c for c in data["cells"] if c["instance"] == inst and c["epsilon"] == e
                    and c["algorithm"] in labels]
            cand.sort(key=lambda c: c["result"].final_mean)
            best, second = cand[0]["result"], cand[1]["result"]
            diff = second.final_mean - best.final_mean
            se = math.hypot(best.final_se, second.final_se)
            if se > 0:
                z = diff / se
            else:                                   # both deterministic: equal means are a tie
                z = math.inf if diff > 1e-9 * max(abs(best.final_mean), 1.0) else 0.0
            out.append({"instance": inst, "epsilon": e, "best": best.label,
                        "best_mean": best.final_mean, "second": second.label,
                        "second_mean": second.final_mean, "z": z, "clear": z > 2})
    return out



def summary_rows(data) -> list[dict]:
    """summary.csv rows of comparison cells (experiment column ``compare-bandits``): the
    standard columns plus the privacy text, the target epsilon and the comparison epsilon."""
    rows = []
    for c in data["cells"]:
        for row in regret_rows("compare-bandits", c["instance"], [c["result"]],
                               epsilon=c["epsilon"]):
            lv = c["level"]
            row["privacy"] = lv["text"]
            row["target_epsilon"] = "" if c["epsilon"] is None else c["epsilon"]
            row["comparison_epsilon"] = lv["epsilon"]
            if privacy_kind(c["algorithm"]) == "gdp":
                row["epsilon"] = ""                 # GDP-only: no epsilon parameter
            rows.append(row)
    return rows


# ------------------------------------------------------------------ figure helpers
def log_ticks(ax, values):
    """Tick labels at exactly ``values`` on a logarithmic x axis (no minor ticks)."""
    from matplotlib.ticker import NullFormatter, NullLocator

    ax.set_xticks(values)
    ax.set_xticklabels([f"{v:g}" for v in values])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())


def short_instance(name: str) -> str:
    """'5 arms (0.75 ... 0.25), Hu & Hegde' -> '5 arms\n(0.75 … 0.25)' (for narrow labels)."""
    name = re.sub(r", [A-Z][^,]*$", "", name).replace(" ... ", " … ")
    head, _, tail = name.partition(" arms")
    return f"{head} arms\n{tail.lstrip(', ')}" if tail else name


def ranking_matrix(data, instances=None, labels=None):
    """Final regret divided by the best private algorithm's, per (instance, ε) column.

    Returns ``(labels, columns, ratio)`` with ``columns`` a list of (instance, epsilon) and
    ``ratio`` of shape (len(labels), len(columns)); NaN where an algorithm does not run at that
    ε. The best of each column (as in :func:`winners`) has ratio 1. Rows are sorted by their
    median ratio, best first.
    """
    instances = instances or data["leaderboard_instances"]
    labels = labels or private_labels(data)
    columns = [(inst, e) for inst in instances for e in data["epsilons"]]
    means = np.full((len(labels), len(columns)), np.nan)
    for c in data["cells"]:
        if c["algorithm"] in labels and (c["instance"], c["epsilon"]) in columns:
            means[labels.index(c["algorithm"]), columns.index((c["instance"], c["epsilon"]))] = \
                c["result"].final_mean
    ratio = means / np.nanmin(means, axis=0, keepdims=True)
    order = np.argsort(np.nanmedian(ratio, axis=1), kind="stable")
    return [labels[i] for i in order], columns, ratio[order]


def _ranking_plot(data):
    """Heat map of final regret relative to the best, algorithms x (instance, ε); a star marks
    the best of each column."""
    from matplotlib.colors import LogNorm

    labels, columns, ratio = ranking_matrix(data)
    n_eps = len(data["epsilons"])
    fig, axes = subplots(1, 1, height=1.45)
    ax = axes[0, 0]
    shown = np.clip(ratio, 1.0, 10.0)
    image = ax.imshow(np.ma.masked_invalid(shown), cmap="viridis_r", norm=LogNorm(1.0, 10.0),
                      aspect="auto", interpolation="nearest")
    image._dpolearn_table = [(labels[i], f"{columns[j][0]} | ε = {columns[j][1]:g}", ratio[i, j])
                             for i in range(len(labels)) for j in range(len(columns))
                             if np.isfinite(ratio[i, j])]
    best_rows, best_cols = np.nonzero(ratio == 1.0)
    ax.plot(best_cols, best_rows, ls="none", marker="*", ms=9, color="white", mec="black",
            mew=0.8, label="_best")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xticks(range(len(columns)), [f"{e:g}" for _, e in columns], rotation=90)
    ax.tick_params(length=0)
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    for k in range(1, len(columns) // n_eps):
        mark_reference(ax.axvline(k * n_eps - 0.5, color="white", lw=3))
    for k, inst in enumerate(dict.fromkeys(i for i, _ in columns)):
        ax.text((k + 0.5) * n_eps - 0.5, -0.7, short_instance(inst), ha="center", va="bottom")
    ax.set_xlabel("privacy parameter ε, per instance (★: lowest regret)")
    bar = fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
    bar.set_label("regret / lowest regret in the column")
    bar.set_ticks([1, 2, 5, 10], labels=["1", "2", "5", "≥ 10"])
    bar.ax.minorticks_off()
    return fig


def _ranking_compute(scale, seed, jobs, progress):
    """The cells of ``compare-bandits`` (same runs; nothing new is simulated)."""
    return run("compare-bandits", scale, seed=seed, jobs=jobs, progress=progress)


def _gap_compute(scale, seed, jobs, progress):
    data = run("compare-bandits", scale, seed=seed, jobs=jobs, progress=progress)
    names = [f"2 arms, gap {g:g}" for g in data["gaps"]]
    cells = [c for c in data["cells"] if c["instance"] in names]
    return {"cells": cells, "gaps": data["gaps"], "instances": names, "epsilons": data["epsilons"],
            "algorithms": data["algorithms"], "horizon": data["horizon"],
            "n_runs": data["n_runs"], "panel_epsilons": (0.5, 2.0)}


def _gap_plot(data):
    fig, axes = subplots(1, 2, sharey=True)
    gaps = np.asarray(data["gaps"])
    for ax, e in zip(axes[0], data["panel_epsilons"]):
        for label in data["algorithms"]:
            grid = label_grid(data, label)
            key = e if grid else None
            if grid and e not in grid:
                continue
            cells = {c["instance"]: c for c in data["cells"]
                     if c["algorithm"] == label and c["epsilon"] == key}
            m = np.array([cells[n]["result"].final_mean for n in data["instances"]])
            se = np.array([cells[n]["result"].final_se for n in data["instances"]])
            errorbar(ax, gaps, m, se, label, ms=3.5, lw=1.3)
        T = data["horizon"]
        ax.plot(
            gaps, T * gaps / 2, color="k", lw=1, ls=(0, (5, 5)), label="TΔ/2 (uniform, expected)"
        )
        ax.set_xscale("log")
        ax.set_yscale("log")
        log_ticks(ax, gaps)
        ax.set_xlabel("gap Δ between the two arms")
        ax.text(0.03, 0.97, f"ε = {e:g}", transform=ax.transAxes, va="top")
    axes[0, 0].set_ylabel(f"regret at T = {data['horizon']:,}")
    shared_legend(fig, axes, title="DP-TS-UCB runs at α = 1 in both panels")
    return fig


def _gap_summary(data):
    return summary_rows(data)




register("compare-ranking",
         title="Which algorithm to use: regret relative to the best, per instance and epsilon",
         plot=_ranking_plot, chapter="comparison")(_ranking_compute)
register("compare-gap", title="Final regret against the gap (two arms), same runs",
         plot=_gap_plot, summary=_gap_summary, chapter="comparison")(_gap_compute)
