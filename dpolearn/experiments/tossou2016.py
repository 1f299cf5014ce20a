"""Experiments of the continual-release chapter (Tossou and Dimitrakakis, AAAI 2016).

* ``tossou2016-fig2``: Figure 2 re-drawn (four panels: means {0.9, 0.6} and
  {0.55, 0.2, 8 x 0.1}, target epsilon in {1, 0.1}); both epsilon values of an instance run as
  one batch per algorithm.
* ``tossou2016-counter-error``: error of the binary, logarithmic and hybrid counters over the
  stream, measured against their analytic standard deviations.
* ``tossou2016-int-schedules``: DP-UCB-INT with the fixed ceil(1/eps) schedule against the two
  Lemma B.1 schedules (reading ``reading-interval-schedule`` of the book's appendix of
  readings and errata).
"""
from __future__ import annotations

import math

import numpy as np

from ..envs import BernoulliBandit
from ..mechanisms.counters import BinaryCounter, HybridCounter, LogarithmicCounter
from ..mechanisms.interval_mean import calibrate_epsilon
from ..plotting import regret, shared_legend, style_of, subplots
from . import _settings, catalogue
from ._settings import Setting
from .engine import checkpoints, sweep
from .registry import derive_seed, parallel_map, register, regret_rows

__all__ = ["ALGORITHMS", "COUNTER_SETTINGS", "FIG2_SETTINGS", "INSTANCES", "SCHEDULE_SETTINGS",
           "TARGET_EPS", "legend_label", "make_policy", "plot_fig2"]

MEANS_2 = (0.9, 0.6)
# The order of the ten arms is ours (reading-unstated-experiment-details of the book's appendix).
MEANS_10 = (0.1, 0.1, 0.1, 0.1, 0.2, 0.55, 0.1, 0.1, 0.1, 0.1)
INSTANCES = {"2 arms": MEANS_2, "10 arms": MEANS_10}
TARGET_EPS = (1.0, 0.1)
DELTA_PRIME = catalogue.DP_UCB_INT_DELTA          # delta' of DP-UCB-INT (Figure 2)
V = catalogue.TOSSOU2016_V                        # v of Corollary 3.2
ALGORITHMS = ("UCB1", "DP-UCB-BOUND", "DP-UCB", "DP-UCB-INT", "Private-UCB")
_SIZES = {"quick": (5_000, 20), "paper": (100_000, 100)}          # (T, runs per panel)

#: What ``run("tossou2016-fig2", scale, **overrides)`` may change.
FIG2_SETTINGS = (
    Setting("means", _settings.means, None,
            "Bernoulli arm means of one instance, drawn instead of the paper's two "
            "(None: the paper's 2 arms and 10 arms)."),
    Setting("epsilons", _settings.epsilons, TARGET_EPS,
            "Target privacy parameters, one column of panels each."),
    Setting("horizon", _settings.horizon, {s: h for s, (h, _) in _SIZES.items()},
            "Rounds per run."),
    Setting("n_runs", _settings.n_runs, {s: n for s, (_, n) in _SIZES.items()},
            "Runs per curve."),
    Setting("algorithms", _settings.algorithms(ALGORITHMS), ALGORITHMS,
            f"The algorithms, among {list(ALGORITHMS)}."),
)


def _checkpoints(horizon):
    """Log-spaced and linear checkpoints together (the figure uses a linear t axis)."""
    return checkpoints(horizon, log=60, linear=100)


def make_policy(name, eps_targets, horizon, schedule="lemmaB1_y"):
    """The policy ``name`` for an array of target epsilons (one per run), as in Figure 2:
    DP-UCB-BOUND and DP-UCB with the paper's budget split, DP-UCB-INT calibrated by
    Corollary 3.2 (delta' = e^-10, v = 1.1), Private-UCB with its horizon (the
    ``"tossou2016"`` preset of :mod:`~dpolearn.experiments.catalogue`)."""
    if name not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {name!r}")
    options = {"schedule": schedule} if name == "DP-UCB-INT" else {}
    return catalogue.make_policy(name, eps_targets, horizon, preset="tossou2016", **options)


def _input_eps(name, target):
    return calibrate_epsilon(target, DELTA_PRIME, V) if name == "DP-UCB-INT" else target


def legend_label(name, target):
    """The paper's legend: the algorithm's *input* privacy parameter in parentheses."""
    if name == "UCB1":
        return "UCB1"
    return f"{name} ({_input_eps(name, target):.4g})"


