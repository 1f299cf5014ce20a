"""RNM-FTNL and naive FTNL: schedule, noise scales, guarantees, privacy on neighbouring inputs."""
import numpy as np
import pytest

import dpolearn as dpl
from dpolearn.accounting import PureDP
from dpolearn.fullinfo import RNMFTNL, NaiveFTNL
from dpolearn.fullinfo.epoch_sim import privacy_loss_two_actions
from dpolearn.fullinfo.rnm_ftnl import (
    SCALE_FACTORS,
    WU2025_TABLE2,
    epoch_bounds,
    epoch_of,
    n_epochs,
)
from dpolearn.mechanisms import ReportNoisyMax
from dpolearn.mechanisms.noisy_max import selection_probabilities as rnm_probabilities
from dpolearn.simulate import play_blocks

NOISES = ("laplace", "exponential", "gumbel")


def play(policy, losses, n_runs=1, seed=0):
    """Round-by-round play on a fixed loss sequence (T, K); returns actions, shape (T, n_runs)."""
    T, K = losses.shape
    policy.reset(n_runs, K, np.random.default_rng(seed))
    out = np.empty((T, n_runs), dtype=int)
    for t in range(1, T + 1):
        out[t - 1] = policy.select(t)
        policy.update(t, out[t - 1], np.broadcast_to(losses[t - 1], (n_runs, K)))
    return out


# --- schedule -------------------------------------------------------------------------------
def test_epoch_schedule():
    assert [epoch_of(t) for t in (1, 2, 3, 4, 5, 7, 8, 15, 16)] == [1, 2, 2, 3, 3, 3, 4, 4, 5]
    assert [epoch_bounds(r) for r in (1, 2, 3, 4)] == [(1, 1), (2, 3), (4, 7), (8, 15)]
    assert [n_epochs(T) for T in (1, 2, 3, 4, 7, 8)] == [1, 2, 2, 3, 3, 4]
    assert n_epochs(2 ** 30 - 1) == 30 and n_epochs(2 ** 30) == 31
    big = np.array([2 ** 40 - 1, 2 ** 40])
    assert epoch_of(big).tolist() == [40, 41]
    with pytest.raises(ValueError, match="t must be >= 1"):
        epoch_of(0)


@pytest.mark.parametrize("noise", NOISES)
def test_decisions_change_only_at_powers_of_two(noise):
    rng = np.random.default_rng(1)
    losses = rng.random((200, 4))
    acts = play(RNMFTNL(epsilon=0.3, noise=noise), losses, n_runs=50)
    changed = (
        np.flatnonzero(np.any(acts[1:] != acts[:-1], axis=1)) + 2
    )  # rounds t with I_t != I_{t-1}
    assert changed.size > 0
    assert all((t & (t - 1)) == 0 for t in changed)                         # t is a power of 2


def test_noiseless_decision_uses_previous_epoch_only():
    # Epoch 3 (rounds 4..7) makes action 2 the leader of that epoch, while action 0 leads overall.
    losses = np.full((15, 3), 0.5)
    losses[:3] = [0.0, 1.0, 1.0]          # rounds 1..3: action 0 far ahead
    losses[3:7] = [0.6, 0.9, 0.1]         # epoch 3: action 2 best in this epoch only
    acts = play(RNMFTNL(epsilon=np.inf, first_action="first"), losses)[:, 0]
    assert acts[0] == 0                   # J_0 = first action
    assert set(acts[1:3]) == {0}          # J_1 from round 1
    assert set(acts[3:7]) == {0}          # J_2 from rounds 2..3
    assert set(acts[7:15]) == {2}         # J_3 from rounds 4..7 only (FTL would stay on 0)
    ftl = play(dpl.FTL(), losses)[:, 0]
    assert ftl[8] == 0


