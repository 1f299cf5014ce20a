"""The student edition holds no solution.

The search: every solution of every chapter is cut into *fragments* (code lines of its code
cells, inline math and inline code, and runs of plain prose between math, code and emphasis
markers), whitespace-normalised;
a fragment counts only if it occurs nowhere in the chapters once the solutions are removed (nor
in the package code they include, nor in the problem sets' student notebooks), so a hit can only
come from a solution. The tests then check

* the stripper on a small synthetic chapter with both solution forms, and that the search finds
  the solutions when stripping is switched off (the test of the test);
* every chapter: each solution has fragments, the public notebooks contain them (the search is
  sensitive) and the student notebooks do not;
* the built student edition (``make student-book``, built once per test run): no fragment in
  any HTML page or any file a page links for download (``_sources``), nor in the student
  notebooks; the exercise prompts, searched the same way, *are* found (the search sees the
  HTML's text); no launch button leads to the public notebooks.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import pytest
import yaml

from bookkit import book, editions, myst
from bookkit import notebook as m2n

ROOT = Path(__file__).resolve().parents[1]

MIN_PROSE = 30        # characters of a prose fragment (shorter runs are too common)
MIN_CODE = 20         # characters of a code-line fragment
MIN_MATH = 12         # characters of an inline math or inline code fragment
#: Characters at which prose is cut: math, code, emphasis, roles, quotes and dashes (Sphinx's
#: smartquotes rewrites the last two, so fragments never contain them).
PROSE_CUT = re.compile(r"[$`*_{}\\\[\]|<>\"'\u2018\u2019\u201c\u201d\u2013\u2014\u2026]|--|\.\.\.")


def normalise(text: str) -> str:
    return " ".join(text.split())


def _solution_fragments(source: str) -> list[str]:
    """Code lines and plain-prose runs of one solution's source (read by
    :func:`bookkit.myst.read`: fences and directive options are no fragments, code cells and
    code blocks give code lines, everything else prose)."""
    fragments = []

    def code(lines) -> None:
        for line in lines:
            stripped = line.strip()
            if len(stripped) >= MIN_CODE and not stripped.startswith("#"):
                fragments.append(normalise(stripped))

    def prose(lines) -> None:
        for line in lines:
            stripped = line.strip()
            # inline math and inline code reach the HTML verbatim (MathJax reads \(...\))
            for piece in re.findall(r"\$([^$]+)\$|`([^`]+)`", stripped):
                piece = normalise(piece[0] or piece[1])
                if len(piece) >= MIN_MATH:
                    fragments.append(piece)
            for piece in PROSE_CUT.split(m2n.ROLE.sub(" ", stripped)):
                piece = normalise(piece).strip(" ,.;:()")
                if len(piece) >= MIN_PROSE and len(piece.split()) >= 5:
                    fragments.append(piece)

    def visit(blocks) -> None:
        for block in blocks:
            if isinstance(block, myst.CodeCell):
                code(block.code.split("\n"))
            elif isinstance(block, myst.CodeBlock):
                code(block.body)
            elif isinstance(block, myst.Directive):
                if block.name in myst.LITERAL_BODIES:
                    code(block.body)
                else:
                    visit(block.children)
            elif isinstance(block, myst.Math):
                prose(block.body if block.form == "directive" else block.source.split("\n"))
            elif isinstance(block, (myst.Markdown, myst.Heading, myst.Label, myst.Comment)):
                prose(block.source.split("\n"))

    visit(myst.read(source).blocks)
    return fragments


def distinctive(solutions, background: str) -> dict:
    """``(chapter, exercise) -> fragments`` that occur nowhere in ``background``."""
    return {key: [f for f in _solution_fragments(sol.source) if f not in background]
            for key, sol in solutions.items()}


def hits(fragments: dict, haystack: str) -> dict:
    """The fragments of each solution found in ``haystack`` (normalised text)."""
    found = {key: [f for f in frs if f in haystack] for key, frs in fragments.items()}
    return {key: frs for key, frs in found.items() if frs}


def notebook_text(nb) -> str:
    """Sources and text outputs of every cell, normalised."""
    parts = []
    for cell in nb.cells:
        parts.append(cell.source)
        for out in cell.get("outputs", []):
            parts.append(str(out.get("text", "")))
            parts.extend(str(v) for v in (out.get("data") or {}).values())
    return normalise("\n".join(parts))


@lru_cache(maxsize=1)
def book_solutions():
    """Every solution of the book, its distinctive fragments and the chapters' exercise prompts."""
    solutions, stripped = {}, []
    for md in editions._toc_chapters():
        result = editions.strip_solutions(md.read_text(encoding="utf-8"))
        stripped.append(result.text)
        for sol in result.removed:
            solutions[(md.stem, sol.exercise)] = sol
    # Also background: the package code the chapters include ({literalinclude}), and the
    # student notebooks of the problem sets, which the Assignments page links: their set-up
    # code and question text restate parts of some exercises (that they hold no answers is
    # checked by the problem sets' own tests).
    package = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "dpolearn").rglob("*.py"))]
    sets = [notebook_text(nbformat.read(p, as_version=4))
            for p in sorted((ROOT / "assignments" / "student").glob("*.ipynb"))]
    background = normalise("\n".join(stripped + package + sets))
    return solutions, distinctive(solutions, background)


