"""Tests of the lazy doubling private mean (Hu, Huang, Mehta and Hegde, the inner mean of
Algorithms 1 and 3; Theorems 2 and 4)."""
import numpy as np
import pytest

from dpolearn.accounting import PureDP
from dpolearn.mechanisms import LazyDoublingPrivateMean, lazy_schedule


class CountingRNG:
    """A Generator wrapper counting how many Laplace variates are drawn."""

    def __init__(self, seed=0):
        self._g = np.random.default_rng(seed)
        self.laplace_variates = 0
        self.laplace_calls = 0

    def laplace(self, loc, scale, size=None):
        out = self._g.laplace(loc, scale, size)
        self.laplace_variates += np.size(out)
        self.laplace_calls += 1
        return out

    def __getattr__(self, name):
        return getattr(self._g, name)


def feed(mech, arm, rewards):
    """Feed the same arm in every run, one reward per step; returns the 'done' masks."""
    return [mech.observe(np.full(mech.n_runs, arm), np.full(mech.n_runs, float(x)))
            for x in rewards]


# ---- the schedule -------------------------------------------------------------------------------

@pytest.mark.parametrize("n, r, O, N", [(1, 0, 1, 0), (2, 0, 1, 1), (3, 1, 2, 0), (6, 1, 2, 3),
                                        (7, 2, 4, 0), (14, 2, 4, 7), (15, 3, 8, 0), (16, 3, 8, 1)])
def test_schedule_examples(n, r, O, N):
    assert tuple(int(v) for v in lazy_schedule(n)) == (r, O, N)


def test_schedule_matches_mechanism_for_every_pull_count():
    mech = LazyDoublingPrivateMean(1, 3, epsilon=1.0, rng=0)
    for n in range(1, 300):
        mech.observe(np.array([1]), np.array([1.0]))
        r, O, N = lazy_schedule(n)
        assert mech.batch_index[0, 1] == r == np.floor(np.log2(n + 1)) - 1
        assert mech.batch_size[0, 1] == O == 2 ** r
        assert mech.n_unprocessed[0, 1] == N == n - (2 ** (r + 1) - 1)
        assert mech.n_pulls[0, 1] == n
    # arms that are never pulled do not progress
    assert mech.batch_index[0, 0] == mech.batch_index[0, 2] == -1
    assert mech.batch_size[0, 0] == 0 and np.isnan(mech.mu_tilde[0, 0])


def test_batches_processed_exactly_at_pull_counts_2_pow_r_plus_1_minus_1():
    mech = LazyDoublingPrivateMean(2, 2, epsilon=0.5, rng=1)
    done = feed(mech, 0, np.ones(200))
    processed_at = [i + 1 for i, d in enumerate(done) if d.all()]
    assert processed_at == [2 ** (r + 1) - 1 for r in range(7)]       # 1, 3, 7, 15, ...
    assert not any(d.any() and not d.all() for d in done)


def test_invalid_schedule_input():
    with pytest.raises(ValueError, match="n_pulls"):
        lazy_schedule(0)


# ---- noise: exactly one Laplace draw per processed batch ----------------------------------------

def test_exactly_one_laplace_draw_per_processed_batch():
    rng = CountingRNG(3)
    n_runs, K = 7, 4
    mech = LazyDoublingPrivateMean(n_runs, K, epsilon=np.linspace(0.2, 2, n_runs), rng=0)
    mech._rng = rng                                   # count every draw the mechanism makes
    arms_rng = np.random.default_rng(5)
    for _ in range(500):
        mech.observe(arms_rng.integers(0, K, n_runs), arms_rng.random(n_runs))
    processed = (mech.batch_index + 1).sum()       # batches 0..r_j closed for every (run, arm)
    assert processed > 100
    assert rng.laplace_variates == processed
    # and the rewards of closed batches are forgotten
    expected_open = mech.n_pulls - (2 ** (mech.batch_index + 1) - 1)
    np.testing.assert_array_equal(mech.n_unprocessed, expected_open)


def test_no_noise_gives_the_exact_mean_of_the_last_batch_only():
    x = np.array([1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 0, 0], dtype=float)
    mech = LazyDoublingPrivateMean(1, 1, epsilon=np.inf, rng=0)
    for n, xi in enumerate(x, start=1):
        mech.observe(np.array([0]), np.array([xi]))
        r = int(np.floor(np.log2(n + 1))) - 1
        batch = x[2 ** r - 1: 2 ** (r + 1) - 1]                         # pulls 2^r .. 2^(r+1)-1
        assert mech.mu_tilde[0, 0] == pytest.approx(batch.mean())
    # the unprocessed rewards are held, unused: 17 pulls -> batch 3 (pulls 8..15) + 2 open
    assert mech.n_unprocessed[0, 0] == 2 and mech.unprocessed_sum[0, 0] == 0.0


