"""A term from roster to gradebook: per-student notebooks and ``python -m bookkit.grade``.

One build of the three sets for an eight-student roster with a secret term key, then one grading
of eight set-1 submissions, each in its own sandboxed process: a correct notebook; a wrong
answer; a function that raises; an endless (waiting) loop; one that opens a socket and reads the
instructor's files; one that writes outside its folder; a correct notebook of another student;
one with edited parameters. Sets 2 and 3 are graded for two submissions each: a student's
correct notebook, and the same notebook handed in by another student.
Slow (three set builds and twelve kernels, about fifteen minutes on the shared two-core machine).
"""
from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from bookkit.assignments import personalise, variant_spec
from bookkit.grade import KERNEL_NEVER_STARTED, sandbox_available
from dpolearn.coursework import make_variant

ROOT = Path(__file__).resolve().parents[1]
KEY = "test-term-key-not-public"
ROSTER = ("alice", "bob", "carol", "dave", "eve", "frank", "grace", "heidi")
SETS = ("set1", "set2", "set3")
TIMEOUT = 300          # seconds; one sandboxed grading of a set takes 60-150 s here

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("assignments")]


def _parameterised(set_name: str) -> set[str]:
    """The questions drawn per student: those of the set's variants.yml."""
    return set(variant_spec(set_name))


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    """The three sets built for the roster with the term key."""
    base = tmp_path_factory.mktemp("term")
    roster = base / "roster.csv"
    roster.write_text("student,name\n" + "".join(f"{s},{s.title()}\n" for s in ROSTER))
    out = base / "assignments"
    proc = subprocess.run([sys.executable, "-m", "bookkit.assignments", "--out", str(out),
                           "--term-key", KEY, "--roster", str(roster), *SETS],
                          cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return base, roster, out


def _solution_for(out: Path, student: str, set_name: str = "set1") -> nbformat.NotebookNode:
    solution = nbformat.read(out / set_name / "instructor" / f"{set_name}-solution.ipynb",
                             as_version=4)
    return personalise(solution, make_variant(KEY, student, set_name, variant_spec(set_name)))


def _replace(nb, old: str, new: str):
    cells = [c for c in nb.cells if c.cell_type == "code" and old in c.source]
    assert len(cells) == 1, old
    cells[0].source = cells[0].source.replace(old, new)
    return nb


@pytest.mark.parametrize("set_name", SETS)
def test_each_student_gets_their_own_signed_parameters(term, set_name):
    _, _, out = term
    params = {}
    for student in ROSTER:
        nb = nbformat.read(out / "students" / student / f"{set_name}.ipynb", as_version=4)
        variant = nb.metadata["dpolearn"]["variant"]
        assert variant["student"] == student and variant["set"] == set_name
        params[student] = repr(variant["params"])
        text = (out / "students" / student / f"{set_name}.ipynb").read_text()
        assert KEY not in text and "{{param:" not in text
    assert len(set(params.values())) == len(ROSTER), params
    assert KEY not in (out / set_name / f"{set_name}.ipynb").read_text()


@pytest.fixture(scope="module")
def graded(term):
    base, roster, out = term
    subs = base / "submissions"
    subs.mkdir()
    escape = base / "escaped.txt"                   # under /tmp: private in the sandbox
    outside = ROOT / f"escaped-{base.name}.txt"       # the repository: not writable there
    nbformat.write(_solution_for(out, "alice"), subs / "alice.ipynb")
    nbformat.write(_replace(_solution_for(out, "bob"), "return 1.0 / (n * epsilon)",
                            "return 0.5 / (n * epsilon)"), subs / "bob.ipynb")
    nbformat.write(_replace(_solution_for(out, "carol"),
                            "    total = lambda e:", "    k = k / 0\n    total = lambda e:"),
                   subs / "carol.ipynb")
    dave = _solution_for(out, "dave")
    # The limit is wall time (the process tree is killed at --timeout), so a loop that waits
    # meets it exactly as a spinning one would, without taking a core for five minutes.
    dave.cells.insert(8, nbformat.v4.new_code_cell("import time\nwhile True:\n    time.sleep(1)"))
    nbformat.write(dave, subs / "dave.ipynb")
    probe = (f"import socket\ntry:\n    socket.create_connection(('1.1.1.1', 80), timeout=5)\n"
             f"    NET = 'open'\nexcept OSError as e:\n    NET = f'blocked {{e}}'\n"
             f"try:\n    open({str(out / 'set1' / 'set1-autograder.zip')!r}, 'rb').read(10)\n"
             f"    READ = 'read'\nexcept OSError as e:\n    READ = f'blocked {{e}}'\n"
             f"try:\n    open({str(escape)!r}, 'w').write('x')\nexcept OSError:\n    pass\n"
             f"try:\n    open({str(outside)!r}, 'w').write('x')\n"
             f"    WRITE = 'written'\nexcept OSError as e:\n    WRITE = f'blocked {{e}}'\n")
    for student in ("eve", "frank"):
        nb = _solution_for(out, student)
        nb.cells.insert(8, nbformat.v4.new_code_cell(probe))
        _replace(nb, "    return 1.0 / (n * epsilon)          # sensitivity of the mean is 1/n",
                 "    raise RuntimeError(f'PROBE net={NET}; read={READ}; write={WRITE}')")
        nbformat.write(nb, subs / f"{student}.ipynb")
    (subs / "grace.ipynb").write_text((subs / "alice.ipynb").read_text())   # alice's work
    heidi = _solution_for(out, "heidi")
    heidi.metadata["dpolearn"]["variant"]["params"]["q1_3"]["k"] = 10
    for cell in heidi.cells:
        if cell.source.startswith("# Your parameters"):
            cell.source = cell.source.replace("'k': ", "'k': 10, 'old_k': ")
    nbformat.write(heidi, subs / "heidi.ipynb")
    proc = subprocess.run([sys.executable, "-m", "bookkit.grade", str(subs), "--set", "set1",
                           "--autograder", str(out / "set1" / "set1-autograder.zip"),
                           "--term-key", KEY, "--roster", str(roster), "--timeout", str(TIMEOUT),
                           "--jobs", "2"], cwd=ROOT, capture_output=True, text=True,
                          timeout=8 * TIMEOUT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    graded_dir = base / "submissions-graded"
    with open(graded_dir / "grades.csv", newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    return rows, graded_dir, (escape, outside)


def _feedback(graded_dir: Path, student: str) -> str:
    return (graded_dir / "feedback" / f"{student}.md").read_text()


AUTOGRADED = ("q1_3", "q1_4", "q1_6", "q1_7", "q1_8", "q1_11c", "q1_12", "q1_13")
POINTS = {"q1_3": 4, "q1_4": 6, "q1_6": 3, "q1_7": 3, "q1_8": 4, "q1_11c": 2, "q1_12": 4,
          "q1_13": 3}


def _scores(row) -> dict[str, float]:
    return {q: float(row[q]) for q in AUTOGRADED}


def test_gradebook_has_a_row_per_student_and_a_column_per_question(graded):
    rows, graded_dir, _ = graded
    assert sorted(rows) == sorted(ROSTER)
    assert {"q1_1", "q1_14", *AUTOGRADED} <= set(rows["alice"])
    assert rows["alice"]["q1_1"] == ""                 # hand-graded: left to the TA
    assert _scores(rows["alice"]) == POINTS
    assert rows["alice"]["run"] == "graded" and rows["alice"]["variant"] == "ok"
    assert float(rows["alice"]["autograded_total"]) == sum(POINTS.values())
    assert all((graded_dir / "feedback" / f"{s}.md").exists() for s in ROSTER)


def test_a_wrong_answer_loses_its_question_only(graded):
    rows, graded_dir, _ = graded
    scores = _scores(rows["bob"])
    # half the noise fails the calibration test (3 points); the audit part does not use it
    assert scores == dict(POINTS, q1_4=3.0), scores
    feedback = _feedback(graded_dir, "bob")
    assert "## q1_4: 3 of 6 points" in feedback and "too little noise" in feedback


def test_a_students_exception_reaches_the_feedback(graded):
    rows, graded_dir, _ = graded
    assert _scores(rows["carol"]) == dict(POINTS, q1_3=0.0)
    assert "raised ZeroDivisionError: division by zero" in _feedback(graded_dir, "carol")
    assert "k = k / 0" in _feedback(graded_dir, "carol")


def test_an_endless_loop_is_killed_at_its_limit(graded):
    rows, graded_dir, _ = graded
    assert rows["dave"]["run"] == f"time limit ({TIMEOUT} s)"
    assert float(rows["dave"]["autograded_total"]) == 0
    assert "did not finish grading" in _feedback(graded_dir, "dave")


@pytest.mark.skipif(not sandbox_available(), reason="the sandbox needs root, unshare, setpriv")
def test_the_sandbox_blocks_network_instructor_files_and_writes_outside(graded):
    rows, graded_dir, escape = graded
    for student in ("eve", "frank"):
        assert _scores(rows[student]) == dict(POINTS, q1_4=0.0)
        feedback = _feedback(graded_dir, student)
        assert "PROBE net=blocked" in feedback, feedback
        assert "read=blocked" in feedback and "write=blocked" in feedback
    assert not any(path.exists() for path in escape)


def test_another_students_notebook_and_edited_parameters_score_zero(graded):
    rows, graded_dir, _ = graded
    assert rows["grace"]["variant"] == "another student's (alice)"
    assert rows["heidi"]["variant"] == "tampered"
    parameterised = _parameterised("set1")
    # every autograded question draws its numbers per student: a copied notebook earns nothing
    assert set(AUTOGRADED) <= parameterised
    for student in ("grace", "heidi"):
        scores = _scores(rows[student])
        assert all(scores[q] == 0 for q in parameterised), (student, scores)
    assert "generated for another student ('alice'), not for 'grace'" in _feedback(
        graded_dir, "grace")
    assert "tampered" in _feedback(graded_dir, "heidi")


@pytest.fixture(scope="module")
def graded_sets_2_and_3(term):
    """Sets 2 and 3, each graded for alice's correct notebook and the same notebook handed in
    by grace: {set: {student: grades.csv row}}."""
    base, roster, out = term
    rows = {}
    for set_name in ("set2", "set3"):
        subs = base / f"submissions-{set_name}"
        subs.mkdir()
        nbformat.write(_solution_for(out, "alice", set_name), subs / "alice.ipynb")
        (subs / "grace.ipynb").write_text((subs / "alice.ipynb").read_text())
        proc = subprocess.run([sys.executable, "-m", "bookkit.grade", str(subs), "--set",
                               set_name, "--autograder",
                               str(out / set_name / f"{set_name}-autograder.zip"),
                               "--term-key", KEY, "--roster", str(roster), "--timeout",
                               str(TIMEOUT), "--jobs", "2"], cwd=ROOT, capture_output=True,
                              text=True, timeout=3 * TIMEOUT)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        with open(base / f"submissions-{set_name}-graded" / "grades.csv", newline="") as f:
            rows[set_name] = {row["student"]: row for row in csv.DictReader(f)}
    return rows


@pytest.mark.parametrize("set_name", ("set2", "set3"))
def test_sets_2_and_3_grade_the_students_own_parameters(graded_sets_2_and_3, set_name):
    """A correct notebook scores full marks at its student's parameters; the same notebook
    handed in by another student scores 0 on every question drawn per student."""
    from bookkit.assignments import question_configs

    rows = graded_sets_2_and_3[set_name]
    points = {c["name"]: c["points"] for c in question_configs(set_name) if not c["manual"]}
    alice, grace = rows["alice"], rows["grace"]
    assert alice["run"] == "graded" and alice["variant"] == "ok", alice
    assert {q: float(alice[q]) for q in points} == points, alice
    assert grace["variant"] == "another student's (alice)", grace
    parameterised = _parameterised(set_name)
    assert parameterised, f"{set_name} has questions drawn per student"
    for q in points:
        assert float(grace[q]) == (0 if q in parameterised else points[q]), (q, grace)


@pytest.mark.parametrize("failure, runs", [(KERNEL_NEVER_STARTED, 2), ("ZeroDivisionError", 1)])
def test_only_a_kernel_that_never_started_is_run_again(tmp_path, monkeypatch, failure, runs):
    """A kernel that died before its first reply (no cell of the submission had run) is started
    once more; any other failed run is the submission's own result."""
    from bookkit import grade

    subs = tmp_path / "submissions"
    subs.mkdir()
    nbformat.write(nbformat.v4.new_notebook(), subs / "alice.ipynb")
    zip_path = tmp_path / "set1-autograder.zip"
    zip_path.write_bytes(b"")
    calls = []

    def run_one(*args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            return "error (exit 1)", {}, f"Traceback ...\nRuntimeError: {failure}\n"
        return "graded", {"tests": [{"name": "q1_3", "score": 4.0, "max_score": 4.0}]}, ""

    monkeypatch.setattr(grade, "run_one", run_one)
    [result] = grade.grade_folder(subs, "set1", zip_path, tmp_path / "graded")
    assert len(calls) == runs
    assert result.run == ("graded" if runs == 2 else "error (exit 1)")