# ------------------------------------------------------------------ the stripper itself

SYNTHETIC = '''---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {display_name: Python 3, language: python, name: python3}
---

# A synthetic chapter

```{code-cell} ipython3
x = 1
```

```{exercise}
:label: ex-syn-prose

Prove that the sky is blue on every clear afternoon in spring.
```

```{solution} ex-syn-prose
:class: dropdown
:label: sol-syn-prose

Rayleigh scattering favours short wavelengths, which explains the colour we observe.
```

````{exercise-start}
:label: ex-syn-code
````
Compute the answer to the ultimate question of life.
```{exercise-end}
```

```{solution-start} ex-syn-code
:class: dropdown
```
The gated answer multiplies six by seven and prints the product.

```{code-cell} ipython3
secret_answer_value = 6 * 7
print("the secret answer is", secret_answer_value)
```
```{solution-end}
```

````{solution} ex-syn-prose
:class: dropdown

```{admonition} Nested box inside a solution
A nested admonition body that belongs to the second solution.
```
````

As {ref}`the worked solution <sol-syn-prose>` shows, the text after the exercises stays put.

```{code-cell} ipython3
y = x + 1
```
'''


def _synthetic(tmp_path: Path) -> Path:
    """A one-chapter book (``_toc.yml``, ``_config.yml``, ``book/syn.md``) under ``tmp_path``."""
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "syn.md").write_text(SYNTHETIC, encoding="utf-8")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: book/syn\n", encoding="utf-8")
    (tmp_path / "_config.yml").write_text(
        "repository:\n  url: https://github.com/example/book\n", encoding="utf-8")
    return tmp_path / "book" / "syn.md"


def test_stripper_removes_both_forms_and_keeps_the_rest():
    result = editions.strip_solutions(SYNTHETIC)
    assert [(s.exercise, s.form) for s in result.removed] == [
        ("ex-syn-prose", "directive"), ("ex-syn-code", "gated"), ("ex-syn-prose", "directive")]
    assert result.removed[0].label == "sol-syn-prose"
    for secret in ("Rayleigh", "six by seven", "secret_answer_value", "Nested box",
                   "nested admonition", "solution-start", "solution-end", "{solution}"):
        assert secret not in result.text, secret
    for kept in ("x = 1", "y = x + 1", "Prove that the sky is blue", "ultimate question",
                 "{exercise-end}", "the text after the exercises stays put"):
        assert kept in result.text, kept
    # the reference to the removed solution's label became its text
    assert "As the worked solution shows" in result.text
    assert "sol-syn-prose" not in result.text


def test_stripper_rejects_an_unclosed_gated_solution():
    with pytest.raises(ValueError, match="no {solution-end}"):
        editions.strip_solutions("```{solution-start} ex-a\n```\nbody without an end\n")


def test_search_finds_solutions_when_stripping_is_disabled(tmp_path, monkeypatch):
    """The leak search on the synthetic chapter: silent for the student notebook, and loud
    when the stripper is replaced by one that removes nothing (or for the public edition)."""
    md = _synthetic(tmp_path)
    result = editions.strip_solutions(SYNTHETIC)
    solutions = {("syn", f"{s.exercise}-{k}"): s for k, s in enumerate(result.removed)}
    fragments = distinctive(solutions, normalise(result.text))
    assert all(fragments.values()), fragments

    student = m2n.convert_chapter(md, "student", root=tmp_path, version="9.9.9")
    public = m2n.convert_chapter(md, "public", root=tmp_path, version="9.9.9")
    assert hits(fragments, notebook_text(student)) == {}
    assert set(hits(fragments, notebook_text(public))) == set(fragments)

    monkeypatch.setattr(m2n, "strip_solutions", lambda text: editions.Stripped(text, []))
    book._cached_index.cache_clear()
    leaky = m2n.convert_chapter(md, "student", root=tmp_path, version="9.9.9")
    found = hits(fragments, notebook_text(leaky))
    assert ("syn", "ex-syn-code-1") in found, "the gated solution's prose and code must leak"
    assert any("secret_answer_value" in f for f in found[("syn", "ex-syn-code-1")])


