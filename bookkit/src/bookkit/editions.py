#!/usr/bin/env python3
"""Editions of the book from one source: public (solutions in dropdowns), student (no solutions)
and the instructor kit (solution notebooks).

    python -m bookkit.editions student      # source tree + HTML + notebooks under _build/student/
    python -m bookkit.editions instructor   # solution notebooks under _build/instructor-kit/

The student edition is made at the source level. :func:`strip_solutions` removes every solution
from a chapter, in both forms the chapters use:

* a ``{solution}`` directive (its whole fenced block), and
* the gated form, ``{solution-start}`` ... ``{solution-end}``, together with everything in
  between: prose *and* the code cells (so their code and outputs never reach the page).

:func:`write_source_tree` writes the stripped chapters with the book's ``_toc.yml``, a
``_config.yml`` for the edition (launch buttons and repository links off unless a repository
that holds the student edition is given, since they lead to the public notebooks) and links
to ``dpolearn/`` (for ``{literalinclude}``) and the book's extension and offline assets;
:func:`build` runs Jupyter Book on it (``-W -n --keep-going --all``).

The student edition executes nothing: each chapter is written as a notebook whose code cells
carry the outputs of the public build's executed notebook (``--executed``, by default
``_build/jupyter_execute`` of ``make book``), matched cell by cell, so the student pages show
exactly the public build's results at the public build's scale, minus the solutions. A chapter
edited since that build no longer matches its executed notebook and stops the edition with a
message saying so. The public build's figure-audit records come along, so the student pages'
figures are audited as the public ones were. The book extension then replaces each page's ".ipynb"
download with the plain-Markdown notebook of the same edition (``bookkit.notebook``),
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
from pathlib import Path
from typing import Optional

from .book import (  # noqa: F401  (Solution, Stripped, solutions_of: part of the editions' API)
    EDITIONS,
    ROOT,
    Solution,
    Stripped,
    is_notebook_source,
    solutions_of,
    strip_solutions,
    toc_files,
)
from .notebook import convert_chapter, notebook_text

STUDENT_OUT = ROOT / "_build" / "student"
#: Where ``make book`` leaves the executed chapter notebooks (Jupyter Book's jupyter_execute).
PUBLIC_EXECUTED = ROOT / "_build" / "jupyter_execute"
INSTRUCTOR_OUT = ROOT / "_build" / "instructor-kit"

#: Top-level entries of the repository that an edition's source tree does not link.
NOT_LINKED = {"book", "_build", "_config.yml", "_toc.yml", "results", "dpolearn.egg-info"}

# ----------------------------------------------------------------------------- source tree

def _toc_chapters(root: Path = ROOT) -> list[Path]:
    return [root / f"{doc}.md" for doc in toc_files(root / "_toc.yml")
            if (root / f"{doc}.md").exists()]


class StaleBuildError(RuntimeError):
    """The executed notebooks do not belong to the chapters as they are now."""


def edition_config(edition: str, config: dict, repository_url: Optional[str] = None,
                   site_url: Optional[str] = None, executed: bool = False) -> dict:
    """The ``_config.yml`` of ``edition``, derived from the public one (``config``).

    Student edition: the theme's launch buttons (Binder, Colab, Thebe) and repository links
    open ``book/<page>.ipynb`` and ``.md`` sources of the *public* repository, which hold the
    solutions, so they are switched off unless ``repository_url`` names a repository that
    publishes the student edition. ``site_url`` (``html.baseurl``) is where the student site
    will live; cross-references in its notebooks link there, or are plain text without it.
    ``executed``: the chapters arrive as executed notebooks, so the build executes nothing.
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
    if executed:
        cfg.setdefault("execute", {})["execute_notebooks"] = "off"
        # the public book excludes book/*.ipynb (its twins); here they are the chapters
        cfg["exclude_patterns"] = [p for p in cfg.get("exclude_patterns", [])
                                   if p != "book/*.ipynb"]
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


def executed_chapter(text: str, executed_path: Path):
    """The chapter ``text`` (MyST) as a notebook whose code cells carry the outputs of the
    executed notebook at ``executed_path``.

    ``text`` may lack cells of the executed chapter (the student edition removes the solutions'
    code cells), but its code cells must appear there in the same order with the same source;
    otherwise the executed notebook is stale and :class:`StaleBuildError` says which cell.
    """
    import jupytext
    import nbformat

    if not executed_path.is_file():
        raise StaleBuildError(f"no executed notebook {executed_path}: build the public book "
                              "first (make book, or make quick-book for the quick scale)")
    executed = nbformat.read(executed_path, as_version=4)
    nb = jupytext.reads(text, fmt="md:myst")
    theirs = iter(c for c in executed.cells if c.cell_type == "code")
    for cell in (c for c in nb.cells if c.cell_type == "code"):
        match = next((c for c in theirs if c.source == cell.source), None)
        if match is None:
            first_line = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
            raise StaleBuildError(
                f"{executed_path} does not hold the chapter's cell {first_line!r}: the chapter "
                "changed after the public build; rebuild it (make book or make quick-book)")
        cell.outputs = match.get("outputs", [])
        cell.execution_count = match.get("execution_count")
    for key in ("kernelspec", "language_info", "widgets"):
        if key in executed.metadata:
            nb.metadata[key] = executed.metadata[key]
    return nb


