"""Tests of DP-TS-UCB and M-TS-Gaussian (Hu, Huang, Zhang, Lécuyer and Hegde, ICML 2025).

Unit tests pin the formulas (phi, Theorem 4.4, the matching c), the sampling budget, the switch
to the UCB phase and the epoch schedule; a statistical test checks the posterior draws; the
privacy tests are white-box (compose the GDP levels of the Gaussian releases each observation
feeds) and must catch broken variants (one extra fresh draw, half the variance).
"""
import math

import numpy as np
import pytest

from dpolearn import BernoulliBandit, GaussianDP, GaussianTS, simulate
from dpolearn.bandits.dp_ts_ucb import (
    C0,
    DPTSUCB,
    MTSGaussian,
    dp_ts_ucb_gdp,
    match_c,
    mts_gaussian_gdp,
    sampling_budget,
)

MEANS = (0.95, 0.75, 0.55, 0.35, 0.15)


# ------------------------------------------------------------------ formulas
def test_constants():
    assert C0 == pytest.approx(4.132731354122493, rel=1e-15)
    assert math.sqrt(2 * C0) == pytest.approx(2.874971775, abs=1e-9)


@pytest.mark.parametrize("T, alpha, phi", [
    (10**6, 1.0, 57.0958), (10**6, 0.0, 212220.62), (10**6, 0.25, 27179.52),
    (10**6, 0.5, 3480.93), (10**6, 0.75, 445.81),
])
def test_sampling_budget(T, alpha, phi):
    assert sampling_budget(T, alpha) == pytest.approx(phi, abs=0.01)
    lnT = math.log(T)
    assert sampling_budget(T, alpha) == pytest.approx(
        C0 * T ** (0.5 * (1 - alpha)) * lnT ** (0.5 * (3 - alpha)), rel=1e-14)


@pytest.mark.parametrize("T", [10**3, 10**4, 10**6, 10**8, 12345])
def test_gdp_alpha_one_is_constant(T):
    assert DPTSUCB(alpha=1.0, horizon=T).guarantee.mu == pytest.approx(2.874972, abs=1e-6)


@pytest.mark.parametrize("T, alpha, mu", [
    (10**6, 0.0, 651.4916), (10**6, 0.25, 167.9152), (10**6, 0.5, 43.2784),
    (10**6, 0.75, 11.1546), (10**3, 0.0, 68.8868), (10**4, 0.25, 56.3688),
    (10**5, 0.5, 30.3095), (10**7, 0.75, 13.2588),
])
def test_guarantee_is_theorem_4_4(T, alpha, mu):
    g = DPTSUCB(alpha=alpha, horizon=T).guarantee
    assert isinstance(g, GaussianDP)
    assert g.mu == pytest.approx(mu, abs=1e-4)
    lnT = math.log(T)                          # the closed form of Theorem 4.4
    assert g.mu == pytest.approx(
        math.sqrt(2 * C0 * T ** (0.5 * (1 - alpha)) * lnT ** (1.5 * (1 - alpha))), rel=1e-12)


def test_literal_theorem_4_6():
    assert dp_ts_ucb_gdp(10**6, 1.0, literal_thm46=True) == pytest.approx(10.6860, abs=1e-4)
    assert dp_ts_ucb_gdp(10**6, 0.25, literal_thm46=True) == pytest.approx(233.1502, abs=1e-4)
    # both readings agree at alpha = 0 only
    assert dp_ts_ucb_gdp(10**6, 0.0, literal_thm46=True) == pytest.approx(dp_ts_ucb_gdp(10**6, 0.0))
    p = DPTSUCB(alpha=1.0, horizon=10**6, literal_thm46=True)
    assert p.guarantee.mu == pytest.approx(10.6860, abs=1e-4)


def test_guarantee_batched():
    alphas = np.repeat([0.0, 1.0], 3)
    g = DPTSUCB(alpha=alphas, horizon=10**6).guarantee
    np.testing.assert_allclose(g.mu, np.repeat([651.4916, 2.874972], 3), atol=1e-4)


