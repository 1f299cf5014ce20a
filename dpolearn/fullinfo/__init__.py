"""Full-information (prediction with expert advice / DTOL) policies."""
from .baselines import FTL, Hedge
from .rnm_ftnl import RNMFTNL, NaiveFTNL
from . import epoch_sim

__all__ = ["FTL", "Hedge", "RNMFTNL", "NaiveFTNL", "epoch_sim"]
