r"""Empirical privacy auditing: lower bounds on epsilon from runs on neighbouring inputs.

A privacy guarantee is a statement about *every* pair of neighbouring inputs and *every* set of
outputs. An audit picks one pair (D, D') and one output event A, runs the mechanism many times
on each side, and turns the two observed frequencies into a statistically valid **lower bound**
on epsilon: for an (epsilon, delta)-DP mechanism,

.. math:: P(M(D) \in A) \le e^{\varepsilon} P(M(D') \in A) + \delta,

so with a lower confidence bound :math:`\underline p` on :math:`P(M(D)\in A)` and an upper
confidence bound :math:`\bar q` on :math:`P(M(D')\in A)` (Clopper-Pearson), any valid epsilon
is at least :math:`\ln((\underline p - \delta)/\bar q)`. The same holds for the complement of A
and with the roles of D and D' swapped; the auditor reports the largest of the four.
A lower bound above a stated guarantee refutes the guarantee (at the confidence level); a lower
bound below it says only that this pair and this event found no violation.

Contents

* :class:`AuditResult`, :func:`epsilon_lower_bound` -- the statistics (pure and (eps, delta)).
* :func:`sample_actions` -- the recorded action sequences of a policy on a replayed table
  (:class:`~dpolearn.envs.ReplayBandit` or :class:`~dpolearn.envs.FixedSequence`; one
  :func:`~dpolearn.simulate.simulate` call per side, all trials batched).
* :class:`Event` with :func:`arm_pulled`, :func:`action_sequence`, :func:`pulls_at_least`,
  :func:`output_above`, :func:`selected` -- output events.
* :func:`audit`, :func:`audit_policy` -- the black-box auditor, with a held-out search over
  candidate events and neighbouring pairs (selection on one set of trials, evaluation on a
  fresh one, so the search does not inflate the bound).
* :func:`adversarial_pairs` -- a documented way to stress each algorithm family.
* Exact and white-box companions: :func:`rnm_exact_epsilon`, :func:`rnm_event_losses`,
  :func:`laplace_event_loss`, :func:`laplace_composed`, :func:`gaussian_composed`,
  :func:`hybrid_counter_exact_epsilon`.

References
----------
.. [DWWZK18] Ding, Wang, Wang, Zhang and Kifer, "Detecting violations of differential
   privacy", CCS 2018 (hypothesis tests on neighbouring inputs, held-out event selection).
.. [JUO20] Jagielski, Ullman and Oprea, "Auditing differentially private machine learning:
   how private is private SGD?", NeurIPS 2020 (Clopper-Pearson lower bounds on epsilon).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, Tuple

import numpy as np
from scipy import stats

from ._validation import (
    as_float_array,
    as_seed_sequence,
    check_bool,
    check_int_array,
    check_positive,
    check_positive_int,
    check_probability,
    show,
)
from .accounting import ApproxDP, GaussianDP, PureDP, heterogeneous_advanced_composition
from .envs import FixedSequence, ReplayBandit
from .mechanisms import ExponentialMechanism, LaplaceMechanism, ReportNoisyMax
from .mechanisms.counters import tree_scale_factor
from .mechanisms.noisy_max import noise_difference_sf
from .policy import Policy
from .simulate import simulate

__all__ = ["AuditResult", "epsilon_lower_bound", "clopper_pearson",
           "sample_actions", "Event", "arm_pulled", "action_sequence", "pulls_at_least",
           "output_above", "selected", "audit", "audit_policy", "adversarial_pairs",
           "exact_epsilon", "rnm_exact_epsilon", "rnm_event_losses", "laplace_difference_sf",
           "laplace_event_loss", "laplace_composed",
           "gaussian_composed", "hybrid_counter_exact_epsilon", "whitebox_gdp",
           "whitebox_interval_mean"]


# ------------------------------------------------------------------------------ statistics
def _check_count(name: str, value, n: int) -> int:
    """An event count: an integer in [0, n] (``TypeError``/``ValueError`` naming it otherwise)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer count, got {show(value)}")
    if not 0 <= value <= n:
        raise ValueError(f"{name} must lie in [0, {n}] (the number of trials), got {show(value)}")
    return int(value)


