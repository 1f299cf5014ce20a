"""Reward sources, batched over runs.

Bandit environments hand the simulator the reward of the pulled arm only; full-information
environments hand over the whole vector of the round. Means may have shape (K,) (one instance
for every run) or (n_runs, K) (a different instance per run, so several instances run in one
batch).

Full-information policies always receive **losses** in [0, 1]. An environment declared with
``kind="reward"`` is converted (loss = 1 - reward), so the same policy can be run on the
reward-based examples of Hu, Huang, Mehta and Hegde (2021) and on the loss-based ones of Wu and
Wang (2025).

What an environment declares
----------------------------
The simulator and the policies' block paths never test an environment's type; they read what
it declares:

``feedback``
    ``"bandit"`` (``pull_flat``) or ``"full"`` (``losses``).
``n_arms``
    K.
``reward_range``
    ``(low, high)``, the range of the values handed to the policy (rewards, or losses for full
    information). The privacy guarantees of the book's algorithms assume ``[0, 1]``.
``max_horizon``
    The longest run the environment can serve (a finite table), or ``None``.
``regret_kind``
    ``"pseudo"``: regret is the sum of the gaps of the chosen arms (``gaps_for``);
    ``"hindsight"``: the learner's cumulative loss minus that of the best fixed action so far.
``has_block_sums``
    Whether the environment offers exact block draws: :meth:`BernoulliBandit.block_sums`
    (bandit: the sum of the next ``n`` rewards of one arm in one run) or
    :meth:`BernoulliExperts.loss_block_sums` (full information: the sums of the next ``n`` loss
    vectors). Policies whose decisions are fixed over a block use them to advance whole blocks.
"""
from __future__ import annotations

import numpy as np

from ._validation import (
    check_bool,
    check_choice,
    check_means,
    check_positive,
    check_positive_int,
    check_probability,
    check_table,
    show,
)

__all__ = [
    "BernoulliBandit",
    "BernoulliExperts",
    "FixedSequence",
    "GaussianBandit",
    "ReplayBandit",
    "TwoPointExperts",
]

UNIT_RANGE = (0.0, 1.0)


def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {show(rng)}")
    return rng


class _Stochastic:
    """Shared bookkeeping: means per run and the pseudo-regret gaps."""

    feedback = "bandit"
    reward_range = UNIT_RANGE
    max_horizon: int | None = None
    regret_kind = "pseudo"
    has_block_sums = False

    def __init__(self, means):
        self.means = means

    @property
    def n_arms(self) -> int:
        return self.means.shape[-1]

    def means_for(self, n_runs: int) -> np.ndarray:
        """Means broadcast to shape (n_runs, K); rows must match when means is 2-D."""
        n_runs = check_positive_int("n_runs", n_runs)
        if self.means.ndim == 2 and self.means.shape[0] != n_runs:
            raise ValueError(f"n_runs must equal the number of rows of means "
                             f"({self.means.shape[0]}), got {n_runs}")
        return np.broadcast_to(self.means, (n_runs, self.n_arms))

    def gaps_for(self, n_runs: int) -> np.ndarray:
        """Per-run gaps Delta_j = max_i mu_i - mu_j (best = highest mean), shape (n_runs, K)."""
        m = self.means_for(n_runs)
        return m.max(axis=1, keepdims=True) - m

    #: rounds of randomness drawn at once (one call per block instead of one per round)
    block = 2048

    def reset(self, n_runs: int, rng: np.random.Generator) -> None:
        """Start ``n_runs`` runs drawing from ``rng``."""
        self._rng = _check_rng(rng)
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

    def pull(self, t: int, arms: np.ndarray) -> np.ndarray:
        """Rewards of the pulled arms in round ``t``, shape (n_runs,)."""
        return self.pull_flat(self._base + np.asarray(arms))


