"""Tests of the GDP accountant: trade-off curves and the exact mu-GDP <-> (eps, delta) conversion.

Four kinds: pinned values (independently known), monotonicity and round trips over grids
spanning orders of magnitude, extreme-range finiteness, and cross-checks against independent
computations (numerical integration of the hockey-stick divergence between N(0, 1) and
N(mu, 1), and of the privacy-loss distribution).
"""
import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpolearn import accounting as acc
from dpolearn.accounting import (
    GaussianDP,
    gaussian_mechanism_gdp,
    gdp_compose,
    gdp_delta,
    gdp_epsilon,
    gdp_epsilon_from_log_delta,
    gdp_log_delta,
    gdp_to_approx,
    gdp_to_renyi,
    gdp_to_zcdp,
    pure_dp_to_gdp,
    tradeoff_eps_delta,
    tradeoff_gaussian,
)
from dpolearn.mechanisms import GaussianMechanism

MUS = [1e-2, 0.1, 0.5, 1.0, 2.0, 10.0, 100.0]


# ------------------------------------------------------------------ pinned values
@pytest.mark.parametrize("eps, mu, expected", [
    (0.0, 1.0, 0.382925), (1.0, 1.0, 0.126937), (1.0, 0.5, 0.006830),
    (0.0, 0.5, 0.197413), (1.0, 2.0, 0.509862),
    (5.0, math.sqrt(2 * math.sqrt(2 * math.pi * math.e)), 0.270891),
    (10.0, math.sqrt(2 * math.sqrt(2 * math.pi * math.e)), 0.010896),
])
def test_delta_known_values(eps, mu, expected):
    assert gdp_delta(eps, mu) == pytest.approx(expected, abs=6e-7)


@pytest.mark.parametrize("delta, mu, expected", [
    (1e-5, 1.0, 4.37718), (1e-5, 0.5, 1.99309), (1e-5, 2.0, 9.99726),
])
def test_epsilon_known_values(delta, mu, expected):
    assert gdp_epsilon(delta, mu) == pytest.approx(expected, abs=6e-6)


def test_delta_at_zero_closed_form():
    mu = np.array(MUS[:-1])
    np.testing.assert_allclose(gdp_delta(0.0, mu), 2 * stats.norm.cdf(mu / 2) - 1, rtol=1e-12)


def test_public_names_in_accounting():
    assert acc.gdp_delta is gdp_delta and acc.gdp_epsilon is gdp_epsilon
    assert acc.gdp_log_delta is gdp_log_delta


# ------------------------------------------------------------------ monotonicity
@pytest.mark.parametrize("mu", MUS)
def test_log_delta_decreasing_in_eps(mu):
    eps = np.concatenate([[0.0], np.geomspace(1e-4, 1e5, 400)])
    ld = gdp_log_delta(eps, mu)
    assert np.all(np.isfinite(ld))
    # strictly decreasing, except where delta rounds to 1 (log delta == 0) for huge mu
    d = np.diff(ld)
    assert np.all((d < 0) | (ld[:-1] == 0.0))
    assert np.all(ld[-5:] < -1000)


@pytest.mark.parametrize("eps", [0.0, 1e-3, 0.1, 1.0, 10.0, 100.0, 1e3, 1e5])
def test_log_delta_increasing_in_mu(eps):
    mu = np.geomspace(1e-2, 100, 300)
    ld = gdp_log_delta(eps, mu)
    assert np.all(np.isfinite(ld))
    # strictly increasing until delta rounds to 1 (log delta == 0) for huge mu
    d = np.diff(ld)
    assert np.all((d > 0) | (ld[1:] == 0.0))


# ------------------------------------------------------------------ round trips
_EPS_GRID = [1e-3, 0.1, 1.0, 3.0, 30.0, 300.0, 3e3, 1e5]
# The float round trip applies where delta lies in
# (1e-300, 1 - 1e-12); the cells are chosen at collection time, so none is skipped.
_IN_RANGE = [(e, m) for m in MUS for e in _EPS_GRID
             if 1e-300 < math.exp(gdp_log_delta(e, m)) < 1 - 1e-12]


