"""RNM-FTNL: report-noisy-max follow-the-noisy-leader, and the naive FTNL strawman.

One parametrised class covers the algorithm of Hu, Huang, Mehta and Hegde (2021, Algorithm 4)
and all instantiations of Wu and Wang (2025, Algorithm 1 and Table 2): doubling epochs with
forgetting, report-noisy-max over the previous epoch's loss sums, optional Bernoulli
resampling, Laplace / exponential / Gumbel noise, and the papers' noise scales next to the
strictly epsilon-DP ones.
"""
from __future__ import annotations

import numpy as np

from .._blocks import Block, BlockPolicy
from .._validation import (
    as_row_param,
    check_bool,
    check_choice,
    check_epsilon,
    check_positive,
    check_positive_int,
    floor_log2,
)
from ..accounting import PureDP, compose
from ..mechanisms.noisy_max import NOISE_FAMILIES, ReportNoisyMax

__all__ = ["RNMFTNL", "NaiveFTNL", "SCALE_FACTORS", "WU2025_TABLE2", "epoch_of", "epoch_bounds",
           "n_epochs"]

#: Noise scale b = c / epsilon: the factor c of each named scale and noise family.
#: ``"strict"`` is epsilon-DP under replace-one-vector neighbours for all three families;
#: ``"wu2025"`` is Table 2 of Wu and Wang (Exp 1/eps is only 2 eps-DP, erratum
#: ``reading-wu2025-exp-scale``); ``"hu2021"`` is the Lap(1/eps) of Hu et al. (only 2 eps-DP,
#: erratum ``reading-hu2021-rnm-scale``; both in the book's appendix of readings and errata).
SCALE_FACTORS = {
    "strict": {"laplace": 2.0, "exponential": 2.0, "gumbel": 2.0},
    "wu2025": {"laplace": 2.0, "exponential": 1.0, "gumbel": 2.0},
    "hu2021": {"laplace": 1.0, "exponential": 1.0, "gumbel": 1.0},
}

#: Table 2 of Wu and Wang (2025) plus the baseline: name -> (resample B, noise, theorem).
WU2025_TABLE2 = {
    "rnm_ftnl_hhm": (False, "laplace", "Thm 2 (Hu et al.)"),
    "rnm_ftnl_br_lap": (True, "laplace", "Thm 3, Cor 5"),
    "rnm_ftnl_br_exp": (True, "exponential", "Thm 3, Cor 5"),
    "rnm_ftnl_br_gumbel": (True, "gumbel", "Thm 3, Cor 5"),
    "rnm_ftnl_exp": (False, "exponential", "Thm 11 (deterministic)"),
    "rnm_ftnl_gumbel": (False, "gumbel", "Thm 11 (deterministic)"),
}


def epoch_of(t):
    """Epoch r(t) = floor(log2 t) + 1 of round t >= 1: epoch r covers rounds 2^(r-1)..2^r - 1.

    >>> [int(epoch_of(t)) for t in (1, 2, 3, 4, 7, 8)]
    [1, 2, 2, 3, 3, 4]
    """
    t = np.asarray(t, dtype=np.int64)
    if np.any(t < 1):
        raise ValueError(f"t must be >= 1, got {t.min()!r}")
    out = floor_log2(t) + 1                                     # exact on integers
    return out if out.ndim else int(out)


def epoch_bounds(r: int):
    """First and last round of epoch r >= 1: (2^(r-1), 2^r - 1)."""
    return 2 ** (r - 1), 2 ** r - 1


def n_epochs(horizon: int) -> int:
    """Number of epochs R(T) = floor(log2 T) + 1 touched by a horizon T >= 1 (reading
    ``reading-rnm-epochs`` of the book's appendix of readings and errata)."""
    return int(horizon).bit_length()


