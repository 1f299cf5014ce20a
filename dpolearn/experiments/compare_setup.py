"""The set-up shared by the comparison chapter's experiments (``book/comparison.md``).

The epsilon grid, the Bernoulli instances, the sizes per scale, the privacy kind of every
bandit algorithm and the *common privacy scale*: each private algorithm is configured (through
the ``"common"`` preset of :mod:`dpolearn.experiments.catalogue`) so that its honest guarantee
(standard accounting, one reward vector replaced) is the grid value:

* pure eps-DP algorithms get ``epsilon = eps`` (DP-UCB-BOUND and DP-UCB with the "chan" split,
  Private-UCB with the "MT_noK" budget, whose guarantee is then eps);
* DP-UCB-INT gets the Corollary 3.2 calibration of Tossou and Dimitrakakis (2016) to
  ``(eps, e^-10)``-DP, which exists only for eps <= 1 (it is not run above);
* M-TS-Gaussian gets ``mu = pure_dp_to_gdp(eps)``: the smallest mu for which *every* eps-DP
  algorithm is mu-GDP. At that mu it is as private as the pure algorithms in the GDP sense,
  but it is not eps-DP: at eps it is only ``(eps, gdp_delta(eps, mu))``-DP;
* DP-TS-UCB cannot be tuned to a target: its mu depends on (T, alpha) only and is at least
  about 2.87 (alpha = 1). It runs once, at alpha = 1, and is placed at the epsilon whose
  pure-DP algorithms are 2.87-GDP (:func:`dpolearn.accounting.gdp_equivalent_epsilon`, about
  2.5).
"""
from __future__ import annotations

import numpy as np

from .. import _algorithms, bandits
from .._algorithms import DerivedMap
from ..policy import Policy
from . import catalogue
from .catalogue import DP_TS_UCB_ALPHA, DP_UCB_INT_DELTA, mts_pre_pulls
from .engine import checkpoints

__all__ = ["EPSILONS", "GAPS", "INSTANCES", "LEADERBOARD_INSTANCES", "BANDIT_ALGORITHMS",
           "SIZES", "DP_UCB_INT_DELTA", "DP_TS_UCB_ALPHA", "exported_bandit_labels",
           "epsilon_grid", "mts_pre_pulls", "make_bandit_policy", "arm_permuted",
           "comparison_checkpoints"]

#: The privacy grid (every private algorithm is configured to be honestly eps-DP at each).
EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)
#: Gaps of the two-armed instances (0.5 + gap/2, 0.5 - gap/2).
GAPS = (0.02, 0.05, 0.1, 0.2, 0.4)


def _two_arms(gap: float):
    return (0.5 + gap / 2, 0.5 - gap / 2)


#: Instance name -> Bernoulli means. Instances with the same number of arms share one batch.
INSTANCES: dict[str, tuple] = {
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

#: Display label -> privacy kind ("none", "pure", "approx" (eps, delta) or "gdp") of every
#: bandit algorithm of the comparison (every bandit entry of ``dpolearn/_algorithms.py`` with
#: a ``"common"`` preset), in the order of its tables.
BANDIT_ALGORITHMS = DerivedMap(lambda: {
    e.label: e.privacy for e in _algorithms.ENTRIES
    if e.feedback == "bandit" and e.label in e.presets.get("common", {})})

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


def epsilon_grid(label: str) -> tuple:
    """The grid values at which ``label`` runs: () for algorithms without an epsilon, else
    the grid up to the entry's ``max_epsilon`` (DP-UCB-INT: Corollary 3.2 needs eps <= 1)."""
    if label not in BANDIT_ALGORITHMS:
        raise ValueError(f"label must be one of {sorted(BANDIT_ALGORITHMS)}, got {label!r}")
    entry = _algorithms.entry(label)
    if not entry.takes_epsilon:
        return ()
    return tuple(e for e in EPSILONS if e <= entry.max_epsilon)


def make_bandit_policy(label: str, epsilon, horizon: int) -> Policy:
    """The policy ``label`` configured to be honestly ``epsilon``-private on the common scale.

    ``epsilon`` is a scalar or an array of shape (n_runs,) (ignored for algorithms without one).
    """
    if label not in BANDIT_ALGORITHMS:
        raise ValueError(f"label must be one of {sorted(BANDIT_ALGORITHMS)}, got {label!r}")
    return catalogue.make_policy(label, epsilon, horizon, preset="common")


def comparison_checkpoints(horizon: int) -> np.ndarray:
    """The recording rounds of every comparison run: about 40 log-spaced rounds."""
    return checkpoints(horizon, log=40)


def arm_permuted(means: np.ndarray, seed) -> np.ndarray:
    """Each row of ``means`` (n_runs, K) with its arms in a random order drawn from ``seed``.

    Ties in argmax go to the lowest index, and the papers list their best arm first; a policy
    whose indices all saturate (e.g. clipped at 1 under heavy noise) would then pull the best
    arm by accident. A random order per run, the same for every algorithm, removes that.
    """
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random(means.shape), axis=1)
    return np.take_along_axis(means, order, axis=1)