def test_round_trip_grid_is_broad():
    assert len(_IN_RANGE) >= 25
    # mu = 100 has no cell with a representable delta on this eps grid (delta rounds to 1 up
    # to eps = 3000 and underflows at 1e5): it is covered by the log-space round trip.
    assert {m for _, m in _IN_RANGE} == set(MUS) - {100.0}


@pytest.mark.parametrize("eps, mu", _IN_RANGE)
def test_round_trip_eps_delta_eps(eps, mu):
    """eps -> delta -> eps within 1e-9 (relative), up to the conditioning of the float delta:
    a rounding of delta by one ulp moves eps by ulp(delta) / |delta'(eps)|, with
    delta'(eps) = -e^eps Phi(-eps/mu - mu/2)."""
    d = gdp_delta(eps, mu)
    slope = math.exp(eps + stats.norm.logcdf(-eps / mu - mu / 2))
    conditioning = 4 * np.spacing(d) / slope
    assert gdp_epsilon(d, mu) == pytest.approx(eps, rel=1e-9, abs=conditioning)


@pytest.mark.parametrize("mu", MUS)
@pytest.mark.parametrize("eps", _EPS_GRID)
def test_round_trip_in_log_space(eps, mu):
    """eps -> log delta -> eps within 1e-9 on the whole grid, including the cells where
    delta underflows or rounds to 1 (there log delta is 0.0 and eps is not recoverable)."""
    ld = gdp_log_delta(eps, mu)
    assert np.isfinite(ld) and ld <= 0
    if ld < 0:
        assert gdp_epsilon_from_log_delta(ld, mu) == pytest.approx(eps, rel=1e-9)
    else:
        # delta = 1 - O(Phi(-a)) with a = mu/2 - eps/mu: rounds to 1 only far out in the tail
        assert mu / 2 - eps / mu > 8


@pytest.mark.parametrize("mu", MUS)
@pytest.mark.parametrize("delta", [1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 1e-2, 0.1])
def test_round_trip_delta_eps_delta(mu, delta):
    eps = gdp_epsilon(delta, mu)
    if eps == 0.0:                                # delta >= delta(0): the guarantee is free
        assert gdp_delta(0.0, mu) <= delta
    else:
        assert gdp_log_delta(eps, mu) == pytest.approx(math.log(delta), rel=1e-9)


# ------------------------------------------------------------------ extreme range
def test_finite_at_mu_100_eps_1e5():
    ld = gdp_log_delta(1e5, 100.0)
    assert np.isfinite(ld) and ld < 0
    d = gdp_delta(1e5, 100.0)
    assert np.isfinite(d) and 0.0 <= d < 1.0
    # asymptotic check: log Phi(a) - log(-a) + log(mu) ... dominated by -a^2/2
    a = -1e5 / 100 + 50
    assert ld == pytest.approx(-a * a / 2, rel=1e-4)


@pytest.mark.parametrize("mu", [1e-2, 1.0, 100.0])
@pytest.mark.parametrize("eps", [1e3, 1e4, 1e5])
def test_extreme_grid_finite_and_accurate(mu, eps):
    """Against an mpmath-free asymptotic: for a << 0 the ratio of Mills ratios gives
    delta ~ phi(a) (1/|a| - 1/|b|) with a = -eps/mu + mu/2, b = a - mu."""
    ld = gdp_log_delta(eps, mu)
    assert np.isfinite(ld)
    a = -eps / mu + mu / 2
    b = a - mu
    if a < -30:
        approx = stats.norm.logpdf(a) + math.log(1 / abs(a) - 1 / abs(b))
        assert ld == pytest.approx(approx, rel=1e-6, abs=1e-3)


def test_epsilon_finite_for_large_mu():
    eps = gdp_epsilon(1e-10, 100.0)
    assert np.isfinite(eps) and eps > 100.0
    assert gdp_log_delta(eps, 100.0) == pytest.approx(math.log(1e-10), rel=1e-9)


