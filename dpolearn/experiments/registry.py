"""The experiments registry: one registered function per paper figure or table.

An experiment has a ``compute(scale, seed, jobs, progress) -> data`` function (``data`` is a
picklable dict), a ``plot(data) -> Figure`` function and, for regret experiments, a
``summary(data) -> rows`` function giving one row per curve for ``summary.csv``. Chapters and
the command line call the same functions through :func:`run` and :func:`figure`.

Scale
    ``"quick"`` (seconds per chapter, the default) or ``"paper"`` (the papers' own horizons and
    numbers of runs). :func:`scale` returns the scale in force: the value given to
    :func:`set_scale` in this process if any, else ``$DPOLEARN_SCALE``, else ``"quick"``. In a
    running notebook (Colab, Binder, Jupyter), call ``dpl.experiments.set_scale("paper")``
    before the experiments run; no restart is needed.

Cache
    :func:`run` keeps each experiment's data on disk under :func:`cache_dir`, keyed by
    experiment id, scale, seed, a hash of the dpolearn source and the numpy and scipy versions.
    Entries carry a schema tag and a checksum; an unusable entry is reported with a
    :class:`CacheWarning` naming the file, recomputed and replaced, and writes are atomic.
    ``run(..., cache=False)`` (the command line's ``--no-cache``) recomputes the experiment and
    every experiment it reads through nested ``run`` calls, and rewrites their entries.

Executor
    The independent tasks of an experiment go through :func:`parallel_map`: ``jobs`` local
    processes by default, or the workers of a Dask cluster after
    ``set_executor("dask", scheduler="tcp://host:8786")`` (``pip install
    "dpolearn[distributed]"``). Every task carries its own seed and results come back in task
    order, so the data are the same bits whatever the executor, the number of workers and the
    start method of the local processes (:func:`start_method`: ``"forkserver"`` on Linux,
    ``"spawn"`` on macOS and Windows, or ``set_executor("local", start_method=...)``). In the
    browser (Pyodide, JupyterLite) tasks run one after the other in the kernel.
"""
from __future__ import annotations

import contextlib
import contextvars
import csv
import hashlib
import importlib
import io
import numbers
import os
import pkgutil
import re
import textwrap
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import (
    as_seed_sequence,
    check_choice,
    check_directory,
    check_positive_int,
    progress_from_env,
)
from ..simulate import Result
from . import _cache, _settings
from ._cache import CacheWarning, source_hash
from ._executor import (
    EXECUTORS,
    START_METHODS,
    SerialExecutionWarning,
    executor,
    map_tasks,
    set_executor,
    start_method,
)
from ._settings import Setting

__all__ = [
    "EXECUTORS",
    "SCALES",
    "START_METHODS",
    "SUMMARY_COLUMNS",
    "CacheWarning",
    "Experiment",
    "SerialExecutionWarning",
    "Setting",
    "cache_dir",
    "check_out_dir",
    "derive_seed",
    "executor",
    "figure",
    "get",
    "ids",
    "parallel_map",
    "progress_default",
    "refresh_session",
    "register",
    "regret_rows",
    "run",
    "scale",
    "set_executor",
    "set_scale",
    "settings",
    "source_hash",
    "start_method",
    "write_outputs",
]

SCALES = ("quick", "paper")
SUMMARY_COLUMNS = ["experiment", "panel", "algorithm", "epsilon", "horizon", "n_runs",
                   "final_regret_mean", "final_regret_se", "params"]

_REGISTRY: dict[str, Experiment] = {}
_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_SCALE_OVERRIDE: dict[str, str | None] = {"value": None}
# Inside ``run(..., cache=False)``: the set of cache entries already recomputed in this call, so
# nested ``run`` calls recompute (once) instead of reading the cache.
_REFRESHING: contextvars.ContextVar = contextvars.ContextVar("dpolearn_cache_refresh", default=None)

Seed = int | np.random.SeedSequence


