"""The autograded problem sets: ``make assignments`` and grading with ``otter run`` (no Docker).

One ``make assignments`` per test session (fixture), then for every set:

* the student notebook holds no solution code, no written answer and no hidden test;
* the solution notebook scores full marks on every autograded question;
* the blank student notebook scores zero on every autograded question;
* plausible wrong answers (half the Laplace noise, an off-by-one schedule, ...), made by editing
  the solution notebook's cells, each lose the points of their question, and only those.

Without a build, every parameterised question is graded in this process at every combination
of its choices (``variants.yml``): the solution passes all its tests and each wrong answer fails
a hidden one, so a choice that makes a combination ill-posed fails here (about a minute of CPU;
q2.2, which simulates, at two combinations, and at all sixteen under the ``slow`` mark).

Also without a build: every explanation an autograded question asks for is a hand-graded part of
its own (``q1_7`` -> ``q1_7b``) with a rubric, the instructors' notes show every set's points, and
every pen-and-paper question is a variant of its exercise that repeats no sentence of the book.

The tests sit in their own xdist group so that one worker grades while the other runs the book
build. The nine ``otter run`` gradings run three at a time, as do the three ``otter assign`` of the
build. Measured on the shared 2-core machine: see the report of ``--durations``.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import io
import itertools
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
import yaml

from bookkit.assignments import exercise_numbers, question_blocks, question_configs
from bookkit.expected_outputs import question_numbers
from bookkit.grade import KERNEL_NEVER_STARTED

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "_build" / "assignments"
SETS = ("set1", "set2", "set3")
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.xdist_group("assignments")

# Wrong answers: (question, text in the solution cell, replacement). Each is a mistake a student
# could plausibly make, and each must be caught by a hidden test of its question.
WRONG_ANSWERS = {
    "set1": [
        (
            "q1_3",
            "return max(1.0 / k, advanced_eps0(k, delta_prime))",
            "return advanced_eps0(k, delta_prime)",
        ),  # forgets basic composition
        ("q1_4", "return 1.0 / (n * epsilon)", "return 0.5 / (n * epsilon)"),  # half the noise
        ("q1_6", "for k in range(levels + 1):", "for k in range(levels):"),  # misses 2^L
        (
            "q1_7",
            "return u ** 2 / (2 * float(zeta(v)))",
            "return u ** 2 / float(zeta(v))",
        ),  # drops the 2 of 2 eps zeta(v)
        ("q1_8", "return 2 ** (r + 1) - 1  # SOLUTION", "return 2 ** r - 1"),  # batch of 2^r pulls
        (
            "q1_12",
            "mu_floor = math.sqrt(math.floor(float(sampling_budget(T, alpha)))",
            "mu_floor = math.sqrt((float(sampling_budget(T, alpha)))",
        ),  # forgets the floor
    ],
    "set2": [
        (
            "q2_3",
            "honest_eps_dp = {c for c, g in guarantees.items() if g.epsilon <= eps}",
            "honest_eps_dp = {c for c in configs if c[1] <= eps}",
        ),  # trusts the nominal epsilon
        (
            "q2_8",
            "return 2 * (3 / share_log ** 2 + 2 * 9 / share_tree ** 2)  # SOLUTION",
            "return 3 / share_log ** 2 + 2 * 9 / share_tree ** 2",
        ),  # the variance of Lap(b) taken as b^2
        ("q2_10", "d = math.ceil(math.log2(complexity))", "d = math.floor(math.log2(complexity))"),
    ],
    "set3": [
        (
            "q3_4",
            "n_needed = math.ceil((z * 0.5 / h) ** 2 - 1e-9)  # SOLUTION",
            "n_needed = math.ceil((z * 0.5 / h) ** 2) + 1",
        ),
        (
            "q3_9",
            "eps_star = math.log((K - 5) / (3 * (math.sqrt(K) - 1)))",
            "eps_star = math.log((K - 5) / (3 * math.sqrt(K)))",
        ),  # drops the 1 of ln(1 + x) >= ln sqrt(K)
        (
            "q3_12",
            "runs_needed = (z * (math.sqrt((1 - p) / p) + math.sqrt((1 - q) / q)) / width) ** 2",
            "runs_needed = z * (math.sqrt((1 - p) / p) + math.sqrt((1 - q) / q)) / width",
        ),  # forgets to square: the gap falls like 1 / sqrt(n)
        (
            "q3_13",
            "g = 2 / (math.exp(2 - factor) - 1)",
            "g = 2 / (math.exp(factor) - 1)",
        ),  # the loss c read as a factor e^c
    ],
}


def _solution_texts(set_name: str) -> list[str]:
    """Every solution line and written answer of a set's source, and its hidden tests."""
    import jupytext

    text = (ROOT / "assignments" / set_name / f"{set_name}.md").read_text()
    texts = []
    for cell in jupytext.reads(text, fmt="md:myst").cells:
        if cell.cell_type != "code":
            continue
        inside = False
        for line in cell.source.splitlines():
            marker = line.strip()
            if marker in ("# BEGIN SOLUTION", "# END SOLUTION"):
                inside = marker == "# BEGIN SOLUTION"
            elif inside and len(marker) > 12 and not marker.startswith("#"):
                texts.append(marker)
            elif marker.endswith("# SOLUTION"):
                texts.append(marker.split("# SOLUTION")[0].strip())
    assert len(texts) > 5, f"{set_name}: no solution lines found; has the format changed?"
    texts += re.findall(r"^(\*\*Answer\.\*\* .{20})", text, flags=re.MULTILINE)
    texts += re.findall(r'""" # END TEST CONFIG\ndef (test_\w+)', text)
    return texts


