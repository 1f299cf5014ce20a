"""Reward sources, batched over runs.

Bandit environments hand the simulator the reward of the pulled arm only; full-information
environments hand over the whole vector of the round. Means may have shape (K,) (one instance
for every run) or (n_runs, K) (a different instance per run, so several instances run in one
batch).

Full-information policies always receive **losses** in [0, 1]. An environment declared with
``kind="reward"`` is converted by the simulator (loss = 1 - reward), so the same policy can be
run on the reward-based examples of Hu, Huang, Mehta and Hegde (2021) and on the loss-based
ones of Wu and Wang (2025).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ._validation import check_choice, check_means, check_positive, check_table

__all__ = ["BernoulliBandit", "GaussianBandit", "BernoulliExperts", "FixedSequence"]


class _Stochastic:
    """Shared bookkeeping: means per run and the pseudo-regret gaps."""

    feedback = "bandit"

    def __init__(self, means):
        self.means = means

    @property
    def n_arms(self) -> int:
        return self.means.shape[-1]

    def means_for(self, n_runs: int) -> np.ndarray:
        """Means broadcast to shape (n_runs, K); rows must match when means is 2-D."""
        if self.means.ndim == 2 and self.means.shape[0] != n_runs:
            raise ValueError(
                f"n_runs must equal the number of rows of means ({self.means.shape[0]}), got {n_runs}")
        return np.broadcast_to(self.means, (n_runs, self.n_arms))

    def gaps_for(self, n_runs: int) -> np.ndarray:
        """Per-run gaps Delta_j = max_i mu_i - mu_j (best = highest mean), shape (n_runs, K)."""
        m = self.means_for(n_runs)
        return m.max(axis=1, keepdims=True) - m

    #: rounds of randomness drawn at once (one call per block instead of one per round)
    block = 2048

    def reset(self, n_runs: int, rng: np.random.Generator) -> None:
        self._rng = rng
        self._mu = np.ascontiguousarray(self.means_for(n_runs), dtype=float)
        self._mu_flat = self._mu.ravel()
        self._rows = np.arange(n_runs)
        self._base = self._rows * self.n_arms          # flat index of (run, arm 0)
        self._draws = None
        self._next = self.block

    def _draw(self) -> np.ndarray:
        """This round's row of pre-drawn randomness, shape (n_runs,)."""
        if self._next == self.block:
            self._draws = self._sample_block((self.block, len(self._rows)))
            self._next = 0
        row = self._draws[self._next]
        self._next += 1
        return row


class BernoulliBandit(_Stochastic):
    """K-armed Bernoulli bandit: arm j pays 1 with probability ``means[j]``.

    Parameters
    ----------
    means : array-like of shape (K,) or (n_runs, K)
        Success probabilities in [0, 1], K >= 2.

    Examples
    --------
    >>> env = BernoulliBandit([0.9, 0.6])
    >>> env.n_arms
    2
    """

    def __init__(self, means):
        super().__init__(check_means(means))

    def _sample_block(self, shape):
        return self._rng.random(shape)

    def pull(self, t: int, arms: np.ndarray) -> np.ndarray:
        """Rewards of the pulled arms in round ``t``, shape (n_runs,), values in {0, 1}."""
        return self.pull_flat(self._base + arms)

    def pull_flat(self, flat: np.ndarray) -> np.ndarray:
        """:meth:`pull` given flat indices ``run * K + arm`` (the simulator's fast path)."""
        return np.less(self._draw(), self._mu_flat[flat], out=np.empty(len(flat)))

    def __repr__(self) -> str:
        return f"BernoulliBandit(means={self.means.tolist()})"


class GaussianBandit(_Stochastic):
    """K-armed Gaussian bandit: arm j pays N(means[j], sigma^2).

    Rewards are unbounded, so algorithms whose privacy relies on rewards in [0, 1] lose their
    guarantee on this environment (their sensitivity argument fails); use it for non-private
    baselines and for sub-Gaussian experiments.
    """

    def __init__(self, means, sigma: float = 1.0):
        super().__init__(check_means(means, bounded=False))
        self.sigma = check_positive("sigma", sigma)

    def _sample_block(self, shape):
        return self._rng.standard_normal(shape)

    def pull(self, t: int, arms: np.ndarray) -> np.ndarray:
        """Rewards of the pulled arms in round ``t``, shape (n_runs,)."""
        return self.pull_flat(self._base + arms)

    def pull_flat(self, flat: np.ndarray) -> np.ndarray:
        return self._mu_flat[flat] + self.sigma * self._draw()

    def __repr__(self) -> str:
        return f"GaussianBandit(means={self.means.tolist()}, sigma={self.sigma})"


class BernoulliExperts(_Stochastic):
    """Stochastic full-information source: every round a vector of independent Bernoulli
    coordinates.

    Parameters
    ----------
    means : array-like of shape (K,) or (n_runs, K)
        Means of the coordinates, in [0, 1].
    kind : {"loss", "reward"}
        Whether the coordinates are losses (lower is better, Wu and Wang) or rewards (higher
        is better, Hu, Huang, Mehta and Hegde). Policies always receive losses.
    """

    feedback = "full"

    def __init__(self, means, kind: str = "loss"):
        super().__init__(check_means(means))
        self.kind = check_choice("kind", kind, ("loss", "reward"))

    def loss_means_for(self, n_runs: int) -> np.ndarray:
        m = self.means_for(n_runs)
        return m if self.kind == "loss" else 1.0 - m

    def gaps_for(self, n_runs: int) -> np.ndarray:
        lm = self.loss_means_for(n_runs)
        return lm - lm.min(axis=1, keepdims=True)

    def losses(self, t: int) -> np.ndarray:
        """Loss vectors of round ``t``, shape (n_runs, K)."""
        draw = self._rng.random(self._mu.shape) < self._mu
        return (~draw if self.kind == "reward" else draw).astype(float)

    def pull(self, t: int, arms: np.ndarray) -> np.ndarray:
        raise TypeError("BernoulliExperts gives full-information feedback: use losses(t)")

    def __repr__(self) -> str:
        return f"BernoulliExperts(means={self.means.tolist()}, kind={self.kind!r})"


class FixedSequence:
    """A deterministic (oblivious) sequence of loss vectors, the same in every run.

    Regret against such a sequence is measured against the best fixed action in hindsight
    over the rounds played so far.

    Parameters
    ----------
    losses : array-like of shape (T, K)
        Loss vectors in [0, 1]; the simulator's horizon may not exceed T.
    """

    feedback = "full"

    def __init__(self, losses):
        self.sequence = check_table("losses", losses)

    @property
    def n_arms(self) -> int:
        return self.sequence.shape[1]

    def reset(self, n_runs: int, rng: Optional[np.random.Generator] = None) -> None:
        self._n_runs = n_runs

    def losses(self, t: int) -> np.ndarray:
        return np.broadcast_to(self.sequence[t - 1], (self._n_runs, self.n_arms))

    def __repr__(self) -> str:
        return f"FixedSequence(T={self.sequence.shape[0]}, K={self.n_arms})"