def write_source_tree(edition: str = "student", out: Path = STUDENT_OUT,
                      repository_url: Optional[str] = None,
                      site_url: Optional[str] = None,
                      executed: Optional[Path] = None) -> Path:
    """Write ``out/src``: the book's source tree for ``edition``; returns its path.

    With ``executed`` (the ``jupyter_execute`` folder of a public build), every chapter of the
    table of contents is written as a notebook with that build's outputs
    (:func:`executed_chapter`) and the edition's build executes nothing.
    """
    import nbformat
    import yaml

    src = out / "src"
    if src.exists():
        shutil.rmtree(src)
    (src / "book").mkdir(parents=True)
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    chapters = set(_toc_chapters())
    as_notebooks = sorted(c for c in chapters if executed is not None and is_notebook_source(c))
    cfg = edition_config(edition, config, repository_url, site_url, executed=bool(as_notebooks))
    # An executed chapter's page is its notebook; its MyST text stays beside it, out of the
    # build, for the book extension's ".ipynb" download (bookkit.sphinx.book).
    cfg["exclude_patterns"] = cfg.get("exclude_patterns", []) + [
        c.relative_to(ROOT).as_posix() for c in as_notebooks]
    (src / "_config.yml").write_text(
        "# Generated by bookkit.editions from the repository's _config.yml; do not edit.\n"
        + yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True), encoding="utf-8")
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
            if item in as_notebooks:
                nb = executed_chapter(text, executed / "book" / f"{item.stem}.ipynb")
                dest.with_suffix(".ipynb").write_text(nbformat.writes(nb), encoding="utf-8")
            dest.write_text(text, encoding="utf-8")
        else:
            _link(item, dest)
    return src


def write_notebooks(edition: str, dest: Path, root: Path = ROOT,
                    site_url: Optional[str] = None) -> list[Path]:
    """Write the plain-Markdown notebook of every chapter for ``edition`` into ``dest``."""
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


def _copy_audit_records(records: Path, dest: Path) -> None:
    """The public build's figure-audit records, for the pages the edition does not execute."""
    if dest.exists():
        shutil.rmtree(dest)
    if records.is_dir():
        shutil.copytree(records, dest)


def _copy_figure_files(figures: Path, dest: Path) -> None:
    """The public build's figure files: the experiment figures of the Figures page (which the
    edition's build then keeps instead of drawing them again) and the data its pages link
    under their figures."""
    dest.mkdir(parents=True, exist_ok=True)
    for path in sorted(figures.iterdir()) if figures.is_dir() else []:
        if path.is_file():
            shutil.copy2(path, dest / path.name)


#: A figure's data file, as the book's pages link it (bookkit.figures.data_file_stem).
_FIGURE_DATA = re.compile(r'_static/figures/([^"/]+-figure-[0-9]+\.csv)"')


def _drop_unlinked_figure_data(html: Path) -> None:
    """Remove the public build's data files of figures the edition does not show (the
    solutions' figures): every figure data file left is linked by a page."""
    figures = html / "_static" / "figures"
    if not figures.is_dir():
        return
    linked = {name for page in html.rglob("*.html")
              for name in _FIGURE_DATA.findall(page.read_text(encoding="utf-8"))}
    for data in figures.glob("*-figure-*.csv"):
        if data.name not in linked:
            data.unlink()


def make_student(out: Path = STUDENT_OUT, build_html: bool = True,
                 repository_url: Optional[str] = None, site_url: Optional[str] = None,
                 executed: Optional[Path] = PUBLIC_EXECUTED) -> int:
    """``make student-book``: source tree, HTML and student notebooks under ``out``.

    ``executed``: the ``jupyter_execute`` folder of the public build whose outputs the edition
    shows (``None``: execute the stripped chapters instead, which takes as long as the book).
    """
    if executed is not None:
        executed = Path(executed).resolve()
    src = write_source_tree("student", out, repository_url, site_url, executed)
    if executed is not None:
        _copy_audit_records(executed.parent / "figure-audit" / "records",
                            out / "_build" / "figure-audit" / "records")
        _copy_figure_files(executed.parent / "html" / "_static" / "figures",
                           out / "_build" / "html" / "_static" / "figures")
    notebooks = write_notebooks("student", out / "notebooks", site_url=site_url)
    print(f"student source: {src.relative_to(ROOT)}; {len(notebooks)} notebooks in "
          f"{(out / 'notebooks').relative_to(ROOT)}")
    # Launch buttons open book/<page>.ipynb of that repository: the student notebooks go there,
    # after the build when the build reads the executed chapters from the same paths.
    launch = [(nb, src / "book" / nb.name) for nb in notebooks] if repository_url else []
    if executed is None or not build_html:
        for nb, dest in launch:
            shutil.copy2(nb, dest)
        launch = []
    if not build_html:
        return 0
    rc = build(src, out)
    _drop_unlinked_figure_data(out / "_build" / "html")
    for nb, dest in launch:
        shutil.copy2(nb, dest)
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
    parser.add_argument("--executed", type=Path, default=PUBLIC_EXECUTED,
                        help="student: the jupyter_execute folder of the public build whose "
                             "outputs the edition shows (default: make book's, "
                             "%(default)s; make quick-book's is _build/quick/_build/"
                             "jupyter_execute)")
    parser.add_argument("--execute", action="store_true",
                        help="student: execute the stripped chapters instead of reusing a build")
    args = parser.parse_args(argv)
    if args.edition == "student":
        try:
            return make_student(build_html=not args.no_build, repository_url=args.repository_url,
                                site_url=args.site_url,
                                executed=None if args.execute else args.executed)
        except StaleBuildError as exc:
            print(f"student edition: {exc}", file=sys.stderr)
            return 2
    return make_instructor()


if __name__ == "__main__":
    sys.exit(main())
