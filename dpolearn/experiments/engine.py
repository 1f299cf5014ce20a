"""The small engine every experiment module runs on: checkpoints, batched sweeps, task maps.

A *sweep* is a grid of cells (say every epsilon of a figure, or every (instance, epsilon) pair
of the comparison chapter) with ``n_runs`` runs per cell. :func:`sweep` runs ALL cells as one
batch of ``len(cells) * n_runs`` runs through :func:`dpolearn.simulate` (the policies take
per-run parameter arrays, the environments per-run means), cuts the batch into one
:class:`~dpolearn.simulate.Result` per cell and gives each the parameters of its cell, so the
summary rows and figures read them directly. :func:`checkpoints` is the one place where the
rounds at which the regret is recorded are chosen, and :func:`map_tasks` runs independent
batches through the executor of :mod:`dpolearn.experiments.registry` (local processes or
Dask), optionally longest first, with results in task order whatever the schedule.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .._validation import check_positive_int
from ..simulate import Result, make_checkpoints, simulate
from .registry import parallel_map

__all__ = ["checkpoints", "columns", "sweep", "map_tasks"]


def checkpoints(horizon: int, *, log: int = 0, linear: int = 0) -> np.ndarray:
    """The rounds at which an experiment records the regret: about ``log`` log-spaced rounds
    and ``linear`` evenly spaced ones, together (sorted, no repeats, ending at ``horizon``).

    Log-spaced points draw the early rounds on a logarithmic time axis, evenly spaced ones a
    linear axis; a figure offered on both asks for both.

    >>> checkpoints(10, linear=5).tolist()
    [2, 4, 6, 8, 10]
    >>> checkpoints(100, log=3, linear=2).tolist()
    [1, 10, 50, 100]
    """
    for name, value in (("log", log), ("linear", linear)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{name} must be an int >= 0 (number of points), got {value!r}")
    if log == 0 and linear == 0:
        raise ValueError("checkpoints needs log > 0 or linear > 0, got log=0 and linear=0")
    parts = [make_checkpoints(horizon, kind, n)
             for kind, n in (("log", log), ("linear", linear)) if n]
    return parts[0] if len(parts) == 1 else np.union1d(*parts)


def columns(cells: Sequence[Mapping[str, Any]], n_runs: int) -> dict[str, np.ndarray]:
    """Per-run parameter arrays of a sweep: for each key of the cells, the cell values repeated
    ``n_runs`` times each, in cell order (``np.repeat(values, n_runs, axis=0)``).

    A tuple value (e.g. an instance's means) gives a 2-D column of shape
    ``(len(cells) * n_runs, len(value))``.

    >>> columns([{"epsilon": 0.5}, {"epsilon": 1.0}], 2)["epsilon"].tolist()
    [0.5, 0.5, 1.0, 1.0]
    """
    n_runs = check_positive_int("n_runs", n_runs)
    cells = list(cells)
    keys = list(cells[0]) if cells else []
    for i, cell in enumerate(cells):
        if list(cell) != keys:
            raise ValueError(f"cells must all have the keys {keys}, got {list(cell)} in cell {i}")
    return {k: np.repeat(np.asarray([cell[k] for cell in cells]), n_runs, axis=0) for k in keys}


def sweep(policy: Callable[[dict[str, np.ndarray]], Any], env: Any, horizon: int,
          cells: Sequence[Mapping[str, Any]], n_runs: int, seed: Any, *,
          checkpoints: Any, progress: bool = False,
          params: Sequence[Mapping[str, Any]] | None = None, replace_params: bool = False,
          label: str | None = None,
          guarantee: Callable[[Mapping[str, Any]], Any] | None = None) -> list[Result]:
    """Run every cell of a grid as ONE batch and return one Result per cell, in cell order.

    Parameters
    ----------
    policy : callable
        ``policy(cols) -> Policy`` with ``cols = columns(cells, n_runs)``: the per-run arrays
        of the cells' values (one row per run of the batch).
    env : environment or callable
        The environment of the whole batch, or ``env(cols) -> environment`` (per-run means).
    horizon : int
        Rounds per run.
    cells : sequence of mappings
        The grid, one mapping of parameter values per cell (all with the same keys; ``[{}]``
        for a single cell without parameters). The batch holds ``n_runs`` runs per cell.
    n_runs : int
        Runs per cell.
    seed : int or numpy.random.SeedSequence
        The seed of the batch (:func:`dpolearn.simulate`).
    checkpoints : str, int or sequence of ints
        Recording rounds (see :func:`checkpoints`).
    progress : bool
        Progress bar of the simulation.
    params : sequence of mappings, optional
        What each cell's Result records in ``params`` beyond the policy's own parameters (one
        mapping per cell); default: the cells themselves.
    replace_params : bool
        ``True``: ``params`` replace the policy's parameters instead of extending them.
    label : str, optional
        The display label of every Result (default: the policy's label).
    guarantee : callable, optional
        ``guarantee(cell) -> record``: the guarantee of a cell's runs, when it is not the
        per-run slice of the batch's guarantee (which :meth:`Result.select_runs` gives).

    Returns
    -------
    list of Result
        One per cell: ``n_runs`` runs each, ``params`` already those of the cell.
    """
    horizon = check_positive_int("horizon", horizon)
    n_runs = check_positive_int("n_runs", n_runs)
    cells = [dict(c) for c in cells]
    if not cells:
        raise ValueError("cells must hold at least one cell, got none")
    extra = cells if params is None else [dict(p) for p in params]
    if len(extra) != len(cells):
        raise ValueError(f"params must hold one mapping per cell ({len(cells)}), "
                         f"got {len(extra)}")
    cols = columns(cells, n_runs)
    batch_env = env(cols) if callable(env) else env
    res = simulate(policy(cols), batch_env, horizon, len(cells) * n_runs, seed=seed,
                   checkpoints=checkpoints, progress=progress)
    parts = res.split(len(cells))
    for part, cell, more in zip(parts, cells, extra):
        part.params = dict(more) if replace_params else dict(part.params, **more)
        if label is not None:
            part.label = label
        if guarantee is not None:
            part.guarantee = guarantee(cell)
    return parts


def map_tasks(fn: Callable, tasks: Sequence, jobs: int = 1,
              cost: Callable[[Any], float] | None = None) -> list:
    """``[fn(task) for task in tasks]`` on the experiments' executor, results in task order.

    ``cost(task)`` (optional) estimates a task's run time: the tasks are handed out longest
    first, so that the workers finish together. Every task carries its own seed, so neither
    the schedule nor ``jobs`` changes a result.
    """
    tasks = list(tasks)
    if cost is None:
        return parallel_map(fn, tasks, jobs)
    order = sorted(range(len(tasks)), key=lambda i: -cost(tasks[i]))
    done = parallel_map(fn, [tasks[i] for i in order], jobs)
    out: list = [None] * len(tasks)
    for i, result in zip(order, done):
        out[i] = result
    return out
