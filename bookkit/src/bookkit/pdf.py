#!/usr/bin/env python3
"""Print the built book (or one chapter) to PDF with headless Chromium.

    .venv/bin/python -m bookkit.pdf --html _build/html                      # whole book
    .venv/bin/python -m bookkit.pdf --html _build/chapter-primer/_build/html --chapter primer

``make pdf`` and ``make pdf CHAPTER=primer`` build the HTML first and then call this script; the
PDFs land in ``_build/pdf/`` (``dpolearn.pdf`` for the book, ``<chapter>.pdf`` for one chapter).

Why Chromium and not LaTeX: the pages are printed exactly as readers see them (MathJax-typeset
math, the executed figures, the theorem and algorithm boxes, the exercises), from the same HTML
build, with the browser the tests already use; a chapter prints in seconds, with no 1-2 GB TeX
installation and no second set of templates to keep in step with the site. The theme's print
style sheet drops the navigation; this script adds a few print rules (page margins, no launch
buttons, solutions and proofs expanded, figures kept whole) and waits for MathJax before printing.
Several pages are joined with ``pdfunite`` (Debian's poppler-utils).
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .book import ROOT, toc_files

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]

# Print rules added to every page: no buttons or navigation, dropdowns open (a printed page
# cannot be clicked), no figure or box split across two sheets where avoidable.
PRINT_CSS = """
@page { size: A4; margin: 16mm 14mm 18mm 14mm; }
.header-article, .bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .prev-next-area,
.bd-footer-article, .bd-footer-content, .headerlink, .theme-switch-button, .search-button,
.dropdown-launch-buttons, .article-header-buttons, #pst-back-to-top { display: none !important; }
.bd-page-width, .bd-main .bd-content .bd-article-container { max-width: 100% !important; }
.bd-article { padding: 0 !important; }
pre { white-space: pre-wrap !important; word-break: break-word; }
details { display: block; }
details > summary { list-style: none; font-weight: 600; }
details[open] > summary::after, details > summary::after { content: "" !important; }
figure, .cell_output img, div.proof, div.admonition, .cell_input { break-inside: avoid; }
h1, h2, h3 { break-after: avoid; }
"""

# Open every <details> (solutions, proofs, hidden inputs) and every toggle before printing.
EXPAND_JS = """
() => {
  document.querySelectorAll('details').forEach(d => d.open = true);
  document.querySelectorAll('.toggle-hidden, .toggle-details__container')
          .forEach(e => e.classList.remove('toggle-hidden'));
}
"""

WAIT_FOR_MATH_JS = """
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
    if (MathJax.typesetPromise) { await MathJax.typesetPromise(); }
  }
  return document.querySelectorAll('mjx-container').length;
}
"""


def check_tools() -> None:
    """Fail with one line naming the missing Debian package (tools/install_debian_deps.sh)."""
    if not Path(CHROMIUM).exists():
        sys.exit("pdf: Debian's chromium is missing; run tools/install_debian_deps.sh (as root)")
    if shutil.which("pdfunite") is None:
        sys.exit("pdf: pdfunite is missing (Debian's poppler-utils); "
                 "run tools/install_debian_deps.sh")


def page_paths(html: Path, chapter: str | None) -> list[Path]:
    """HTML pages to print, in table-of-contents order (the root page first for the book)."""
    if chapter:
        pages = [html / "book" / f"{chapter}.html"]
    else:
        pages = [html / f"{name}.html" for name in toc_files()]
    missing = [str(p) for p in pages if not p.exists()]
    if missing:
        sys.exit("pdf: not built: " + ", ".join(missing))
    return pages


def print_pages(pages: list[Path], out: Path) -> int:
    """Print each page to PDF and join them into ``out``; returns the number of math elements."""
    from playwright.sync_api import sync_playwright

    out.parent.mkdir(parents=True, exist_ok=True)
    n_math = 0
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        parts = []
        for i, path in enumerate(pages):
            page.goto(path.resolve().as_uri(), wait_until="load")
            page.add_style_tag(content=PRINT_CSS)
            page.evaluate(EXPAND_JS)
            n_math += page.evaluate(WAIT_FOR_MATH_JS)
            page.emulate_media(media="print")
            part = Path(tmp) / f"{i:03d}.pdf"
            page.pdf(path=str(part), format="A4", print_background=True,
                     display_header_footer=True, header_template="<span></span>",
                     footer_template=('<div style="font-size:8px;width:100%;text-align:center;">'
                                      '<span class="title"></span> &middot; '
                                      '<span class="pageNumber"></span></div>'),
                     margin={"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"})
            parts.append(str(part))
        browser.close()
        if len(parts) == 1:
            shutil.copyfile(parts[0], out)
        else:
            subprocess.run(["pdfunite", *parts, str(out)], check=True)
    return n_math


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, required=True, help="the built HTML folder")
    parser.add_argument("--chapter", help="print only book/<chapter>.html")
    parser.add_argument("--out", type=Path, help="output PDF (default _build/pdf/<name>.pdf)")
    args = parser.parse_args(argv)
    if args.chapter and not (ROOT / "book" / f"{args.chapter}.md").exists():
        print(f"pdf: no chapter book/{args.chapter}.md", file=sys.stderr)
        return 2
    check_tools()
    pages = page_paths(args.html, args.chapter)
    out = args.out or ROOT / "_build" / "pdf" / f"{args.chapter or 'dpolearn'}.pdf"
    n_math = print_pages(pages, out)
    print(f"pdf: {out} ({len(pages)} page(s) of HTML, {n_math} typeset formulas)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
