"""Experiments of the lower-bounds chapter (``book/lower_bounds.md``).

* ``lowerbounds-instances`` -- the hard instances drawn: Theorem 12's product-Bernoulli
  packing (Hu, Huang, Mehta and Hegde) with its exact TV and KL matrices, and Theorem 7's cyclic
  deterministic instances (Wu and Wang).
* ``lowerbounds-fano`` -- the DP Fano error bound against the sample size n for several
  epsilon, with the worst-case error of a concrete epsilon-DP selector (report-noisy-max,
  Laplace 2/eps) and of the non-private argmax.
* ``lowerbounds-batch2online`` -- the batch-to-online conversion as a simulation: majority vote
  of a learner's plays over m rounds, error on the worst hidden instance, against the bound.
* ``lowerbounds-regret-eps`` -- measured regret against epsilon on the Theorem 12 instances,
  full information (RNM-FTNL, FTL, Hedge) and bandit feedback (Anytime-Lazy-UCB, Lazy-DP-TS),
  with the lower bounds on the same instances.
* ``lowerbounds-cyclic`` -- Theorem 7: success-probability bound against RNM-FTNL's exact and
  simulated success probability, LB(T) against RNM-FTNL's exact regret, and eps LB(inf) vs ln K.
"""
from __future__ import annotations

import math

import numpy as np

from .. import lower_bounds as lb
from ..envs import BernoulliBandit, BernoulliExperts, FixedSequence
from ..fullinfo import FTL, RNMFTNL, Hedge
from ..fullinfo.epoch_sim import exact_regret_deterministic
from ..mechanisms import ReportNoisyMax
from ..plotting import errorbar, shared_legend, style_of, subplots, sweep_styles
from ..simulate import simulate
from .catalogue import make_policy
from .engine import sweep
from .registry import derive_seed, parallel_map, register, regret_rows

#: The Theorem 12 instance family used throughout the chapter: K actions, gap Delta < 1/4.
HU_K, HU_GAP = 8, 0.2
#: The Theorem 7 cyclic family: K actions, Delta_min.
WU_K, WU_GAP = 64, 0.5


# ---------------------------------------------------------------------------------------------
# lowerbounds-instances
# ---------------------------------------------------------------------------------------------
def _instances(scale, seed, jobs, progress):
    hu = lb.hu2021_hard_instances(6, HU_GAP)
    return {"hu": hu, "tv": lb.tv_distance_matrix(hu), "kl": lb.kl_matrix(hu),
            "wu": lb.wu2025_cyclic_instances(8, 0.3), "gap": HU_GAP, "gap_min": 0.3}


def _heat(ax, mat, title_cb, cmap, fmt):
    im = ax.imshow(mat, cmap=cmap)
    k = mat.shape[0]
    ax.set_xticks(range(k), [str(i + 1) for i in range(k)])
    ax.set_yticks(range(k), [str(i + 1) for i in range(k)])
    ax.grid(False)
    for i in range(k):
        for j in range(k):
            ax.text(j, i, fmt.format(mat[i, j]), ha="center", va="center",
                    color="white" if mat[i, j] - mat.min() > 0.6 * np.ptp(mat) else "black")
    ax.figure.colorbar(im, ax=ax, shrink=0.8, label=title_cb)


def _plot_instances(data):
    fig, axes = subplots(2, 2, height=1.2)
    (a, b), (c, d) = axes
    _heat(a, data["hu"], "mean reward", "Blues", "{:.2f}")
    a.set_xlabel("action")
    a.set_ylabel("instance (hidden best action)")
    _heat(b, data["tv"], "total variation", "Greens", "{:.2f}")
    b.set_xlabel("instance j")
    b.set_ylabel("instance i")
    _heat(c, data["kl"], "KL divergence (nats)", "Purples", "{:.2g}")
    c.set_xlabel("instance j")
    c.set_ylabel("instance i")
    _heat(d, data["wu"], "loss (deterministic)", "Oranges", "{:.1f}")
    d.set_xlabel("action")
    d.set_ylabel("cyclic instance l")
    for ax, tag in zip((a, b, c, d), "abcd"):
        ax.text(0.0, 1.03, f"({tag})", transform=ax.transAxes, fontweight="bold", va="bottom")
    return fig