def _run_batch(task):
    """One algorithm on one instance, every target epsilon in one batch."""
    exp_id, instance, means, targets, name, schedule, horizon, n_runs, seed = task
    env = BernoulliBandit(means)
    if name == "UCB1":                                   # UCB1 ignores epsilon: one batch
        res, = sweep(lambda cols: make_policy(name, None, horizon), env, horizon, [{}], n_runs,
                     seed, checkpoints=_checkpoints(horizon))
        return [res] * len(targets)
    return sweep(lambda cols: make_policy(name, cols["epsilon"], horizon, schedule), env,
                 horizon, [{"epsilon": target} for target in targets], n_runs, seed,
                 checkpoints=_checkpoints(horizon),
                 params=[{"epsilon": _input_eps(name, target), "target_epsilon": target}
                         for target in targets])


def _panels(exp_id, names, schedules, scale, seed, jobs, instances=None, targets=TARGET_EPS,
            horizon=None, n_runs=None):
    instances = INSTANCES if instances is None else instances
    horizon = horizon or _SIZES[scale][0]
    n_runs = n_runs or _SIZES[scale][1]
    tasks = [(exp_id, inst, instances[inst], targets, name, sch, horizon, n_runs,
              derive_seed(exp_id, inst, name, sch, seed))
             for inst in reversed(list(instances)) for name, sch in zip(names, schedules)]
    # larger instance first, so the two workers finish together (the order of results
    # does not matter: each task carries its own seed)
    results = parallel_map(_run_batch, tasks, jobs)
    panels = []
    for inst in instances:
        for k, target in enumerate(targets):
            rows = [(task[4], task[5], res[k]) for task, res in zip(tasks, results)
                    if task[1] == inst]
            panels.append({"instance": inst, "means": np.asarray(instances[inst]),
                           "target_epsilon": target, "results": rows})
    return {"panels": panels, "horizon": horizon, "n_runs": n_runs,
            "shape": (len(instances), len(targets))}


# ----------------------------------------------------------------------------- Figure 2
def _compute_fig2(scale, seed, jobs, progress, means=None, epsilons=TARGET_EPS, horizon=None,
                  n_runs=None, algorithms=ALGORITHMS):
    instances = None if means is None else {f"{len(means)} arms {means}": means}
    data = _panels("tossou2016-fig2", algorithms, ["lemmaB1_y"] * len(algorithms), scale, seed,
                   jobs, instances, epsilons, horizon, n_runs)
    for panel in data["panels"]:        # claim 5: best minus worst final regret over runs
        panel["spread"] = {name: float(np.ptp(res.regret[:, -1]))
                           for name, _, res in panel["results"]}
    return data


def _finish_panel(ax, panel, tag, bottom, note=""):
    """Panel letter, instance and target epsilon above the panel; lower y limit."""
    ax.text(0.0, 1.02, f"({tag}) {panel['instance']}, target $\\varepsilon$ = "
            f"{panel['target_epsilon']:g}{note}", transform=ax.transAxes, va="bottom")
    ax.set_ylim(bottom=bottom)


def plot_fig2(data, log_x=False, log_y=True):
    """The four panels of Figure 2: (a) 2 arms eps=1, (b) 2 arms eps=0.1, (c), (d) 10 arms.

    The paper's legend gives each algorithm's input privacy parameter; it differs from the
    target only for DP-UCB-INT, whose input is printed above its panel."""
    fig, axes = subplots(*data.get("shape", (2, 2)), sharex=True)
    for ax, panel, tag in zip(axes.ravel(), data["panels"], "abcdefghijklmnopqrstuvwxyz"):
        names = [name for name, _, _ in panel["results"]]
        results = [res for _, _, res in panel["results"]]
        regret(results, ax=ax, log_x=log_x, log_y=log_y, labels=names, legend=False)
        note = ""
        if "DP-UCB-INT" in names:
            note = f"\nDP-UCB-INT input ε = {_input_eps('DP-UCB-INT', panel['target_epsilon']):.4g}"
        _finish_panel(ax, panel, tag, bottom=1 if log_y else 0, note=note)
    for ax in axes[:-1].flat:
        ax.set_xlabel("")
    for ax in axes[:, 1:].flat:
        ax.set_ylabel("")
    shared_legend(fig, axes)
    return fig


def _summary_fig2(data):
    rows = []
    for panel in data["panels"]:
        name = f"{panel['instance']}, eps'={panel['target_epsilon']:g}"
        for alg, _, res in panel["results"]:
            rows += regret_rows("tossou2016-fig2", name, [res],
                                spread=panel["spread"][alg])
    return rows


register("tossou2016-fig2", title="Figure 2 of Tossou and Dimitrakakis (2016): regret of "
         "UCB1, DP-UCB-BOUND, DP-UCB, DP-UCB-INT and Private-UCB", plot=plot_fig2,
         summary=_summary_fig2, chapter="dp_ucb_experiments",
         settings=FIG2_SETTINGS)(_compute_fig2)


