"""Shared fixtures: the quick-scale book build, done ONCE per test run and reused.

The book build (``jupyter-book build . -W -n --keep-going --all --path-output _build/quick`` at
``DPOLEARN_SCALE=quick``, exactly ``make quick-book``) is the most expensive step of CI. The tests
that need it (the pages in the browser, the figures, the notebooks, the site, the PDF, the
student edition) request the ``quick_book`` fixture and sit in one xdist group
(``@pytest.mark.xdist_group("book")``), so with ``pytest -n 2 --dist loadgroup`` one worker builds
and checks the book while the other runs the package tests, and each session fixture made from
the build (the page audit, the site) is made once. The build is additionally guarded by a file
lock and a stamp that records the test run's id, so that even without the group (or with
``-p no:xdist``) it happens at most once per run.

The student edition (``make student-book``: the book without solutions, see
``bookkit.editions``) is made from the quick build's executed notebooks (no second execution):
fixture ``student_book``, the same lock and stamp scheme.

``DPOLEARN_REUSE_BOOK=1`` (for local work only) reuses an existing successful build from an
earlier run instead of rebuilding (both editions).
"""
from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "_build" / "quick"
HTML = QUICK / "_build" / "html"
EXECUTED = QUICK / "_build" / "jupyter_execute"
STAMP = QUICK / "dpolearn-test-build.json"
LOCK = ROOT / "_build" / "quick-build.lock"
BUILD_TIMEOUT = 40 * 60          # seconds; CI's budget for everything is 25 minutes

# One id per test run, shared by all xdist workers (xdist sets PYTEST_XDIST_TESTRUNUID).
_RUN_ID = os.environ.get("PYTEST_XDIST_TESTRUNUID") or uuid.uuid4().hex


def pytest_configure(config):
    # Registered here too so that `-p no:xdist` runs do not warn about the group mark.
    config.addinivalue_line("markers", "xdist_group(name): run in one xdist worker (pytest-xdist)")