register("lowerbounds-instances", title="Hard instances of Theorem 12 (Hu et al.) and Theorem 7 "
         "(Wu and Wang), with TV and KL matrices", plot=_plot_instances,
         chapter="lower_bounds")(_instances)


# ---------------------------------------------------------------------------------------------
# lowerbounds-fano
# ---------------------------------------------------------------------------------------------
FANO_EPS = (0.05, 0.2, 1.0)


def _selector_errors(task):
    """Worst-case (over hidden instances) error of RNM(Lap 2/eps) and of the noiseless argmax
    on n i.i.d. samples of the Theorem 12 instances (sums are Binomial(n, mu))."""
    eps, n_grid, n_mc, seed = task
    rng = np.random.default_rng(seed)
    inst = lb.hu2021_hard_instances(HU_K, HU_GAP)
    rnm = ReportNoisyMax(epsilon=eps, noise="laplace")           # strictly eps-DP, scale 2/eps
    private, plain = [], []
    for n in n_grid:
        worst_p = worst_0 = 0.0
        for j, mu in enumerate(inst):
            sums = rng.binomial(int(n), mu, size=(n_mc, HU_K)).astype(float)
            worst_p = max(worst_p, float(np.mean(rnm.select(sums, rng) != j)))
            worst_0 = max(worst_0, float(np.mean(np.argmax(sums, axis=1) != j)))
        private.append(worst_p)
        plain.append(worst_0)
    return np.array(private), np.array(plain)


def _fano(scale, seed, jobs, progress):
    n_mc = {"quick": 300, "paper": 4000}[scale]
    n_grid = np.unique(np.round(np.geomspace(1, 3000, 16 if scale == "quick" else 28)).astype(int))
    tasks = [(eps, n_grid, n_mc, derive_seed("lowerbounds-fano", eps, seed)) for eps in FANO_EPS]
    out = parallel_map(_selector_errors, tasks, jobs)
    return {"n": n_grid, "eps": np.array(FANO_EPS), "n_mc": n_mc,
            "private": np.stack([o[0] for o in out]), "plain": out[0][1],
            "K": HU_K, "gap": HU_GAP}


def _plot_fano(data):
    fig, axes = subplots(1, 1, height=1.1)
    ax = axes[0, 0]
    K, gap = data["K"], data["gap"]
    n_fine = np.geomspace(1, data["n"][-1], 400)
    for eps, style, emp in zip(data["eps"], sweep_styles(len(data["eps"])), data["private"]):
        col = style["color"]
        ax.plot(n_fine, lb.dp_fano_error_bound(K, n_fine, eps, gap), color=col, lw=2,
                label=f"DP Fano bound, ε = {eps:g}")
        ax.plot(data["n"], emp, "o:", color=col, ms=5, lw=1,
                label=f"RNM selector (Lap 2/ε), ε = {eps:g}")
        ax.axvline(lb.hu2021_sample_complexity(K, eps, gap), color=col, ls="--", lw=0.8)
    kl = float(lb.kl_matrix(lb.hu2021_hard_instances(K, gap))[0, 1])
    ax.plot(n_fine, lb.fano_error_bound(K, n_fine, kl), color="0.4", lw=1.5, ls="-.",
            label="non-private Fano bound")
    ax.plot(data["n"], data["plain"], "s:", color="0.2", ms=4, lw=1,
            label="argmax of sums (not private)")
    ax.set_xscale("log")
    ax.set_xlabel("sample size n (reward vectors)")
    ax.set_ylabel("error on the worst hidden instance")
    ax.set_ylim(-0.02, 1.0)
    shared_legend(fig, axes, ncol=2)
    return fig


register("lowerbounds-fano", title="DP Fano bound vs sample size, with private and non-private "
         "selectors", plot=_plot_fano, chapter="lower_bounds")(_fano)


# ---------------------------------------------------------------------------------------------
# lowerbounds-batch2online
# ---------------------------------------------------------------------------------------------
B2O_EPS = (0.01, 0.1)


