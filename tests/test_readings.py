"""The appendix of readings and errata, the notation page, and a self-contained text.

* Every name of the form ``reading-...`` or ``erratum-...`` that a docstring, comment or test
  of the package or a chapter of the book cites is a label defined in ``book/readings.md``
  (a MyST target ``(reading-xyz)=``), so a reader can always follow it.
* Every chapter of ``_toc.yml`` links the notation page (label ``notation``).
* No file of the package, the book or the tests refers to internal working documents (notes on
  the papers, design notes, issue numbers): the book and the docstrings must stand alone.

Each rule is a small function that a test also runs on a broken example, so the rule itself is
seen to fail when it should.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from bookkit import myst
from bookkit.book import is_notebook_source, toc_files

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
READINGS = BOOK / "readings.md"
THIS_FILE = Path(__file__).resolve()

#: A cited reading or erratum name; not preceded by a letter, digit or hyphen, so that
#: "proof-reading-style" is not taken for a citation.
CITED_NAME = re.compile(r"(?<![\w-])((?:reading|erratum)-[a-z0-9]+(?:-[a-z0-9]+)*)")
#: A link to the notation page: {ref}`notation`, {ref}`text <notation>`, {doc}`notation`,
#: {doc}`text <notation>` (also with a path), or a Markdown link to notation.md / #notation.
NOTATION_LINK = re.compile(
    r"\{(?:ref|doc)\}`(?:[^`<]*<)?(?:[./\w-]*/)?notation>?`"
    r"|\]\((?:[./\w-]*/)?notation(?:\.md|\.html)?(?:#[\w-]*)?\)"
    r"|\]\(#notation\)")
#: References to internal working documents (the acceptance grep of the package and the
#: book, with word boundaries so that e.g. a variable named ``spec`` assigned in code or the
#: word "specific" does not count).
INTERNAL_REFERENCE = re.compile(
    r"\bspecs?\s*(?:\d|§|seed\d|of the paper)"
    r"|AMBIG|\bAMB-\d|\[A\d+\]|DESIGN\.md|design notes|\bissues?\s+#?\d")
#: The same for the prose of the chapters: any mention of the notes on the papers, "seed
#: papers", "the project" (its rules or notes), a tracker or design notes.
INTERNAL_WORDING = re.compile(
    r"\bspecs?\b|\bspecification\b|\bseed papers?\b|\bthe project\b|\btracker\b"
    r"|\bdesign notes\b", re.IGNORECASE)


# ---------------------------------------------------------------------------- helpers
def targets(text: str) -> list[str]:
    """The MyST targets ``(label)=`` of a page, in order (as :func:`bookkit.myst.read` reads
    the page: also those inside directives, none inside code)."""
    return [b.name for b in myst.read(text).walk() if isinstance(b, myst.Label)]


def defined_labels(text: str) -> set[str]:
    """Every MyST target ``(label)=`` of a page."""
    return set(targets(text))


def cited_names(text: str) -> set[str]:
    """Every reading or erratum name a text mentions, except those it defines as targets."""
    return set(CITED_NAME.findall(text)) - defined_labels(text)


def links_notation(text: str) -> bool:
    return NOTATION_LINK.search(text) is not None


def internal_references(text: str, pattern: re.Pattern = INTERNAL_REFERENCE) -> list[str]:
    """Lines (numbered from 1) of ``text`` that match ``pattern``."""
    return [f"{i}: {line.strip()[:120]}" for i, line in enumerate(text.splitlines(), 1)
            if pattern.search(line)]


def _front_matter_stripped(text: str) -> str:
    """A chapter without its jupytext front matter (``kernelspec`` is not a reference)."""
    if text.startswith("---"):
        parts = text.split("---", 2)
        if len(parts) == 3:
            return "\n" * parts[1].count("\n") + parts[2]
    return text


def _package_files() -> list[Path]:
    return sorted((ROOT / "dpolearn").rglob("*.py"))


def _chapter_files() -> list[Path]:
    return sorted(BOOK.glob("*.md"))


def _test_files() -> list[Path]:
    return sorted(p for p in (ROOT / "tests").rglob("*.py") if p.resolve() != THIS_FILE)


def _book_files() -> list[Path]:
    """Text files of the book: chapters, their notebook twins, the extensions and the API
    pages (the vendored third-party assets are not ours)."""
    files = []
    for path in BOOK.rglob("*"):
        rel = path.relative_to(BOOK).parts
        if not path.is_file() or rel[0] in ("_vendor",) or "__pycache__" in rel:
            continue
        if path.suffix in (".md", ".ipynb", ".py", ".rst", ".txt", ".bib"):
            files.append(path)
    return sorted(files)


def _appendix_labels() -> set[str]:
    return defined_labels(READINGS.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------- the rules
def test_every_appendix_entry_has_one_label_of_each_kind():
    text = READINGS.read_text(encoding="utf-8")
    labels = targets(text)
    entries = [name for name in labels if name.startswith(("reading-", "erratum-"))]
    assert len(entries) == len(set(entries)), "a label of the appendix is defined twice"
    assert len(entries) >= 40, f"only {len(entries)} reading/erratum labels in the appendix"
    assert "readings" in labels


@pytest.mark.parametrize("group", ["package", "chapters", "tests"])
def test_every_cited_reading_is_an_appendix_label(group):
    files = {"package": _package_files, "chapters": _chapter_files, "tests": _test_files}[group]()
    known = _appendix_labels()
    missing = {}
    for path in files:
        if path == READINGS:
            continue
        for name in sorted(cited_names(path.read_text(encoding="utf-8")) - known):
            missing.setdefault(name, []).append(str(path.relative_to(ROOT)))
    assert not missing, ("names cited but not defined in book/readings.md: "
                         + "; ".join(f"{k} ({', '.join(v)})" for k, v in sorted(missing.items())))


def test_the_package_cites_the_appendix():
    """The package's docstrings point at the appendix (so the check above is not vacuous)."""
    cited = set()
    for path in _package_files():
        cited |= cited_names(path.read_text(encoding="utf-8"))
    assert len(cited) >= 20, sorted(cited)


