"""Command line: list and reproduce the book's experiments.

    python -m dpolearn list
    python -m dpolearn run NAME [NAME ...] | --all  [--scale quick|paper] [--jobs N] [--seed S]
                                                    [--out DIR] [--no-cache] [--quiet]
                                                    [--executor local|dask] [--scheduler ADDRESS]
                                                    [--start-method fork|spawn|forkserver]
                                                    [--set KEY=VALUE ...]

``--set`` changes one of an experiment's settings (``run(id, scale, **overrides)``); VALUE is
read as JSON, e.g. ``--set "means=[0.7, 0.5, 0.4]" --set "epsilons=[0.5]" --set horizon=5000``.

Every input (arguments, ``$DPOLEARN_SCALE``, ``$DPOLEARN_PROGRESS``, ``$DPOLEARN_CACHE``, the
output directory, the Dask scheduler) is checked before any computation; a bad one ends the
command with one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
import warnings

from . import experiments

USAGE_ERROR = 2


class _UsageError(Exception):
    """A bad command line: reported on one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):                       # argparse would print the usage too
        raise _UsageError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m dpolearn",
                     description="Reproduce the figures and tables of the dpolearn book.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list", help="print every experiment id, one per line")
    run = sub.add_parser("run", help="run experiments and write figures, data and summary.csv")
    run.add_argument("names", nargs="*", help="experiment ids (see `list`)")
    run.add_argument("--all", action="store_true", help="run every registered experiment")
    run.add_argument(
        "--scale",
        choices=experiments.SCALES,
        default=None,
        help="quick (seconds) or paper (the papers' own T and runs); "
        "default $DPOLEARN_SCALE or quick",
    )
    run.add_argument(
        "--jobs", type=int, default=1, help="local worker processes (results do not depend on it)"
    )
    run.add_argument("--seed", type=int, default=0, help="base seed, an integer >= 0 (default 0)")
    run.add_argument(
        "--out", default=None, help="write figures and data under DIR/<id>/"
    )
    run.add_argument(
        "--no-cache",
        action="store_true",
        help="recompute (with every experiment it reads) and rewrite the cached results",
    )
    run.add_argument("--quiet", action="store_true", help="no progress bars")
    run.add_argument("--executor", choices=experiments.EXECUTORS, default="local",
                     help="local processes (default) or a Dask cluster (needs --scheduler)")
    run.add_argument("--scheduler", default=None, metavar="ADDRESS",
                     help="the Dask scheduler's address, e.g. tcp://10.0.0.5:8786")
    run.add_argument("--start-method", choices=experiments.START_METHODS, default=None,
                     help="how local worker processes start (default $DPOLEARN_START_METHOD, "
                     "else forkserver on Linux, spawn on macOS and Windows)")
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="settings",
                     help="change a setting of the experiments (VALUE in JSON), e.g. "
                     "--set 'epsilons=[0.5]'; repeatable")
    return parser


def _overrides(items: list[str]) -> dict:
    """``--set KEY=VALUE`` options as keyword overrides (VALUE read as JSON, else a string)."""
    out = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise _UsageError(f"--set must be KEY=VALUE, got {item!r}")
        if key.strip() in out:
            raise _UsageError(f"--set gives {key.strip()} twice")
        try:
            value = json.loads(text)
        except ValueError:
            value = text
        out[key.strip()] = value
    return out


def _one_line_warnings(message, category, filename, lineno, file=None, line=None):
    print(f"warning: {message}", file=sys.stderr, flush=True)


def _check_run_args(args) -> list[str]:
    """Validate everything of ``run`` before computing; returns the experiment ids."""
    if args.all and args.names:
        raise _UsageError("give experiment ids or --all, not both")
    known = experiments.ids()
    names = known if args.all else args.names
    if not names:
        raise _UsageError("give experiment ids or --all")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise _UsageError(
            f"unknown experiment id(s): {', '.join(unknown)}; see `python -m dpolearn list`"
        )
    if args.jobs < 1:
        raise _UsageError(f"--jobs must be >= 1, got {args.jobs}")
    if args.seed < 0:
        raise _UsageError(f"--seed must be >= 0, got {args.seed}")
    experiments.scale()                              # checks $DPOLEARN_SCALE, even under --scale
    experiments.progress_default()                   # checks $DPOLEARN_PROGRESS
    experiments.cache_dir()                          # checks $DPOLEARN_CACHE
    if args.out is not None:
        try:
            experiments.check_out_dir(args.out)
        except ValueError as exc:
            raise _UsageError(str(exc).replace("out must", "--out must", 1)) from None
    if args.start_method is not None and args.executor == "dask":
        raise _UsageError("--start-method is only used with --executor local")
    if args.executor == "dask":
        if args.scheduler is None:
            raise _UsageError("--executor dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
        experiments.set_executor("dask", scheduler=args.scheduler)
    elif args.scheduler is not None:
        raise _UsageError("--scheduler is only used with --executor dask")
    if args.start_method is not None:
        experiments.set_executor("local", start_method=args.start_method)
    args.overrides = _overrides(args.settings)
    for name in names:
        experiments.settings(name, args.scale, **args.overrides)
    return names


def _run(args, names: list[str]) -> int:
    scale = experiments.scale(args.scale)
    progress = not args.quiet and experiments.progress_default()
    total = time.perf_counter()
    with experiments.refresh_session() if args.no_cache else contextlib.nullcontext():
        for name in names:
            start = time.perf_counter()
            data = experiments.run(name, scale, seed=args.seed, jobs=args.jobs, progress=progress,
                                   cache=not args.no_cache, **args.overrides)
            where = ""
            if args.out is not None:
                where = f" -> {experiments.write_outputs(name, data, args.out)}"
            print(f"{name}: {time.perf_counter() - start:.1f} s{where}", flush=True)
    print(f"total: {time.perf_counter() - total:.1f} s ({len(names)} experiments, scale {scale})")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for any bad input)."""
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warnings
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    try:
        args = _parser().parse_args(argv)
        if args.command == "list":
            for name in experiments.ids():
                print(name)
            return 0
        names = _check_run_args(args)
    except (_UsageError, ValueError, TypeError, ImportError, OSError, RuntimeError) as exc:
        # Only inputs have been looked at so far: every failure here is the user's to fix.
        print(f"python -m dpolearn: error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    try:
        return _run(args, names)
    except OSError as exc:            # e.g. the disk filled up while writing results
        print(f"python -m dpolearn: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("python -m dpolearn: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
