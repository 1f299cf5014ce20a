"""The batched simulator and its :class:`Result`.

``simulate`` plays ``n_runs`` independent runs of a policy against an environment for
``horizon`` rounds, all runs advanced together by one Python step per round, and records the
pseudo-regret at checkpoints.
"""
from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Sequence, Union

import numpy as np

from ._validation import check_positive_int
from .envs import FixedSequence
from .policy import Policy

__all__ = ["simulate", "Result", "make_checkpoints"]


def make_checkpoints(horizon: int, spec: Union[str, int, Sequence[int], None] = "log",
                     n_points: int = 100) -> np.ndarray:
    """Rounds at which regret is recorded, always ending at ``horizon``.

    ``"log"``: about ``n_points`` log-spaced rounds; ``"linear"``: evenly spaced; an int: that
    many log-spaced points; a sequence: those rounds (each in 1..horizon).

    >>> make_checkpoints(10, "linear", n_points=5).tolist()
    [2, 4, 6, 8, 10]
    """
    horizon = check_positive_int("horizon", horizon)
    if spec is None:
        spec = "log"
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        n_points, spec = check_positive_int("checkpoints", spec), "log"
    if isinstance(spec, str):
        if spec == "log":
            pts = np.geomspace(1, horizon, num=min(n_points, horizon))
        elif spec == "linear":
            pts = np.linspace(horizon / n_points, horizon, num=min(n_points, horizon))
        else:
            raise ValueError(f"checkpoints must be 'log', 'linear', an int or a sequence, got {spec!r}")
        pts = np.unique(np.clip(np.round(pts).astype(np.int64), 1, horizon))
    else:
        pts = np.unique(np.asarray(spec, dtype=np.int64))
        if pts.size == 0 or pts[0] < 1 or pts[-1] > horizon:
            raise ValueError(f"checkpoints must lie in 1..{horizon}, got {spec!r}")
    if pts[-1] != horizon:
        pts = np.append(pts, horizon)
    return pts


@dataclass
class Result:
    """What one call of :func:`simulate` produced.

    Attributes
    ----------
    regret : ndarray of shape (n_runs, n_checkpoints)
        Pseudo-regret (sum of the gaps of the pulled arms) at each checkpoint; against a
        :class:`~dpolearn.envs.FixedSequence`, regret against the best fixed action so far.
    checkpoints : ndarray of shape (n_checkpoints,)
        The rounds (1-based) at which ``regret`` was recorded; the last one is the horizon.
    pulls : ndarray of shape (n_runs, K)
        How often each arm was chosen over the whole horizon.
    label : str
        The policy's display name.
    """

    regret: np.ndarray
    checkpoints: np.ndarray
    pulls: np.ndarray
    label: str
    horizon: int
    n_runs: int
    seed: Any
    params: Dict[str, Any] = field(default_factory=dict)
    guarantee: Any = None
    wall_time: float = 0.0

    def mean(self) -> np.ndarray:
        """Mean regret over runs at each checkpoint, shape (n_checkpoints,)."""
        return self.regret.mean(axis=0)

    def se(self) -> np.ndarray:
        """Standard error of the mean regret at each checkpoint (0 for a single run)."""
        if self.n_runs < 2:
            return np.zeros(self.regret.shape[1])
        return self.regret.std(axis=0, ddof=1) / np.sqrt(self.n_runs)

    def quantile(self, q) -> np.ndarray:
        """Quantile(s) of the regret over runs at each checkpoint."""
        return np.quantile(self.regret, q, axis=0)

    @property
    def final_mean(self) -> float:
        return float(self.mean()[-1])

    @property
    def final_se(self) -> float:
        return float(self.se()[-1])

    def select_runs(self, rows) -> "Result":
        """The sub-result made of some runs (e.g. one cell of a batched sweep).

        Per-run parameters (arrays with one entry per run, in ``params`` and in the guarantee
        record) are sliced too, and collapse to a scalar when the selected runs share a value.
        """
        rows = np.asarray(rows)
        n = int(rows.sum()) if rows.dtype == bool else len(rows)
        params = {k: _slice_per_run(v, rows, self.n_runs) for k, v in self.params.items()}
        guarantee = self.guarantee
        if dataclasses.is_dataclass(guarantee):
            fields = {f.name: _slice_per_run(getattr(guarantee, f.name), rows, self.n_runs)
                      for f in dataclasses.fields(guarantee)}
            guarantee = type(guarantee)(**fields)
        return Result(self.regret[rows], self.checkpoints, self.pulls[rows], self.label,
                      self.horizon, n, self.seed, params, guarantee, self.wall_time)

    def split(self, n_groups: int) -> list:
        """Cut a batched sweep into ``n_groups`` consecutive equal blocks of runs.

        A sweep over G parameter values with ``n`` runs each is simulated as one batch of
        ``G * n`` runs whose parameter arrays repeat each value ``n`` times
        (``np.repeat(values, n)``); this returns one Result per value.
        """
        if self.n_runs % n_groups:
            raise ValueError(f"n_groups must divide n_runs ({self.n_runs}), got {n_groups}")
        size = self.n_runs // n_groups
        return [self.select_runs(np.arange(g * size, (g + 1) * size)) for g in range(n_groups)]

    def summary(self) -> Dict[str, Any]:
        """Final regret mean and standard error with the identifying fields."""
        return {"algorithm": self.label, "horizon": self.horizon, "n_runs": self.n_runs,
                "final_regret_mean": self.final_mean, "final_regret_se": self.final_se}


