"""Experiments of the chapter "Optimal private bandits by forgetting" (Hu, Huang, Mehta and
Hegde, arXiv:2102.07929v3, bandit part).

* ``hu2021-regret`` -- the whole grid behind Figures 1 and 2: four algorithms
  (Anytime-Lazy-UCB, Lazy-DP-TS, DP-SE, AdaP-KLUCB) x two instances x eps in {0.25, 0.5, 1},
  one batched simulation per algorithm (the eps grid and both instances are rows of one batch).
* ``hu2021-fig1`` / ``hu2021-fig2`` -- Figures 1 and 2 re-drawn from that grid: setting 1
  (means 0.75, 0.625, 0.5, 0.375, 0.25) and setting 2 (0.5, 0.4, 0.4, 0.4, 0.4).
* ``hu2021-lazy-schedule`` -- one run of Anytime-Lazy-UCB drawn pull by pull: which
  observations feed which private mean, per arm, and the private means themselves.
* ``hu2021-eps-sweep`` -- final regret and suboptimal pulls against epsilon on a two-armed
  instance, to see the min{Delta, eps} rate of Theorems 3 and 5.

Natural logarithms throughout (the hu2022-* experiments use log2 for Lazy-DP-TS).
"""
from __future__ import annotations

import numpy as np

from ..envs import BernoulliBandit
from ..plotting import errorbar, mark_reference, regret, shared_legend, subplots, sweep_styles
from . import _settings
from ._settings import Setting
from .catalogue import make_policy
from .engine import checkpoints, sweep
from .registry import derive_seed, parallel_map, register, regret_rows, run

__all__ = ["ALGORITHMS", "EPSILONS", "SCHEDULE_SETTINGS", "SETTINGS", "SWEEP_EPS", "SWEEP_MEANS",
           "claims", "plot_log"]

SETTINGS = {1: (0.75, 0.625, 0.5, 0.375, 0.25), 2: (0.5, 0.4, 0.4, 0.4, 0.4)}
EPSILONS = (0.25, 0.5, 1.0)
ALGORITHMS = ("Anytime-Lazy-UCB", "Lazy-DP-TS", "DP-SE", "AdaP-KLUCB")
#: (horizon, runs per (setting, epsilon)); "paper" is the paper's own T = 10^6 and 20 runs
_SIZES = {"quick": (20_000, 8), "paper": (1_000_000, 20)}