def _b2o_task(task):
    name, eps, m_grid, n_runs, seed = task
    inst = lb.hu2021_hard_instances(HU_K, HU_GAP)
    err, low, reg = [], [], []
    seeds = seed.spawn(len(m_grid))
    for k, m in enumerate(m_grid):
        policy = {"FTL": lambda: FTL(), "Hedge": lambda: Hedge(),
                  "RNM-FTNL": lambda: RNMFTNL(epsilon=eps)}[name]()
        out = lb.batch_to_online(policy, inst, int(m), n_runs, seed=seeds[k])
        err.append(out.max_error)
        low.append(float(out.low_weight.max()))
        reg.append(float(out.regret.mean()))
    return np.array(err), np.array(low), np.array(reg)


def _b2o(scale, seed, jobs, progress):
    n_runs = {"quick": 40, "paper": 1000}[scale]
    m_grid = np.unique(np.round(np.geomspace(1, 2048, 12 if scale == "quick" else 23)).astype(int))
    learners = [("RNM-FTNL", eps) for eps in B2O_EPS] + [("FTL", None), ("Hedge", None)]
    tasks = [(name, eps, m_grid, n_runs, derive_seed("lowerbounds-batch2online", name, eps, seed))
             for name, eps in learners]
    out = parallel_map(_b2o_task, tasks, jobs)
    curves = {(name, eps): o for (name, eps), o in zip(learners, out)}
    return {"m": m_grid, "curves": curves, "n_runs": n_runs, "K": HU_K, "gap": HU_GAP}


def _b2o_label(name, eps):
    return name if eps is None else f"{name} (ε = {eps:g})"


def _plot_b2o(data):
    fig, axes = subplots(1, 2)
    a, b = axes[0]
    K, gap, m = data["K"], data["gap"], data["m"]
    m_fine = np.geomspace(1, m[-1], 300)
    for (name, eps), (err, _low, reg) in data["curves"].items():
        lab = _b2o_label(name, eps)
        style = style_of(name)
        if eps is not None and eps != B2O_EPS[0]:       # the second epsilon: open markers, dashed
            style.update(linestyle="--", mfc="white")
        a.plot(m, err, ms=4, label=lab, **style)
        b.plot(m, reg, ms=4, label=lab, **style)
    for eps, ls in zip(B2O_EPS, ("-", "--")):
        a.plot(m_fine, lb.dp_fano_error_bound(K, m_fine, eps, gap), color="k", ls=ls, lw=1,
               label=f"(a) DP Fano bound, ε = {eps:g}")
        b.axhline(lb.hu2021_privacy_regret_lower_bound(K, eps, gap), color="0.45", ls=ls, lw=1.2,
                  label=f"(b) 0.0098 ln K / ε, ε = {eps:g}")
        ms = lb.hu2021_sample_complexity(K, eps, gap)
        a.axvline(ms, color="0.5", ls=ls, lw=0.8)
        b.axvline(ms, color="0.5", ls=ls, lw=0.8)
    a.axhline(0.2, color="0.6", lw=0.8, ls=":")
    a.set_xscale("log")
    a.set_xlabel("batch size m")
    a.set_ylabel("majority-vote error (worst instance)")
    b.set_xscale("log")
    b.set_yscale("log")
    b.set_xlabel("batch size m")
    b.set_ylabel("mean pseudo-regret over m rounds")
    for ax, tag in zip((a, b), "ab"):
        ax.text(0.0, 1.02, f"({tag})", transform=ax.transAxes, fontweight="bold", va="bottom")
    shared_legend(fig, axes, ncol=2)
    return fig


register("lowerbounds-batch2online", title="Batch-to-online conversion: majority vote of a "
         "learner's plays", plot=_plot_b2o, chapter="lower_bounds")(_b2o)


# ---------------------------------------------------------------------------------------------
# lowerbounds-regret-eps
# ---------------------------------------------------------------------------------------------
_REGRET_SIZES = {
    # (eps grid, full-info T, runs per instance, bandit T, bandit runs)
    "quick": (np.array([0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0]), 2 ** 14, 10, 2 ** 12, 20),
    "paper": (np.geomspace(0.01, 10.0, 13), 2 ** 14, 100, 2 ** 16, 100),
}


