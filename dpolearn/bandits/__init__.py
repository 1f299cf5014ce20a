"""Bandit policies, one module per algorithm family."""
from .adap import AdaPKLUCB, AdaPUCB
from .baselines import KLUCB, UCB1, BetaTS, GaussianTS, UniformPlay
from .dp_ts_ucb import DPTSUCB, MTSGaussian
from .dp_ucb import DPUCB, DPUCBBound, DPUCBInt, PrivateUCB
from .dpse import DPSE
from .dpts import DPTS
from .lazy import AnytimeLazyUCB, LazyDPTS

__all__ = ["UCB1", "KLUCB", "BetaTS", "GaussianTS", "UniformPlay",
           "AnytimeLazyUCB", "LazyDPTS", "DPSE", "AdaPUCB", "AdaPKLUCB",
           "DPTSUCB", "MTSGaussian",
           "DPUCBBound", "DPUCB", "DPUCBInt", "PrivateUCB",
           "DPTS"]
