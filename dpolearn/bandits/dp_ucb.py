r"""The DP-UCB family of Tossou and Dimitrakakis (AAAI 2016) and the Private-UCB baseline.

All four policies are UCB indices computed from *private* per-arm statistics, so the choice of
arm is post-processing of a differentially private mechanism:

* :class:`DPUCBBound` (Algorithm 1): hybrid continual-release counter per arm, plus a widening
  of the index by the counter's high-probability error bound :math:`\nu_a`;
* :class:`DPUCB` (Algorithm 2): the same counters fed with zeros for the arms not pulled, and
  the plain UCB1 index;
* :class:`DPUCBInt` (Algorithm 3): the interval-based Laplace mean, released only about every
  :math:`1/\varepsilon` pulls with noise that shrinks with n;
* :class:`PrivateUCB` (Mishra and Thakurta 2015): a horizon-T tree counter per arm and a much
  wider bonus, **reconstructed** from secondary sources (reading ``reading-private-ucb`` of
  the book's appendix of readings and errata).

The counters are simulated through their closed form "exact sum + data-independent noise"
(:class:`~dpolearn.mechanisms.counters.CounterNoise`), whose distribution the tests check
against the incremental counters. Every ``guarantee`` is the record of the mechanism the policy
runs (the counters' or the interval mean's), composed in :mod:`dpolearn.accounting`; the
choices of arm are post-processing, and arms compose in parallel.

Every policy takes a ``noise_multiplier`` (default 1) that scales all of its noise (the index
keeps the constants of the calibrated noise); below 1 it builds a deliberately weakened variant
whose ``guarantee`` reports the larger epsilon it really has (for tests and exercises).

References
----------
.. [TD16] Tossou and Dimitrakakis, "Algorithms for differentially private multi-armed bandits",
   AAAI 2016, Algorithms 1-3, Theorems 3.1-3.5.
.. [MT15] Mishra and Thakurta, "(Nearly) optimal differentially private stochastic multi-arm
   bandits", UAI 2015.
"""
from __future__ import annotations

import math

import numpy as np

from .._arrays import scalar_if_uniform
from .._validation import (
    as_row_param,
    check_choice,
    check_epsilon,
    check_positive,
    check_positive_int,
    check_probability,
    floor_log2,
    is_power_of_two,
    scalar_or_array,
)
from ..accounting import ApproxDP, PureDP, compose
from ..mechanisms.counters import (
    CounterNoise,
    hybrid_budget_split,
    hybrid_guarantee,
    tree_scale_factor,
)
from ..mechanisms.interval_mean import SCHEDULES, IntervalLaplaceMean, calibrate_epsilon, check_v
from .baselines import SumCountPolicy

__all__ = ["DPUCBBound", "DPUCB", "DPUCBInt", "PrivateUCB"]


class _HybridUCB(SumCountPolicy):
    """Shared state of DP-UCB-BOUND and DP-UCB: sums, counts and one hybrid counter per arm."""

    def __init__(self, *, epsilon, split: str = "chan", tree_log_base=2,
                 noise_multiplier: float = 1.0):
        self.epsilon = check_epsilon(epsilon)
        self.split = check_choice("split", split, ("chan", "paper"))
        self.tree_log_base = check_choice("tree_log_base", tree_log_base, (2, "e"))
        self.noise_multiplier = check_positive("noise_multiplier", noise_multiplier)

    def _initialise(self, n_runs, n_arms, rng):
        super()._initialise(n_runs, n_arms, rng)
        eps = as_row_param("epsilon", self.epsilon, n_runs)            # (n_runs, 1)
        self._eps_log, self._eps_tree = hybrid_budget_split(eps, self.split)
        self.noise_ = CounterNoise(n_runs, n_arms, kind="hybrid", epsilon_log=self._eps_log,
                                   epsilon_tree=self._eps_tree, tree_log_base=self.tree_log_base,
                                   rng=rng, noise_multiplier=self.noise_multiplier)

    def noisy_sums(self) -> np.ndarray:
        """H_a.output() for every arm: exact sums plus the counters' noise, (n_runs, K)."""
        return self.noise_.release(self.sums_)

    @property
    def guarantee(self) -> PureDP:
        """The hybrid counter's record (:func:`~dpolearn.mechanisms.counters.hybrid_guarantee`:
        epsilon for "chan", 2 epsilon for "paper", the natural-log tree at 1/ln 2 the cost);
        arms compose in parallel and the choices are post-processing."""
        eps_log, eps_tree = hybrid_budget_split(np.asarray(self.epsilon, dtype=float), self.split)
        return hybrid_guarantee(eps_log, eps_tree, tree_log_base=self.tree_log_base,
                                noise_multiplier=self.noise_multiplier)

    @property
    def paper_claim(self) -> PureDP:
        """Theorem 3.1 (and the same argument for Algorithm 2): epsilon-DP."""
        return PureDP(epsilon=scalar_if_uniform(self.epsilon))