def _slice_per_run(value, rows, n_runs):
    """``value[rows]`` for per-run arrays (first axis n_runs), scalar if all equal; else value."""
    if isinstance(value, np.ndarray) and value.ndim >= 1 and value.shape[0] == n_runs:
        part = value[rows]
        if part.ndim == 1 and len(part) and np.all(part == part[0]):
            return part[0].item()
        return part
    return value


def _progress_default(horizon: int, n_runs: int) -> bool:
    flag = os.environ.get("DPOLEARN_PROGRESS", "auto").lower()
    if flag in ("0", "false", "no", "off"):
        return False
    if flag in ("1", "true", "yes", "on"):
        return True
    return horizon * n_runs >= 2_000_000


def simulate(policy: Policy, env, horizon: int, n_runs: int = 1, seed: Any = 0, *,
             checkpoints: Union[str, int, Sequence[int], None] = "log",
             progress: Optional[bool] = None) -> Result:
    """Run ``n_runs`` independent runs of ``policy`` on ``env`` for ``horizon`` rounds.

    Parameters
    ----------
    policy : Policy
        A bandit or full-information policy (its ``feedback`` must match the environment).
    env : environment from :mod:`dpolearn.envs`
    horizon : int
        Number of rounds T >= 1.
    n_runs : int
        Number of independent runs >= 1, advanced together.
    seed : int or SeedSequence
        The same seed gives bit-identical results. The environment and the policy draw from
        two independent child streams of ``SeedSequence(seed)``.
    checkpoints : "log", "linear", int or sequence of ints
        When to record the regret (see :func:`make_checkpoints`).
    progress : bool, optional
        Show a ``tqdm`` progress bar. Default: on for long runs, unless the environment
        variable ``DPOLEARN_PROGRESS=0`` is set.

    Returns
    -------
    Result

    Examples
    --------
    >>> from dpolearn import BernoulliBandit, UCB1
    >>> res = simulate(UCB1(), BernoulliBandit([0.9, 0.6]), horizon=1000, n_runs=4, seed=1)
    >>> res.regret.shape[0], int(res.checkpoints[-1])
    (4, 1000)
    """
    horizon = check_positive_int("horizon", horizon)
    n_runs = check_positive_int("n_runs", n_runs)
    if not isinstance(policy, Policy):
        raise TypeError(f"policy must be a dpolearn Policy, got {policy!r}")
    if policy.feedback != env.feedback:
        raise ValueError(f"policy {policy.label!r} needs {policy.feedback!r} feedback, "
                         f"but env gives {env.feedback!r} feedback")
    if isinstance(env, FixedSequence) and horizon > env.sequence.shape[0]:
        raise ValueError(f"horizon must be <= the length of the loss sequence "
                         f"({env.sequence.shape[0]}), got {horizon}")
    if isinstance(seed, (bool, float)) or (isinstance(seed, int) and seed < 0):
        raise ValueError(f"seed must be a non-negative int or a SeedSequence, got {seed!r}")
    ck = make_checkpoints(horizon, checkpoints)
    show = _progress_default(horizon, n_runs) if progress is None else bool(progress)

    if isinstance(seed, np.random.SeedSequence):
        # spawn() advances the caller's SeedSequence; work on a copy so the same seed object
        # always gives the same results
        seq = np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key,
                                     pool_size=seed.pool_size)
    else:
        seq = np.random.SeedSequence(seed)
    env_seq, policy_seq = seq.spawn(2)
    env_rng = np.random.default_rng(env_seq)
    policy_rng = np.random.default_rng(policy_seq)
    n_arms = env.n_arms
    env.reset(n_runs, env_rng)
    policy.reset(n_runs, n_arms, policy_rng)

    start = time.perf_counter()
    fast = getattr(policy, "simulate_fast", None)
    if fast is not None and not isinstance(env, FixedSequence):
        regret, pulls = fast(env, horizon, ck, n_runs, show)
    elif env.feedback == "bandit":
        regret, pulls = _loop_bandit(policy, env, horizon, ck, n_runs, show)
    else:
        regret, pulls = _loop_full(policy, env, horizon, ck, n_runs, show)
    wall = time.perf_counter() - start
    return Result(regret=regret, checkpoints=ck, pulls=pulls, label=policy.label,
                  horizon=horizon, n_runs=n_runs, seed=seed, params=policy.params(),
                  guarantee=policy.guarantee, wall_time=wall)


