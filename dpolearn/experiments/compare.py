"""Experiments of the chapter "Which private bandit algorithm should I use?"
(``book/comparison.md``), and the one namespace the chapter reads (``cmp``).

* ``compare-bandits`` -- every bandit policy of :mod:`dpolearn.bandits` on common Bernoulli
  instances (the papers' instances, a 20-armed one and two-armed ones with gaps from 0.02 to
  0.4) over the epsilon grid :data:`EPSILONS`. Each algorithm runs as ONE batch per number of
  arms: every (instance, epsilon, run) triple is a row of the batch (2-D means, per-run
  epsilon). Its figure is final regret against epsilon, one panel per instance; its summary
  is the leaderboard (final regret mean and standard error per cell).

The set-up (grid, instances, sizes, the common privacy scale) is in
:mod:`~dpolearn.experiments.compare_setup`, the tables and the experiments derived from the
same runs (``compare-ranking``, ``compare-gap``) in :mod:`~dpolearn.experiments.compare_views`,
the full-information comparison (``compare-fullinfo``, shown in the experts-experiments chapter)
in :mod:`~dpolearn.experiments.compare_fullinfo`; their public names are re-exported here, with
:func:`~dpolearn.accounting.privacy_level` and
:func:`~dpolearn.accounting.gdp_equivalent_epsilon` (the chapter calls them as ``cmp.<name>``).
"""
from __future__ import annotations

import numpy as np

from .._algorithms import entry
from ..accounting import gdp_equivalent_epsilon, privacy_level
from ..envs import BernoulliBandit
from ..plotting import color_of, errorbar, shared_legend, style_of, subplots
from .compare_fullinfo import FULLINFO_ALGORITHMS, FULLINFO_INSTANCES, make_fullinfo_policy
from .compare_setup import (
    BANDIT_ALGORITHMS,
    DP_TS_UCB_ALPHA,
    DP_UCB_INT_DELTA,
    EPSILONS,
    GAPS,
    INSTANCES,
    LEADERBOARD_INSTANCES,
    SIZES,
    arm_permuted,
    comparison_checkpoints,
    epsilon_grid,
    exported_bandit_labels,
    make_bandit_policy,
    mts_pre_pulls,
)
from .compare_views import (
    cell,
    leaderboard,
    leaderboard_markdown,
    log_ticks,
    ranking_matrix,
    short_instance,
    summary_rows,
    winners,
)
from .engine import map_tasks, sweep
from .registry import derive_seed, register

__all__ = ["EPSILONS", "INSTANCES", "GAPS", "LEADERBOARD_INSTANCES", "BANDIT_ALGORITHMS",
           "FULLINFO_ALGORITHMS", "FULLINFO_INSTANCES", "SIZES", "exported_bandit_labels",
           "make_bandit_policy", "arm_permuted", "make_fullinfo_policy", "epsilon_grid",
           "mts_pre_pulls", "cell", "leaderboard", "leaderboard_markdown", "winners",
           "ranking_matrix", "DP_UCB_INT_DELTA", "DP_TS_UCB_ALPHA", "privacy_level",
           "gdp_equivalent_epsilon"]


def _checkpoints(horizon: int) -> np.ndarray:
    return comparison_checkpoints(horizon)


def _groups() -> dict[int, list[str]]:
    """Instances grouped by number of arms (one batch per group and algorithm)."""
    out: dict[int, list[str]] = {}
    for name, means in INSTANCES.items():
        out.setdefault(len(means), []).append(name)
    return out


def _bandit_task(task):
    """One algorithm on every instance with K arms and every grid epsilon, as ONE batch."""
    label, k, horizon, n_runs, seed, seed_of_order = task
    grid = epsilon_grid(label)
    cells = [dict(instance=name, means=INSTANCES[name], **({"epsilon": e} if grid else {}))
             for name in _groups()[k] for e in (grid or (None,))]
    parts = sweep(lambda cols: make_bandit_policy(label, cols.get("epsilon"), horizon),
                  lambda cols: BernoulliBandit(arm_permuted(cols["means"], seed_of_order)),
                  horizon, cells, n_runs, seed, checkpoints=_checkpoints(horizon),
                  params=[{"instance": c["instance"]} for c in cells])
    return [{"algorithm": label, "instance": c["instance"], "epsilon": c.get("epsilon"),
             "result": part, "level": privacy_level(part.guarantee, c.get("epsilon"))}
            for c, part in zip(cells, parts)]


