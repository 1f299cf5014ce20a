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

Contents, one module per group (every name is importable from ``dpolearn.audit``)

* :mod:`dpolearn.audit.statistics` -- :class:`AuditResult`, :func:`clopper_pearson`,
  :func:`epsilon_lower_bound` (and :func:`epsilon_lower_bounds` on arrays of counts): the
  statistics (pure and (eps, delta)).
* :mod:`dpolearn.audit.events` -- :class:`Event` with :func:`arm_pulled`,
  :func:`action_sequence`, :func:`pulls_at_least`, :func:`output_above`, :func:`selected`:
  output events.
* :mod:`dpolearn.audit.blackbox` -- :func:`sample_actions`, the recorded action sequences of a
  policy on a replayed table (:class:`~dpolearn.envs.ReplayBandit` or
  :class:`~dpolearn.envs.FixedSequence`; one :func:`~dpolearn.simulate.simulate` call per side,
  all trials batched); :func:`audit`, :func:`audit_policy`, the black-box auditor, with a
  held-out search over candidate events and neighbouring pairs (selection on one set of trials,
  evaluation on a fresh one, so the search does not inflate the bound);
  :func:`adversarial_pairs`, a documented way to stress each algorithm family;
  :func:`claimed_epsilon`, the epsilon a policy's guarantee states on K arms.
* :mod:`dpolearn.audit.search` -- :func:`search_audit`, the auditor that searches for itself:
  neighbouring tables (:func:`extreme_tables`, :func:`neighbouring_pairs`) and events chosen
  by their likelihood ratio on selection runs, one certification on fresh runs;
  :class:`SearchAuditResult` (with the budget spent).
* :mod:`dpolearn.audit.losses` -- the exact and white-box companions: :func:`exact_epsilon`,
  :func:`rnm_exact_epsilon`, :func:`rnm_event_losses`, :func:`laplace_difference_sf`,
  :func:`laplace_event_loss`, :func:`laplace_composed`, :func:`gaussian_composed`,
  :func:`hybrid_counter_exact_epsilon`, :func:`whitebox_gdp`, :func:`whitebox_interval_mean`.

References
----------
.. [DWWZK18] Ding, Wang, Wang, Zhang and Kifer, "Detecting violations of differential
   privacy", CCS 2018 (hypothesis tests on neighbouring inputs, held-out event selection).
.. [JUO20] Jagielski, Ullman and Oprea, "Auditing differentially private machine learning:
   how private is private SGD?", NeurIPS 2020 (Clopper-Pearson lower bounds on epsilon).
"""
from .blackbox import adversarial_pairs, audit, audit_policy, claimed_epsilon, sample_actions
from .events import Event, action_sequence, arm_pulled, output_above, pulls_at_least, selected
from .losses import (
    exact_epsilon,
    gaussian_composed,
    hybrid_counter_exact_epsilon,
    laplace_composed,
    laplace_difference_sf,
    laplace_event_loss,
    rnm_event_losses,
    rnm_exact_epsilon,
    whitebox_gdp,
    whitebox_interval_mean,
)
from .search import SearchAuditResult, extreme_tables, neighbouring_pairs, search_audit
from .statistics import AuditResult, clopper_pearson, epsilon_lower_bound, epsilon_lower_bounds

__all__ = ["AuditResult", "epsilon_lower_bound", "clopper_pearson",
           "sample_actions", "Event", "arm_pulled", "action_sequence", "pulls_at_least",
           "output_above", "selected", "audit", "audit_policy", "adversarial_pairs",
           "exact_epsilon", "rnm_exact_epsilon", "rnm_event_losses", "laplace_difference_sf",
           "laplace_event_loss", "laplace_composed",
           "gaussian_composed", "hybrid_counter_exact_epsilon", "whitebox_gdp",
           "whitebox_interval_mean", "epsilon_lower_bounds", "search_audit",
           "SearchAuditResult", "extreme_tables", "neighbouring_pairs", "claimed_epsilon"]

