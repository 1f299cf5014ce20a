"""Bandit policies, one module per algorithm family."""
from .baselines import KLUCB, UCB1, BetaTS, GaussianTS, UniformPlay
from .lazy import AnytimeLazyUCB, LazyDPTS
from .dpse import DPSE
from .adap import AdaPUCB, AdaPKLUCB

__all__ = ["UCB1", "KLUCB", "BetaTS", "GaussianTS", "UniformPlay",
           "AnytimeLazyUCB", "LazyDPTS", "DPSE", "AdaPUCB", "AdaPKLUCB"]
