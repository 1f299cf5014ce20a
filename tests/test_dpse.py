"""Tests of DP-SE (Sajed and Sheffet 2019; the baseline of Hu et al. 2021, Sec. 6)."""
import numpy as np
import pytest

from dpolearn import BernoulliBandit, GaussianBandit, PrivacyAssumptionWarning, simulate
from dpolearn.accounting import PureDP
from dpolearn.bandits import DPSE
from dpolearn.bandits.dpse import dpse_epoch_length


def by_hand(e, s, eps, beta, form):
    delta = 0.5 ** e
    a = 32 * np.log(8 * s * e * e / beta) / delta ** 2
    b = 8 * np.log(4 * s * e * e / beta) / (eps * delta)
    return np.ceil(max(a, b) if form == "max" else a + b)


# ---- epoch lengths ------------------------------------------------------------------------------

def test_epoch_length_pinned_values():
    # e = 1, s = 5, eps = 1, beta = 1e-5: A = 128 ln(4e6) = 1945.8..., B = 16 ln(2e6) = 232.1...
    assert dpse_epoch_length(1, 5, 1.0, 1e-5, "max") == 1946
    assert dpse_epoch_length(1, 5, 1.0, 1e-5, "sum") == 2178
    # small epsilon: the privacy term dominates the max
    assert dpse_epoch_length(1, 5, 0.01, 1e-5, "max") == np.ceil(1600 * np.log(2e6))


@pytest.mark.parametrize("form", ["max", "sum"])
@pytest.mark.parametrize("e, s, eps, beta", [(1, 5, 0.25, 1e-6), (3, 4, 0.5, 1e-6),
                                             (7, 2, 1.0, 1e-5), (2, 3, 10.0, 0.1)])
def test_epoch_length_formula(form, e, s, eps, beta):
    assert dpse_epoch_length(e, s, eps, beta, form) == by_hand(e, s, eps, beta, form)


def test_epoch_lengths_used_by_the_policy_and_round_robin_order():
    T = 10**5
    p = DPSE(epsilon=1.0, horizon=T, beta=1e-3)
    p.reset(2, 3, np.random.default_rng(0))
    R1 = by_hand(1, 3, 1.0, 1e-3, "max")
    assert p.epoch_length_[0] == R1
    seq = []
    for t in range(1, int(3 * R1) + 1):
        arms = p.select(t)
        seq.append(arms[0])
        p.update(t, arms, np.array([1.0, 1.0]) * (arms == 0))   # arm 0 clearly best
    np.testing.assert_array_equal(seq, np.tile([0, 1, 2], int(R1)))
    # epoch 1 over: arms 1 and 2 (mean 0 vs 1) are eliminated
    assert p.active_.tolist() == [[True, False, False]] * 2
    assert p.epoch_.tolist() == [2, 2] and p.n_active_.tolist() == [1, 1]
    assert np.all(p.select(int(3 * R1) + 1) == 0)


def test_epoch_length_capped_at_horizon():
    p = DPSE(epsilon=1.0, horizon=50)
    p.reset(1, 2, np.random.default_rng(0))
    assert p.epoch_length_[0] == 50


# ---- elimination rule ---------------------------------------------------------------------------

def test_elimination_rule_threshold():
    """Arms with max mean - mean > 2 (h_e + c_e) go, the others stay (noise made negligible)."""
    eps, beta, R = 1e9, 1e-3, 1000
    p = DPSE(epsilon=eps, horizon=10**6, beta=beta)
    p.reset(1, 4, np.random.default_rng(0))
    p.epoch_length_[:] = R
    s, e = 4, 1
    h = np.sqrt(np.log(8 * s * e * e / beta) / (2 * R))
    c = np.log(4 * s * e * e / beta) / (eps * R)
    thr = 2 * (h + c)
    means = np.array([0.8, 0.8 - thr + 1e-4, 0.8 - thr - 1e-4, 0.1])
    p._eliminate(np.array([0]), (means * R)[None, :])
    assert p.active_.tolist() == [[True, True, False, False]]
    assert p.n_active_[0] == 2 and p.epoch_[0] == 2
    assert p.epoch_length_[0] == by_hand(2, 2, eps, beta, "max")


