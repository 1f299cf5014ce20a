"""Experiments of the chapter "Which private bandit algorithm should I use?"
(``book/comparison.md``).

* ``compare-bandits`` -- every bandit policy of :mod:`dpolearn.bandits` on common Bernoulli
  instances (the papers' instances, a 20-armed one and two-armed ones with gaps from 0.02 to
  0.4) over the epsilon grid :data:`EPSILONS`. Each algorithm runs as ONE batch per number of
  arms: every (instance, epsilon, run) triple is a row of the batch (2-D means, per-run
  epsilon). Its figure is final regret against epsilon, one panel per instance; its summary
  is the leaderboard (final regret mean and standard error per cell).
* ``compare-gap`` -- the two-armed cells of the same runs, final regret against the gap.
* ``compare-fullinfo`` -- FTL, Hedge, RNM-FTNL (strict noise families and the papers' presets)
  and the naive FTNL on two expert instances over the same epsilon grid.

Common privacy scale. Each private algorithm is configured so that its *honest* ``guarantee``
(standard accounting, one reward vector replaced) is the grid value:

* pure eps-DP algorithms get ``epsilon = eps`` (DP-UCB-BOUND and DP-UCB with the "chan" split,
  Private-UCB with the "MT_noK" budget, whose guarantee is then eps; the RNM-FTNL presets with
  the input epsilon that makes their honest guarantee eps);
* DP-UCB-INT gets the Corollary 3.2 calibration to ``(eps, e^-10)``-DP, which exists only for
  eps <= 1 (it is not run above);
* M-TS-Gaussian gets ``mu = pure_dp_to_gdp(eps)``: the smallest mu for which *every* eps-DP
  algorithm is mu-GDP. At that mu it is as private as the pure algorithms in the GDP sense,
  but it is not eps-DP: at eps it is only ``(eps, gdp_delta(eps, mu))``-DP;
* DP-TS-UCB cannot be tuned to a target: its mu depends on (T, alpha) only and is at least
  about 2.87 (alpha = 1). It runs once, at alpha = 1, and is placed at the epsilon whose
  pure-DP algorithms are 2.87-GDP (:func:`gdp_equivalent_epsilon`, about 2.5).
"""
from __future__ import annotations

import math
from typing import Dict, List, Optional

import numpy as np

from .. import bandits

# privacy_level and gdp_equivalent_epsilon live in accounting; imported here for this module
# and for callers that use them as compare.<name> (the comparison chapter, the leaderboard)
from ..accounting import gdp_equivalent_epsilon, privacy_level  # noqa: F401
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
from ..envs import BernoulliBandit, BernoulliExperts
from ..fullinfo import FTL, RNMFTNL, Hedge, NaiveFTNL
from ..gdp import pure_dp_to_gdp
from ..plotting import color_of, errorbar, shared_legend, style_of, subplots
from ..policy import Policy
from ..simulate import make_checkpoints, simulate
from .registry import derive_seed, parallel_map, register, regret_rows, run

__all__ = ["EPSILONS", "INSTANCES", "GAPS", "LEADERBOARD_INSTANCES", "BANDIT_ALGORITHMS",
           "FULLINFO_ALGORITHMS", "FULLINFO_INSTANCES", "SIZES", "exported_bandit_labels",
           "make_bandit_policy", "arm_permuted", "make_fullinfo_policy", "epsilon_grid",
           "mts_pre_pulls", "cell", "leaderboard",
           "leaderboard_markdown", "winners", "DP_UCB_INT_DELTA"]

#: The privacy grid (every private algorithm is configured to be honestly eps-DP at each).
EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)
#: Gaps of the two-armed instances (0.5 + gap/2, 0.5 - gap/2).
GAPS = (0.02, 0.05, 0.1, 0.2, 0.4)


def _two_arms(gap: float):
    return (0.5 + gap / 2, 0.5 - gap / 2)


