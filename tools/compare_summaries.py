"""Compare every experiment's quick-scale ``summary.csv`` between two checkouts or result folders.

A refactor that does not change an algorithm must not change a single byte of its results. This
script runs (or reads) ``python -m dpolearn run --all --scale quick --no-cache`` for two sides and
compares the ``summary.csv`` of every experiment byte for byte. The only accepted differences
are the renamed parameters, and only in the ``params`` column:

* ``index_mode=A``                   -> ``index=alg3``                    (DP-UCB-INT)
* ``c=<c>;...;resample=<0|1>;scale=<s>`` -> ``noise_factor=<s>;resample=<False|True>`` (RNM-FTNL)
* ``noise=laplace;scale=K/eps``        -> nothing: Naive FTNL's constructor has no such
  arguments, so its constructor-shaped ``params()`` no longer lists them

Usage::

    # a side is a result folder (holding <id>/summary.csv) or a checkout (holding dpolearn/)
    python tools/compare_summaries.py /tmp/base-results /tmp/after-results
    git worktree add /tmp/base aac98d4
    python tools/compare_summaries.py /tmp/base . --jobs 1

A checkout is run with ``PYTHONPATH=<checkout>`` (checked: ``dpolearn.__file__`` must lie in it,
since the virtual environment may hold an editable install of another checkout) and a private
cache directory, and its results are written under ``--work``. Exit status: 0 when every common
experiment agrees (after the accepted renames), 1 otherwise, 2 for a usage error.
"""
from __future__ import annotations

import argparse
import csv
import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def normalise_params(params: str) -> str:
    """The params column written with today's names (the accepted renames applied)."""
    if not params:
        return params
    pairs = [p.split("=", 1) if "=" in p else [p, None] for p in params.split(";")]
    items = dict((k, v) for k, v in pairs)
    if items.get("index_mode") == "A":
        del items["index_mode"]
        items["index"] = "alg3"
    if items.get("scale") == "K/eps" and items.get("noise") == "laplace" and "c" not in items:
        del items["scale"], items["noise"]               # Naive FTNL: not constructor arguments
    if "scale" in items and "c" in items:                # RNM-FTNL's former keywords
        del items["c"]
        items["noise_factor"] = items.pop("scale")
        if items.get("resample") in ("0", "1"):
            items["resample"] = "True" if items["resample"] == "1" else "False"
    return ";".join(k if v is None else f"{k}={v}" for k, v in sorted(items.items()))


def compare_csv(old: bytes, new: bytes) -> list[str]:
    """Differences between two summary.csv files, after the accepted renames (empty if none)."""
    if old == new:
        return []
    a = list(csv.reader(io.StringIO(old.decode("utf-8"))))
    b = list(csv.reader(io.StringIO(new.decode("utf-8"))))
    if not a or not b or a[0] != b[0]:
        return [f"header differs: {a[:1]} vs {b[:1]}"]
    if len(a) != len(b):
        return [f"{len(a) - 1} rows vs {len(b) - 1} rows"]
    col = a[0].index("params") if "params" in a[0] else None
    out = []
    for n, (ra, rb) in enumerate(zip(a[1:], b[1:]), start=2):
        if ra == rb:
            continue
        if col is not None and len(ra) == len(rb) and ra[:col] + ra[col + 1:] == \
                rb[:col] + rb[col + 1:] and normalise_params(ra[col]) == rb[col]:
            continue                                     # only an accepted rename
        out.append(f"line {n}: {','.join(ra)}\n        -> {','.join(rb)}")
    return out


def summaries(folder: Path) -> dict[str, bytes]:
    """{experiment id: bytes of its summary.csv} of a result folder."""
    return {p.parent.name: p.read_bytes() for p in sorted(folder.glob("*/summary.csv"))}


def run_checkout(checkout: Path, out: Path, jobs: int, python: str) -> Path:
    """Run every experiment of ``checkout`` at quick scale into ``out``; return ``out``."""
    env = dict(os.environ, PYTHONPATH=str(checkout), DPOLEARN_PROGRESS="0",
               DPOLEARN_CACHE=str(out.parent / f"{out.name}-cache"))
    where = subprocess.run([python, "-c", "import dpolearn; print(dpolearn.__file__)"],
                           env=env, cwd=checkout, capture_output=True, text=True, check=True)
    found = Path(where.stdout.strip()).resolve()
    if checkout.resolve() not in found.parents:
        raise SystemExit(f"compare_summaries: {checkout} imports dpolearn from {found}, not "
                         f"from the checkout")
    subprocess.run([python, "-m", "dpolearn", "run", "--all", "--scale", "quick", "--no-cache",
                    "--quiet", "--jobs", str(jobs), "--out", str(out)],
                   env=env, cwd=checkout, check=True)
    return out


def side(path: Path, work: Path, name: str, jobs: int, python: str) -> Path:
    if (path / "dpolearn" / "__init__.py").is_file():
        return run_checkout(path, work / name, jobs, python)
    if any(path.glob("*/summary.csv")):
        return path
    raise SystemExit(f"compare_summaries: {path} is neither a checkout (dpolearn/) nor a result "
                     f"folder (<id>/summary.csv)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="checkout or result folder")
    parser.add_argument("after", type=Path, help="checkout or result folder")
    parser.add_argument("--jobs", type=int, default=1, help="processes per run (default 1)")
    parser.add_argument("--work", type=Path, default=None,
                        help="where runs of checkouts write (default: a temporary folder)")
    parser.add_argument("--python", default=sys.executable, help="interpreter for the runs")
    args = parser.parse_args(argv)
    for p in (args.before, args.after):
        if not p.is_dir():
            parser.error(f"{p} is not a directory")
    work = args.work or Path(tempfile.mkdtemp(prefix="compare-summaries-"))
    old = summaries(side(args.before, work, "before", args.jobs, args.python))
    new = summaries(side(args.after, work, "after", args.jobs, args.python))
    same = renamed = 0
    differ = []
    for exp in sorted(set(old) & set(new)):
        diffs = compare_csv(old[exp], new[exp])
        if diffs:
            differ.append(exp)
            print(f"DIFFERS  {exp}")
            for d in diffs[:5]:
                print(f"    {d}")
            if len(diffs) > 5:
                print(f"    ... {len(diffs) - 5} more")
        elif old[exp] == new[exp]:
            same += 1
        else:
            renamed += 1
            print(f"renamed  {exp} (params column only)")
    for exp in sorted(set(old) - set(new)):
        print(f"only before  {exp}")
    for exp in sorted(set(new) - set(old)):
        print(f"only after   {exp}")
    print(f"{same} identical, {renamed} identical up to the accepted renames, {len(differ)} "
          f"different; {len(set(old) ^ set(new))} on one side only")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
