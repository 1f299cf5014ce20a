"""Guarantee records and composition."""
import math

import numpy as np
import pytest

from dpolearn.accounting import (ApproxDP, GaussianDP, NotPrivate, PureDP, advanced_composition,
                                 compose)


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
