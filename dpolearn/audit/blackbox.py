r"""The black-box auditor: recorded runs of a policy on a replayed table, the held-out search
over candidate (pair, event) combinations, and neighbouring pairs that stress each family.

Selection and evaluation use separate runs, so the search does not inflate the bound; the bound
itself comes from :func:`~dpolearn.audit.epsilon_lower_bound`.

References
----------
.. [DWWZK18] Ding, Wang, Wang, Zhang and Kifer, "Detecting violations of differential
   privacy", CCS 2018 (hypothesis tests on neighbouring inputs, held-out event selection).
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from .._validation import as_seed_sequence, check_positive_int, check_probability, show
from ..accounting import ApproxDP, PureDP
from ..envs import FixedSequence, ReplayBandit
from ..policy import Policy
from ..simulate import simulate
from .events import Event, arm_pulled, pulls_at_least
from .statistics import AuditResult, epsilon_lower_bound

__all__ = ["sample_actions", "audit", "audit_policy", "adversarial_pairs", "claimed_epsilon"]


# ------------------------------------------------------------------------------ recorded runs
class _Recorder(Policy):
    """Wraps a policy and records its action in every round, shape (n_runs, horizon)."""

    def __init__(self, policy: Policy, horizon: int):
        self.policy, self.horizon = policy, horizon
        self.feedback, self.label = policy.feedback, policy.label

    def reset(self, n_runs, n_arms, rng):
        self.policy.reset(n_runs, n_arms, rng)
        self.actions_ = np.zeros((n_runs, self.horizon), dtype=np.int64)

    def select(self, t):
        arms = np.asarray(self.policy.select(t))
        self.actions_[:, t - 1] = arms
        return arms

    def update(self, t, arms, feedback):
        self.policy.update(t, arms, feedback)

    @property
    def guarantee(self):
        return self.policy.guarantee


def sample_actions(policy: Policy, table, n_trials: int, seed=0) -> np.ndarray:
    """The action sequences of ``n_trials`` independent runs on a replayed table.

    One batched :func:`~dpolearn.simulate.simulate` call: the policy sees the same table in
    every run (rewards for a bandit policy, losses for a full-information one). Returns an
    integer array of shape (n_trials, T). Block play (:func:`~dpolearn.simulate.play_blocks`) is
    bypassed, so the round-by-round algorithm is what is audited.
    """
    if not isinstance(policy, Policy):
        raise TypeError(f"policy must be a dpolearn Policy, got {show(policy)}")
    n_trials = check_positive_int("n_trials", n_trials)
    table = np.asarray(table, dtype=float)
    env = ReplayBandit(table) if policy.feedback == "bandit" else FixedSequence(table)
    rec = _Recorder(policy, table.shape[0])
    simulate(rec, env, table.shape[0], n_trials, seed=seed, checkpoints=[table.shape[0]],
             progress=False)
    return rec.actions_


# ------------------------------------------------------------------------------ the auditor
Sampler = Callable[[object, int, np.random.SeedSequence], np.ndarray]


def _rate(sampler, data, event, n, seed) -> int:
    return int(np.count_nonzero(event(sampler(data, n, seed))))


def audit(sampler: Sampler, pairs, events: Sequence[Event], *, n_trials: int = 20_000,
          n_select: Optional[int] = None, seed=0, confidence: float = 0.95,
          delta: float = 0.0, claimed: Optional[float] = None) -> AuditResult:
    r"""Black-box audit of a randomised algorithm on neighbouring inputs.

    Parameters
    ----------
    sampler : callable ``(data, n, seed) -> outputs``
        Runs the algorithm ``n`` times on ``data`` (batched), drawing all randomness from the
        ``numpy.random.SeedSequence`` ``seed``; outputs have first axis n.
    pairs : (data, neighbour) or list of them
        Neighbouring inputs (for bandits: two reward tables that differ in one row).
    events : sequence of Event
        Candidate output events.
    n_trials : int
        Trials per side for the bound.
    n_select : int, optional
        Trials per side used to pick the best (pair, event) when there is more than one
        candidate (default ``n_trials // 4``). The pick is then evaluated on fresh trials, so
        the reported bound keeps its confidence level.
    seed : int or SeedSequence
    confidence : float in (0, 1)
    delta : float in [0, 1)
        Assume (epsilon, delta)-DP; 0 audits pure DP.
    claimed : float, optional
        The epsilon to compare with (the object's guarantee) for the verdict.

    Returns
    -------
    AuditResult
    """
    if not callable(sampler):
        raise TypeError(f"sampler must be callable (data, n, seed) -> outputs, got {sampler!r}")
    n_trials = check_positive_int("n_trials", n_trials)
    confidence = check_probability("confidence", confidence, open_low=True, open_high=True)
    if isinstance(pairs, tuple) and len(pairs) == 2 and not isinstance(pairs[0], tuple):
        pairs = [pairs]
    pairs = list(pairs)
    events = list(events)
    if not pairs or not events:
        raise ValueError(f"need at least one pair and one event, got {len(pairs)} and "
                         f"{len(events)}")
    root = as_seed_sequence(seed)
    sel_seq, eval_seq = root.spawn(2)
    best_pair, best_event = 0, 0
    if len(pairs) * len(events) > 1:
        n_sel = check_positive_int("n_select", n_select if n_select is not None
                                   else max(n_trials // 4, 100))
        best = (-1.0, -1.0)
        seeds = sel_seq.spawn(2 * len(pairs))
        for i, (d, d2) in enumerate(pairs):
            out1 = sampler(d, n_sel, seeds[2 * i])
            out2 = sampler(d2, n_sel, seeds[2 * i + 1])
            for j, ev in enumerate(events):
                # rank by the lower bound on the selection runs, not the point estimate: a
                # rare event with a large but noisy estimate rarely certifies anything
                low, est = epsilon_lower_bound(np.count_nonzero(ev(out1)), n_sel,
                                               np.count_nonzero(ev(out2)), n_sel,
                                               confidence=confidence, delta=delta)
                if (low, est) > best:
                    best, best_pair, best_event = (low, est), i, j
    d, d2 = pairs[best_pair]
    ev = events[best_event]
    s1, s2 = eval_seq.spawn(2)
    k1 = _rate(sampler, d, ev, n_trials, s1)
    k2 = _rate(sampler, d2, ev, n_trials, s2)
    lower, est = epsilon_lower_bound(k1, n_trials, k2, n_trials, confidence=confidence,
                                     delta=delta)
    name = ev.name if len(pairs) == 1 else f"{ev.name} (pair {best_pair})"
    return AuditResult(lower, est, confidence, delta, name, k1 / n_trials, k2 / n_trials,
                       n_trials, claimed)


def claimed_epsilon(policy: Policy, n_arms: int) -> Optional[float]:
    """The epsilon a policy claims on ``n_arms`` arms: the largest epsilon of its
    ``guarantee`` (``PureDP`` or ``ApproxDP``) after a reset for one run, since some
    guarantees (Private-UCB's) depend on K; None for any other guarantee."""
    if not isinstance(policy, Policy):
        raise TypeError(f"policy must be a dpolearn Policy, got {show(policy)}")
    n_arms = check_positive_int("n_arms", n_arms, minimum=2)
    policy.reset(1, n_arms, np.random.default_rng(0))
    g = policy.guarantee
    if isinstance(g, (PureDP, ApproxDP)):
        return float(np.max(g.epsilon))
    return None


def audit_policy(factory: Callable[[], Policy], pairs, events: Sequence[Event], *,
                 n_trials: int = 20_000, n_select: Optional[int] = None, seed=0,
                 confidence: float = 0.95, delta: float = 0.0) -> AuditResult:
    """Audit a policy on neighbouring reward (or loss) tables; see :func:`audit`.

    ``factory()`` returns a fresh policy (a new one per side, so no state leaks between the
    two sides). Outputs are the action sequences of :func:`sample_actions`. The verdict
    compares with the policy's ``guarantee``.
    """
    def sampler(table, n, seq):
        return sample_actions(factory(), table, n, seed=seq)

    first = pairs[0] if isinstance(pairs, list) else pairs
    n_arms = np.asarray(first[0]).shape[1]
    return audit(sampler, pairs, events, n_trials=n_trials, n_select=n_select, seed=seed,
                 confidence=confidence, delta=delta, claimed=claimed_epsilon(factory(), n_arms))


# ------------------------------------------------------------------------------ adversaries
def adversarial_pairs(family: str, *, n_arms: int = 2, horizon: int = 8):
    r"""Neighbouring tables and candidate events that stress each family's guarantee.

    Families and the reasoning:

    * ``"lazy"`` (Anytime-Lazy-UCB, Lazy-DP-TS, AdaP-UCB/KLUCB, DP-SE, DP-TS): private means are
      refreshed from batches; a reward *inside the first batch* of an arm is released with the
      smallest count (largest per-reward influence). Arm 0's round-1 reward is 1 versus 0,
      while arm 1 always pays 1, so arm 0 being chosen later is a tail event on D'.
    * ``"counter"`` (DP-UCB, DP-UCB-BOUND, Private-UCB): continual-release counters; the change
      at the first position enters the most releases. Same tables as ``"lazy"``.
    * ``"rnm_ftnl"`` (RNM-FTNL, naive FTNL, full information, losses): flip *every* coordinate
      of one loss vector, (0, 1, ..., 1) versus (1, 0, ..., 0), at the end of an epoch in which
      action 0 otherwise lost every round; the noisy-leader score gap then moves by 2 and the
      event "action 0 next epoch" is a tail event. One pair per epoch 1..3.

    Returns ``(pairs, events)`` for :func:`audit_policy`: events are "arm j in round t" for
    every j and t > K, and "arm 0 pulled >= k times by round T".
    """
    T = check_positive_int("horizon", horizon, minimum=3)
    K = check_positive_int("n_arms", n_arms, minimum=2)
    if family in ("lazy", "counter"):
        d = np.zeros((T, K))
        d[:, 1:] = 1.0
        d[0, 0] = 1.0
        d2 = d.copy()
        d2[0, 0] = 0.0
        pairs = [(d, d2)]
        events = [arm_pulled(j, t) for t in range(K + 1, T + 1) for j in range(K)]
        events += [pulls_at_least(0, T, k) for k in range(2, T // 2 + 1)]
        return pairs, events
    if family == "rnm_ftnl":
        pairs = []
        for r in (1, 2, 3):
            first, last = 2 ** (r - 1), 2 ** r - 1
            if 2 ** r > T:
                break
            d = np.zeros((T, K))
            d[first - 1:last, 0] = 1.0                 # action 0 loses every round of epoch r
            d[last - 1] = 0.0
            d[last - 1, 1:] = 1.0                      # ... except the last: (0, 1, ..., 1)
            d2 = d.copy()
            d2[last - 1] = 1.0 - d[last - 1]           # every coordinate flipped: (1, 0, ..., 0)
            pairs.append((d, d2))
        events = [arm_pulled(j, 2 ** r) for r in (1, 2, 3) if 2 ** r <= T for j in range(K)]
        return pairs, events
    raise ValueError(f"family must be 'lazy', 'counter' or 'rnm_ftnl', got {family!r}")
