"""Where the independent tasks of an experiment run: local processes or a Dask cluster.

Every task carries its own seed and results are collected in task order, so the data do not
depend on the executor, the number of workers, the process start method or the order in which
tasks finish.

Local processes start by the method :func:`start_method` returns: the one given to
:func:`set_executor`, else ``$DPOLEARN_START_METHOD``, else ``"forkserver"`` where the platform
has it (Linux and the other POSIX systems but macOS; Python 3.14 makes it Linux's default too)
and ``"spawn"`` elsewhere (macOS, Windows). ``"fork"`` is still offered; it copies a
multi-threaded parent (a Jupyter kernel, a Dask client), which Python 3.12+ warns may deadlock.
Under ``"spawn"`` and ``"forkserver"`` the task function must be importable by the workers (a
function of a module, not one defined in a notebook or script). In the browser (Pyodide,
JupyterLite: ``sys.platform == "emscripten"``) there are no processes: tasks run one after the
other in the kernel, with one :class:`SerialExecutionWarning` saying so. The Dask
executor needs the optional dependencies of ``pip install "dpolearn[distributed]"`` and a
running scheduler; each task checks on its worker that the worker's dpolearn is the same
version and source as the submitting process, so a stale worker fails loudly instead of
returning different numbers.
"""
from __future__ import annotations

import functools
import multiprocessing
import os
import sys
import types
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from .._version import __version__
from ._cache import source_hash

__all__ = ["DASK_EXTRA_HINT", "EXECUTORS", "START_METHODS", "SerialExecutionWarning",
           "executor", "map_tasks", "set_executor", "start_method"]

EXECUTORS = ("local", "dask")
START_METHODS = ("fork", "spawn", "forkserver")
DASK_EXTRA_HINT = 'pip install "dpolearn[distributed]"'
CONNECT_TIMEOUT = "10s"

_current: dict = {"name": "local", "scheduler": None, "client": None, "owned": False,
                  "start_method": None}
_warned = {"serial": False}


class SerialExecutionWarning(UserWarning):
    """Tasks asked to run on several processes run one after the other (no processes here)."""


def _check_start_method(name: str, value: Any) -> str:
    if not isinstance(value, str) or value not in START_METHODS:
        raise ValueError(f"{name} must be one of {list(START_METHODS)}, got {value!r}")
    if value not in multiprocessing.get_all_start_methods():
        raise ValueError(f"{name} {value!r} is not available on this platform "
                         f"({sys.platform}; it has {multiprocessing.get_all_start_methods()})")
    return value


def start_method() -> str:
    """The start method of the local worker processes.

    The one given to ``set_executor("local", start_method=...)``, else
    ``$DPOLEARN_START_METHOD``, else ``"forkserver"`` where the platform has it (not macOS,
    whose default is ``"spawn"``), else ``"spawn"``. Results do not depend on it.
    """
    if _current["start_method"] is not None:
        return _current["start_method"]
    env = os.environ.get("DPOLEARN_START_METHOD", "")
    if env:
        return _check_start_method("DPOLEARN_START_METHOD", env)
    if sys.platform != "darwin" and "forkserver" in multiprocessing.get_all_start_methods():
        return "forkserver"
    return "spawn"


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


def set_executor(name: str = "local", scheduler: Any = None, *,
                 start_method: str | None = None) -> None:
    """Choose where :func:`~dpolearn.experiments.parallel_map` runs the tasks of experiments.

    Parameters
    ----------
    name : {"local", "dask"}
        ``"local"``: ``jobs`` local processes (the default). ``"dask"``: the workers of a Dask
        distributed cluster; ``jobs`` is then ignored.
    scheduler : str or distributed.Client, optional
        For ``"dask"``, the scheduler's address (e.g. ``"tcp://10.0.0.5:8786"``) or an existing
        ``distributed.Client``. Required with ``"dask"``, refused with ``"local"``.
    start_method : {"fork", "spawn", "forkserver"}, optional
        For ``"local"``, how worker processes start (see :func:`start_method` for the default,
        which ``None`` restores). Results are the same bits under every method.

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
        if start_method is not None:
            start_method = _check_start_method("start_method", start_method)
        _release_client()
        _current.update(name="local", scheduler=None, client=None, owned=False,
                        start_method=start_method)
        return
    if start_method is not None:
        raise ValueError("start_method is only used with the 'local' executor, "
                         f"got {start_method!r}")
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
    if jobs > 1 and len(tasks) > 1 and sys.platform == "emscripten":
        if not _warned["serial"]:
            _warned["serial"] = True
            warnings.warn(f"jobs={jobs}: this Python runs in the browser (Pyodide), which has no "
                          "worker processes, so the tasks run one after the other here; the "
                          "results are the same", SerialExecutionWarning, stacklevel=3)
        jobs = 1
    if jobs == 1 or len(tasks) <= 1:
        return [fn(task) for task in tasks]
    method = start_method()
    _check_importable(fn, method)
    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)),
                             mp_context=multiprocessing.get_context(method)) as pool:
        return list(pool.map(fn, tasks))


def _check_importable(fn: Callable, method: str) -> None:
    """Workers find ``fn`` by its module and name (pickle); spawn and forkserver workers
    re-import a script's ``__main__`` but cannot see a notebook's."""
    if not isinstance(fn, types.FunctionType):
        return                           # a partial, a class, a callable object: pickle decides
    notebook = fn.__module__ == "__main__" and \
        getattr(sys.modules.get("__main__"), "__file__", None) is None
    if "<" in fn.__qualname__ or (notebook and method != "fork"):
        raise ValueError(
            f"fn must be a function defined at the top level of a module for worker processes "
            f"started by {method!r} (they import it by name), got {fn!r}; move it to a module, "
            "use jobs=1, or (in a notebook) set_executor('local', start_method='fork')"
        )


def current_client() -> Any | None:
    """The Dask client in use, if any."""
    return _current["client"]