@dataclass(frozen=True)
class Experiment:
    id: str
    title: str
    compute: Callable[..., dict[str, Any]]
    plot: Callable[[dict[str, Any]], Any] | None = None
    summary: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None
    chapter: str = ""
    settings: tuple[Setting, ...] = ()

    def __post_init__(self):
        if not callable(self.compute):
            raise TypeError(f"compute must be callable, got {self.compute!r}")
        for name in ("plot", "summary"):
            value = getattr(self, name)
            if value is not None and not callable(value):
                raise TypeError(f"{name} must be callable or None, got {value!r}")
        names = [s.name for s in self.settings if isinstance(s, Setting)]
        if len(names) != len(self.settings):
            raise TypeError(f"settings must be Setting records, got {self.settings!r}")
        clash = sorted(set(names) & _RUN_ARGUMENTS) or sorted(
            {n for n in names if names.count(n) > 1})
        if clash:
            raise ValueError(f"settings must have distinct names other than run's own "
                             f"arguments, got {clash}")


#: The keywords of :func:`run` itself, which no experiment setting may take as its name.
_RUN_ARGUMENTS = frozenset({"id", "scale_name", "seed", "jobs", "progress", "cache"})


def register(id: str, *, title: str, plot=None, summary=None, chapter: str = "",
             settings=()):
    """Decorator registering ``compute(scale, seed, jobs, progress, **overrides)`` under ``id``.

    ``id`` names files (cache entries, output directories): letters, digits, ``.``, ``_``, ``-``.
    ``settings`` (a sequence of :class:`Setting`) are the experiment's settings that
    ``run(id, scale, **overrides)`` may change; ``compute`` receives only the overridden ones,
    checked and normalised, as keyword arguments (and uses its defaults for the others).
    """
    if not isinstance(id, str):
        raise TypeError(f"experiment id must be a string, got {id!r}")
    if not _ID_PATTERN.fullmatch(id):
        raise ValueError(f"experiment id must be letters, digits, '.', '_' or '-' (not starting "
                         f"with a punctuation mark), got {id!r}")
    if not isinstance(title, str):
        raise TypeError(f"title must be a string, got {title!r}")

    def wrap(compute):
        if not callable(compute):
            raise TypeError(f"register({id!r}) must decorate a function, got {compute!r}")
        if id in _REGISTRY and _REGISTRY[id].compute.__qualname__ != compute.__qualname__:
            raise ValueError(f"experiment id {id!r} is registered twice")
        _REGISTRY[id] = Experiment(id, title, compute, plot, summary, chapter, tuple(settings))
        return compute
    return wrap


def _load_all() -> None:
    """Import every experiment module of this package (each registers its experiments)."""
    for mod in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if not mod.name.startswith("_") and mod.name != "registry":
            importlib.import_module(f"{__package__}.{mod.name}")


def ids() -> list[str]:
    """All registered experiment ids, sorted."""
    _load_all()
    return sorted(_REGISTRY)


def get(id: str) -> Experiment:
    """The registered experiment ``id`` (ValueError for an unknown id)."""
    if not isinstance(id, str):
        raise TypeError(f"experiment id must be a string, got {id!r}")
    _load_all()
    if id not in _REGISTRY:
        raise ValueError(
            f"experiment id must be one of the ids from `python -m dpolearn list`, got {id!r}"
        )
    return _REGISTRY[id]


