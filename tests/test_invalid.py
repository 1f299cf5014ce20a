"""Every kind of bad input gets a clear error naming the parameter and the value."""
import numpy as np
import pytest

import dpolearn as dpl
from dpolearn.mechanisms import (ExponentialMechanism, GaussianMechanism, LaplaceMechanism,
                                 ReportNoisyMax)

BAD_EPSILONS = [0, -1, float("nan"), float("inf")]


@pytest.mark.parametrize("eps", BAD_EPSILONS)
@pytest.mark.parametrize("factory", [
    lambda e: LaplaceMechanism(epsilon=e),
    lambda e: ReportNoisyMax(epsilon=e),
    lambda e: ExponentialMechanism(epsilon=e),
])
def test_bad_epsilon_is_a_value_error_naming_it(factory, eps):
    with pytest.raises(ValueError, match=r"epsilon must be .*got"):
        factory(eps)


@pytest.mark.parametrize("eps", ["1", None, [1, "a"]])
def test_epsilon_of_the_wrong_type_is_a_type_error(eps):
    with pytest.raises(TypeError, match="epsilon"):
        LaplaceMechanism(epsilon=eps)


@pytest.mark.parametrize("means, match", [
    ([0.5, 1.2], r"means must lie in \[0.0, 1.0\], got 1.2"),
    ([-0.1, 0.5], "means must lie in"),
    ([0.5], "K >= 2"),
    ([[[0.5, 0.2]]], "shape"),
    ([0.5, float("nan")], "finite"),
])
def test_bad_bernoulli_means(means, match):
    with pytest.raises(ValueError, match=match):
        dpl.BernoulliBandit(means)


def test_bad_env_parameters():
    with pytest.raises(ValueError, match="sigma"):
        dpl.GaussianBandit([0.0, 1.0], sigma=0)
    with pytest.raises(ValueError, match="kind"):
        dpl.BernoulliExperts([0.2, 0.3], kind="gain")
    with pytest.raises(ValueError, match="losses"):
        dpl.FixedSequence(np.ones((3, 1)))
    with pytest.raises(ValueError, match="losses"):
        dpl.FixedSequence(2 * np.ones((3, 2)))


@pytest.mark.parametrize("kwargs, match", [
    ({"horizon": 0}, "horizon must be >= 1, got 0"),
    ({"horizon": -5}, "horizon"),
    ({"n_runs": 0}, "n_runs must be >= 1, got 0"),
    ({"seed": -1}, "seed"),
    ({"checkpoints": [0, 5]}, "checkpoints"),
    ({"checkpoints": "weird"}, "checkpoints"),
])
def test_bad_simulation_parameters(kwargs, match):
    args = {"policy": dpl.UCB1(), "env": dpl.BernoulliBandit([0.5, 0.4]), "horizon": 10,
            "n_runs": 2, **kwargs}
    with pytest.raises(ValueError, match=match):
        dpl.simulate(**args)


def test_horizon_of_the_wrong_type():
    with pytest.raises(TypeError, match="horizon must be an integer, got 10.5"):
        dpl.simulate(dpl.UCB1(), dpl.BernoulliBandit([0.5, 0.4]), 10.5, 2)


def test_means_rows_must_match_n_runs():
    with pytest.raises(ValueError, match="n_runs"):
        dpl.simulate(dpl.UCB1(), dpl.BernoulliBandit([[0.5, 0.4]] * 3), 10, 2)


def test_bad_mechanism_parameters():
    with pytest.raises(ValueError, match="sensitivity"):
        LaplaceMechanism(epsilon=1.0, sensitivity=0)
    with pytest.raises(ValueError, match="sigma"):
        GaussianMechanism(sigma=-1)
    with pytest.raises(ValueError, match="noise"):
        ReportNoisyMax(epsilon=1.0, noise="cauchy")
    with pytest.raises(ValueError, match="exactly one"):
        ReportNoisyMax(epsilon=1.0, scale=1.0)
    with pytest.raises(ValueError, match="scores"):
        ReportNoisyMax(epsilon=1.0).selection_probabilities([1.0])
    with pytest.raises(ValueError, match="delta"):
        GaussianMechanism.classical(epsilon=0.5, delta=0)


def test_bad_baseline_parameters():
    with pytest.raises(ValueError, match="prior"):
        dpl.GaussianTS(prior="flat")
    with pytest.raises(ValueError, match="learning_rate"):
        dpl.Hedge(learning_rate=0)
    with pytest.raises(ValueError, match="c must be"):
        dpl.KLUCB(c=-1)


def test_bad_experiment_requests():
    with pytest.raises(ValueError, match="scale"):
        dpl.experiments.scale("huge")
    with pytest.raises(ValueError, match="experiment"):
        dpl.experiments.get("no-such-figure")
