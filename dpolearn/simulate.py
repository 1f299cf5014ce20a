"""The batched simulator and its :class:`Result`.

``simulate`` plays ``n_runs`` independent runs of a policy against an environment for
``horizon`` rounds, all runs advanced together by one Python step per round, and records the
pseudo-regret at checkpoints. A :class:`BlockPolicy` (decisions fixed over blocks of rounds) is
played a whole block at a time by :func:`play_blocks` where the environment offers exact block
draws; that loop and its :class:`Block` live in the private module ``dpolearn._blocks`` and are
public here.
"""
from __future__ import annotations

import dataclasses
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._blocks import UNTIL_HORIZON, Block, BlockPolicy, play_blocks
from ._validation import (
    as_seed_sequence,
    check_bool,
    check_choice,
    check_int_array,
    check_positive_int,
    progress_from_env,
    show,
)
from .accounting import NotPrivate
from .policy import Policy, PrivacyAssumptionWarning

__all__ = ["UNTIL_HORIZON", "Block", "BlockPolicy", "Result", "make_checkpoints", "play_blocks",
           "simulate"]


def make_checkpoints(horizon: int, points: str | int | Sequence[int] | None = "log",
                     n_points: int = 100) -> np.ndarray:
    """Rounds at which regret is recorded, always ending at ``horizon``.

    ``"log"``: about ``n_points`` log-spaced rounds; ``"linear"``: evenly spaced; an int: that
    many log-spaced points; a sequence: those rounds (each in 1..horizon).

    >>> make_checkpoints(10, "linear", n_points=5).tolist()
    [2, 4, 6, 8, 10]
    """
    horizon = check_positive_int("horizon", horizon)
    n_points = check_positive_int("n_points", n_points)
    if points is None:
        points = "log"
    if isinstance(points, (bool, np.bool_)):
        raise TypeError(f"checkpoints must be 'log', 'linear', an int or a sequence of ints, "
                        f"got {points!r}")
    if isinstance(points, (int, np.integer)):
        n_points, points = check_positive_int("checkpoints", points), "log"
    if isinstance(points, str):
        points = check_choice("checkpoints", points, ("log", "linear"))
        if points == "log":
            pts = np.geomspace(1, horizon, num=min(n_points, horizon))
        else:
            pts = np.linspace(horizon / n_points, horizon, num=min(n_points, horizon))
        pts = np.unique(np.clip(np.round(pts).astype(np.int64), 1, horizon))
    else:
        if np.ndim(points) != 1:
            raise ValueError(f"checkpoints must be 'log', 'linear', an int or a 1-D sequence of "
                             f"rounds, got {show(points)}")
        pts = np.unique(check_int_array("checkpoints", points, minimum=1, maximum=horizon))
        if pts.size == 0:
            raise ValueError(f"checkpoints must hold at least one round in 1..{horizon}, "
                             f"got {points!r}")
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
    guarantee : guarantee record
        The privacy guarantee that holds for this run: the policy's own, or
        ``NotPrivate(reason=...)`` when the assumption behind it failed (the reason says why).
    """

    regret: np.ndarray
    checkpoints: np.ndarray
    pulls: np.ndarray
    label: str
    horizon: int
    n_runs: int
    seed: Any
    params: dict[str, Any] = field(default_factory=dict)
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

    def select_runs(self, rows) -> Result:
        """The sub-result made of some runs (e.g. one cell of a batched sweep).

        Per-run parameters (arrays with one entry per run, in ``params`` and in the guarantee
        record) are sliced too, and collapse to a scalar when the selected runs share a value.
        """
        rows = np.asarray(rows)
        if rows.dtype == bool:
            if rows.shape != (self.n_runs,):
                raise ValueError(f"rows as a mask must have shape ({self.n_runs},), "
                                 f"got shape {rows.shape}")
        else:
            rows = check_int_array("rows", rows, minimum=0, maximum=self.n_runs - 1)
            if rows.ndim != 1:
                raise ValueError(f"rows must be 1-D, got shape {rows.shape}")
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
        n_groups = check_positive_int("n_groups", n_groups)
        if self.n_runs % n_groups:
            raise ValueError(f"n_groups must divide n_runs ({self.n_runs}), got {n_groups}")
        size = self.n_runs // n_groups
        return [self.select_runs(np.arange(g * size, (g + 1) * size)) for g in range(n_groups)]

    def summary(self) -> dict[str, Any]:
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
    flag = progress_from_env()
    return horizon * n_runs >= 2_000_000 if flag is None else flag


def simulate(policy: Policy, env, horizon: int, n_runs: int = 1, seed: Any = 0, *,
             checkpoints: str | int | Sequence[int] | None = "log",
             progress: bool | None = None, block_updates: bool = True) -> Result:
    """Run ``n_runs`` independent runs of ``policy`` on ``env`` for ``horizon`` rounds.

    Parameters
    ----------
    policy : Policy
        A bandit or full-information policy (its ``feedback`` must match the environment's).
    env : environment from :mod:`dpolearn.envs`
        Anything with the attributes listed there (``feedback``, ``n_arms``, ``reset``,
        ``pull_flat`` or ``losses``; and the declarations ``reward_range``, ``max_horizon``,
        ``regret_kind``, ``has_block_sums``).
    horizon : int
        Number of rounds T >= 1; at most the policy's configured horizon (if it has one) and
        the environment's ``max_horizon``.
    n_runs : int
        Number of independent runs >= 1, advanced together.
    seed : int or SeedSequence
        The same seed gives bit-identical results; a ``SeedSequence`` is copied, never
        advanced. The environment and the policy draw from two independent child streams of
        the seed. ``None`` is refused.
    checkpoints : "log", "linear", int or sequence of ints
        When to record the regret (see :func:`make_checkpoints`).
    progress : bool, optional
        Show a ``tqdm`` progress bar. Default: on for long runs, unless the environment
        variable ``DPOLEARN_PROGRESS=0`` is set.
    block_updates : bool
        Play a :class:`BlockPolicy` a whole block at a time (:func:`play_blocks`) when the
        environment offers exact block draws (default). ``False`` forces the round-by-round
        loop, e.g. to check the block path against it.

    Returns
    -------
    Result
        With ``guarantee = NotPrivate()`` (and a :class:`PrivacyAssumptionWarning`) when a
        private policy runs on an environment whose values are not in [0, 1].

    Examples
    --------
    >>> from dpolearn import BernoulliBandit, UCB1
    >>> res = simulate(UCB1(), BernoulliBandit([0.9, 0.6]), horizon=1000, n_runs=4, seed=1)
    >>> res.regret.shape[0], int(res.checkpoints[-1])
    (4, 1000)
    """
    if not isinstance(policy, Policy):
        raise TypeError(f"policy must be a dpolearn Policy, got {show(policy)}")
    _check_env(env)
    horizon = check_positive_int("horizon", horizon)
    n_runs = check_positive_int("n_runs", n_runs)
    seq = as_seed_sequence(seed)
    if progress is not None:
        progress = check_bool("progress", progress)
    block_updates = check_bool("block_updates", block_updates)
    show_bar = _progress_default(horizon, n_runs) if progress is None else progress
    _check_values(policy, env)
    if policy.feedback != env.feedback:
        raise ValueError(f"policy {policy.label!r} needs {policy.feedback!r} feedback, "
                         f"but env gives {env.feedback!r} feedback")
    max_horizon = _declared(env, "max_horizon")
    if max_horizon is not None and horizon > max_horizon:
        raise ValueError(f"horizon must be <= the environment's length {env!r} "
                         f"(max_horizon={max_horizon}), got horizon={horizon}")
    policy.check_horizon(horizon)
    ck = make_checkpoints(horizon, checkpoints)

    env_seq, policy_seq = seq.spawn(2)
    env_rng = np.random.default_rng(env_seq)
    policy_rng = np.random.default_rng(policy_seq)
    env.reset(n_runs, env_rng)
    policy.reset(n_runs, env.n_arms, policy_rng)

    start = time.perf_counter()
    if block_updates and isinstance(policy, BlockPolicy) and _declared(env, "has_block_sums"):
        regret, pulls = play_blocks(policy, env, horizon, ck, n_runs)
    elif env.feedback == "bandit":
        regret, pulls = _loop_bandit(policy, env, horizon, ck, n_runs, show_bar)
    else:
        regret, pulls = _loop_full(policy, env, horizon, ck, n_runs, show_bar)
    wall = time.perf_counter() - start
    guarantee = _guarantee_on(policy, env)
    return Result(regret=regret, checkpoints=ck, pulls=pulls, label=policy.label,
                  horizon=horizon, n_runs=n_runs, seed=seed, params=policy.params(),
                  guarantee=guarantee, wall_time=wall)


#: What an environment must have, and what it may declare (with the value assumed if it does not).
_ENV_REQUIRED = ("feedback", "n_arms", "reset")
_ENV_DECLARED = {"reward_range": (0.0, 1.0), "max_horizon": None, "regret_kind": "pseudo",
                 "has_block_sums": False}


def _check_env(env) -> None:
    """Refuse anything that is not an environment (see :mod:`dpolearn.envs`).

    An environment must have ``feedback``, ``n_arms``, ``reset`` and ``pull_flat`` (bandit) or
    ``losses`` (full information). The declarations ``reward_range``, ``max_horizon``,
    ``regret_kind`` and ``has_block_sums`` default to ``(0, 1)``, ``None``, ``"pseudo"`` and
    ``False`` for environments written before they existed; every environment of
    :mod:`dpolearn.envs` declares them.
    """
    missing = [a for a in _ENV_REQUIRED if not hasattr(env, a)]
    if missing:
        raise TypeError(f"env must be an environment of dpolearn.envs (with "
                        f"{', '.join(_ENV_REQUIRED)}), got {show(env)}")
    if env.feedback not in ("bandit", "full"):
        raise ValueError(f"env.feedback must be 'bandit' or 'full', got {env.feedback!r}")
    method = "pull_flat" if env.feedback == "bandit" else "losses"
    if not hasattr(env, method):
        raise TypeError(f"env must have {method}() for {env.feedback!r} feedback, got {show(env)}")
    kind = _declared(env, "regret_kind")
    if kind not in ("pseudo", "hindsight") or (env.feedback == "bandit" and kind != "pseudo"):
        raise ValueError(f"env.regret_kind must be 'pseudo' (or 'hindsight' for full "
                         f"information), got {kind!r}")


def _check_values(policy: Policy, env) -> None:
    """Refuse an environment whose values a policy cannot take at all.

    A policy that declares ``value_range = (low, high)`` (e.g. Beta Thompson Sampling, whose
    posterior needs rewards in [0, 1]) runs only on environments whose ``reward_range`` lies
    inside it.
    """
    need = getattr(policy, "value_range", None)
    if need is None:
        return
    low, high = _declared(env, "reward_range")
    if low < need[0] or high > need[1]:
        raise ValueError(f"env must give values in [{need[0]}, {need[1]}] for {policy.label}, "
                         f"got {env!r} with values in [{low}, {high}]")


def _declared(env, name: str):
    return getattr(env, name, _ENV_DECLARED[name])


def _guarantee_on(policy: Policy, env):
    """The guarantee that holds when ``policy`` runs on ``env`` (``NotPrivate`` with the reason
    when the policy's own guarantee is void there)."""
    guarantee = policy.guarantee
    if isinstance(guarantee, NotPrivate):
        return guarantee
    low, high = _declared(env, "reward_range")
    if low >= 0.0 and high <= 1.0:
        return guarantee
    reason = (f"{policy.label}'s guarantee {guarantee!r} assumes values in [0, 1], but {env!r} "
              f"gives values in [{low}, {high}]: no privacy guarantee holds")
    warnings.warn(reason, PrivacyAssumptionWarning, stacklevel=3)
    return NotPrivate(reason=reason)


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
    hindsight = _declared(env, "regret_kind") == "hindsight"
    gaps = None if hindsight else np.ascontiguousarray(env.gaps_for(n_runs))
    pulls = np.zeros((n_runs, env.n_arms), dtype=np.int64)
    regret = np.empty((n_runs, len(ck)))
    running = np.zeros(n_runs)           # pseudo-regret, or the learner's cumulative loss
    cum_losses = np.zeros((n_runs, env.n_arms)) if hindsight else None   # each action's
    next_ck = 0
    bar = _progress_bar(show, horizon, policy.label)
    for t in range(1, horizon + 1):
        arms = policy.select(t)
        losses = env.losses(t)
        if hindsight:
            running += losses[rows, arms]
            cum_losses += losses
        else:
            running += gaps[rows, arms]
        pulls[rows, arms] += 1
        policy.update(t, arms, losses)
        if t == ck[next_ck]:
            # regret against the best fixed action in hindsight, or the pseudo-regret
            regret[:, next_ck] = running - cum_losses.min(axis=1) if hindsight else running
            next_ck += 1
        if bar is not None and t % 4096 == 0:
            bar.update(4096)
    if bar is not None:
        bar.close()
    return regret, pulls