class DPUCBBound(_HybridUCB):
    r"""DP-UCB-BOUND: UCB on hybrid-counter sums, widened by the counter's error bound.

    Index of arm a in round t > K (Algorithm 1):
    :math:`\hat s_a/n_a + \sqrt{2\ln t/n_a} + \nu_a/n_a` with :math:`\hat s_a` the hybrid
    counter's release and :math:`\nu_a = \sqrt8\ln(4t^4)\,[1/\varepsilon_L +
    \mathbb 1\{n_a \ne 2^j\}\log_2(n_a)/\varepsilon_B]`; for ``split="paper"``
    (:math:`\varepsilon_L=\varepsilon_B=\varepsilon`) this is the paper's
    :math:`\nu_a = \sqrt8\ln(4t^4)(1+\log_2 n_a)/\varepsilon` off powers of two and
    :math:`\sqrt8\ln(4t^4)/\varepsilon` at them.

    Parameters
    ----------
    epsilon : float or array of shape (n_runs,)
        Privacy parameter, > 0.
    split : {"chan", "paper"}
        Budget split of the hybrid counter (see :class:`~dpolearn.mechanisms.HybridCounter`).
        ``"chan"`` (default) is epsilon-DP; ``"paper"`` reproduces the paper (2 epsilon under
        standard accounting, epsilon claimed).
    tree_log_base : {2, "e"}
    noise_multiplier : float
        Factor on all counter noise (default 1; below 1 a deliberately weakened variant).

    Attributes
    ----------
    noise_ : CounterNoise
        Current error of each arm's hybrid counter, ``noise_.noise`` of shape (n_runs, K).

    Notes
    -----
    Rounds 1..K pull arm t (reading ``reading-round-robin-start``); ties go to the lowest index.
    The bonus drops sharply whenever n_a is a power of two (only the logarithmic half of the
    noise is present there), so suboptimal arms tend to stall at power-of-two counts (reading
    ``reading-power-of-two-stall``; both in the book's appendix of readings and errata).

    References
    ----------
    .. [TD16] Tossou and Dimitrakakis (2016), Algorithm 1, Theorems 3.1 and 3.2.

    Examples
    --------
    >>> DPUCBBound(epsilon=1.0, split="paper").guarantee
    PureDP(epsilon=2)
    """

    label = "DP-UCB-BOUND"

    def _initialise(self, n_runs, n_arms, rng):
        super()._initialise(n_runs, n_arms, rng)
        self._tree_term = np.zeros((n_runs, n_arms))           # 1{n_a != 2^j} log2(n_a)

    def bonus(self, t: int) -> np.ndarray:
        r"""nu_a / n_a for every arm, shape (n_runs, K)."""
        c_t = math.sqrt(8.0) * math.log(4.0 * float(t) ** 4)     # sqrt(8) ln(4/gamma), gamma=t^-4
        nu = c_t * (1.0 / self._eps_log + self._tree_term / self._eps_tree)
        return nu / self.counts_

    def select(self, t):
        if t <= self.n_arms:                                   # Alg. 1: arm t in round t <= K
            return np.full(self.n_runs, t - 1)
        n = self.counts_
        index = (self.noisy_sums() / n                         # s_a / n_a
                 + np.sqrt(2.0 * math.log(t) / n)              # UCB width
                 + self.bonus(t))                              # nu_a / n_a
        return np.argmax(index, axis=1)

    def update(self, t, arms, rewards):
        super().update(t, arms, rewards)                       # exact S_a, n_a
        self.noise_.advance(self._rows, arms)                  # H_{a_t}.add(r_t)
        n = self.counts_[self._rows, arms]
        factor = tree_scale_factor(self.tree_log_base)
        self._tree_term[self._rows, arms] = np.where(is_power_of_two(n.astype(np.int64)), 0.0,
                                                     factor * np.log2(n))


