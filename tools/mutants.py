#!/usr/bin/env python
"""Privacy mutation campaign: apply each semantic mutant of ``tools/mutants_catalogue.py`` to a
temporary copy of the repository, run the test suite there, and report killed / survived.

Usage::

    python tools/mutants.py                 # every mutant, the full non-book suite,
                                            # one pytest at a time
    python tools/mutants.py --list          # the catalogue
    python tools/mutants.py --check         # only check that every anchor applies (no tests)
    python tools/mutants.py --only ID [--only ID2]
    python tools/mutants.py -j 2            # two mutants at once (the machine is shared: default 1)

The working tree is never modified: the package, the tests and the project files are copied to
a temporary directory, the mutant is applied to the copy, and pytest runs in the copy with
``PYTHONPATH`` pointing at it (the check that ``dpolearn`` is imported from the copy is part of
every run). The suite is every test outside the book build (book, notebooks, browser,
assignments, editions, PDF), doctests included; the privacy behaviour tests and the tests of the
mutated module run first (a pytest run of their own) and every run stops at the first failure
(``-x``), so a killed mutant costs seconds while a survivor is run against the whole suite.

Exit status: 0 if every mutant is killed; 1 if any survives, any anchor is missing or ambiguous,
or the unmutated suite fails in the copy (checked first, with ``--baseline``, the default).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mutants_catalogue import MUTANTS  # tools/, this script's folder, is on sys.path

ROOT = Path(__file__).resolve().parents[1]

#: Top-level entries NOT copied into a sandbox (version control, environments, build output).
SKIP = {".git", ".venv", "_build", "results", ".pytest_cache", ".ruff_cache", "dpolearn.egg-info",
        "__pycache__"}
#: Test files that build or read the book, open a browser, or produce documents: excluded.
#: (test_api_reference.py checks the book's API pages, one test on the built book.)
EXCLUDE_GLOBS = ["tests/test_book*.py", "tests/test_notebook*.py", "tests/test_browser*.py",
                 "tests/test_assign*.py", "tests/test_edition*.py", "tests/test_pdf*.py",
                 "tests/test_api_reference*.py", "tests/browser_fixture"]
#: Run first: the tests that check privacy behaviour directly.
FIRST = ["tests/test_privacy_behaviour.py"]
#: Tests of each module, run right after FIRST when that module is mutated: keyed by the path
#: of the module, or of its package (ending in "/") for every module in it.
MODULE_TESTS = {
    "dpolearn/mechanisms/laplace.py": ["tests/test_mechanisms.py"],
    "dpolearn/mechanisms/gaussian.py": ["tests/test_mechanisms.py", "tests/test_gdp.py"],
    "dpolearn/mechanisms/noisy_max.py": ["tests/test_mechanisms.py"],
    "dpolearn/mechanisms/counters/": ["tests/test_counters.py", "tests/test_dp_ucb.py"],
    "dpolearn/mechanisms/interval_mean.py": ["tests/test_interval_mean.py",
                                             "tests/test_dp_ucb.py"],
    "dpolearn/mechanisms/lazy_mean.py": ["tests/test_lazy_mean.py", "tests/test_lazy.py"],
    "dpolearn/bandits/dp_ucb.py": ["tests/test_dp_ucb.py"],
    "dpolearn/bandits/dpts.py": ["tests/test_dpts.py"],
    "dpolearn/bandits/dpse.py": ["tests/test_dpse.py", "tests/test_fastpath_coupled.py"],
    "dpolearn/bandits/adap.py": ["tests/test_adap.py", "tests/test_fastpath_coupled.py"],
    "dpolearn/fullinfo/rnm_ftnl.py": ["tests/test_rnm_ftnl.py", "tests/test_epoch_sim.py",
                                      "tests/test_fastpath_coupled.py"],
    "dpolearn/_blocks.py": ["tests/test_fastpath_coupled.py", "tests/test_simulate.py"],
    "dpolearn/fullinfo/epoch_sim.py": ["tests/test_epoch_sim.py", "tests/test_rnm_ftnl.py"],
    "dpolearn/bandits/dp_ts_ucb.py": ["tests/test_dp_ts_ucb.py"],
    "dpolearn/accounting.py": ["tests/test_accounting.py"],
    "dpolearn/experiments/registry.py": ["tests/test_cache.py"],
}
#: Seconds per mutant when there is no baseline run to scale from; with one, 3 x its duration
#: + 2 minutes. A hang counts as killed-by-timeout, shown as such.
TIMEOUT = 900


class AnchorError(Exception):
    """The mutant's anchor is missing or not unique."""