def test_source_tree_of_the_student_edition_is_stripped(tmp_path, monkeypatch):
    src = editions.write_source_tree("student", tmp_path / "student")
    _, fragments = book_solutions()
    text = normalise("\n".join(p.read_text(encoding="utf-8") for p in (src / "book").glob("*.md")))
    assert hits(fragments, text) == {}
    assert not list((src / "book").glob("*.ipynb")), "the public twins must not be copied"
    config = (src / "_config.yml").read_text(encoding="utf-8")
    assert "dpolearn_edition: student" in config and "colab_url: ''" in config
    # with the stripper disabled the same check fails
    monkeypatch.setattr(editions, "strip_solutions", lambda text: editions.Stripped(text, []))
    leaky = editions.write_source_tree("student", tmp_path / "leaky")
    text = normalise("\n".join(p.read_text(encoding="utf-8")
                               for p in (leaky / "book").glob("*.md")))
    assert set(hits(fragments, text)) == set(fragments)


def _executed_notebook(text: str, tmp_path: Path) -> Path:
    """``text`` as an executed notebook: every code cell prints its own index."""
    import jupytext

    nb = jupytext.reads(text, fmt="md:myst")
    for k, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"out-{k}\n")]
        cell.execution_count = k + 1
    path = tmp_path / "executed.ipynb"
    nbformat.write(nb, path)
    return path


def test_student_chapter_takes_the_public_outputs_without_the_solutions(tmp_path):
    """The student edition reuses the public build's outputs cell by cell: the kept cells get
    their own outputs (in order), the solutions' cells and outputs are gone."""
    executed = _executed_notebook(SYNTHETIC, tmp_path)
    public = nbformat.read(executed, as_version=4)
    student = editions.executed_chapter(editions.strip_solutions(SYNTHETIC).text, executed)
    by_source = {c.source: c for c in public.cells if c.cell_type == "code"}
    kept = [c for c in student.cells if c.cell_type == "code"]
    assert kept and len(kept) < len(by_source), "the gated solution's code cells are removed"
    for cell in kept:
        assert cell.outputs == by_source[cell.source].outputs
        assert cell.execution_count == by_source[cell.source].execution_count
    assert "secret_answer_value" not in nbformat.writes(student)


def test_student_chapter_refuses_a_stale_build(tmp_path):
    executed = _executed_notebook(SYNTHETIC, tmp_path)
    edited = editions.strip_solutions(SYNTHETIC).text.replace("y = x + 1", "y = x + 2")
    with pytest.raises(editions.StaleBuildError, match="y = x \\+ 2"):
        editions.executed_chapter(edited, executed)
    with pytest.raises(editions.StaleBuildError, match="build the public book"):
        editions.executed_chapter(SYNTHETIC, tmp_path / "missing.ipynb")


def test_student_source_tree_from_a_build_executes_nothing(tmp_path):
    """With executed notebooks, every chapter becomes a notebook with outputs and the edition's
    configuration turns execution off (make student-book after make book)."""
    executed = tmp_path / "jupyter_execute"
    (executed / "book").mkdir(parents=True)
    for md in editions._toc_chapters():
        if book.is_notebook_source(md):
            text = md.read_text(encoding="utf-8")
            _executed_notebook(text, tmp_path).rename(executed / "book" / f"{md.stem}.ipynb")
    src = editions.write_source_tree("student", tmp_path / "student", executed=executed)
    config = (src / "_config.yml").read_text(encoding="utf-8")
    assert "execute_notebooks: 'off'" in config and "book/*.ipynb" not in config
    primer = nbformat.read(src / "book" / "primer.ipynb", as_version=4)
    assert all(c.outputs for c in primer.cells if c.cell_type == "code")
    # the chapter's MyST text stays beside its notebook for the download, out of the build
    cfg = yaml.safe_load(config)
    assert "book/primer.md" in cfg["exclude_patterns"]
    assert "book/intro.md" not in cfg["exclude_patterns"]          # a page, not a notebook
    _, fragments = book_solutions()
    pages = [p for p in (src / "book").glob("*.*") if p.suffix in (".md", ".ipynb")]
    text = normalise("\n".join(p.read_text(encoding="utf-8") for p in pages))
    assert hits(fragments, text) == {}


# ------------------------------------------------------------------ the book's chapters

def test_every_solution_is_found_and_searchable():
    solutions, fragments = book_solutions()
    openings = 0
    for md in editions._toc_chapters():
        text = md.read_text(encoding="utf-8")
        openings += sum(isinstance(b, myst.Directive) and b.name in ("solution", "solution-start")
                        for b in myst.read(text).walk())
        assert not re.search(r"\{solution", editions.strip_solutions(text).text), md.name
    assert len(solutions) == openings > 0
    empty = [key for key, frs in fragments.items() if not frs]
    assert not empty, (f"solutions without a distinctive fragment (the search cannot see them): "
                       f"{empty}")


