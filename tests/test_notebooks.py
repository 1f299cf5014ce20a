"""Every chapter runs, and reads cleanly, as a plain Jupyter notebook.

What readers get outside the HTML book is the ``.ipynb`` twin of each chapter: committed as
``book/<chapter>.ipynb`` for Colab and Binder, and offered by the ".ipynb" download button.
Both are the chapter converted to plain Markdown and code (``bookkit.notebook``).
These tests check that the committed twins are in sync with the ``.md`` chapters, that their
first cell installs the tagged release of ``dpolearn`` when it is missing, that no MyST markup
survives in them or in the student notebooks once rendered by ``jupyter nbconvert --to html``
(what a reader sees), and that each one runs top to bottom in a fresh kernel with the working
directory ``book/`` (as in a clone), at quick scale.

That run is the quick book build itself: myst-nb executes every chapter in a new kernel in
``book/`` (``execute_notebooks: force``), and the test checks that the twin's code is exactly the
code the build ran and that no cell failed. Running the twins a second time would only repeat
that run, cell for cell.
"""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from bookkit import editions
from bookkit import notebook as m2n
from bookkit.sphinx import book as dpolearn_book
from bookkit.sync import notebook_chapters, stale

ROOT = Path(__file__).resolve().parents[1]

RAISES = "raises-exception"   # the tag of cells that show an error on purpose
CHAPTERS = notebook_chapters()


def test_paired_notebooks_are_in_sync():
    problems = stale()
    assert not problems, (
        "book/*.ipynb (what Colab and Binder open) must match the .md chapters: "
        + "; ".join(problems)
        + ". Run `.venv/bin/python -m bookkit.sync` and commit with "
          "`git add -f book/*.ipynb`.")


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_paired_notebook_starts_with_install_cell(md):
    nb = nbformat.reads(dpolearn_book.paired_notebook(md), as_version=4)
    index = m2n.package_index_url()
    version = m2n.release_version()
    first = nb.cells[0]
    assert first.cell_type == "code"
    assert first.metadata["tags"] == [m2n.INSTALL_TAG]
    assert f'"dpolearn=={version}" --index-url {index} ' in first.source
    assert "git+" not in first.source
    assert 'dpl.experiments.set_scale("paper")' in first.source
    assert not any(m2n.INSTALL_TAG in c.metadata.get("tags", []) for c in nb.cells[1:])
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")


def test_install_source_follows_the_site_index_and_release():
    src = m2n.install_source("https://someone.github.io/fork/simple/", "1.2.3",
                             "https://mirror.example/simple")
    assert ('%pip install --quiet "dpolearn==1.2.3" --index-url '
            "https://someone.github.io/fork/simple/ --extra-index-url "
            "https://mirror.example/simple") in src


def test_package_index_is_under_the_site_address(tmp_path):
    config = tmp_path / "_config.yml"
    config.write_text("html:\n  baseurl: https://example.org/book\n")
    assert m2n.package_index_url(config) == "https://example.org/book/simple/"
    config.write_text("repository:\n  url: https://github.com/someone/fork\n")
    assert m2n.package_index_url(config) == "https://someone.github.io/fork/simple/"


def test_release_version_is_the_package_version():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert m2n.release_version() == project["version"]


