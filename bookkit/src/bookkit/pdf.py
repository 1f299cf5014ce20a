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

The pages are printed one by one and joined with pypdf (:func:`join_parts`), which makes the book
one document: every element with an ``id`` becomes a named destination when printed (hidden links
to each one make Chromium emit them), so links between chapters become links inside the PDF;
links to pages that are not printed (downloads, the figure files) point at the book's site,
never at the ``file://`` path of the machine that printed it; the outline has one entry per
chapter and one per section; the page numbers run through the book (they are stamped on
afterwards, since Chromium numbers each printed page from 1).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional
from urllib.parse import unquote, urljoin, urlsplit

from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    Fit,
    FloatObject,
    NameObject,
    NullObject,
    TextStringObject,
)

from .book import ROOT, book_site_url, toc_files

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



# Hidden links to every element with an id, so that Chromium writes a named destination for each
# (it writes one only for the targets of the page's own links); the tiny link annotations they
# leave are removed when the parts are joined.
DESTINATIONS_JS = """
() => {
  const box = document.createElement('div');
  box.setAttribute('style', 'position:absolute;left:0;top:0;width:1px;height:1px;'
                   + 'overflow:hidden');
  box.className = 'dpolearn-pdf-destinations';
  document.querySelectorAll('[id]').forEach(e => {
    const a = document.createElement('a');        // no text: nothing to select or extract
    a.href = '#' + e.id; a.setAttribute('style', 'display:block;width:1px;height:1px');
    box.appendChild(a);
  });
  document.body.appendChild(box);
}
"""

# The chapter's title and its sections (h2 in the article), for the outline.
HEADINGS_JS = """
() => {
  const clean = h => h.textContent.replace(/[#\\u00b6]/g, '').replace(/\\s+/g, ' ').trim();
  const article = document.querySelector('article') || document.body;
  const h1 = article.querySelector('h1');
  const sections = [];
  article.querySelectorAll('section > h2').forEach(h => {
    const id = h.parentElement.id;
    if (id) { sections.push([id, clean(h)]); }
  });
  return {title: h1 ? clean(h1) : document.title, sections: sections};
}
"""

FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;">'
          '<span class="title"></span></div>')

# One sheet per page number, stamped onto the printed pages: the numbers run through the book.
NUMBER_SHEETS_CSS = "<style>@page { size: A4; margin: 0; } body { margin: 0; }</style>"
NUMBER_SHEET = ('<div style="position:relative;height:296mm;break-after:page;">'
                '<div style="position:absolute;bottom:6.5mm;right:14mm;font:9px sans-serif;">'
                '{n}</div></div>')

#: What a printed page may load: its own files and inline data.
LOCAL_SCHEMES = ("file", "data", "blob")
#: A page's load, on a busy 2-core machine (the largest chapters take tens of seconds).
LOAD_TIMEOUT_MS = 180_000

#: Link annotations at most this size (points) are the hidden destination links.
TINY = 1.0


@dataclass
class PrintedPage:
    """One HTML page printed to its own PDF."""

    doc: str                        # the page's path in the HTML build, without .html
    pdf: Path
    title: str
    sections: list = field(default_factory=list)     # [(id, title)]


def check_tools() -> None:
    """Fail with one line naming the missing Debian package (tools/install_debian_deps.sh)."""
    if not Path(CHROMIUM).exists():
        sys.exit("pdf: Debian's chromium is missing; run tools/install_debian_deps.sh (as root)")


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


def chapter_pdf_name(doc: str) -> str:
    """File name of the PDF of one page (``book/api/index`` -> ``api-index.pdf``)."""
    return doc.removeprefix("book/").replace("/", "-") + ".pdf"


