"""The quick-scale book build as a test: it passes with warnings as errors, every page exists,
no executed cell failed, and the pages link and render as a reader needs.

One build per test run (``quick_book`` in conftest.py): ``jupyter-book build . -W -n
--keep-going --all`` at ``DPOLEARN_SCALE=quick``. The checks read the HTML and the executed
notebooks it leaves; nothing here executes a notebook again.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest
import yaml
from bs4 import BeautifulSoup

from bookkit import notebook as m2n
from bookkit import vendor as vendor_assets
from bookkit.book import toc_files
from bookkit.sphinx import book as dpolearn_book
from bookkit.sync import notebook_chapters

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.book, pytest.mark.xdist_group("book")]

RAISES = "raises-exception"


@functools.lru_cache(maxsize=128)
def _soup(path: Path) -> BeautifulSoup:
    """The parsed page, parsed once for all the tests of this module (which only read it)."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _pages(html: Path) -> dict[str, Path]:
    """docname -> HTML file, for every entry of _toc.yml."""
    return {doc: html / f"{doc}.html" for doc in toc_files()}


def _config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text())


# ------------------------------------------------------------------ the build itself

def test_jupyter_book_is_pinned_below_2():
    """An unpinned install gets 2.x, which builds nothing for this layout and exits 0."""
    reqs = (ROOT / "requirements.txt").read_text()
    line = next(l for l in reqs.splitlines() if l.strip().startswith("jupyter-book"))
    assert "<2" in line.replace(" ", ""), line


def test_build_passes_with_warnings_as_errors(quick_book):
    print(f"quick book build: {quick_book.seconds:.0f} s (reused: {quick_book.reused})")
    assert (quick_book.html / "index.html").exists()
    reports = quick_book.html / "reports"
    assert not (reports.exists() and list(reports.glob("*.err.log")))


def test_every_toc_chapter_has_a_page(quick_book):
    missing = [doc for doc, page in _pages(quick_book.html).items() if not page.exists()]
    assert not missing, f"_toc.yml entries without an HTML page: {missing}"


# ------------------------------------------------------------------ outputs

def _error_outputs_in_html(page: Path) -> list[str]:
    """Cell outputs showing a traceback or error outside cells tagged raises-exception."""
    bad = []
    for out in _soup(page).select("div.cell_output"):
        cell = out.find_parent("div", class_="cell")
        if cell is not None and f"tag_{RAISES}" in cell.get("class", []):
            continue
        text = out.get_text()
        if out.select(".traceback, .output.error") or "Traceback (most recent call last)" in text:
            bad.append(text.strip()[:300])
    return bad


def test_no_traceback_in_html_outputs(quick_book):
    problems = {doc: errs for doc, page in _pages(quick_book.html).items()
                if page.exists() and (errs := _error_outputs_in_html(page))}
    assert not problems, f"error outputs outside raises-exception cells: {problems}"


def _executed_notebooks(executed: Path) -> dict[str, nbformat.NotebookNode]:
    out = {}
    for doc in toc_files():
        path = executed / f"{doc}.ipynb"
        if path.exists():
            out[doc] = nbformat.read(path, as_version=4)
    return out


def test_no_error_outputs_in_executed_notebooks(quick_book):
    problems = []
    for doc, nb in _executed_notebooks(quick_book.executed).items():
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or RAISES in cell.metadata.get("tags", []):
                continue
            for out in cell.get("outputs", []):
                if out.output_type == "error":
                    problems.append(f"{doc} cell {i}: {out.ename}: {out.evalue}")
    assert not problems, problems


def test_raises_exception_cells_really_raise(quick_book):
    """A cell tagged raises-exception that stops raising silently shows nothing."""
    quiet = []
    for doc, nb in _executed_notebooks(quick_book.executed).items():
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code" and RAISES in cell.metadata.get("tags", []):
                if not any(o.output_type == "error" for o in cell.get("outputs", [])):
                    quiet.append(f"{doc} cell {i}")
    assert not quiet, f"cells tagged {RAISES} that raised nothing: {quiet}"


def test_every_notebook_chapter_was_executed(quick_book):
    docs = {md.relative_to(ROOT).with_suffix("").as_posix() for md in notebook_chapters()}
    executed = set(_executed_notebooks(quick_book.executed))
    assert docs <= executed, f"not executed by the build: {sorted(docs - executed)}"


# ------------------------------------------------------------------ widgets without a kernel

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
IMAGE_MIMES = ("image/png", "image/svg+xml", "image/jpeg")
LIVE_KERNEL = re.compile(r"live\s+(python\s+)?kernel", re.IGNORECASE)


def _has(cell, mimes) -> bool:
    return cell.cell_type == "code" and any(
        m in out.get("data", {}) for out in cell.get("outputs", []) for m in mimes)