class DPUCB(_HybridUCB):
    r"""DP-UCB: the UCB1 index on hybrid-counter means, every counter fed every round.

    In round t the pulled arm's counter receives the reward and every other arm's counter a
    0 (Algorithm 2), so all counters have stream length t - 1 and their noise is identically
    distributed; :math:`n_a` counts only real pulls. Index:
    :math:`\hat s_a/n_a + \sqrt{2\ln t/n_a}`.

    Parameters
    ----------
    epsilon : float or array of shape (n_runs,)
    split : {"chan", "paper"}
    tree_log_base : {2, "e"}
    noise_multiplier : float
        Factor on all counter noise (default 1; below 1 a deliberately weakened variant).

    Notes
    -----
    The zeros carry no data, so the privacy argument is that of Theorem 3.1. The counter noise
    grows with t, not with n_a: a rarely pulled arm's mean carries noise of the order of
    polylog(t)/(epsilon n_a).

    References
    ----------
    .. [TD16] Tossou and Dimitrakakis (2016), Algorithm 2, Theorem 3.3.

    Examples
    --------
    >>> DPUCB(epsilon=0.5).guarantee
    PureDP(epsilon=0.5)
    """

    label = "DP-UCB"

    def select(self, t):
        if t <= self.n_arms:                                   # Alg. 2: arm t in round t <= K
            return np.full(self.n_runs, t - 1)
        n = self.counts_
        index = self.noisy_sums() / n + np.sqrt(2.0 * math.log(t) / n)
        return np.argmax(index, axis=1)

    def update(self, t, arms, rewards):
        super().update(t, arms, rewards)                       # S_{a_t} += r_t (zeros add 0)
        self.noise_.advance_all()                              # every H_b gets one item