def print_pages(pages: list[Path], out: Path, html: Optional[Path] = None,
                base_url: Optional[str] = None, chapters: Optional[Path] = None) -> int:
    """Print each page to PDF and join them into ``out`` (:func:`join_parts`); returns the
    number of math elements.

    ``html`` is the root of the HTML build (default: the pages' common folder); links to pages
    of it that are not printed point at ``base_url`` (default: the book's site,
    :func:`bookkit.book.book_site_url`). With ``chapters``, each page is also written there as a
    PDF of its own (:func:`chapter_pdf_name`), from the same print.
    """
    from playwright.sync_api import sync_playwright

    html = Path(html or os.path.commonpath([str(p.parent) for p in pages])).resolve()
    base_url = base_url or book_site_url()
    out.parent.mkdir(parents=True, exist_ok=True)
    n_math = 0
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        # The pages are printed from the disk: a request off the machine (a CDN the book does
        # not need offline) would only hold the "load" event back, or forever where the network
        # swallows connections.
        page.route("**/*", _local_only)
        printed = []
        for i, path in enumerate(pages):
            page.goto(path.resolve().as_uri(), wait_until="load", timeout=LOAD_TIMEOUT_MS)
            page.add_style_tag(content=PRINT_CSS)
            page.evaluate(EXPAND_JS)
            n_math += page.evaluate(WAIT_FOR_MATH_JS)
            headings = page.evaluate(HEADINGS_JS)
            page.evaluate(DESTINATIONS_JS)
            page.emulate_media(media="print")
            part = Path(tmp) / f"{i:03d}.pdf"
            page.pdf(path=str(part), format="A4", print_background=True,
                     display_header_footer=True, header_template="<span></span>",
                     footer_template=FOOTER,
                     margin={"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"})
            doc = path.resolve().relative_to(html).with_suffix("").as_posix()
            printed.append(PrintedPage(doc, part, headings["title"],
                                       [tuple(s) for s in headings["sections"]]))
        outputs = [(out, join_parts(printed, html, base_url))]
        if chapters is not None and len(printed) > 1:
            chapters.mkdir(parents=True, exist_ok=True)
            outputs += [(chapters / chapter_pdf_name(part.doc),
                         join_parts([part], html, base_url)) for part in printed]
        sheets = number_sheets(page, max(len(w.pages) for _, w in outputs), Path(tmp))
        browser.close()
        for path, writer in outputs:
            stamp_page_numbers(writer, sheets)
            with open(path, "wb") as fh:
                writer.write(fh)
    return n_math


def _local_only(route) -> None:
    if urlsplit(route.request.url).scheme in LOCAL_SCHEMES:
        route.continue_()
    else:
        route.abort()


def number_sheets(page, n_pages: int, tmp: Path) -> PdfReader:
    """``n_pages`` blank A4 sheets, sheet ``i`` carrying the page number ``i``, printed by the
    browser ``page``."""
    page.set_content(NUMBER_SHEETS_CSS + "".join(NUMBER_SHEET.format(n=n)
                                                 for n in range(1, n_pages + 1)))
    path = tmp / "numbers.pdf"
    page.pdf(path=str(path), format="A4",
             margin={"top": "0", "bottom": "0", "left": "0", "right": "0"})
    sheets = PdfReader(path)
    if len(sheets.pages) != n_pages:
        raise RuntimeError(f"pdf: {len(sheets.pages)} number sheets for {n_pages} pages")
    return sheets


def _destination(writer: PdfWriter, page_index: int, left: float, top: float) -> ArrayObject:
    return ArrayObject([writer.pages[page_index].indirect_reference, NameObject("/XYZ"),
                        FloatObject(left), FloatObject(top), NullObject()])


def _link_target(uri: str, html: Path) -> Optional[tuple[str, str]]:
    """``(path in the HTML build, fragment)`` of a ``file://`` link into it, else None."""
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return None
    try:
        rel = Path(unquote(parts.path)).resolve().relative_to(html).as_posix()
    except ValueError:
        return None
    return rel, unquote(parts.fragment)


