r"""The noise process of a hybrid or binary counter, advanced one stream per row: the fast
path of the DP-UCB bandits (release = exact prefix sum + this noise, the counters' closed form).

References
----------
.. [CSS11] Chan, Shi and Song, "Private and continual release of statistics", ACM TISSEC 14(3),
   2011: Algorithms 2 and 4.
.. [TD16] Tossou and Dimitrakakis, "Algorithms for differentially private multi-armed bandits",
   AAAI 2016, Section 2.3.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..._arrays import per_stream, scalar_if_uniform
from ..._validation import as_rng, check_choice, check_positive, check_positive_int, floor_log2
from ...accounting import PureDP
from ..ledger import active_recorder, report_release
from ._bits import bit_tables
from .budget import hybrid_guarantee, tree_scale_factor

__all__ = ["CounterNoise"]


class CounterNoise:
    r"""The noise process of a hybrid or binary counter, advanced one stream per row.

    A bandit feeds the pulled arm's counter only; this object keeps, for every
    ``(run, arm)`` stream, the current release error (the closed form of the counter:
    release = exact prefix sum + this noise), and updates it with a few numpy operations per
    round for all runs together. It draws exactly the noises of the counter it mirrors:
    node noises that are kept while their node is in use, and (hybrid) one logarithmic noise per
    power of two that stays forever.

    Parameters
    ----------
    n_rows, n_cols : int
        Batch shape ``(n_runs, n_arms)``.
    kind : {"hybrid", "binary"}
    epsilon_log, epsilon_tree : array of shape (n_rows, 1) or float
        Budgets of the two halves (hybrid), or ``epsilon_tree`` only (binary).
    levels : int
        Binary kind only: the tree's number of levels (node scale ``levels/epsilon_tree``).
    tree_log_base : {2, "e"}
    rng : numpy Generator
    noise_multiplier : float
        Factor applied to every noise scale (default 1); below 1 builds a deliberately weakened
        counter, and ``guarantee`` reports the larger epsilon it really has.

    Attributes
    ----------
    noise : ndarray of shape (n_rows, n_cols)
        Current release error of every stream.
    b_log : ndarray of shape (n_rows,)
        Hybrid kind: Laplace scale of the logarithmic draws.
    b_node : ndarray of shape (n_rows,)
        Binary kind: Laplace scale of the tree nodes.
    count : ndarray of int, shape (n_rows, n_cols)

    Notes
    -----
    Tests check that its output has the distribution of :class:`HybridCounter` /
    :class:`BinaryCounter` at every position (``tests/test_counters.py``). Node noise of
    level j is stored in ``node[..., j]`` while bit j of the count is set, so the tree part of
    the error is ``node.sum(-1)``. When the count reaches n with lowest set bit i, the nodes
    below i are discarded and node i is drawn; at a power of two (hybrid) the tree is empty and
    the draw goes to the logarithmic part instead.
    """

    _CHUNK = 2048

    def __init__(self, n_rows: int, n_cols: int, *, kind: str, epsilon_tree, epsilon_log=None,
                 levels: Optional[int] = None, tree_log_base=2, rng=None,
                 noise_multiplier: float = 1.0):
        n_rows = check_positive_int("n_rows", n_rows)
        n_cols = check_positive_int("n_cols", n_cols)
        self.kind = check_choice("kind", kind, ("hybrid", "binary"))
        self.tree_log_base = check_choice("tree_log_base", tree_log_base, (2, "e"))
        self.noise_multiplier = m = check_positive("noise_multiplier", noise_multiplier)
        self.eps_tree = per_stream("epsilon_tree", epsilon_tree, (n_rows, 1))[:, 0]
        if kind == "hybrid":
            self.eps_log = per_stream("epsilon_log", epsilon_log, (n_rows, 1))[:, 0]
        else:
            self.levels = check_positive_int("levels", levels)
        self._rng = as_rng(rng)
        if kind == "hybrid":
            self.b_log = m * (1.0 / self.eps_log)
            factor = tree_scale_factor(tree_log_base)
            self._inv_eps_tree = m * (factor / self.eps_tree)   # tree scale = k * this
            width = 20
        else:
            self.b_node = m * (self.levels / self.eps_tree)
            width = self.levels
        self.count = np.zeros((n_rows, n_cols), dtype=np.int64)
        self.node = np.zeros((n_rows, n_cols, width))     # scaled node noises of set bits
        self.log_noise = np.zeros((n_rows, n_cols))
        self.noise = np.zeros((n_rows, n_cols))           # current release error
        self._grow_tables(1 << 12)
        self._buf = np.empty((0, 0))
        self._pos = 0

    @property
    def guarantee(self) -> PureDP:
        """The guarantee of the counters this noise mirrors: :func:`hybrid_guarantee`, or
        ``PureDP(epsilon_tree / noise_multiplier)`` for the binary kind (one item lies in at
        most ``levels`` nodes of scale ``levels / epsilon_tree``)."""
        if self.kind == "hybrid":
            return hybrid_guarantee(self.eps_log, self.eps_tree, tree_log_base=self.tree_log_base,
                                    noise_multiplier=self.noise_multiplier)
        return PureDP(epsilon=scalar_if_uniform(self.eps_tree / self.noise_multiplier))

    def release(self, exact_sums: np.ndarray) -> np.ndarray:
        """The counters' outputs for the exact prefix sums ``exact_sums``: ``exact_sums +
        noise``, shape (n_rows, n_cols), reported to the release ledger as continual outputs."""
        released = exact_sums + self.noise
        if active_recorder() is None:
            return released
        if getattr(self, "_item_cost", None) is None:     # fixed at construction: once
            self._item_cost = np.reshape(self.guarantee.epsilon, (-1, 1))
        return report_release(f"{self.kind} counter", exact_sums, released,
                              cost=self._item_cost)

    def tree_noise_scale(self, k) -> np.ndarray:
        """Laplace scale of the tree nodes actually drawn, per row: ``k * m c / epsilon_tree``
        for the epoch-k tree (hybrid) or ``m * levels / epsilon_tree`` (binary, k ignored)."""
        if self.kind == "binary":
            return self.b_node.copy()
        return k * self._inv_eps_tree

    def _grow_tables(self, n_max):
        self._lowbit, self._log2, self._pow2 = bit_tables(n_max)
        width = self.node.shape[-1]
        keep = np.arange(width)[None, :] >= np.arange(width + 1)[:, None]
        self._keep = keep.astype(float)                  # keep[i, j] = 1 if j >= i

    def _draw(self, size: int) -> np.ndarray:
        """Lap(1) draws, taken from pre-drawn blocks (same distribution, fewer calls)."""
        if self._pos >= self._buf.shape[0] or self._buf.shape[1] != size:
            self._buf = self._rng.laplace(0.0, 1.0, size=(self._CHUNK, size))
            self._pos = 0
        out = self._buf[self._pos]
        self._pos += 1
        return out

    def _ensure(self, n_max: int) -> None:
        if self.kind == "binary" and n_max >= 1 << self.levels:
            raise ValueError(f"stream longer than 2**levels - 1 = {(1 << self.levels) - 1}")
        if n_max >= len(self._lowbit):
            need = int(floor_log2(n_max)) + 2
            if need > self.node.shape[-1]:
                self.node = np.ascontiguousarray(
                    np.pad(self.node, [(0, 0), (0, 0), (0, need - self.node.shape[-1])]))
            self._grow_tables(max(2 * n_max, 2 * len(self._lowbit)))

    def advance(self, rows: np.ndarray, cols: np.ndarray) -> None:
        """One more item in stream ``(rows[r], cols[r])`` for each r; updates ``noise``."""
        flat = rows * self.count.shape[1] + cols           # one index array: faster gathers
        count, node_all = self.count.reshape(-1), self.node.reshape(-1, self.node.shape[-1])
        n = count[flat] + 1
        count[flat] = n
        n_top = n.max()
        if n_top >= len(self._lowbit) or (self.kind == "binary" and n_top >= 1 << self.levels):
            self._ensure(int(n_top))
            node_all = self.node.reshape(-1, self.node.shape[-1])
        i = self._lowbit[n]
        node = node_all[flat] * self._keep[i]             # discard the nodes below level i
        draw = self._draw(len(flat))
        r = np.arange(len(flat))
        noise = self.noise.reshape(-1)
        if self.kind == "binary":
            node[r, i] = self.b_node[rows] * draw         # new p-sum node at level i
            noise[flat] = node.sum(1)
        else:
            pow2 = self._pow2[n]                          # new epoch: empty tree, and
            node[r, i] = np.where(pow2, 0.0, self._log2[n] * self._inv_eps_tree[rows] * draw)
            log_all = self.log_noise.reshape(-1)
            log = log_all[flat] + np.where(pow2, self.b_log[rows] * draw, 0.0)
            log_all[flat] = log                           # the log noise stays forever
            noise[flat] = log + node.sum(1)
        node_all[flat] = node

    def advance_all(self) -> None:
        """One more item in every stream, when all streams have the same count (DP-UCB)."""
        n = int(self.count[0, 0]) + 1
        if np.any(self.count != n - 1):
            raise ValueError("advance_all needs equal counts in every stream")
        self._ensure(n)
        self.count += 1
        i = int(self._lowbit[n])
        self.node[:, :, :i] = 0.0
        draw = self._draw(self.count.size).reshape(self.count.shape)
        if self.kind == "binary":
            self.node[:, :, i] = self.b_node[:, None] * draw
            self.noise = self.node.sum(-1)
        elif self._pow2[n]:
            self.node[:, :, i] = 0.0
            self.log_noise += self.b_log[:, None] * draw
            self.noise = self.log_noise.copy()
        else:
            self.node[:, :, i] = int(self._log2[n]) * self._inv_eps_tree[:, None] * draw
            self.noise = self.log_noise + self.node.sum(-1)