@pytest.mark.parametrize("resample", [False, True])
def test_forgetting_older_epochs_do_not_matter(resample):
    # Same seed, sequences that differ only in epochs 1..3: the action of epoch 5 (from epoch 4)
    # must be identical run by run (noise and resampling draws are consumed identically).
    rng = np.random.default_rng(2)
    a = rng.random((31, 5))
    b = a.copy()
    b[:7] = rng.random((7, 5))
    pa = play(RNMFTNL(epsilon=0.5, resample=resample), a, n_runs=200, seed=9)
    pb = play(RNMFTNL(epsilon=0.5, resample=resample), b, n_runs=200, seed=9)
    assert np.array_equal(pa[15:31], pb[15:31])
    assert not np.array_equal(pa[7:15], pb[7:15])       # epoch 4 plays J_3, which did change


# --- noise scales and guarantees ------------------------------------------------------------
@pytest.mark.parametrize("scale", sorted(SCALE_FACTORS))
@pytest.mark.parametrize("noise", NOISES)
def test_noise_scale_of_named_scales(scale, noise):
    eps = np.array([0.25, 1.0, 4.0])
    p = RNMFTNL(epsilon=eps, noise=noise, noise_factor=scale)
    p.reset(3, 4, np.random.default_rng(0))
    c = {"strict": 2.0, "hu2021": 1.0, "wu2025": 1.0 if noise == "exponential" else 2.0}[scale]
    np.testing.assert_allclose(p.noise_scale_[:, 0], c / eps)
    np.testing.assert_allclose(p.guarantee.epsilon, 2.0 / c * eps)
    assert p.paper_claim == PureDP(epsilon=eps)


def test_presets_and_variants():
    hu = RNMFTNL.hu2021(epsilon=0.5)
    assert (hu.noise, hu.noise_factor_value, hu.first_action, hu.resample) == (
        "laplace",
        1.0,
        "first",
        False,
    )
    assert hu.guarantee == PureDP(epsilon=1.0) and hu.paper_claim == PureDP(epsilon=0.5)
    assert hu.noise_scale() == 2.0
    wu = {n: RNMFTNL.wu2025(epsilon=1.0, noise=n) for n in NOISES}
    assert {n: p.noise_scale() for n, p in wu.items()} == {
        "laplace": 2.0,
        "exponential": 1.0,
        "gumbel": 2.0,
    }
    assert wu["exponential"].guarantee == PureDP(epsilon=2.0)
    assert wu["laplace"].guarantee == wu["gumbel"].guarantee == PureDP(epsilon=1.0)
    assert all(p.resample and p.first_action == "uniform" for p in wu.values())
    strict = RNMFTNL(epsilon=1.0)
    assert (strict.noise, strict.noise_scale(), strict.first_action, strict.resample) == (
        "laplace",
        2.0,
        "uniform",
        False,
    )
    for resample, noise, _ in WU2025_TABLE2.values():
        p = RNMFTNL(epsilon=1.0, noise=noise, noise_factor="strict", resample=resample)
        assert (p.resample, p.noise, p.noise_scale(), p.guarantee) == (
            resample,
            noise,
            2.0,
            PureDP(epsilon=1.0),
        )
    custom = RNMFTNL(epsilon=2.0, noise_factor=3.0)
    assert custom.noise_scale() == 1.5 and custom.guarantee == PureDP(epsilon=4.0 / 3.0)
    with pytest.raises(TypeError, match="scale"):                     # no second name for it
        RNMFTNL(epsilon=2.0, scale=3.0)


def test_naive_ftnl_scale_is_K_over_epsilon():
    p = NaiveFTNL(epsilon=0.5)
    p.reset(2, 8, np.random.default_rng(0))
    np.testing.assert_allclose(p.noise_scale_, 16.0)
    assert p.label == "Naive FTNL" and p.guarantee == PureDP(epsilon=0.5)
    assert RNMFTNL(epsilon=1.0).label == "RNM-FTNL"