def _otter_run(submission: Path, set_name: str, out_dir: Path) -> dict[str, tuple[float, float]]:
    """Grade one notebook with ``otter run``; return {question: (score, max_score)}."""
    out_dir.mkdir(parents=True, exist_ok=True)
    zip_path = OUT / set_name / f"{set_name}-autograder.zip"
    for _ in range(2):          # a second try only for a kernel that never started
        proc = subprocess.run([str(BIN / "otter"), "run", "--no-logo", "-a", str(zip_path),
                               "-o", str(out_dir), str(submission)],
                              check=False, capture_output=True, text=True, timeout=600,
                              cwd=out_dir)
        if proc.returncode == 0 or KERNEL_NEVER_STARTED not in proc.stderr:
            break
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads((out_dir / "results.json").read_text())
    return {t["name"]: (t["score"], t["max_score"]) for t in results["tests"]
            if t["name"] != "Public Tests"}


@pytest.fixture(scope="session")
def built():
    """Run ``make assignments`` once (the stamp prerequisite is taken as up to date)."""
    env = dict(os.environ, DPOLEARN_PROGRESS="0")
    proc = subprocess.run(
        ["make", "-o", ".venv/.installed", "assignments", f"BIN={BIN}"],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return OUT


def _autograded_questions(set_name: str) -> set[str]:
    """The names of the set's questions that are not graded by hand (its Otter configs)."""
    return {c["name"] for c in question_configs(set_name) if not c["manual"]}


def test_every_label_and_number_is_consistent():
    """Each set question points at an existing exercise, each exercise at most one question,
    and the Assignments page uses the notebooks' numbers."""
    known = exercise_numbers()
    numbers = question_numbers()
    assert numbers and set(numbers) <= set(known), set(numbers) - set(known)
    page = (ROOT / "book" / "assignments.md").read_text()
    for label, number in numbers.items():
        assert re.search(rf"\| {re.escape(number)} \| {{numref}}`{re.escape(label)}`", page), \
            f"the Assignments page does not list {label} as question {number}"


def test_question_configs_are_the_otter_blocks():
    """A question config is an ``otter`` block opening with ``# BEGIN QUESTION`` (any fence
    length); the same line in a code block or in prose is none; every set has configs."""
    text = ("```otter\n# BEGIN QUESTION\nname: q1\npoints: 2\n```\n\n"
            "```python\n# BEGIN QUESTION\nname: not_a_config\n```\n\n"
            "Prose that quotes\n# BEGIN QUESTION\n\n"
            "````otter\n# BEGIN QUESTION\nname: q2\nmanual: true\n````\n")
    assert [yaml.safe_load(b) for b in question_blocks(text)] == [
        {"name": "q1", "points": 2}, {"name": "q2", "manual": True}]
    for set_name in SETS:
        configs = question_configs(set_name)
        assert configs and len({c["name"] for c in configs}) == len(configs), set_name


@pytest.mark.parametrize("set_name", SETS)
def test_student_notebook_has_no_solutions(built, set_name):
    student = (built / set_name / f"{set_name}.ipynb").read_text()
    nb = nbformat.reads(student, as_version=4)
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "hidden: true", "**Answer.**"):
        assert marker not in student, f"{set_name}: student notebook contains {marker!r}"
    leaked = [t for t in _solution_texts(set_name) if t in student]
    assert not leaked, (
        f"{set_name}: solution or hidden-test text in the student notebook: {leaked[:5]}"
    )
    checks = {m.group(1) for c in nb.cells if c.cell_type == "code"
              for m in re.finditer(r'grader\.check\("(\w+)"\)', c.source)}
    assert checks == _autograded_questions(set_name), (
        "every autograded question needs a public check"
    )


