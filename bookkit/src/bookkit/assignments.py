#!/usr/bin/env python3
"""Build the autograded problem sets (``make assignments``).

For every set ``assignments/<set>/<set>.md`` (a jupytext MyST notebook in Otter-Grader's
assignment format) this script

1. replaces each ``{{exercise:<label>}}`` with the exercise's number and chapter as the book
   renders them (sphinx-exercise numbers exercises book-wide, in table-of-contents order), and
   ``{{repository_url}}``/``{{release_tag}}`` in the install cell with the book's release,
2. writes the source notebook ``_build/assignments/<set>/source/<set>.ipynb``,
3. runs ``otter assign`` on it (which also runs every test against the solutions), and
4. copies the two products next to each other:

   * ``_build/assignments/<set>/<set>.ipynb``: the student notebook (no solutions, public
     tests only, embedded in the notebook's metadata for ``grader.check``);
   * ``_build/assignments/<set>/<set>-autograder.zip``: the autograder with the hidden tests
     (``otter run -a <zip> <submission>.ipynb`` grades one submission, no Docker needed), the
     package's wheel and ``requirements.txt``, every package the grading needs pinned at the
     version this build ran with (:func:`pinned_requirements`); its ``environment.yml``
     installs both, so Gradescope's image and ``otter grade`` build from the zip alone;
   * ``_build/assignments/<set>/instructor/<set>-solution.ipynb``: the solution notebook.

``--sync-student`` also copies the student notebooks to ``assignments/student/<set>.ipynb``,
the committed copies that the book's Assignments page links for download (commit them after
changing a set; ``tests/test_assignments.py`` fails when they are stale).

Finally it writes the instructor bundle's tables: ``_build/assignments/EXPECTED.md``, the
expected outputs of the pen-and-paper questions (computed by the package, see
:mod:`bookkit.expected_outputs`), and ``_build/assignments/RUBRICS.md``, the rubric of every
hand-graded question (``assignments/rubrics.yml``). Every question's heading shows its points.

**Per-student variants.** The parameterised questions draw their parameters (the choices of
``assignments/<set>/variants.yml``) from the student's identity and the term's secret key
(``--term-key``, :func:`dpolearn.coursework.make_variant`). Every notebook stores its variant,
signed with an HMAC of the key, in its metadata and in its ``VARIANT`` cell; the hidden tests
(only in the autograder zip) hold the fingerprint of every issued variant, never the key: they
check the notebook's variant and student against it and recompute the expected answers from
those parameters; ``python -m bookkit.grade`` checks the HMAC itself. With ``--roster
roster.csv`` (a CSV with a ``student`` column) each student gets
``<out>/students/<student>/<set>.ipynb``; without one, the set's notebook is the variant of the
anonymous student ``""`` (one variant per key). The
default key is public (:data:`DEMO_TERM_KEY`): fine for the committed notebooks and practice,
useless for graded work.

**Checks that work anywhere.** The public tests are written into a cell of the student notebook
that saves them to a temporary folder, so ``grader.check`` needs neither the notebook's file
name nor a ``tests`` folder (Colab, JupyterLite, a renamed download).

Usage: ``python -m bookkit.assignments [--out DIR] [--sync-student] [--term-key KEY]
[--roster CSV] [set ...]``.
"""
from __future__ import annotations

import argparse
import ast
import copy
import csv
import math
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path

import jupytext
import nbformat
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from dpolearn.coursework import fingerprint, make_variant

from . import myst
from .book import ROOT, book_index  # the one numbering of the book
from .expected_outputs import write_expected

SETS = ("set1", "set2", "set3")
STUDENT_COPIES = ROOT / "assignments" / "student"
PLACEHOLDER = re.compile(r"\{\{exercise:([A-Za-z0-9_-]+)\}\}")
#: The term key of the committed notebooks: public, so their variant is for practice only.
DEMO_TERM_KEY = "dpolearn-public-practice-key"
#: A question's parameter in a Markdown cell: ``{{param:q1_3.k}}``.
PARAM = re.compile(r"\{\{param:(\w+)\.(\w+)\}\}")
#: The first line of the cell that holds a notebook's ``VARIANT``.
VARIANT_CELL = "# Your parameters:"
#: What grading installs besides the package (whose own dependencies are added).
GRADER_REQUIREMENTS = ("otter-grader[grading]",)
#: The package's files that its wheel is built from.
PACKAGE_FILES = ("pyproject.toml", "README.md", "LICENSE", "LICENSE-text", "dpolearn")
#: The rubrics of the hand-graded questions (instructors only).
RUBRICS = ROOT / "assignments" / "rubrics.yml"
#: A question's config block and the heading that follows it, in a set's source.
QUESTION_HEADING = re.compile(r"(```otter\n# BEGIN QUESTION\n(.*?)```\n\n## [^\n]*)", re.S)
#: ``{{reading:chapter,chapter}}``: the chapters (``book/<chapter>.md``) a set adds to read.
READING = re.compile(r"\{\{reading:([\w,]+)\}\}")
#: Words of a printed page of the book (its PDF: prose, formulas and code), for estimates.
WORDS_PER_PAGE = 285
#: Student identities usable as folder names (e-mail addresses included).
STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]*")