class BernoulliBandit(_Stochastic):
    """K-armed Bernoulli bandit: arm j pays 1 with probability ``means[j]``.

    Parameters
    ----------
    means : array-like of shape (K,) or (n_runs, K)
        Success probabilities in [0, 1], K >= 2.

    Examples
    --------
    >>> env = BernoulliBandit([0.9, 0.6])
    >>> env.n_arms, env.has_block_sums
    (2, True)
    """

    has_block_sums = True

    def __init__(self, means):
        super().__init__(check_means(means))

    def _sample_block(self, shape):
        return self._rng.random(shape)

    def pull_flat(self, flat: np.ndarray) -> np.ndarray:
        """Rewards for flat indices ``run * K + arm`` of the next round, values in {0, 1}."""
        return np.less(self._draw(), self._mu_flat[flat], out=np.empty(len(flat)))

    def block_sums(self, rows, arms, n) -> np.ndarray:
        """Sum of the next ``n`` rewards of arm ``arms[i]`` in run ``rows[i]``, exact in law.

        ``rows``, ``arms`` and ``n`` broadcast together; the result has their broadcast shape.
        The rewards of an arm are i.i.d. Bernoulli(mu), so a sum of ``n`` of them is one
        Binomial(n, mu) draw; a single reward (``n`` the scalar 1) is drawn as a uniform
        compared with mu.
        """
        p = self._mu[rows, arms]
        if np.ndim(n) == 0 and n == 1:
            return (self._rng.random(np.shape(p)) < p).astype(float)
        return self._rng.binomial(n, p)

    def __repr__(self) -> str:
        return f"BernoulliBandit(means={self.means.tolist()})"


class GaussianBandit(_Stochastic):
    """K-armed Gaussian bandit: arm j pays N(means[j], sigma^2).

    Rewards are unbounded (``reward_range`` is the whole real line), so algorithms whose privacy
    relies on rewards in [0, 1] lose their guarantee on this environment (their sensitivity
    argument fails): :func:`~dpolearn.simulate` warns and records no guarantee. Use it for
    non-private baselines and for sub-Gaussian experiments.
    """

    reward_range = (-np.inf, np.inf)

    def __init__(self, means, sigma: float = 1.0):
        super().__init__(check_means(means, bounded=False))
        sigma = check_positive("sigma", sigma)
        if np.ndim(sigma):
            raise TypeError(f"sigma must be a real number, got {show(sigma)}")
        self.sigma = sigma

    def _sample_block(self, shape):
        return self._rng.standard_normal(shape)

    def pull_flat(self, flat: np.ndarray) -> np.ndarray:
        """Rewards for flat indices ``run * K + arm`` of the next round."""
        return self._mu_flat[flat] + self.sigma * self._draw()

    def __repr__(self) -> str:
        return f"GaussianBandit(means={self.means.tolist()}, sigma={self.sigma})"


class _FullInformation(_Stochastic):
    """Stochastic full-information sources: product laws, independent over rounds."""

    feedback = "full"
    has_block_sums = True

    def loss_means_for(self, n_runs: int) -> np.ndarray:
        """Mean loss of every action, shape (n_runs, K)."""
        raise NotImplementedError

    def gaps_for(self, n_runs: int) -> np.ndarray:
        """Per-run gaps w.r.t. the smallest mean loss, shape (n_runs, K)."""
        lm = self.loss_means_for(n_runs)
        return lm - lm.min(axis=1, keepdims=True)

    def reset(self, n_runs: int, rng: np.random.Generator) -> None:
        super().reset(n_runs, rng)
        self._loss_mu = np.ascontiguousarray(self.loss_means_for(n_runs))

    def pull(self, t: int, arms: np.ndarray) -> np.ndarray:
        raise TypeError(f"{type(self).__name__} gives full-information feedback: use losses(t)")

    pull_flat = pull