#: the policies of lowerbounds-regret-eps: name -> (catalogue label, preset)
_REGRET_POLICIES = {"RNM-FTNL": ("RNM-FTNL (strict, Lap)", "common"), "FTL": ("FTL", "common"),
                    "Hedge": ("Hedge", "common"),
                    "Anytime-Lazy-UCB": ("Anytime-Lazy-UCB", "hu2021"),
                    "Lazy-DP-TS": ("Lazy-DP-TS", "hu2021")}


def _regret_task(task):
    """One algorithm at every epsilon of the grid as ONE batch (all K hard instances of the
    full-information construction in it); one Result per epsilon (one in all for FTL, Hedge)."""
    kind, name, eps_grid, horizon, n_runs, seed = task
    inst = lb.hu2021_hard_instances(HU_K, HU_GAP)
    label, preset = _REGRET_POLICIES[name]
    if name in ("FTL", "Hedge"):                                          # eps-free: one group
        env = BernoulliExperts(np.repeat(inst, n_runs, axis=0), kind="reward")
        res, = sweep(lambda cols: make_policy(label, preset=preset), env, horizon, [{}],
                     HU_K * n_runs, seed, checkpoints=20)
        return res
    G = len(eps_grid)
    if kind == "full":
        env = BernoulliExperts(np.tile(np.repeat(inst, n_runs, axis=0), (G, 1)), kind="reward")
        per_cell = HU_K * n_runs                                          # all K instances
    else:
        env = BernoulliBandit(np.tile(inst[0], (G * n_runs, 1)))
        per_cell = n_runs
    return sweep(lambda cols: make_policy(label, cols["epsilon"], preset=preset), env, horizon,
                 [{"epsilon": float(e)} for e in eps_grid], per_cell, seed, checkpoints=20)


def _regret_eps(scale, seed, jobs, progress):
    eps_grid, T_full, n_full, T_band, n_band = _REGRET_SIZES[scale]
    specs = [("full", "RNM-FTNL", T_full, n_full), ("full", "FTL", T_full, n_full),
             ("full", "Hedge", T_full, n_full), ("bandit", "Anytime-Lazy-UCB", T_band, n_band),
             ("bandit", "Lazy-DP-TS", T_band, n_band)]
    tasks = [(kind, name, eps_grid, T, n, derive_seed("lowerbounds-regret-eps", name, seed))
             for kind, name, T, n in specs]
    out = parallel_map(_regret_task, tasks, jobs)
    data = {"eps": eps_grid, "K": HU_K, "gap": HU_GAP, "T_full": T_full, "T_bandit": T_band}
    for (_kind, name, _, _), res in zip(specs, out):
        data[name] = res
    return data


def _final(results):
    return (np.array([r.final_mean for r in results]),
            np.array([1.96 * r.final_se for r in results]))


def _plot_regret_eps(data):
    fig, axes = subplots(1, 2)
    a, b = axes[0]
    eps, K, gap = data["eps"], data["K"], data["gap"]
    e_fine = np.geomspace(eps[0], eps[-1], 200)
    m, ci = _final(data["RNM-FTNL"])
    errorbar(a, eps, m, ci / 1.96, "RNM-FTNL (Lap 2/ε)", **style_of("RNM-FTNL"))
    for name in ("FTL", "Hedge"):
        style = style_of(name)
        a.axhline(data[name].final_mean, color=style["color"], ls=style["linestyle"], lw=1.5,
                  label=f"{name} (not private)")
    a.plot(e_fine, lb.hu2021_privacy_regret_lower_bound(K, e_fine, gap), "k-", lw=1.5,
           label="(a) Thm 12: 0.0098 ln K / ε")
    a.plot(e_fine, math.log(K) / np.minimum(gap, e_fine), "k:", lw=1.5,
           label="(a) shape ln K / min{Δ, ε}")
    a.axhline(data["T_full"] * gap, color="0.6", lw=0.8, ls="--", label="T Δ (always wrong)")
    a.set_xscale("log")
    a.set_yscale("log")
    a.set_xlabel("privacy parameter ε")
    a.set_ylabel(f"pseudo-regret at T = {data['T_full']}")
    for name in ("Anytime-Lazy-UCB", "Lazy-DP-TS"):
        m, ci = _final(data[name])
        errorbar(b, eps, m, ci / 1.96, name)
    T = data["T_bandit"]
    means = lb.hu2021_hard_instances(K, gap)[0]
    b.plot(e_fine, lb.shariff_sheffet_lower_bound(means, e_fine, T), color="0.35", ls="-", lw=1.5,
           label="(b) Shariff–Sheffet shape (c = 1)")
    b.axhline(lb.lai_robbins_lower_bound(means, T), color="k", ls="-.", lw=1.2,
              label="(b) Lai–Robbins (not private)")
    b.axhline(T * gap, color="0.6", lw=0.8, ls="--", label="T Δ (always wrong)")
    b.set_xscale("log")
    b.set_yscale("log")
    b.set_xlabel("privacy parameter ε")
    b.set_ylabel(f"pseudo-regret at T = {T}")
    for ax, tag in zip((a, b), "ab"):
        ax.text(0.0, 1.02, f"({tag})", transform=ax.transAxes, fontweight="bold", va="bottom")
    shared_legend(fig, axes, ncol=2)
    return fig