def _progress_bar(show: bool, horizon: int, label: str):
    if not show:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=horizon, desc=label, unit="round", unit_scale=True, leave=False,
                mininterval=0.5)


def _loop_bandit(policy, env, horizon, ck, n_runs, show):
    n_arms = env.n_arms
    base = np.arange(n_runs) * n_arms                  # flat index of (run, arm 0)
    pulls = np.zeros(n_runs * n_arms, dtype=np.int64)  # flat (n_runs, n_arms) pull counts
    gaps = np.ascontiguousarray(env.gaps_for(n_runs))
    regret = np.empty((n_runs, len(ck)))
    next_ck = 0
    bar = _progress_bar(show, horizon, policy.label)
    for t in range(1, horizon + 1):
        arms = policy.select(t)
        flat = base + arms
        pulls[flat] += 1
        policy.update(t, arms, env.pull_flat(flat))
        if t == ck[next_ck]:
            # pseudo-regret = sum_j Delta_j n_j(t): read off the pull counts at checkpoints
            regret[:, next_ck] = (pulls.reshape(n_runs, n_arms) * gaps).sum(axis=1)
            next_ck += 1
        if bar is not None and t % 4096 == 0:
            bar.update(4096)
    if bar is not None:
        bar.close()
    return regret, pulls.reshape(n_runs, n_arms)


def _loop_full(policy, env, horizon, ck, n_runs, show):
    rows = np.arange(n_runs)
    fixed = isinstance(env, FixedSequence)
    gaps = None if fixed else np.ascontiguousarray(env.gaps_for(n_runs))
    pulls = np.zeros((n_runs, env.n_arms), dtype=np.int64)
    regret = np.empty((n_runs, len(ck)))
    running = np.zeros(n_runs)           # pseudo-regret, or the learner's cumulative loss
    cum_losses = np.zeros(env.n_arms)    # FixedSequence only: each action's cumulative loss
    next_ck = 0
    bar = _progress_bar(show, horizon, policy.label)
    for t in range(1, horizon + 1):
        arms = policy.select(t)
        losses = env.losses(t)
        if fixed:
            running += losses[rows, arms]
            cum_losses += losses[0]
        else:
            running += gaps[rows, arms]
        pulls[rows, arms] += 1
        policy.update(t, arms, losses)
        if t == ck[next_ck]:
            regret[:, next_ck] = running - cum_losses.min() if fixed else running
            next_ck += 1
        if bar is not None and t % 4096 == 0:
            bar.update(4096)
    if bar is not None:
        bar.close()
    return regret, pulls