#: Fixtures that build a book (the quick build, the student edition, the broken mini book).
BOOK_FIXTURES = {"book_build", "quick_book", "student_book", "broken_book"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """A test that needs a book build is a book test: it gets the ``book`` mark even where its
    module forgot it, so ``-m "not book"`` never builds a book (this runs before the selection
    by marks)."""
    for item in items:
        if BOOK_FIXTURES & set(getattr(item, "fixturenames", ())) and not item.get_closest_marker(
                "book"):
            item.add_marker(pytest.mark.book)


# ------------------------------------------------------------------ where CI's time goes

_WORKER_TIMES: dict = {}     # worker -> [seconds busy, end of its last test (epoch seconds)]
_SESSION_START = time.time()


def pytest_runtest_logreport(report):
    """On the controller (and in a run without xdist), add each test phase to its worker."""
    worker = getattr(getattr(report, "node", None), "gateway", None)
    name = worker.id if worker is not None else "main"
    busy, last = _WORKER_TIMES.get(name, (0.0, 0.0))
    _WORKER_TIMES[name] = [busy + report.duration, max(last, getattr(report, "stop", 0.0))]


def pytest_terminal_summary(terminalreporter):
    """One line per worker: its busy time and when it ran out of tests. A worker that ends long
    before the other marks the critical path of the run (the book group, usually)."""
    if not _WORKER_TIMES:
        return
    lines = [f"{name}: busy {busy:.0f} s, last test ended {last - _SESSION_START:.0f} s "
             "after the start"
             for name, (busy, last) in sorted(_WORKER_TIMES.items())]
    terminalreporter.write_sep("=", "time per worker")
    for line in lines:
        terminalreporter.write_line(line)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """Refuse a run where ``--dist loadgroup`` would do nothing. pytest-xdist groups tests by
    renaming them ``<id>@<group>`` in each worker; a pytest that ignores the renaming (9.2 with
    pytest-xdist 3.8) spreads the "book" group over both workers, each building and auditing
    its own copy of the book."""
    if node.config.getoption("dist") == "loadgroup" and ids and not any("@" in i for i in ids):
        raise pytest.UsageError(
            f"pytest-xdist's --dist loadgroup has no effect with pytest {pytest.__version__}: "
            "no test id carries its group; install the pytest of requirements-test.txt")


@dataclass
class BookBuild:
    """Outcome of the quick book build."""

    ok: bool
    html: Path
    executed: Path
    seconds: float
    log: str = ""
    reused: bool = False
    problems: list = field(default_factory=list)

    def failure_report(self) -> str:
        return "\n".join(self.problems) + "\n\n--- last lines of the build output ---\n" + \
            "\n".join(self.log.splitlines()[-60:])


def jupyter_book_version() -> str:
    return version("jupyter-book")


def _error_logs() -> str:
    """Tracebacks of failed cells that myst-nb wrote under reports/."""
    logs = sorted((HTML / "reports").glob("*.err.log")) if (HTML / "reports").exists() else []
    return "\n\n".join(f"=== {p.relative_to(ROOT)} ===\n{p.read_text(errors='replace')}"
                       for p in logs)


def _run_build() -> BookBuild:
    env = dict(os.environ, DPOLEARN_SCALE="quick", DPOLEARN_PROGRESS="0")
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(exe) if exe.exists() else "jupyter-book", "build", ".", "-W", "-n",
           "--keep-going", "--all", "--path-output", str(QUICK.relative_to(ROOT))]
    # Stale reports from an earlier build must not be mistaken for this build's.
    for old in (HTML / "reports").glob("*.err.log") if (HTML / "reports").exists() else []:
        old.unlink()
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode(errors="replace") if isinstance(exc.stdout, bytes) \
            else (exc.stdout or "")
        return BookBuild(ok=False, html=HTML, executed=EXECUTED, seconds=BUILD_TIMEOUT, log=out,
                         problems=[f"the book build did not finish in {BUILD_TIMEOUT} s"])
    seconds = time.perf_counter() - start
    log = proc.stdout + "\n" + proc.stderr
    problems = []
    if proc.returncode != 0:
        problems.append(f"`{' '.join(cmd)}` exited with {proc.returncode}")
        warnings = [line for line in log.splitlines()
                    if ("WARNING" in line or "ERROR" in line) and "IPKernelApp" not in line]
        if warnings:
            problems.append("Sphinx warnings (errors under -W):\n" + "\n".join(warnings))
        tracebacks = _error_logs()
        if tracebacks:
            problems.append("Cell tracebacks (reports/*.err.log):\n" + tracebacks)
    if not (HTML / "index.html").exists():
        problems.append(f"{HTML / 'index.html'} was not written (jupyter-book 2.x builds "
                        "nothing for a _config.yml/_toc.yml book and still exits 0)")
    return BookBuild(ok=not problems, html=HTML, executed=EXECUTED, seconds=seconds, log=log,
                     problems=problems)


def _build_once() -> BookBuild:
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)          # other workers wait for the one build
        try:
            if STAMP.exists():
                stamp = json.loads(STAMP.read_text())
                same_run = stamp.get("run") == _RUN_ID
                earlier_ok = (os.environ.get("DPOLEARN_REUSE_BOOK") == "1" and stamp.get("ok")
                              and (HTML / "index.html").exists())
                if same_run or earlier_ok:
                    return BookBuild(ok=stamp["ok"], html=HTML, executed=EXECUTED,
                                     seconds=stamp["seconds"], log=stamp.get("log", ""),
                                     reused=True, problems=stamp.get("problems", []))
            build = _run_build()
            QUICK.mkdir(parents=True, exist_ok=True)
            STAMP.write_text(json.dumps({"run": _RUN_ID, "ok": build.ok, "seconds": build.seconds,
                                         "problems": build.problems,
                                         "log": "\n".join(build.log.splitlines()[-200:])}))
            return build
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def book_build() -> BookBuild:
    """The quick build, successful or not (for tests that only need it to have run)."""
    jb = jupyter_book_version()
    if int(jb.split(".")[0]) >= 2:
        pytest.fail(f"jupyter-book {jb} is installed; the book needs jupyter-book<2 "
                    "(pin in requirements.txt)")
    return _build_once()