class BernoulliExperts(_FullInformation):
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

    def __init__(self, means, kind: str = "loss"):
        super().__init__(check_means(means))
        if not isinstance(kind, str):
            raise TypeError(f"kind must be 'loss' or 'reward', got {show(kind)}")
        self.kind = check_choice("kind", kind, ("loss", "reward"))

    def loss_means_for(self, n_runs: int) -> np.ndarray:
        m = self.means_for(n_runs)
        return m if self.kind == "loss" else 1.0 - m

    def losses(self, t: int) -> np.ndarray:
        """Loss vectors of round ``t``, shape (n_runs, K)."""
        draw = self._rng.random(self._mu.shape) < self._mu
        return (~draw if self.kind == "reward" else draw).astype(float)

    def loss_block_sums(self, n, resampled: bool = False) -> np.ndarray:
        """Sums of the next ``n`` loss vectors, shape (n_runs, K), exact in law.

        Each coordinate is i.i.d. Bernoulli over rounds, so its sum is Binomial(n, mean loss).
        ``resampled`` (every loss replaced by a Bernoulli coin of that mean, as RNM-FTNL with
        resampling does) changes nothing in law for 0/1 losses.
        """
        check_bool("resampled", resampled)
        return self._rng.binomial(n, self._loss_mu).astype(float)

    def __repr__(self) -> str:
        return f"BernoulliExperts(means={self.means.tolist()}, kind={self.kind!r})"


class TwoPointExperts(_FullInformation):
    """Full-information losses with two values: loss j is ``high[j]`` with probability
    ``p_high[j]``, else ``low[j]``, independently over actions and rounds.

    Bernoulli losses are ``low = 0, high = 1`` (:meth:`bernoulli`); deterministic losses are
    ``low = high`` (:meth:`deterministic`). This is the setting of Wu and Wang (2025, Sec. 4)
    where resampling the losses (RNM-FTNL with B = 1) matters.

    Parameters
    ----------
    low, high : array-like of shape (K,) or (n_runs, K)
        The two loss values, in [0, 1], ``high >= low``.
    p_high : array-like broadcastable with them
        Probability of the high value, in [0, 1].

    Examples
    --------
    >>> TwoPointExperts.bernoulli([0.2, 0.5]).means.tolist()
    [0.2, 0.5]
    """

    def __init__(self, low, high, p_high):
        low = check_means(low, name="low")
        high = check_means(high, name="high")
        p = check_probability("p_high", p_high)
        try:
            shape = np.broadcast_shapes(low.shape, high.shape, np.shape(p))
        except ValueError:
            raise ValueError(f"low, high and p_high must broadcast together, got shapes "
                             f"{low.shape}, {high.shape} and {np.shape(p)}") from None
        if np.any(high < low):
            raise ValueError(f"high must be >= low, got high={high.tolist()!r}, "
                             f"low={low.tolist()!r}")
        self.low = np.broadcast_to(low, shape)
        self.high = np.broadcast_to(high, shape)
        self.p_high = np.broadcast_to(np.asarray(p, dtype=float), shape)
        super().__init__(self.low + (self.high - self.low) * self.p_high)

    @classmethod
    def bernoulli(cls, means) -> TwoPointExperts:
        """Bernoulli losses of the given means."""
        m = check_means(means)
        return cls(np.zeros_like(m), np.ones_like(m), m)

    @classmethod
    def deterministic(cls, means) -> TwoPointExperts:
        """The same loss vector ``means`` in every round."""
        m = check_means(means)
        return cls(m, m, np.zeros_like(m))

    def loss_means_for(self, n_runs: int) -> np.ndarray:
        return self.means_for(n_runs)

    def reset(self, n_runs: int, rng: np.random.Generator) -> None:
        super().reset(n_runs, rng)
        shape = (n_runs, self.n_arms)
        self._low = np.broadcast_to(self.low, shape)
        self._spread = np.broadcast_to(self.high - self.low, shape)
        self._p = np.broadcast_to(self.p_high, shape)

    def losses(self, t: int) -> np.ndarray:
        """Loss vectors of round ``t``, shape (n_runs, K)."""
        return self._low + self._spread * (self._rng.random(self._p.shape) < self._p)

    def loss_block_sums(self, n, resampled: bool = False) -> np.ndarray:
        """Sums of the next ``n`` loss vectors, shape (n_runs, K), exact in law.

        ``n low + (high - low) Binomial(n, p_high)``; with ``resampled=True``, the sums of the
        Bernoulli resamplings of the losses (each loss l replaced by a Bernoulli(l) coin), which
        are Binomial(n, mean loss) since the rounds are independent.
        """
        if check_bool("resampled", resampled):
            return self._rng.binomial(n, np.broadcast_to(self.means, self._p.shape)).astype(float)
        return n * self._low + self._spread * self._rng.binomial(n, self._p)

    def __repr__(self) -> str:
        return (f"TwoPointExperts(low={self.low.tolist()}, high={self.high.tolist()}, "
                f"p_high={self.p_high.tolist()})")


