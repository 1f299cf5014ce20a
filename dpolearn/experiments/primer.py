"""Experiments of the primer chapter (``book/primer.md``).

* ``primer-ucb-ts`` -- non-private UCB1 and Beta Thompson Sampling on Bernoulli means
  (0.9, 0.6), against the finite-time UCB1 bound (Auer, Cesa-Bianchi and Fischer 2002,
  Theorem 1) and the asymptotic Lai-Robbins constant.
* ``primer-laplace-loss`` -- Monte Carlo privacy loss of the Laplace and Gaussian mechanisms on
  neighbouring inputs, beside the exact loss of each histogram bin, with a deliberately broken
  Laplace mechanism (half the noise) that the check catches.
* ``primer-rnm`` -- report-noisy-max: exact selection probabilities against Monte Carlo, and the
  exact privacy loss for monotone against two-sided score changes (eps against 2 eps).
* ``primer-attack`` -- attack then defend: an exact running mean gives one reward away; Laplace
  noise caps the attacker's success at e^eps / (1 + e^eps), and repeated releases compose.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from ..bandits import UCB1
from ..envs import BernoulliBandit
from ..lower_bounds import lai_robbins_constant
from ..mechanisms import GaussianMechanism, LaplaceMechanism, ReportNoisyMax
from ..plotting import errorbar, mark_reference, regret, shared_legend, style_of, subplots
from ..simulate import simulate
from .catalogue import labels, make_policy
from .engine import checkpoints
from .registry import derive_seed, parallel_map, register, regret_rows

__all__ = ["PRIMER_MEANS", "ucb1_bound", "bin_privacy_loss",
           "attack_success"]

PRIMER_MEANS = (0.9, 0.6)


# --------------------------------------------------------------------------------------------
# primer-ucb-ts
# --------------------------------------------------------------------------------------------

#: (horizon, n_runs) per scale; "paper" is the scale the primer's claims are made at (T = 10^5,
#: 20 runs).
_UCB_TS_SIZES = {"quick": (10_000, 20), "paper": (100_000, 20)}
_UCB_TS_POLICIES = labels("primer")                # UCB1 and Beta-TS


def ucb1_bound(means, rounds) -> np.ndarray:
    r"""The finite-time UCB1 bound at each of ``rounds``, shape ``(len(rounds),)``.

    :math:`\sum_{j:\Delta_j>0} 8\ln t/\Delta_j + (1+\pi^2/3)\sum_j\Delta_j`
    (Auer, Cesa-Bianchi and Fischer 2002, Theorem 1), via :meth:`UCB1.regret_bound`.

    >>> ucb1_bound([0.9, 0.6], [100]).round(2)
    array([124.09])
    """
    means = np.asarray(means, dtype=float)
    gaps = means.max() - means
    return np.array([UCB1.regret_bound(gaps, int(t)) for t in np.atleast_1d(rounds)])


def ucb1_heuristic_rate(means) -> float:
    r"""Heuristic long-run slope of UCB1's regret against ln t:
    :math:`\sum_{j:\Delta_j>0} 2/\Delta_j`.

    A suboptimal arm j keeps being pulled while its bonus :math:`\sqrt{2\ln t/n_j}` exceeds
    :math:`\Delta_j`, i.e. until :math:`n_j \approx 2\ln t/\Delta_j^2`; each pull costs
    :math:`\Delta_j`. A back-of-the-envelope rate, not a theorem.
    """
    means = np.asarray(means, dtype=float)
    gaps = means.max() - means
    return float(np.sum(2.0 / gaps[gaps > 0]))


def _ucb_ts_one(task):
    name, horizon, n_runs, seed = task
    return simulate(make_policy(name, preset="primer"), BernoulliBandit(PRIMER_MEANS), horizon,
                    n_runs, seed=seed, checkpoints=checkpoints(horizon, log=100), progress=False)


def _ucb_ts_compute(scale, seed, jobs, progress):
    horizon, n_runs = _UCB_TS_SIZES[scale]
    tasks = [(name, horizon, n_runs, derive_seed("primer-ucb-ts", name, seed))
             for name in _UCB_TS_POLICIES]
    ucb, ts = parallel_map(_ucb_ts_one, tasks, jobs)
    return {"UCB1": ucb, "TS (Beta)": ts, "means": np.asarray(PRIMER_MEANS),
            "ucb1_bound": ucb1_bound(PRIMER_MEANS, ucb.checkpoints),
            "lai_robbins_rate": lai_robbins_constant(PRIMER_MEANS),
            "ucb1_heuristic_rate": ucb1_heuristic_rate(PRIMER_MEANS)}


def _ucb_ts_plot(data):
    fig, axes = subplots(1, 2)
    left, right = axes[0]
    results = [data["UCB1"], data["TS (Beta)"]]
    t = data["UCB1"].checkpoints
    regret(results, ax=left, log_x=True, legend=False)
    left.plot(t, data["ucb1_bound"], "k--", lw=1.3, label="UCB1 bound (Auer et al. 2002, Thm 1)")
    left.plot(t, data["lai_robbins_rate"] * np.log(t), "k:", lw=1.5,
              label="Lai-Robbins rate × ln t (asymptotic)")
    left.set_yscale("log")
    # Right panel: regret / ln t settles to a constant exactly when regret grows like ln t.
    keep = t >= 10
    for res in results:
        style = style_of(res.label)
        m, se = res.mean()[keep] / np.log(t[keep]), res.se()[keep] / np.log(t[keep])
        line, = right.plot(t[keep], m, label=res.label, markevery=(0.0, 0.11), **style)
        line._dpolearn_se = se
        right.fill_between(t[keep], m - 1.96 * se, m + 1.96 * se, color=style["color"],
                           alpha=0.2, lw=0)
    right.axhline(data["lai_robbins_rate"], color="k", ls=":", lw=1.5)
    right.axhline(data["ucb1_heuristic_rate"], color="0.35", ls="-.", lw=1.3,
                  label=r"UCB1 heuristic $2/\Delta$")
    right.set_xscale("log")
    right.set_xlabel("round t")
    right.set_ylabel("pseudo-regret / ln t")
    shared_legend(fig, axes, ncol=2)
    return fig


def _ucb_ts_summary(data):
    rows = regret_rows("primer-ucb-ts", "means=(0.9, 0.6)", [data["UCB1"], data["TS (Beta)"]])
    for row in rows:
        row["ucb1_bound_at_horizon"] = float(data["ucb1_bound"][-1])
    return rows


register("primer-ucb-ts", title="UCB1 and Beta-TS on means (0.9, 0.6), with the UCB1 bound",
         plot=_ucb_ts_plot, summary=_ucb_ts_summary, chapter="primer")(_ucb_ts_compute)


# --------------------------------------------------------------------------------------------
# primer-laplace-loss
# --------------------------------------------------------------------------------------------

#: Monte Carlo draws per neighbouring input.
_LOSS_SIZES = {"quick": 200_000, "paper": 4_000_000}
_LOSS_EPSILON = 1.0
_LOSS_EDGES = np.arange(-4.0, 5.0 + 1e-9, 0.25)


def _loss_mechanisms(epsilon):
    """(name, mechanism, scipy law of the noise) for the three mechanisms compared."""
    lap = LaplaceMechanism(epsilon=epsilon)
    half = LaplaceMechanism(epsilon=2 * epsilon)        # broken on purpose: half the noise scale
    gauss = GaussianMechanism(sigma=1.0 / epsilon)      # mu = epsilon -GDP, not pure DP
    return [("Laplace, b = 1/eps", lap, stats.laplace(scale=lap.noise_scale)),
            ("broken Laplace, b = 1/(2 eps)", half, stats.laplace(scale=half.noise_scale)),
            ("Gaussian, sigma = 1/eps", gauss, stats.norm(scale=gauss.sigma))]


def bin_privacy_loss(law, edges, value=0.0, neighbour_value=1.0) -> np.ndarray:
    r"""Exact privacy loss of each bin, :math:`\ln P_v(B)/P_{v'}(B)`, for ``value + noise``.

    ``law`` is a frozen scipy distribution of the noise; returns shape ``(len(edges) - 1,)``.
    For pure eps-DP every entry lies in [-eps, eps].

    >>> bin_privacy_loss(stats.laplace(scale=1.0), [-2.0, -1.0, 2.0, 3.0]).round(6).tolist()
    [1.0, 0.0, -1.0]
    """
    edges = np.asarray(edges, dtype=float)
    p = np.diff(law.cdf(edges - value))
    q = np.diff(law.cdf(edges - neighbour_value))
    return np.log(p) - np.log(q)


def _loss_compute(scale, seed, jobs, progress):
    n = _LOSS_SIZES[scale]
    out = {"epsilon": _LOSS_EPSILON, "n": n, "edges": _LOSS_EDGES, "mechanisms": []}
    for name, mech, law in _loss_mechanisms(_LOSS_EPSILON):
        rng = np.random.default_rng(derive_seed("primer-laplace-loss", name, seed))
        y0 = mech.randomise(np.zeros(n), rng)           # value 0
        y1 = mech.randomise(np.ones(n), rng)            # neighbouring value 1 (sensitivity 1)
        c0 = np.histogram(y0, _LOSS_EDGES)[0].astype(float)
        c1 = np.histogram(y1, _LOSS_EDGES)[0].astype(float)
        ok = (c0 >= 50) & (c1 >= 50)                    # bins with enough counts to estimate
        with np.errstate(divide="ignore", invalid="ignore"):
            emp = np.where(ok, np.log(c0) - np.log(c1), np.nan)
            se = np.where(ok, np.sqrt(1 / c0 + 1 / c1), np.nan)   # delta method
        out["mechanisms"].append({
            "name": name, "guarantee": mech.guarantee, "empirical": emp, "se": se,
            "exact": bin_privacy_loss(law, _LOSS_EDGES)})
    return out


def _mechanism_key(name: str) -> str:
    """'Laplace, b = 1/eps' -> 'Laplace' (the book-wide style of the mechanism)."""
    return name.split(",")[0]


def _loss_plot(data):
    fig, axes = subplots(1, 1)
    ax = axes[0, 0]
    edges = data["edges"]
    mid = (edges[:-1] + edges[1:]) / 2
    for mech in data["mechanisms"]:
        style = style_of(_mechanism_key(mech["name"]))
        name = mech["name"].replace("eps", "ε").replace("sigma", "σ")
        ax.plot(mid, mech["exact"], color=style["color"], ls=style["linestyle"], lw=2,
                label=f"{name} (exact)")
        errorbar(ax, mid, mech["empirical"], mech["se"], f"_{name} (Monte Carlo)", ls="none",
                 color=style["color"], marker=style["marker"], ms=4, lw=1, alpha=0.8)
    eps = data["epsilon"]
    for level in (eps, -eps):
        mark_reference(ax.axhline(level, color="k", ls="--", lw=1))
    ax.errorbar([], [], yerr=[], fmt="o", ms=4, color="0.4", lw=1,
                label="Monte Carlo, 95% interval")
    ax.plot([], [], "k--", lw=1, label=r"$\pm\varepsilon$")
    ax.set_xlabel("released value y (bin centre)")
    ax.set_ylabel(r"privacy loss $\ln P_0(B)/P_1(B)$")
    ax.legend(loc="upper right")
    return fig


register("primer-laplace-loss",
         title="Privacy loss of the Laplace and Gaussian mechanisms on neighbouring inputs",
         plot=_loss_plot, chapter="dp_primer")(_loss_compute)


# --------------------------------------------------------------------------------------------
# primer-rnm
# --------------------------------------------------------------------------------------------

_RNM_SIZES = {"quick": 20_000, "paper": 1_000_000}
_RNM_SCORES = (2.0, 1.0, 0.0)
_RNM_GAPS = np.linspace(0.0, 8.0, 13)


def _rnm_family(task):
    noise, n, seed = task
    scores = np.asarray(_RNM_SCORES)
    # Part 1: exact selection probabilities against n Monte Carlo selections (epsilon = 1,
    # calibrated for general two-sided changes, so scale = 2).
    rnm = ReportNoisyMax(epsilon=1.0, noise=noise)
    rng = np.random.default_rng(seed)
    picks = rnm.select(np.broadcast_to(scores, (n, scores.size)), rng)
    freq = np.bincount(picks, minlength=scores.size) / n
    # Part 2: exact worst-case loss at noise scale b = 1 (the monotone calibration for
    # epsilon = 1) as the gap d between two scores grows; arm 0 trails by d. Two-sided
    # neighbour: arm 0 up by 1 and arm 1 down by 1; monotone neighbour: arm 0 up by 1 only.
    unit = ReportNoisyMax(scale=1.0, noise=noise)
    two_sided = [unit.max_privacy_loss([0.0, d], [1.0, d - 1.0]) for d in _RNM_GAPS]
    monotone = [unit.max_privacy_loss([0.0, d], [1.0, d]) for d in _RNM_GAPS]
    return {"exact": rnm.selection_probabilities(scores), "mc": freq,
            "mc_se": np.sqrt(freq * (1 - freq) / n), "scale": rnm.noise_scale,
            "two_sided": np.array(two_sided), "monotone": np.array(monotone)}


def _rnm_compute(scale, seed, jobs, progress):
    n = _RNM_SIZES[scale]
    noises = ("laplace", "exponential", "gumbel")
    tasks = [(noise, n, derive_seed("primer-rnm", noise, seed)) for noise in noises]
    families = parallel_map(_rnm_family, tasks, jobs)
    return {"n": n, "scores": np.asarray(_RNM_SCORES), "gaps": _RNM_GAPS,
            "families": dict(zip(noises, families))}


def _rnm_plot(data):
    fig, axes = subplots(1, 2)
    left, right = axes[0]
    k = data["scores"].size
    width = 0.27
    for i, (noise, fam) in enumerate(data["families"].items()):
        style = style_of(noise.capitalize())
        x = np.arange(k) + (i - 1) * width
        left.bar(
            x,
            fam["exact"],
            width=width,
            color=style["color"],
            alpha=0.6,
            hatch=["", "//", ".."][i % 3],
            edgecolor="white",
            label=f"{noise.capitalize()} noise",
        )
        # the Monte Carlo points of a family: black, with the family's marker
        errorbar(left, x, fam["mc"], fam["mc_se"], f"_{noise} Monte Carlo", ls="none",
                 color="k", marker=style["marker"], ms=4, lw=1)
        right.plot(data["gaps"], fam["two_sided"], color=style["color"], ls="-",
                   marker=style["marker"], markevery=(0.05 * i, 0.2),
                   label=f"{noise.capitalize()} noise")
        right.plot(data["gaps"], fam["monotone"], color=style["color"], ls="--",
                   marker=style["marker"], markevery=(0.05 * i, 0.2), mfc="white",
                   label=f"_{noise}, monotone")
    left.set_xticks(np.arange(k))
    left.set_xticklabels([f"arm {j}\nscore {s:g}" for j, s in enumerate(data["scores"])])
    left.errorbar([], [], yerr=[], fmt="ko", ms=4, lw=1, label="Monte Carlo, 95% interval")
    left.set_ylabel("P(selected)")
    right.plot([], [], color="0.3", ls="-", label="two-sided neighbours")
    right.plot([], [], color="0.3", ls="--", label="monotone neighbours")
    mark_reference(right.axhline(1.0, color="k", lw=1, ls=":"),
                   right.axhline(2.0, color="k", lw=1, ls=":"))
    right.set_xlabel("score gap d (noise scale b = 1)")
    right.set_ylabel(r"privacy loss $\max_i |\ln P_s(i)/P_{s'}(i)|$")
    right.set_ylim(0, 2.2)
    shared_legend(fig, axes, ncol=3)
    return fig


register(
    "primer-rnm",
    title="Report-noisy-max: exact probabilities, and monotone vs two-sided loss",
    plot=_rnm_plot,
    chapter="dp_primer",
)(_rnm_compute)


# --------------------------------------------------------------------------------------------
# primer-attack
# --------------------------------------------------------------------------------------------

_ATTACK_SIZES = {"quick": 20_000, "paper": 200_000}
_ATTACK_EPSILONS = np.array([0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 4.0])
_ATTACK_RELEASES = 2 ** np.arange(0, 9)
_ATTACK_EPS_REPEAT = 0.1


def attack_success(epsilon, n_releases, n_trials, rng) -> np.ndarray:
    r"""Success rate of the optimal attacker on one Bernoulli(1/2) reward.

    The curator releases ``n_releases`` sums that all contain the target reward ``r``, each
    with fresh ``Lap(1/epsilon)`` noise. The attacker knows every other reward, so each release
    reduces to ``y_i = r + Lap(1/epsilon)``, and guesses ``r = 1`` when the likelihood ratio
    :math:`\sum_i |y_i| - |y_i - 1| > 0` (the Bayes-optimal test for a fair prior; ties go to
    a fair coin). ``epsilon`` may be an array: returns the success rate per entry.
    """
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    wins = np.zeros(eps.size)
    chunk = max(1, 2_000_000 // (eps.size * n_releases))      # bounded memory per step
    for start in range(0, n_trials, chunk):
        m = min(chunk, n_trials - start)
        r = rng.integers(0, 2, size=(eps.size, m))
        y = (
            r[..., None]
            + rng.laplace(0.0, 1.0, size=(eps.size, m, n_releases)) / eps[:, None, None]
        )
        stat = np.sum(np.abs(y) - np.abs(y - 1.0), axis=-1)
        coin = rng.integers(0, 2, size=stat.shape)
        guess = np.where(stat > 0, 1, np.where(stat < 0, 0, coin))
        wins += (guess == r).sum(axis=1)
    return wins / n_trials


def _attack_compute(scale, seed, jobs, progress):
    n = _ATTACK_SIZES[scale]
    rng = np.random.default_rng(derive_seed("primer-attack", "one-release", seed))
    # Exact running means m_{t-1}, m_t: the difference t m_t - (t-1) m_{t-1} is r_t itself.
    t = 50
    others = rng.integers(0, 2, size=(n, t - 1)).astype(float)
    target = rng.integers(0, 2, size=n).astype(float)
    m_before = others.mean(axis=1)
    m_after = (others.sum(axis=1) + target) / t
    exact_success = float(np.mean(np.round(t * m_after - (t - 1) * m_before) == target))
    one = attack_success(_ATTACK_EPSILONS, 1, n, rng)
    rng = np.random.default_rng(derive_seed("primer-attack", "repeated", seed))
    repeated = np.array([attack_success(_ATTACK_EPS_REPEAT, int(k), n, rng)[0]
                         for k in _ATTACK_RELEASES])
    return {"n": n, "exact_success": exact_success, "epsilons": _ATTACK_EPSILONS,
            "one_release": one, "releases": _ATTACK_RELEASES, "eps_repeat": _ATTACK_EPS_REPEAT,
            "repeated": repeated}


def _dp_success_cap(epsilon):
    """Largest success probability of any test on a fair coin under epsilon-DP."""
    return 1.0 / (1.0 + np.exp(-np.asarray(epsilon, dtype=float)))


def _attack_plot(data):
    fig, axes = subplots(1, 2, sharey=True)
    left, right = axes[0]
    n = data["n"]
    eps = data["epsilons"]
    grid = np.geomspace(eps[0], eps[-1], 200)
    attacker = style_of("Laplace")
    se = np.sqrt(data["one_release"] * (1 - data["one_release"]) / n)
    errorbar(left, eps, data["one_release"], se, "attacker, Monte Carlo", fmt="o",
             color=attacker["color"])
    left.plot(grid, 1 - 0.5 * np.exp(-grid / 2), color=attacker["color"], lw=1.5,
              label=r"attacker, exact $1-\frac{1}{2}e^{-\varepsilon/2}$")
    left.plot(
        grid,
        _dp_success_cap(grid),
        "k--",
        lw=1.5,
        label=r"DP cap $e^{\varepsilon}/(1+e^{\varepsilon})$ (left), "
        r"$e^{k\varepsilon}/(1+e^{k\varepsilon})$ (right)",
    )
    left.axhline(data["exact_success"], color="0.3", ls="-.", lw=1.5,
                 label="attacker against the exact running mean")
    left.set_xscale("log")
    left.set_xlabel(r"privacy parameter $\varepsilon$ of the release")
    left.set_ylabel("attacker's success rate")
    left.set_ylim(0.45, 1.03)
    k = data["releases"]
    se = np.sqrt(data["repeated"] * (1 - data["repeated"]) / n)
    kk = np.geomspace(k[0], k[-1], 200)
    errorbar(right, k, data["repeated"], se, "attacker, Monte Carlo", fmt="o",
             color=attacker["color"])
    right.plot(kk, _dp_success_cap(kk * data["eps_repeat"]), "k--", lw=1.5, label="_composed cap")
    right.set_xscale("log", base=2)
    right.set_xlabel(rf"releases k ($\varepsilon$ = {data['eps_repeat']:g} each)")
    shared_legend(fig, axes, ncol=2)
    return fig


register("primer-attack", title="Attack then defend: one reward from a running mean",
         plot=_attack_plot, chapter="primer")(_attack_compute)