def test_every_toc_chapter_links_the_notation_page():
    """Chapters are the landing page and the MyST notebooks of the table of contents (not the
    API reference or the figure downloads page)."""
    toc = toc_files()
    docs = [toc[0]] + [d for d in toc[1:] if (ROOT / f"{d}.md").is_file()
                       and is_notebook_source(ROOT / f"{d}.md")]
    assert docs, "no chapters found in _toc.yml"
    unlinked = [d for d in docs
                if not links_notation((ROOT / f"{d}.md").read_text(encoding="utf-8"))]
    assert not unlinked, (
        f"chapters that do not link the notation page ({{ref}}`notation`): {unlinked}")


def test_the_appendix_pages_are_in_the_toc():
    docs = toc_files()
    for page in ("book/notation", "book/glossary", "book/readings"):
        assert page in docs, f"{page} is not in _toc.yml"
    first, heading = myst.read((BOOK / "notation.md").read_text(encoding="utf-8")).blocks[:2]
    assert isinstance(first, myst.Label) and first.name == "notation" and first.line == 1
    assert isinstance(heading, myst.Heading) and heading.level == 1 and heading.line == 2
    assert heading.title.startswith("Notation")


@pytest.mark.parametrize("group", ["package", "book", "tests"])
def test_no_reference_to_internal_documents(group):
    files = {"package": _package_files, "book": _book_files, "tests": _test_files}[group]()
    hits = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        hits += [f"{path.relative_to(ROOT)}:{line}" for line in internal_references(text)]
    assert not hits, "references to internal working documents:\n" + "\n".join(hits)


def test_no_internal_wording_in_the_chapters():
    hits = []
    for path in _chapter_files():
        text = _front_matter_stripped(path.read_text(encoding="utf-8"))
        hits += [f"{path.relative_to(ROOT)}:{line}"
                 for line in internal_references(text, INTERNAL_WORDING)]
    assert not hits, "internal wording in the chapters:\n" + "\n".join(hits)


# ------------------------------------------------------- the rules catch broken examples
def test_rules_catch_a_broken_example():
    page = "(reading-known)=\n### A reading\n\nSee {ref}`reading-known`.\n"
    docstring = ('"""Uses ``reading-known`` and ``reading-unknown`` (book appendix), and\n'
                 'erratum-typo-in-lemma; proof-reading-style is a word."""\n')
    assert defined_labels(page) == {"reading-known"}
    assert defined_labels("```text\n(reading-shown)=\n```\n") == set()   # code defines none
    assert cited_names(docstring) == {"reading-known", "reading-unknown", "erratum-typo-in-lemma"}
    assert cited_names(docstring) - defined_labels(page) == {"reading-unknown",
                                                            "erratum-typo-in-lemma"}
    assert links_notation("Notation: see {ref}`notation`.")
    assert links_notation("See {ref}`the notation page <notation>`.")
    assert links_notation("See {doc}`notation`.") and links_notation("[symbols](notation.md)")
    assert not links_notation("See {ref}`glossary` and {ref}`notation-free`.")
    for bad in ("as in the spec of the paper", "(spec 002, A1)", "see [AMBIG-3]", "AMB-10",
                "reading [A7]", "DESIGN.md says", "the design notes", "issue 14 asks",
                "spec §6.2 order", "spec seed001"):
        assert internal_references(bad), bad
    for fine in ('spec = importlib.util.spec_from_file_location("x", p)', "a specific case",
                 "respectively", "the spectrum", "kernelspec", "Algorithm 3 as specified"):
        assert not internal_references(fine), fine
    for bad in ("the spec of the paper", "the seed papers", "the project's rule",
                "our project tracker", "the Specification we follow"):
        assert internal_references(bad, INTERNAL_WORDING), bad
    for fine in ("a special case", "specific to", "with respect to", "inspect the output",
                 "not specified by the paper", "gridspec_kw"):
        assert not internal_references(fine, INTERNAL_WORDING), fine