def test_eliminated_arms_stay_eliminated_and_best_survives():
    res_pol = DPSE(epsilon=0.5, horizon=20_000, beta=0.05)
    simulate(res_pol, BernoulliBandit((0.9, 0.5, 0.45)), 20_000, 30, seed=1, progress=False)
    assert res_pol.active_[:, 0].mean() > 0.9
    assert np.all(res_pol.active_.sum(axis=1) >= 1)


# ---- parameters ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, exc, name", [
    ({"epsilon": 0, "horizon": 10}, ValueError, "epsilon"),
    ({"epsilon": "a", "horizon": 10}, TypeError, "epsilon"),
    ({"epsilon": 1.0, "horizon": 0}, ValueError, "horizon"),
    ({"epsilon": 1.0, "horizon": 10.5}, TypeError, "horizon"),
    ({"epsilon": 1.0, "horizon": 10, "r_e_form": "min"}, ValueError, "r_e_form"),
    ({"epsilon": 1.0, "horizon": 10, "beta": 1.5}, ValueError, "beta"),
    ({"epsilon": 1.0, "horizon": 10, "beta": 0.0}, ValueError, "beta")])
def test_invalid_parameters(kwargs, exc, name):
    with pytest.raises(exc, match=name):
        DPSE(**kwargs)


def test_defaults_label_guarantee():
    p = DPSE(epsilon=0.25, horizon=1000)
    assert p.label == "DP-SE" and p.r_e_form == "max" and p.beta == pytest.approx(1e-3)
    assert p.guarantee == PureDP(0.25)
    with pytest.raises(TypeError):
        DPSE(0.25, 1000)                          # keyword-only


# ---- block simulation agrees with the round-by-round algorithm ----------------------------------

def _loop(policy, env, T, n, seed, ck):
    return simulate(policy, env, T, n, seed=seed, checkpoints=ck, progress=False,
                    block_updates=False)


@pytest.mark.parametrize("form", ["max", "sum"])
def test_block_simulation_agrees_in_distribution(form):
    T, ck = 12_000, [1000, 3001, 6000, 9000, 12_000]
    env = BernoulliBandit((0.8, 0.55, 0.5))
    fast = [simulate(DPSE(epsilon=e, horizon=T, beta=0.2, r_e_form=form), env, T, 2000,
                     seed=5, checkpoints=ck, progress=False) for e in (0.5, 4.0)]
    slow = [_loop(DPSE(epsilon=e, horizon=T, beta=0.2, r_e_form=form), env, T, 150, 6, ck)
            for e in (0.5, 4.0)]
    for f, s in zip(fast, slow):
        for j in range(len(ck)):
            se = np.hypot(f.se()[j], s.se()[j]) + 1e-9
            assert abs(f.mean()[j] - s.mean()[j]) < 4 * se + 1e-6, (j, f.mean(), s.mean())
        pf, ps = f.pulls.mean(0), s.pulls.mean(0)
        sp = np.hypot(f.pulls.std(0) / np.sqrt(f.n_runs), s.pulls.std(0) / np.sqrt(s.n_runs))
        assert np.all(np.abs(pf - ps) <= 4 * sp + 1e-6)
        np.testing.assert_array_equal(f.pulls.sum(1), T)


def test_block_simulation_exact_when_regret_is_deterministic():
    """A huge gap is eliminated after epoch 1 in every run: regret is known in closed form."""
    T, beta = 5000, 0.5
    res = simulate(DPSE(epsilon=5.0, horizon=T, beta=beta), BernoulliBandit((1.0, 0.0)), T, 5,
                   seed=0, checkpoints=[1, 2, 3, 100, T], progress=False)
    R1 = by_hand(1, 2, 5.0, beta, "max")
    np.testing.assert_array_equal(res.regret[0], [0, 1, 1, 50, R1])
    np.testing.assert_array_equal(res.pulls[0], [T - R1, R1])


def test_env_without_block_draws_runs_round_by_round():
    with pytest.warns(PrivacyAssumptionWarning):          # Gaussian rewards: no guarantee
        res = simulate(DPSE(epsilon=1.0, horizon=500, beta=0.5),
                       GaussianBandit((0.5, 0.0), 0.1), 500, 2, seed=0, progress=False)
    assert res.pulls.sum() == 1000


