#!/usr/bin/env python3
"""Editions of the book from one source: public (solutions in dropdowns), student (no solutions)
and the instructor kit (solution notebooks).

    python tools/editions.py student      # source tree + HTML + notebooks under _build/student/
    python tools/editions.py instructor   # solution notebooks under _build/instructor-kit/

The student edition is made at the source level. :func:`strip_solutions` removes every solution
from a chapter, in both forms the chapters use:

* a ``{solution}`` directive (its whole fenced block), and
* the gated form, ``{solution-start}`` ... ``{solution-end}``, together with everything in
  between: prose *and* the code cells (so their code and outputs never reach the page).

:func:`write_source_tree` writes the stripped chapters with the book's ``_toc.yml``, a
``_config.yml`` for the edition (launch buttons and repository links off unless a repository
that holds the student edition is given, since they lead to the public notebooks) and links
to ``dpolearn/`` (for ``{literalinclude}``) and the book's extension and offline assets;
:func:`build` runs Jupyter Book on it (``-W -n --keep-going --all``, scale from
``DPOLEARN_SCALE``, default quick). The book extension then replaces each page's ".ipynb"
download with the plain-Markdown notebook of the same edition (``tools/myst_to_notebook.py``),
and the same notebooks are written to ``_build/student/notebooks/``.

Removing solutions does not renumber anything: solutions carry no number of their own.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from bookkit.myst import Directive, read

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tools") not in sys.path:
    sys.path.insert(0, str(ROOT / "tools"))

EDITIONS = ("public", "instructor", "student")
STUDENT_OUT = ROOT / "_build" / "student"
INSTRUCTOR_OUT = ROOT / "_build" / "instructor-kit"

#: Top-level entries of the repository that an edition's source tree does not link.
NOT_LINKED = {"book", "_build", "_config.yml", "_toc.yml", "results", "dpolearn.egg-info"}


@dataclass
class Solution:
    """One solution removed from a chapter."""

    exercise: str          # label of the exercise it answers (the directive's argument)
    form: str              # "directive" ({solution}) or "gated" ({solution-start}, -end)
    source: str            # the removed source, prose and code cells
    label: Optional[str] = None   # its own :label:, if it has one


@dataclass
class Stripped:
    """A chapter without its solutions."""

    text: str
    removed: list = field(default_factory=list)


def strip_solutions(text: str) -> Stripped:
    """Remove every solution (both forms, with the code cells of the gated form) from ``text``.

    The solutions are the top-level ``{solution}`` and ``{solution-start}`` directives of the
    chapter as MyST reads it (:func:`bookkit.myst.read`); a gated solution runs up to and
    including the next top-level ``{solution-end}``. References to a removed solution's own
    label become plain text, so the edition still builds under ``-W``.
    """
    lines = text.split("\n")
    blocks = read(text).blocks
    kept: list[str] = []
    removed: list[Solution] = []
    done = 0                              # lines[:done] are kept or removed
    k = 0
    while k < len(blocks):
        block = blocks[k]
        if not (isinstance(block, Directive) and block.name in ("solution", "solution-start")):
            k += 1
            continue
        last = block
        form = "directive"
        if block.name == "solution-start":
            form = "gated"
            # Everything up to and including the {solution-end} directive.
            k = next((j for j in range(k + 1, len(blocks)) if isinstance(blocks[j], Directive)
                      and blocks[j].name == "solution-end"), None)
            if k is None:
                raise ValueError(f"{{solution-start}} {block.arg} at line {block.line} "
                                 "has no {solution-end}")
            last = blocks[k]
        kept += lines[done:block.line - 1]
        removed.append(Solution(block.arg, form, "\n".join(lines[block.line - 1:last.end]),
                                block.options.get("label") or None))
        done = last.end
        # drop the blank lines (and a jupytext cell break) the block leaves behind
        while done < len(lines) and lines[done].strip() == "" and kept and kept[-1].strip() == "":
            done += 1
        k += 1
    kept += lines[done:]
    out = "\n".join(kept)
    for sol in removed:
        if sol.label:
            out = re.sub(r"\{(?:ref|numref)\}`(?:([^`<]*?)\s*<)?" + re.escape(sol.label) + r">?`",
                         lambda mm: mm.group(1) or "the solution", out)
    return Stripped(out, removed)


def solutions_of(text: str) -> list[Solution]:
    """The solutions of a chapter (what :func:`strip_solutions` removes)."""
    return strip_solutions(text).removed


# ----------------------------------------------------------------------------- source tree

def _toc_chapters(root: Path = ROOT) -> list[Path]:
    from myst_to_notebook import toc_files

    return [root / f"{doc}.md" for doc in toc_files(root / "_toc.yml")
            if (root / f"{doc}.md").exists()]


def edition_config(edition: str, config: dict, repository_url: Optional[str] = None,
                   site_url: Optional[str] = None) -> dict:
    """The ``_config.yml`` of ``edition``, derived from the public one (``config``).

    Student edition: the theme's launch buttons (Binder, Colab, Thebe) and repository links
    open ``book/<page>.ipynb`` and ``.md`` sources of the *public* repository, which hold the
    solutions, so they are switched off unless ``repository_url`` names a repository that
    publishes the student edition. ``site_url`` (``html.baseurl``) is where the student site
    will live; cross-references in its notebooks link there, or are plain text without it.
    """
    import copy

    if edition not in EDITIONS:
        raise ValueError(f"edition must be one of {EDITIONS}, got {edition!r}")
    cfg = copy.deepcopy(config)
    if edition == "public":
        return cfg
    cfg["title"] = f"{cfg.get('title', 'dpolearn')} ({edition} edition)"
    sphinx_cfg = cfg.setdefault("sphinx", {}).setdefault("config", {})
    sphinx_cfg["dpolearn_edition"] = edition
    html = cfg.setdefault("html", {})
    html.pop("baseurl", None)
    if site_url:
        html["baseurl"] = site_url
    if repository_url:
        cfg.setdefault("repository", {})["url"] = repository_url
    else:
        cfg["launch_buttons"] = {"binderhub_url": "", "colab_url": "", "jupyterhub_url": "",
                                 "thebe": False}
        html["use_repository_button"] = False
        html["use_edit_page_button"] = False
        html["use_issues_button"] = False
    return cfg


def _link(target: Path, link: Path) -> None:
    if link.is_symlink() or link.exists():
        if link.is_dir() and not link.is_symlink():
            shutil.rmtree(link)
        else:
            link.unlink()
    link.symlink_to(target, target_is_directory=target.is_dir())


def write_source_tree(edition: str = "student", out: Path = STUDENT_OUT,
                      repository_url: Optional[str] = None,
                      site_url: Optional[str] = None) -> Path:
    """Write ``out/src``: the book's source tree for ``edition``; returns its path."""
    import yaml

    src = out / "src"
    if src.exists():
        shutil.rmtree(src)
    (src / "book").mkdir(parents=True)
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    (src / "_config.yml").write_text(
        "# Generated by tools/editions.py from the repository's _config.yml; do not edit.\n"
        + yaml.safe_dump(edition_config(edition, config, repository_url, site_url),
                         sort_keys=False, allow_unicode=True), encoding="utf-8")
    shutil.copy2(ROOT / "_toc.yml", src / "_toc.yml")
    # Chapters include and link files outside book/ ({literalinclude} ../dpolearn/...,
    # {download} ../assignments/...): the rest of the repository is linked in unchanged.
    for item in ROOT.iterdir():
        if item.name.startswith(".") or item.name in NOT_LINKED:
            continue
        _link(item, src / item.name)
    for item in (ROOT / "book").iterdir():
        dest = src / "book" / item.name
        if item.suffix == ".ipynb":
            continue                                      # public twins: not in this edition
        if item.suffix == ".md":
            text = item.read_text(encoding="utf-8")
            if edition == "student":
                text = strip_solutions(text).text
            dest.write_text(text, encoding="utf-8")
        else:
            _link(item, dest)
    return src


