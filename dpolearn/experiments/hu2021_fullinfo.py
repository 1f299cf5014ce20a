"""Full-information experiments for Hu, Huang, Mehta and Hegde (2021): RNM-FTNL against FTL,
Hedge and the naive FTNL, and the doubling-gap instance of their Section 5 discussion.

The paper has no full-information experiments; these are the book's own, at the settings of its
discussion of RNM-FTNL and of the doubling-gap instance.
"""
from __future__ import annotations

import numpy as np

from ..envs import BernoulliExperts
from ..fullinfo.epoch_sim import exact_regret_deterministic
from ..plotting import regret, shared_legend, subplots
from ..simulate import simulate
from . import _settings
from ._settings import Setting
from .catalogue import experts_style, make_policy
from .engine import checkpoints
from .registry import derive_seed, parallel_map, register, regret_rows

__all__ = ["COMPARISON_MEANS", "DG_SETTINGS", "SETTINGS", "doubling_gap"]

#: Rewards (Hu et al. maximise rewards): the means of their bandit runs, with the best action
#: last so that neither FTL's lowest-index tie-break nor the "first action" start is handed it.
COMPARISON_MEANS = (0.25, 0.375, 0.5, 0.625, 0.75)
_SIZES = {"quick": dict(horizon=2 ** 13, n_runs=40, eps=(0.25, 1.0)),
          "paper": dict(horizon=2 ** 17, n_runs=200, eps=(0.25, 1.0))}
_NAMES = ("FTL", "Hedge", "RNM-FTNL (Hu et al., Lap 1/ε)", "RNM-FTNL (strict, Lap 2/ε)",
          "Naive FTNL")


#: display name -> catalogue label (``"common"`` preset) of the policy, which is also the
#: label of its book-wide style (the same algorithm as the comparison chapter's presets)
_CATALOGUE_LABEL = {"FTL": "FTL", "Hedge": "Hedge",
                    "RNM-FTNL (Hu et al., Lap 1/ε)": "RNM-FTNL (hu2021 preset)",
                    "RNM-FTNL (strict, Lap 2/ε)": "RNM-FTNL (strict, Lap)",
                    "Naive FTNL": "Naive FTNL"}


def _policy(name, eps):
    return make_policy(_CATALOGUE_LABEL[name], eps)


#: What ``run("hu2021-fullinfo", scale, **overrides)`` may change.
SETTINGS = (
    Setting("means", _settings.means, COMPARISON_MEANS,
            "Mean rewards of the K >= 2 actions (Bernoulli)."),
    Setting("epsilons", _settings.epsilons, {s: c["eps"] for s, c in _SIZES.items()},
            "Privacy parameters of the private algorithms, one panel each."),
    Setting("horizon", _settings.horizon, {s: c["horizon"] for s, c in _SIZES.items()},
            "Rounds per run."),
    Setting("n_runs", _settings.n_runs, {s: c["n_runs"] for s, c in _SIZES.items()},
            "Runs per curve."),
    Setting("algorithms", _settings.algorithms(_NAMES), _NAMES,
            f"The algorithms, among {list(_NAMES)} (FTL and Hedge are not private)."),
)


def _one(task):
    name, eps, means, horizon, n_runs, seed = task
    env = BernoulliExperts(means, kind="reward")
    return simulate(_policy(name, eps), env, horizon, n_runs, seed=seed,
                    checkpoints=checkpoints(horizon, log=100),
                    progress=False)


def _compute(scale, seed, jobs, progress, means=COMPARISON_MEANS, epsilons=None, horizon=None,
             n_runs=None, algorithms=_NAMES):
    cfg = dict(_SIZES[scale])
    for key, value in (("eps", epsilons), ("horizon", horizon), ("n_runs", n_runs)):
        if value is not None:
            cfg[key] = value
    tasks = []
    for name in algorithms:
        private = name not in ("FTL", "Hedge")
        for eps in (cfg["eps"] if private else (None,)):
            tasks.append((name, eps, means, cfg["horizon"], cfg["n_runs"],
                          derive_seed("hu2021-fullinfo", name, eps, seed)))
    out = parallel_map(_one, tasks, jobs)
    data = {"results": {(t[0], t[1]): r for t, r in zip(tasks, out)}, **cfg}
    if means != COMPARISON_MEANS:
        data["means"] = means
    return data


def _plot(data):
    nrows = (len(data["eps"]) + 1) // 2
    fig, axes = subplots(nrows, min(len(data["eps"]), 2), sharey=True)
    for ax, eps in zip(axes.flat, data["eps"]):
        items = [(n, r) for (n, e), r in data["results"].items() if e in (None, eps)]
        regret([r for _, r in items], ax=ax, log_x=True, log_y=True, legend=False,
               labels=[n for n, _ in items], style_keys=[_CATALOGUE_LABEL[n] for n, _ in items])
        for line in ax.get_lines():   # the papers' scale dashed, the strict one solid, naive dotted
            if line.get_label() in _CATALOGUE_LABEL:
                line.set_linestyle(experts_style(_CATALOGUE_LABEL[line.get_label()])["linestyle"])
        ax.text(0.03, 0.95, f"ε = {eps:g}", transform=ax.transAxes, va="top")
    for ax in axes.flat[len(data["eps"]):]:
        ax.axis("off")
    for ax in axes[:, 1:].flat:
        ax.set_ylabel("")
    shared_legend(fig, axes, ncol=2)
    return fig