def exercise_numbers(root: Path = ROOT) -> dict[str, tuple[int, str]]:
    """Map each exercise label to (book-wide number, chapter title), as the book renders them
    (:meth:`bookkit.book.BookIndex.exercise_numbers`: sphinx-exercise numbers exercises with
    one counter over the whole book, in table-of-contents order)."""
    return book_index(root).exercise_numbers()


def release_fields(root: Path = ROOT) -> dict[str, str]:
    """``repository_url`` (``_config.yml``) and ``release_tag`` (``v`` + ``pyproject.toml``'s
    version): the student notebooks install the release they were built from."""
    import tomllib

    config = yaml.safe_load((root / "_config.yml").read_text())
    version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    return {"repository_url": config["repository"]["url"], "release_tag": f"v{version}"}


def fill_exercise_references(text: str, numbers: dict[str, tuple[int, str]]) -> str:
    """Replace ``{{exercise:<label>}}`` by "Exercise N in the chapter *title*"."""
    def replace(match: re.Match) -> str:
        label = match.group(1)
        if label not in numbers:
            raise KeyError(f"unknown exercise label {label!r} in an assignment")
        number, title = numbers[label]
        return f"Exercise {number} in the chapter *{title}*"

    return PLACEHOLDER.sub(replace, text)


QUESTION_CONFIG = "# BEGIN QUESTION"


def question_blocks(text: str) -> list[str]:
    """The YAML of every Otter question config of a set's source: the ```` ```otter ```` blocks
    that open with ``# BEGIN QUESTION`` (as :func:`bookkit.myst.read` reads the source)."""
    return ["\n".join(b.body[1:]) for b in myst.read(text).walk()
            if isinstance(b, myst.CodeBlock) and b.language == "otter"
            and b.body and b.body[0].strip() == QUESTION_CONFIG]


def question_configs(set_name: str) -> list[dict]:
    """The Otter question configs of one set (name, points, manual), in order."""
    text = (ROOT / "assignments" / set_name / f"{set_name}.md").read_text()
    configs = [yaml.safe_load(block) for block in question_blocks(text)]
    return [{"name": c["name"], "points": c.get("points", 1), "manual": bool(c.get("manual"))}
            for c in configs]


def points_summary(set_name: str) -> dict[str, int]:
    """Points and question counts of one set, split into autograded and hand-graded."""
    configs = question_configs(set_name)
    auto = [c for c in configs if not c["manual"]]
    manual = [c for c in configs if c["manual"]]
    return {"auto_points": sum(c["points"] for c in auto), "auto_questions": len(auto),
            "manual_points": sum(c["points"] for c in manual), "manual_questions": len(manual)}


def show_points(text: str) -> str:
    """Append each question's points to its heading ("· 4 points"), read from its config."""
    def replace(match: re.Match) -> str:
        config = yaml.safe_load(match.group(2).split("```")[0])
        points = config.get("points", 1)
        hand = ", graded by hand" if config.get("manual") else ""
        return f"{match.group(1)} · {points:g} point{'s' if points != 1 else ''}{hand}"

    return QUESTION_HEADING.sub(replace, text)


def rubrics() -> dict:
    """Question name -> its rubric: ``criteria`` (points, what earns them) and ``partial``."""
    raw = yaml.safe_load(RUBRICS.read_text())
    return {q: {"criteria": [tuple(c) for c in r["criteria"]], "partial": r.get("partial", "")}
            for q, r in raw.items()}