def clopper_pearson(k: int, n: int, confidence: float) -> Tuple[float, float]:
    """Two-sided Clopper-Pearson interval for a binomial proportion (k successes in n).

    ``k`` must be an integer in [0, n], ``n >= 1`` and ``confidence`` in (0, 1).

    >>> lo, hi = clopper_pearson(50, 100, 0.95)
    >>> round(lo, 4), round(hi, 4)
    (0.3983, 0.6017)
    """
    n = check_positive_int("n", n)
    k = _check_count("k", k, n)
    confidence = check_probability("confidence", confidence, open_low=True, open_high=True)
    alpha = 1.0 - confidence
    lo = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return lo, hi


def _log_ratio(num: float, den: float) -> float:
    if num <= 0:
        return 0.0
    if den <= 0:
        return math.inf
    return max(0.0, math.log(num / den))


def epsilon_lower_bound(k1: int, n1: int, k2: int, n2: int, *, confidence: float = 0.95,
                        delta: float = 0.0) -> Tuple[float, float]:
    r"""Lower confidence bound and point estimate of epsilon from two event counts.

    ``k1`` of ``n1`` trials on D and ``k2`` of ``n2`` trials on D' fell in the event A. Each
    probability gets a two-sided Clopper-Pearson interval at level
    :math:`1-(1-\text{confidence})/2`, so both hold together with probability at least
    ``confidence``; on that event every candidate below is a valid lower bound on any epsilon
    for which the mechanism is (epsilon, delta)-DP:
    :math:`\ln\frac{\underline p-\delta}{\bar q}`, :math:`\ln\frac{\underline q-\delta}{\bar p}`,
    and the same for the complement of A. Returns ``(lower, estimate)``, both >= 0.

    >>> lo, est = epsilon_lower_bound(5000, 10000, 1839, 10000)
    >>> round(est, 3), lo < est
    (1.0, True)
    """
    n1 = check_positive_int("n1", n1)
    n2 = check_positive_int("n2", n2)
    k1 = _check_count("k1", k1, n1)
    k2 = _check_count("k2", k2, n2)
    confidence = check_probability("confidence", confidence, open_low=True, open_high=True)
    delta = check_probability("delta", delta, open_high=True)
    each = 1.0 - (1.0 - confidence) / 2
    p_lo, p_hi = clopper_pearson(k1, n1, each)
    q_lo, q_hi = clopper_pearson(k2, n2, each)
    p, q = k1 / n1, k2 / n2
    lower = max(_log_ratio(p_lo - delta, q_hi), _log_ratio(q_lo - delta, p_hi),
                _log_ratio((1 - p_hi) - delta, 1 - q_lo), _log_ratio((1 - q_hi) - delta, 1 - p_lo))
    est = max(_log_ratio(p - delta, q), _log_ratio(q - delta, p),
              _log_ratio(1 - p - delta, 1 - q), _log_ratio(1 - q - delta, 1 - p))
    return lower, est