@pytest.fixture(scope="session")
def quick_book(book_build) -> BookBuild:
    """The quick build; fails the requesting test with the build's tracebacks if it failed."""
    if not book_build.ok:
        pytest.fail("The quick book build failed:\n" + book_build.failure_report(),
                    pytrace=False)
    return book_build


# ------------------------------------------------------------------ the student edition

STUDENT = ROOT / "_build" / "student"
STUDENT_HTML = STUDENT / "_build" / "html"
STUDENT_STAMP = STUDENT / "dpolearn-test-build.json"
STUDENT_LOCK = ROOT / "_build" / "student-build.lock"


def _run_student_build() -> BookBuild:
    """``make student-book`` from the quick build (python -m bookkit.editions student)."""
    env = dict(os.environ, DPOLEARN_SCALE="quick", DPOLEARN_PROGRESS="0")
    cmd = [sys.executable, "-m", "bookkit.editions", "student", "--executed", str(EXECUTED)]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        return BookBuild(ok=False, html=STUDENT_HTML,
                         executed=STUDENT / "_build" / "jupyter_execute", seconds=BUILD_TIMEOUT,
                         problems=[f"the student edition did not build in {BUILD_TIMEOUT} s"])
    log = proc.stdout + "\n" + proc.stderr
    problems = []
    if proc.returncode != 0:
        warnings = [line for line in log.splitlines()
                    if ("WARNING" in line or "ERROR" in line) and "IPKernelApp" not in line]
        problems.append(f"`{' '.join(cmd)}` exited with {proc.returncode}\n" + "\n".join(warnings))
    if not (STUDENT_HTML / "index.html").exists():
        problems.append(f"{STUDENT_HTML / 'index.html'} was not written")
    return BookBuild(ok=not problems, html=STUDENT_HTML,
                     executed=STUDENT / "_build" / "jupyter_execute",
                     seconds=time.perf_counter() - start, log=log, problems=problems)