# ------------------------------------------------------------------ independent cross-checks
def _hockey_stick_by_quadrature(eps, mu):
    """delta(eps) = int max(0, p(x) - e^eps q(x)) dx for P = N(mu, 1), Q = N(0, 1).

    The integrand is positive exactly for x > eps/mu + mu/2."""
    x0 = eps / mu + mu / 2
    f = lambda x: stats.norm.pdf(x, loc=mu) - math.exp(eps) * stats.norm.pdf(x)   # noqa: E731
    val, _ = integrate.quad(f, x0, np.inf, epsabs=1e-14, epsrel=1e-12)
    return val


def _pld_by_quadrature(eps, mu):
    """delta(eps) = E[(1 - e^{eps - L})_+] with privacy loss L ~ N(mu^2/2, mu^2)."""
    pdf = lambda l: stats.norm.pdf(l, loc=mu * mu / 2, scale=mu)                 # noqa: E731
    g = lambda l: (1 - math.exp(eps - l)) * pdf(l)                                # noqa: E731
    val, _ = integrate.quad(g, eps, np.inf, epsabs=1e-14, epsrel=1e-12)
    return val


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 2.0, 5.0])
@pytest.mark.parametrize("eps", [0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0])
def test_cross_check_against_integration(mu, eps):
    expected = _hockey_stick_by_quadrature(eps, mu)
    expected2 = _pld_by_quadrature(eps, mu)
    assert expected == pytest.approx(expected2, rel=1e-6, abs=1e-13)
    assert gdp_delta(eps, mu) == pytest.approx(expected, rel=1e-6, abs=1e-13)


def test_cross_check_catches_wrong_formula():
    """A plausible slip (Phi(-eps/mu + mu/2) alone, forgetting the second term) is caught."""
    eps, mu = 1.0, 1.0
    wrong = stats.norm.cdf(-eps / mu + mu / 2)
    assert abs(wrong - _hockey_stick_by_quadrature(eps, mu)) > 1e-2


# ------------------------------------------------------------------ trade-off functions
@pytest.mark.parametrize("mu", [0.3, 1.0, 3.0])
def test_gaussian_curve_is_envelope_of_implied_eps_delta_curves(mu):
    """mu-GDP <=> (eps, delta(eps))-DP for all eps: G_mu is the upper envelope of the
    piecewise-linear curves f_{eps, delta(eps)}."""
    x = np.linspace(0.001, 0.999, 199)
    eps_grid = np.linspace(0, 12 * mu + mu * mu, 6000)
    curves = np.array([tradeoff_eps_delta(x, e, gdp_delta(e, mu)) for e in eps_grid])
    g = tradeoff_gaussian(x, mu)
    assert np.all(curves <= g + 1e-12)                   # each implied curve lies below G_mu
    np.testing.assert_allclose(curves.max(axis=0), g, atol=2e-4)   # and they touch it


def test_tradeoff_gaussian_is_neyman_pearson_error():
    """G_mu(x) is the type-II error of the likelihood-ratio test at level x."""
    mu, x = 1.3, 0.05
    threshold = stats.norm.ppf(1 - x)                    # reject N(0,1) when y > threshold
    beta = stats.norm.cdf(threshold, loc=mu)
    assert tradeoff_gaussian(x, mu) == pytest.approx(beta, rel=1e-12)
    assert tradeoff_gaussian(0.0, mu) == 1.0 and tradeoff_gaussian(1.0, mu) == 0.0


def test_tradeoff_eps_delta_shape():
    x = np.linspace(0, 1, 11)
    f = tradeoff_eps_delta(x, 1.0, 0.0)
    assert f[0] == 1.0 and f[-1] == 0.0
    kink = 1 / (1 + math.e)
    assert tradeoff_eps_delta(kink, 1.0, 0.0) == pytest.approx(kink)


# ------------------------------------------------------------------ mechanism, composition
def test_gaussian_mechanism_gdp_matches_mechanism_record():
    assert gaussian_mechanism_gdp(1.0, 4.0) == 0.25
    assert GaussianMechanism(sigma=4.0).guarantee == GaussianDP(mu=0.25)