@dataclass(frozen=True)
class AuditResult:
    """What one audit found.

    Attributes
    ----------
    epsilon_lower : float
        Lower confidence bound on epsilon (valid with probability ``confidence``).
    epsilon_estimate : float
        Point estimate from the observed frequencies (not a bound).
    confidence, delta : float
        Confidence level of the bound and the delta it assumes (0 for pure DP).
    event : str
        Name of the event (and neighbouring pair) that gave the bound.
    p, q : float
        Observed frequencies of the event on D and on D'.
    n_trials : int
        Trials per side used for the bound (selection trials not included).
    claimed : float or None
        The epsilon the audited object claims (its ``guarantee``), for the verdict.
    """

    epsilon_lower: float
    epsilon_estimate: float
    confidence: float
    delta: float
    event: str
    p: float
    q: float
    n_trials: int
    claimed: Optional[float] = None

    def __post_init__(self):
        names = ("epsilon_lower", "epsilon_estimate") + (() if self.claimed is None
                                                         else ("claimed",))
        for name in names:                             # epsilons: >= 0, inf allowed
            value = as_float_array(name, getattr(self, name))
            if value.ndim != 0 or np.isnan(value) or value < 0:
                raise ValueError(f"{name} must be a number >= 0, got {show(getattr(self, name))}")
        check_probability("confidence", self.confidence, open_low=True, open_high=True)
        check_probability("delta", self.delta, open_high=True)
        check_probability("p", self.p)
        check_probability("q", self.q)
        if not isinstance(self.event, str):
            raise TypeError(f"event must be a str, got {show(self.event)}")
        check_positive_int("n_trials", self.n_trials)

    @property
    def violated(self) -> bool:
        """True when the lower bound exceeds the claimed epsilon (the claim is refuted)."""
        return self.claimed is not None and self.epsilon_lower > self.claimed

    @property
    def verdict(self) -> str:
        if self.claimed is None:
            return "no claim"
        return "VIOLATED" if self.violated else "consistent"


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
    integer array of shape (n_trials, T). Block shortcuts (``simulate_fast``) are bypassed, so
    the round-by-round algorithm is what is audited.
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


# ------------------------------------------------------------------------------ events
@dataclass(frozen=True)
class Event:
    """A set of outputs, given by its name and its indicator on a batch of outputs."""

    name: str
    indicator: Callable[[np.ndarray], np.ndarray] = field(compare=False, repr=False)

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str, got {show(self.name)}")
        if not callable(self.indicator):
            raise TypeError(f"indicator must be callable (outputs -> booleans), got "
                            f"{show(self.indicator)}")

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return np.asarray(self.indicator(outputs), dtype=bool)


def arm_pulled(arm: int, t: int) -> Event:
    """Arm ``arm`` (0-based) is pulled in round ``t`` (1-based)."""
    arm = check_positive_int("arm", arm, minimum=0)
    t = check_positive_int("t", t)
    return Event(f"arm {arm} in round {t}", lambda a: a[:, t - 1] == arm)


def action_sequence(seq: Sequence[int]) -> Event:
    """The first len(seq) actions equal ``seq``."""
    s = np.asarray(seq)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"seq must be a non-empty sequence of actions, got {show(seq)}")
    s = check_int_array("seq", s, minimum=0)
    return Event(f"actions = {s.tolist()}", lambda a: np.all(a[:, :len(s)] == s, axis=1))


def pulls_at_least(arm: int, t: int, k: int) -> Event:
    """Arm ``arm`` is pulled at least ``k`` times in rounds 1..t."""
    arm = check_positive_int("arm", arm, minimum=0)
    t = check_positive_int("t", t)
    k = check_positive_int("k", k, minimum=0)
    return Event(f"arm {arm} pulled >= {k} times by round {t}",
                 lambda a: (a[:, :t] == arm).sum(axis=1) >= k)


def output_above(c: float, index=None) -> Event:
    """A real output exceeds ``c``; with ``index`` (an int or a tuple of ints), the entries
    ``index`` along the last axis all exceed ``c`` (e.g. several releases of a counter)."""
    if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, float, np.integer, np.floating)):
        raise TypeError(f"c must be a real number, got {show(c)}")
    if np.isnan(c):
        raise ValueError(f"c must not be nan, got {show(c)}")
    if index is None:
        return Event(f"output > {c:g}", lambda y: np.asarray(y) > c)
    idx = [int(i) for i in np.atleast_1d(index)]
    return Event(f"output{idx} > {c:g}",
                 lambda y: np.all(np.asarray(y)[..., idx] > c, axis=-1))