#: Instance name -> Bernoulli means. Instances with the same number of arms share one batch.
INSTANCES: Dict[str, tuple] = {
    "2 arms (0.9, 0.6), Tossou & Dimitrakakis": (0.9, 0.6),
    **{f"2 arms, gap {g:g}": _two_arms(g) for g in GAPS},
    "5 arms (0.75 ... 0.25), Hu & Hegde": (0.75, 0.625, 0.5, 0.375, 0.25),
    "5 arms (0.95 ... 0.15), Hu et al. 2025": (0.95, 0.75, 0.55, 0.35, 0.15),
    "20 arms, gap 0.1": (0.6,) + (0.5,) * 19,
}
#: The instances of the leaderboard and of the regret-vs-epsilon figure.
LEADERBOARD_INSTANCES = ("2 arms (0.9, 0.6), Tossou & Dimitrakakis",
                         "5 arms (0.75 ... 0.25), Hu & Hegde",
                         "5 arms (0.95 ... 0.15), Hu et al. 2025",
                         "20 arms, gap 0.1", "2 arms, gap 0.02")

#: Display label -> privacy kind: "none", "pure", "approx" (eps, delta) or "gdp".
BANDIT_ALGORITHMS: Dict[str, str] = {
    "UCB1": "none", "KL-UCB": "none", "TS (Beta)": "none", "TS (Gaussian)": "none",
    "Uniform": "pure",
    "DP-UCB-BOUND": "pure", "DP-UCB": "pure", "DP-UCB-INT": "approx", "Private-UCB": "pure",
    "Anytime-Lazy-UCB": "pure", "DP-TS": "pure", "Lazy-DP-TS": "pure", "DP-SE": "pure",
    "AdaP-UCB": "pure", "AdaP-KLUCB": "pure", "DP-TS-UCB": "gdp", "M-TS-Gaussian": "gdp",
}
#: delta' of DP-UCB-INT (Tossou and Dimitrakakis 2016, Figure 2)
DP_UCB_INT_DELTA = math.exp(-10)
#: alpha of DP-TS-UCB: 1 is its most private setting (mu about 2.87 at every T)
DP_TS_UCB_ALPHA = 1.0

#: per scale: horizon T and runs per (algorithm, instance, epsilon) cell
SIZES = {"quick": {"horizon": 1_000, "n_runs": 4, "fullinfo_horizon": 2 ** 12, "fullinfo_runs": 20},
         "paper": {"horizon": 50_000, "n_runs": 20, "fullinfo_horizon": 2 ** 17,
                   "fullinfo_runs": 100}}


def exported_bandit_labels() -> set:
    """Labels of every bandit policy class exported by :mod:`dpolearn.bandits`."""
    out = set()
    for name in bandits.__all__:
        obj = getattr(bandits, name)
        if isinstance(obj, type) and issubclass(obj, Policy) and obj.feedback == "bandit":
            out.add(obj.label)
    return out


# ------------------------------------------------------------------ privacy on one scale
# ------------------------------------------------------------------ the policies
def epsilon_grid(label: str) -> tuple:
    """The grid values at which ``label`` runs: () for algorithms without an epsilon."""
    if label not in BANDIT_ALGORITHMS:
        raise ValueError(f"label must be one of {sorted(BANDIT_ALGORITHMS)}, got {label!r}")
    if label in ("UCB1", "KL-UCB", "TS (Beta)", "TS (Gaussian)", "Uniform", "DP-TS-UCB"):
        return ()
    if label == "DP-UCB-INT":                      # Corollary 3.2 needs eps <= 1
        return tuple(e for e in EPSILONS if e <= 1)
    return EPSILONS