def _wrong_answer_notebook(set_name: str, path: Path) -> Path:
    """The solution notebook with the wrong answers of WRONG_ANSWERS written into its cells."""
    nb = nbformat.read(OUT / set_name / "instructor" / f"{set_name}-solution.ipynb", as_version=4)
    for question, right, wrong in WRONG_ANSWERS[set_name]:
        cells = [c for c in nb.cells if c.cell_type == "code" and right in c.source]
        assert len(cells) == 1, f"{question}: the text to replace must occur in one cell: {right!r}"
        cells[0].source = cells[0].source.replace(right, wrong)
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="session")
def grades(built, tmp_path_factory):
    """Scores of the solution, blank and wrong-answer notebooks of every set, graded by
    ``otter run`` three at a time (each run mostly waits on its kernel)."""
    jobs = []
    for set_name in SETS:
        work = tmp_path_factory.mktemp(set_name)
        blank = work / f"{set_name}.ipynb"
        blank.write_text((built / set_name / f"{set_name}.ipynb").read_text())
        (work / "wrong").mkdir()
        wrong = _wrong_answer_notebook(set_name, work / "wrong" / f"{set_name}.ipynb")
        solution = built / set_name / "instructor" / f"{set_name}-solution.ipynb"
        for kind, submission in (("solution", solution), ("blank", blank), ("wrong", wrong)):
            jobs.append((kind, set_name, submission, tmp_path_factory.mktemp(f"graded-{kind}")))
    with ThreadPoolExecutor(max_workers=3) as pool:
        scores = list(pool.map(lambda job: _otter_run(job[2], job[1], job[3]), jobs))
    return {(kind, set_name): score for (kind, set_name, _, _), score in zip(jobs, scores)}


@pytest.mark.parametrize("set_name", SETS)
def test_committed_student_notebook_is_current(built, set_name):
    """The Assignments page links assignments/student/<set>.ipynb: it must be today's build."""
    committed = ROOT / "assignments" / "student" / f"{set_name}.ipynb"
    assert committed.exists(), (
        f"missing {committed}: run python -m bookkit.assignments --sync-student"
    )

    def cells(path):
        return [(c.cell_type, c.source) for c in nbformat.read(path, as_version=4).cells]
    assert cells(committed) == cells(built / set_name / f"{set_name}.ipynb"), (
        f"{committed.name} is stale: run python -m bookkit.assignments --sync-student "
        "and commit it"
    )


@pytest.mark.parametrize("set_name", SETS)
def test_solution_scores_full_marks(grades, set_name):
    scores = grades[("solution", set_name)]
    assert set(scores) == _autograded_questions(set_name)
    short = {q: s for q, s in scores.items() if s[0] != s[1] or s[1] <= 0}
    assert not short, f"{set_name}: the solution loses points: {short}"


@pytest.mark.parametrize("set_name", SETS)
def test_blank_student_notebook_scores_zero(grades, set_name):
    scores = grades[("blank", set_name)]
    assert set(scores) == _autograded_questions(set_name)
    nonzero = {q: s for q, s in scores.items() if s[0] != 0}
    assert not nonzero, f"{set_name}: a blank notebook earns points: {nonzero}"


@pytest.mark.parametrize("set_name", SETS)
def test_wrong_answers_fail_their_hidden_tests(grades, set_name):
    scores = grades[("wrong", set_name)]
    broken = {q for q, _, _ in WRONG_ANSWERS[set_name]}
    for question, (score, max_score) in scores.items():
        if question in broken:
            assert score < max_score, f"{set_name}: the wrong answer to {question} keeps full marks"
        else:
            assert score == max_score, f"{set_name}: {question} lost points it should keep"


# -- tests that need no build: exact equality, variants, the public checks cell ---------------

#: Calls whose result the set's tests may compare exactly: integers, sizes, sets of labels.
EXACT_CALLS = {"int", "len", "set", "sorted", "str", "type", "bool", "frozenset", "tuple", "list"}


def _exact(node) -> bool:
    """True for an expression that is exact by construction: a non-float literal, a display of
    literals (labels), or a call of :data:`EXACT_CALLS`."""
    import ast

    if isinstance(node, ast.Constant):
        return not isinstance(node.value, float)
    if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        return all(isinstance(e, ast.Constant) or _exact(e) for e in node.elts)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id in EXACT_CALLS