@pytest.mark.parametrize("b, c", [(0, 5.0), (0, 69.07755), (1, 1.178)])
def test_mts_gdp_formula(b, c):
    assert mts_gaussian_gdp(10**6, b, c) == pytest.approx(math.sqrt(10**6 / (c * (b + 1))))
    assert MTSGaussian(b=b, c=c, horizon=10**6).guarantee.mu == pytest.approx(
        math.sqrt(10**6 / (c * (b + 1))))


def test_mts_gdp_figure_4_values():
    alphas = np.array([0, 0.25, 0.5, 0.75, 1])
    c = 5 * np.log(1e6) ** alphas
    np.testing.assert_allclose(c, [5, 9.63966, 18.58461, 35.82987, 69.07755], atol=1e-5)
    np.testing.assert_allclose(mts_gaussian_gdp(10**6, 0, c),
                               [447.2136, 322.0840, 231.9654, 167.0619, 120.3183], atol=1e-4)


@pytest.mark.parametrize("alpha, b, c", [
    (0.0, 1, 1.178), (1.0, 2000, 60.46),                    # the paper's reported values
    (0.0, 0, 2.35604), (0.0, 500, 0.00470267), (1.0, 0, 120985), (1.0, 100000, 1.20984),
])
def test_match_c(alpha, b, c):
    assert match_c(10**6, alpha, b) == pytest.approx(c, rel=5e-4)


@pytest.mark.parametrize("alpha", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("b", [0, 1, 2000])
def test_match_c_equates_gdp(alpha, b):
    c = match_c(10**6, alpha, b)
    assert mts_gaussian_gdp(10**6, b, c) == pytest.approx(dp_ts_ucb_gdp(10**6, alpha), rel=1e-12)


# ------------------------------------------------------------------ validation
@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(alpha=-0.1, horizon=100), ValueError, "alpha"),
    (dict(alpha=1.5, horizon=100), ValueError, "alpha"),
    (dict(alpha=float("nan"), horizon=100), ValueError, "alpha"),
    (dict(alpha="1", horizon=100), TypeError, "alpha"),
    (dict(alpha=0.5, horizon=2), ValueError, "horizon"),
    (dict(alpha=0.5, horizon=100.5), ValueError, "horizon"),
    (dict(alpha=0.5, horizon="100"), TypeError, "horizon"),
    (dict(alpha=0.5, horizon=100, budget="round"), ValueError, "budget"),
    (dict(alpha=0.5, horizon=100, max_init="0"), TypeError, "max_init"),
])
def test_invalid_dp_ts_ucb(kwargs, exc, word):
    with pytest.raises(exc, match=word):
        DPTSUCB(**kwargs)


def test_keyword_only():
    with pytest.raises(TypeError):
        DPTSUCB(0.5, 100)                                    # noqa
    with pytest.raises(TypeError):
        MTSGaussian(1, 1.0, 100)                             # noqa


@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(b=-1, c=1.0, horizon=100), ValueError, "b"),
    (dict(b=1.5, c=1.0, horizon=100), ValueError, "b"),
    (dict(b=1, c=0.0, horizon=100), ValueError, "c"),
    (dict(b=1, c=1.0, horizon=1), ValueError, "horizon"),
])
def test_invalid_mts(kwargs, exc, word):
    with pytest.raises(exc, match=word):
        MTSGaussian(**kwargs)


def test_ledger_needs_tracking():
    p = DPTSUCB(alpha=1.0, horizon=100)
    p.reset(2, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="track_privacy"):
        p.privacy_ledger()


# ------------------------------------------------------------------ schedules
def _drive(policy, arms_seq, rewards_seq, n_arms, rng=0):
    """Feed a prescribed sequence of pulls (one run) and return per-round snapshots."""
    policy.reset(1, n_arms, np.random.default_rng(rng))
    snaps = []
    for t, (a, x) in enumerate(zip(arms_seq, rewards_seq), start=1):
        policy.select(t)
        snaps.append(dict(h=policy.h_.copy(), max=policy.max_.copy(), theta=policy.theta_.copy(),
                          fresh=policy.fresh_.copy()))
        policy.update(t, np.array([a]), np.array([x]))
        snaps[-1].update(mu_hat=policy.mu_hat_.copy(), n=policy.n_.copy(),
                         sd=policy.sd_.copy())
    return snaps