def _summary(data):
    rows = []
    means = data.get("means", COMPARISON_MEANS)
    panel = ("rewards 0.25 to 0.75 (K=5)" if means == COMPARISON_MEANS else
             f"rewards {', '.join(f'{m:g}' for m in means)} (K={len(means)})")
    for (name, eps), res in data["results"].items():
        rows += regret_rows("hu2021-fullinfo", panel, [res], epsilon=eps, variant=name)
    return rows


register("hu2021-fullinfo", title="RNM-FTNL, naive FTNL, FTL and Hedge on Bernoulli rewards",
         plot=_plot, summary=_summary, chapter="experts_experiments", settings=SETTINGS)(_compute)


# ---------------------------------------------------------------------------------------------
# The doubling-gap instance: does the cost grow with the number of gap
# brackets (the log T / epsilon of Theorem 9) or only like log K?
# ---------------------------------------------------------------------------------------------
_DG_K = {"quick": tuple(range(3, 13)), "paper": tuple(range(3, 17))}
_DG_NAMES = {"Laplace 1/ε (Hu et al.)": ("laplace", "hu2021"), "Laplace 2/ε": ("laplace", "strict"),
             "Exp 2/ε": ("exponential", "strict"), "Gumbel 2/ε": ("gumbel", "strict")}


def doubling_gap(K: int) -> np.ndarray:
    """Mean losses of the doubling-gap instance: gaps Delta_min 2^(j-2), Delta_min = 2^-(K-2).

    Action 0 is best; action j >= 1 has gap 2^(j-1) Delta_min, so the largest gap is 1.
    """
    d_min = 2.0 ** -(K - 2)
    return np.r_[0.0, d_min * 2.0 ** np.arange(K - 1)]


def _dg_task(task):
    name, K = task
    noise, scale = _DG_NAMES[name]
    mu = doubling_gap(K)
    eps = mu[1]                                   # epsilon = Delta_min: every gap is >= epsilon
    return eps * exact_regret_deterministic(mu, epsilon=eps, noise=noise, noise_factor=scale)


def _numbers_of_actions(name, value):
    """Distinct numbers of actions K in [2, 30], in increasing order."""
    return _settings.distinct_ints(name, value, "numbers of actions K in [2, 30]", 2, 30)


#: What ``run("hu2021-doubling-gap", scale, **overrides)`` may change.
DG_SETTINGS = (
    Setting("Ks", _numbers_of_actions, _DG_K,
            "Numbers of actions K (the instance has K - 1 gap brackets; K <= 30)."),
    Setting("algorithms", _settings.algorithms(tuple(_DG_NAMES)), tuple(_DG_NAMES),
            f"The noise variants, among {list(_DG_NAMES)}."),
)


def _dg(scale, seed, jobs, progress, Ks=None, algorithms=tuple(_DG_NAMES)):
    Ks = Ks or _DG_K[scale]
    tasks = [(n, K) for n in algorithms for K in Ks]
    vals = parallel_map(_dg_task, tasks, jobs)
    return {"Ks": Ks, "eps_R": {t: v for t, v in zip(tasks, vals)}}


def _dg_plot(data):
    fig, axes = subplots()
    ax = axes[0, 0]
    Ks = np.array(data["Ks"])
    for name in dict.fromkeys(n for n, _ in data["eps_R"]):
        v = np.array([data["eps_R"][(name, K)] for K in Ks])
        ax.plot(Ks, v, ms=4, label=name, **experts_style(_DG_STYLE_KEY[name]))
    ax.plot(Ks, 6 * np.log(Ks), "k:", lw=1.5, label="6 ln K")
    ax.plot(Ks, 2 * (Ks - 1), color="0.5", ls="-.", lw=1.5, label="2 (K − 1): one term per bracket")
    ax.set_xlabel("number of actions K (= number of gap brackets + 1)")
    ax.set_ylabel("ε · R(∞),  ε = Δ_min")
    ax.legend()
    return fig


#: the book-wide style each noise variant borrows (the papers' 1/eps dashed, 2/eps solid)
_DG_STYLE_KEY = {"Laplace 1/ε (Hu et al.)": "RNM-FTNL (hu2021 preset)",
                 "Laplace 2/ε": "RNM-FTNL (strict, Lap)", "Exp 2/ε": "RNM-FTNL (strict, Exp)",
                 "Gumbel 2/ε": "RNM-FTNL (strict, Gumbel)"}


register("hu2021-doubling-gap", title="Exact regret of RNM-FTNL on the doubling-gap instance",
         plot=_dg_plot, chapter="experts_experiments", settings=DG_SETTINGS)(_dg)

__doc__ += f"""
.. rubric:: Settings

``run(id, scale, **overrides)`` changes any of these (checked before anything runs; each
setting gets its own cache entry). ``hu2021-fullinfo``:

{_settings.describe(SETTINGS)}
``hu2021-doubling-gap``:

{_settings.describe(DG_SETTINGS)}"""
