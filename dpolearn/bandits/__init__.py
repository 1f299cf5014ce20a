"""Bandit policies, one module per algorithm family."""
from .baselines import KLUCB, UCB1, BetaTS, GaussianTS, UniformPlay
from .lazy import AnytimeLazyUCB, LazyDPTS
from .dpse import DPSE
from .adap import AdaPUCB, AdaPKLUCB
from .dp_ts_ucb import DPTSUCB, MTSGaussian
from .dp_ucb import DPUCB, DPUCBBound, DPUCBInt, PrivateUCB
from .dpts import DPTS

__all__ = ["UCB1", "KLUCB", "BetaTS", "GaussianTS", "UniformPlay",
           "AnytimeLazyUCB", "LazyDPTS", "DPSE", "AdaPUCB", "AdaPKLUCB",
           "DPTSUCB", "MTSGaussian",
           "DPUCBBound", "DPUCB", "DPUCBInt", "PrivateUCB",
           "DPTS"]
