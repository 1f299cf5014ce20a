"""Grade a folder of submissions without Docker (``make grade SUBMISSIONS=dir SET=set1``).

Every ``<student>.ipynb`` of the folder is graded by ``otter run`` with the set's autograder zip,
each in its own process:

* **limits**: wall time (the whole process tree is killed at ``--timeout`` seconds), CPU time
  and address space (``resource.setrlimit`` in the child, inherited by the kernel);
* **sandbox** (as root, with util-linux ``unshare`` and ``setpriv``): new network, mount and
  PID namespaces (no network but loopback, which the kernel's messages need; every process is
  killed with the namespace), a private tmpfs working directory, private ``/tmp``,
  ``/var/tmp`` and ``/dev/shm``, the submissions folder and the autograder's folder hidden
  under empty tmpfs mounts, and the student's code running as ``nobody`` with no new
  privileges, so it can write nowhere outside its directory and the private temporary folders
  that vanish with it. Without root only the limits hold: the report says so.

What the sandbox cannot hide: the hidden tests of the submission's own run are in the process
that runs the student's code (as with Otter's own Docker grading and on Gradescope); they hold
no term key and no answer, only the fingerprints of the issued parameters.

A kernel that dies before its first reply (no cell has run; outside the sandbox two kernels
can draw the same free port) is started once more; every other failure is the submission's.

The student is the file's name (``alice.ipynb`` is graded as ``alice``); the notebook's variant
is checked against the term key (:func:`variant_status`). The results: ``grades.csv`` (one row
per student, one column per question, hand-graded questions left empty for the TA) and
``feedback/<student>.md`` (each question's points and what its failing checks said).

Usage: ``python -m bookkit.grade SUBMISSIONS --set set1 [--out DIR] [--term-key KEY]
[--roster CSV] [--timeout S] [--memory-mb MB] [--jobs N]``.
"""
from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from dpolearn.coursework import IDENTITY_VARIABLE, verify

from .assignments import (
    DEMO_TERM_KEY,
    SETS,
    STUDENT_ID,
    VARIANT_CELL,
    question_configs,
    read_roster,
)
from .book import ROOT

#: Where the sandbox's tmpfs is mounted, in its own mount namespace only (the host's folder is
#: untouched); not under /tmp, which the sandbox replaces by a private one.
SANDBOX_ROOT = Path("/mnt")
#: Run as root inside the new namespaces: set up the sandbox, then drop to ``nobody``.
SANDBOX_SCRIPT = r"""
set -e
ip link set lo up
mount -t tmpfs -o size=512m,mode=0755 tmpfs "$BOX"
mkdir "$BOX/work" "$BOX/home" "$BOX/exchange"
cp "$ZIP" "$BOX/work/autograder.zip"
cp "$NOTEBOOK" "$BOX/work/submission.ipynb"
chown -R 65534:65534 "$BOX/work" "$BOX/home"
mount --bind "$EXCHANGE" "$BOX/exchange"
if [ -n "$BASE_PREFIX" ]; then   # the interpreter lives under /root (mode 700): show only it
  mkdir "$BOX/base" && mount --bind "$BASE_PREFIX" "$BOX/base"
  mount -t tmpfs -o size=1m,mode=0755 tmpfs /root
  mkdir -p "$BASE_PREFIX" && mount --bind "$BOX/base" "$BASE_PREFIX"
fi
i=0   # the interpreter and the checkout, when they live in a folder the sandbox replaces
for k in $KEEP; do i=$((i + 1)); mkdir "$BOX/keep$i" && mount --bind "$k" "$BOX/keep$i"; done
for d in /tmp /var/tmp /dev/shm; do mount -t tmpfs -o size=256m,mode=1777 tmpfs "$d"; done
i=0
for k in $KEEP; do i=$((i + 1)); mkdir -p "$k" && mount --bind "$BOX/keep$i" "$k"; done
for d in $HIDE; do   # folders under the replaced /tmp are gone already
  if [ -d "$d" ]; then mount -t tmpfs -o size=1m,mode=0755 tmpfs "$d"; fi
done
mkdir "$BOX/work/out" && chown 65534:65534 "$BOX/work/out"
cd "$BOX/work"
set +e
setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs \
  env -i PATH="$SANDBOX_PATH" HOME="$BOX/home" TMPDIR=/tmp LANG=C.UTF-8 \
  PYTHONPATH="$SANDBOX_PYTHONPATH" DPOLEARN_PROGRESS=0 DPOLEARN_STUDENT="$STUDENT" \
  "$OTTER" run --no-logo -a autograder.zip -o out submission.ipynb > "$BOX/home/otter.log" 2>&1
rc=$?
cp out/results.json "$BOX/exchange/results.json" 2>/dev/null
cp "$BOX/home/otter.log" "$BOX/exchange/otter.log"
exit $rc
"""


