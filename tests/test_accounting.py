"""Guarantee records and composition."""
import math

import numpy as np
import pytest

from dpolearn.accounting import (
    ApproxDP,
    GaussianDP,
    NotPrivate,
    PureDP,
    advanced_composition,
    compose,
)


def test_basic_composition_adds_epsilons_and_deltas():
    assert compose(PureDP(0.5), PureDP(0.25)) == PureDP(0.75)
    assert compose(PureDP(0.5), ApproxDP(0.25, 1e-6)) == ApproxDP(0.75, 1e-6)
    assert compose(PureDP(1.0), NotPrivate()) == NotPrivate()


def test_gdp_composes_in_quadrature():
    assert compose(GaussianDP(3.0), GaussianDP(4.0)).mu == pytest.approx(5.0)
    with pytest.raises(ValueError, match="convert"):
        compose(GaussianDP(1.0), PureDP(1.0))


def test_array_epsilons_compose_per_run():
    g = compose(PureDP(np.array([0.1, 1.0])), PureDP(0.5))
    assert np.allclose(g.epsilon, [0.6, 1.5])


@pytest.mark.parametrize("eps, k, dp", [(0.01, 1000, 1e-6), (0.1, 100, 1e-5), (1.0, 10, 1e-3)])
def test_advanced_composition_formula(eps, k, dp):
    g = advanced_composition(eps, 1e-8, k, dp)
    expected = math.sqrt(2 * k * math.log(1 / dp)) * eps + k * eps * (math.exp(eps) - 1)
    assert g.epsilon == pytest.approx(expected, rel=1e-12)
    assert g.delta == pytest.approx(k * 1e-8 + dp)


def test_advanced_beats_basic_for_many_small_steps():
    assert advanced_composition(0.01, 0.0, 10_000, 1e-6).epsilon < 0.01 * 10_000


def test_zero_epsilon_record_allowed_but_negative_refused():
    assert PureDP(0.0).epsilon == 0.0
    with pytest.raises(ValueError, match="epsilon"):
        PureDP(-1.0)


def test_approx_dp_admits_epsilon_zero_and_refuses_negative():
    assert ApproxDP(0.0, 0.5).epsilon == 0.0
    with pytest.raises(ValueError, match="epsilon"):
        ApproxDP(-0.1, 0.5)


def test_heterogeneous_advanced_composition():
    from dpolearn.accounting import heterogeneous_advanced_composition

    eps = np.array([0.3, 0.1, 0.05])
    g = heterogeneous_advanced_composition(eps, 1e-6)
    expected = np.sum(eps * np.expm1(eps)) + np.sqrt(2 * np.log(1e6) * np.sum(eps ** 2))
    assert g.epsilon == pytest.approx(expected, rel=1e-14) and g.delta == 1e-6
    # equal budgets: the homogeneous theorem
    assert heterogeneous_advanced_composition([0.2] * 50, 1e-5).epsilon == pytest.approx(
        advanced_composition(0.2, 0.0, 50, 1e-5).epsilon, rel=1e-13)
    assert heterogeneous_advanced_composition([], 1e-5) == ApproxDP(0.0, 1e-5)
    with pytest.raises(ValueError, match="epsilons"):
        heterogeneous_advanced_composition([0.1, -0.1], 1e-5)


@pytest.mark.parametrize("deltas", [
    (1e-6, 1e-6),
    (1e-9, 1e-3, 0.0),
    (1e-12, 1e-12, 1e-12, 1e-12, 1e-2),
    (0.1, 0.2, 0.3),
])
def test_composed_delta_is_the_sum_of_the_deltas(deltas):
    """Basic composition adds the deltas (Dwork and Roth 2014, Theorem 3.16), however
    different their sizes: the composed record is checked against a direct sum."""
    records = [ApproxDP(0.25, d) if d else PureDP(0.25) for d in deltas]
    g = compose(*records)
    assert g.delta == pytest.approx(math.fsum(deltas), rel=1e-12)
    assert g.epsilon == pytest.approx(0.25 * len(deltas), rel=1e-12)


def test_per_run_deltas_compose_per_run():
    g = compose(ApproxDP(np.array([0.1, 0.2]), np.array([1e-6, 1e-4])), ApproxDP(0.3, 1e-5),
                PureDP(0.5))
    assert np.allclose(g.delta, [1e-6 + 1e-5, 1e-4 + 1e-5], rtol=1e-12, atol=0)
    assert np.allclose(g.epsilon, [0.9, 1.0], rtol=1e-12, atol=0)