class FixedSequence:
    """A deterministic (oblivious) sequence of loss vectors, the same in every run.

    Regret against such a sequence is measured against the best fixed action in hindsight
    over the rounds played so far (``regret_kind = "hindsight"``).

    Parameters
    ----------
    losses : array-like of shape (T, K)
        Loss vectors in [0, 1]; the simulator's horizon may not exceed T.
    """

    feedback = "full"
    reward_range = UNIT_RANGE
    regret_kind = "hindsight"
    has_block_sums = False

    def __init__(self, losses):
        self.sequence = check_table("losses", losses)

    @property
    def n_arms(self) -> int:
        return self.sequence.shape[1]

    @property
    def max_horizon(self) -> int:
        return self.sequence.shape[0]

    def reset(self, n_runs: int, rng: np.random.Generator | None = None) -> None:
        self._n_runs = check_positive_int("n_runs", n_runs)

    def losses(self, t: int) -> np.ndarray:
        """The loss vector of round ``t``, broadcast to shape (n_runs, K)."""
        return np.broadcast_to(self.sequence[t - 1], (self._n_runs, self.n_arms))

    def __repr__(self) -> str:
        return f"FixedSequence(T={self.sequence.shape[0]}, K={self.n_arms})"


class ReplayBandit:
    """A scripted bandit: round t pays ``rewards[t-1, arm]`` in every run.

    Replaying one fixed table makes the only randomness the policy's own, which is what a
    privacy audit on neighbouring reward streams needs. Regret against it is measured with the
    table's column means.

    Parameters
    ----------
    rewards : array-like of shape (T, K)
        Rewards in [0, 1]; K >= 2. The simulator's horizon may not exceed T.
    """

    feedback = "bandit"
    reward_range = UNIT_RANGE
    regret_kind = "pseudo"
    has_block_sums = False

    def __init__(self, rewards):
        self.table = check_table("rewards", rewards)

    @property
    def n_arms(self) -> int:
        return self.table.shape[1]

    @property
    def max_horizon(self) -> int:
        return self.table.shape[0]

    def gaps_for(self, n_runs: int) -> np.ndarray:
        """Gaps of the table's column means, broadcast to shape (n_runs, K)."""
        m = self.table.mean(axis=0)
        return np.broadcast_to(m.max() - m, (n_runs, self.n_arms))

    def reset(self, n_runs: int, rng=None) -> None:
        self._n_runs, self._t = check_positive_int("n_runs", n_runs), 0

    def pull(self, t: int, arms: np.ndarray) -> np.ndarray:
        """Rewards of the pulled arms in round ``t``."""
        self._t = t
        return self.table[t - 1, np.asarray(arms)]

    def pull_flat(self, flat: np.ndarray) -> np.ndarray:
        """Rewards for flat indices ``run * K + arm`` of the next round (the simulator's path)."""
        self._t += 1
        if self._t > self.table.shape[0]:
            raise ValueError(f"horizon must be <= the length of the reward table "
                             f"({self.table.shape[0]})")
        return self.table[self._t - 1, np.asarray(flat) % self.n_arms]

    def __repr__(self) -> str:
        return f"ReplayBandit(T={self.table.shape[0]}, K={self.n_arms})"
