"""Every chapter runs as a plain Jupyter notebook (issue 9, item 2).

What readers get outside the HTML book is the ``.ipynb`` twin of each chapter: committed as
``book/<chapter>.ipynb`` for Colab and Binder, and offered by the ".ipynb" download button.
These tests check that the committed twins are in sync with the ``.md`` chapters, that their
first cell installs ``dpolearn`` when it is missing, and that each one runs top to bottom in a
fresh kernel with the working directory ``book/`` (as in a clone), at quick scale.

Cost: the notebooks run in the "book" xdist group after ``test_book.py``, so the experiments
that the book build just computed come from ``_build/cache`` (keyed by id, scale, seed and the
hash of the package source); what runs again is every chapter's own code, cell by cell, in a new
kernel. That keeps the acceptance test ("every chapter's .ipynb runs top to bottom in a fresh
kernel") at one full nbclient run per chapter without doubling the experiments' CI time.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import dpolearn_book  # noqa: E402
from sync_notebooks import notebook_chapters, stale  # noqa: E402

CELL_TIMEOUT = 300        # seconds per cell; quick-scale chapters take at most ~60 s in total
CHAPTERS = notebook_chapters()


# Widget cells sometimes stall nbclient for a whole cell timeout (jupyter/nbclient#312); the
# book build uses the same work-around (book/_ext/dpolearn_book.py).
dpolearn_book.patch_nbclient_reply_polling()


def test_paired_notebooks_are_in_sync():
    problems = stale()
    assert not problems, (
        "book/*.ipynb (what Colab and Binder open) must match the .md chapters: "
        + "; ".join(problems)
        + ". Run `.venv/bin/python tools/sync_notebooks.py` and commit with "
          "`git add -f book/*.ipynb`.")


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_paired_notebook_starts_with_install_cell(md):
    nb = nbformat.reads(dpolearn_book.paired_notebook(md), as_version=4)
    url, branch = dpolearn_book.repository_settings()
    first = nb.cells[0]
    assert first.cell_type == "code"
    assert first.metadata["tags"] == [dpolearn_book.INSTALL_TAG]
    assert f'"dpolearn @ git+{url.rstrip("/")}@{branch}"' in first.source
    assert not any(dpolearn_book.INSTALL_TAG in c.metadata.get("tags", []) for c in nb.cells[1:])
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")


def test_install_source_follows_repository_url():
    src = dpolearn_book.install_source("https://github.com/someone/fork.git/", "dev")
    assert '%pip install --quiet "dpolearn @ git+https://github.com/someone/fork@dev"' in src


def _run_install_cell(importable: bool) -> str:
    """Run the install cell in an IPython shell whose %pip only records its arguments."""
    script = textwrap.dedent(f"""
        import sys
        from IPython.core.interactiveshell import InteractiveShell
        if not {importable!r}:
            sys.modules["dpolearn"] = None          # import dpolearn -> ImportError
        shell = InteractiveShell.instance()
        calls = []
        shell.register_magic_function(lambda line: calls.append(line), "line", "pip")
        result = shell.run_cell({dpolearn_book.install_source()!r})
        result.raise_error()
        print(repr(calls))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip().splitlines()[-1]


def test_install_cell_installs_only_when_dpolearn_is_missing():
    assert _run_install_cell(importable=True) == "[]"
    assert _run_install_cell(importable=False) == (
        "['install --quiet \"dpolearn @ git+https://github.com/dpolearn/dpolearn@main\"']")


@pytest.mark.book
@pytest.mark.xdist_group("book")
@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_notebook_runs_in_a_fresh_kernel(md, monkeypatch):
    """jupytext conversion of the chapter (plus install cell), executed by nbclient."""
    monkeypatch.setenv("DPOLEARN_SCALE", "quick")
    monkeypatch.setenv("DPOLEARN_PROGRESS", "0")
    nb = nbformat.reads(dpolearn_book.paired_notebook(md), as_version=4)
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT / "book")}})
    start = time.perf_counter()
    client.execute()          # raises CellExecutionError with the traceback on any error
    seconds = time.perf_counter() - start
    install = nb.cells[0]
    assert install.outputs == [], "the install cell must do nothing when dpolearn is installed"
    unexpected = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                  and "raises-exception" not in c.metadata.get("tags", [])
                  and any(o.output_type == "error" for o in c.outputs)]
    assert not unexpected, f"error outputs in cells {unexpected}"
    print(f"{md.name}: executed in {seconds:.1f} s")