def _instances(name, value):
    """A sequence of instances (each a sequence of K >= 2 Bernoulli means, the same K)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or not len(value):
        raise TypeError(f"{name} must be a non-empty sequence of instances (sequences of arm "
                        f"means), got {value!r}")
    out = tuple(_settings.means(f"{name}[{k}]", inst) for k, inst in enumerate(value))
    if len({len(inst) for inst in out}) > 1:
        raise ValueError(f"{name} must all have the same number of arms, got {value!r}")
    return out


def _common(sizes, algorithms, epsilons):
    return (Setting("epsilons", _settings.epsilons, epsilons, "The privacy parameters."),
            Setting("horizon", _settings.horizon, {s: h for s, (h, _) in sizes.items()},
                    "Rounds per run."),
            Setting("n_runs", _settings.n_runs, {s: n for s, (_, n) in sizes.items()},
                    "Runs per curve."),
            Setting("algorithms", _settings.algorithms(algorithms), algorithms,
                    f"The algorithms, among {list(algorithms)}."))


#: What ``run("hu2021-regret", scale, **overrides)`` may change.
GRID_SETTINGS = (Setting("instances", _instances, tuple(SETTINGS.values()),
                         "The instances (settings 1, 2, ... of the grid), the same K each."),
                 *_common(_SIZES, ALGORITHMS, EPSILONS))
#: What ``run("hu2021-fig1", ...)`` and ``run("hu2021-fig2", ...)`` may change.
FIGURE_SETTINGS = {s: (Setting("means", _settings.means, SETTINGS[s],
                               "Bernoulli arm means of the instance."),
                       *_common(_SIZES, ALGORITHMS, EPSILONS)) for s in SETTINGS}


def _checkpoints(horizon):
    """Log-spaced and linear checkpoints together, so both axis scales draw smoothly."""
    return checkpoints(horizon, log=150, linear=400)


def _grid_task(task):
    """One algorithm on every (setting, epsilon) cell, as ONE batch of runs."""
    name, settings, epsilons, horizon, n_runs, seed, progress = task
    cells = [(s, e) for s in settings for e in epsilons]
    parts = sweep(lambda cols: make_policy(name, cols["epsilon"], horizon, preset="hu2021"),
                  lambda cols: BernoulliBandit(cols["means"]), horizon,
                  [{"means": settings[s], "epsilon": e} for s, e in cells], n_runs, seed,
                  checkpoints=_checkpoints(horizon), progress=progress,
                  params=[{"epsilon": e} for _, e in cells])
    return dict(zip(cells, parts))


def _grid(scale, seed, jobs, progress, instances=None, epsilons=EPSILONS, horizon=None,
          n_runs=None, algorithms=ALGORITHMS):
    settings = SETTINGS if instances is None else dict(enumerate(instances, start=1))
    horizon = horizon or _SIZES[scale][0]
    n_runs = n_runs or _SIZES[scale][1]
    tasks = [(name, settings, epsilons, horizon, n_runs,
              derive_seed("hu2021-regret", name, seed), progress) for name in algorithms]
    out = parallel_map(_grid_task, tasks, jobs)
    results = {(s, e, name): by_cell[(s, e)]
               for name, by_cell in zip(algorithms, out) for s in settings for e in epsilons}
    return {"results": results, "horizon": horizon, "n_runs": n_runs,
            "settings": settings, "epsilons": epsilons, "algorithms": algorithms}


def _grid_summary(data, settings=None):
    rows = []
    for s in data["settings"] if settings is None else settings:
        for e in data["epsilons"]:
            res = [data["results"][(s, e, name)] for name in data["algorithms"]]
            rows += regret_rows(f"hu2021-fig{s}", f"setting {s}, eps={e}", res, epsilon=e,
                                setting=s)
    return rows


register("hu2021-regret", title="Regret grid of Figures 1 and 2 (4 algorithms, 2 settings, "
         "eps in {0.25, 0.5, 1})", summary=_grid_summary, chapter="lazy_experiments",
         settings=GRID_SETTINGS)(_grid)


def claims(data, setting):
    """The paper's two orderings checked cell by cell on the final mean regret.

    Returns a list of dicts with, for each epsilon, the final mean and standard error of every
    algorithm, whether Lazy-DP-TS is below DP-SE and below Anytime-Lazy-UCB (difference larger
    than 2 standard errors of the difference), and the ratio Lazy-DP-TS / AdaP-KLUCB.
    """
    out = []
    for e in data["epsilons"]:
        r = {name: data["results"][(setting, e, name)] for name in data["algorithms"]}

        def below(a, b, r=r):
            se = np.hypot(r[a].final_se, r[b].final_se)
            return bool(r[a].final_mean + 2 * se < r[b].final_mean)

        out.append({"epsilon": e,
                    **{name: (r[name].final_mean, r[name].final_se) for name in r},
                    "TS<DP-SE": below("Lazy-DP-TS", "DP-SE"),
                    "TS<UCB": below("Lazy-DP-TS", "Anytime-Lazy-UCB"),
                    "TS/AdaP": r["Lazy-DP-TS"].final_mean / r["AdaP-KLUCB"].final_mean})
    return out


def _figure(setting, scale, seed, jobs, progress, means=None, **overrides):
    if means is None and overrides.keys() <= {"epsilons"} and \
            set(overrides.get("epsilons", ())) <= set(EPSILONS):
        # the paper's figure (or some of its panels): cut from the shared grid
        grid = run("hu2021-regret", scale, seed=seed, jobs=jobs, progress=progress)
        epsilons = overrides.get("epsilons", grid["epsilons"])
        results = {k: v for k, v in grid["results"].items()
                   if k[0] == setting and k[1] in epsilons}
    else:
        # another instance or size: the grid on this figure's instance alone
        grid = run("hu2021-regret", scale, seed=seed, jobs=jobs, progress=progress,
                   instances=[SETTINGS[setting] if means is None else means], **overrides)
        epsilons = grid["epsilons"]
        results = {(setting, e, name): v for (_, e, name), v in grid["results"].items()}
    data = {"setting": setting, "means": SETTINGS[setting] if means is None else means,
            "horizon": grid["horizon"],
            "n_runs": grid["n_runs"], "epsilons": epsilons,
            "algorithms": grid["algorithms"], "results": results}
    # flat copies, so that `run --out` also writes every curve to data.npz
    data.update({f"{name}_eps{e:g}": res for (_, e, name), res in results.items()})
    return data


def _plot_figure(data, log_x=False):
    eps = data["epsilons"]
    nrows = (len(eps) + 1) // 2
    fig, axes = subplots(nrows, min(len(eps), 2), sharex=True)
    for ax, e in zip(axes.flat, eps):
        regret([data["results"][(data["setting"], e, name)] for name in data["algorithms"]],
               ax=ax, log_x=log_x, legend=False)
        ax.text(0.03, 0.95, f"ε = {e:g}", transform=ax.transAxes, va="top")
        if not log_x:
            ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 0))
    for ax in axes.flat[len(eps):]:
        ax.axis("off")
    for ax in axes[:, 1:].flat:
        ax.set_ylabel("")
    for ax in axes[:-1].flat:
        ax.set_xlabel("")
    shared_legend(fig, axes)
    return fig


def plot_log(data):
    """Figure 1 or 2 with a logarithmic time axis (the paper's figures use a linear one)."""
    return _plot_figure(data, log_x=True)


def _fig1(scale, seed, jobs, progress, **overrides):
    return _figure(1, scale, seed, jobs, progress, **overrides)


def _fig2(scale, seed, jobs, progress, **overrides):
    return _figure(2, scale, seed, jobs, progress, **overrides)


def _fig_summary(data):
    s = data["setting"]
    return _grid_summary({"results": data["results"], "epsilons": data["epsilons"],
                          "algorithms": data["algorithms"]}, settings=(s,))


register("hu2021-fig1", title="Figure 1: cumulative regret, setting 1 (0.75, ..., 0.25)",
         plot=_plot_figure, summary=_fig_summary, chapter="lazy_experiments",
         settings=FIGURE_SETTINGS[1])(_fig1)
register("hu2021-fig2", title="Figure 2: cumulative regret, setting 2 (0.5, 0.4, 0.4, 0.4, 0.4)",
         plot=_plot_figure, summary=_fig_summary, chapter="lazy_experiments",
         settings=FIGURE_SETTINGS[2])(_fig2)


# ---------------------------------------------------------------------------------------------
# hu2021-lazy-schedule: one run drawn pull by pull
# ---------------------------------------------------------------------------------------------
_SCHEDULE_T = {"quick": 3000, "paper": 3000}
_SCHEDULE_EPS = 1.0

#: What ``run("hu2021-lazy-schedule", scale, **overrides)`` may change.
SCHEDULE_SETTINGS = (
    Setting("means", _settings.means, SETTINGS[1], "Bernoulli arm means of the instance."),
    Setting("epsilon", _settings.positive_float, _SCHEDULE_EPS,
            "The privacy parameter of Anytime-Lazy-UCB."),
    Setting("horizon", _settings.horizon, _SCHEDULE_T, "Rounds of the run."),
)


def _schedule(scale, seed, jobs, progress, means=SETTINGS[1], epsilon=_SCHEDULE_EPS,
              horizon=None):
    horizon = horizon or _SCHEDULE_T[scale]
    means = np.array(means)
    K = len(means)
    policy = make_policy("Anytime-Lazy-UCB", epsilon, preset="hu2021")
    rng_p, rng_e = (np.random.default_rng(s) for s in
                    derive_seed("hu2021-lazy-schedule", seed).spawn(2))
    policy.reset(1, K, rng_p)
    arms, batch, closes = np.empty(horizon, int), np.empty(horizon, int), []
    mu_path = np.full((horizon, K), np.nan)
    for t in range(1, horizon + 1):
        a = policy.select(t)
        x = (rng_e.random(1) < means[a]).astype(float)
        r_before = policy.mean_.batch_index[0, a[0]]
        policy.update(t, a, x)
        if policy.mean_.batch_index[0, a[0]] != r_before:        # a batch was processed
            closes.append((t, int(a[0]), int(policy.mean_.batch_index[0, a[0]])))
        n = policy.mean_.n_pulls[0, a[0]]
        arms[t - 1] = a[0]
        batch[t - 1] = int(n).bit_length() - 1  # pull n is in batch floor(log2 n)
        mu_path[t - 1] = policy.mean_.mu_tilde[0]
    return {"arms": arms, "batch": batch, "closes": np.array(closes), "mu_tilde": mu_path,
            "means": means, "horizon": horizon, "epsilon": epsilon,
            "batch_size": policy.mean_.batch_size[0].copy(),
            "n_pulls": policy.mean_.n_pulls[0].copy()}


def _plot_schedule(data):
    fig, axes = subplots(2, 1, sharex=True, height=0.8)
    ax, ax2 = axes[0, 0], axes[1, 0]
    t = np.arange(1, data["horizon"] + 1)
    K = len(data["means"])
    batches = np.unique(data["batch"])
    batch_color = {r: st["color"] for r, st in zip(batches, sweep_styles(len(batches)))}
    arm_style = sweep_styles(K)
    for r in batches:                           # colour = batch index, the same for every arm
        sel = data["batch"] == r
        ax.scatter(t[sel], data["arms"][sel], s=30, marker="|", color=batch_color[r], lw=1)
    cl = data["closes"]
    ax.scatter(cl[:, 0], cl[:, 1] + 0.32, marker="v", s=18, color="k", zorder=3,
               label="batch processed (one Laplace draw)")
    for r in range(4):                          # name the first batches of arm 1 by their size
        first = np.flatnonzero((data["batch"] == r) & (data["arms"] == 0))
        if first.size:
            ax.annotate(f"{2 ** r}", (t[first[0]], -0.3), ha="left", va="bottom",
                        color=batch_color[r], fontweight="bold")
    ax.text(0.0, 1.02, "batch sizes of arm 1: 1, 2, 4, 8, ... pulls (colour = batch)",
            transform=ax.transAxes, va="bottom")
    ax.set_yticks(range(K), [f"arm {j + 1} (μ = {m:g})" for j, m in enumerate(data["means"])])
    ax.set_ylim(K - 0.4, -0.8)
    ax.set_xscale("log")
    ax.grid(False)
    for j in range(K):
        ax2.step(t, data["mu_tilde"][:, j], where="post", color=arm_style[j]["color"], lw=1.5,
                 ls=arm_style[j]["linestyle"], label=f"private mean μ̃ of arm {j + 1}")
        ax2.axhline(data["means"][j], color=arm_style[j]["color"], ls=":", lw=1)
    ax2.plot([], [], color="0.4", ls=":", lw=1, label="true means")
    ax2.set_ylim(-0.6, 1.6)
    ax2.set_xscale("log")
    ax2.set_xlabel("round t")
    ax2.set_ylabel("private mean μ̃")
    shared_legend(fig, axes, ncol=2)
    return fig


register("hu2021-lazy-schedule", title="The lazy doubling schedule of Anytime-Lazy-UCB, one run",
         plot=_plot_schedule, chapter="lazy_forgetting", settings=SCHEDULE_SETTINGS)(_schedule)


# ---------------------------------------------------------------------------------------------
# hu2021-eps-sweep: regret against epsilon on a two-armed instance
# ---------------------------------------------------------------------------------------------
SWEEP_MEANS = (0.6, 0.5)
SWEEP_EPS = (0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
_SWEEP_SIZES = {"quick": (20_000, 8), "paper": (100_000, 20)}


_SWEEP_ALGORITHMS = ("Anytime-Lazy-UCB", "Lazy-DP-TS")
#: What ``run("hu2021-eps-sweep", scale, **overrides)`` may change.
def _two_means(name, value):
    """Two Bernoulli means, the first the larger (the sweep counts pulls of the second)."""
    means = _settings.means(name, value)
    if len(means) != 2 or means[0] <= means[1]:
        raise ValueError(f"{name} must be two arm means, the first larger, got {value!r}")
    return means


SWEEP_SETTINGS = (Setting("means", _two_means, SWEEP_MEANS,
                          "Two Bernoulli arm means, the first the larger."),
                  *_common(_SWEEP_SIZES, _SWEEP_ALGORITHMS, SWEEP_EPS))


def _sweep_task(task):
    name, means, epsilons, horizon, n_runs, seed = task
    return sweep(lambda cols: make_policy(name, cols["epsilon"], horizon, preset="hu2021"),
                 BernoulliBandit(means), horizon, [{"epsilon": e} for e in epsilons],
                 n_runs, seed, checkpoints=[horizon])


def _sweep(scale, seed, jobs, progress, means=SWEEP_MEANS, epsilons=SWEEP_EPS, horizon=None,
           n_runs=None, algorithms=_SWEEP_ALGORITHMS):
    horizon = horizon or _SWEEP_SIZES[scale][0]
    n_runs = n_runs or _SWEEP_SIZES[scale][1]
    tasks = [(n, means, epsilons, horizon, n_runs, derive_seed("hu2021-eps-sweep", n, seed))
             for n in algorithms]
    out = parallel_map(_sweep_task, tasks, jobs)
    data = {"results": dict(zip(algorithms, out)), "epsilons": np.array(epsilons),
            "means": means, "horizon": horizon, "n_runs": n_runs}
    for name, parts in data["results"].items():        # per-run pull counts for data.npz
        data[f"{name}_pulls"] = np.stack([p.pulls for p in parts])   # (n_eps, n_runs, 2)
    return data


def _plot_sweep(data):
    fig, axes = subplots(1, 2)
    eps = data["epsilons"]
    gap = max(data["means"]) - min(data["means"])
    T = data["horizon"]
    rate = np.log(T) / (gap * np.minimum(gap, eps))        # the order of Theorems 3 and 5
    for name, parts in data["results"].items():
        n2 = np.array([p.pulls[:, 1] for p in parts], dtype=float)       # (n_eps, n_runs)
        m, se = n2.mean(1), n2.std(1, ddof=1) / np.sqrt(n2.shape[1])
        errorbar(axes[0, 0], eps, m, se, name)
        errorbar(axes[0, 1], eps, m / rate, se / rate, name)
    axes[0, 0].plot(eps, rate, "k--", lw=1.5, label="ln T / (Δ min{Δ, ε})")
    axes[0, 0].axhline(T / 2, color="grey", lw=1, ls="-.", label="T/2 (no learning)")
    axes[0, 0].set_yscale("log")
    axes[0, 0].set_ylabel(f"suboptimal pulls by T = {T:,}")
    axes[0, 1].set_ylabel("pulls × Δ min{Δ, ε} / ln T")
    axes[0, 1].set_ylim(bottom=0)
    for ax in axes[0]:
        mark_reference(ax.axvline(gap, color="grey", lw=1, ls=":"))
        ax.set_xscale("log")
        ax.set_xlabel("privacy parameter ε")
    axes[0, 0].plot([], [], color="grey", lw=1, ls=":", label="ε = Δ")
    shared_legend(fig, axes)
    return fig


def _sweep_summary(data):
    rows = []
    for parts in data["results"].values():
        for p, e in zip(parts, data["epsilons"]):
            rows += regret_rows("hu2021-eps-sweep", f"eps={e:g}", [p], epsilon=float(e))
    return rows


register("hu2021-eps-sweep", title="Regret against epsilon, two arms (0.6, 0.5)",
         plot=_plot_sweep, summary=_sweep_summary, chapter="lazy_forgetting",
         settings=SWEEP_SETTINGS)(_sweep)

__doc__ += f"""
.. rubric:: Settings

``run(id, scale, **overrides)`` changes any of these (checked before anything runs; each
setting gets its own cache entry). ``hu2021-regret``:

{_settings.describe(GRID_SETTINGS)}
``hu2021-fig1`` and ``hu2021-fig2`` take ``means`` (the figure's instance; default its
setting) instead of ``instances``, and the same ``epsilons`` (one panel each), ``horizon``,
``n_runs`` and ``algorithms``. ``hu2021-eps-sweep``:

{_settings.describe(SWEEP_SETTINGS)}
``hu2021-lazy-schedule``:

{_settings.describe(SCHEDULE_SETTINGS)}"""