def mts_pre_pulls(horizon: int) -> int:
    """Round-robin pre-pulls b of M-TS-Gaussian: T/500 (Hu et al. 2025 use b = 2000 at T = 10^6)."""
    return max(1, int(horizon) // 500)


def make_bandit_policy(label: str, epsilon, horizon: int) -> Policy:
    """The policy ``label`` configured to be honestly ``epsilon``-private on the common scale.

    ``epsilon`` is a scalar or an array of shape (n_runs,) (ignored for algorithms without one).
    """
    eps = None if epsilon is None else np.asarray(epsilon, dtype=float)
    plain = {"UCB1": UCB1, "KL-UCB": KLUCB, "TS (Beta)": BetaTS, "TS (Gaussian)": GaussianTS,
             "Uniform": UniformPlay}
    if label in plain:
        return plain[label]()
    if label == "DP-TS-UCB":
        return DPTSUCB(alpha=DP_TS_UCB_ALPHA, horizon=horizon)
    if eps is None:
        raise ValueError(f"epsilon is required for {label}, got None")
    if label == "DP-UCB-BOUND":
        return DPUCBBound(epsilon=eps, split="chan")
    if label == "DP-UCB":
        return DPUCB(epsilon=eps, split="chan")
    if label == "DP-UCB-INT":
        return DPUCBInt.from_target(eps, delta_prime=DP_UCB_INT_DELTA)
    if label == "Private-UCB":
        return PrivateUCB(epsilon=eps, horizon=horizon, variant="MT_noK")
    if label == "M-TS-Gaussian":                   # mu = pure_dp_to_gdp(eps): c = T / ((b+1) mu^2)
        b = mts_pre_pulls(horizon)
        mu = pure_dp_to_gdp(eps)
        b_arr = np.full(np.shape(eps), b, dtype=np.int64) if np.ndim(eps) else b
        return MTSGaussian(b=b_arr, c=horizon / ((b + 1) * np.asarray(mu) ** 2), horizon=horizon)
    simple = {"Anytime-Lazy-UCB": AnytimeLazyUCB, "DP-TS": DPTS, "Lazy-DP-TS": LazyDPTS,
              "AdaP-UCB": AdaPUCB, "AdaP-KLUCB": AdaPKLUCB}
    if label in simple:
        return simple[label](epsilon=eps)
    if label == "DP-SE":
        return DPSE(epsilon=eps, horizon=horizon)
    raise ValueError(f"label must be one of {sorted(BANDIT_ALGORITHMS)}, got {label!r}")


def _checkpoints(horizon: int) -> np.ndarray:
    return make_checkpoints(horizon, "log", 40)


def _groups() -> Dict[int, List[str]]:
    """Instances grouped by number of arms (one batch per group and algorithm)."""
    out: Dict[int, List[str]] = {}
    for name, means in INSTANCES.items():
        out.setdefault(len(means), []).append(name)
    return out


def arm_permuted(means: np.ndarray, seed) -> np.ndarray:
    """Each row of ``means`` (n_runs, K) with its arms in a random order drawn from ``seed``.

    Ties in argmax go to the lowest index, and the papers list their best arm first; a policy
    whose indices all saturate (e.g. clipped at 1 under heavy noise) would then pull the best
    arm by accident. A random order per run, the same for every algorithm, removes that.
    """
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random(means.shape), axis=1)
    return np.take_along_axis(means, order, axis=1)


def _bandit_task(task):
    """One algorithm on every instance with K arms and every grid epsilon, as ONE batch."""
    label, k, horizon, n_runs, seed, seed_of_order = task
    names = _groups()[k]
    grid = epsilon_grid(label)
    per_inst = max(1, len(grid))
    means = arm_permuted(np.repeat(np.array([INSTANCES[n] for n in names]), per_inst * n_runs,
                                   axis=0), seed_of_order)
    eps = np.tile(np.repeat(grid, n_runs), len(names)) if grid else None
    policy = make_bandit_policy(label, eps, horizon)
    res = simulate(policy, BernoulliBandit(means), horizon, len(means), seed=seed,
                   checkpoints=_checkpoints(horizon), progress=False)
    cells = []
    for i, (part, name) in enumerate(zip(res.split(len(names) * per_inst),
                                         np.repeat(names, per_inst))):
        e = grid[i % per_inst] if grid else None
        part.params = dict(part.params, instance=str(name))
        cells.append({"algorithm": label, "instance": str(name), "epsilon": e, "result": part,
                      "level": privacy_level(part.guarantee, e)})
    return cells


