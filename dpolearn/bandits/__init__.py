"""Bandit policies, one module per algorithm family."""
from .baselines import KLUCB, UCB1, BetaTS, GaussianTS, UniformPlay

__all__ = ["UCB1", "KLUCB", "BetaTS", "GaussianTS", "UniformPlay"]