def test_gaussian_mechanism_is_exactly_its_delta():
    """The Gaussian mechanism attains delta(eps): Monte-Carlo estimate of the hockey-stick
    divergence E_P[(1 - e^{eps - L})_+] from the mechanism's own privacy loss, tolerance
    from the sample size."""
    rng = np.random.default_rng(6)
    mech = GaussianMechanism(sigma=2.0)           # mu = 0.5
    n = 400_000
    y = mech.randomise(np.zeros(n), rng)
    loss = mech.privacy_loss(y, 0.0, 1.0)
    vals = np.maximum(0.0, 1 - np.exp(0.2 - loss))
    est, se = vals.mean(), vals.std() / math.sqrt(n)
    assert abs(est - gdp_delta(0.2, mech.mu)) < 5 * se
    # half the noise is a different mechanism: its delta is far away from mu = 0.5's
    assert abs(est - gdp_delta(0.2, 1.0)) > 20 * se


def test_composition_of_gaussian_mechanisms():
    assert gdp_compose(3.0, 4.0) == 5.0
    # k releases at mu each -> sqrt(k) mu, as in Theorem 4.4's step 2
    assert gdp_compose(*([0.5] * 16)) == pytest.approx(2.0)
    assert acc.compose(GaussianDP(3.0), GaussianDP(4.0)) == GaussianDP(5.0)


def test_gdp_to_approx_record():
    rec = gdp_to_approx(1.0, 1e-5)
    assert rec.delta == 1e-5 and rec.epsilon == pytest.approx(4.37718, abs=1e-5)


# ------------------------------------------------------------------ external standard facts
@pytest.mark.parametrize("eps", [0.01, 0.5, 1.0, 3.0, 10.0])
def test_pure_dp_to_gdp_is_tight(eps):
    mu = pure_dp_to_gdp(eps)
    x = np.linspace(0, 1, 2001)
    f = tradeoff_eps_delta(x, eps, 0.0)
    assert np.all(tradeoff_gaussian(x, mu) <= f + 1e-12)          # eps-DP implies mu-GDP
    kink = 1 / (1 + math.exp(eps))
    assert tradeoff_gaussian(kink, mu) == pytest.approx(kink, rel=1e-9)   # touches at the kink
    assert tradeoff_gaussian(kink, 0.99 * mu) > kink                # smaller mu is too strong


def test_pure_dp_to_gdp_value():
    assert pure_dp_to_gdp(0.5) == pytest.approx(0.62389, abs=1e-5)


def test_zcdp_and_renyi():
    assert gdp_to_zcdp(2.0) == 2.0
    assert gdp_to_renyi(1.0, 3.0) == 1.5
    assert gdp_to_zcdp(np.array([1.0, 2.0])).tolist() == [0.5, 2.0]


# ------------------------------------------------------------------ validation
@pytest.mark.parametrize("func, args, exc, word", [
    (gdp_delta, (-1.0, 1.0), ValueError, "epsilon"),
    (gdp_delta, (1.0, 0.0), ValueError, "mu"),
    (gdp_delta, (1.0, float("nan")), ValueError, "mu"),
    (gdp_delta, ("1", 1.0), TypeError, "epsilon"),
    (gdp_epsilon, (0.0, 1.0), ValueError, "delta"),
    (gdp_epsilon, (1.0, 1.0), ValueError, "delta"),
    (gdp_epsilon, (1e-5, -2.0), ValueError, "mu"),
    (gdp_epsilon_from_log_delta, (0.0, 1.0), ValueError, "log_delta"),
    (gdp_epsilon_from_log_delta, ("x", 1.0), TypeError, "log_delta"),
    (tradeoff_gaussian, (1.5, 1.0), ValueError, "x"),
    (tradeoff_eps_delta, (0.5, 1.0, 1.2), ValueError, "delta"),
    (gaussian_mechanism_gdp, (1.0, 0.0), ValueError, "sigma"),
    (gdp_to_renyi, (1.0, 1.0), ValueError, "order"),
    (pure_dp_to_gdp, (0.0,), ValueError, "epsilon"),
])
def test_invalid_inputs(func, args, exc, word):
    with pytest.raises(exc, match=word):
        func(*args)