@dataclass
class Result:
    """The outcome of one submission."""
    student: str
    variant: str
    run: str = "graded"
    scores: dict = field(default_factory=dict)      # question -> (score, max)
    outputs: dict = field(default_factory=dict)     # question -> text of its checks
    log: str = ""


def sandbox_available() -> bool:
    """True when the namespaces and the drop to ``nobody`` can be used (root, util-linux)."""
    return (os.geteuid() == 0 and all(shutil.which(t) for t in ("unshare", "setpriv", "ip"))
            and subprocess.run(["unshare", "--net", "--mount", "--pid", "--fork", "true"],
                               capture_output=True).returncode == 0)


def variant_status(nb: nbformat.NotebookNode, term_key: str, student: str,
                   roster: bool) -> str:
    """``ok``, ``tampered`` (the metadata's HMAC fails or the VARIANT cell differs from it),
    ``missing``, ``practice variant`` (a roster term's submission of the public one) or
    ``another student's (<id>)``."""
    meta = nb.metadata.get("dpolearn", {}).get("variant")
    cells = [c.source for c in nb.cells
             if c.cell_type == "code" and c.source.startswith(VARIANT_CELL)]
    cell = None
    for line in (cells[0].splitlines() if len(cells) == 1 else []):
        if line.startswith("VARIANT = "):
            try:
                cell = ast.literal_eval(line[len("VARIANT = "):])
            except (ValueError, SyntaxError):
                cell = "unreadable"
    if meta is None and cell is None:
        return "missing"
    if not verify(meta, term_key) or cell != meta:
        return "tampered"
    if roster and meta["student"] == "":
        return "practice variant"
    if roster and meta["student"] != student:
        return f"another student's ({meta['student']})"
    return "ok"


def _limits(cpu_seconds: int, memory_mb: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
        memory = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024 * 1024,) * 2)
    return apply


#: Folders the sandbox replaces by empty private ones.
PRIVATE_DIRS = ("/tmp", "/var/tmp", "/dev/shm")


def _kept_in_sandbox() -> list[str]:
    """The grading interpreter's environment and the checkout (an editable install imports
    from it) when they lie in a folder the sandbox makes private: mounted back inside it."""
    keep = []
    for path in (sys.prefix, sys.base_prefix, str(ROOT)):
        path = os.path.realpath(path)
        if (any(path == d or path.startswith(d + "/") for d in PRIVATE_DIRS)
                and not any(path == k or path.startswith(k + "/") for k in keep)):
            keep = [k for k in keep if not k.startswith(path + "/")] + [path]
    return keep


#: What the notebook client reports when a kernel exits before answering its first request:
#: the kernel never started (outside the sandbox, kernels started at once on one machine can
#: draw the same free port), which no cell of the submission can cause, since none has run.
KERNEL_NEVER_STARTED = "Kernel died before replying to kernel_info"


