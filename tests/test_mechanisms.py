"""Laplace, Gaussian, report-noisy-max and exponential mechanisms: noise scales, exact
selection probabilities and the DP inequality on neighbouring inputs."""
import numpy as np
import pytest
from scipy import stats

from dpolearn.accounting import GaussianDP, PureDP
from dpolearn.mechanisms import (
    BinaryCounter,
    ExponentialMechanism,
    GaussianMechanism,
    HybridCounter,
    IntervalLaplaceMean,
    LaplaceMechanism,
    LazyDoublingPrivateMean,
    LogarithmicCounter,
    ReportNoisyMax,
)

N = 200_000


def _var_tolerance(var, n, k=5):
    # the sample variance of n draws has standard error sqrt((mu4 - var^2) / n); for Laplace
    # mu4 = 6 b^4 = 1.5 var^2 (excess kurtosis 3), for Gaussian mu4 = 3 var^2
    return k * np.sqrt(5.0 * var ** 2 / n)


@pytest.mark.parametrize("epsilon, sensitivity", [(0.1, 1.0), (1.0, 1.0), (2.0, 0.5)])
def test_laplace_noise_scale(epsilon, sensitivity):
    mech = LaplaceMechanism(epsilon=epsilon, sensitivity=sensitivity)
    out = mech.randomise(np.full(N, 3.0), rng=1)
    b = sensitivity / epsilon
    assert mech.variance() == pytest.approx(2 * b * b)
    assert abs(out.mean() - 3.0) < 5 * np.sqrt(2 * b * b / N)
    assert abs(out.var() - mech.variance()) < _var_tolerance(mech.variance(), N)
    # the whole law: Kolmogorov-Smirnov against Laplace(3, b)
    assert stats.kstest(out, stats.laplace(3.0, b).cdf).pvalue > 1e-4


@pytest.mark.parametrize("sigma", [0.3, 2.0])
def test_gaussian_noise_scale(sigma):
    mech = GaussianMechanism(sigma=sigma)
    out = mech.randomise(np.zeros(N), rng=2)
    assert abs(out.var() - sigma ** 2) < _var_tolerance(sigma ** 2, N)
    assert stats.kstest(out, stats.norm(0, sigma).cdf).pvalue > 1e-4
    assert mech.guarantee == GaussianDP(mu=1 / sigma)


def test_gaussian_classical_calibration():
    mech = GaussianMechanism.classical(epsilon=0.5, delta=1e-5)
    assert mech.sigma == pytest.approx(np.sqrt(2 * np.log(1.25e5)) / 0.5)


def test_laplace_density_ratio_is_bounded_by_e_to_the_epsilon():
    mech = LaplaceMechanism(epsilon=0.7)
    y = np.linspace(-30, 30, 20001)
    loss = mech.privacy_loss(y, 0.0, 1.0)          # neighbours differ by the sensitivity
    assert np.max(np.abs(loss)) == pytest.approx(0.7)
    broken = LaplaceMechanism(epsilon=0.7, sensitivity=0.5)   # half the noise for the same data
    assert np.max(np.abs(broken.privacy_loss(y, 0.0, 1.0))) == pytest.approx(1.4)


def test_laplace_empirical_event_probabilities_respect_the_bound():
    # seeded sampling check of the DP inequality on the event {y > 0.5}
    mech = LaplaceMechanism(epsilon=1.0)
    a = np.mean(mech.randomise(np.zeros(N), rng=3) > 0.5)
    b = np.mean(mech.randomise(np.ones(N), rng=4) > 0.5)
    pa, pb = stats.laplace(0, 1).sf(0.5), stats.laplace(1, 1).sf(0.5)
    assert abs(a - pa) < 5 * np.sqrt(pa * (1 - pa) / N)
    assert abs(b - pb) < 5 * np.sqrt(pb * (1 - pb) / N)
    assert pb / pa <= np.e + 1e-12