@pytest.mark.parametrize("md", [p for p in editions._toc_chapters() if book.is_notebook_source(p)],
                         ids=lambda p: p.stem)
def test_student_notebook_has_no_solution_and_public_has_all(md):
    _, fragments = book_solutions()
    mine = {key: frs for key, frs in fragments.items() if key[0] == md.stem}
    student = notebook_text(m2n.convert_chapter(md, "student"))
    public = notebook_text(m2n.convert_chapter(md, "public"))
    assert hits(mine, student) == {}
    assert set(hits(mine, public)) == set(mine), \
        "the search must find every solution in the public edition"
    assert "Solution to Exercise" not in student


# ------------------------------------------------------------------ the built student edition

def _site_files(html: Path) -> list[Path]:
    """Every page and every downloadable source of the site."""
    return sorted(p for p in html.rglob("*") if p.suffix in (".html", ".ipynb", ".md", ".txt")
                  and "_static" not in p.parts)


def _page_text(path: Path) -> str:
    if path.suffix == ".html":
        from bs4 import BeautifulSoup

        return normalise(BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser").get_text())
    if path.suffix == ".ipynb":
        return notebook_text(nbformat.read(path, as_version=4))
    return normalise(path.read_text(encoding="utf-8", errors="replace"))


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_student_site_and_notebooks_have_no_solution_text(student_book):
    _, fragments = book_solutions()
    notebooks = sorted((editions.STUDENT_OUT / "notebooks").glob("*.ipynb"))
    files = _site_files(student_book.html) + notebooks
    assert any(p.suffix == ".ipynb" for p in files) and any(p.suffix == ".html" for p in files)
    leaks = {}
    for path in files:
        found = hits(fragments, _page_text(path))
        if found:
            leaks[str(path.relative_to(ROOT))] = found
    assert not leaks, f"solution text in the student edition: {leaks}"


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_student_site_shows_every_exercise(student_book):
    """The same search finds the exercise prompts in the HTML (so it can see page text)."""
    from bs4 import BeautifulSoup

    missing = []
    for md in editions._toc_chapters():
        doc = md.relative_to(ROOT).with_suffix("").as_posix()
        page = student_book.html / f"{doc}.html"
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        assert not soup.select("div.solution, .solution-title"), f"{doc}: solution box"
        text = normalise(soup.get_text())
        assert "Solution to" not in text, doc
        for label in re.findall(r"^:label:\s*(ex-\S+)", md.read_text(encoding="utf-8"), flags=re.M):
            if soup.find(id=label) is None:
                missing.append(label)
    assert not missing, f"exercises missing from the student site: {missing}"


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_student_site_links_only_student_notebooks(student_book):
    from bs4 import BeautifulSoup

    for md in editions._toc_chapters():
        if not book.is_notebook_source(md):
            continue
        doc = md.relative_to(ROOT).with_suffix("").as_posix()
        page = student_book.html / f"{doc}.html"
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        hrefs = [a["href"] for a in soup.find_all("a", href=True)]
        outward = [h for h in hrefs
                   if re.search(r"mybinder|colab\.research|github\.com/.*/(blob|edit)/", h)]
        assert not outward, f"{doc}: launch or source links to the public repository: {outward}"
        downloads = [h for h in hrefs if h.endswith(".ipynb") and not urlsplit(h).scheme]
        assert downloads, f"{doc}: no .ipynb download"
        nb = nbformat.read((page.parent / downloads[0]).resolve(), as_version=4)
        assert nb.metadata["dpolearn"]["edition"] == "student"
        # the outputs the page shows (the edition's executed chapter) are in the download
        executed = nbformat.read(student_book.executed / f"{doc}.ipynb", as_version=4)
        shown = any(c.get("outputs") for c in executed.cells if c.cell_type == "code")
        assert not shown or any(c.get("outputs") for c in nb.cells), \
            f"{doc}: download has no outputs"


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_student_site_keeps_only_the_data_of_the_figures_it_shows(student_book, quick_book):
    """The student edition links the data of its figures; the data of the solutions' figures,
    which the public build wrote, is not on the student site."""
    figures = student_book.html / "_static" / "figures"
    pages = "".join(p.read_text(encoding="utf-8") for p in student_book.html.rglob("*.html"))
    kept = {p.name for p in figures.glob("*-figure-*.csv")}
    public = {p.name for p in (quick_book.html / "_static" / "figures").glob("*-figure-*.csv")}
    assert kept and kept < public                  # the public book shows figures in solutions
    assert all(f"_static/figures/{name}\"" in pages for name in kept)
    # the experiment figures of the Figures page are the public build's files, not redrawn
    png = sorted((quick_book.html / "_static" / "figures").glob("hu2022-fig1.png"))
    assert png and (figures / png[0].name).stat().st_mtime == png[0].stat().st_mtime