# ------------------------------------------------------------------------ DP-UCB-INT ablation
SCHEDULE_NAMES = {"fixed": "fixed ceil(1/eps)", "lemmaB1_y": "Lemma B.1 (y)",
                  "lemmaB1_x": "Lemma B.1 (x)"}


#: What ``run("tossou2016-int-schedules", scale, **overrides)`` may change: those of
#: Figure 2 but the algorithms (UCB1 and DP-UCB-INT under each schedule are the experiment).
SCHEDULE_SETTINGS = FIG2_SETTINGS[:4]


def _compute_schedules(scale, seed, jobs, progress, means=None, epsilons=TARGET_EPS,
                       horizon=None, n_runs=None):
    names = ["UCB1", "DP-UCB-INT", "DP-UCB-INT", "DP-UCB-INT"]
    schedules = ["fixed", "fixed", "lemmaB1_y", "lemmaB1_x"]
    instances = None if means is None else {f"{len(means)} arms {means}": means}
    return _panels("tossou2016-int-schedules", names, schedules, scale, seed, jobs, instances,
                   epsilons, horizon, n_runs)


#: DP-UCB-INT's schedules: one colour (the algorithm's), a line style and marker each (none of
#: them UCB1's solid line with circles, which may share the colour)
_SCHEDULE_STYLE = {"fixed": ("--", "s"), "lemmaB1_y": ("-.", "D"), "lemmaB1_x": (":", "^")}


def _plot_schedules(data):
    fig, axes = subplots(*data.get("shape", (2, 2)), sharex=True)
    for ax, panel, tag in zip(axes.ravel(), data["panels"], "abcdefghijklmnopqrstuvwxyz"):
        for name, sch, res in panel["results"]:
            if name == "UCB1":
                regret(res, ax=ax, log_y=True, legend=False, labels=["UCB1"])
            else:
                ls, marker = _SCHEDULE_STYLE[sch]
                regret(res, ax=ax, log_y=True, legend=False,
                       labels=[f"DP-UCB-INT, {SCHEDULE_NAMES[sch].replace('eps', 'ε')}"],
                       style_keys=["DP-UCB-INT"], ls=ls, marker=marker)
        _finish_panel(ax, panel, tag, bottom=1)
    for ax in axes[:-1].flat:
        ax.set_xlabel("")
    for ax in axes[:, 1:].flat:
        ax.set_ylabel("")
    shared_legend(fig, axes, ncol=2)
    return fig


def _summary_schedules(data):
    rows = []
    for panel in data["panels"]:
        name = f"{panel['instance']}, eps'={panel['target_epsilon']:g}"
        for _alg, _schedule, res in panel["results"]:
            rows += regret_rows("tossou2016-int-schedules", name, [res])
    return rows


register("tossou2016-int-schedules", title="DP-UCB-INT: fixed ceil(1/eps) release schedule "
         "against the Lemma B.1 schedules", plot=_plot_schedules, summary=_summary_schedules,
         chapter="dp_ucb_experiments", settings=SCHEDULE_SETTINGS)(_compute_schedules)


# ----------------------------------------------------------------------------- counter error
_COUNTER_SIZES = {"quick": (2 ** 12, 400), "paper": (2 ** 14, 1000)}
COUNTER_EPS = 1.0


def _counter_errors(name, n_max, n_streams, rng, epsilon):
    """Release errors of ``n_streams`` Bernoulli(1/2) streams, shape (n_streams, n_max)."""
    n = np.arange(1, n_max + 1)
    x = (rng.random((n_streams, n_max)) < 0.5).astype(float)
    true = np.cumsum(x, axis=1)
    if name == "binary":
        levels = int(math.floor(math.log2(n_max))) + 1
        return BinaryCounter.noise_process(n_max, levels=levels, epsilon=epsilon,
                                           shape=(n_streams,), rng=rng)
    if name == "logarithmic":                                   # stale between powers of two
        last = 1 << (np.frexp(n.astype(float))[1] - 1)
        noise = LogarithmicCounter.noise_process(n_max, epsilon=epsilon,
                                                 shape=(n_streams,), rng=rng)
        return true[:, last - 1] + noise - true
    split = "chan" if name == "hybrid (chan)" else "paper"
    return HybridCounter.noise_process(n_max, epsilon=epsilon, split=split,
                                       shape=(n_streams,), rng=rng)


def _counter_sd(name, n_max, epsilon):
    """Analytic standard deviation of the release error at positions 1..n_max."""
    n = np.arange(1, n_max + 1)
    if name == "binary":
        levels = int(math.floor(math.log2(n_max))) + 1
        return np.sqrt(BinaryCounter(1, epsilon=epsilon, levels=levels).variance(n))
    if name == "logarithmic":
        # noise variance plus the mean square of the items added since the last power of two
        last = 1 << (np.frexp(n.astype(float))[1] - 1)
        return np.sqrt(LogarithmicCounter(1, epsilon=epsilon).variance(n)
                       + (n - last) * 0.25 + ((n - last) * 0.5) ** 2)
    split = "chan" if name == "hybrid (chan)" else "paper"
    return np.sqrt(HybridCounter(1, epsilon=epsilon, split=split).variance(n))