def write_notebooks(edition: str, dest: Path, root: Path = ROOT,
                    site_url: Optional[str] = None) -> list[Path]:
    """Write the plain-Markdown notebook of every chapter for ``edition`` into ``dest``."""
    from myst_to_notebook import convert_chapter, is_notebook_source, notebook_text

    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for md in _toc_chapters(root):
        if not is_notebook_source(md):
            continue
        nb = convert_chapter(md, edition, root=root, site_url=site_url)
        path = dest / f"{md.stem}.ipynb"
        path.write_text(notebook_text(nb), encoding="utf-8")
        written.append(path)
    return written


def build(src: Path, out: Path, scale: Optional[str] = None, timeout: float = 60 * 60) -> int:
    """Run Jupyter Book on the source tree ``src`` into ``out/_build/html``; returns its exit
    code."""
    env = dict(os.environ, DPOLEARN_SCALE=scale or os.environ.get("DPOLEARN_SCALE", "quick"),
               DPOLEARN_PROGRESS="0")
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(exe) if exe.exists() else "jupyter-book", "build", str(src), "--all", "-W", "-n",
           "--keep-going", "--path-output", str(out)]
    reports = out / "_build" / "html" / "reports"
    for old in reports.glob("*.err.log") if reports.exists() else []:
        old.unlink()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, timeout=timeout)
    if proc.returncode != 0:
        for log in sorted(reports.glob("*.err.log")) if reports.exists() else []:
            print(f"=== {log} ===\n{log.read_text(errors='replace')}", file=sys.stderr)
    return proc.returncode