class RNMFTNL(BlockPolicy):
    r"""RNM-FTNL(B, Q): follow the noisy leader of the previous doubling epoch.

    Epoch r covers rounds :math:`2^{r-1},\dots,2^r-1`. Throughout epoch r the policy plays
    :math:`J_{r-1}`; at the end of epoch r it computes
    :math:`J_r = \arg\max_j(-G_{r,j} + Q_j)` from the loss sums :math:`G_r` of epoch r alone
    (older epochs are forgotten) and K fresh noise draws :math:`Q_j \sim Q(b)` of scale b.
    Round by round (:meth:`select`, :meth:`update`) or a whole epoch at a time
    (:meth:`propose`, :meth:`observe`, from the epoch's loss sums drawn at once), as
    :func:`dpolearn.simulate` chooses; so horizons like T = 2^30 take milliseconds.

    Parameters
    ----------
    epsilon : float or array-like of shape (n_runs,)
        Privacy parameter, > 0 (``inf`` gives the noiseless forgetful leader). An array runs a
        sweep over epsilon as one batch.
    noise : {"laplace", "exponential", "gumbel"}
        Family Q of the i.i.d. report-noisy-max noise.
    noise_factor : {"strict", "wu2025", "hu2021"} or float
        The factor c of the noise scale b = c / epsilon. A name picks c from
        :data:`SCALE_FACTORS`; a float is c itself. Default ``"strict"`` (c = 2): epsilon-DP
        for every family.
    resample : bool
        Bernoulli resampling (B = 1 of Wu and Wang): each observed loss l_j is replaced by an
        independent Bernoulli(l_j) draw before it is added to the epoch sum.
    first_action : {"uniform", "first"}
        J_0, the action of round 1: uniform over the K actions (Wu and Wang) or action 0 (Hu et
        al.). Both are data-independent.
    noise_multiplier : float
        Factor on b when drawing (default 1); below 1 builds a deliberately weakened variant
        whose ``guarantee`` reports the larger epsilon it really has.

    Attributes
    ----------
    J_ : ndarray of shape (n_runs,)
        The action of the current epoch.
    G_ : ndarray of shape (n_runs, n_arms)
        Loss sums of the current epoch (possibly resampled).
    noise_scale_ : ndarray of shape (n_runs, 1)
        The noise scale b of each run, the one actually drawn with.

    Notes
    -----
    Privacy. Replacing one loss vector changes every coordinate of one epoch's sum by at most 1,
    in arbitrary directions, so the scores of that epoch's report-noisy-max move by at most 1
    each and not monotonically; report-noisy-max with scale b is then (2 / b)-DP for all
    three families (:class:`~dpolearn.mechanisms.ReportNoisyMax` with ``monotone=False``).
    Each vector enters exactly one epoch, so by parallel composition the whole action sequence
    is (2 / b)-DP, and ``guarantee`` reports that. With ``noise_factor="strict"`` this is epsilon.
    The papers' scales Lap(1/eps) (Hu et al.) and Exp(1/eps) (Wu and Wang) only give 2 epsilon,
    which is tight; their claim of epsilon is ``paper_claim``. Bernoulli resampling is
    pre-processing and keeps the guarantee (a mixture of epsilon-DP outputs).

    Rewards versus losses: Hu et al. maximise reward sums. With rewards r = 1 - l the reward sum
    of an epoch of n rounds is n - G, and argmax(n - G + Q) = argmax(-G + Q), so the two
    objectives give the same law and there is no switch for it.

    Readings (the book's appendix of readings and errata): R(T) = floor(log2 T) + 1 epochs
    (``reading-rnm-epochs``); ties at the lowest index (``reading-lowest-index-ties``);
    neighbours replace one whole loss vector (``reading-experts-neighbours``).

    References
    ----------
    .. [HHMH21] Hu, Huang, Mehta and Hegde, "Near-optimal algorithms for differentially private
       online learning in a stochastic environment", arXiv:2102.07929, Algorithm 4, Theorems 8-9.
    .. [WW25] Wu and Wang, "Improved regret in stochastic decision-theoretic online learning
       under differential privacy", Algorithm 1, Table 2, Theorems 2, 3 and 11.

    Examples
    --------
    >>> RNMFTNL(epsilon=1.0).guarantee
    PureDP(epsilon=1)
    >>> p = RNMFTNL.hu2021(epsilon=1.0)
    >>> p.guarantee, p.paper_claim
    (PureDP(epsilon=2), PureDP(epsilon=1))
    """

    label = "RNM-FTNL"
    feedback = "full"

    def __init__(self, *, epsilon, noise: str = "laplace", noise_factor="strict",
                 resample: bool = False, first_action: str = "uniform",
                 noise_multiplier: float = 1.0):
        self.epsilon = check_epsilon(epsilon, allow_inf=True)
        self.noise = check_choice("noise", noise, tuple(NOISE_FAMILIES))
        if isinstance(noise_factor, str):
            self.noise_factor = check_choice("noise_factor", noise_factor, tuple(SCALE_FACTORS))
            self.noise_factor_value = SCALE_FACTORS[noise_factor][self.noise]
        elif isinstance(noise_factor, (int, float, np.floating, np.integer)) \
                and not isinstance(noise_factor, bool):
            self.noise_factor = float(check_positive("noise_factor", noise_factor))
            self.noise_factor_value = self.noise_factor
        else:
            raise TypeError(f"noise_factor must be one of {sorted(SCALE_FACTORS)} or a float, "
                            f"got {noise_factor!r}")
        self.resample = check_bool("resample", resample)
        self.first_action = check_choice("first_action", first_action, ("uniform", "first"))
        self.noise_multiplier = check_positive("noise_multiplier", noise_multiplier)
        self._unit = ReportNoisyMax(scale=1.0, noise=self.noise)   # draws Q(1); times b

    # -- named presets ---------------------------------------------------------------------
    @classmethod
    def hu2021(cls, *, epsilon) -> RNMFTNL:
        """Hu et al.'s own reading: Lap(1/eps), action 0 in round 1, no resampling."""
        return cls(epsilon=epsilon, noise="laplace", noise_factor="hu2021", resample=False,
                   first_action="first")

    @classmethod
    def wu2025(cls, *, epsilon, noise: str = "laplace", resample: bool = True) -> RNMFTNL:
        """Wu and Wang's Table 2: Lap(2/eps), Exp(1/eps) or Gumbel(2/eps), uniform J_0."""
        return cls(epsilon=epsilon, noise=noise, noise_factor="wu2025", resample=resample,
                   first_action="uniform")

    # -- privacy ---------------------------------------------------------------------------
    def _factor_for(self, n_arms: int) -> float:
        """c of b = c / epsilon (RNM-FTNL: independent of the number of actions)."""
        return self.noise_factor_value

    def noise_scale(self, n_arms: int = 2):
        """Noise scale b = m c / epsilon actually drawn with on ``n_arms`` actions, m the
        ``noise_multiplier`` (float, or array like ``epsilon``; 0 when epsilon is inf)."""
        n_arms = check_positive_int("n_arms", n_arms)
        return self._noise_scale_row(np.asarray(self.epsilon, dtype=float), n_arms)

    def _noise_scale_row(self, eps, n_arms):
        b = self._factor_for(n_arms) / eps                      # shape (n_runs, 1)
        return b if self.noise_multiplier == 1.0 else self.noise_multiplier * b

    @property
    def guarantee(self) -> PureDP:
        """Report-noisy-max with scale b on non-monotone sensitivity-1 scores:
        ``(c_RNM / b)``-DP per epoch, c_RNM = 2 (:meth:`ReportNoisyMax.privacy_factor`);
        the epochs see disjoint data (parallel composition)."""
        rnm_factor = ReportNoisyMax.privacy_factor(monotone=False)
        eps = np.multiply(rnm_factor / self.noise_factor_value, self.epsilon)
        return compose(PureDP(epsilon=eps if self.noise_multiplier == 1.0
                              else eps / self.noise_multiplier))

    @property
    def paper_claim(self) -> PureDP:
        """What the papers claim: epsilon-DP at every named scale (strict scales agree)."""
        return PureDP(epsilon=self.epsilon)

    # -- the algorithm box (Wu and Wang, Algorithm 1) --------------------------------------
    def _initialise(self, n_runs, n_arms, rng):
        eps = as_row_param("epsilon", self.epsilon, n_runs)
        self.noise_scale_ = self._noise_scale_row(eps, n_arms)
        if self.first_action == "uniform":                      # line 1: J_0 ~ Uniform([K])
            self.J_ = rng.integers(0, n_arms, size=n_runs)
        else:                                                   # Hu et al.: the first action
            self.J_ = np.zeros(n_runs, dtype=np.int64)
        self.G_ = np.zeros((n_runs, n_arms))                    # line 3: G <- 0

    def select(self, t):
        return self.J_                                          # line 5: I_t <- J_{r-1}

    def update(self, t, arms, losses):
        if self.resample:                                       # line 7: Bernoulli resampling
            losses = (self._rng.random(self.G_.shape) < losses).astype(float)
        self.G_ += losses                                       # line 8: G <- G + l
        if (t + 1) & t == 0:                                    # t = 2^r - 1: epoch r ends
            self.J_ = self.noisy_leader(self.G_)                # lines 9-10: report noisy max
            self.G_ = np.zeros_like(self.G_)                    # forget epoch r

    def noisy_leader(self, G: np.ndarray) -> np.ndarray:
        """J = argmax_j(-G_j + b Q_j) with K fresh draws per run; shape (n_runs,)."""
        Q = self._unit.sample_noise(G.shape, self._rng)
        noisy = -G + self.noise_scale_ * Q                      # b = 0 when epsilon = inf
        return np.argmax(noisy, axis=1)                         # ties: lowest index

    # -- a whole epoch at a time (dpolearn.simulate.play_blocks) ---------------------------
    def propose(self, rows, t):
        """Epoch r starts at t = 2^(r-1) and plays J_{r-1} for its n_r = 2^(r-1) rounds."""
        return Block(rows, self.J_[rows], t, resampled=self.resample)

    def observe(self, block, sums):
        """End of epoch r: J_r is report-noisy-max on the epoch's loss sums G_r (lines 9-10)."""
        self.J_ = self.noisy_leader(sums)