def rubrics_markdown() -> str:
    """The rubrics of every hand-graded question of every set, in order, as Markdown."""
    table = rubrics()
    lines = ["# Rubrics of the hand-graded questions (instructors only)", "",
             "Full credit on a criterion: what it says. Partial credit: the line below each "
             "question. Do not hand this to students.", ""]
    for set_name in SETS:
        for config in question_configs(set_name):
            if not config["manual"]:
                continue
            rubric = table[config["name"]]
            lines += [f"## {config['name']} ({config['points']:g} points)", ""]
            lines += [f"* **{points:g}** — {what}" for points, what in rubric["criteria"]]
            lines += ["", f"*Partial credit:* {rubric['partial']}", ""]
    return "\n".join(lines)


def reading_estimate(chapters: list[str], root: Path = ROOT) -> str:
    """"the chapters a, b (about N pages)": N from the chapters' word counts."""
    words = sum(len((root / "book" / f"{c}.md").read_text().split()) for c in chapters)
    doc_titles = book_index(root).doc_titles
    titles = ", ".join(f"*{doc_titles[f'book/{c}']}*" for c in chapters)
    return f"the chapters {titles} (about {round(words / WORDS_PER_PAGE, -1):.0f} pages)"


def variant_spec(set_name: str) -> dict:
    """The parameter choices of one set's parameterised questions (``variants.yml``)."""
    path = ROOT / "assignments" / set_name / "variants.yml"
    return yaml.safe_load(path.read_text()) if path.exists() else {}


def read_roster(path: Path) -> list[str]:
    """The student identities of a roster CSV (its ``student`` column), in order."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "student" not in rows[0]:
        raise ValueError(f"roster {path} needs a 'student' column and at least one row")
    students = [row["student"].strip() for row in rows]
    bad = [s for s in students if not STUDENT_ID.fullmatch(s)]
    if bad:
        raise ValueError(f"roster {path}: student identities must match {STUDENT_ID.pattern}, "
                         f"got {bad}")
    if len(set(students)) != len(students):
        raise ValueError(f"roster {path}: duplicate students")
    return students


def variant_source(variant: dict) -> str:
    """The ``VARIANT`` cell of a notebook holding ``variant``."""
    return (f"{VARIANT_CELL} the questions marked \"your parameters\" use these numbers, drawn "
            "for you.\n# Do not edit this cell: the grader checks its signature and grades with "
            f"your parameters.\nVARIANT = {variant!r}\nP = VARIANT[\"params\"]")


def math_number(value) -> str:
    """A parameter as the prompts' LaTeX shows it: ``2000000``, ``0.25``, ``10^{-6}``."""
    if isinstance(value, int):
        return str(value)
    exponent = round(math.log10(value)) if value > 0 else None
    if exponent is not None and exponent <= -3 and math.isclose(value, 10.0 ** exponent):
        return f"10^{{{exponent}}}"
    return f"{value:g}"


def personalise(nb: nbformat.NotebookNode, variant: dict) -> nbformat.NotebookNode:
    """A copy of ``nb`` for one variant: its parameters in the Markdown, the ``VARIANT`` cell and
    the notebook's metadata (``dpolearn.variant``)."""
    nb = copy.deepcopy(nb)
    params = variant["params"]
    cells = [c for c in nb.cells if c.cell_type == "code" and "VARIANT = " in c.source]
    if len(cells) != 1:
        raise ValueError(f"expected one VARIANT cell, found {len(cells)}")
    cells[0].source = variant_source(variant)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = PARAM.sub(lambda m: math_number(params[m.group(1)][m.group(2)]),
                                    cell.source)
    nb.metadata["dpolearn"] = {"variant": variant}
    return nb


def _string_literal(text: str) -> str:
    """``text`` as a readable triple-quoted Python literal."""
    literal = '"""' + text.replace("\\", "\\\\").replace('"""', '\\"""') + '"""'
    if ast.literal_eval(literal) != text:
        raise ValueError(f"cannot quote this test as a literal: {text[:80]!r}")
    return literal