def selected(i: int) -> Event:
    """A selection mechanism (report-noisy-max) outputs index ``i``."""
    i = check_positive_int("i", i, minimum=0)
    return Event(f"selects {i}", lambda y: np.asarray(y) == i)


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


def _claimed_epsilon(policy, n_arms: int) -> Optional[float]:
    """The policy's guarantee once it knows K (some guarantees, e.g. Private-UCB's, do)."""
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
                 confidence=confidence, delta=delta, claimed=_claimed_epsilon(factory(), n_arms))


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


# ------------------------------------------------------------------------------ exact losses
def _as_selection_mechanism(rnm) -> ReportNoisyMax:
    """``rnm`` itself, or the report-noisy-max behind an exponential mechanism."""
    if isinstance(rnm, ExponentialMechanism):
        return rnm.report_noisy_max
    if not isinstance(rnm, ReportNoisyMax):
        raise TypeError(f"rnm must be a ReportNoisyMax or ExponentialMechanism, got {show(rnm)}")
    return rnm


def rnm_event_losses(rnm, scores, neighbour) -> np.ndarray:
    """Exact privacy loss ln P(i | scores) - ln P(i | neighbour) of each selection, shape (K,)
    (:meth:`~dpolearn.mechanisms.ReportNoisyMax.privacy_loss`)."""
    return _as_selection_mechanism(rnm).privacy_loss(scores, neighbour)


def laplace_difference_sf(a, scale):
    r""":math:`P(Z_0 - Z_1 > a)` for i.i.d. :math:`Z_i \sim \mathrm{Lap}(b)`: the Laplace case of
    :func:`~dpolearn.mechanisms.noisy_max.noise_difference_sf`.

    Two-action report-noisy-max with Laplace noise selects action 0 with probability
    ``laplace_difference_sf(s_1 - s_0, b)``.

    >>> float(laplace_difference_sf(0.0, 1.0))
    0.5
    """
    return noise_difference_sf(a, "laplace", scale)


def rnm_exact_epsilon(rnm, scores, neighbour) -> float:
    r"""Largest \|privacy loss\| over all output sets for one pair of score vectors
    (:meth:`~dpolearn.mechanisms.ReportNoisyMax.max_privacy_loss`)."""
    return _as_selection_mechanism(rnm).max_privacy_loss(scores, neighbour)


def laplace_event_loss(c: float, value: float, neighbour: float, scale: float, *,
                       complement: bool = False) -> float:
    r"""Exact privacy loss of the event {Y > c} for Y = value + Lap(scale) against neighbour.

    With ``value > neighbour`` it equals :math:`(value - neighbour)/scale` once c is at or
    beyond the larger value, and is smaller below it: the tail event is where the bound is
    attained. ``complement=True`` gives the loss of {Y <= c} with the roles swapped
    (log P(Y <= c | neighbour) - log P(Y <= c | value)), the tail event on the other side.
    """
    scale = check_positive("scale", scale)
    for name, v in (("c", c), ("value", value), ("neighbour", neighbour)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer,
                                                                  np.floating)) or np.isnan(v):
            raise TypeError(f"{name} must be a real number, got {show(v)}")
    if check_bool("complement", complement):
        lp = stats.laplace.logcdf(c, loc=neighbour, scale=scale)
        lq = stats.laplace.logcdf(c, loc=value, scale=scale)
    else:
        lp = stats.laplace.logsf(c, loc=value, scale=scale)
        lq = stats.laplace.logsf(c, loc=neighbour, scale=scale)
    return float(lp - lq)