def widget_problems(nb) -> list[str]:
    """The checks of one executed notebook.

    Every cell that displays a widget must leave a static figure at the widget's default
    setting, in the same cell or in the code cell just before it; and the text around it (the
    five cells before, the two after, figure captions included) must tell the reader that
    moving the widget needs a live kernel.
    """
    problems = []
    cells = nb.cells
    for i, cell in enumerate(cells):
        if not _has(cell, (WIDGET_MIME,)):
            continue
        previous = next((c for c in reversed(cells[:i]) if c.cell_type == "code"), None)
        if not (_has(cell, IMAGE_MIMES) or (previous is not None and _has(previous, IMAGE_MIMES))):
            problems.append(f"cell {i}: widget without a static figure (same or previous cell)")
        window = cells[max(0, i - 5): i + 3]
        text = " ".join(c.source for c in window if c.cell_type == "markdown")
        text += " ".join(str(c.metadata.get("mystnb", {}).get("figure", {}).get("caption", ""))
                         for c in window)
        if not LIVE_KERNEL.search(text):
            problems.append(f"cell {i}: no sentence saying the widget needs a live kernel")
    return problems


def test_every_widget_leaves_a_static_figure_and_says_it_needs_a_kernel(quick_book):
    problems = {doc: p for doc, nb in _executed_notebooks(quick_book.executed).items()
                if (p := widget_problems(nb))}
    assert not problems, problems


def test_widget_rule_catches_a_bare_widget():
    """The rule above fails on a widget with neither a figure nor the live-kernel sentence."""
    v4 = nbformat.v4
    widget_out = v4.new_output("execute_result", data={WIDGET_MIME: {"model_id": "x"},
                                                        "text/plain": "interactive(...)"})
    figure_out = v4.new_output("display_data", data={"image/png": "iVBORw0KGgo=",
                                                     "text/plain": "<Figure>"})
    bare = v4.new_notebook(cells=[v4.new_markdown_cell("A slider."),
                                  v4.new_code_cell("w", outputs=[widget_out])])
    assert len(widget_problems(bare)) == 2
    good = v4.new_notebook(cells=[
        v4.new_markdown_cell("Moving the slider needs a live kernel (Binder, Colab)."),
        v4.new_code_cell("fig", outputs=[figure_out]),
        v4.new_code_cell("w", outputs=[widget_out])])
    assert widget_problems(good) == []


# ------------------------------------------------------------------ images and links

def _local_target(page: Path, ref: str) -> Path | None:
    parts = urlsplit(ref)
    if parts.scheme or parts.netloc or ref.startswith("data:"):
        return None
    return (page.parent / unquote(parts.path)).resolve() if parts.path else page


def test_every_image_is_local_and_exists(quick_book):
    problems = []
    for doc, page in _pages(quick_book.html).items():
        for img in _soup(page).find_all("img"):
            src = img.get("src", "")
            if src.startswith("data:"):
                continue
            if urlsplit(src).scheme:
                problems.append(f"{doc}: remote image {src} (the book must work offline)")
                continue
            target = _local_target(page, src)
            if target is None or not target.exists():
                problems.append(f"{doc}: missing image {src}")
    assert not problems, problems


def test_internal_links_and_anchors_resolve(quick_book):
    """Cross-references, citations and toc links point at pages and ids that exist."""
    html = quick_book.html
    ids: dict[Path, set] = {}
    problems = []
    for doc, page in _pages(html).items():
        for a in _soup(page).select("a.reference.internal, a[role='doc-biblioref']"):
            href = a.get("href", "")
            if not href or urlsplit(href).scheme:
                continue
            target = _local_target(page, href)
            if not target.exists():
                problems.append(f"{doc}: link to missing file {href}")
                continue
            frag = urlsplit(href).fragment
            if frag and target.suffix == ".html":
                if target not in ids:
                    ids[target] = {t["id"] for t in _soup(target).find_all(id=True)}
                if frag not in ids[target]:
                    problems.append(f"{doc}: link to missing anchor {href}")
        text = _soup(page).select_one("article").get_text() if page.exists() else ""
        if "??" in text:
            problems.append(f"{doc}: unresolved reference ('??') in the text")
    assert not problems, problems


# ------------------------------------------------------------------ reader infrastructure

def test_launch_buttons_point_at_existing_notebooks(quick_book):
    """Binder, Colab and live-code buttons on every notebook chapter, from repository.url."""
    repo = _config()["repository"]
    url = repo["url"].rstrip("/")
    org_repo = urlsplit(url).path.strip("/")
    branch = repo.get("branch", "main")
    assert urlsplit(url).netloc == "github.com", "Colab needs a GitHub repository.url"
    chapters = notebook_chapters()
    assert chapters, "no notebook chapter in _toc.yml"
    for md in chapters:
        doc = md.relative_to(ROOT).with_suffix("").as_posix()
        soup = _soup(quick_book.html / f"{doc}.html")
        links = {a["href"] for a in soup.find_all("a", href=True)}
        nb_path = f"{doc}.ipynb"
        assert (ROOT / nb_path).exists(), (
            f"{nb_path} is missing, so the Colab button would point at the .md (which Colab "
            "cannot open): run `.venv/bin/python -m bookkit.sync`, commit book/*.ipynb")
        binder = f"https://mybinder.org/v2/gh/{org_repo}/{branch}?urlpath=lab/tree/{nb_path}"
        colab = f"https://colab.research.google.com/github/{org_repo}/blob/{branch}/{nb_path}"
        assert binder in links, f"{doc}: no Binder link {binder}"
        assert colab in links, f"{doc}: no Colab link {colab}"
        assert soup.find(attrs={"onclick": re.compile("initThebeSBT")}), f"{doc}: no live code"
        thebe = soup.find("script", type="text/x-thebe-config")
        assert thebe is not None and f'repo: "{org_repo}"' in thebe.string \
            and f'ref: "{branch}"' in thebe.string, f"{doc}: live code not bound to {url}"
        assert f"{url}" in links or f"{url}/" in links, f"{doc}: no repository button"