def float_equalities(source: str) -> list[str]:
    """The ``==``/``!=`` comparisons of test functions in ``source`` that are not exact by
    construction (a computed float compared exactly, or a float literal)."""
    import ast

    found = []
    for func in ast.walk(ast.parse(source)):
        if not (isinstance(func, ast.FunctionDef) and func.name.startswith("test_")):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.Compare) and any(
                    isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
                operands = [node.left, *node.comparators]
                floats = any(isinstance(o, ast.Constant) and isinstance(o.value, float)
                             for o in operands)
                if floats or not any(_exact(o) for o in operands):
                    found.append(f"{func.name}: {ast.unparse(node)}")
    return found


def test_float_equality_scan_catches_the_known_mistakes():
    bad = ("def test_a(f, g):\n    assert f(10) == 0.1\n    assert f(3) == g(3)\n"
           "    assert f(1) != 2.5\n")
    good = ("def test_b(f, g, d):\n    assert len(f()) == 2\n    assert d == int(g())\n"
            "    assert set(f()) == {('chan', 1.0)}\n    assert f(1) == 3\n")
    assert len(float_equalities(bad)) == 3
    assert float_equalities(good) == []


@pytest.mark.parametrize("set_name", SETS)
def test_no_test_compares_a_computed_float_exactly(set_name):
    """Every check of a set (public and hidden) compares numbers with a tolerance."""
    import jupytext

    nb = jupytext.reads((ROOT / "assignments" / set_name / f"{set_name}.md").read_text(),
                        fmt="md:myst")
    source = "\n\n".join(c.source for c in nb.cells
                         if c.cell_type == "code" and "def test_" in c.source
                         and not c.source.lstrip().startswith("%"))
    assert "def test_" in source
    assert float_equalities(source) == []


def test_variants_differ_between_students_and_are_signed(tmp_path):
    from bookkit.assignments import personalise, read_roster, variant_spec
    from dpolearn.coursework import make_variant, verify

    roster = tmp_path / "roster.csv"
    roster.write_text("student,name\nalice,A\nbob,B\ncarol,C\ndave,D\neve,E\n")
    students = read_roster(roster)
    spec = variant_spec("set1")
    assert spec, "set 1 has parameterised questions"
    variants = [make_variant("k", s, "set1", spec) for s in students]
    assert len({repr(v["params"]) for v in variants}) == 5
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("k = {{param:q1_3.k}}"),
        nbformat.v4.new_code_cell("VARIANT = {}\nP = VARIANT['params']")])
    mine = personalise(nb, variants[0])
    assert mine.cells[0].source == f"k = {variants[0]['params']['q1_3']['k']:g}"
    assert verify(mine.metadata["dpolearn"]["variant"], "k")
    namespace: dict = {}
    exec(mine.cells[1].source, namespace)
    assert namespace["VARIANT"] == variants[0]
    (tmp_path / "bad.csv").write_text("student\nalice\n../etc\n")
    with pytest.raises(ValueError, match="identities"):
        read_roster(tmp_path / "bad.csv")


def test_public_checks_cell_runs_without_the_notebook_file(tmp_path, monkeypatch):
    """The cell that carries the public checks makes grader.check work in a folder that holds
    no notebook (Colab), and reports a wrong answer."""
    from bookkit.assignments import embed_public_checks

    test = ('from otter.test_files import test_case\n\nOK_FORMAT = False\n\nname = "q1"\n'
            'points = 1\n\n@test_case(points=None, hidden=False)\ndef test_q1(x):\n'
            '    assert x == 2, f"x must be 2, got {x!r}\\n(two)"\n')
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        'import otter\ngrader = otter.Notebook("set1.ipynb")')])
    nb.metadata["otter"] = {"tests": {"q1": test}, "OK_FORMAT": False}
    out = embed_public_checks(nb, "set1")
    assert "tests" not in out.metadata["otter"] and "otter.Notebook(\"" not in out.cells[0].source
    assert "OK_FORMAT" not in out.metadata["otter"]       # otter run refuses one without the other
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for cell in out.cells:
        exec(cell.source, namespace)
    namespace["x"] = 2
    assert namespace["grader"].check("q1", namespace).grade == 1
    namespace["x"] = 3
    result = namespace["grader"].check("q1", namespace)
    assert result.grade == 0 and "got 3" in repr(result)


def test_every_hand_graded_question_has_a_rubric_adding_up_to_its_points():
    from bookkit.assignments import rubrics, rubrics_markdown

    table = rubrics()
    manual = {c["name"]: c["points"] for s in SETS for c in question_configs(s) if c["manual"]}
    assert set(table) == set(manual), set(table) ^ set(manual)
    for name, rubric in table.items():
        assert rubric["criteria"] and rubric["partial"], name
        assert sum(p for p, _ in rubric["criteria"]) == manual[name], name
    assert all(f"## {name} (" in rubrics_markdown() for name in manual)


