"""Full-information (prediction with expert advice / DTOL) policies."""
from . import epoch_sim
from .baselines import FTL, Hedge
from .rnm_ftnl import RNMFTNL, NaiveFTNL

__all__ = ["FTL", "RNMFTNL", "Hedge", "NaiveFTNL", "epoch_sim"]