@pytest.fixture(scope="session")
def student_book(quick_book) -> BookBuild:
    """The student edition (no solutions) of the quick build, made once per test run.

    It shows the quick build's outputs (nothing is executed again); its tests sit in the "book"
    xdist group, on the worker that made the quick build.
    """
    STUDENT_LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(STUDENT_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if STUDENT_STAMP.exists():
                stamp = json.loads(STUDENT_STAMP.read_text())
                reuse = (os.environ.get("DPOLEARN_REUSE_BOOK") == "1" and stamp.get("ok")
                         and (STUDENT_HTML / "index.html").exists())
                if stamp.get("run") == _RUN_ID or reuse:
                    build = BookBuild(ok=stamp["ok"], html=STUDENT_HTML,
                                      executed=STUDENT / "_build" / "jupyter_execute",
                                      seconds=stamp["seconds"], log=stamp.get("log", ""),
                                      reused=True, problems=stamp.get("problems", []))
                else:
                    build = None
            else:
                build = None
            if build is None:
                build = _run_student_build()
                STUDENT.mkdir(parents=True, exist_ok=True)
                STUDENT_STAMP.write_text(json.dumps({
                    "run": _RUN_ID, "ok": build.ok, "seconds": build.seconds,
                    "problems": build.problems,
                    "log": "\n".join(build.log.splitlines()[-200:])}))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    if not build.ok:
        pytest.fail("The student edition build failed:\n" + build.failure_report(), pytrace=False)
    return build


FIXTURE_SRC = ROOT / "tests" / "browser_fixture"
FIXTURE_OUT = ROOT / "_build" / "browser_fixture"


@pytest.fixture(scope="session")
def broken_book() -> Path:
    """HTML of the deliberately broken mini book in tests/browser_fixture (built without -W).

    Its page ``good`` must pass every check and its page ``broken`` (missing image, error
    output, raw math, a script error, '??') must fail them: the tests of the tests.
    """
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(exe) if exe.exists() else "jupyter-book", "build", str(FIXTURE_SRC),
           "--all", "--path-output", str(FIXTURE_OUT)]
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(ROOT / "_build" / "browser-fixture.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    html = FIXTURE_OUT / "_build" / "html"
    if proc.returncode != 0 or not (html / "broken.html").exists():
        pytest.fail(f"fixture build failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n"
                    f"{proc.stderr[-3000:]}")
    return html


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium at a 1280 px window (``test_browser.open_browser``), one per process."""
    from test_browser import open_browser

    yield from open_browser()


SCREENSHOTS = ROOT / "_build" / "screenshots"
PAGE_AUDIT_REPORT = ROOT / "_build" / "page-audit-quick.json"


def dependency_index() -> str:
    """The index for the dependencies of the notebooks' install cell: PyPI, as a reader's
    machine has it, when this machine reaches it; else the index this machine's pip is
    configured with (e.g. a local mirror)."""
    import urllib.request

    from bookkit import notebook as m2n

    try:
        with urllib.request.urlopen(m2n.DEFAULT_DEPENDENCY_INDEX + "/numpy/", timeout=20):
            return m2n.DEFAULT_DEPENDENCY_INDEX
    except OSError:
        pass
    proc = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True,
                          text=True)
    for line in proc.stdout.splitlines():
        key, _, value = line.partition("=")
        if key.endswith(("index-url", "extra-index-url")) and value.strip("'\" "):
            return value.strip("'\" ").split()[0]
    return m2n.DEFAULT_DEPENDENCY_INDEX


@pytest.fixture(scope="session")
def site(quick_book, tmp_path_factory):
    """``make site`` at quick scale from the quick build, served on 127.0.0.1 for the whole run:
    ``(base url, folder, manifest)``. The site is what a reader receives (the pages with their
    launch links, the package index, the notebooks, Lite, the PDFs); the reader's audit
    (:func:`site_audit`) reads its pages and test_site.py the rest."""
    from bookkit import page_audit

    out = tmp_path_factory.mktemp("site") / "site"
    out.mkdir()
    with page_audit.serve(out) as base:      # the address is known before the site is made
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "bookkit.site", "--html",
                               str(quick_book.html), "--out", str(out), "--scale", "quick",
                               "--base-url", base, "--dependency-index", dependency_index()],
                              cwd=ROOT, capture_output=True, text=True, timeout=3600)
        if proc.returncode != 0:
            pytest.fail("make site failed:\n" + proc.stdout[-3000:] + proc.stderr[-5000:],
                        pytrace=False)
        print(f"site assembled in {time.perf_counter() - start:.0f} s: {proc.stdout.strip()}")
        yield base, out, json.loads((out / "release.json").read_text())


@pytest.fixture(scope="session")
def site_audit(browser, site) -> dict:
    """The reader's audit (``bookkit.page_audit``) of every page of the served site, page name
    -> ``PageResult``: one pass of the browser for the tests that look at the pages
    (test_page_audit: every check; test_browser: the pages and screenshots; test_site: no
    console error or failed request; test_figures: the shown widths of the figures).
    Screenshots go to ``_build/screenshots/``, the JSON report to
    ``_build/page-audit-quick.json``."""
    from bookkit import page_audit

    base, folder, _ = site
    start = time.perf_counter()
    results = page_audit.audit_site(browser, base, page_audit.site_pages(folder),
                                    screenshots=SCREENSHOTS)
    totals = page_audit.summarise(results)
    PAGE_AUDIT_REPORT.parent.mkdir(parents=True, exist_ok=True)
    PAGE_AUDIT_REPORT.write_text(json.dumps({"totals": totals,
                                             "pages": [r.as_json() for r in results]},
                                            indent=1), encoding="utf-8")
    print(f"page audit of {len(results)} pages in {time.perf_counter() - start:.0f} s: {totals}")
    return {r.page: r for r in results}