class DPUCBInt(SumCountPolicy):
    r"""DP-UCB-INT: UCB on interval-based Laplace means (Algorithm 3).

    Round robin until every arm has :math:`f_0` pulls (:math:`K f_0` rounds); then each arm's
    mean is re-released only when its count reaches the next release point, as
    :math:`s_a/n + \mathrm{Lap}(n^{v/2-1})`, and the policy pulls the argmax of
    :math:`\tilde\mu_a + \sqrt{2\ln t / n^{rel}_a}` (``index="alg3"``).

    Parameters
    ----------
    epsilon : float or array of shape (n_runs,), in (0, 1]
        *Input* epsilon: it spaces the releases (about 1/epsilon pulls apart). To reach a
        target (epsilon', delta') use :meth:`from_target` (Corollary 3.2).
    v : float in (1, 1.5]
        Noise exponent (1.1 in the paper's experiments).
    schedule : {"fixed", "lemmaB1_y", "lemmaB1_x"}
        Release points: every ceil(1/epsilon) pulls (Algorithm 3 as printed, the default), or
        the shorter series of Lemma B.1.
    index : {"alg3", "current_n", "frozen"}
        "alg3": the index of Algorithm 3, bonus with the current t and the count at the last
        release (default); "current_n": bonus with the current count; "frozen": the whole
        index computed at the release and kept. All are post-processing of public data.
        (The older spelling ``index_mode="A"`` is still accepted.)
    delta_prime : float in (0, 1)
        delta of the reported guarantee.
    noise_multiplier : float
        Factor on every release's noise (default 1; below 1 a deliberately weakened variant).

    Attributes
    ----------
    mean_ : IntervalLaplaceMean
        Per-arm mechanism; ``mean_.mu_tilde`` and ``mean_.n_rel`` have shape (n_runs, K).
    f0_ : ndarray of shape (n_runs,)
        First release point (pulls per arm in the round-robin phase).

    Notes
    -----
    Privacy: ``guarantee`` is the t-free advanced-composition bound of Corollary 3.1,
    :math:`(2\varepsilon\zeta(v) + \sqrt{2\varepsilon\zeta(v)\ln(1/\delta')}, \delta')`, which
    dominates the exact accountant of every schedule offered
    (:meth:`IntervalLaplaceMean.accountant`); it is the interval mean's own record
    (:meth:`IntervalLaplaceMean.anytime_guarantee`). Sums and counts are updated during the
    round robin (reading ``reading-interval-round-robin``); one Laplace draw per release point,
    none in between, and the released mean is kept between release points (reading
    ``reading-interval-release-points``; both in the book's appendix of readings and errata).

    References
    ----------
    .. [TD16] Tossou and Dimitrakakis (2016), Algorithm 3, Lemma 3.1, Theorems 3.4 and 3.5,
       Corollaries 3.1 and 3.2, Lemma B.1.

    Examples
    --------
    >>> p = DPUCBInt.from_target(1.0)
    >>> round(p.epsilon, 6), p.guarantee.epsilon < 1 + 1e-9
    (0.003964, True)
    """

    label = "DP-UCB-INT"
    quiet_params = ("delta_prime", "noise_multiplier", "index_mode")

    _INDICES = ("alg3", "current_n", "frozen")

    def __init__(self, *, epsilon, v: float = 1.1, schedule: str = "fixed",
                 index: str = "alg3", delta_prime: float = math.exp(-10),
                 noise_multiplier: float = 1.0, index_mode=None):
        eps = check_epsilon(epsilon)
        if np.any(np.asarray(eps) > 1):
            raise ValueError(f"epsilon must be <= 1 (Algorithm 3), got {epsilon!r}")
        self.epsilon = eps
        self.v = check_v(v)
        self.schedule = check_choice("schedule", schedule, SCHEDULES)
        if index_mode is not None:                             # the older spelling
            index = "alg3" if index_mode == "A" else check_choice(
                "index_mode", index_mode, ("A", "current_n", "frozen"))
        self.index = check_choice("index", index, self._INDICES)
        self.index_mode = None                                 # translated into ``index``
        self.delta_prime = check_probability("delta_prime", delta_prime, open_low=True,
                                             open_high=True)
        self.noise_multiplier = check_positive("noise_multiplier", noise_multiplier)

    @classmethod
    def from_target(cls, epsilon_target, *, delta_prime: float = math.exp(-10), v: float = 1.1,
                    **kwargs) -> DPUCBInt:
        """DP-UCB-INT calibrated by Corollary 3.2 to be (epsilon_target, delta_prime)-DP.

        ``epsilon_target`` may be an array of shape (n_runs,) (one calibration per entry)."""
        targets = np.asarray(check_epsilon(epsilon_target, name="epsilon_target"))
        eps = np.vectorize(lambda e: calibrate_epsilon(float(e), delta_prime, v))(targets)
        eps = scalar_or_array(eps)
        return cls(epsilon=eps, v=v, delta_prime=delta_prime, **kwargs)

    def _initialise(self, n_runs, n_arms, rng):
        super()._initialise(n_runs, n_arms, rng)
        eps = as_row_param("epsilon", self.epsilon, n_runs)
        self.mean_ = IntervalLaplaceMean((n_runs, n_arms), epsilon=eps, v=self.v,
                                         schedule=self.schedule, delta_prime=self.delta_prime,
                                         rng=rng, noise_multiplier=self.noise_multiplier)
        self.f0_ = self.mean_.first_release()[:, 0]
        self._t_rel = np.ones((n_runs, n_arms))

    def select(self, t):
        rr = t <= self.n_arms * self.f0_                        # round robin: f_0 pulls each
        if np.all(rr):
            return np.full(self.n_runs, (t - 1) % self.n_arms)
        mu, n_rel = self.mean_.mu_tilde, self.mean_.n_rel
        n_rel = np.maximum(n_rel, 1)                          # rows still in round robin
        if self.index == "alg3":                               # Alg. 3 index
            index = mu + np.sqrt(2.0 * math.log(t) / n_rel)
        elif self.index == "current_n":
            index = mu + np.sqrt(2.0 * math.log(t) / self.counts_)
        else:                                                  # "frozen" at the release
            index = mu + np.sqrt(2.0 * np.log(self._t_rel) / n_rel)
        return np.where(rr, (t - 1) % self.n_arms, np.argmax(index, axis=1))

    def update(self, t, arms, rewards):
        super().update(t, arms, rewards)
        hit = self.mean_.add_at(self._rows, arms, rewards)     # s += r; release if n in W
        if self.index == "frozen" and hit is not None:
            self._t_rel[self._rows[hit], arms[hit]] = t + 1    # first used in round t + 1

    @property
    def guarantee(self) -> ApproxDP:
        """The interval mean's record: Corollary 3.1, advanced branch (one arm's releases
        compose; arms compose in parallel; the index is post-processing)."""
        return IntervalLaplaceMean.anytime_guarantee(self.epsilon, v=self.v,
                                                     delta_prime=self.delta_prime,
                                                     noise_multiplier=self.noise_multiplier)