def test_epoch_schedule_and_forgetting():
    """Posterior of arm 0 rebuilt after pulls 1, 3, 7, 15, 31, 63 (epochs of 1, 2, 4, 8, 16,
    32 fresh observations), each time from that epoch's rewards only."""
    K, T = 2, 200
    rng = np.random.default_rng(3)
    rewards = rng.random(64)
    p = DPTSUCB(alpha=1.0, horizon=T)
    arms = [0, 1] + [0] * 62                    # init pulls, then arm 0 only
    snaps = _drive(p, arms, np.r_[rewards[0], 0.5, rewards[1:63]], K)
    pulls_of_0 = np.r_[0, np.arange(2, 64)]     # round indices (0-based) of arm 0's pulls
    obs = np.r_[rewards[0], rewards[1:63]]      # arm 0's observations in order
    rebuilds = [i for i in range(1, 64) if snaps[i]["n"][0, 0] != snaps[i - 1]["n"][0, 0]
                or snaps[i]["mu_hat"][0, 0] != snaps[i - 1]["mu_hat"][0, 0]]
    pulls_at_rebuild = [int(np.searchsorted(pulls_of_0, i) + 1) for i in rebuilds]
    assert pulls_at_rebuild == [3, 7, 15, 31, 63]
    start = 1
    for size, i in zip([2, 4, 8, 16, 32], rebuilds):
        assert snaps[i]["n"][0, 0] == size
        assert snaps[i]["mu_hat"][0, 0] == pytest.approx(obs[start:start + size].mean())
        assert snaps[i]["sd"][0, 0] == pytest.approx(math.sqrt(math.log(T) / size))
        start += size
    assert snaps[0]["n"][0, 0] == 1 and snaps[0]["mu_hat"][0, 0] == obs[0]   # epoch 0


def test_mean_not_updated_mid_epoch():
    """Fig. 2 of the paper: after pulls at t3, t4 the mean is (X3+X4)/2; not updated at t3."""
    p = DPTSUCB(alpha=0.5, horizon=1000)
    snaps = _drive(p, [0, 1, 0, 0], [0.2, 0.9, 1.0, 0.0], 2)
    assert snaps[2]["mu_hat"][0, 0] == 0.2                  # t3: still X1
    assert snaps[3]["mu_hat"][0, 0] == pytest.approx(0.5)   # t4: (X3 + X4) / 2


@pytest.mark.parametrize("alpha, T", [(1.0, 100), (1.0, 10**4), (0.75, 300)])
def test_budget_then_ucb_phase(alpha, T):
    """Arm 1 is never pulled after round K: it draws exactly floor(phi) fresh samples, then
    its index is frozen at MAX = max(0, those samples)."""
    K = 2
    phi = sampling_budget(T, alpha)
    n_budget = math.floor(phi)
    rounds = n_budget + 40
    p = DPTSUCB(alpha=alpha, horizon=T)
    snaps = _drive(p, [0, 1] + [0] * rounds, [1.0, 0.3] + [1.0] * rounds, K)
    fresh = np.array([s["fresh"][0, 1] for s in snaps[K:]])
    assert fresh.sum() == n_budget
    assert fresh[:n_budget].all() and not fresh[n_budget:].any()      # the switch
    draws = np.array([s["theta"][0, 1] for s in snaps[K:K + n_budget]])
    ucb = np.array([s["theta"][0, 1] for s in snaps[K + n_budget:]])
    assert np.all(ucb == max(0.0, draws.max()))
    assert snaps[K + n_budget - 1]["h"][0, 1] == pytest.approx(
        phi - n_budget
    )  # h = phi - floor(phi) < 1


def test_ceil_budget_and_max_init():
    T, alpha = 100, 1.0
    p = DPTSUCB(alpha=alpha, horizon=T, budget="ceil", max_init=-math.inf)
    snaps = _drive(p, [0, 1] + [0] * 60, [1.0, 0.3] + [1.0] * 60, 2)
    fresh = np.array([s["fresh"][0, 1] for s in snaps[2:]])
    assert fresh.sum() == math.ceil(sampling_budget(T, alpha))
    draws = np.array([s["theta"][0, 1] for s in snaps[2:]])[fresh]
    assert snaps[-1]["theta"][0, 1] == draws.max()          # -inf init: the largest draw