def make_student(out: Path = STUDENT_OUT, build_html: bool = True,
                 repository_url: Optional[str] = None, site_url: Optional[str] = None) -> int:
    """``make student-book``: source tree, HTML and student notebooks under ``out``."""
    src = write_source_tree("student", out, repository_url, site_url)
    notebooks = write_notebooks("student", out / "notebooks", site_url=site_url)
    print(f"student source: {src.relative_to(ROOT)}; {len(notebooks)} notebooks in "
          f"{(out / 'notebooks').relative_to(ROOT)}")
    if repository_url:               # launch buttons open book/<page>.ipynb of that repository
        for nb in notebooks:
            shutil.copy2(nb, src / "book" / nb.name)
    if not build_html:
        return 0
    rc = build(src, out)
    html = out / "_build" / "html" / "index.html"
    if rc == 0 and html.exists():
        print(f"student edition: {html.relative_to(ROOT)}")
    return rc if rc else (0 if html.exists() else 1)


def make_instructor(out: Path = INSTRUCTOR_OUT) -> int:
    """``make instructor-kit``: one solution notebook per chapter under ``out``."""
    notebooks = write_notebooks("instructor", out)
    lines = ["# dpolearn instructor kit", "",
             "Solution notebooks, one per chapter: the chapter as plain Markdown and code, with",
             "every exercise followed by its solution (prose and code). Generated by",
             "`make instructor-kit` from the chapters; the student edition (`make student-book`)",
             "has the same exercises and no solutions.", ""]
    lines += [f"- [{p.stem}]({p.name})" for p in notebooks]
    (out / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"instructor kit: {len(notebooks)} notebooks in {out.relative_to(ROOT)}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("edition", choices=("student", "instructor"))
    parser.add_argument("--no-build", action="store_true",
                        help="student: write the source tree and notebooks only")
    parser.add_argument("--repository-url", default=os.environ.get("DPOLEARN_STUDENT_REPOSITORY"),
                        help="student: a repository publishing the student edition (enables "
                             "launch buttons, which open its book/<page>.ipynb)")
    parser.add_argument("--site-url", default=os.environ.get("DPOLEARN_STUDENT_SITE"),
                        help="student: address of the published student site (links in notebooks)")
    args = parser.parse_args(argv)
    if args.edition == "student":
        return make_student(build_html=not args.no_build, repository_url=args.repository_url,
                            site_url=args.site_url)
    return make_instructor()


if __name__ == "__main__":
    sys.exit(main())