def test_mean_is_not_clipped():
    mech = LazyDoublingPrivateMean(2000, 1, epsilon=0.5, rng=2)
    feed(mech, 0, [1.0])
    assert (mech.mu_tilde > 1).any() and (mech.mu_tilde < 0).any()


def test_noise_distribution_matches_laplace_over_batch_size():
    """mu_tilde - batch mean = Lap(1/eps)/O: mean 0, variance 2/(eps O)^2, E|.| = 1/(eps O)."""
    n, eps = 40_000, 0.7
    mech = LazyDoublingPrivateMean(n, 2, epsilon=eps, rng=11)
    feed(mech, 1, np.ones(7))                                         # batch 2: O = 4
    z = mech.mu_tilde[:, 1] - 1.0
    b = 1.0 / (eps * 4)
    var = 2 * b ** 2
    assert abs(z.mean()) < 4 * np.sqrt(var / n)
    # sample variance of a Laplace: Var(s^2) ~ (kurtosis 6 - 1) var^2 / n
    assert abs(z.var() - var) < 4 * np.sqrt(5 * var ** 2 / n)
    assert abs(np.abs(z).mean() - b) < 4 * b / np.sqrt(n)             # Var|Z| = b^2


def test_per_run_epsilon_array():
    mech = LazyDoublingPrivateMean(2, 1, epsilon=[0.1, 10.0], rng=0)
    assert mech.guarantee == PureDP(epsilon=np.array([0.1, 10.0]))
    with pytest.raises(ValueError, match="epsilon"):
        LazyDoublingPrivateMean(3, 1, epsilon=[0.1, 10.0], rng=0)


@pytest.mark.parametrize("bad, exc", [(0, ValueError), (-1, ValueError), ("1", TypeError),
                                      (np.nan, ValueError), (None, TypeError)])
def test_invalid_epsilon(bad, exc):
    with pytest.raises(exc, match="epsilon"):
        LazyDoublingPrivateMean(1, 2, epsilon=bad, rng=0)


def test_guarantee_scalar():
    assert LazyDoublingPrivateMean(3, 2, epsilon=0.25, rng=0).guarantee == PureDP(0.25)


# ---- privacy: the DP inequality on neighbouring reward streams ----------------------------------

def _tail_ratio(half_noise: bool, eps=1.0, n=200_000, seed=0):
    """P(release > threshold) under stream D' over that under its neighbour D.

    D and D' differ in one reward (the 5th pull of the arm, inside batch 2 of size 4). The
    event {mu_tilde > 1} lies beyond both batch means (3/4 and 1), where the Laplace density
    ratio is exactly e^eps: the worst case, so a half-noise mechanism (ratio e^{2 eps}) shows.
    """
    out = []
    for k, stream in enumerate(([1, 1, 1, 0, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1])):
        mech = LazyDoublingPrivateMean(n, 1, epsilon=eps, rng=seed + k,
                                       noise_multiplier=0.5 if half_noise else 1.0)
        feed(mech, 0, stream)
        out.append(np.mean(mech.mu_tilde[:, 0] > 1.0))
    p_d, p_dprime = out
    return p_dprime / p_d, p_d, p_dprime, n


def _ratio_upper(ratio, p_d, p_dprime, n, k=4.0):
    """Ratio plus k standard errors (delta method on two independent proportions)."""
    rel = np.sqrt((1 - p_d) / (n * p_d) + (1 - p_dprime) / (n * p_dprime))
    return ratio * (1 - k * rel), ratio * (1 + k * rel)


def test_neighbouring_streams_satisfy_dp_inequality():
    eps = 1.0
    ratio, p_d, p_dp, n = _tail_ratio(False, eps)
    lo, hi = _ratio_upper(ratio, p_d, p_dp, n)
    assert lo <= np.exp(eps)                  # never significantly above e^eps
    assert hi >= np.exp(eps)                  # and the event is tight: the test has power


def test_half_noise_variant_is_caught():
    eps = 1.0
    ratio, p_d, p_dp, n = _tail_ratio(True, eps)
    lo, _ = _ratio_upper(ratio, p_d, p_dp, n)
    assert lo > np.exp(eps)


def test_exact_privacy_loss_of_one_release_is_at_most_epsilon():
    """Analytic: the release (S + Z)/O has density Lap(S/O, 1/(eps O)); S changes by <= 1."""
    from dpolearn.mechanisms import LaplaceMechanism

    eps, O = 0.5, 8
    mech = LaplaceMechanism(epsilon=eps)                 # released sum; the mean rescales it
    y = np.linspace(-20, 30, 2001)
    for s, s_prime in [(3.0, 4.0), (8.0, 7.0), (0.0, 1.0)]:
        loss = mech.privacy_loss(y * O, s, s_prime)
        assert np.max(np.abs(loss)) == pytest.approx(eps)