def test_budget_refilled_on_rebuild():
    """After arm 1's epoch completes its budget is phi again and MAX is reset."""
    T = 100
    p = DPTSUCB(alpha=1.0, horizon=T)
    snaps = _drive(p, [0, 1] + [0] * 30 + [1, 1], [1.0, 0.3] + [1.0] * 30 + [0.0, 0.0], 2)
    assert snaps[-2]["h"][0, 1] < 1                          # exhausted before the rebuild
    assert p.h_[0, 1] == pytest.approx(sampling_budget(T, 1.0))
    assert p.max_[0, 1] == 0.0 and p.n_[0, 1] == 2 and snaps[-1]["n"][0, 1] == 2


def test_initial_rounds_pull_each_arm():
    p = DPTSUCB(alpha=0.5, horizon=1000)
    p.reset(4, 3, np.random.default_rng(0))
    for t in (1, 2, 3):
        assert np.all(p.select(t) == t - 1)
        p.update(t, np.full(4, t - 1), np.ones(4))


# ------------------------------------------------------------------ statistics
def test_fresh_draws_follow_posterior():
    """TS-phase indices are N(mu_hat, ln^a(T)/n): the standardised draws have mean 0 and
    variance 1 within 5 standard errors (n = 200 runs x 5 arms x 200 rounds)."""
    p = DPTSUCB(alpha=0.5, horizon=10**6)                  # phi ~ 3481: TS phase throughout
    env = BernoulliBandit(MEANS)
    n_runs = 200
    env.reset(n_runs, np.random.default_rng(1))
    p.reset(n_runs, 5, np.random.default_rng(2))
    zs = []
    for t in range(1, 206):
        arms = p.select(t)
        if t > 5:
            assert p.fresh_.all()
            zs.append(((p.theta_ - p.mu_hat_) / p.sd_).ravel())
        p.update(t, arms, env.pull(t, arms))
    z = np.concatenate(zs)
    n = z.size
    assert abs(z.mean()) < 5 / math.sqrt(n)
    assert abs(z.var() - 1) < 5 * math.sqrt(2 / n)
    np.testing.assert_allclose(p.sd_, np.sqrt(np.log(1e6) ** 0.5 / p.n_))


def test_batched_sweep_matches_single_configurations():
    """An alpha sweep as one batch behaves like separate runs: final regret of each block vs a
    separate simulation, within 5 combined standard errors; n_runs = 1 slices of the batch
    report the per-row guarantee."""
    T, n = 3000, 60
    alphas = np.array([0.0, 1.0])
    batch = simulate(DPTSUCB(alpha=np.repeat(alphas, n), horizon=T), BernoulliBandit(MEANS),
                     T, n_runs=2 * n, seed=11, progress=False)
    for a, block in zip(alphas, batch.split(2)):
        single = simulate(DPTSUCB(alpha=a, horizon=T), BernoulliBandit(MEANS), T, n_runs=n,
                          seed=12, progress=False)
        se = math.hypot(block.final_se, single.final_se)
        assert abs(block.final_mean - single.final_mean) < 5 * se
    one = simulate(DPTSUCB(alpha=1.0, horizon=T), BernoulliBandit(MEANS), T, n_runs=1,
                   seed=3, progress=False)
    assert one.regret.shape == (1, len(one.checkpoints)) and one.pulls.sum() == T
    assert one.guarantee == GaussianDP(mu=dp_ts_ucb_gdp(T, 1.0))


def test_batched_horizons_rows_follow_their_own_T():
    """Rows with different T use their own phi: with T = 100 the budget is 19 draws."""
    p = DPTSUCB(alpha=1.0, horizon=np.array([100, 10**6]))
    p.reset(2, 2, np.random.default_rng(0))
    for t in (1, 2):
        p.select(t)
        p.update(t, np.full(2, t - 1), np.ones(2))
    np.testing.assert_allclose(p.h_[:, 0], [sampling_budget(100, 1.0), sampling_budget(10**6, 1.0)])