# ---- privacy ------------------------------------------------------------------------------------

class HalfNoiseDPSE(DPSE):
    """Deliberately broken: noise Lap(1/(2 eps R_e)), thresholds unchanged."""

    def _noise_scale(self, rows, R):
        return 0.5 * super()._noise_scale(rows, R)


def _elim_prob(policy, s0, n=200_000, seed=0):
    """P(arm 0 eliminated after epoch 1) when arm 0's epoch sum is s0 and arm 1's is R."""
    policy.reset(n, 2, np.random.default_rng(seed))
    R = policy.epoch_length_[0]
    policy._eliminate(np.arange(n), np.column_stack([np.full(n, s0), np.full(n, float(R))]))
    return np.mean(~policy.active_[:, 0]), R


def test_neighbouring_epoch_sums_satisfy_dp_inequality_and_half_noise_is_caught():
    """Arm 0's epoch sum differs by one reward between neighbours (sensitivity 1 on the sum).

    Elimination of arm 0 happens iff Z_0 - Z_1 < (S_0 - R) + R tau with Z ~ Lap(1/eps) on the
    sums; choosing S_0 so that the event sits ~2 noise scales into the tail makes the
    likelihood ratio close to e^eps (exact value 2.04 for a = 2) and e^{2 eps}-ish for half
    noise (4.4 or more).
    """
    eps, beta, n = 1.0, 1e-3, 200_000
    p = DPSE(epsilon=eps, horizon=10**6, beta=beta)
    p.reset(1, 2, np.random.default_rng(0))
    R = p.epoch_length_[0]
    h = np.sqrt(np.log(8 * 2 / beta) / (2 * R))
    c = np.log(4 * 2 / beta) / (eps * R)
    # eliminated iff (Z_1 - Z_0) > a with a = R tau - (R - S_0); put a near 2/eps
    s0 = float(np.round(R - R * 2 * (h + c) + 2.0))
    for half, check in ((False, "ok"), (True, "caught")):
        pol = (HalfNoiseDPSE if half else DPSE)(epsilon=eps, horizon=10**6, beta=beta)
        p_a, _ = _elim_prob(pol, s0 - 1.0, n, seed=1)   # neighbour: one reward lower
        p_b, _ = _elim_prob(pol, s0, n, seed=2)
        ratio = p_a / p_b
        rel = np.sqrt((1 - p_a) / (n * p_a) + (1 - p_b) / (n * p_b))
        if check == "ok":
            assert ratio * (1 - 4 * rel) <= np.exp(eps)
            assert ratio > 1.5                    # the event is informative
        else:
            assert ratio * (1 - 4 * rel) > np.exp(eps)


def test_each_reward_enters_one_epoch_sum_only():
    """White-box: the epoch sums restart at zero after every elimination step."""
    T = 3000
    p = DPSE(epsilon=1.0, horizon=T, beta=0.5)
    p.reset(1, 2, np.random.default_rng(0))
    total = 0.0
    R1 = int(p.epoch_length_[0])
    for t in range(1, 2 * R1 + 1):
        arms = p.select(t)
        p.update(t, arms, np.array([1.0]))
        total += 1.0
        if t < 2 * R1:
            assert p._sums.sum() == total
    assert p._sums.sum() == 0.0


def test_single_run_slices_behave_like_the_batch():
    """n_runs = 1 simulations have the distribution of the rows of one batch."""
    T, n = 20_000, 150
    env = BernoulliBandit((0.8, 0.6, 0.55))
    batch = simulate(DPSE(epsilon=[0.5, 2.0] * (n // 2), horizon=T, beta=0.1), env, T, n,
                     seed=1, progress=False)
    single = np.array([simulate(DPSE(epsilon=e, horizon=T, beta=0.1), env, T, 1, seed=100 + i,
                                progress=False).final_mean
                       for i, e in enumerate([0.5, 2.0] * (n // 2))])
    se = np.hypot(batch.final_se, single.std(ddof=1) / np.sqrt(n))
    assert abs(batch.final_mean - single.mean()) < 4 * se
