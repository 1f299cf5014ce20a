"""The experiments registry: one registered function per paper figure or table.

An experiment has a ``compute(scale, seed, jobs, progress) -> data`` function (``data`` is a
picklable dict), a ``plot(data) -> Figure`` function and, for regret experiments, a
``summary(data) -> rows`` function giving one row per curve for ``summary.csv``. Chapters and
the command line call the same functions through :func:`run` and :func:`figure`, and results
are cached on disk keyed by (id, scale, seed, hash of the dpolearn source).
"""
from __future__ import annotations

import csv
import hashlib
import os
import pickle
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional

import numpy as np

from .._validation import check_choice, check_positive_int

__all__ = ["Experiment", "register", "get", "ids", "run", "figure", "scale", "SCALES",
           "derive_seed", "parallel_map", "source_hash", "cache_dir", "write_outputs",
           "regret_rows", "SUMMARY_COLUMNS"]

SCALES = ("quick", "paper")
SUMMARY_COLUMNS = ["experiment", "panel", "algorithm", "epsilon", "horizon", "n_runs",
                   "final_regret_mean", "final_regret_se", "params"]

_REGISTRY: Dict[str, "Experiment"] = {}


@dataclass(frozen=True)
class Experiment:
    id: str
    title: str
    compute: Callable[..., Dict[str, Any]]
    plot: Optional[Callable[[Dict[str, Any]], Any]] = None
    summary: Optional[Callable[[Dict[str, Any]], List[Dict[str, Any]]]] = None
    chapter: str = ""


def register(id: str, *, title: str, plot=None, summary=None, chapter: str = ""):
    """Decorator registering ``compute(scale, seed, jobs, progress)`` under ``id``."""
    def wrap(compute):
        if id in _REGISTRY and _REGISTRY[id].compute.__qualname__ != compute.__qualname__:
            raise ValueError(f"experiment id {id!r} is registered twice")
        _REGISTRY[id] = Experiment(id, title, compute, plot, summary, chapter)
        return compute
    return wrap


def _load_all() -> None:
    import importlib
    import pkgutil

    from .. import experiments as pkg

    for mod in pkgutil.iter_modules(pkg.__path__):
        if not mod.name.startswith("_") and mod.name != "registry":
            importlib.import_module(f"{pkg.__name__}.{mod.name}")


def ids() -> List[str]:
    """All registered experiment ids, sorted."""
    _load_all()
    return sorted(_REGISTRY)


def get(id: str) -> Experiment:
    _load_all()
    if id not in _REGISTRY:
        raise ValueError(f"experiment must be one of the ids from `python -m dpolearn list`, got {id!r}")
    return _REGISTRY[id]


def scale(value: Optional[str] = None) -> str:
    """The experiment scale: ``value`` if given, else ``$DPOLEARN_SCALE``, else ``"quick"``."""
    if value is None:
        value = os.environ.get("DPOLEARN_SCALE", "quick") or "quick"
    return check_choice("scale", value, SCALES)


def derive_seed(*keys: Any) -> np.random.SeedSequence:
    """A SeedSequence determined by ``keys`` (strings, numbers), independent of run order."""
    digest = hashlib.sha256(repr(keys).encode()).digest()
    return np.random.SeedSequence(int.from_bytes(digest[:16], "little"))


def parallel_map(fn: Callable, tasks: Iterable, jobs: int = 1) -> list:
    """``[fn(task) for task in tasks]``, over ``jobs`` processes when ``jobs > 1``.

    Each task must carry its own seed, so results do not depend on ``jobs``.
    """
    tasks = list(tasks)
    jobs = check_positive_int("jobs", jobs)
    if jobs == 1 or len(tasks) <= 1:
        return [fn(task) for task in tasks]
    import multiprocessing as mp

    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)),
                             mp_context=mp.get_context("fork")) as pool:
        return list(pool.map(fn, tasks))


def source_hash() -> str:
    """Hash of every .py file of the dpolearn package (so code changes invalidate caches)."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    """``$DPOLEARN_CACHE`` if set, else ``_build/cache`` next to the package's checkout."""
    env = os.environ.get("DPOLEARN_CACHE")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "_build" / "cache"


def run(id: str, scale_name: Optional[str] = None, seed: int = 0, jobs: int = 1,
        progress: Optional[bool] = None, cache: bool = True) -> Dict[str, Any]:
    """Compute (or load from the cache) the data of experiment ``id``."""
    exp = get(id)
    scale_name = scale(scale_name)
    seed = check_positive_int("seed", seed, minimum=0)
    jobs = check_positive_int("jobs", jobs)
    path = cache_dir() / f"{id}-{scale_name}-seed{seed}-{source_hash()}.pkl"
    if cache and path.exists():
        with open(path, "rb") as fh:
            return pickle.load(fh)
    if progress is None:
        progress = os.environ.get("DPOLEARN_PROGRESS", "auto").lower() not in ("0", "false", "off", "no")
    data = exp.compute(scale=scale_name, seed=seed, jobs=jobs, progress=progress)
    if cache:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".tmp{os.getpid()}")
            with open(tmp, "wb") as fh:
                pickle.dump(data, fh)
            os.replace(tmp, path)
        except OSError:
            pass                      # a read-only checkout still runs, just without caching
    return data


def figure(id: str, data: Dict[str, Any]):
    """Draw experiment ``id`` from its data; returns a matplotlib Figure."""
    exp = get(id)
    if exp.plot is None:
        raise ValueError(f"experiment {id!r} has no figure")
    return exp.plot(data)


def regret_rows(experiment: str, panel: str, results, epsilon=None, **extra) -> List[Dict[str, Any]]:
    """summary.csv rows (one per Result) in the fixed column order of DESIGN.md."""
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


def write_outputs(id: str, data: Dict[str, Any], out_dir: Path) -> Path:
    """Write the figure (PNG, SVG), the data (NPZ of its arrays) and summary.csv."""
    import matplotlib.pyplot as plt

    exp = get(id)
    target = Path(out_dir) / id
    target.mkdir(parents=True, exist_ok=True)
    if exp.plot is not None:
        fig = exp.plot(data)
        fig.savefig(target / "figure.png")
        fig.savefig(target / "figure.svg")
        plt.close(fig)
    arrays = {}
    for key, value in data.items():
        if isinstance(value, np.ndarray):
            arrays[key] = value
        elif hasattr(value, "regret") and hasattr(value, "checkpoints"):
            arrays[f"{key}__regret"] = value.regret
            arrays[f"{key}__checkpoints"] = value.checkpoints
    if arrays:
        np.savez_compressed(target / "data.npz", **arrays)
    if exp.summary is not None:
        with open(target / "summary.csv", "w", newline="") as fh:
            rows = exp.summary(data)
            extra = sorted({k for r in rows for k in r} - set(SUMMARY_COLUMNS))
            writer = csv.DictWriter(fh, fieldnames=SUMMARY_COLUMNS + extra)
            writer.writeheader()
            writer.writerows(rows)
    return target