def test_headings_show_points_and_sets_state_their_workload():
    from bookkit.assignments import READING, show_points

    for set_name in SETS:
        text = (ROOT / "assignments" / set_name / f"{set_name}.md").read_text()
        shown = show_points(text)
        for config in question_configs(set_name):
            assert re.search(rf"name: {config['name']}\n.*?```\n\n## [^\n]* · "
                             rf"{config['points']:g} points?", shown, re.S), config["name"]
        assert READING.search(text) and re.search(r"about \d+ hours", text), set_name


def test_the_assignments_page_holds_no_instructor_notes():
    page = (ROOT / "book" / "assignments.md").read_text()
    assert "Instructor note" not in page and "What the autograder checks" not in page
    assert "What the autograder checks" in (ROOT / "assignments" / "INSTRUCTORS.md").read_text()



# -- every combination of every question's parameters, without a build: the solution passes
#    the question's tests, and the wrong answer of WRONG_ANSWERS fails a hidden one --------------

#: Questions whose solution and hidden tests simulate (seconds per combination): the fast test
#: checks a spread of their combinations, the slow one all of them.
SIMULATING = {"q2_2", *(f"q{q}_study" for q in ("2_5", "2_9", "2_11", "2_12", "2_13", "3_1",
                                                  "3_2", "3_7", "3_11", "3_15"))}
SPREAD = 2


@functools.cache
def _set_cells(set_name: str) -> tuple[str, dict[str, tuple[str, ...]]]:
    """The setup code of a set (its imports, without the install cell, the grader and the
    VARIANT cell) and, per question, the sources of its code cells in order."""
    import jupytext

    nb = jupytext.reads((ROOT / "assignments" / set_name / f"{set_name}.md").read_text(),
                        fmt="md:myst")
    setup, questions, current = [], {}, None
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for marker, name in re.findall(r"# (BEGIN|END) QUESTION(?:\nname: (\w+))?",
                                           cell.source):
                current = name if marker == "BEGIN" else None
        elif current is not None:
            questions.setdefault(current, []).append(cell.source)
        elif "%pip" not in cell.source and "VARIANT = " not in cell.source:
            setup.append("\n".join(line for line in cell.source.splitlines()
                                   if "otter.Notebook(" not in line))
    return "\n\n".join(setup), {q: tuple(cells) for q, cells in questions.items()}


def _combinations(spec: dict) -> list[dict]:
    """Every combination of a question's parameter choices, in a fixed order."""
    names = list(spec)
    return [dict(zip(names, values)) for values in itertools.product(*spec.values())]


def _grade_in_process(set_name: str, question: str, params: dict, replace=None,
                      cache=None) -> dict[str, tuple[bool, str]]:
    """Run the question's solution cells (``replace`` = (old, new) applied to them) in a fresh
    namespace holding the practice variant with ``params`` for ``question``, then the
    question's tests, each called with the solution's variables of its arguments' names.
    Return {test name: (hidden, failure message)} of the failing tests. A hidden test that
    does not read the parameters (no ``p = trusted_params``) and takes only the student's
    functions has the same outcome at every combination: ``cache`` keeps it after its first
    run."""
    from bookkit.assignments import DEMO_TERM_KEY, variant_spec
    from dpolearn.coursework import fingerprint, make_variant

    setup, questions = _set_cells(set_name)
    practice = make_variant(DEMO_TERM_KEY, "", set_name, variant_spec(set_name))["params"]
    variant = {"student": "", "set": set_name, "params": dict(practice, **{question: params})}
    issued = repr({"": fingerprint(variant)})   # a term without a roster: this variant only
    namespace: dict = {"VARIANT": variant, "P": variant["params"]}
    cells = questions[question]
    if replace is not None:
        assert sum(replace[0] in c for c in cells) == 1, f"{question}: {replace[0]!r}"
    cache = {} if cache is None else cache
    failures = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(setup, namespace)
        for source in cells:
            if "def test_" not in source and replace is None:
                exec(source, namespace)             # the solution runs without an error
                continue
            if "def test_" not in source:
                try:                                # a wrong answer's cell may raise, as in
                    exec(source.replace(*replace), namespace)   # a notebook: grading goes on
                except Exception:                   # (Otter runs every cell)
                    pass
                continue
            defined: dict = {}
            exec(source.replace("{{issued}}", issued), defined)
            (name, test), = ((n, f) for n, f in defined.items() if n.startswith("test_"))
            hidden = "hidden: true" in source
            fixed = hidden and "p = trusted_params" not in source and all(
                callable(namespace.get(a)) for a in inspect.signature(test).parameters
                if a != "VARIANT")
            if not (fixed and name in cache):
                try:                                # a variable the notebook lacks fails too
                    test(**{a: namespace[a] for a in inspect.signature(test).parameters})
                    outcome = None
                except Exception as error:    # Otter fails a test on any exception
                    outcome = f"{type(error).__name__}: {error}"
                if not fixed:
                    if outcome is not None:
                        failures[name] = (hidden, outcome)
                    continue
                cache[name] = outcome
            if cache[name] is not None:
                failures[name] = (hidden, cache[name])
    return failures


