"""Experiments: one registered function per figure or table of the book.

Modules in this package register their experiments on import; ``ids()`` imports them all.
"""
from .registry import (SCALES, SUMMARY_COLUMNS, Experiment, cache_dir, derive_seed, figure, get,
                       ids, parallel_map, register, regret_rows, run, scale, source_hash,
                       write_outputs)

__all__ = ["SCALES", "SUMMARY_COLUMNS", "Experiment", "cache_dir", "derive_seed", "figure", "get",
           "ids", "parallel_map", "register", "regret_rows", "run", "scale", "source_hash",
           "write_outputs"]
