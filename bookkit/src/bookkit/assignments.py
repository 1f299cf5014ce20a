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
     (``otter run -a <zip> <submission>.ipynb`` grades one submission, no Docker needed);
   * ``_build/assignments/<set>/instructor/<set>-solution.ipynb``: the solution notebook.

``--sync-student`` also copies the student notebooks to ``assignments/student/<set>.ipynb``,
the committed copies that the book's Assignments page links for download (commit them after
changing a set; ``tests/test_assignments.py`` fails when they are stale).

Finally it writes ``_build/assignments/EXPECTED.md``, the expected outputs of the pen-and-paper
questions (computed by the package, see :mod:`bookkit.expected_outputs`).

Usage: ``python -m bookkit.assignments [--out DIR] [--sync-student] [set ...]``.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jupytext
import nbformat
import yaml

from . import myst
from .book import ROOT, book_index  # the one numbering of the book
from .expected_outputs import write_expected

SETS = ("set1", "set2", "set3")
STUDENT_COPIES = ROOT / "assignments" / "student"
PLACEHOLDER = re.compile(r"\{\{exercise:([A-Za-z0-9_-]+)\}\}")


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


def source_notebook(set_name: str, numbers) -> nbformat.NotebookNode:
    """The Otter source notebook of one set, with exercise references filled in."""
    text = (ROOT / "assignments" / set_name / f"{set_name}.md").read_text()
    for field, value in release_fields().items():
        text = text.replace("{{" + field + "}}", value)
    return jupytext.reads(fill_exercise_references(text, numbers), fmt="md:myst")


def build_set(set_name: str, out: Path, numbers) -> Path:
    """Run ``otter assign`` for one set; return the set's output directory."""
    target = out / set_name
    if target.exists():
        shutil.rmtree(target)
    (target / "source").mkdir(parents=True)
    master = target / "source" / f"{set_name}.ipynb"
    nbformat.write(source_notebook(set_name, numbers), master)
    otter = Path(sys.executable).with_name("otter")
    proc = subprocess.run([str(otter) if otter.exists() else "otter", "assign", "--no-pdfs",
                           str(master), str(target / "dist")], check=False, cwd=ROOT,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"otter assign failed for {set_name}:\n{proc.stdout[-6000:]}\n"
                           f"{proc.stderr[-3000:]}")
    shutil.copy(target / "dist" / "student" / f"{set_name}.ipynb", target / f"{set_name}.ipynb")
    zips = sorted((target / "dist" / "autograder").glob("*.zip"))
    if len(zips) != 1:
        raise RuntimeError(f"expected one autograder zip for {set_name}, found {zips}")
    shutil.copy(zips[0], target / f"{set_name}-autograder.zip")
    (target / "instructor").mkdir()
    shutil.copy(target / "dist" / "autograder" / f"{set_name}.ipynb",
                target / "instructor" / f"{set_name}-solution.ipynb")
    return target


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", default=list(SETS))
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "assignments")
    parser.add_argument("--sync-student", action="store_true",
                        help="copy the student notebooks to assignments/student/ (committed)")
    parser.add_argument("--jobs", type=int, default=len(SETS),
                        help="sets built at once (otter assign mostly waits on its kernel)")
    args = parser.parse_args(argv)
    unknown = [s for s in args.sets if s not in SETS]
    if unknown:
        parser.error(f"unknown set(s) {unknown}; choose from {SETS}")
    if args.jobs < 1:
        parser.error(f"--jobs must be >= 1, got {args.jobs}")
    numbers = exercise_numbers()
    args.out.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        targets = list(pool.map(lambda s: build_set(s, args.out, numbers), args.sets))
    for set_name, target in zip(args.sets, targets):
        if args.sync_student:
            STUDENT_COPIES.mkdir(exist_ok=True)
            shutil.copy(target / f"{set_name}.ipynb", STUDENT_COPIES / f"{set_name}.ipynb")
        print(f"{set_name}: {target / (set_name + '.ipynb')}, "
              f"{target / (set_name + '-autograder.zip')}")
    write_expected(args.out / "EXPECTED.md")
    print(f"expected outputs: {args.out / 'EXPECTED.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