def apply_mutant(text: str, mutant: dict) -> str:
    """Return ``text`` with the mutant applied; AnchorError unless the anchor matches once."""
    if "old" in mutant:
        n = text.count(mutant["old"])
        if n != 1:
            raise AnchorError(f"anchor found {n} times (need exactly 1): {mutant['old']!r}")
        return text.replace(mutant["old"], mutant["new"])
    matches = list(re.finditer(mutant["pattern"], text, flags=re.MULTILINE))
    if len(matches) != 1:
        raise AnchorError(f"pattern matched {len(matches)} times (need exactly 1): "
                          f"{mutant['pattern']!r}")
    return re.sub(mutant["pattern"], mutant["new"], text, count=1, flags=re.MULTILINE)


def check_catalogue(mutants) -> list:
    """Problems of the catalogue: duplicate ids, missing files, anchors that do not apply."""
    problems, seen = [], set()
    for m in mutants:
        if m["id"] in seen:
            problems.append((m["id"], "duplicate id"))
        seen.add(m["id"])
        path = ROOT / m["file"]
        if not path.exists():
            problems.append((m["id"], f"file {m['file']} does not exist"))
            continue
        try:
            new = apply_mutant(path.read_text(), m)
        except AnchorError as exc:
            problems.append((m["id"], f"{m['file']}: {exc}"))
            continue
        if new == path.read_text():
            problems.append((m["id"], "replacement leaves the file unchanged"))
    return problems


def make_sandbox() -> Path:
    """A fresh copy of the working tree (without .git, environments and build output)."""
    box = Path(tempfile.mkdtemp(prefix="dpolearn-mutant-"))
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "_build")
    for src in sorted(ROOT.iterdir()):
        name = src.name
        if name in SKIP:
            continue
        if src.is_dir():
            shutil.copytree(src, box / name, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, box / name)
    return box


def module_tests(mutated_file: str) -> list:
    """The tests of the mutated module (``MODULE_TESTS``: its path, or its package's)."""
    path = Path(mutated_file).as_posix()
    return [test for key, tests in MODULE_TESTS.items()
            if path == key or (key.endswith("/") and path.startswith(key)) for test in tests]


def pytest_stages(box: Path, mutated_file: str | None, tests=None) -> list:
    """pytest commands run one after the other in the sandbox, each stopping at its first
    failure: (1) the privacy behaviour tests and the tests of the mutated module, (2) the rest
    of the non-book suite, doctests included. (pytest merges overlapping path arguments and then
    collects in directory order, so the order cannot be set within one command.) With ``tests``
    given: one stage with only those paths."""
    base = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-n", "0",
            "-W", "ignore::pytest.PytestUnknownMarkWarning", "--no-header", "-rfE",
            "-m", "not book"]
    for pattern in EXCLUDE_GLOBS:
        base += ["--ignore-glob", str(box / pattern)]
    if tests:
        return [base + list(tests)]
    first = list(FIRST) + (module_tests(mutated_file) if mutated_file else [])
    first = [p for i, p in enumerate(first) if p not in first[:i] and (box / p).exists()]
    rest = base + [arg for p in first for arg in ("--ignore", str(box / p))] + ["tests", "dpolearn"]
    return [base + first, rest]


def sandbox_env(box: Path) -> dict:
    env = dict(os.environ)
    # the copy's package and the copy's book machinery (bookkit/src), before anything installed
    env["PYTHONPATH"] = os.pathsep.join([str(box), str(box / "bookkit" / "src"),
                                         env.get("PYTHONPATH", "")])
    env["DPOLEARN_PROGRESS"] = "0"
    env["DPOLEARN_SCALE"] = "quick"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def verify_import(box: Path) -> None:
    """Refuse to run unless ``import dpolearn`` resolves to the sandbox copy."""
    out = subprocess.run([sys.executable, "-c", "import dpolearn; print(dpolearn.__file__)"],
                         cwd=box, env=sandbox_env(box), capture_output=True, text=True, check=False)
    where = Path(out.stdout.strip()).resolve()
    if out.returncode != 0 or box.resolve() not in where.parents:
        raise RuntimeError(f"dpolearn is imported from {where or out.stderr!s}, not from the "
                           f"sandbox {box}; refusing to run (the working tree would be tested)")


def run_one(mutant: dict | None, tests=None, timeout: float = TIMEOUT) -> dict:
    """Apply ``mutant`` (None: the unmutated baseline) in a fresh sandbox and run pytest."""
    box = make_sandbox()
    start = time.perf_counter()
    try:
        if mutant is not None:
            target = box / mutant["file"]
            target.write_text(apply_mutant(target.read_text(), mutant))
        verify_import(box)
        for cmd in pytest_stages(box, mutant["file"] if mutant else None, tests):
            left = timeout - (time.perf_counter() - start)
            try:
                proc = subprocess.run(cmd, cwd=box, env=sandbox_env(box), capture_output=True,
                                      text=True, timeout=max(left, 1.0), check=False)
            except subprocess.TimeoutExpired:
                return {"status": "timeout", "seconds": time.perf_counter() - start,
                        "killer": f"timeout after {timeout:.0f} s"}
            if proc.returncode != 0:
                break
        status = "passed" if proc.returncode == 0 else "failed"
        if proc.returncode not in (0, 1):           # 2-5: pytest itself could not run
            status = "error"
        return {"status": status, "seconds": time.perf_counter() - start,
                "killer": first_failure(proc.stdout),
                "output": proc.stdout[-4000:] + proc.stderr[-2000:]}
    except AnchorError as exc:
        return {"status": "anchor", "seconds": time.perf_counter() - start, "killer": str(exc)}
    finally:
        shutil.rmtree(box, ignore_errors=True)