def test_same_seed_same_result():
    kw = dict(horizon=2000, n_runs=4, seed=5, progress=False)
    r1 = simulate(DPTSUCB(alpha=0.5, horizon=2000), BernoulliBandit(MEANS), **kw)
    r2 = simulate(DPTSUCB(alpha=0.5, horizon=2000), BernoulliBandit(MEANS), **kw)
    np.testing.assert_array_equal(r1.regret, r2.regret)


def test_regret_sublinear_and_learns():
    """A sanity bound that can fail: after 20000 rounds the best arm has most pulls."""
    r = simulate(DPTSUCB(alpha=0.0, horizon=20000), BernoulliBandit(MEANS), 20000, n_runs=10,
                 seed=1, progress=False)
    assert np.all(r.pulls[:, 0] > 0.8 * 20000)
    assert r.final_mean < 0.2 * 2.0 * 20000 / 5        # far below uniform play's regret


# ------------------------------------------------------------------ white-box privacy
class _ExtraDraw(DPTSUCB):
    """Broken: one fresh draw more than floor(phi) per posterior."""

    def reset(self, n_runs, n_arms, rng):
        super().reset(n_runs, n_arms, rng)
        self._budget = self._budget + 1


class _HalfVariance(DPTSUCB):
    """Broken: posterior variance ln^a(T)/(2n) instead of ln^a(T)/n."""

    def _posterior_sd(self, rows, n):
        return np.sqrt(self._v[rows, 0] / (2 * n))


def _ledger(cls, alpha, T, n_runs=8, seed=0):
    p = cls(alpha=alpha, horizon=T, track_privacy=True)
    simulate(p, BernoulliBandit(MEANS), T, n_runs=n_runs, seed=seed, progress=False)
    return p, p.privacy_ledger()


def _external_accountant(cls, alpha, T, n_runs=3, seed=0):
    """Independent re-count from the outside of the policy: step it, count per (run, arm,
    posterior) the fresh draws (h decreased by one) and add (sensitivity / sd)^2 =
    (1 / (n sd))^2 with the n and sd the posterior actually had.

    Returns the policy, the worst composed level of a single observation (n_runs,), and the
    largest ratio of a posterior's composed mu^2 to the proof's per-posterior bound
    floor(phi) / (n ln^a T)."""
    p = cls(alpha=alpha, horizon=T, track_privacy=True)
    env = BernoulliBandit(MEANS)
    env.reset(n_runs, np.random.default_rng(seed))
    p.reset(n_runs, 5, np.random.default_rng(seed + 1))
    per_post_bound = math.floor(sampling_budget(T, alpha)) / math.log(T) ** alpha
    open_mu2 = np.zeros((n_runs, 5))
    worst = np.zeros(n_runs)
    ratio = 0.0
    for t in range(1, T + 1):
        h_before = p.h_.copy()
        arms = p.select(t)
        drew = (h_before - p.h_) == 1
        open_mu2 += drew / (p.n_ * p.sd_) ** 2
        n_before, mu_before = p.n_.copy(), p.mu_hat_.copy()
        p.update(t, arms, env.pull(t, arms))
        rebuilt = (p.n_ != n_before) | (p.mu_hat_ != mu_before) | (p.h_ > h_before)
        closing = np.where(rebuilt, open_mu2, 0.0)
        worst = np.maximum(worst, closing.max(axis=1))
        ratio = max(ratio, float((closing * n_before / per_post_bound).max()))
        open_mu2[rebuilt] = 0.0
    worst = np.maximum(worst, open_mu2.max(axis=1))
    ratio = max(ratio, float((open_mu2 * p.n_ / per_post_bound).max()))
    return p, np.sqrt(worst), ratio


@pytest.mark.parametrize("alpha, T", [(1.0, 3000), (0.75, 3000), (1.0, 200)])
def test_white_box_privacy(alpha, T):
    """Compose the GDP levels of every Gaussian release that one observation feeds.

    The proof's step 2 bounds the TS phase by sqrt(phi / ln^a T) (n = 1 is the worst case);
    Theorem 4.4 doubles it in quadrature. The observed worst case must respect both."""
    p, led = _ledger(DPTSUCB, alpha, T)
    bound_step2 = math.sqrt(sampling_budget(T, alpha) / math.log(T) ** alpha)
    assert np.all(led <= bound_step2 + 1e-12)
    assert np.all(math.sqrt(2) * led <= p.guarantee.mu + 1e-12)
    assert np.all(led <= p.tight_gdp() + 1e-12)
    assert np.all(led > 0)


