"""Experiments of the primer chapter: non-private UCB1 and Thompson Sampling."""
from __future__ import annotations

import numpy as np

from ..bandits import UCB1, BetaTS
from ..envs import BernoulliBandit
from ..plotting import regret, subplots
from ..simulate import simulate
from .registry import derive_seed, parallel_map, register, regret_rows

PRIMER_MEANS = (0.9, 0.6)
_SIZES = {"quick": (10_000, 20), "paper": (100_000, 20)}


def _one(task):
    name, horizon, n_runs, seed = task
    policy = {"UCB1": UCB1, "TS (Beta)": BetaTS}[name]()
    return simulate(policy, BernoulliBandit(PRIMER_MEANS), horizon, n_runs, seed=seed,
                    checkpoints="log", progress=False)


def _compute(scale, seed, jobs, progress):
    horizon, n_runs = _SIZES[scale]
    tasks = [(name, horizon, n_runs, derive_seed("primer-ucb-ts", name, seed))
             for name in ("UCB1", "TS (Beta)")]
    ucb, ts = parallel_map(_one, tasks, jobs)
    gaps = np.max(PRIMER_MEANS) - np.asarray(PRIMER_MEANS)
    bound = np.array([UCB1.regret_bound(gaps, t) for t in ucb.checkpoints])
    return {"UCB1": ucb, "TS (Beta)": ts, "ucb1_bound": bound, "means": np.asarray(PRIMER_MEANS)}


def _plot(data):
    fig, axes = subplots()
    ax = axes[0, 0]
    regret([data["UCB1"], data["TS (Beta)"]], ax=ax, log_x=True)
    ax.plot(data["UCB1"].checkpoints, data["ucb1_bound"], "k--", lw=1.5,
            label="UCB1 bound (Auer et al. 2002)")
    ax.legend()
    return fig


def _summary(data):
    return regret_rows("primer-ucb-ts", "means=(0.9, 0.6)", [data["UCB1"], data["TS (Beta)"]])


register("primer-ucb-ts", title="UCB1 and Beta-TS on means (0.9, 0.6)", plot=_plot,
         summary=_summary, chapter="primer")(_compute)