def first_failure(stdout: str) -> str:
    for line in stdout.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line.split(" ", 1)[1].split(" - ")[0]
    return ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", action="store_true", help="print the catalogue")
    ap.add_argument("--check", action="store_true",
                    help="only check that every anchor applies exactly once (no tests)")
    ap.add_argument("--only", action="append", metavar="ID", help="run only this mutant")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="mutants run at once (default 1)")
    ap.add_argument("--tests", action="append", metavar="PATH",
                    help="run only these test paths (development; the default is the whole "
                         "non-book suite)")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the unmutated run (which must pass for the campaign to mean much)")
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error(f"--jobs must be >= 1, got {args.jobs}")

    mutants = MUTANTS
    if args.only:
        unknown = sorted(set(args.only) - {m["id"] for m in MUTANTS})
        if unknown:
            ap.error(f"unknown mutant id(s): {', '.join(unknown)} (see --list)")
        mutants = [m for m in MUTANTS if m["id"] in args.only]

    if args.list or args.check:
        problems = dict(check_catalogue(mutants))
        width = max(len(m["id"]) for m in mutants)
        file_width = max(len(m["file"]) for m in mutants)
        for m in mutants:
            mark = "ok " if m["id"] not in problems else "BAD"
            print(f"{mark} {m['id']:<{width}}  {m['file']:<{file_width}} {m['description']}")
        for mid, msg in problems.items():
            print(f"ANCHOR {mid}: {msg}")
        print(f"{len(mutants)} mutants, {len(problems)} with anchor problems")
        return 1 if problems else 0

    problems = check_catalogue(mutants)
    for mid, msg in problems:
        print(f"ANCHOR {mid}: {msg}")
    t0 = time.perf_counter()
    timeout = TIMEOUT
    if not args.no_baseline:
        print("baseline (no mutant) ...", flush=True)
        base = run_one(None, args.tests)
        print(f"baseline: {base['status']} in {base['seconds']:.0f} s {base.get('killer', '')}",
              flush=True)
        if base["status"] != "passed":
            print(base.get("output", ""))
            print("the unmutated suite fails in the sandbox: a failure cannot be credited to a "
                  "mutant; fix the suite first")
            return 1
        timeout = 3 * base["seconds"] + 120

    results = {}
    bad_ids = {mid for mid, _ in problems}
    runnable = [m for m in mutants if m["id"] not in bad_ids]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_one, m, args.tests, timeout): m for m in runnable}
        for fut in concurrent.futures.as_completed(futures):
            m = futures[fut]
            res = fut.result()
            results[m["id"]] = res
            verdict = {"failed": "killed", "timeout": "killed (timeout)", "passed": "SURVIVED",
                       "error": "ERROR", "anchor": "ANCHOR"}[res["status"]]
            print(f"{verdict:<17} {m['id']:<30} {res['seconds']:6.0f} s  {res['killer']}",
                  flush=True)
            if res["status"] == "error":
                print(res.get("output", ""))
    for mid, msg in problems:
        results[mid] = {"status": "anchor", "seconds": 0.0, "killer": msg}

    total = time.perf_counter() - t0
    width = max(len(m["id"]) for m in mutants)
    print("\n" + f"{'mutant':<{width}}  {'result':<16} {'seconds':>7}  killed by")
    for m in mutants:
        r = results[m["id"]]
        verdict = {"failed": "killed", "timeout": "killed (timeout)", "passed": "SURVIVED",
                   "error": "ERROR", "anchor": "ANCHOR MISSING"}[r["status"]]
        print(f"{m['id']:<{width}}  {verdict:<16} {r['seconds']:7.0f}  {r['killer']}")
    killed = sum(r["status"] in ("failed", "timeout") for r in results.values())
    survived = [mid for mid, r in results.items() if r["status"] == "passed"]
    broken = [mid for mid, r in results.items() if r["status"] in ("error", "anchor")]
    print(f"\n{len(mutants)} mutants: {killed} killed, {len(survived)} survived, "
          f"{len(broken)} not applied or errored; runtime {total:.0f} s ({total / 60:.1f} min)")
    if survived:
        print("survivors: " + ", ".join(survived))
    return 0 if killed == len(mutants) else 1


if __name__ == "__main__":
    sys.exit(main())