def _summary_regret_eps(data):
    rows = []
    for name in ("RNM-FTNL", "Anytime-Lazy-UCB", "Lazy-DP-TS"):
        panel = "full information" if name == "RNM-FTNL" else "bandit"
        for e, res in zip(data["eps"], data[name]):
            rows += regret_rows(
                "lowerbounds-regret-eps",
                f"{panel}, K={data['K']}, gap={data['gap']}",
                [res],
                epsilon=float(e),
            )
    for name in ("FTL", "Hedge"):
        rows += regret_rows("lowerbounds-regret-eps",
                            f"full information, K={data['K']}, gap={data['gap']}", [data[name]])
    return rows


register("lowerbounds-regret-eps", title="Measured regret vs epsilon on the Theorem 12 instances, "
         "against the lower bounds", plot=_plot_regret_eps, summary=_summary_regret_eps,
         chapter="lower_bounds")(_regret_eps)


# ---------------------------------------------------------------------------------------------
# lowerbounds-cyclic
# ---------------------------------------------------------------------------------------------
CYC_EPS = 0.5


def _exact_success(K, gap_min, eps, T):
    """P(I_t in S_l) of RNM-FTNL (Gumbel 2/eps, uniform J_0) on a cyclic instance, t = 1..T."""
    inst = lb.wu2025_cyclic_instances(K, gap_min)[0]
    S = lb.wu2025_near_best_sets(K)[0]
    rnm = ReportNoisyMax(epsilon=eps, noise="gumbel")
    t = np.arange(1, T + 1)
    r = np.floor(np.log2(t)).astype(int) + 1                   # epoch of round t
    out = np.empty(T)
    for ep in np.unique(r):
        if ep == 1:
            p = 3.0 / K                                           # J_0 uniform
        else:
            p = rnm.selection_probabilities(-(2.0 ** (ep - 2)) * inst)[S].sum()
        out[r == ep] = p
    return out


def _cyclic(scale, seed, jobs, progress):
    T_mc, n_runs = {"quick": (1024, 100), "paper": (1024, 10000)}[scale]
    inst = lb.wu2025_cyclic_instances(WU_K, WU_GAP)
    env = FixedSequence(np.tile(inst[0], (T_mc, 1)))
    res = simulate(RNMFTNL(epsilon=CYC_EPS, noise="gumbel"), env, T_mc, n_runs,
                   seed=derive_seed("lowerbounds-cyclic", "mc", seed),
                   checkpoints=np.arange(1, T_mc + 1), progress=False)
    inc = np.diff(np.concatenate([np.zeros((n_runs, 1)), res.regret], axis=1), axis=1)
    success_mc = np.mean(inc < 1.0 - 1e-9, axis=0)             # gap 0 or Delta_min: in S_l
    horizons = np.unique(np.round(np.geomspace(1, 2 ** 16, 60)).astype(np.int64))
    exact_T = {noise: exact_regret_deterministic(inst[0], epsilon=CYC_EPS, noise=noise,
                                                 horizon=horizons)
               for noise in ("gumbel", "laplace", "exponential")}
    Ks = np.array([6, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096])
    eps_k = (0.1, 1.0)
    rnm_inf = {
        e: np.array(
            [
                exact_regret_deterministic(
                    lb.wu2025_cyclic_instances(int(k), WU_GAP)[0], epsilon=e, noise="gumbel"
                )
                for k in Ks
            ]
        )
        for e in eps_k
    }
    return {"T_mc": T_mc, "n_runs": n_runs, "success_mc": success_mc,
            "success_exact": _exact_success(WU_K, WU_GAP, CYC_EPS, T_mc),
            "horizons": horizons, "exact_T": exact_T, "Ks": Ks, "eps_k": eps_k,
            "rnm_inf": rnm_inf, "K": WU_K, "gap_min": WU_GAP, "eps": CYC_EPS,
            "mc_regret": res}


