"""Command line: list and reproduce the book's experiments.

    python -m dpolearn list
    python -m dpolearn run NAME [NAME ...] | --all  [--scale quick|paper] [--jobs N]
                                                    [--seed S] [--out DIR]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import experiments


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m dpolearn",
                                     description="Reproduce the figures and tables of the dpolearn book.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="print every experiment id, one per line")
    run = sub.add_parser("run", help="run experiments and write figures, data and summary.csv")
    run.add_argument("names", nargs="*", help="experiment ids (see `list`)")
    run.add_argument("--all", action="store_true", help="run every registered experiment")
    run.add_argument("--scale", choices=experiments.SCALES, default=None,
                     help="quick (seconds) or paper (the papers' own T and runs); default $DPOLEARN_SCALE or quick")
    run.add_argument("--jobs", type=int, default=1, help="worker processes (results do not depend on it)")
    run.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    run.add_argument("--out", type=Path, default=None, help="write figures and data under DIR/<id>/")
    run.add_argument("--no-cache", action="store_true", help="recompute even if a cached result exists")
    run.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "list":
        for name in experiments.ids():
            print(name)
        return 0
    names = experiments.ids() if args.all else args.names
    if not names:
        print("error: give experiment ids or --all", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print(f"error: --jobs must be >= 1, got {args.jobs}", file=sys.stderr)
        return 2
    unknown = [n for n in names if n not in experiments.ids()]
    if unknown:
        print(f"error: unknown experiment id(s): {', '.join(unknown)}; see `python -m dpolearn list`",
              file=sys.stderr)
        return 2
    scale = experiments.scale(args.scale)
    total = time.perf_counter()
    for name in names:
        start = time.perf_counter()
        data = experiments.run(name, scale, seed=args.seed, jobs=args.jobs,
                               progress=not args.quiet, cache=not args.no_cache)
        where = ""
        if args.out is not None:
            where = f" -> {experiments.write_outputs(name, data, args.out)}"
        print(f"{name}: {time.perf_counter() - start:.1f} s{where}", flush=True)
    print(f"total: {time.perf_counter() - total:.1f} s ({len(names)} experiments, scale {scale})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
