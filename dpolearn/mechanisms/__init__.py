"""Privacy mechanisms, each usable on its own and each stating its guarantee as data."""
from .counters import BinaryCounter, CounterNoise, HybridCounter, LogarithmicCounter
from .gaussian import GaussianMechanism
from .interval_mean import IntervalLaplaceMean, calibrate_epsilon, lemma_b1_schedule
from .laplace import LaplaceMechanism
from .lazy_mean import LazyDoublingPrivateMean, lazy_schedule
from .noisy_max import NOISE_FAMILIES, ExponentialMechanism, ReportNoisyMax

__all__ = ["LaplaceMechanism", "GaussianMechanism", "ReportNoisyMax", "ExponentialMechanism",
           "NOISE_FAMILIES", "LazyDoublingPrivateMean", "lazy_schedule",
           "BinaryCounter", "LogarithmicCounter", "HybridCounter", "CounterNoise",
           "IntervalLaplaceMean", "calibrate_epsilon", "lemma_b1_schedule"]