def _task_cost(task) -> float:
    """Relative cost of a task: the entry's cost per round (``Entry.task_cost``, only used to
    schedule the longest tasks first) times sqrt(K)."""
    label, k = task[0], task[1]
    return entry(label).task_cost * k ** 0.5


def _bandit_compute(scale, seed, jobs, progress):
    cfg = SIZES[scale]
    tasks = [
        (
            label,
            k,
            cfg["horizon"],
            cfg["n_runs"],
            derive_seed("compare-bandits", label, k, seed),
            derive_seed("compare-bandits", "arm order", k, seed),
        )
        for label in BANDIT_ALGORITHMS
        for k in sorted(_groups())
    ]
    # Longest tasks first, so that the processes finish together; the results come back in
    # task order, so the data do not depend on jobs.
    cells = [c for out in map_tasks(_bandit_task, tasks, jobs, cost=_task_cost) for c in out]
    return {"cells": cells, "epsilons": EPSILONS, "gaps": GAPS, "instances": dict(INSTANCES),
            "leaderboard_instances": LEADERBOARD_INSTANCES,
            "algorithms": list(BANDIT_ALGORITHMS), "horizon": cfg["horizon"],
            "n_runs": cfg["n_runs"]}


def _bandit_summary(data):
    return summary_rows(data)


# ------------------------------------------------------------------ figures
#: Legend suffix by privacy kind (the legend names stay the policies' labels).
_KIND_SUFFIX = {"none": " (not private)", "approx": " (ε, e⁻¹⁰)", "gdp": " (μ(ε)-GDP)", "pure": ""}


def _regret_vs_eps(ax, data, instance, labels=None):
    """Final regret against epsilon: solid lines for pure DP, dashed for (eps, delta) and GDP,
    horizontal lines for the epsilon-free references, a star for DP-TS-UCB."""
    labels = labels or data["algorithms"]
    eps = np.asarray(data["epsilons"])
    for label in labels:
        kind = BANDIT_ALGORITHMS[label]
        cells = [c for c in data["cells"] if c["algorithm"] == label and c["instance"] == instance]
        if kind == "none" or label == "Uniform":
            style = style_of(label)
            ax.axhline(cells[0]["result"].final_mean, color=style["color"], lw=1.3,
                       ls=style["linestyle"],
                       label=label + (" (not private)" if kind == "none" else " (no data)"))
            continue
        if label == "DP-TS-UCB":
            c = cells[0]
            errorbar(ax, [c["level"]["epsilon"]], [c["result"].final_mean], [c["result"].final_se],
                     label=f"DP-TS-UCB (α = 1, {c['level']['mu']:.3g}-GDP)", fmt="*", ms=12,
                     color=color_of("DP-TS-UCB"))
            continue
        cells.sort(key=lambda c: c["epsilon"])
        x = np.array([c["epsilon"] for c in cells])
        m = np.array([c["result"].final_mean for c in cells])
        se = np.array([c["result"].final_se for c in cells])
        style = dict(style_of(label), linestyle="-" if kind == "pure" else "--")
        errorbar(ax, x, m, se, label + _KIND_SUFFIX[kind], ms=4, lw=1.4, **style)
    ax.set_xscale("log")
    ax.set_yscale("log")
    log_ticks(ax, eps)
    ax.set_xlabel("privacy parameter ε")


def _bandit_plot(data):
    """Final regret against ε, one panel per instance (2 columns), one legend below."""
    insts = data["leaderboard_instances"]
    nrows = (len(insts) + 1) // 2
    fig, axes = subplots(nrows, 2, sharex=True)
    for ax, inst in zip(axes.flat, insts):
        _regret_vs_eps(ax, data, inst)
        ax.text(0.0, 1.02, short_instance(inst).replace("\n", " "), transform=ax.transAxes,
                va="bottom")
        if ax not in axes[-1] and not (len(insts) % 2 and ax is axes[-2, 1]):
            ax.set_xlabel("")
    for ax in axes.flat[len(insts):]:
        ax.axis("off")
    for ax in axes[:, 0]:
        ax.set_ylabel(f"regret at T = {data['horizon']:,}")
    if len(insts) % 2:                               # the empty slot's neighbour shows ε
        axes[-2, 1].xaxis.set_tick_params(labelbottom=True)
        axes[-2, 1].set_xlabel("privacy parameter ε")
    shared_legend(fig, axes, ncol=3)
    return fig


register("compare-bandits",
         title="Every bandit algorithm on common instances over an epsilon grid",
         plot=_bandit_plot, summary=_bandit_summary, chapter="comparison")(_bandit_compute)