class NaiveFTNL(RNMFTNL):
    r"""Naive follow-the-noisy-leader: Laplace noise of scale K / epsilon on every epoch sum.

    The strawman of Hu et al. (2021, Section 5): each of the K noisy sums is made
    (epsilon / K)-DP on its own and basic composition over the K actions gives epsilon. It is
    RNM-FTNL with b = K / epsilon, so its privacy cost is paid K times over.

    Parameters
    ----------
    epsilon : float or array-like of shape (n_runs,)
        Privacy parameter, > 0.
    first_action : {"uniform", "first"}
        Action of round 1.

    Notes
    -----
    The K noisy sums form a Laplace mechanism with l1-sensitivity K, so even releasing them is
    epsilon-DP; ``guarantee`` is ``PureDP(epsilon)``. (Releasing only the argmax is in fact
    (2 epsilon / K)-DP, stronger for K > 2.) The doubling epochs and the forgetting are those
    of RNM-FTNL (reading ``reading-naive-ftnl`` of the book's appendix of readings and errata).

    References
    ----------
    .. [HHMH21] Hu, Huang, Mehta and Hegde, arXiv:2102.07929, Section 5 (discussion of FTNL).

    Examples
    --------
    >>> NaiveFTNL(epsilon=0.5).guarantee
    PureDP(epsilon=0.5)
    """

    label = "Naive FTNL"

    def __init__(self, *, epsilon, first_action: str = "uniform", noise_multiplier: float = 1.0):
        super().__init__(epsilon=epsilon, noise="laplace", noise_factor=1.0, resample=False,
                         first_action=first_action, noise_multiplier=noise_multiplier)
        self.noise_factor = "K"                                 # c = K, the number of actions

    def _factor_for(self, n_arms: int) -> float:
        return float(n_arms)                                    # Lap(K / epsilon)

    @property
    def guarantee(self) -> PureDP:
        """K Laplace releases of sensitivity 1 at scale K / epsilon (basic composition):
        ``PureDP(epsilon / noise_multiplier)``."""
        eps = np.asarray(self.epsilon, dtype=float)
        return compose(PureDP(epsilon=self.epsilon if self.noise_multiplier == 1.0
                              else eps / self.noise_multiplier))