def run_one(notebook: Path, student: str, zip_path: Path, box: Path, *, timeout: float,
            memory_mb: int, sandbox: bool, hide: list[Path]) -> tuple[str, dict, str]:
    """Grade one notebook with ``otter run`` in its own process; return (run status, the
    results of ``results.json`` or {}, the log)."""
    exchange = box / "exchange"
    work = SANDBOX_ROOT if sandbox else box / "work"
    exchange.mkdir(parents=True)
    work.mkdir(exist_ok=True)
    os.chmod(exchange, 0o700)          # nobody cannot read or write the results' way out
    otter = Path(sys.executable).with_name("otter")
    env = dict(os.environ, ZIP=str(zip_path), NOTEBOOK=str(notebook), BOX=str(work),
               EXCHANGE=str(exchange), STUDENT=student, OTTER=str(otter),
               HIDE=" ".join(str(h) for h in hide),
               SANDBOX_PATH=f"{otter.parent}:/usr/bin:/bin",
               SANDBOX_PYTHONPATH=os.environ.get("PYTHONPATH", ""),
               BASE_PREFIX=sys.base_prefix if sys.base_prefix.startswith("/root/") else "",
               KEEP=" ".join(_kept_in_sandbox()),
               **{IDENTITY_VARIABLE: student})
    if sandbox:
        command = ["unshare", "--net", "--mount", "--pid", "--fork", "--kill-child",
                   "--mount-proc", "sh", "-c", SANDBOX_SCRIPT]
        cwd = box
    else:                               # limits only: a temporary directory, no isolation
        shutil.copy(zip_path, work / "autograder.zip")
        shutil.copy(notebook, work / "submission.ipynb")
        command = [str(otter), "run", "--no-logo", "-a", "autograder.zip", "-o", str(exchange),
                   "submission.ipynb"]
        env["TMPDIR"] = str(work)
        cwd = work
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True,
                            preexec_fn=_limits(int(timeout) + 5, memory_mb))
    try:
        out, _ = proc.communicate(timeout=timeout)
        status = "graded" if proc.returncode == 0 else f"error (exit {proc.returncode})"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        status = f"time limit ({timeout:g} s)"
    log_file = exchange / "otter.log"
    log = (out or "") + (log_file.read_text(errors="replace") if log_file.exists() else "")
    results_file = exchange / "results.json"
    results = json.loads(results_file.read_text()) if results_file.exists() else {}
    if status == "graded" and not results:
        status = "error (no results)"
    if "MemoryError" in log and status != "graded":
        status = f"memory limit ({memory_mb} MB)"
    return status, results, log


def grade_folder(submissions: Path, set_name: str, zip_path: Path, out: Path, *,
                 term_key: str = DEMO_TERM_KEY, roster: list[str] | None = None,
                 timeout: float = 600, memory_mb: int = 4096, jobs: int = 1) -> list[Result]:
    """Grade every ``<student>.ipynb`` of ``submissions``; write ``grades.csv`` and
    ``feedback/`` under ``out``; return the results."""
    if set_name not in SETS:
        raise ValueError(f"set_name must be one of {SETS}, got {set_name!r}")
    if not zip_path.is_file():
        raise ValueError(f"zip_path {zip_path} does not exist: run make assignments first")
    if timeout <= 0 or memory_mb <= 0 or jobs < 1:
        raise ValueError(f"timeout, memory_mb and jobs must be positive, got {timeout}, "
                         f"{memory_mb}, {jobs}")
    notebooks = sorted(submissions.glob("*.ipynb"))
    if not notebooks:
        raise ValueError(f"submissions {submissions} holds no .ipynb file")
    bad = [p.name for p in notebooks if not STUDENT_ID.fullmatch(p.stem)]
    if bad:
        raise ValueError(f"submission names must be <student>.ipynb, got {bad}")
    sandbox = sandbox_available()
    out.mkdir(parents=True, exist_ok=True)
    hide = [submissions.resolve(), zip_path.resolve().parent]

    def grade(notebook: Path) -> Result:
        student = notebook.stem
        try:
            nb = nbformat.read(notebook, as_version=4)
            variant = variant_status(nb, term_key, student, roster is not None)
        except (ValueError, json.JSONDecodeError, nbformat.reader.NotJSONError):
            variant = "unreadable notebook"
        result = Result(student, variant)
        if roster is not None and student not in roster:
            result.variant += "; not on the roster"
        for _ in range(2):                 # a second try only for a kernel that never started
            with tempfile.TemporaryDirectory(prefix=f"grade-{student}-") as box:
                result.run, raw, result.log = run_one(
                    notebook.resolve(), student, zip_path.resolve(), Path(box), timeout=timeout,
                    memory_mb=memory_mb, sandbox=sandbox, hide=hide)
            if result.run == "graded" or KERNEL_NEVER_STARTED not in result.log:
                break
        for test in raw.get("tests", []):
            if "score" in test:
                result.scores[test["name"]] = (test["score"], test["max_score"])
                result.outputs[test["name"]] = test.get("output", "")
        return result

    with ThreadPoolExecutor(max_workers=jobs) as pool:   # each job waits on its own process
        results = list(pool.map(grade, notebooks))
    write_grades(results, set_name, out, sandbox)
    return results