def embed_public_checks(nb: nbformat.NotebookNode, set_name: str) -> nbformat.NotebookNode:
    """Move the public tests from the notebook's metadata into a cell that writes them to a
    temporary folder and points ``grader`` there, so checks work under any file name and where
    the notebook is not a file (Colab)."""
    nb = copy.deepcopy(nb)
    otter_meta = nb.metadata.get("otter", {})
    tests = otter_meta.pop("tests", {})
    otter_meta.pop("OK_FORMAT", None)     # Otter requires both or neither
    setup = [c for c in nb.cells if c.cell_type == "code" and "otter.Notebook(" in c.source]
    if len(setup) != 1 or not tests:
        raise ValueError(f"{set_name}: expected one otter.Notebook cell and public tests")
    setup[0].source = "\n".join(line for line in setup[0].source.splitlines()
                                if "otter.Notebook(" not in line).rstrip()
    entries = "".join(f"    {name!r}: {_string_literal(text)},\n"
                      for name, text in sorted(tests.items()))
    source = ("# The public checks of this set (grader.check), written to a temporary folder so "
              "that they run\n# in Colab, JupyterLite and under any file name. Do not edit.\n"
              "import pathlib\nimport tempfile\n\n"
              f"_checks = pathlib.Path(tempfile.mkdtemp(prefix=\"{set_name}-checks-\"))\n"
              f"for _name, _text in {{\n{entries}}}.items():\n"
              "    (_checks / f\"{_name}.py\").write_text(_text)\n"
              "grader = otter.Notebook(tests_dir=str(_checks))")
    nb.cells.insert(nb.cells.index(setup[0]) + 1, nbformat.v4.new_code_cell(source))
    return nb


def source_notebook(set_name: str, numbers, term_key: str = DEMO_TERM_KEY,
                    students: tuple[str, ...] = ()) -> nbformat.NotebookNode:
    """The Otter source notebook of one set, with exercise references, the release, the
    fingerprints of the issued variants (hidden tests only) and the anonymous student's variant
    (the solution's) filled in."""
    text = (ROOT / "assignments" / set_name / f"{set_name}.md").read_text()
    for field, value in release_fields().items():
        text = text.replace("{{" + field + "}}", value)
    spec = variant_spec(set_name)
    issued = {student: fingerprint(make_variant(term_key, student, set_name, spec))
              for student in ("", *students)}  # "": the solution's (and practice) variant
    text = text.replace("{{issued}}", repr(issued))
    text = READING.sub(lambda m: reading_estimate(m.group(1).split(",")), text)
    text = text.replace("{{variant}}", repr(make_variant(term_key, "", set_name, spec)))
    return jupytext.reads(fill_exercise_references(show_points(text), numbers), fmt="md:myst")


def pinned_requirements(roots=("dpolearn", *GRADER_REQUIREMENTS)) -> list[str]:
    """``name==version`` for every package the ``roots`` need (their dependencies, followed
    through the installed distributions' metadata with their environment markers), at the
    versions installed here; the package ``dpolearn`` itself is left out (its wheel ships)."""
    pins: dict[str, str] = {}
    todo = [Requirement(r) for r in roots]
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        extras = set(req.extras)
        key = f"{name}[{','.join(sorted(extras))}]"
        if key in pins:
            continue
        dist = metadata.distribution(req.name)
        pins[key] = dist.version
        for text in dist.requires or []:
            dep = Requirement(text)
            if dep.marker is None or any(dep.marker.evaluate({"extra": e})
                                         for e in (extras or {""})):
                todo.append(dep)
    versions = {}
    for key, version in pins.items():
        versions.setdefault(key.split("[")[0], version)
    versions.pop("dpolearn", None)
    return [f"{name}=={version}" for name, version in sorted(versions.items())]


def build_wheel(dest: Path) -> Path:
    """The package's wheel, built from a copy of its files (nothing written to the tree)."""
    with tempfile.TemporaryDirectory() as tmp:
        for name in PACKAGE_FILES:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, Path(tmp) / name,
                                ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy(source, Path(tmp) / name)
        proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                               "--no-build-isolation", "-w", str(dest), tmp],
                              capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"building the dpolearn wheel failed:\n{proc.stderr[-3000:]}")
    wheels = sorted(dest.glob("dpolearn-*.whl"))
    if len(wheels) != 1:
        raise RuntimeError(f"expected one dpolearn wheel in {dest}, found {wheels}")
    return wheels[0]


def complete_autograder(zip_path: Path, wheel: Path, requirements: list[str]) -> None:
    """Add the wheel and the pinned ``requirements.txt`` to an Otter autograder zip and make its
    ``environment.yml`` (this Python's version) install them."""
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    environment = {"name": "otter-env", "channels": ["conda-forge"],
                   "dependencies": [f"python={python}", "pip",
                                    {"pip": ["-r /autograder/source/requirements.txt",
                                             f"/autograder/source/{wheel.name}"]}]}
    with zipfile.ZipFile(zip_path) as zf:
        entries = {info.filename: zf.read(info) for info in zf.infolist()
                   if info.filename not in ("environment.yml", "requirements.txt")}
    entries["environment.yml"] = yaml.safe_dump(environment, sort_keys=False).encode()
    entries["requirements.txt"] = ("# Pinned by bookkit.assignments from the build's "
                                   "environment; the package is the wheel beside this file.\n"
                                   + "\n".join(requirements) + "\n").encode()
    entries[wheel.name] = wheel.read_bytes()
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)


