"""The PDF edition: one chapter printed from the quick book build (``bookkit.pdf``).

Checks what a lecturer printing the chapter would look at: it has a sensible number of pages, it
contains the chapter's theorem titles, its math was typeset by MathJax (formulas counted in the
page, math symbols in the PDF text, no TeX source), no MyST markup leaked, and the pages carry ink.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bookkit import myst

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = "primer"

pytestmark = [pytest.mark.book, pytest.mark.xdist_group("book")]

# Markup that must never reach a printed page: MyST roles and directives, TeX sources.
LEFTOVERS = [r"\{prf:", r"\{cite", r"\{ref\}", r"\{doc\}", r"\{eq\}", r"```\{", r"^:::",
             r"\\frac", r"\\varepsilon", r"\\sqrt", r"\\mathbb", r"\$\$", r"\\\(", r"\\\["]


def _theorem_titles(md: Path) -> list[str]:
    """The titles of the chapter's ``{prf:theorem}`` directives (the arguments of those that
    have one), as :func:`bookkit.myst.read` reads the chapter."""
    titles = [b.arg for b in myst.read(md.read_text(encoding="utf-8")).walk()
              if isinstance(b, myst.Directive) and b.name == "prf:theorem" and b.arg]
    return [t for t in titles if "$" not in t]   # titles with math print as symbols


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def chapter_pdf(quick_book, tmp_path_factory):
    if not (Path("/usr/bin/chromium").exists() and shutil.which("pdftotext")):
        pytest.fail("the PDF test needs Debian's chromium and poppler-utils: run "
                    "tools/install_debian_deps.sh (.ci/run does)")
    out = tmp_path_factory.mktemp("pdf") / f"{CHAPTER}.pdf"
    proc = subprocess.run([sys.executable, "-m", "bookkit.pdf", "--html",
                           str(quick_book.html), "--chapter", CHAPTER, "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    n_math = int(re.search(r"(\d+) typeset formulas", proc.stdout).group(1))
    text = subprocess.run(["pdftotext", "-layout", str(out), "-"], capture_output=True,
                          text=True, check=True).stdout
    info = subprocess.run(["pdfinfo", str(out)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    return out, text, pages, n_math


def test_chapter_pdf_has_a_plausible_number_of_pages(chapter_pdf):
    _, _, pages, _ = chapter_pdf
    # The primer is a full chapter (about 460 source lines, three figures, 17 A4 pages): fewer
    # than 10 pages would mean content was cut, more than 80 that the layout broke (one line a
    # page).
    assert 10 <= pages <= 80, pages


def test_chapter_pdf_contains_every_theorem_title(chapter_pdf):
    _, text, _, _ = chapter_pdf
    titles = _theorem_titles(ROOT / "book" / f"{CHAPTER}.md")
    assert titles, "the primer states theorems"
    flat = _collapse(text)
    missing = [t for t in titles if _collapse(t) not in flat]
    assert not missing, f"theorem titles not in the PDF: {missing}"


def test_chapter_pdf_math_is_typeset(chapter_pdf):
    _, text, _, n_math = chapter_pdf
    assert n_math >= 50, f"only {n_math} MathJax formulas on the printed page"
    for symbol in ("ε", "Δ", "√"):   # typeset symbols, extracted from MathJax's glyphs
        assert symbol in text, f"{symbol!r} not in the PDF text"


def test_chapter_pdf_shows_no_raw_markup(chapter_pdf):
    _, text, _, _ = chapter_pdf
    found = {pat: m.group(0) for pat in LEFTOVERS
             if (m := re.search(pat, text, re.M)) is not None}
    assert not found, f"raw MyST or LaTeX in the PDF: {found}"


def test_chapter_pdf_pages_carry_ink(chapter_pdf, tmp_path):
    """Rasterise every page: each has text or figures (a blank page means a print failure)."""
    pdf, _, _, _ = chapter_pdf
    subprocess.run(["pdftoppm", "-r", "60", "-gray", str(pdf), str(tmp_path / "p")], check=True)
    for page in sorted(tmp_path.glob("p-*.pgm")):
        data = page.read_bytes()
        header_end = data.index(b"255\n") + 4           # binary PGM: P5 w h 255\n pixels
        pixels = data[header_end:]
        ink = sum(1 for b in pixels if b < 160) / len(pixels)
        # A page with only the footer line has about 0.05 % ink; the emptiest real page of the
        # primer (a figure, its caption and one sentence, the rest pushed to the next sheet so
        # a code cell is not split) has about 1.5 %.
        assert ink > 0.003, f"{page.name} is blank ({ink:.2%} of its pixels carry ink)"