def write_grades(results: list[Result], set_name: str, out: Path, sandbox: bool) -> None:
    """``grades.csv`` (one row per student, one column per question) and the feedback files."""
    configs = question_configs(set_name)
    names = [c["name"] for c in configs]
    points = {c["name"]: c["points"] for c in configs}
    manual = {c["name"] for c in configs if c["manual"]}
    with open(out / "grades.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student", "run", "variant", *names, "autograded_total"])
        for r in results:
            cells = []
            for q in names:
                if q in manual:
                    cells.append("")              # the TA's column
                else:
                    cells.append(f"{r.scores.get(q, (0.0, points[q]))[0]:g}")
            total = sum(r.scores.get(q, (0.0, 0))[0] for q in names if q not in manual)
            writer.writerow([r.student, r.run, r.variant, *cells, f"{total:g}"])
    feedback = out / "feedback"
    feedback.mkdir(exist_ok=True)
    auto_max = sum(points[q] for q in names if q not in manual)
    for r in results:
        total = sum(r.scores.get(q, (0.0, 0))[0] for q in names if q not in manual)
        lines = [f"# {set_name}: feedback for {r.student}", "",
                 f"* Autograded points: {total:g} of {auto_max:g}",
                 f"* Grading run: {r.run}", f"* Your parameters: {r.variant}",
                 "* Hand-graded questions are marked by your TA with the rubric.", ""]
        if r.run != "graded":
            lines += ["Your notebook did not finish grading (a cell ran too long, used too "
                      "much memory or crashed): every autograded question scores 0. Run "
                      "*Restart and run all* before you submit.", ""]
        for q in names:
            if q in manual:
                lines += [f"## {q} ({points[q]} points, graded by hand)", ""]
                continue
            score, top = r.scores.get(q, (0.0, points[q]))
            lines += [f"## {q}: {score:g} of {top:g} points", ""]
            if score < top and r.outputs.get(q):
                lines += ["```", r.outputs[q].strip(), "```", ""]
        (feedback / f"{r.student}.md").write_text("\n".join(lines))
    note = ("sandbox: namespaces, private tmpfs, nobody" if sandbox
            else "sandbox: NOT available (needs root, unshare, setpriv): limits only")
    (out / "SANDBOX.txt").write_text(note + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submissions", type=Path)
    parser.add_argument("--set", dest="set_name", required=True, choices=SETS)
    parser.add_argument("--autograder", type=Path,
                        help="the set's autograder zip (default: make assignments' output)")
    parser.add_argument("--out", type=Path, help="default: <submissions>-graded")
    parser.add_argument("--term-key", default=DEMO_TERM_KEY)
    parser.add_argument("--roster", type=Path)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per submission")
    parser.add_argument("--memory-mb", type=int, default=4096)
    parser.add_argument("--jobs", type=int, default=1, help="submissions graded at once")
    args = parser.parse_args(argv)
    zip_path = args.autograder or (ROOT / "_build" / "assignments" / args.set_name
                                   / f"{args.set_name}-autograder.zip")
    out = args.out or args.submissions.with_name(args.submissions.name + "-graded")
    roster = read_roster(args.roster) if args.roster else None
    results = grade_folder(args.submissions, args.set_name, zip_path, out,
                           term_key=args.term_key, roster=roster, timeout=args.timeout,
                           memory_mb=args.memory_mb, jobs=args.jobs)
    print((out / "SANDBOX.txt").read_text().strip())
    for r in results:
        print(f"{r.student}: {r.run}, parameters {r.variant}, "
              f"{sum(s for s, _ in r.scores.values()):g} points")
    print(f"grades: {out / 'grades.csv'}; feedback: {out / 'feedback'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
