"""The full-information comparison at an honest epsilon, shown in the chapter on private experts in
experiments (``book/experts_experiments.md``).

``compare-fullinfo`` -- FTL, Hedge, RNM-FTNL (strict noise families and the papers' presets)
and the naive FTNL on two expert instances over the comparison's epsilon grid, each private
algorithm at the input epsilon that makes its honest guarantee the grid value.
"""
from __future__ import annotations

import numpy as np

from ..accounting import privacy_level
from ..envs import BernoulliExperts
from ..plotting import errorbar, shared_legend, style_of, subplots
from ..policy import Policy
from . import catalogue
from .compare_setup import EPSILONS, SIZES, comparison_checkpoints
from .compare_views import log_ticks, short_instance
from .engine import map_tasks, sweep
from .registry import derive_seed, register, regret_rows

__all__ = ["FULLINFO_INSTANCES", "FULLINFO_ALGORITHMS", "make_fullinfo_policy",
           "fullinfo_compute", "fullinfo_summary"]

FULLINFO_INSTANCES = {
    "5 experts (0.25 ... 0.75), Hu et al. 2021": (0.25, 0.375, 0.5, 0.625, 0.75),
    "20 experts, gap 0.05": (0.5,) * 19 + (0.55,),
}
#: label -> privacy kind ("none" or "pure") of the full-information algorithms compared; the
#: private ones are built by the ``"common"`` preset of :mod:`~dpolearn.experiments.catalogue`
#: at the input epsilon that makes their honest guarantee the grid value
#: (:func:`make_fullinfo_policy`).
FULLINFO_ALGORITHMS = {
    label: catalogue.privacy_kind(label)
    for label in ("FTL", "Hedge", "RNM-FTNL (strict, Lap)", "RNM-FTNL (strict, Exp)",
                  "RNM-FTNL (strict, Gumbel)", "RNM-FTNL (hu2021 preset)",
                  "RNM-FTNL (wu2025 preset, Lap)", "RNM-FTNL (wu2025 preset, Exp)", "Naive FTNL")
}


def make_fullinfo_policy(label: str, epsilon=None, horizon: int | None = None) -> Policy:
    """Full-information policy ``label`` whose honest ``guarantee`` is ``epsilon``-DP.

    The presets of Hu et al. (Lap 1/eps) and of Wu and Wang (Exp 1/eps) claim eps-DP but are
    only 2 eps-DP; here they get the input epsilon that makes them honestly eps-DP (eps / 2),
    which is the same noise as the strict scale. Their first-action and resampling choices stay.
    """
    if label not in FULLINFO_ALGORITHMS:
        raise ValueError(f"label must be one of {list(FULLINFO_ALGORITHMS)}, got {label!r}")
    if FULLINFO_ALGORITHMS[label] == "none":
        return catalogue.make_policy(label, horizon=horizon)
    if epsilon is None:
        raise ValueError(f"epsilon is required for {label}, got None")
    eps = np.asarray(epsilon, dtype=float)
    unit = catalogue.make_policy(label, 1.0)
    ratio = float(np.asarray(unit.guarantee.epsilon))            # guarantee / input, linear
    return catalogue.make_policy(label, eps / ratio)


def _fullinfo_task(task):
    label, inst, horizon, n_runs, seed = task
    private = FULLINFO_ALGORITHMS[label] != "none"
    cells = [{"epsilon": e} for e in EPSILONS] if private else [{}]
    parts = sweep(lambda cols: make_fullinfo_policy(label, cols.get("epsilon"), horizon),
                  BernoulliExperts(FULLINFO_INSTANCES[inst], kind="reward"), horizon, cells,
                  n_runs, seed, checkpoints=comparison_checkpoints(horizon),
                  params=[{}] * len(cells), label=label)
    return [{"algorithm": label, "instance": inst, "epsilon": c.get("epsilon"), "result": part,
             "level": privacy_level(part.guarantee, c.get("epsilon"))}
            for c, part in zip(cells, parts)]


def fullinfo_compute(scale, seed, jobs, progress):
    """The data of ``compare-fullinfo``: one cell per (algorithm, instance, epsilon)."""
    cfg = SIZES[scale]
    T, n = cfg["fullinfo_horizon"], cfg["fullinfo_runs"]
    tasks = [(label, inst, T, n, derive_seed("compare-fullinfo", label, inst, seed))
             for label in FULLINFO_ALGORITHMS for inst in FULLINFO_INSTANCES]
    cells = [c for out in map_tasks(_fullinfo_task, tasks, jobs) for c in out]
    return {"cells": cells, "epsilons": EPSILONS, "instances": dict(FULLINFO_INSTANCES),
            "algorithms": list(FULLINFO_ALGORITHMS), "horizon": T, "n_runs": n}


def _fullinfo_plot(data):
    fig, axes = subplots(1, 2, sharey=True)
    eps = np.asarray(data["epsilons"])
    for ax, inst in zip(axes[0], data["instances"]):
        for label in data["algorithms"]:
            cells = sorted((c for c in data["cells"]
                            if c["algorithm"] == label and c["instance"] == inst),
                           key=lambda c: -1 if c["epsilon"] is None else c["epsilon"])
            if cells[0]["epsilon"] is None:
                style = style_of(label)
                ax.axhline(cells[0]["result"].final_mean, color=style["color"], lw=1.3,
                           ls=style["linestyle"], label=f"{label} (not private)")
                continue
            m = np.array([c["result"].final_mean for c in cells])
            se = np.array([c["result"].final_se for c in cells])
            errorbar(ax, eps, m, se, label, ms=4, lw=1.4)
        ax.set_xscale("log")
        ax.set_yscale("log")
        log_ticks(ax, eps)
        ax.set_xlabel("privacy parameter ε (honest)")
        ax.text(0.97, 0.97, short_instance(inst).replace("\n", " "), transform=ax.transAxes,
                ha="right", va="top")
    axes[0, 0].set_ylabel(f"regret at T = {data['horizon']:,}")
    shared_legend(fig, axes, ncol=2)
    return fig


def fullinfo_summary(data):
    """summary.csv rows of ``compare-fullinfo`` (with the privacy text of each cell)."""
    rows = []
    for c in data["cells"]:
        for row in regret_rows("compare-fullinfo", c["instance"], [c["result"]],
                               epsilon=c["epsilon"]):
            row["privacy"] = c["level"]["text"]
            rows.append(row)
    return rows


register("compare-fullinfo",
         title="Full-information algorithms on common instances over an epsilon grid",
         plot=_fullinfo_plot, summary=fullinfo_summary,
         chapter="experts_experiments")(fullinfo_compute)