@pytest.mark.parametrize("noise", ["laplace", "exponential", "gumbel"])
@pytest.mark.parametrize("scores", [[0.0, 0.4], [0.3, -0.2, 0.9]])
def test_report_noisy_max_probabilities_match_monte_carlo(noise, scores):
    rnm = ReportNoisyMax(scale=0.8, noise=noise)
    exact = rnm.selection_probabilities(scores)
    assert exact.sum() == pytest.approx(1.0, abs=1e-9)
    draws = rnm.select(np.broadcast_to(scores, (N, len(scores))), rng=5)
    freq = np.bincount(draws, minlength=len(scores)) / N
    assert np.all(np.abs(freq - exact) < 5 * np.sqrt(exact * (1 - exact) / N))


def test_report_noisy_max_gumbel_is_softmax_and_laplace_k2_closed_form():
    rnm = ReportNoisyMax(scale=1.0, noise="gumbel")
    s = np.array([0.2, 1.0, -0.5])
    assert np.allclose(rnm.selection_probabilities(s), np.exp(s) / np.exp(s).sum())
    # K = 2, Laplace(b): P(arm 0) = P(Z1 - Z0 < d) with the difference-of-Laplace cdf
    b, d = 0.6, 0.5
    lap = ReportNoisyMax(scale=b, noise="laplace")
    x = d / b
    closed = 1 - 0.5 * np.exp(-x) * (1 + x / 2)
    assert lap.selection_probabilities([d, 0.0])[0] == pytest.approx(closed, abs=1e-9)


def _worst_log_ratio(rnm, k):
    """Largest |log P(i | s) / P(i | s')| over a grid of neighbouring score vectors
    (every coordinate moved by at most the sensitivity)."""
    worst = 0.0
    rng = np.random.default_rng(0)
    for _ in range(6):
        s = rng.uniform(-6, 6, size=k)
        p = rnm.selection_probabilities(s)
        for signs in np.array(np.meshgrid(*[[-1, 1]] * k)).T.reshape(-1, k):
            q = rnm.selection_probabilities(s + signs * rnm.sensitivity)
            worst = max(worst, np.max(np.abs(np.log(p) - np.log(q))))
    return worst


@pytest.mark.parametrize("noise", ["laplace", "exponential", "gumbel"])
def test_report_noisy_max_guarantee_holds_and_half_noise_is_caught(noise):
    honest = ReportNoisyMax(epsilon=1.0, noise=noise)
    assert honest.guarantee == PureDP(1.0)
    assert _worst_log_ratio(honest, 2) <= 1.0 + 1e-6
    broken = ReportNoisyMax(scale=honest.noise_scale / 2, noise=noise)   # claims nothing, but ...
    assert _worst_log_ratio(broken, 2) > 1.0 + 0.05                 # ... exceeds epsilon = 1


def test_monotone_scores_need_half_the_noise():
    rnm = ReportNoisyMax(epsilon=1.0, monotone=True)
    assert rnm.noise_scale == 1.0
    worst = 0.0
    for s in np.linspace(-8, 8, 13):
        p = rnm.selection_probabilities([s, 0.0])
        q = rnm.selection_probabilities([s + 1, 1.0])       # all scores move the same way
        worst = max(worst, np.max(np.abs(np.log(p) - np.log(q))))
    assert worst <= 1.0 + 1e-6


def test_exponential_mechanism_probabilities_and_sampling():
    em = ExponentialMechanism(epsilon=1.0)
    u = np.array([0.0, 1.0, 2.0])
    p = em.probabilities(u)
    assert np.allclose(p, np.exp(u / 2) / np.exp(u / 2).sum())
    freq = np.bincount(em.select(np.broadcast_to(u, (N, 3)), rng=6), minlength=3) / N
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / N))
    assert em.guarantee == PureDP(1.0)