def exact_epsilon(mechanism, data, neighbour) -> float:
    r"""Exact epsilon of one neighbouring pair, where the output law is computable.

    * :class:`~dpolearn.mechanisms.LaplaceMechanism` on values ``data`` and ``neighbour``:
      the density ratio is largest in the tails, :math:`|v - v'|/b`.
    * :class:`~dpolearn.mechanisms.ReportNoisyMax` (any noise family) or
      :class:`~dpolearn.mechanisms.ExponentialMechanism` on score vectors with K = 2 or 3:
      :func:`rnm_exact_epsilon` (quadrature or closed form).

    Use it instead of sampling wherever it applies; the auditor's sampled bound on the same
    pair can only be smaller (up to its confidence level).
    """
    if isinstance(mechanism, LaplaceMechanism):
        diff = np.max(np.abs(np.asarray(data, dtype=float) - np.asarray(neighbour, dtype=float)))
        return float(diff / np.max(mechanism.noise_scale))
    if isinstance(mechanism, ExponentialMechanism):
        mechanism = mechanism.report_noisy_max
    if isinstance(mechanism, ReportNoisyMax):
        k = np.asarray(data).size
        if k not in (2, 3):
            raise ValueError(f"exact report-noisy-max needs K = 2 or 3 scores, got K = {k}")
        return rnm_exact_epsilon(mechanism, data, neighbour)
    raise TypeError(f"mechanism must be a LaplaceMechanism, ReportNoisyMax or "
                    f"ExponentialMechanism, got {mechanism!r}")


def _sensitivities_and_scales(sensitivities, name: str, scales):
    """Validated float arrays: sensitivities >= 0 and finite, noise scales > 0 (same shape)."""
    s = as_float_array("sensitivities", sensitivities)
    b = as_float_array(name, scales)
    if np.any(np.isnan(s) | (s < 0) | np.isinf(s)):
        raise ValueError(f"sensitivities must be finite and >= 0, got {show(sensitivities)}")
    if np.any(np.isnan(b) | (b <= 0)):
        raise ValueError(f"{name} must be > 0, got {show(scales)}")
    try:
        np.broadcast(s, b)
    except ValueError:
        raise ValueError(f"sensitivities and {name} must have the same shape, got shapes "
                         f"{s.shape} and {b.shape}") from None
    return s, b


def laplace_composed(sensitivities, scales) -> PureDP:
    r"""White-box pure-DP loss of Laplace releases touched by one record:
    :math:`\sum_i \Delta_i / b_i` (basic composition, exact for the worst output)."""
    s, b = _sensitivities_and_scales(sensitivities, "scales", scales)
    return PureDP(epsilon=float(np.sum(s / b)))


def gaussian_composed(sensitivities, sigmas) -> GaussianDP:
    r"""White-box GDP level of Gaussian releases touched by one record:
    :math:`\sqrt{\sum_i (\Delta_i/\sigma_i)^2}` (Dong, Roth and Su 2022, Corollary 3.3)."""
    s, sig = _sensitivities_and_scales(sensitivities, "sigmas", sigmas)
    return GaussianDP(mu=float(np.sqrt(np.sum((s / sig) ** 2))))


def hybrid_counter_exact_epsilon(epsilon_log: float, epsilon_tree: float, n_max: int, *,
                                 tree_log_base=2) -> Tuple[float, int]:
    r"""Exact worst-case privacy loss of the hybrid counter over its first ``n_max`` items.

    The releases determine every noisy p-sum (logarithmic blocks :math:`2^{k-1}+1..2^k` with
    :math:`\mathrm{Lap}(1/\varepsilon_L)`; in epoch k a tree over :math:`2^k+1..2^{k+1}-1`
    whose nodes carry :math:`\mathrm{Lap}(k/\varepsilon_B)`, or :math:`\ln(2^k)/\varepsilon_B`
    with natural-log trees). Changing item p by 1 moves each p-sum containing it by 1, so its
    loss is :math:`\sum 1/b` over those p-sums (:func:`laplace_composed`). Returns
    ``(worst loss, position attaining it)``.
    """
    n_max = check_positive_int("n_max", n_max)
    loss = np.zeros(n_max + 1)
    factor = tree_scale_factor(tree_log_base)
    k = 0
    while (1 << k) <= n_max:
        lo = (1 << (k - 1)) + 1 if k else 1
        loss[lo:min((1 << k), n_max) + 1] += epsilon_log      # one logarithmic block
        size = 1 << k
        if k:
            b = factor * k / epsilon_tree
            for j in range(k):                                 # tree levels of epoch k
                for m in range(1, (size >> j) + 1):
                    first, last = size + (m - 1) * (1 << j) + 1, size + m * (1 << j)
                    if last < 2 * size and last <= n_max:
                        loss[first:last + 1] += 1.0 / b
        k += 1
    p = int(np.argmax(loss[1:]) + 1)
    return float(loss[p]), p