def _check_scale(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {list(SCALES)}, got {value!r}")
    return check_choice(name, value, SCALES)


def scale(value: str | None = None) -> str:
    """The experiment scale in force.

    ``value`` if given (validated), else the scale chosen with :func:`set_scale`, else
    ``$DPOLEARN_SCALE``, else ``"quick"``.

    >>> scale("paper")
    'paper'
    """
    if value is not None:
        return _check_scale("scale", value)
    if _SCALE_OVERRIDE["value"] is not None:
        return _SCALE_OVERRIDE["value"]
    env = os.environ.get("DPOLEARN_SCALE", "")
    return _check_scale("DPOLEARN_SCALE", env) if env else "quick"


def set_scale(value: str | None) -> str:
    """Choose the scale of every later experiment in this process; returns it.

    Overrides ``$DPOLEARN_SCALE``; ``set_scale(None)`` goes back to it. In a notebook, call it
    before the cells that run experiments, e.g. ``dpl.experiments.set_scale("paper")``.
    """
    _SCALE_OVERRIDE["value"] = None if value is None else _check_scale("scale", value)
    return scale()


def scale_note(experiment: str | None = None, width: int = 72) -> str:
    """The note a chapter prints at its top: the scale its experiments run at, and how to
    switch a running notebook to the papers' scale (lines of at most ``width`` characters).

    Parameters
    ----------
    experiment : str, optional
        The id of the chapter's main registered experiment; the note then also gives the
        command that fills its cache at paper scale.
    width : int
        Longest line, in characters (at least 40).
    """
    if isinstance(width, bool) or not isinstance(width, int) or width < 40:
        raise ValueError(f"width must be an int >= 40, got {width!r}")
    if experiment is not None:
        get(experiment)                          # a ValueError naming the id if unknown
    current = scale()
    if current == "paper":
        text = "Experiments on this page run at paper scale: the papers' horizons and runs."
    else:
        command = ("" if experiment is None else
                   f", or run `python -m dpolearn run {experiment} --scale paper`")
        text = (f"Experiments on this page run at {current} scale (shorter horizons, fewer "
                "runs); the published book uses paper scale. To switch a running notebook, "
                'run dpl.experiments.set_scale("paper") and re-run the chapter from the top, '
                f"or set DPOLEARN_SCALE=paper before starting Jupyter{command}.")
    return textwrap.fill(text, width=width, break_on_hyphens=False, break_long_words=False)


def progress_default() -> bool:
    """Whether progress bars are shown when ``progress`` is not given: ``$DPOLEARN_PROGRESS``.

    Accepted values (any case): 1, true, on, yes, auto (shown; the default) and 0, false, off, no.
    """
    return progress_from_env() is not False


def _check_seed(seed: Any) -> Seed:
    """``seed`` checked by the package's one seed rule (:func:`dpolearn._validation.
    as_seed_sequence`: an int >= 0 or a SeedSequence); an int is kept as an int, since the
    derived seeds and cache keys of the experiments are built from its value."""
    as_seed_sequence(seed)
    return seed if isinstance(seed, np.random.SeedSequence) else int(seed)


def _seed_key(seed: np.random.SeedSequence) -> tuple:
    """What determines a SeedSequence's output (never its spawn counter, which calls advance)."""
    return ("SeedSequence", seed.entropy, tuple(seed.spawn_key), seed.pool_size)


def _seed_tag(seed: Seed) -> str:
    if isinstance(seed, np.random.SeedSequence):
        return "ss" + hashlib.sha256(repr(_seed_key(seed)).encode()).hexdigest()[:12]
    return str(seed)


def _canonical_key(key: Any) -> Any:
    if isinstance(key, np.random.SeedSequence):
        return _seed_key(key)
    if isinstance(key, tuple):
        return tuple(_canonical_key(k) for k in key)
    if key is None or isinstance(key, (str, bytes, numbers.Number)):
        return key
    raise TypeError(
        "derive_seed keys must be strings, numbers, None, SeedSequences or tuples of them, "
        f"got {key!r}"
    )


def derive_seed(*keys: Any) -> np.random.SeedSequence:
    """A SeedSequence determined by ``keys``, independent of run order.

    Keys are strings, numbers, None, ``SeedSequence`` objects (used through their entropy and
    spawn key, never advanced) or tuples of them; the same keys always give the same sequence.

    >>> derive_seed("fig", 1, 0).entropy == derive_seed("fig", 1, 0).entropy
    True
    """
    if not keys:
        raise ValueError("derive_seed needs at least one key, got none")
    canonical = tuple(_canonical_key(k) for k in keys)
    digest = hashlib.sha256(repr(canonical).encode()).digest()
    return np.random.SeedSequence(int.from_bytes(digest[:16], "little"))


def parallel_map(fn: Callable, tasks: Iterable, jobs: int = 1) -> list:
    """``[fn(task) for task in tasks]``, on the executor chosen with :func:`set_executor`.

    Locally (the default) over ``jobs`` processes when ``jobs > 1``; on Dask the cluster's
    workers run the tasks and ``jobs`` is ignored. Each task must carry its own seed, so the
    results (returned in task order) do not depend on ``jobs`` or the executor.
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    if isinstance(tasks, (str, bytes)) or not isinstance(tasks, Iterable):
        raise TypeError(f"tasks must be an iterable of tasks, got {tasks!r}")
    jobs = check_positive_int("jobs", jobs)
    return map_tasks(fn, list(tasks), jobs)


def cache_dir() -> Path:
    """Where experiment data are cached.

    ``$DPOLEARN_CACHE`` if set; else ``_build/cache`` of the checkout the package runs from;
    else (an installed package) ``$XDG_CACHE_HOME/dpolearn``, by default ``~/.cache/dpolearn``.
    """
    env = os.environ.get("DPOLEARN_CACHE")
    if env:
        path = Path(env)
        if path.exists() and not path.is_dir():
            raise ValueError(f"DPOLEARN_CACHE must name a directory, got {env!r} (a file)")
        return path
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "dpolearn").is_dir():
        return checkout / "_build" / "cache"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dpolearn"


@contextlib.contextmanager
def refresh_session() -> Iterator[set]:
    """Within this context every ``run`` recomputes its entry (once) instead of reading it.

    ``run(..., cache=False)`` opens one; the command line opens one around all of its
    experiments, so an experiment shared by several of them is recomputed only once.
    """
    done = _REFRESHING.get()
    if done is not None:
        yield done
        return
    token = _REFRESHING.set(set())
    try:
        yield _REFRESHING.get()
    finally:
        _REFRESHING.reset(token)


def run(id: str, scale_name: str | None = None, seed: Seed = 0, jobs: int = 1,
        progress: bool | None = None, cache: bool = True, **overrides: Any) -> dict[str, Any]:
    """Compute (or load from the cache) the data of experiment ``id``, at its settings or at
    settings of your own.

    Parameters
    ----------
    id : str
        An experiment id (``ids()``, or ``python -m dpolearn list``).
    scale_name : {"quick", "paper"}, optional
        Default: :func:`scale`.
    seed : int >= 0 or numpy.random.SeedSequence
        Base seed; a SeedSequence is read (entropy and spawn key), never advanced.
    jobs : int >= 1
        Local worker processes (ignored by the Dask executor); results do not depend on it.
    progress : bool, optional
        Progress bars; default :func:`progress_default`.
    cache : bool
        ``False`` recomputes this experiment and those it reads through nested ``run`` calls,
        and rewrites their cache entries.
    **overrides
        The experiment's settings to change (``get(id).settings``; each experiment module of
        the API reference lists its experiments' settings, typically ``means``, ``epsilons``,
        ``horizon``, ``n_runs`` and ``algorithms``). Checked before anything is computed: an
        unknown name or a bad value raises ValueError or TypeError naming it. They enter the
        cache key, so each setting has its own entry; an override equal to the default is
        dropped, and without overrides the key is the one the experiment always had.
        :func:`figure` draws the result like any other.

    Examples
    --------
    Figure 2 of Hu and Hegde (2022) on another instance and at another epsilon::

        data = run("hu2022-fig2", "quick", means=[0.7, 0.5, 0.4], epsilons=[0.5])
        fig = figure("hu2022-fig2", data)
    """
    exp = get(id)
    scale_name = scale(scale_name)
    seed = _check_seed(seed)
    jobs = check_positive_int("jobs", jobs)
    if progress is None:
        progress = progress_default()
    elif not isinstance(progress, (bool, np.bool_)):
        raise TypeError(f"progress must be True, False or None, got {progress!r}")
    if not isinstance(cache, (bool, np.bool_)):
        raise TypeError(f"cache must be True or False, got {cache!r}")
    overrides = _settings.resolve(id, exp.settings, scale_name, overrides)
    key = _cache.entry_key(id, scale_name, _seed_tag(seed), source_hash(), overrides)
    path = _cache.entry_path(cache_dir(), key)
    refreshing = _REFRESHING.get()           # None, or the entries recomputed in this session
    if refreshing is None and cache or refreshing is not None and path in refreshing:
        data = _cache.load(path, key)
        if data is not None:
            return data
    with contextlib.nullcontext(refreshing) if cache else refresh_session() as session:
        data = exp.compute(scale=scale_name, seed=seed, jobs=jobs, progress=bool(progress),
                           **overrides)
        if not isinstance(data, dict):
            raise TypeError(f"experiment {id!r} returned a {type(data).__name__}; compute must "
                            "return a dict of data")
        if session is not None:
            session.add(path)
    try:
        _cache.store(path, key, data)
    except OSError as exc:
        warnings.warn(f"could not write cache entry {path} ({exc}); the result is not cached",
                      CacheWarning, stacklevel=2)
    return data


def settings(id: str, scale_name: str | None = None, **overrides: Any) -> dict[str, Any]:
    """The settings experiment ``id`` runs at: its defaults at the scale, with ``overrides``.

    Checks ``overrides`` exactly as :func:`run` does (an unknown name or a bad value raises
    ValueError or TypeError naming it) without computing anything; values come back
    normalised (sequences as tuples).

    >>> settings("hu2022-fig2", "quick", epsilons=[0.5])["epsilons"]
    (0.5,)
    """
    exp = get(id)
    scale_name = scale(scale_name)
    values = {s.name: s.default_for(scale_name) for s in exp.settings}
    values.update(_settings.resolve(id, exp.settings, scale_name, overrides))
    return values


def figure(id: str, data: dict[str, Any]):
    """Draw experiment ``id`` from its data; returns a matplotlib Figure."""
    exp = get(id)
    if not isinstance(data, dict):
        raise TypeError(f"data must be the dict returned by run({id!r}), got {type(data).__name__}")
    if exp.plot is None:
        raise ValueError(f"experiment {id!r} has no figure")
    return exp.plot(data)


def check_out_dir(out_dir: Any) -> Path:
    """``out_dir`` as a Path after checking it is (or can be created as) a writable directory.

    Creates the directory; raises ValueError naming it otherwise, before any computation.
    """
    return check_directory("out", out_dir)


def regret_rows(
    experiment: str, panel: str, results, epsilon=None, **extra
) -> list[dict[str, Any]]:
    """summary.csv rows (one per Result) in the fixed column order of :data:`SUMMARY_COLUMNS`."""
    results = list(results)
    for res in results:
        if not isinstance(res, Result):
            raise TypeError(f"results must hold dpolearn Result objects, got {res!r}")
    rows = []
    for res in results:
        params = dict(res.params)
        params.update(extra)
        eps = params.pop("epsilon", epsilon)
        if isinstance(eps, np.ndarray):
            eps = float(eps.ravel()[0]) if np.all(eps == eps.ravel()[0]) else None
        rows.append({
            "experiment": experiment, "panel": panel, "algorithm": res.label,
            "epsilon": "" if eps is None else eps, "horizon": res.horizon, "n_runs": res.n_runs,
            "final_regret_mean": res.final_mean, "final_regret_se": res.final_se,
            "params": ";".join(f"{k}={v}" for k, v in sorted(params.items()) if v is not None),
        })
    return rows


def write_outputs(id: str, data: dict[str, Any], out_dir: str | os.PathLike) -> Path:
    """Write the figure (PNG, SVG), the data (NPZ of its arrays) and summary.csv under
    ``out_dir/<id>/``; returns that directory."""
    import matplotlib.pyplot as plt

    exp = get(id)
    if not isinstance(data, dict):
        raise TypeError(f"data must be the dict returned by run({id!r}), got {type(data).__name__}")
    target = check_out_dir(out_dir) / id
    target.mkdir(parents=True, exist_ok=True)
    # every file is written whole or not at all (a killed run leaves no truncated file)
    if exp.plot is not None:
        fig = exp.plot(data)
        for fmt in ("png", "svg"):
            with _cache.atomic_file(target / f"figure.{fmt}") as fh:
                fig.savefig(fh, format=fmt)
        plt.close(fig)
    arrays = {}
    for key, value in data.items():
        if isinstance(value, np.ndarray):
            arrays[key] = value
        elif hasattr(value, "regret") and hasattr(value, "checkpoints"):
            arrays[f"{key}__regret"] = value.regret
            arrays[f"{key}__checkpoints"] = value.checkpoints
    if arrays:
        with _cache.atomic_file(target / "data.npz") as fh:
            np.savez_compressed(fh, **arrays)
    if exp.summary is not None:
        rows = exp.summary(data)
        extra = sorted({k for r in rows for k in r} - set(SUMMARY_COLUMNS))
        with _cache.atomic_file(target / "summary.csv") as raw:
            fh = io.TextIOWrapper(raw, newline="")        # the encoding open() would use
            writer = csv.DictWriter(fh, fieldnames=SUMMARY_COLUMNS + extra)
            writer.writeheader()
            writer.writerows(rows)
            fh.flush()
            fh.detach()                                   # atomic_file closes the file
    return target