# ------------------------------------------------------------------ exact laws: fast vs oracle
def _quadrature_selection_probabilities(scores, noise, scale):
    """Test oracle: P(argmax = i) = int f(z) prod_{j != i} F((s_i - s_j)/b + z) dz by adaptive
    quadrature, split at the kinks of the integrand (slow: about 0.5 s for K = 4)."""
    from scipy import integrate

    from dpolearn.mechanisms import NOISE_FAMILIES

    x = np.asarray(scores, dtype=float) / scale
    dist = NOISE_FAMILIES[noise]
    lo, _ = dist.support()
    probs = np.empty(x.size)
    for i in range(x.size):
        diff = x[i] - np.delete(x, i)

        def integrand(z, diff=diff):
            return dist.pdf(z) * np.prod(dist.cdf(diff + z))

        kinks = sorted({0.0, *(-diff).tolist()})
        edges = [max(lo, -60.0)] + [k for k in kinks if lo < k < 60.0] + [60.0]
        probs[i] = sum(integrate.quad(integrand, a, b, epsabs=1e-13, epsrel=1e-11, limit=200)[0]
                       for a, b in zip(edges[:-1], edges[1:]))
    return probs / probs.sum()


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
@pytest.mark.parametrize("scores", [(0.0, 0.0), (1.0, 0.0, -0.5), (3.0, 2.0, 2.5, 4.0),
                                    (0.0, 0.2, 0.2, -7.0, 1.0)])
def test_fast_selection_probabilities_agree_with_quadrature(noise, scores):
    """The Gauss-Legendre method of ReportNoisyMax against adaptive quadrature of the same
    integral (absolute tolerance 1e-11: quad's own requested accuracy is 1e-13 per piece)."""
    rnm = ReportNoisyMax(scale=0.7, noise=noise)
    fast = rnm.selection_probabilities(scores)
    slow = _quadrature_selection_probabilities(scores, noise, 0.7)
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-11)


@pytest.mark.parametrize("noise", ["laplace", "exponential", "gumbel"])
def test_noise_difference_tail_is_the_two_action_selection_law(noise):
    """P(Z_2 - Z_1 > x) = P(action 1 wins) for scores (x, 0): closed form against quadrature."""
    from dpolearn.mechanisms.noisy_max import noise_difference_sf

    for x in (-3.0, -0.4, 0.0, 0.4, 3.0):
        rnm = ReportNoisyMax(scale=1.3, noise=noise)
        exact = _quadrature_selection_probabilities([x, 0.0], noise, 1.3)[1]
        assert noise_difference_sf(x, noise, 1.3) == pytest.approx(exact, abs=1e-11)
        assert rnm.difference_sf(x) == pytest.approx(exact, abs=1e-11)


def test_selection_probabilities_noiseless_limit_and_bad_scores():
    from dpolearn.mechanisms.noisy_max import selection_probabilities

    assert selection_probabilities([1.0, 3.0, 3.0], "laplace", 0.0).tolist() == [0.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="scores"):
        selection_probabilities([1.0], "laplace", 1.0)


# ------------------------------------------------------------------ knobs and bad input
@pytest.mark.parametrize("make", [
    lambda: ReportNoisyMax(epsilon=1.0, monotone="no"),
    lambda: ReportNoisyMax(epsilon=1.0, monotone=1),
    lambda: ExponentialMechanism(epsilon=1.0, monotone="yes"),
])
def test_boolean_options_must_be_real_bools(make):
    with pytest.raises(TypeError, match="monotone"):
        make()


@pytest.mark.parametrize("noise", ["laplace", "exponential", "gumbel"])
def test_noise_multiplier_reports_the_true_epsilon(noise):
    """Half the noise: the exact privacy loss on a worst-case pair (every score moving by 1,
    in opposite directions) exceeds the honest epsilon, and stays within the reported one."""
    honest = ReportNoisyMax(epsilon=1.0, noise=noise)
    weak = ReportNoisyMax(epsilon=1.0, noise=noise, noise_multiplier=0.5)
    assert weak.noise_scale == honest.noise_scale / 2
    assert weak.guarantee == PureDP(2.0)
    s = np.array([0.0, 0.0, 0.0])
    worst = max(weak.max_privacy_loss(s + shift, s + shift + np.r_[1.0, -1.0, -1.0])
                for shift in (np.r_[0.0, 2.0, 2.0], np.r_[0.0, 5.0, 5.0], np.r_[4.0, 0.0, 0.0]))
    assert 1.0 < worst <= weak.guarantee.epsilon + 1e-9