@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("scale", ["strict", "wu2025"])
def test_noisy_leader_frequencies_match_exact_probabilities(noise, scale):
    n = 40_000
    G = np.array([3.0, 2.0, 2.5, 4.0])
    p = RNMFTNL(epsilon=1.0, noise=noise, noise_factor=scale)
    p.reset(n, 4, np.random.default_rng(3))
    freq = np.bincount(p.noisy_leader(np.broadcast_to(G, (n, 4))), minlength=4) / n
    exact = rnm_probabilities(-G, noise, p.noise_scale())
    assert np.all(np.abs(freq - exact) <= 4.5 * np.sqrt(exact * (1 - exact) / n) + 1e-12)


def test_first_action():
    p = RNMFTNL(epsilon=1.0)
    p.reset(30_000, 5, np.random.default_rng(4))
    freq = np.bincount(p.select(1), minlength=5) / 30_000
    assert np.all(np.abs(freq - 0.2) < 4.5 * np.sqrt(0.16 / 30_000))
    q = RNMFTNL(epsilon=1.0, first_action="first")
    q.reset(10, 5, np.random.default_rng(4))
    assert np.all(q.select(1) == 0)


def test_bernoulli_resampling_draws():
    p = RNMFTNL(epsilon=1.0, resample=True)
    n = 20_000
    p.reset(n, 3, np.random.default_rng(5))
    p.update(2, p.select(2), np.broadcast_to([0.0, 0.3, 1.0], (n, 3)))   # round 2: no epoch end
    G = p.G_
    assert set(np.unique(G)) <= {0.0, 1.0}
    assert np.all(G[:, 0] == 0) and np.all(G[:, 2] == 1)
    assert abs(G[:, 1].mean() - 0.3) < 4.5 * np.sqrt(0.21 / n)


# --- batching --------------------------------------------------------------------------------
def test_epsilon_sweep_batch_matches_single_runs_in_distribution():
    env = dpl.BernoulliExperts([0.3, 0.5, 0.6])
    batch = dpl.simulate(RNMFTNL(epsilon=np.repeat([0.2, 2.0], 600), noise="gumbel"), env, 127,
                         1200, seed=11, checkpoints=[127])
    lo, hi = batch.split(2)
    single = [dpl.simulate(RNMFTNL(epsilon=2.0, noise="gumbel"), env, 127, 1, seed=s,
                           checkpoints=[127]).final_mean for s in range(400)]
    se = np.hypot(hi.final_se, np.std(single, ddof=1) / np.sqrt(400))
    assert abs(hi.final_mean - np.mean(single)) < 4.5 * se
    assert lo.final_mean > hi.final_mean + 4 * np.hypot(lo.final_se, hi.final_se)


def test_noiseless_single_run_equals_batch_row():
    losses = np.random.default_rng(6).random((40, 4))
    one = play(RNMFTNL(epsilon=np.inf, first_action="first"), losses, n_runs=1)
    many = play(RNMFTNL(epsilon=np.inf, first_action="first"), losses, n_runs=7)
    assert np.all(many == one)


def test_same_seed_same_result():
    env = dpl.BernoulliExperts([0.3, 0.5, 0.6])
    a = dpl.simulate(RNMFTNL(epsilon=0.5, resample=True), env, 1000, 20, seed=3)
    b = dpl.simulate(RNMFTNL(epsilon=0.5, resample=True), env, 1000, 20, seed=3)
    assert np.array_equal(a.regret, b.regret)


# --- validation ------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [0, -1.0, float("nan")])
def test_invalid_epsilon(bad):
    with pytest.raises(ValueError, match="epsilon"):
        RNMFTNL(epsilon=bad)
    with pytest.raises(ValueError, match="epsilon"):
        NaiveFTNL(epsilon=bad)


@pytest.mark.parametrize("kwargs, exc, word", [
    ({"noise": "normal"}, ValueError, "noise"),
    ({"noise_factor": "loose"}, ValueError, "noise_factor"),
    ({"noise_factor": -2.0}, ValueError, "noise_factor"),
    ({"noise_factor": True}, TypeError, "noise_factor"),
    ({"noise_factor": [1.0]}, TypeError, "noise_factor"),
    ({"resample": "yes"}, TypeError, "resample"),
    ({"first_action": "last"}, ValueError, "first_action"),
])
def test_invalid_options(kwargs, exc, word):
    with pytest.raises(exc, match=word):
        RNMFTNL(epsilon=1.0, **kwargs)