def _counter_task(task):
    """RMS release error of one counter over n_streams streams, in chunks (bounded memory)."""
    name, n_max, n_streams, epsilon, seed = task
    rng = np.random.default_rng(seed)
    sq = np.zeros(n_max)
    for start in range(0, n_streams, 100):
        err = _counter_errors(name, n_max, min(100, n_streams - start), rng, epsilon)
        sq += np.sum(err ** 2, axis=0)
    return {"rms": np.sqrt(sq / n_streams), "sd": _counter_sd(name, n_max, epsilon)}


COUNTERS = ("binary", "logarithmic", "hybrid (chan)", "hybrid (paper)")

#: What ``run("tossou2016-counter-error", scale, **overrides)`` may change.
COUNTER_SETTINGS = (
    Setting("stream_length", _settings.horizon, {s: n for s, (n, _) in _COUNTER_SIZES.items()},
            "Length of each stream (positions 1 to stream_length are released)."),
    Setting("n_streams", _settings.n_runs, {s: m for s, (_, m) in _COUNTER_SIZES.items()},
            "Independent Bernoulli(1/2) streams the RMS error is measured over."),
    Setting("epsilon", _settings.positive_float, COUNTER_EPS,
            "The privacy parameter of every counter."),
    Setting("counters", _settings.algorithms(COUNTERS), COUNTERS,
            f"The counters, among {list(COUNTERS)}."),
)


def _compute_counters(scale, seed, jobs, progress, stream_length=None, n_streams=None,
                      epsilon=COUNTER_EPS, counters=COUNTERS):
    n_max = stream_length or _COUNTER_SIZES[scale][0]
    n_streams = n_streams or _COUNTER_SIZES[scale][1]
    tasks = [(name, n_max, n_streams, epsilon, derive_seed("tossou2016-counter-error", name, seed))
             for name in counters]
    out = parallel_map(_counter_task, tasks, jobs)
    return {"n": np.arange(1, n_max + 1), "n_streams": n_streams, "epsilon": epsilon,
            "counters": dict(zip(counters, out))}


def _plot_counters(data):
    """Left: analytic standard deviation of the error (lines) and measured RMS error at
    log-spaced positions (markers). Right: measured / analytic at every position."""
    fig, axes = subplots(1, 2)
    left, right = axes[0]
    n = data["n"]
    show = np.unique(np.geomspace(1, n[-1], 25).astype(int)) - 1
    for name, c in data["counters"].items():
        style = style_of(name)
        left.plot(n, c["sd"], color=style["color"], ls=style["linestyle"], lw=1.3,
                  label=f"{name} counter")
        left.plot(n[show], c["rms"][show], ls="none", marker=style["marker"], ms=4.5,
                  color=style["color"], mfc="none", label=f"_{name} measured")
        right.plot(n, c["rms"] / c["sd"], color=style["color"], lw=0.7, alpha=0.8,
                   label=f"_{name} ratio")
    left.plot([], [], color="0.3", lw=1.3, label="lines: analytic sd")
    left.plot([], [], color="0.3", ls="none", marker="o", mfc="none", label="markers: measured RMS")
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xlabel("stream position n")
    left.set_yscale("log")
    left.set_ylabel("error of the released count")
    right.axhline(1.0, color="black", lw=1)
    # sd of an RMS ratio: sqrt((kurtosis - 1) / n) / 2, and a Laplace sum has kurtosis <= 6
    se = math.sqrt(5.0 / data["n_streams"]) / 2
    right.axhspan(1 - 3 * se, 1 + 3 * se, color="grey", alpha=0.15, lw=0)
    right.set_ylabel("measured RMS / analytic sd")
    shared_legend(fig, axes, ncol=3)
    return fig


register("tossou2016-counter-error", title="Error of the binary, logarithmic and hybrid "
         "counters against their analytic standard deviation (epsilon = 1)",
         plot=_plot_counters, chapter="continual_release",
         settings=COUNTER_SETTINGS)(_compute_counters)

__doc__ += f"""
.. rubric:: Settings

``run("tossou2016-fig2", scale, **overrides)`` changes any of these (checked before anything
runs; each setting gets its own cache entry):

{_settings.describe(FIG2_SETTINGS)}
``tossou2016-int-schedules`` takes the same ``means``, ``epsilons``, ``horizon`` and ``n_runs``
(its curves are UCB1 and DP-UCB-INT under each release schedule). ``tossou2016-counter-error``:

{_settings.describe(COUNTER_SETTINGS)}"""
