"""Experiments: one registered function per figure or table of the book.

Modules in this package register their experiments on import; ``ids()`` imports them all.
See :mod:`dpolearn.experiments.registry` for the scale switch (``set_scale``), the result
cache and the executors (local processes or Dask, ``set_executor``). Every experiment runs on
:mod:`dpolearn.experiments.engine` (recording rounds, batched sweeps over a grid of cells,
ordered task maps) and builds its policies from :mod:`dpolearn.experiments.catalogue`
(display label -> policy, with each paper's settings as a preset).
"""
from .registry import (
                       EXECUTORS,
                       SCALES,
                       START_METHODS,
                       SUMMARY_COLUMNS,
                       CacheWarning,
                       Experiment,
                       SerialExecutionWarning,
                       Setting,
                       cache_dir,
                       check_out_dir,
                       derive_seed,
                       executor,
                       figure,
                       get,
                       ids,
                       parallel_map,
                       progress_default,
                       refresh_session,
                       register,
                       regret_rows,
                       run,
                       scale,
                       scale_note,
                       set_executor,
                       set_scale,
                       settings,
                       source_hash,
                       start_method,
                       write_outputs,
)

__all__ = ["EXECUTORS", "SCALES", "START_METHODS", "SUMMARY_COLUMNS", "CacheWarning", "Experiment",
           "SerialExecutionWarning", "Setting", "cache_dir",
           "check_out_dir", "derive_seed", "executor", "figure", "get", "ids", "parallel_map",
           "progress_default", "refresh_session", "register", "regret_rows", "run", "scale",
           "scale_note", "set_executor", "set_scale", "settings", "source_hash", "start_method",
           "write_outputs"]