# ------------------------------------------------------------------------------ white-box
def whitebox_gdp(policy: Policy, env, horizon: int, *, n_runs: int = 4, seed=0,
                 normalised: bool = False) -> float:
    r"""Composed GDP level of the worst single observation in a run of a Gaussian-DP policy.

    Runs ``policy`` (which must support ``track_privacy=True``, as
    :class:`~dpolearn.bandits.DPTSUCB` and :class:`~dpolearn.bandits.MTSGaussian` do) and
    reads its ledger: every posterior draw is a Gaussian mechanism on an empirical mean, with
    sensitivity 1/n and the standard deviation actually used, and the mu^2 of the draws that
    one observation feeds add up (:func:`gaussian_composed`). Returns the largest level over
    runs, to compare with ``policy.guarantee.mu``.

    ``normalised=True`` (DP-TS-UCB only) scales each posterior's sum by its n, which is what
    the proof bounds for every posterior (the n = 1 worst case), so the check is sharp even
    when no n = 1 posterior uses its whole budget in a short run.
    """
    check_bool("normalised", normalised)
    if not getattr(policy, "track_privacy", False):
        raise ValueError(f"policy must be built with track_privacy=True, got {policy!r}")
    simulate(policy, env, horizon, n_runs, seed=seed, checkpoints=[horizon], progress=False)
    if normalised:
        return float(np.max(policy.privacy_ledger(normalised=True)))
    return float(np.max(policy.privacy_ledger()))


def whitebox_interval_mean(mechanism_factory, n_max: int, *, n_samples: int = 4000,
                           delta_prime: float = math.exp(-10), seed=0) -> ApproxDP:
    r"""White-box (epsilon, delta) of the interval Laplace mean (DP-UCB-INT), from its releases.

    Feeds ``n_max`` zero rewards to ``n_samples`` independent streams of the mechanism built by
    ``mechanism_factory(shape, rng)``, collects the released noise at every release point n,
    and estimates its Laplace scale by the mean absolute value (:math:`E|\mathrm{Lap}(b)|=b`).
    A release of :math:`s/n` has sensitivity 1/n, so it costs
    :math:`\varepsilon_n = (1/n)/\hat b_n`; one reward (the worst: the first of an arm) enters
    every release, and the costs compose by heterogeneous advanced composition with
    ``delta_prime``. The estimate's relative error is about :math:`1/\sqrt{n_{samples}}`.
    """
    n_max = check_positive_int("n_max", n_max)
    mech = mechanism_factory((n_samples, 1), np.random.default_rng(seed))
    eps_n = []
    last = np.zeros((n_samples, 1), dtype=np.int64)
    for _ in range(n_max):
        mech.add(0.0)
        released = mech.n_rel != last
        if np.all(released):
            n = float(mech.n_rel[0, 0])
            b_hat = float(np.mean(np.abs(mech.mu_tilde)))       # the sums are 0: pure noise
            eps_n.append((1.0 / n) / b_hat)
            last = mech.n_rel.copy()
    return heterogeneous_advanced_composition(eps_n, delta_prime)