#: Relative cost per round of each algorithm (measured at quick scale; only used to schedule
#: the longest tasks first).
_TASK_COST = {"KL-UCB": 15.0, "DP-TS": 14.0, "Lazy-DP-TS": 4.3, "DP-UCB-BOUND": 3.5, "DP-UCB": 2.7,
              "Private-UCB": 2.3, "DP-UCB-INT": 1.6, "TS (Beta)": 1.4, "Anytime-Lazy-UCB": 1.3,
              "AdaP-KLUCB": 1.2, "M-TS-Gaussian": 1.0, "DP-TS-UCB": 0.9, "TS (Gaussian)": 0.7,
              "UCB1": 0.6, "Uniform": 0.6, "AdaP-UCB": 0.35, "DP-SE": 0.05}


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
    # Longest tasks first, so that the processes of parallel_map finish together; the results
    # are put back in task order, so the data do not depend on jobs.
    order = sorted(
        range(len(tasks)), key=lambda i: -_TASK_COST.get(tasks[i][0], 1.0) * tasks[i][1] ** 0.5
    )
    done = parallel_map(_bandit_task, [tasks[i] for i in order], jobs)
    outs = [None] * len(tasks)
    for i, out in zip(order, done):
        outs[i] = out
    cells = [c for out in outs for c in out]
    return {"cells": cells, "epsilons": EPSILONS, "gaps": GAPS, "instances": dict(INSTANCES),
            "leaderboard_instances": LEADERBOARD_INSTANCES,
            "algorithms": list(BANDIT_ALGORITHMS), "horizon": cfg["horizon"],
            "n_runs": cfg["n_runs"]}


def cell(data, algorithm: str, instance: str, epsilon=None):
    """The cell dict of ``algorithm`` on ``instance`` at ``epsilon`` (None: eps-free runs)."""
    for c in data["cells"]:
        if c["algorithm"] == algorithm and c["instance"] == instance and c["epsilon"] == epsilon:
            return c
    raise KeyError(f"no cell ({algorithm!r}, {instance!r}, {epsilon!r})")


# ------------------------------------------------------------------ tables
def leaderboard(data, instance: str) -> List[dict]:
    """One row per algorithm: privacy text and {epsilon: (mean, se)} of the final regret.

    eps-free algorithms have their one value under the key ``None``. Rows are sorted by the
    final regret at eps = 1 (eps-free rows by their value), private rows first.
    """
    rows = []
    for label in data["algorithms"]:
        cells = [c for c in data["cells"] if c["algorithm"] == label and c["instance"] == instance]
        values = {c["epsilon"]: (c["result"].final_mean, c["result"].final_se) for c in cells}
        kind = BANDIT_ALGORITHMS[label]
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


def winners(data, instances=None, labels=None) -> List[dict]:
    """Per (instance, epsilon): the private algorithm with the lowest mean final regret among
    ``labels`` (default: every algorithm with a grid epsilon), the runner-up, and whether the
    lead exceeds two standard errors of the difference."""
    instances = instances or data["leaderboard_instances"]
    labels = labels or [a for a in data["algorithms"] if epsilon_grid(a)]
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


def _bandit_summary(data):
    rows = []
    for c in data["cells"]:
        for row in regret_rows("compare-bandits", c["instance"], [c["result"]],
                               epsilon=c["epsilon"]):
            lv = c["level"]
            row["privacy"] = lv["text"]
            row["target_epsilon"] = "" if c["epsilon"] is None else c["epsilon"]
            row["comparison_epsilon"] = lv["epsilon"]
            if BANDIT_ALGORITHMS[c["algorithm"]] == "gdp":
                row["epsilon"] = ""                 # GDP-only: no epsilon parameter
            rows.append(row)
    return rows


# ------------------------------------------------------------------ figures
#: Legend suffix by privacy kind (the legend names stay the policies' labels).
_KIND_SUFFIX = {"none": " (not private)", "approx": " (ε, e⁻¹⁰)", "gdp": " (μ(ε)-GDP)", "pure": ""}


def _log_ticks(ax, values):
    from matplotlib.ticker import NullFormatter, NullLocator

    ax.set_xticks(values)
    ax.set_xticklabels([f"{v:g}" for v in values])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())


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
    _log_ticks(ax, eps)
    ax.set_xlabel("privacy parameter ε")