def join_parts(printed: list[PrintedPage], html: Path, base_url: str) -> PdfWriter:
    """One PDF of the printed pages, with working links and an outline.

    Named destinations become explicit ones (``(doc, id)`` -> page and height); a link to a
    printed page (and anchor) jumps inside the PDF; a ``file://`` link to anything else of the
    HTML build is rewritten to the same path under ``base_url``; the hidden destination links
    are removed.
    """
    writer = PdfWriter()
    starts: dict[str, int] = {}
    dests: dict[tuple[str, str], tuple[int, float, float]] = {}
    for part in printed:
        reader = PdfReader(part.pdf)
        offset = len(writer.pages)
        starts[part.doc] = offset
        for name, dest in reader.named_destinations.items():
            number = reader.get_destination_page_number(dest)
            dests[(part.doc, str(name).lstrip("/"))] = (
                offset + number, float(dest.left or 0), float(dest.top or 0))
        for pdf_page in reader.pages:
            writer.add_page(pdf_page)
    base = base_url.rstrip("/") + "/"
    for index, part in enumerate(printed):
        end = starts[printed[index + 1].doc] if index + 1 < len(printed) else len(writer.pages)
        for page_index in range(starts[part.doc], end):
            _rewrite_links(writer, page_index, part.doc, starts, dests, html, base)
    for part in printed:
        parent = writer.add_outline_item(part.title, starts[part.doc])
        for anchor, title in part.sections:
            if (part.doc, anchor) in dests:
                number, left, top = dests[(part.doc, anchor)]
                writer.add_outline_item(title, number, parent=parent, fit=Fit.xyz(left, top))
    writer.page_mode = "/UseOutlines"
    return writer


def _rewrite_links(writer, page_index, doc, starts, dests, html, base) -> None:
    page = writer.pages[page_index]
    if "/Annots" not in page:
        return
    kept = ArrayObject()
    for ref in page["/Annots"]:
        annot = ref.get_object()
        if annot.get("/Subtype") != "/Link":
            kept.append(ref)
            continue
        x0, y0, x1, y1 = (float(v) for v in annot["/Rect"])
        if abs(x1 - x0) <= TINY and abs(y1 - y0) <= TINY:
            continue                                    # a hidden destination link
        target = None
        if "/Dest" in annot and not isinstance(annot["/Dest"], ArrayObject):
            target = (doc, str(annot["/Dest"]).lstrip("/"))
            del annot[NameObject("/Dest")]
        action = annot.get("/A")
        if action is not None and action.get("/S") == "/URI":
            found = _link_target(str(action["/URI"]), html)
            if found is not None:
                rel, fragment = found
                page_doc = rel.removesuffix(".html")
                if rel.endswith(".html") and page_doc in starts:
                    target = (page_doc, fragment)
                    del annot[NameObject("/A")]
                else:
                    action[NameObject("/URI")] = TextStringObject(
                        urljoin(base, rel) + (f"#{fragment}" if fragment else ""))
        if target is not None:
            if target in dests:
                number, left, top = dests[target]
                annot[NameObject("/Dest")] = _destination(writer, number, left, top)
            else:                                       # the page itself, from its top
                start = starts.get(target[0], starts[doc])
                box = writer.pages[start].mediabox
                annot[NameObject("/Dest")] = _destination(writer, start, 0, float(box.top))
        kept.append(ref)
    page[NameObject("/Annots")] = kept


def stamp_page_numbers(writer: PdfWriter, numbers: PdfReader) -> None:
    """Overlay page ``i`` of ``numbers`` (the number ``i``) onto page ``i`` of ``writer``."""
    if len(numbers.pages) < len(writer.pages):
        raise ValueError(f"numbers has {len(numbers.pages)} sheets, fewer than the "
                         f"{len(writer.pages)} pages to number")
    for page, sheet in zip(writer.pages, numbers.pages):
        page.merge_page(sheet)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, required=True, help="the built HTML folder")
    parser.add_argument("--chapter", help="print only book/<chapter>.html")
    parser.add_argument("--out", type=Path, help="output PDF (default _build/pdf/<name>.pdf)")
    parser.add_argument("--chapters", type=Path, help="also write one PDF per page here")
    parser.add_argument("--base-url", help="the book's site, for links to pages not printed "
                        "(default: html.baseurl of _config.yml or the repository's Pages site)")
    args = parser.parse_args(argv)
    if args.chapter and not (ROOT / "book" / f"{args.chapter}.md").exists():
        print(f"pdf: no chapter book/{args.chapter}.md", file=sys.stderr)
        return 2
    check_tools()
    pages = page_paths(args.html, args.chapter)
    out = args.out or ROOT / "_build" / "pdf" / f"{args.chapter or 'dpolearn'}.pdf"
    n_math = print_pages(pages, out, html=args.html, base_url=args.base_url,
                         chapters=args.chapters)
    print(f"pdf: {out} ({len(pages)} page(s) of HTML, {n_math} typeset formulas)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