@pytest.mark.parametrize("alpha, T", [(1.0, 2000), (0.75, 1500)])
def test_per_posterior_accounting_is_exact(alpha, T):
    """Per posterior: floor(phi) draws, each (1/n)/sqrt(ln^a T / n)-GDP, compose to exactly
    floor(phi)/(n ln^a T) in mu^2 when the budget is used up (it is, many times)."""
    p, ext, ratio = _external_accountant(DPTSUCB, alpha, T)
    assert ratio == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(ext, p.privacy_ledger(), rtol=1e-12)   # ledger == outside count


@pytest.mark.parametrize("broken, excess", [(_ExtraDraw, "extra"), (_HalfVariance, 2.0)])
@pytest.mark.parametrize("alpha, T", [(1.0, 2000), (0.75, 1500)])
def test_white_box_catches_broken_variants(broken, excess, alpha, T):
    _, _, ratio = _external_accountant(broken, alpha, T)
    n_budget = math.floor(sampling_budget(T, alpha))
    expected = (n_budget + 1) / n_budget if excess == "extra" else excess
    assert ratio == pytest.approx(expected, rel=1e-12)
    assert ratio > 1.0


@pytest.mark.parametrize("alpha, T", [(1.0, 3000), (0.75, 3000)])
def test_normalised_ledger_is_sharp(alpha, T):
    """n * (sum of mu^2) of every posterior <= floor(phi)/ln^a T, with equality when the
    budget is used up; both broken variants exceed it."""
    sharp = math.sqrt(math.floor(sampling_budget(T, alpha)) / math.log(T) ** alpha)
    p, _ = _ledger(DPTSUCB, alpha, T)
    np.testing.assert_allclose(p.privacy_ledger(normalised=True), sharp, rtol=1e-12)
    for broken in (_ExtraDraw, _HalfVariance):
        q, _ = _ledger(broken, alpha, T)
        assert np.all(q.privacy_ledger(normalised=True) > sharp * (1 + 1e-6))


def test_ucb_phase_adds_no_privacy_loss():
    """Arms frozen in the UCB phase for thousands of rounds add nothing to the ledger."""
    p, led = _ledger(DPTSUCB, 1.0, 5000, n_runs=4)
    assert np.all(led <= np.sqrt(np.floor(sampling_budget(5000, 1.0)) / math.log(5000)) + 1e-12)


# ------------------------------------------------------------------ M-TS-Gaussian
def test_mts_reduces_to_gaussian_ts():
    kw = dict(horizon=1500, n_runs=5, seed=4, progress=False)
    a = simulate(MTSGaussian(b=0, c=1.0, horizon=1500), BernoulliBandit(MEANS), **kw)
    b = simulate(GaussianTS(), BernoulliBandit(MEANS), **kw)
    np.testing.assert_array_equal(a.regret, b.regret)


def test_mts_prepulls_round_robin():
    b, K = 3, 5
    r = simulate(MTSGaussian(b=b, c=1.0, horizon=10**4), BernoulliBandit(MEANS), b * K,
                 n_runs=3, seed=0, checkpoints=[5, 10, 15], progress=False)
    assert np.all(r.pulls == b)
    np.testing.assert_allclose(r.regret, np.tile([2.0, 4.0, 6.0], (3, 1)))   # b * sum(gaps)


def test_mts_batched_b_and_c():
    p = MTSGaussian(b=np.array([0, 0, 2000, 2000]), c=np.array([1.0, 1.0, 60.46, 60.46]),
                    horizon=10**6)
    r = simulate(p, BernoulliBandit(MEANS), 3000, n_runs=4, seed=0, progress=False)
    np.testing.assert_allclose(r.regret[2:, -1], 3000 * 2.0 / 5)     # still pre-pulling
    assert np.all(r.regret[:2, -1] < 600)
    np.testing.assert_allclose(p.guarantee.mu[2:], dp_ts_ucb_gdp(10**6, 1.0), rtol=1e-3)