def test_compose_needs_arguments():
    with pytest.raises(ValueError, match="at least one"):
        gdp_compose()


# ------------------------------------------------------------------ 50-digit reference values
mpmath = pytest.importorskip("mpmath")   # listed in requirements-test.txt; never skipped in CI

_MP_MUS = np.geomspace(1e-8, 1e3, 12)
_MP_EPS = np.concatenate([[0.0], np.geomspace(1e-8, 1e10, 19)])


def _mp_log_delta(eps: float, mu: float):
    """log delta(eps) of mu-GDP in 50-digit arithmetic.

    Where delta is close to 1 (a > 0) the complement 1 - delta = Phi(-a) + e^eps Phi(b) is
    summed without cancellation; elsewhere the difference Phi(a) - e^eps Phi(b) cancels at
    most about 26 digits on this grid (mu = 1e-8, eps = 1e10), leaving more than 20.
    """
    with mpmath.workdps(50):
        e, m = mpmath.mpf(eps), mpmath.mpf(mu)
        a = -e / m + m / 2
        b = a - m
        if a > 0:
            return mpmath.log1p(-(mpmath.ncdf(-a) + mpmath.exp(e) * mpmath.ncdf(b)))
        return mpmath.log(mpmath.ncdf(a) - mpmath.exp(e) * mpmath.ncdf(b))


def test_log_delta_matches_50_digit_reference_over_the_whole_domain():
    """mu from 1e-8 to 1e3, eps from 0 to 1e10. Tolerance: every step is a few-ulp operation
    (log_ndtr, erfcx, log1p/expm1; where the log-ratio of Mills ratios is small it is a
    16-point Gauss-Legendre integral of a smooth integrand varying by under 10 %, exact to
    rounding), and the two terms of log delta have the same sign, so no cancellation
    amplifies them: a relative error of 1e-12 leaves a margin of about 100 over the ~50
    roundings. Where log delta is below the smallest double in magnitude (delta = 1 to
    machine precision) the value must be 0 or that tiny."""
    worst = 0.0
    for mu in _MP_MUS:
        ours = np.asarray(gdp_log_delta(_MP_EPS, mu))
        assert np.all(np.isfinite(ours)) and np.all(ours <= 0)
        for e, o in zip(_MP_EPS, ours):
            ref = _mp_log_delta(float(e), float(mu))
            err = abs(mpmath.mpf(float(o)) - ref)
            assert err <= 1e-12 * abs(ref) + 1e-300, (mu, e, o, ref)
            if abs(ref) > 1e-300:
                worst = max(worst, float(err / abs(ref)))
    assert worst < 1e-12


def test_log_delta_tiny_mu_squared_over_eps_is_finite():
    """The cancellation case: mu = 1e-8, eps = 1 was -inf before (delta ~ e^{-5e15})."""
    ld = gdp_log_delta(1.0, 1e-8)
    assert np.isfinite(ld)
    assert ld == pytest.approx(float(_mp_log_delta(1.0, 1e-8)), rel=1e-12)


@pytest.mark.parametrize("mu", [1e-6, 1e-2, 1.0, 30.0, 1e3])
def test_epsilon_from_log_delta_round_trip_against_the_reference(mu):
    """eps -> 50-digit log delta -> gdp_epsilon_from_log_delta recovers eps. Brent stops at
    4 ulp of eps; the reference is rounded to a double (relative 1e-16), which moves eps by
    at most its condition number |d log delta / d eps| |log delta| / eps times that, below
    1e-4 on this grid (eps >= 1e-2), so 1e-9 is a safe relative tolerance."""
    for eps in (1e-2, 1.0, 1e2, 1e5, 1e10):
        target = float(_mp_log_delta(eps, mu))
        if target > -1e-300:                 # delta rounds to 1: no eps to recover
            continue
        assert gdp_epsilon_from_log_delta(target, mu) == pytest.approx(eps, rel=1e-9)