def test_laplace_and_gaussian_noise_multiplier():
    lap = LaplaceMechanism(epsilon=0.5, noise_multiplier=0.25)
    assert lap.noise_scale == 0.5 and lap.guarantee == PureDP(2.0)
    # the density ratio in the tails is exactly |v - v'| / b
    assert lap.privacy_loss(10.0, 1.0, 0.0) == pytest.approx(1.0 / lap.noise_scale)
    g = GaussianMechanism(sigma=2.0, noise_multiplier=0.5)
    assert g.noise_scale == 1.0 and g.guarantee == GaussianDP(1.0)
    with pytest.raises(ValueError, match="noise_multiplier"):
        LaplaceMechanism(epsilon=1.0, noise_multiplier=0.0)


@pytest.mark.parametrize("mech", [
    ReportNoisyMax(epsilon=0.5, noise="gumbel", monotone=True),
    ReportNoisyMax(scale=3.0, sensitivity=2.0, noise_multiplier=0.5),
    LaplaceMechanism(epsilon=0.25, sensitivity=2.0),
    LaplaceMechanism(epsilon=0.25, noise_multiplier=0.5),
    GaussianMechanism(sigma=1.5, noise_multiplier=2.0),
])
def test_repr_round_trips(mech):
    names = {"ReportNoisyMax": ReportNoisyMax, "LaplaceMechanism": LaplaceMechanism,
             "GaussianMechanism": GaussianMechanism}
    again = eval(repr(mech), names)
    assert repr(again) == repr(mech) and again.guarantee == mech.guarantee
    assert again.noise_scale == mech.noise_scale


# ---------------------------------------------------------------- guarantee_for
@pytest.mark.parametrize("cls,params", [
    (LaplaceMechanism, {"epsilon": 0.5, "sensitivity": 2.0}),
    (LaplaceMechanism, {"epsilon": 0.5, "noise_multiplier": 0.5}),
    (GaussianMechanism, {"sigma": 2.0, "sensitivity": 3.0}),
    (ReportNoisyMax, {"epsilon": 1.0, "noise": "gumbel"}),
    (ReportNoisyMax, {"scale": 1.5, "noise": "exponential", "monotone": True}),
    (ExponentialMechanism, {"epsilon": 0.7}),
    (LazyDoublingPrivateMean, {"epsilon": 0.3}),
    (IntervalLaplaceMean, {"epsilon": 0.3, "schedule": "lemmaB1_y"}),
    (BinaryCounter, {"epsilon": 0.8, "levels": 5}),
    (HybridCounter, {"epsilon": 0.9, "split": "paper", "tree_log_base": "e"}),
    (LogarithmicCounter, {"epsilon": 0.6}),
])
def test_guarantee_for_is_the_guarantee_of_the_mechanism_built_so(cls, params):
    built = (cls(**params) if cls in (LaplaceMechanism, GaussianMechanism, ReportNoisyMax,
                                      ExponentialMechanism)
             else cls(1, 1, **params) if cls is LazyDoublingPrivateMean else cls(1, **params))
    assert cls.guarantee_for(**params) == built.guarantee


@pytest.mark.parametrize("cls,params,name", [
    (LaplaceMechanism, {"epsilon": -1.0}, "epsilon"),
    (GaussianMechanism, {"sigma": 0.0}, "sigma"),
    (LazyDoublingPrivateMean, {"epsilon": "1"}, "epsilon"),
    (BinaryCounter, {"epsilon": 1.0, "levels": -1}, "levels"),
])
def test_guarantee_for_rejects_bad_parameters_by_name(cls, params, name):
    with pytest.raises((ValueError, TypeError), match=name):
        cls.guarantee_for(**params)
