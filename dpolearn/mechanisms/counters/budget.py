r"""The hybrid counter's budget: how epsilon is split, what the tree costs, the guarantee of
the two parts together, and the high-probability error bound.

Each formula lives here once; :class:`~dpolearn.mechanisms.HybridCounter`,
:class:`~dpolearn.mechanisms.CounterNoise`, the DP-UCB policies and the exact audit of
the hybrid counter import it.

References
----------
.. [CSS11] Chan, Shi and Song, "Private and continual release of statistics", ACM TISSEC 14(3),
   2011: Algorithm 4 (hybrid) and Corollary 2.9.
.. [TD16] Tossou and Dimitrakakis, "Algorithms for differentially private multi-armed bandits",
   AAAI 2016, Section 2.3, equation 2.2 and Lemma B.2.
"""
from __future__ import annotations

import math

import numpy as np

from ..._arrays import scalar_if_uniform
from ..._validation import check_choice, is_power_of_two
from ...accounting import PureDP, compose

__all__ = ["tree_scale_factor", "hybrid_budget_split", "hybrid_guarantee", "hybrid_error_bound"]


def tree_scale_factor(tree_log_base) -> float:
    r"""Factor of the hybrid counter's tree node scale for a logarithm base.

    The epoch-k tree's nodes carry :math:`\mathrm{Lap}(c\,k/\varepsilon_B)` with c = 1 for
    base 2 (Chan, Shi and Song 2011) and :math:`c = \ln 2` for the natural logarithm
    (:math:`\ln(2^k) = k\ln 2`, as in Tossou and Dimitrakakis's public code; reading
    ``reading-natural-log-tree`` of the book's appendix of readings and errata). An item lies in
    at most k nodes, so the tree costs :math:`\varepsilon_B / c` (1/ln 2 = 1.44 times more
    for the natural logarithm). Every place that needs this factor calls this function.

    >>> tree_scale_factor(2), round(tree_scale_factor("e"), 6)
    (1.0, 0.693147)
    """
    check_choice("tree_log_base", tree_log_base, (2, "e"))
    return 1.0 if tree_log_base == 2 else math.log(2.0)


def hybrid_budget_split(epsilon, split: str):
    """``(epsilon_log, epsilon_tree)`` of the hybrid counter: halves for ``"chan"``, the whole
    epsilon twice for ``"paper"`` (Tossou and Dimitrakakis 2016)."""
    check_choice("split", split, ("chan", "paper"))
    half = epsilon / 2 if split == "chan" else epsilon
    return half, half


def hybrid_guarantee(epsilon_log, epsilon_tree, *, tree_log_base=2,
                     noise_multiplier=1.0) -> PureDP:
    r"""Standard accounting of the hybrid counter, composed from its two parts.

    The logarithmic counter is :math:`(\varepsilon_L/m)`-DP and the epoch trees
    :math:`(\varepsilon_B/(c\,m))`-DP (:func:`tree_scale_factor`, m the noise multiplier);
    one item enters both, so they compose (:func:`dpolearn.accounting.compose`).

    >>> hybrid_guarantee(0.5, 0.5)
    PureDP(epsilon=1)
    >>> round(float(hybrid_guarantee(1.0, 1.0, tree_log_base="e").epsilon), 4)
    2.4427
    """
    tree_cost = 1.0 / tree_scale_factor(tree_log_base)
    return compose(PureDP(epsilon=scalar_if_uniform(epsilon_log / noise_multiplier)),
                   PureDP(epsilon=scalar_if_uniform(tree_cost * epsilon_tree / noise_multiplier)))


def hybrid_error_bound(n, gamma, *, epsilon_log, epsilon_tree):
    r"""High-probability error bound of the hybrid counter (Tossou and Dimitrakakis, eq. 2.2).

    :math:`\nu(n,\gamma) = \sqrt8\ln(4/\gamma)\,[1/\varepsilon_L
    + \mathbb 1\{n \text{ not a power of } 2\}\log_2(n)/\varepsilon_B]`; with
    :math:`\varepsilon_L = \varepsilon_B = \varepsilon` and :math:`\gamma = t^{-4}` this is the
    :math:`\nu_a` of their Algorithm 1; it follows from Chan, Shi and Song (2011),
    Corollary 2.9.
    """
    n = np.asarray(n, dtype=np.int64)
    tree = np.where(is_power_of_two(n), 0.0, np.log2(np.maximum(n, 1)))
    return np.sqrt(8.0) * np.log(4.0 / np.asarray(gamma, dtype=float)) * (
        1.0 / np.asarray(epsilon_log) + tree / np.asarray(epsilon_tree))