def _question_cases():
    """(set, question, combinations) of every parameterised question; the simulating ones
    twice: a spread of their combinations (fast) and all of them (slow)."""
    from bookkit.assignments import variant_spec

    cases = []
    for set_name in SETS:
        for question, spec in variant_spec(set_name).items():
            combos = _combinations(spec)
            if question in SIMULATING:
                step = max(1, (len(combos) - 1) // (SPREAD - 1))
                cases.append(pytest.param(set_name, question, combos[::step][:SPREAD],
                                          id=f"{question}-spread"))
                cases.append(pytest.param(set_name, question, combos, id=f"{question}-all",
                                          marks=pytest.mark.slow))
            else:
                cases.append(pytest.param(set_name, question, combos, id=question))
    return cases


@pytest.mark.parametrize(("set_name", "question", "combos"), _question_cases())
def test_every_parameter_combination_is_a_sound_exercise(set_name, question, combos,
                                                         monkeypatch):
    """For every combination of the question's choices (variants.yml) the solution passes all
    of the question's tests, and its wrong answer in WRONG_ANSWERS fails a hidden one: a
    choice that makes a combination ill-posed, or a test too tight for a correct answer, fails
    here, long before a student meets it."""
    from dpolearn.coursework import IDENTITY_VARIABLE

    monkeypatch.delenv(IDENTITY_VARIABLE, raising=False)
    wrong = [(old, new) for q, old, new in WRONG_ANSWERS[set_name] if q == question]
    caches = [{} for _ in range(len(wrong) + 1)]
    for params in combos:
        failures = _grade_in_process(set_name, question, params, cache=caches[0])
        assert not failures, f"{question} at {params}: the solution fails {failures}"
        for replace, cache in zip(wrong, caches[1:]):
            failures = _grade_in_process(set_name, question, params, replace, cache)
            assert any(hidden for hidden, _ in failures.values()), (
                f"{question} at {params}: the wrong answer {replace[1]!r} passes every hidden test")



def test_every_autograded_question_draws_its_parameters_per_student():
    """Every autograded question has per-student parameters (variants.yml), and nothing else
    does: a new autograded question must be parameterised too."""
    from bookkit.assignments import variant_spec

    for set_name in SETS:
        assert set(variant_spec(set_name)) == _autograded_questions(set_name), set_name


def _variants_table() -> str:
    """The table of every set's per-student parameters, as assignments/INSTRUCTORS.md shows it."""
    from bookkit.assignments import variant_spec

    def choice(value) -> str:
        return str(value) if isinstance(value, int) else f"{value:g}"

    rows = ["| set | question | parameters drawn per student: their choices |", "|---|---|---|"]
    for set_name in SETS:
        for question, spec in variant_spec(set_name).items():
            params = "; ".join(f"`{name}`: " + ", ".join(choice(v) for v in choices)
                               for name, choices in spec.items())
            rows.append(f"| {set_name[-1]} | {question} | {params} |")
    return "\n".join(rows) + "\n"


def test_instructors_notes_list_the_parameters_of_variants_yml():
    table = _variants_table()
    assert table in (ROOT / "assignments" / "INSTRUCTORS.md").read_text(), (
        "assignments/INSTRUCTORS.md does not show the parameters of variants.yml; "
        f"its table should read:\n{table}")


# -- the explanations that autograded questions ask for: parts of their own, graded by hand ----

#: An explanation part: the autograded question's name and "b" (q1_7 -> q1_7b).
EXPLANATION_PART = re.compile(r"(q\d+_\d+)b")
#: Words of a prompt that ask for written work.
ASKS_FOR_WRITING = re.compile(r"\bcomment\b|\bexplain\b|\bderive\b|on paper", re.IGNORECASE)


def _questions(text: str) -> list[tuple[dict, str]]:
    """(config, prompt) of every question of a set's source, in order; the prompt is the
    Markdown from the config to the question's first solution or test block."""
    questions = []
    for chunk in text.split("```otter\n# BEGIN QUESTION\n")[1:]:
        config = yaml.safe_load(chunk.split("```")[0])
        prompt = re.split(r"```otter\n# BEGIN (?:SOLUTION|TESTS)", chunk)[0]
        questions.append((dict(config, manual=bool(config.get("manual"))), prompt))
    return questions


def explanation_parts(text: str) -> dict[str, str]:
    """Explanation part -> the autograded question it explains, in the set's order."""
    return {c["name"]: EXPLANATION_PART.fullmatch(c["name"])[1] for c, _ in _questions(text)
            if EXPLANATION_PART.fullmatch(c["name"])}


def explanation_problems(text: str) -> list[str]:
    """What is wrong with the explanations of a set's source: an autograded question asking
    for a comment (which no test scores), or asking for written work without its
    hand-graded part right after it, or a prompt that does not point to that part."""
    problems = []
    questions = _questions(text)
    following = dict(zip((c["name"] for c, _ in questions), questions[1:]))
    for config, prompt in questions:
        name = config["name"]
        if config["manual"]:
            continue
        if "comment" in prompt.lower():
            problems.append(f"{name} asks for a comment: make it the hand-graded part {name}b")
        if ASKS_FOR_WRITING.search(prompt):
            part, _ = following.get(name, ({"name": None}, ""))
            if part["name"] != f"{name}b" or not part["manual"]:
                problems.append(f"{name} asks for written work: {name}b (by hand) must follow it")
            shown = "Question {}.{}b".format(*name[1:].split("_"))
            if shown not in prompt:
                problems.append(f"{name} must point to {shown}")
    return problems


@pytest.mark.parametrize("set_name", SETS)
def test_explanations_are_graded_parts_not_code_comments(set_name):
    """The explanations autograded questions ask for are parts graded by hand, with points."""
    text = (ROOT / "assignments" / set_name / f"{set_name}.md").read_text()
    assert explanation_parts(text), set_name
    assert explanation_problems(text) == []


def test_explanation_check_catches_a_comment_and_a_missing_part():
    old = ("```otter\n# BEGIN QUESTION\nname: q9_1\npoints: 2\n```\n\n## Question 9.1 ⌨\n\n"
           "Store `x`; explain in a comment why it is positive.\n\n"
           "```otter\n# BEGIN SOLUTION\n```\n")
    assert len(explanation_problems(old)) == 3        # a comment, no part, no pointer
    new = old.replace("explain in a comment", "explain in Question 9.1b below") + (
        "```otter\n# BEGIN QUESTION\nname: q9_1b\nmanual: true\npoints: 1\n```\n\n"
        "## Question 9.1b ✎\n\nWhy?\n\n```otter\n# BEGIN SOLUTION\n```\n")
    assert explanation_problems(new) == []
    assert explanation_parts(new) == {"q9_1b": "q9_1"}


def _points_table() -> str:
    """The table of every set's points, as assignments/INSTRUCTORS.md shows it."""
    rows = ["| set | autograded | explanations of autograded questions (by hand) | "
            "other questions by hand | total |", "|---|---|---|---|---|"]
    for set_name in SETS:
        text = (ROOT / "assignments" / set_name / f"{set_name}.md").read_text()
        parts = explanation_parts(text)
        configs = question_configs(set_name)
        auto = [c for c in configs if not c["manual"]]
        written = [c for c in configs if c["name"] in parts]
        other = [c for c in configs if c["manual"] and c["name"] not in parts]

        def points(chosen):
            return f"{sum(c['points'] for c in chosen):g}"
        rows.append(f"| {set_name[-1]} | {points(auto)} ({len(auto)} questions) | "
                    f"{points(written)} ({', '.join(parts)}) | "
                    f"{points(other)} ({len(other)} questions) | {points(configs)} |")
    return "\n".join(rows) + "\n"


def test_instructors_notes_show_the_points_of_every_set():
    table = _points_table()
    assert table in (ROOT / "assignments" / "INSTRUCTORS.md").read_text(), (
        "assignments/INSTRUCTORS.md does not show the sets' points; its table should read:\n"
        f"{table}")


# -- the questions graded by hand are variants of the book's exercises, not the exercises --------

def _book_text() -> str:
    """Every chapter of the book, whitespace normalised."""
    chapters = sorted((ROOT / "book").glob("*.md"))
    return " ".join(" ".join(path.read_text().split()) for path in chapters)


def verbatim_sentences(text: str, book: str, shortest: int = 40) -> list[str]:
    """The sentences (or lines) of ``text`` of at least ``shortest`` characters that the book
    contains word for word."""
    sentences = (" ".join(s.split()) for s in re.split(r"(?<=[.;:])\s+|\n", text))
    return [s for s in sentences if len(s) >= shortest and s in book]


def test_verbatim_scan_finds_a_copied_sentence():
    book = "Intro. The density of the difference is Laplace with the same scale b. End."
    copied = "First this. The density of the difference is Laplace with the same scale b."
    assert verbatim_sentences(copied, book) == [
        "The density of the difference is Laplace with the same scale b."]
    other = "The density of the sum is not Laplace at any scale b here."
    assert verbatim_sentences(other, book) == []


@pytest.mark.parametrize("set_name", SETS)
def test_written_questions_are_variants_of_their_exercises(set_name):
    """Every pen-and-paper question (✎, graded by hand; the explanation parts of autograded
    questions aside) cites the exercise it varies (a study's explanation varies with the
    student's own run), and neither its prompt nor its model answer repeats a sentence of the
    book, whose solutions are public."""
    book = _book_text()
    text = (ROOT / "assignments" / set_name / f"{set_name}.md").read_text()
    found = 0
    questions = _questions(text)
    studies = {config["name"] for config, _ in questions if config["name"].endswith("_study")}
    for config, prompt in questions:
        heading = re.search(r"^## (.*)$", prompt, re.M)[1]
        if not config["manual"] or "✎" not in heading or EXPLANATION_PART.fullmatch(config["name"]):
            continue
        found += 1
        # a study's explanation reads the student's own run (per-student parameters)
        if f"{config['name']}_study" not in studies:
            assert "(a variant of {{exercise:" in heading, f"{config['name']}: {heading}"
        chunk = text.split(f"name: {config['name']}\n", 1)[1]
        answer = re.search(r"\*\*Answer\.\*\* (.*?)\n\n```", chunk, re.S)[1]
        body = prompt.split(heading, 1)[1]
        copied = verbatim_sentences(body, book) + verbatim_sentences(answer, book)
        assert not copied, f"{config['name']} repeats the book: {copied}"
    assert found, set_name


# -- the simulation studies (assignments/set*/set*.md, q*_study): the numbers of the same study
#    run with another parameter (the chapter's seed, another epsilon or instance) pasted as the
#    reported numbers; each must lose its study's points, since they no longer match the study
#    the grader re-runs ------------------------------------------------------------------------
WRONG_ANSWERS["set2"] += [
    ("q2_5_study",
     "reported_2_5 = {key: rounded(value) for key, value in study_2_5.items()}",
     "reported_2_5 = {'alg3': (59.3, 5.78), 'current_n': (52.5, 13.5), 'frozen': (66.0, 9.52)}"),
    ("q2_9_study",
     "reported_2_9 = {key: rounded(value) for key, value in study_2_9.items()}",
     "reported_2_9 = {'max_mean_diff': 4.44e-16, 'DP-TS': (26.8, 2.32), 'Beta-TS': (24.1, 2.09)}"),
    ("q2_11_study",
     "reported_2_11 = {key: rounded(value) for key, value in study_2_11.items()}",
     "reported_2_11 = {('max', 0.25): (3440.0, 0.0), ('sum', 0.25): (4710.0, 124.0), "
     "('max', 1.0): (3130.0, 153.0), ('sum', 1.0): (3250.0, 177.0)}"),
    ("q2_12_study",
     "reported_2_12 = {key: rounded(value) for key, value in study_2_12.items()}",
     "reported_2_12 = {'ln': (339.0, 9.16), 'log2': (382.0, 3.13)}"),
    ("q2_13_study",
     "reported_2_13 = {key: rounded(value) for key, value in study_2_13.items()}",
     "reported_2_13 = {'0.0': (466.0, 24.4), '-inf': (466.0, 24.4), 'max_run_diff': 0.0}"),
]
WRONG_ANSWERS["set3"] += [
    ("q3_1_study",
     "reported_3_1 = {key: rounded(value) for key, value in study_3_1.items()}",
     "reported_3_1 = {'best': 'Lazy-DP-TS', 'fraction': 0.382, 'margin': 4.01}"),
    ("q3_2_study",
     "reported_3_2 = {key: rounded(value) for key, value in study_3_2.items()}",
     "reported_3_2 = {'Lazy-DP-TS': (555.0, 7.11), 'AdaP-KLUCB': (577.0, 5.14), "
     "'DP-SE': (675.0, 0.0)}"),
    ("q3_7_study",
     "reported_3_7 = {key: rounded(value, 4) for key, value in study_3_7.items()}",
     "reported_3_7 = {8: 5.282, 16: 5.29, 32: 5.34, 64: 5.396, 128: 5.442, 256: 5.453, "
     "512: 5.428, 1024: 5.432, 2048: 5.526, 4096: 5.7}"),
    ("q3_11_study",
     "reported_3_11 = {key: rounded(value) for key, value in study_3_11.items()}",
     "reported_3_11 = {'ratio_min': 1.0, 'ratio_max': 1170.0, 'departure': 1.76}"),
    ("q3_15_study",
     "reported_3_15 = {key: rounded(value) for key, value in study_3_15.items()}",
     "reported_3_15 = {'correct': (0.668, 'consistent'), 'broken': (1.37, 'VIOLATED')}"),
]
