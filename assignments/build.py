#!/usr/bin/env python3
"""Build the autograded problem sets (``make assignments``).

For every set ``assignments/<set>/<set>.md`` (a jupytext MyST notebook in Otter-Grader's
assignment format) this script

1. replaces each ``{{exercise:<label>}}`` with the exercise's number and chapter as the book
   renders them (sphinx-exercise numbers exercises book-wide, in table-of-contents order),
2. writes the source notebook ``_build/assignments/<set>/source/<set>.ipynb``,
3. runs ``otter assign`` on it (which also runs every test against the solutions), and
4. copies the two products next to each other:

   * ``_build/assignments/<set>/<set>.ipynb``: the student notebook (no solutions, public
     tests only, embedded in the notebook's metadata for ``grader.check``);
   * ``_build/assignments/<set>/<set>-autograder.zip``: the autograder with the hidden tests
     (``otter run -a <zip> <submission>.ipynb`` grades one submission, no Docker needed);
   * ``_build/assignments/<set>/instructor/<set>-solution.ipynb``: the solution notebook.

Finally it writes ``_build/assignments/EXPECTED.md``, the expected outputs of the pen-and-paper
questions (computed by the package, see ``expected_outputs.py``).

Usage: ``python assignments/build.py [--out DIR] [set ...]``.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
SETS = ("set1", "set2", "set3")
PLACEHOLDER = re.compile(r"\{\{exercise:([A-Za-z0-9_-]+)\}\}")
EXERCISE_START = re.compile(r"^```\{exercise(?:-start)?\}\s*$")
LABEL = re.compile(r"^:label:\s*(\S+)\s*$")


def toc_documents(toc_path: Path = ROOT / "_toc.yml") -> list[str]:
    """Every document of ``_toc.yml`` (root first), without suffix, in reading order."""
    toc = yaml.safe_load(toc_path.read_text())
    files = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for key in ("parts", "chapters", "sections"):
                walk(node.get(key) or [])
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(toc)
    return files


def chapter_title(path: Path) -> str:
    """The first level-1 heading of a chapter."""
    for line in path.read_text().splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    raise ValueError(f"no title in {path}")


def exercise_numbers(root: Path = ROOT) -> dict[str, tuple[int, str]]:
    """Map each exercise label to (book-wide number, chapter title).

    sphinx-exercise numbers exercises with one counter over the whole book (the table of
    contents is not numbered), in document order; both the ``exercise`` and the gated
    ``exercise-start`` forms count.
    """
    numbers: dict[str, tuple[int, str]] = {}
    count = 0
    for doc in toc_documents(root / "_toc.yml"):
        path = root / f"{doc}.md"
        if not path.exists():
            continue
        lines = path.read_text().splitlines()
        title = chapter_title(path)
        for i, line in enumerate(lines):
            if EXERCISE_START.match(line):
                count += 1
                for following in lines[i + 1:i + 6]:
                    match = LABEL.match(following)
                    if match:
                        numbers[match.group(1)] = (count, title)
                        break
    return numbers


def fill_exercise_references(text: str, numbers: dict[str, tuple[int, str]]) -> str:
    """Replace ``{{exercise:<label>}}`` by "Exercise N in the chapter *title*"."""
    def replace(match: re.Match) -> str:
        label = match.group(1)
        if label not in numbers:
            raise KeyError(f"unknown exercise label {label!r} in an assignment")
        number, title = numbers[label]
        return f"Exercise {number} in the chapter *{title}*"

    return PLACEHOLDER.sub(replace, text)


def source_notebook(set_name: str, numbers) -> nbformat.NotebookNode:
    """The Otter source notebook of one set, with exercise references filled in."""
    text = (ROOT / "assignments" / set_name / f"{set_name}.md").read_text()
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
    subprocess.run([str(otter) if otter.exists() else "otter", "assign", "--no-pdfs",
                    str(master), str(target / "dist")], check=True, cwd=ROOT)
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
    args = parser.parse_args(argv)
    numbers = exercise_numbers()
    args.out.mkdir(parents=True, exist_ok=True)
    for set_name in args.sets:
        if set_name not in SETS:
            parser.error(f"unknown set {set_name!r}; choose from {SETS}")
        target = build_set(set_name, args.out, numbers)
        print(f"{set_name}: {target / (set_name + '.ipynb')}, {target / (set_name + '-autograder.zip')}")
    sys.path.insert(0, str(Path(__file__).parent))
    from expected_outputs import write_expected  # noqa: E402

    write_expected(args.out / "EXPECTED.md")
    print(f"expected outputs: {args.out / 'EXPECTED.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