def _mts_ledger(c_scale_in_draw, b, c, T):
    """Means (1, 0): after the pre-pulls arm 1 is (almost surely) never pulled again, so its
    first observation feeds T - bK draws with k = b: the quoted bound is nearly attained."""
    p = MTSGaussian(b=b, c=c, horizon=T, track_privacy=True,
                    noise_multiplier=math.sqrt(c_scale_in_draw))
    simulate(p, BernoulliBandit([1.0, 0.0]), T, n_runs=4, seed=0, progress=False)
    return p, p.privacy_ledger()


def test_mts_white_box_privacy_and_broken_variant():
    T, b, c = 4000, 1, 0.01
    p, led = _mts_ledger(1.0, b, c, T)
    assert np.all(led <= p.guarantee.mu + 1e-9)
    assert np.all(led >= 0.9 * p.guarantee.mu)                  # nearly tight here
    broken, led_broken = _mts_ledger(0.5, b, c, T)              # half the variance
    assert np.all(led_broken > p.guarantee.mu)
    assert np.all(led_broken <= broken.guarantee.mu + 1e-9)     # ... reported honestly


# ------------------------------------------------------------------ experiments module
def test_eps_delta_table_values():
    """The (eps, delta) table of the chapter: Theorem 4.4's mu converted by Theorem 2.4 of Hu et
    al. (2025), values computed independently of the package."""
    from dpolearn.experiments.hu2025 import eps_delta_table

    rows = {r["alpha"]: r for r in eps_delta_table(10**6)}
    assert rows[1.0]["eps_at_delta=1e-05"] == pytest.approx(15.7839, abs=1e-4)
    assert rows[1.0]["eps_at_delta=1e-06"] == pytest.approx(17.2109, abs=1e-4)
    assert rows[1.0]["eps46_at_delta=1e-05"] == pytest.approx(101.83, abs=0.01)
    assert rows[1.0]["delta_at_eps=1"] == pytest.approx(0.761206, abs=1e-6)
    assert rows[0.75]["eps_at_delta=1e-05"] == pytest.approx(108.94, abs=0.01)
    assert rows[0.5]["eps_at_delta=1e-05"] == pytest.approx(1120.13, abs=0.01)
    assert rows[0.25]["eps_at_delta=1e-05"] == pytest.approx(14812.91, abs=0.01)
    assert rows[0.0]["eps_at_delta=1e-05"] == pytest.approx(214998.17, abs=0.05)
    assert rows[0.0]["floor_phi"] == 212220


def test_experiment_tasks_split_and_do_not_depend_on_jobs():
    from dpolearn.experiments import derive_seed, parallel_map
    from dpolearn.experiments.hu2025 import ALPHAS, MEANS, _task

    tasks = [("dpts", MEANS, 300, 2, dict(alpha=ALPHAS), derive_seed("test", 1)),
             ("mtsg", MEANS, 300, 2, dict(b=[0, 1], c=[1.0, 2.0]), derive_seed("test", 2))]
    one = parallel_map(_task, tasks, 1)
    two = parallel_map(_task, tasks, 2)
    assert [len(p) for p in one] == [5, 2]
    for p1, p2 in zip(one, two):
        for r1, r2 in zip(p1, p2):
            np.testing.assert_array_equal(r1.regret, r2.regret)
            assert r1.n_runs == 2 and r1.checkpoints[-1] == 300
    assert [r.params["alpha"] for r in one[0]] == list(ALPHAS)
    assert one[0][-1].guarantee == GaussianDP(mu=dp_ts_ucb_gdp(300, 1.0))
    assert one[1][1].guarantee == GaussianDP(mu=mts_gaussian_gdp(300, 1, 2.0))


def test_ceil_budget_guarantee_and_tight_gdp():
    T = 10**6
    lnT = math.log(T)
    p = DPTSUCB(alpha=1.0, horizon=T, budget="ceil")
    assert p.budget_draws == 58
    assert p.guarantee.mu == pytest.approx(math.sqrt(2 * 58 / lnT))       # what is drawn
    assert DPTSUCB(alpha=1.0, horizon=T).tight_gdp() == pytest.approx(math.sqrt(57 / lnT))
    assert DPTSUCB(alpha=0.0, horizon=T).tight_gdp() == pytest.approx(math.sqrt(212220))