class PrivateUCB(SumCountPolicy):
    r"""Private-UCB of Mishra and Thakurta (2015), **reconstructed** (reading
    ``reading-private-ucb`` of the book's appendix of readings and errata).

    One binary (tree) counter per arm sized for the horizon T
    (:math:`L = \lfloor\log_2 T\rfloor + 1` levels, budget ``epsilon_tree`` each), and the
    index :math:`\hat s_a/n_a + \sqrt{2\ln t/n_a} + \beta_t/n_a` with
    :math:`\beta_t = (\ln T)^2\ln(K T\ln T/\gamma_t)/\varepsilon_{tree}` and failure
    probability :math:`\gamma_t = t^{-4}` (as Tossou and Dimitrakakis set it).

    Parameters
    ----------
    epsilon : float or array of shape (n_runs,)
    horizon : int
        T; the trees hold at most :math:`2^L - 1 \ge T` items.
    variant : {"MT_K", "MT_noK", "chan_bound"}
        "MT_K" (default): ``epsilon_tree = epsilon / K``; "MT_noK": ``epsilon_tree = epsilon``;
        "chan_bound": ``epsilon_tree = epsilon`` and bonus
        :math:`\ln(1/\gamma_t) L^{1.5}/\varepsilon`.
    n_trees : int, optional
        K, the number of arms (one tree each) that "MT_K" splits epsilon over, as Mishra and
        Thakurta take it as an input; :meth:`reset` refuses an environment with another
        number of arms. Given, the guarantee is known on construction; omitted, K is the
        environment's, and before the first :meth:`reset` the guarantee of "MT_K" is the
        bound ``epsilon``, valid for every K.
    noise_multiplier : float
        Factor on all tree noise (default 1; below 1 a deliberately weakened variant).

    Notes
    -----
    The bonus constants come from a public reimplementation, not from the MT15 text, which we
    could not consult; treat the curves as indicative. Privacy: each reward enters one arm's
    tree only (parallel composition), so ``guarantee`` is ``PureDP(epsilon_tree)``; MT15's
    conservative argument claims ``epsilon`` (``paper_claim``).

    References
    ----------
    .. [MT15] Mishra and Thakurta (2015), as used as a baseline by Tossou and Dimitrakakis
       (2016), Section 4.
    """

    label = "Private-UCB"
    quiet_params = ("n_trees", "noise_multiplier")

    def __init__(self, *, epsilon, horizon: int, variant: str = "MT_K", n_trees=None,
                 noise_multiplier: float = 1.0):
        self.epsilon = check_epsilon(epsilon)
        self.horizon = check_positive_int("horizon", horizon, minimum=2)
        self.variant = check_choice("variant", variant, ("MT_K", "MT_noK", "chan_bound"))
        self.n_trees = None if n_trees is None else check_positive_int("n_trees", n_trees)
        self.noise_multiplier = check_positive("noise_multiplier", noise_multiplier)
        self.levels = int(floor_log2(self.horizon)) + 1
        self._split = self.n_trees                # K of epsilon / K, once known

    def _eps_tree_for(self, eps, n_arms):
        return eps / n_arms if self.variant == "MT_K" else eps

    def _initialise(self, n_runs, n_arms, rng):
        super()._initialise(n_runs, n_arms, rng)
        if self.n_trees is not None and n_arms != self.n_trees:
            raise ValueError(f"n_arms must equal the policy's n_trees = {self.n_trees}, "
                             f"got n_arms={n_arms}")
        self._split = n_arms
        self._eps = as_row_param("epsilon", self.epsilon, n_runs)
        self._eps_tree = self._eps_tree_for(self._eps, n_arms)
        self.noise_ = CounterNoise(n_runs, n_arms, kind="binary", epsilon_tree=self._eps_tree,
                                   levels=self.levels, rng=rng,
                                   noise_multiplier=self.noise_multiplier)

    def bonus(self, t: int) -> np.ndarray:
        """beta_t / epsilon_tree, shape (n_runs, 1)."""
        T, K = float(self.horizon), self.n_arms
        log_inv_gamma = 4.0 * math.log(t)                      # gamma_t = t^-4
        if self.variant == "chan_bound":
            return log_inv_gamma * self.levels ** 1.5 / self._eps
        return math.log(T) ** 2 * (math.log(K * T * math.log(T)) + log_inv_gamma) / self._eps_tree

    def select(self, t):
        if t <= self.n_arms:
            return np.full(self.n_runs, t - 1)
        n = self.counts_
        index = (self.noise_.release(self.sums_) / n + np.sqrt(2.0 * math.log(t) / n)
                 + self.bonus(t) / n)
        return np.argmax(index, axis=1)

    def update(self, t, arms, rewards):
        if t > self.horizon:
            raise ValueError(f"t must be <= horizon = {self.horizon}, got {t}")
        super().update(t, arms, rewards)
        self.noise_.advance(self._rows, arms)

    @property
    def guarantee(self) -> PureDP:
        """The tree counters' record, PureDP(epsilon_tree / noise_multiplier): epsilon / K for
        "MT_K" once K is known (``n_trees``, or the environment's after ``reset``); without
        it the looser, still valid, epsilon. Each reward enters one arm's tree only (parallel
        composition)."""
        eps = np.asarray(self.epsilon, dtype=float)
        eps_tree = eps if self._split is None else self._eps_tree_for(eps, self._split)
        return compose(PureDP(epsilon=scalar_if_uniform(eps_tree / self.noise_multiplier)))

    @property
    def paper_claim(self) -> PureDP:
        return PureDP(epsilon=scalar_if_uniform(self.epsilon))