def _run_install_cell(version: str) -> str:
    """Run the install cell for release ``version`` in an IPython shell whose %pip only records
    its arguments (the installed dpolearn is this checkout's release)."""
    script = textwrap.dedent(f"""
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        calls = []
        shell.register_magic_function(lambda line: calls.append(line), "line", "pip")
        result = shell.run_cell({m2n.install_source("https://site.example/simple/", version)!r})
        result.raise_error()
        print(repr(calls))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip().splitlines()[-1]


def test_install_cell_installs_only_another_version():
    assert _run_install_cell(m2n.release_version()) == "[]"
    assert _run_install_cell("99.0.0") == (
        "['install --quiet \"dpolearn==99.0.0\" --index-url https://site.example/simple/ "
        f"--extra-index-url {m2n.DEFAULT_DEPENDENCY_INDEX}']")


# ------------------------------------------------------------------ no MyST left for readers

#: MyST syntax that must not reach a reader of a notebook.
LEFTOVER = re.compile(r"\{prf:|:::|\{cite|\{ref\}|\{doc\}|```\{|\{eq\}|\{numref\}|\{index\}"
                      r"|\{exercise|\{solution|\{admonition\}|\{literalinclude\}")


def _rendered_markdown(html_path: Path) -> list[str]:
    """Text of every rendered Markdown cell of an nbconvert HTML page."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html_path.read_text(encoding="utf-8"), "html.parser")
    cells = soup.select(".jp-MarkdownCell .jp-RenderedMarkdown, "
                        ".jp-MarkdownCell .jp-RenderedHTMLCommon")
    return [c.get_text() for c in cells]


def _nbconvert_html(notebooks: list[Path], out: Path) -> list[Path]:
    """``jupyter nbconvert --to html`` of ``notebooks`` (one process) into ``out``."""
    exe = Path(sys.executable).with_name("jupyter-nbconvert")
    cmd = [str(exe) if exe.exists() else "jupyter-nbconvert", "--to", "html",
           "--output-dir", str(out), *map(str, notebooks)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [out / f"{nb.stem}.html" for nb in notebooks]


def _leftovers(html_pages: list[Path]) -> dict:
    found = {}
    for page in html_pages:
        cells = _rendered_markdown(page)
        assert cells, f"{page.name}: no rendered Markdown cells (has nbconvert's markup changed?)"
        bad = [m.group(0) + " in: " + " ".join(text[max(0, m.start() - 60):m.end() + 40].split())
               for text in cells for m in LEFTOVER.finditer(text)]
        if bad:
            found[page.name] = bad
    return found


def test_leftover_check_catches_raw_myst(tmp_path):
    """The check on a jupytext conversion (what the notebooks used to be) finds MyST."""
    import jupytext

    raw = jupytext.read(ROOT / "book" / "primer.md", fmt="md:myst")
    path = tmp_path / "raw" / "primer.ipynb"
    path.parent.mkdir()
    nbformat.write(raw, path)
    found = _leftovers(_nbconvert_html([path], tmp_path / "html"))
    assert any("{prf:" in b for b in found["primer.html"])
    assert any("{cite" in b for b in found["primer.html"])


def test_notebooks_render_without_myst_markup(tmp_path):
    """Every committed twin and every student notebook, rendered by nbconvert, is plain."""
    committed = [md.with_suffix(".ipynb") for md in CHAPTERS]
    student = editions.write_notebooks("student", tmp_path / "student")
    assert len(student) == len(committed)
    pages = _nbconvert_html(committed, tmp_path / "html-public")
    pages += _nbconvert_html(student, tmp_path / "html-student")
    found = _leftovers(pages)
    assert not found, f"MyST markup in rendered notebooks: {found}"


@pytest.mark.book
@pytest.mark.xdist_group("book")
@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_notebook_ran_in_a_fresh_kernel(md, quick_book):
    """The twin's code is exactly the code the book build ran, top to bottom, in a fresh kernel
    in ``book/`` (myst-nb's ``execute_notebooks: force``), and no cell of that run failed.

    The build is that run: executing the twin again would only repeat it. What the twin adds, its
    install cell, is run by ``test_install_cell_installs_only_another_version``; a twin as a
    reader downloads it runs in a fresh venv in ``test_site.py``.
    """
    twin = nbformat.reads(dpolearn_book.paired_notebook(md), as_version=4)
    executed_path = quick_book.executed / md.relative_to(ROOT).with_suffix(".ipynb")
    assert executed_path.exists(), f"the build did not execute {md.relative_to(ROOT)}"
    executed = nbformat.read(executed_path, as_version=4)
    ours = [c for c in twin.cells if c.cell_type == "code"
            and m2n.INSTALL_TAG not in c.metadata.get("tags", [])]
    ran = [c for c in executed.cells if c.cell_type == "code"]
    assert [c.source for c in ours] == [c.source for c in ran], (
        f"{md.name}: the twin's code cells differ from those the build executed")
    assert [RAISES in c.metadata.get("tags", []) for c in ours] == \
        [RAISES in c.metadata.get("tags", []) for c in ran], f"{md.name}: raises-exception tags"
    assert all(c.get("execution_count") for c in ran), f"{md.name}: a code cell was not run"
    unexpected = [i for i, c in enumerate(ran) if RAISES not in c.metadata.get("tags", [])
                  and any(o.output_type == "error" for o in c.outputs)]
    assert not unexpected, f"{md.name}: error outputs in code cells {unexpected}"