def _plot_cyclic(data):
    fig, axes = subplots(2, 2)
    (a, b), (c, spare) = axes
    spare.axis("off")
    K, eps = data["K"], data["eps"]
    t = np.arange(1, data["T_mc"] + 1)
    rnm = style_of("RNM-FTNL")
    col = rnm["color"]
    a.plot(t, lb.wu2025_success_probability_bound(t, K, eps), "k-", lw=1.5,
           label="(a) Thm 7 bound (any ε-DP learner)")
    a.plot(t, data["success_exact"], color=col, lw=2, label="RNM-FTNL (Gumbel 2/ε), exact")
    a.plot(t, data["success_mc"], ".", color=col, ms=3, alpha=0.5,
           label=f"RNM-FTNL, {data['n_runs']} runs")
    style = style_of("FTL")
    a.plot(t, np.ones_like(t, dtype=float), color=style["color"], lw=1.2, ls="--",
           label="FTL (not private)")
    a.set_xscale("log")
    a.set_xlabel("round t")
    a.set_ylabel("P(near-best action)")
    T = data["horizons"]
    b.plot(T, lb.wu2025_regret_lower_bound(K, eps, T), color="0.35", ls="-", lw=1.5,
           label="(b) LB(T), Thm 7")
    for noise, ls, mk in zip(("gumbel", "laplace", "exponential"), ("-", "--", ":"), "o^s"):
        # each noise family in its mechanism's colour, line style and marker
        b.plot(T, data["exact_T"][noise], color=style_of(noise.capitalize())["color"], ls=ls,
               marker=mk, ms=4, markevery=0.2,
               label=f"(b) RNM-FTNL, {noise} 2/ε (exact)")
    b.set_xscale("log")
    b.set_yscale("log")
    b.set_xlabel("horizon T")
    b.set_ylabel("pseudo-regret")
    Ks = data["Ks"]
    k_int = np.unique(np.round(np.geomspace(Ks[0], Ks[-1], 200)).astype(int))
    for e, ls, mk in zip(data["eps_k"], ("-", "--"), ("o", "s")):
        lb_inf = np.array([lb.wu2025_regret_lower_bound(int(k), e) for k in k_int])
        c.plot(np.log(k_int), e * lb_inf, "k", ls=ls, lw=1.5, label=f"(c) ε·LB(∞), ε = {e:g}")
        c.plot(np.log(Ks), e * data["rnm_inf"][e], marker=mk, color=col, ls=ls, ms=5,
               label=f"(c) ε·R(∞), RNM-FTNL Gumbel, ε = {e:g}")
    c.set_xlabel("ln K")
    c.set_ylabel("ε × regret")
    for ax, tag in zip((a, b, c), "abc"):
        ax.text(0.0, 1.02, f"({tag})", transform=ax.transAxes, fontweight="bold", va="bottom")
    handles, labels = [], []
    for ax in (a, b, c):
        h, l = ax.get_legend_handles_labels()
        handles += h
        labels += l
    spare.legend(handles, labels, loc="center", borderaxespad=0)
    return fig


def _summary_cyclic(data):
    return regret_rows("lowerbounds-cyclic", f"cyclic K={data['K']}, gap_min={data['gap_min']}",
                       [data["mc_regret"]], epsilon=data["eps"])


register("lowerbounds-cyclic", title="Theorem 7 (Wu and Wang): success-probability and regret "
         "bounds against RNM-FTNL on the cyclic instances", plot=_plot_cyclic,
         summary=_summary_cyclic, chapter="lower_bounds_deterministic")(_cyclic)