def build_set(set_name: str, out: Path, numbers, term_key: str = DEMO_TERM_KEY,
              students: tuple[str, ...] = (), wheel: Path | None = None,
              requirements: list[str] | None = None) -> Path:
    """Run ``otter assign`` for one set; return the set's output directory."""
    target = out / set_name
    if target.exists():
        shutil.rmtree(target)
    (target / "source").mkdir(parents=True)
    master = target / "source" / f"{set_name}.ipynb"
    nbformat.write(source_notebook(set_name, numbers, term_key, students), master)
    otter = Path(sys.executable).with_name("otter")
    proc = subprocess.run([str(otter) if otter.exists() else "otter", "assign", "--no-pdfs",
                           str(master), str(target / "dist")], check=False, cwd=ROOT,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"otter assign failed for {set_name}:\n{proc.stdout[-6000:]}\n"
                           f"{proc.stderr[-3000:]}")
    spec = variant_spec(set_name)
    template = embed_public_checks(
        nbformat.read(target / "dist" / "student" / f"{set_name}.ipynb", as_version=4), set_name)
    nbformat.write(personalise(template, make_variant(term_key, "", set_name, spec)),
                   target / f"{set_name}.ipynb")
    for student in students:
        (out / "students" / student).mkdir(parents=True, exist_ok=True)
        nbformat.write(personalise(template, make_variant(term_key, student, set_name, spec)),
                       out / "students" / student / f"{set_name}.ipynb")
    zips = sorted((target / "dist" / "autograder").glob("*.zip"))
    if len(zips) != 1:
        raise RuntimeError(f"expected one autograder zip for {set_name}, found {zips}")
    shutil.copy(zips[0], target / f"{set_name}-autograder.zip")
    if wheel is not None:
        complete_autograder(target / f"{set_name}-autograder.zip", wheel,
                            requirements if requirements is not None else pinned_requirements())
    (target / "instructor").mkdir()
    solution = nbformat.read(target / "dist" / "autograder" / f"{set_name}.ipynb", as_version=4)
    nbformat.write(personalise(solution, make_variant(term_key, "", set_name, spec)),
                   target / "instructor" / f"{set_name}-solution.ipynb")
    return target


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", default=list(SETS))
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "assignments")
    parser.add_argument("--sync-student", action="store_true",
                        help="copy the student notebooks to assignments/student/ (committed)")
    parser.add_argument("--term-key", default=DEMO_TERM_KEY,
                        help="the term's secret key (default: the public practice key)")
    parser.add_argument("--roster", type=Path,
                        help="CSV with a 'student' column: one notebook per student")
    parser.add_argument("--jobs", type=int, default=len(SETS),
                        help="sets built at once (otter assign mostly waits on its kernel)")
    args = parser.parse_args(argv)
    unknown = [s for s in args.sets if s not in SETS]
    if unknown:
        parser.error(f"unknown set(s) {unknown}; choose from {SETS}")
    if args.jobs < 1:
        parser.error(f"--jobs must be >= 1, got {args.jobs}")
    if not args.term_key:
        parser.error("--term-key must not be empty")
    students = tuple(read_roster(args.roster)) if args.roster else ()
    numbers = exercise_numbers()
    args.out.mkdir(parents=True, exist_ok=True)
    wheels = args.out / "wheel"
    shutil.rmtree(wheels, ignore_errors=True)
    wheel = build_wheel(wheels)
    requirements = pinned_requirements()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        targets = list(pool.map(
            lambda s: build_set(s, args.out, numbers, args.term_key, students, wheel,
                                requirements), args.sets))
    for set_name, target in zip(args.sets, targets):
        if args.sync_student:
            STUDENT_COPIES.mkdir(exist_ok=True)
            shutil.copy(target / f"{set_name}.ipynb", STUDENT_COPIES / f"{set_name}.ipynb")
        print(f"{set_name}: {target / (set_name + '.ipynb')}, "
              f"{target / (set_name + '-autograder.zip')}")
    write_expected(args.out / "EXPECTED.md")
    (args.out / "RUBRICS.md").write_text(rubrics_markdown())
    print(f"expected outputs: {args.out / 'EXPECTED.md'}; rubrics: {args.out / 'RUBRICS.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