def _short_instance(name: str) -> str:
    """'5 arms (0.75 ... 0.25), Hu & Hegde' -> '5 arms\n(0.75 … 0.25)' (for narrow labels)."""
    import re

    name = re.sub(r", [A-Z][^,]*$", "", name).replace(" ... ", " … ")
    head, _, tail = name.partition(" arms")
    return f"{head} arms\n{tail.lstrip(', ')}" if tail else name


def _bandit_plot(data):
    """Final regret against ε, one panel per instance (2 columns), one legend below."""
    insts = data["leaderboard_instances"]
    nrows = (len(insts) + 1) // 2
    fig, axes = subplots(nrows, 2, sharex=True)
    for ax, inst in zip(axes.flat, insts):
        _regret_vs_eps(ax, data, inst)
        ax.text(0.0, 1.02, _short_instance(inst).replace("\n", " "), transform=ax.transAxes,
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


def ranking_matrix(data, instances=None, labels=None):
    """Final regret divided by the best private algorithm's, per (instance, ε) column.

    Returns ``(labels, columns, ratio)`` with ``columns`` a list of (instance, epsilon) and
    ``ratio`` of shape (len(labels), len(columns)); NaN where an algorithm does not run at that
    ε. The best of each column (as in :func:`winners`) has ratio 1. Rows are sorted by their
    median ratio, best first.
    """
    instances = instances or data["leaderboard_instances"]
    labels = labels or [a for a in data["algorithms"] if epsilon_grid(a)]
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
        ax.axvline(k * n_eps - 0.5, color="white", lw=3)
    for k, inst in enumerate(dict.fromkeys(i for i, _ in columns)):
        ax.text((k + 0.5) * n_eps - 0.5, -0.7, _short_instance(inst), ha="center", va="bottom")
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
    names = [f"2 arms, gap {g:g}" for g in GAPS]
    cells = [c for c in data["cells"] if c["instance"] in names]
    return {"cells": cells, "gaps": GAPS, "instances": names, "epsilons": data["epsilons"],
            "algorithms": data["algorithms"], "horizon": data["horizon"],
            "n_runs": data["n_runs"], "panel_epsilons": (0.5, 2.0)}


def _gap_plot(data):
    fig, axes = subplots(1, 2, sharey=True)
    gaps = np.asarray(data["gaps"])
    for ax, e in zip(axes[0], data["panel_epsilons"]):
        for label in data["algorithms"]:
            grid = epsilon_grid(label)
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
        _log_ticks(ax, gaps)
        ax.set_xlabel("gap Δ between the two arms")
        ax.text(0.03, 0.97, f"ε = {e:g}", transform=ax.transAxes, va="top")
    axes[0, 0].set_ylabel(f"regret at T = {data['horizon']:,}")
    shared_legend(fig, axes, title="DP-TS-UCB runs at α = 1 in both panels")
    return fig


def _gap_summary(data):
    return [r for r in _bandit_summary(dict(data, cells=data["cells"]))]


# ------------------------------------------------------------------ full information
FULLINFO_INSTANCES = {
    "5 experts (0.25 ... 0.75), Hu et al. 2021": (0.25, 0.375, 0.5, 0.625, 0.75),
    "20 experts, gap 0.05": (0.5,) * 19 + (0.55,),
}
#: label -> (kind, RNMFTNL factory of the INPUT epsilon); the input is calibrated so that the
#: honest guarantee equals the grid epsilon (see :func:`make_fullinfo_policy`).
FULLINFO_ALGORITHMS = {
    "FTL": None, "Hedge": None,
    "RNM-FTNL (strict, Lap)": lambda e: RNMFTNL(epsilon=e),
    "RNM-FTNL (strict, Exp)": lambda e: RNMFTNL(epsilon=e, noise="exponential"),
    "RNM-FTNL (strict, Gumbel)": lambda e: RNMFTNL(epsilon=e, noise="gumbel"),
    "RNM-FTNL (hu2021 preset)": lambda e: RNMFTNL.hu2021(epsilon=e),
    "RNM-FTNL (wu2025 preset, Lap)": lambda e: RNMFTNL.wu2025(epsilon=e),
    "RNM-FTNL (wu2025 preset, Exp)": lambda e: RNMFTNL.wu2025(epsilon=e, noise="exponential"),
    "Naive FTNL": lambda e: NaiveFTNL(epsilon=e),
}


def make_fullinfo_policy(label: str, epsilon=None, horizon: Optional[int] = None) -> Policy:
    """Full-information policy ``label`` whose honest ``guarantee`` is ``epsilon``-DP.

    The presets of Hu et al. (Lap 1/eps) and of Wu and Wang (Exp 1/eps) claim eps-DP but are
    only 2 eps-DP; here they get the input epsilon that makes them honestly eps-DP (eps / 2),
    which is the same noise as the strict scale. Their first-action and resampling choices stay.
    """
    if label not in FULLINFO_ALGORITHMS:
        raise ValueError(f"label must be one of {list(FULLINFO_ALGORITHMS)}, got {label!r}")
    if label == "FTL":
        return FTL()
    if label == "Hedge":
        return Hedge(horizon=horizon)
    if epsilon is None:
        raise ValueError(f"epsilon is required for {label}, got None")
    factory = FULLINFO_ALGORITHMS[label]
    eps = np.asarray(epsilon, dtype=float)
    ratio = float(np.asarray(factory(1.0).guarantee.epsilon))    # guarantee / input, linear
    return factory(eps / ratio)


def _fullinfo_task(task):
    label, inst, horizon, n_runs, seed = task
    private = FULLINFO_ALGORITHMS[label] is not None
    eps = np.repeat(EPSILONS, n_runs) if private else None
    n_total = len(eps) if private else n_runs
    policy = make_fullinfo_policy(label, eps, horizon)
    res = simulate(policy, BernoulliExperts(FULLINFO_INSTANCES[inst], kind="reward"), horizon,
                   n_total, seed=seed, checkpoints=_checkpoints(horizon), progress=False)
    parts = res.split(len(EPSILONS)) if private else [res]
    out = []
    for i, part in enumerate(parts):
        part.label = label
        e = EPSILONS[i] if private else None
        out.append({"algorithm": label, "instance": inst, "epsilon": e, "result": part,
                    "level": privacy_level(part.guarantee, e)})
    return out


def _fullinfo_compute(scale, seed, jobs, progress):
    cfg = SIZES[scale]
    T, n = cfg["fullinfo_horizon"], cfg["fullinfo_runs"]
    tasks = [(label, inst, T, n, derive_seed("compare-fullinfo", label, inst, seed))
             for label in FULLINFO_ALGORITHMS for inst in FULLINFO_INSTANCES]
    cells = [c for out in parallel_map(_fullinfo_task, tasks, jobs) for c in out]
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
        _log_ticks(ax, eps)
        ax.set_xlabel("privacy parameter ε (honest)")
        ax.text(0.97, 0.97, _short_instance(inst).replace("\n", " "), transform=ax.transAxes,
                ha="right", va="top")
    axes[0, 0].set_ylabel(f"regret at T = {data['horizon']:,}")
    shared_legend(fig, axes, ncol=2)
    return fig


def _fullinfo_summary(data):
    rows = []
    for c in data["cells"]:
        for row in regret_rows("compare-fullinfo", c["instance"], [c["result"]],
                               epsilon=c["epsilon"]):
            row["privacy"] = c["level"]["text"]
            rows.append(row)
    return rows


register("compare-bandits",
         title="Every bandit algorithm on common instances over an epsilon grid",
         plot=_bandit_plot, summary=_bandit_summary, chapter="comparison")(_bandit_compute)
register("compare-ranking",
         title="Which algorithm to use: regret relative to the best, per instance and epsilon",
         plot=_ranking_plot, chapter="comparison")(_ranking_compute)
register("compare-gap", title="Final regret against the gap (two arms), same runs",
         plot=_gap_plot, summary=_gap_summary, chapter="comparison")(_gap_compute)
register("compare-fullinfo",
         title="Full-information algorithms on common instances over an epsilon grid",
         plot=_fullinfo_plot, summary=_fullinfo_summary, chapter="comparison")(_fullinfo_compute)
