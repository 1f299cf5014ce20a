"""Full-information (prediction with expert advice / DTOL) policies."""
from .baselines import FTL, Hedge

__all__ = ["FTL", "Hedge"]
