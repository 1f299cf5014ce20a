"""dpolearn: differentially private online learning, executable.

Algorithms, privacy mechanisms, accountants, lower bounds and experiments of five papers on
private bandits and private online learning, batched over runs for fast simulation.

dpolearn is for simulation and teaching. Its samplers are numpy's floating-point ones, which
are not hardened against floating-point attacks on the Laplace mechanism (Mironov 2012);
do not use it to protect real data.
"""
from . import (
               accounting,
               audit,
               bandits,
               envs,
               experiments,
               fullinfo,
               lower_bounds,
               mechanisms,
               plotting,
               testing,
               widgets,
)
from ._version import __version__ as __version__
from .accounting import ApproxDP, GaussianDP, NotPrivate, PureDP
from .bandits import KLUCB, UCB1, BetaTS, GaussianTS, UniformPlay
from .envs import BernoulliBandit, BernoulliExperts, FixedSequence, GaussianBandit
from .fullinfo import FTL, Hedge
from .leaderboard import Leaderboard, evaluate
from .policy import Policy, PrivacyAssumptionWarning
from .simulate import Result, make_checkpoints, simulate

__all__ = [
    "accounting", "audit", "bandits", "envs", "experiments", "fullinfo", "lower_bounds",
    "mechanisms",
    "plotting",
    "PureDP", "ApproxDP", "GaussianDP", "NotPrivate",
    "UCB1", "KLUCB", "BetaTS", "GaussianTS", "UniformPlay", "FTL", "Hedge",
    "BernoulliBandit", "GaussianBandit", "BernoulliExperts", "FixedSequence",
    "Policy", "PrivacyAssumptionWarning", "Result", "simulate", "make_checkpoints",
    "testing", "widgets", "evaluate", "Leaderboard",
]
