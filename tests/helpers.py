"""Helpers shared by several test modules (imported as ``from helpers import ...``)."""
from __future__ import annotations

import numpy as np


def drive(policy, means, horizon, n_runs, seed=0, reward_seed=None):
    """Play ``horizon`` rounds by hand on Bernoulli arms; returns the chosen arms (T, n_runs).

    The policy's generator is seeded with ``seed``, the rewards' with ``reward_seed``
    (default ``seed + 1``).
    """
    means = np.broadcast_to(np.asarray(means, dtype=float), (n_runs, len(means)))
    policy.reset(n_runs, means.shape[1], np.random.default_rng(seed))
    rewards = np.random.default_rng(seed + 1 if reward_seed is None else reward_seed)
    rows = np.arange(n_runs)
    chosen = []
    for t in range(1, horizon + 1):
        arms = policy.select(t)
        chosen.append(arms)
        policy.update(t, arms, (rewards.random(n_runs) < means[rows, arms]).astype(float))
    return np.array(chosen)
