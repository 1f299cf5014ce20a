"""Where the independent tasks of an experiment run: local processes or a Dask cluster.

Every task carries its own seed and results are collected in task order, so the data do not
depend on the executor, the number of workers or the order in which tasks finish. The Dask
executor needs the optional dependencies of ``pip install "dpolearn[distributed]"`` and a
running scheduler; each task checks on its worker that the worker's dpolearn is the same
version and source as the submitting process, so a stale worker fails loudly instead of
returning different numbers.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from .._version import __version__
from ._cache import source_hash

__all__ = ["DASK_EXTRA_HINT", "EXECUTORS", "executor", "map_tasks", "set_executor"]

EXECUTORS = ("local", "dask")
DASK_EXTRA_HINT = 'pip install "dpolearn[distributed]"'
CONNECT_TIMEOUT = "10s"

_current: dict = {"name": "local", "scheduler": None, "client": None, "owned": False}


@functools.lru_cache(maxsize=1)
def fingerprint() -> tuple:
    """``(version, source hash)`` of the dpolearn this process imports (computed once)."""
    return __version__, source_hash()


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise ImportError(f"the Dask executor needs the optional dependencies: {DASK_EXTRA_HINT}") \
            from None
    return distributed


def set_executor(name: str = "local", scheduler: Any = None) -> None:
    """Choose where :func:`~dpolearn.experiments.parallel_map` runs the tasks of experiments.

    Parameters
    ----------
    name : {"local", "dask"}
        ``"local"``: ``jobs`` local processes (the default). ``"dask"``: the workers of a Dask
        distributed cluster; ``jobs`` is then ignored.
    scheduler : str or distributed.Client, optional
        For ``"dask"``, the scheduler's address (e.g. ``"tcp://10.0.0.5:8786"``) or an existing
        ``distributed.Client``. Required with ``"dask"``, refused with ``"local"``.

    Raises
    ------
    ImportError
        ``"dask"`` without the optional dependencies installed.
    OSError
        The scheduler cannot be reached.
    RuntimeError
        A worker cannot import dpolearn or runs a different version or source of it.
    """
    if not isinstance(name, str) or name not in EXECUTORS:
        raise ValueError(f"executor must be one of {list(EXECUTORS)}, got {name!r}")
    if name == "local":
        if scheduler is not None:
            raise ValueError(f"scheduler is only used with the 'dask' executor, got {scheduler!r}")
        _release_client()
        _current.update(name="local", scheduler=None, client=None, owned=False)
        return
    if scheduler is None:
        raise ValueError("scheduler must be given with the 'dask' executor "
                         "(an address such as 'tcp://host:8786' or a distributed.Client), got None")
    # the argument is checked before the optional dependency is imported
    is_address = isinstance(scheduler, str)
    if is_address and not scheduler.strip():
        raise ValueError(f"scheduler must be a Dask scheduler address, got {scheduler!r}")
    if not is_address and type(scheduler).__module__.partition(".")[0] != "distributed":
        raise TypeError(
            f"scheduler must be an address string or a distributed.Client, got {scheduler!r}"
        )
    distributed = _import_distributed()
    if isinstance(scheduler, distributed.Client):
        client, address, owned = scheduler, scheduler.scheduler.address, False
    elif isinstance(scheduler, str) and scheduler.strip():
        address = scheduler.strip()
        try:
            client = distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise OSError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None
        owned = True
    else:
        raise TypeError(
            f"scheduler must be an address string or a distributed.Client, got {scheduler!r}"
        )
    try:
        _check_workers(client, address)
    except BaseException:
        if owned:
            client.close()
        raise
    _release_client()
    _current.update(name="dask", scheduler=address, client=client, owned=owned)


def _release_client() -> None:
    """Close the client this module opened (a client passed in by the caller stays open)."""
    if _current["owned"] and _current["client"] is not None:
        _current["client"].close()


def _check_workers(client, address: str) -> None:
    try:
        seen = client.run(fingerprint)
    except ImportError as exc:
        raise RuntimeError(f"the workers of the Dask scheduler at {address!r} cannot import "
                           f"dpolearn ({exc}); install the same dpolearn on every worker") from None
    for worker, theirs in seen.items():
        if tuple(theirs) != fingerprint():
            raise RuntimeError(
                f"Dask worker {worker} runs dpolearn {theirs[0]} (source {theirs[1]}), "
                f"this process {fingerprint()[0]} (source {fingerprint()[1]}); "
                "install the same dpolearn on every worker"
            )


def executor() -> tuple:
    """The current executor as ``(name, scheduler address or None)``."""
    return _current["name"], _current["scheduler"]


def _run_pickled(blob: bytes) -> Any:
    """Run on a Dask worker: check the worker's dpolearn, then ``fn(task)``."""
    import cloudpickle

    fn, task, expected = cloudpickle.loads(blob)
    if fingerprint() != tuple(expected):
        raise RuntimeError(
            f"this Dask worker runs dpolearn {fingerprint()}, the client {tuple(expected)}; "
            "install the same dpolearn on every worker"
        )
    return fn(task)


def map_tasks(fn: Callable, tasks: Sequence, jobs: int) -> list[Any]:
    """``[fn(task) for task in tasks]`` on the current executor, in task order."""
    if _current["name"] == "dask":
        import cloudpickle  # a dependency of distributed

        client = _current["client"]
        # Each task is pickled here, so Dask never interprets a task tuple as a graph;
        # cloudpickle also ships functions defined in a notebook or script (``__main__``).
        futures = [
            client.submit(_run_pickled, cloudpickle.dumps((fn, task, fingerprint())), pure=False)
            for task in tasks
        ]
        return client.gather(futures)
    if jobs == 1 or len(tasks) <= 1:
        return [fn(task) for task in tasks]
    import multiprocessing as mp

    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)),
                             mp_context=mp.get_context("fork")) as pool:
        return list(pool.map(fn, tasks))


def current_client() -> Any | None:
    """The Dask client in use, if any."""
    return _current["client"]
