#!/usr/bin/env python3
"""Write (or check) the paired ``book/<chapter>.ipynb`` of every notebook chapter in ``_toc.yml``.

Colab opens only ``.ipynb`` files from GitHub, and the book's Binder/Colab buttons point at
``book/<chapter>.ipynb`` when it exists, so these notebooks are committed. They are the public
edition of each chapter converted to plain Markdown and code by ``bookkit.notebook``
(solutions included, as "Solution to Exercise N" sections; no outputs). They are generated:
never edit them, edit the ``.md`` chapter and run

    make notebooks                  # or: .venv/bin/python -m bookkit.sync
    git add -f book/*.ipynb         # (.gitignore lists book/**/*.ipynb)

``--check`` only reports stale or missing notebooks (exit 1); ``tests/test_notebooks.py`` runs
the same check.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .book import ROOT, is_notebook_source, toc_files
from .notebook import convert_chapter, notebook_text


def paired_notebook(md: Path) -> str:
    """The committed twin of chapter ``md`` (public edition, no outputs), as JSON text."""
    return notebook_text(convert_chapter(md, "public"))


def notebook_chapters() -> list[Path]:
    """The ``.md`` sources in ``_toc.yml`` that are MyST notebooks."""
    paths = [ROOT / f"{f}.md" for f in toc_files()]
    return [p for p in paths if p.exists() and is_notebook_source(p)]


def stale() -> list[str]:
    """Chapters whose committed ``.ipynb`` is missing or differs from the generated one."""
    problems = []
    for md in notebook_chapters():
        ipynb = md.with_suffix(".ipynb")
        rel = ipynb.relative_to(ROOT)
        if not ipynb.exists():
            problems.append(f"{rel} is missing")
        elif ipynb.read_text(encoding="utf-8") != paired_notebook(md):
            problems.append(f"{rel} is out of date with {md.relative_to(ROOT)}")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="report stale notebooks, write nothing")
    args = parser.parse_args(argv)
    if args.check:
        problems = stale()
        print("\n".join(problems) or "all paired notebooks are in sync")
        return 1 if problems else 0
    for md in notebook_chapters():
        ipynb = md.with_suffix(".ipynb")
        text = paired_notebook(md)
        if not ipynb.exists() or ipynb.read_text(encoding="utf-8") != text:
            ipynb.write_text(text, encoding="utf-8")
            print(f"wrote {ipynb.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