def test_pure_dp_to_gdp_finite_for_huge_epsilon():
    """Phi(-mu/2) = 1/(1 + e^eps) in 50-digit arithmetic for eps up to 1e10 (returned inf
    for eps >= 710 before); mu is about 2 sqrt(2 eps) there. log Phi(-mu/2) ~ -mu^2/8 has
    relative condition 2 in mu, and ndtri_exp is accurate to ~1e-14: tolerance 1e-11."""
    for eps in (1e-3, 0.5, 10.0, 709.0, 710.0, 800.0, 1e5, 1e10):
        mu = pure_dp_to_gdp(eps)
        assert np.isfinite(mu)
        with mpmath.workdps(50):
            lhs = mpmath.log(mpmath.ncdf(-mpmath.mpf(mu) / 2))
            rhs = -mpmath.log1p(mpmath.exp(mpmath.mpf(eps)))
        assert float(abs(lhs - rhs) / abs(rhs)) < 1e-11, eps
        if eps >= 710:
            assert 0.99 < mu / (2 * math.sqrt(2 * eps)) <= 1.0


def test_tradeoff_gaussian_tiny_type_one_error_uses_the_lower_tail():
    """G_mu(1e-20) at mu = 20 is about 5e-27 (it was 1.0 through ndtri(1 - x)). The reference
    solves Phi(-z) = x in 50 digits; ndtri is accurate to ~1e-15 relative and G's log-slope in
    z is |z - mu| ~ 11, so relative 1e-11 is safe."""
    x, mu = 1e-20, 20.0
    with mpmath.workdps(50):
        z = mpmath.findroot(lambda v: mpmath.ncdf(-v) - mpmath.mpf(x), 9.0)
        ref = float(mpmath.ncdf(z - mu))
    assert tradeoff_gaussian(x, mu) == pytest.approx(ref, rel=1e-11)
    assert 1e-28 < ref < 1e-26


def test_gdp_to_approx_admits_epsilon_zero():
    """delta = 0.5 exceeds delta(0) = 2 Phi(1/2) - 1 = 0.383 at mu = 1: eps = 0 suffices."""
    g = gdp_to_approx(1.0, 0.5)
    assert g.epsilon == 0.0 and g.delta == 0.5


@pytest.mark.parametrize("mu", [0.1, 1.0, 30.0])
def test_epsilon_from_log_delta_is_finite_down_to_the_most_negative_float(mu):
    """Every finite log delta < 0 has a finite eps. Far in the tail, log delta(eps) =
    -t^2/2 - ln t + O(1) with t = eps/mu - mu/2, so eps/mu -> sqrt(-2 log delta): the answer
    is finite down to -1.8e308 (the root finder's bracket used to overflow there), it agrees
    with the root finder on both sides of the closed form's threshold, and it increases."""
    lowest = -np.finfo(float).max
    targets = [-1e150, -0.99e200, -1.01e200, -1e250, -1e308, lowest]
    eps = [gdp_epsilon_from_log_delta(ld, mu) for ld in targets]
    assert all(math.isfinite(e) for e in eps) and eps == sorted(eps)
    for ld, e in zip(targets, eps):
        assert e / mu == pytest.approx(math.sqrt(2.0) * math.sqrt(-ld), rel=1e-12)
    # across the threshold the two computations meet: sqrt(1.01 / 0.99) apart, nothing more
    assert eps[2] / eps[1] == pytest.approx(math.sqrt(1.01 / 0.99), rel=1e-12)
    # and a value the root finder computes is reproduced by log delta there
    assert gdp_log_delta(eps[0], mu) == pytest.approx(-1e150, rel=1e-12)


def test_epsilon_from_log_delta_refuses_delta_zero():
    """delta = 0 (log delta = -inf) is reached by mu-GDP at no finite eps; it is refused,
    as gdp_epsilon refuses delta = 0."""
    with pytest.raises(ValueError, match="log_delta must be finite.*-inf"):
        gdp_epsilon_from_log_delta(-np.inf, 1.0)
    with pytest.raises(ValueError, match="delta.*0"):
        gdp_epsilon(0.0, 1.0)
