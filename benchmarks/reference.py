"""Plain per-run Python loops: the reference the batched simulator is timed against.

These are the straightforward implementations one writes first (one run at a time, one round
at a time, numpy on length-K vectors), in the style of common bandit libraries. They implement
the same algorithms as dpolearn (same formulas, same initialisation, same tie-breaking), so the
benchmark compares equal work. They are not used by the package.
"""
from __future__ import annotations

import math

import numpy as np


def ucb1_run(means, horizon, rng):
    """One run of UCB1; returns the final pseudo-regret."""
    means = np.asarray(means, dtype=float)
    k = len(means)
    gaps = means.max() - means
    sums = np.zeros(k)
    counts = np.zeros(k)
    regret = 0.0
    for t in range(1, horizon + 1):
        if t <= k:
            arm = t - 1
        else:
            arm = int(np.argmax(sums / counts + np.sqrt(2 * math.log(t) / counts)))
        reward = float(rng.random() < means[arm])
        sums[arm] += reward
        counts[arm] += 1
        regret += gaps[arm]
    return regret


def lazy_dp_ts_run(means, horizon, rng, epsilon):
    """One run of Lazy-DP-TS (natural log): batches of 1, 2, 4, ... pulls, one Laplace draw each."""
    means = np.asarray(means, dtype=float)
    k = len(means)
    gaps = means.max() - means
    mu_tilde = np.zeros(k)
    batch = np.ones(k)                      # O_j: size of the last processed batch
    pending_sum = np.zeros(k)
    pending_n = np.zeros(k)
    target = np.ones(k)                     # size of the batch being collected
    regret = 0.0
    for t in range(1, horizon + 1):
        if t <= k:
            arm = t - 1
        else:
            shift = 3 * math.log(t) / (epsilon * batch)
            mu_bar = np.clip(mu_tilde + shift, 0.0, 1.0)
            theta = rng.beta(mu_bar * batch + 1, (1 - mu_bar) * batch + 1)
            arm = int(np.argmax(theta))
        reward = float(rng.random() < means[arm])
        regret += gaps[arm]
        pending_sum[arm] += reward
        pending_n[arm] += 1
        if pending_n[arm] == target[arm]:
            mu_tilde[arm] = (pending_sum[arm] + rng.laplace(0.0, 1.0 / epsilon)) / target[arm]
            batch[arm] = target[arm]
            target[arm] *= 2
            pending_sum[arm] = 0.0
            pending_n[arm] = 0
    return regret


class _Hybrid:
    """Incremental hybrid counter (Chan, Shi and Song, Algorithm 4), one stream."""

    def __init__(self, epsilon_log, epsilon_tree, rng):
        self.eps_l, self.eps_b, self.rng = epsilon_log, epsilon_tree, rng
        self.n = 0
        self.log_sum = 0.0          # logarithmic mechanism: exact sum ...
        self.log_noise = 0.0        # ... plus one fresh Laplace draw per power of two
        self.last_log = 0.0
        self.tree = None

    def add(self, x):
        self.n += 1
        self.log_sum += x
        if self.n & (self.n - 1) == 0:               # power of two: logarithmic release
            self.log_noise += self.rng.laplace(0.0, 1.0 / self.eps_l)
            self.last_log = self.log_sum + self.log_noise
            k = self.n.bit_length() - 1
            self.tree = {"alpha": [0.0] * max(k, 1), "noisy": [0.0] * max(k, 1), "tau": 0,
                         "scale": max(k, 1) / self.eps_b}
            self.out = self.last_log
        else:
            tr = self.tree
            tr["tau"] += 1
            i = (tr["tau"] & -tr["tau"]).bit_length() - 1
            tr["alpha"][i] = sum(tr["alpha"][:i]) + x
            for j in range(i):
                tr["alpha"][j] = tr["noisy"][j] = 0.0
            tr["noisy"][i] = tr["alpha"][i] + self.rng.laplace(0.0, tr["scale"])
            self.out = self.last_log + sum(tr["noisy"][j] for j in range(len(tr["noisy"]))
                                           if tr["tau"] >> j & 1)



def dp_ucb_run(means, horizon, rng, epsilon, split="paper"):
    """One run of DP-UCB (Tossou and Dimitrakakis 2016, Algorithm 2): hybrid counters fed zeros
    for unplayed arms, UCB1 index on the private means."""
    means = np.asarray(means, dtype=float)
    k = len(means)
    gaps = means.max() - means
    half = epsilon if split == "paper" else epsilon / 2
    counters = [_Hybrid(half, half, rng) for _ in range(k)]
    counts = np.zeros(k)
    regret = 0.0
    for t in range(1, horizon + 1):
        if t <= k:
            arm = t - 1
        else:
            noisy = np.array([c.out for c in counters])
            arm = int(np.argmax(noisy / counts + np.sqrt(2 * math.log(t) / counts)))
        reward = float(rng.random() < means[arm])
        regret += gaps[arm]
        for b in range(k):
            counters[b].add(reward if b == arm else 0.0)
        counts[arm] += 1
    return regret