def test_notebook_downloads_start_with_the_install_cell(quick_book):
    for md in notebook_chapters():
        doc = md.relative_to(ROOT).with_suffix("").as_posix()
        soup = _soup(quick_book.html / f"{doc}.html")
        hrefs = [a["href"] for a in soup.find_all("a", href=True) if a["href"].endswith(".ipynb")
                 and not urlsplit(a["href"]).scheme]
        assert hrefs, f"{doc}: no .ipynb download button"
        target = _local_target(quick_book.html / f"{doc}.html", hrefs[0])
        nb = nbformat.read(target, as_version=4)
        first = nb.cells[0]
        assert first.cell_type == "code" and m2n.INSTALL_TAG in first.metadata["tags"]
        # pinned to the package version, from the site's own package index
        assert first.source == m2n.install_source()
        has_code = any(c.cell_type == "code" and m2n.INSTALL_TAG not in
                       c.metadata.get("tags", []) for c in nb.cells)
        if has_code:                       # a page of prose only (open problems) has no outputs
            assert any(c.get("outputs") for c in nb.cells), f"{doc}: download has no outputs"


def test_vendored_assets_are_intact():
    assert vendor_assets.check() == []


def test_pages_load_mathjax_and_widgets_locally(quick_book):
    """No script from a CDN on load (only thebe's lazy URL constant, used on click)."""
    problems = []
    for doc, page in _pages(quick_book.html).items():
        soup = _soup(page)
        for script in soup.find_all("script", src=True):
            if urlsplit(script["src"]).scheme:
                problems.append(f"{doc}: loads {script['src']}")
        srcs = [s["src"] for s in soup.find_all("script", src=True)]
        if soup.select(".math"):
            assert any(dpolearn_book.MATHJAX_PATH in s for s in srcs), f"{doc}: no local MathJax"
        if soup.find("script", type="application/vnd.jupyter.widget-view+json"):
            for js in dpolearn_book.WIDGETS_JS:
                assert any(js in s for s in srcs), f"{doc}: widget page without {js}"
    assert not problems, problems
    assert (quick_book.html / "_static" / dpolearn_book.MATHJAX_PATH).exists()


# ------------------------------------------------------------------ the checks can fail

def test_static_checks_catch_the_broken_fixture(broken_book):
    """The same checks on tests/browser_fixture: the broken page fails, the good page passes."""
    broken, good = broken_book / "broken.html", broken_book / "good.html"
    assert _error_outputs_in_html(broken), "ZeroDivisionError output not detected"
    assert not _error_outputs_in_html(good), "raises-exception cell wrongly reported"
    missing = [img["src"] for img in _soup(broken).find_all("img")
               if not _local_target(broken, img["src"]).exists()]
    assert missing == ["_static/no-such-image.png"]
    assert all(_local_target(good, img["src"]).exists()
               for img in _soup(good).find_all("img") if not img["src"].startswith("data:"))
    assert "??" in _soup(broken).select_one("article").get_text()


# The problem sets' exercise numbers against the built Assignments page (here, not in
# test_assignments.py, so that it runs on the worker that builds the book).
def test_rendered_exercise_numbers_match_the_notebooks(quick_book):
    """The notebooks print "Exercise N" from the book's sources; the built book's numbers (the
    Assignments page's {numref} links to the chapters' exercises) must be the same."""
    from bs4 import BeautifulSoup

    from bookkit.assignments import exercise_numbers
    from bookkit.expected_outputs import question_numbers

    numbers = exercise_numbers()
    page = BeautifulSoup((quick_book.html / "book" / "assignments.html").read_text(), "html.parser")
    links = [
        (m.group(1), a.get_text(strip=True))
        for a in page.find_all("a", href=True)
        if (m := re.search(r"#(ex-[\w-]+)$", a["href"]))
        and a.get_text(strip=True).startswith("Exercise")
    ]
    assert len(links) >= len(question_numbers()), "the page should link every question's exercise"
    wrong = [(label, text) for label, text in links if text != f"Exercise {numbers[label][0]}"]
    assert not wrong, f"rendered numbers differ from the notebooks': {wrong}"