def test_epsilon_is_keyword_only():
    with pytest.raises(TypeError):
        RNMFTNL(1.0)


def test_epsilon_array_length_checked():
    p = RNMFTNL(epsilon=[0.1, 1.0])
    with pytest.raises(ValueError, match="epsilon"):
        p.reset(3, 2, np.random.default_rng(0))


def test_block_play_refuses_other_policies_and_environments_without_block_sums():
    env = dpl.envs.TwoPointExperts.bernoulli([0.2, 0.5])
    with pytest.raises(TypeError, match="policy must be a BlockPolicy"):
        play_blocks(dpl.FTL(), env, 10, np.array([10]), 1)
    with pytest.raises(TypeError, match="env must offer"):
        play_blocks(RNMFTNL(epsilon=1), dpl.FixedSequence(np.zeros((3, 2))), 3, np.array([3]), 1)


@pytest.mark.parametrize("n_arms, exc", [(0, ValueError), (1.5, TypeError), ("2", TypeError)])
def test_noise_scale_refuses_a_bad_number_of_actions(n_arms, exc):
    with pytest.raises(exc, match="n_arms"):
        RNMFTNL(epsilon=1.0).noise_scale(n_arms)


# --- privacy on neighbouring loss sequences ---------------------------------------------------
def neighbouring_pair():
    """K = 2, epoch 2 (rounds 2, 3): G = (1, 1) versus G' = (2, 0) (the two-action example of
    Wu and Wang 2025)."""
    a = np.array([[0.5, 0.5], [0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
    b = a.copy()
    b[1] = [1.0, 0.0]
    return a, b


@pytest.mark.parametrize("noise", NOISES)
def test_exact_privacy_loss_strict_scale_within_epsilon(noise):
    d = np.linspace(-40, 40, 4001)
    for eps in (0.1, 0.5, 1.0, 3.0):
        worst = privacy_loss_two_actions(d, noise=noise, scale=2.0 / eps).max()
        assert worst <= eps * (1 + 1e-9)


@pytest.mark.parametrize("noise, scale", [("laplace", "hu2021"), ("exponential", "wu2025")])
def test_exact_privacy_loss_paper_scale_exceeds_epsilon(noise, scale):
    # The broken variants (half the strict noise): caught, with loss approaching 2 epsilon.
    d = np.linspace(-40, 40, 4001)
    for eps in (0.5, 1.0, 2.0):
        b = SCALE_FACTORS[scale][noise] / eps
        worst = privacy_loss_two_actions(d, noise=noise, scale=b).max()
        assert worst > 1.8 * eps
        assert worst <= 2 * eps * (1 + 1e-9)


def test_privacy_loss_table_two_actions():
    # Pair G = (1, 1) vs (2, 0) (score difference 0 vs 2), closed forms evaluated by hand.
    table = {("exponential", 1): (1.000, 2.000, 4.000), ("exponential", 2): (0.500, 1.000, 2.000),
             ("gumbel", 2): (0.281, 0.620, 1.434), ("laplace", 2): (0.277, 0.595, 1.307)}
    for (noise, c), expected in table.items():
        got = [float(privacy_loss_two_actions(0.0, noise=noise, scale=c / e)) for e in (0.5, 1, 2)]
        np.testing.assert_allclose(got, expected, atol=6e-4)
    # Erratum reading-hu2021-rnm-scale: Lap(1/eps), eps = 1, score differences 10 vs 12:
    # (6/7) e^2 -> 1.846.
    assert abs(float(privacy_loss_two_actions(10.0, noise="laplace", scale=1.0)) -
               np.log(6 / 7 * np.e ** 2)) < 1e-12


@pytest.mark.parametrize("noise", NOISES)
def test_privacy_loss_closed_form_matches_quadrature(noise):
    for d in (-3.0, 0.0, 1.7):
        rnm = ReportNoisyMax(scale=0.8, noise=noise)
        p = rnm.selection_probabilities([0.0, -d])          # P(J = 1) = P(Q_2 - Q_1 > d)
        q = rnm.selection_probabilities([0.0, -d - 2.0])
        expect = max(abs(np.log(p[1] / q[1])), abs(np.log(p[0] / q[0])))
        assert abs(float(privacy_loss_two_actions(d, noise=noise, scale=0.8)) - expect) < 1e-7


@pytest.mark.parametrize("noise, scale, expect", [("exponential", "wu2025", 2.0),
                                                   ("exponential", "strict", 1.0),
                                                   ("laplace", "strict", None)])
def test_policy_on_neighbouring_sequences(noise, scale, expect):
    # Run the class itself on the neighbouring pair; the action of round 4 is J_2. Its empirical
    # log-ratio must match the exact one: 2 eps for Exp(1/eps) (the claim eps is violated), and
    # at most eps for the strict scales.
    a, b = neighbouring_pair()
    n, eps = 200_000, 1.0
    fa = np.mean(play(RNMFTNL(epsilon=eps, noise=noise, noise_factor=scale), a, n, seed=1)[3] == 0)
    fb = np.mean(play(RNMFTNL(epsilon=eps, noise=noise, noise_factor=scale), b, n, seed=2)[3] == 0)
    noise_scale = SCALE_FACTORS[scale][noise] / eps
    pa = rnm_probabilities(np.array([-1.0, -1.0]), noise, noise_scale)[0]
    pb = rnm_probabilities(np.array([-2.0, 0.0]), noise, noise_scale)[0]
    for f, p in ((fa, pa), (fb, pb)):
        assert abs(f - p) < 4.5 * np.sqrt(p * (1 - p) / n)
    exact = np.log(pa / pb)
    if expect is not None:
        assert abs(exact - expect * eps) < 1e-9
    else:
        assert exact <= eps
    se_log = np.sqrt((1 - fa) / (n * fa) + (1 - fb) / (n * fb))
    assert abs(np.log(fa / fb) - exact) < 4.5 * se_log


@pytest.mark.parametrize("make", [
    lambda: RNMFTNL(epsilon=0.5, noise="gumbel", noise_factor="wu2025", resample=True),
    lambda: RNMFTNL(epsilon=0.5, noise_factor=3.0, first_action="first", noise_multiplier=0.5),
    lambda: NaiveFTNL(epsilon=0.25, first_action="first"),
    lambda: NaiveFTNL(epsilon=0.25, noise_multiplier=2.0),
])
def test_repr_round_trips(make):
    p = make()
    again = eval(repr(p), {"RNMFTNL": RNMFTNL, "NaiveFTNL": NaiveFTNL})
    assert repr(again) == repr(p) and again.guarantee == p.guarantee
    assert again.noise_scale(4) == p.noise_scale(4)


@pytest.mark.parametrize("noise", NOISES)
def test_noise_multiplier_guarantee_is_the_exact_rnm_loss(noise):
    """Half of the noise scale b: the exact loss of the epoch's report-noisy-max on a worst-case
    pair of epoch sums (every coordinate moved by 1, in opposite directions) exceeds epsilon
    and is within the reported guarantee, 2 epsilon."""
    p = RNMFTNL(epsilon=1.0, noise=noise, noise_multiplier=0.5)
    rnm = ReportNoisyMax(scale=float(p.noise_scale(3)), noise=noise)
    G = np.array([0.0, 3.0, 3.0])
    worst = rnm.max_privacy_loss(-G, -(G + np.r_[-1.0, 1.0, 1.0]))
    assert 1.0 < worst <= float(p.guarantee.epsilon) + 1e-9
    assert p.guarantee == PureDP(2.0)
    with pytest.raises(TypeError, match="resample"):
        RNMFTNL(epsilon=1.0, resample="no")
