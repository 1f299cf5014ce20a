"""A reader's audit of every page of the built book, in a real browser.

``python -m bookkit.page_audit --html DIR`` serves the built HTML folder ``DIR`` over HTTP on
127.0.0.1 (a thread of :mod:`http.server` on a free port), opens every page in headless Chromium
(Debian's ``chromium``, driven by Playwright) at a :data:`WINDOW_WIDTH_PX` px wide window, and
checks what a reader sees:

* **math**: every math element typeset by MathJax (after MathJax's start-up promise), no MathJax
  error node, and no ``$$``, ``\\begin``, ``\\frac``, ``\\(`` or ``\\[`` left in the text outside
  code (a formula the MyST parser took for text);
* **overflow**: no printed line wider than its box (long lines must wrap or be printed narrower)
  and no output, table or image wider than the content column unless it sits in a box of its
  own that scrolls inside the column (wide tables);
* **accessibility**: axe-core (bundled by ``axe-playwright-python``) finds no violation of
  impact "critical" or "serious" (the lower impacts are reported, not failed);
* **images**: every ``<img>`` loads and has an alt text that says what it shows: not missing
  or empty, not a file name, path or hash, and at least :data:`MIN_ALT_WORDS` words;
* **the page itself**: no console error or uncaught exception from the site's own scripts, no
  failed request to the site and no HTTP error from it, no request leaving the machine (the
  book works offline), every ipywidgets view rendered, no traceback in a cell's output except
  in cells tagged ``raises-exception``, and no unresolved reference ("??").

Each page's result also lists the images of its cells' outputs with their natural and shown
widths and their place (captioned, in a box, a widget's drawing), for the figure audit's display
model.

The checks of overflow run after every collapsed box (hidden input or output, an exercise's
solution) has been opened, so a line cut off inside a solution is found too; axe runs before,
on the page as a reader first sees it. One browser and one tab serve all pages.

The audit writes a JSON report (``--json``, default ``_build/page-audit.json``): per page its
numbers and problems, and the totals, and exits with status 1 when any page has a problem.
``tests/test_page_audit.py`` runs it over the quick build and over hand-written broken pages,
which it must fail; ``make book`` runs it over the paper-scale build.
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import re
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple
from urllib.parse import urlsplit

from .book import ROOT, toc_files

__all__ = [
    "WINDOW_WIDTH_PX",
    "BLOCKING_IMPACTS",
    "MIN_ALT_WORDS",
    "PageResult",
    "alt_text_problem",
    "raw_tex_snippets",
    "site_pages",
    "serve",
    "open_browser",
    "audit_page",
    "audit_site",
    "summarise",
    "main",
]

#: Width of the browser window, in CSS pixels.
WINDOW_WIDTH_PX = 1280
WINDOW_HEIGHT_PX = 900
#: axe-core impacts that fail the audit.
BLOCKING_IMPACTS = ("critical", "serious")
#: Fewest words an alt text needs to say what a figure shows.
MIN_ALT_WORDS = 4
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
LOAD_MS = 60_000                     # a page's load (a long page on a busy machine)
WAIT_MS = 20_000                     # each further wait: widgets, images
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
#: Pages of a Sphinx build that are not in the table of contents but that a reader opens.
EXTRA_PAGES = ("genindex.html", "py-modindex.html", "prf-prf.html", "search.html")

# ------------------------------------------------------------------ the checks in the page
_MATH_JS = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const untypeset = Array.from(document.querySelectorAll('.math'))
    .filter(m => m.tagName !== 'MJX-CONTAINER' && !m.querySelector('mjx-container'))
    .map(m => m.textContent.trim().slice(0, 80));
  const errors = Array.from(document.querySelectorAll('mjx-merror, [data-mjx-error]'))
    .map(e => (e.getAttribute('data-mjx-error') || e.textContent).slice(0, 80));
  const skip = 'pre, code, kbd, samp, script, style, textarea, mjx-container, .highlight, .math';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.textContent.trim() && !n.parentElement.closest(skip)) texts.push(n.textContent);
  }
  return {typeset: document.querySelectorAll('mjx-container').length, untypeset, errors,
          text: texts.join(' ')};
}"""

_IMAGES_JS = """() => Array.from(document.images).map(i => ({
  src: i.getAttribute('src') || '', alt: i.getAttribute('alt'), content: !!i.closest('article'),
  hidden: i.getAttribute('aria-hidden') === 'true' || i.getAttribute('role') === 'presentation'
}))"""

#: Whether each ipywidgets view of the page has been rendered by the widget manager.
_WIDGETS_JS = """() => Array.from(document.querySelectorAll(
    'script[type="application/vnd.jupyter.widget-view+json"]')).map(s => {
  const area = s.previousElementSibling;
  return !!(area && area.classList.contains('widget-subarea') && area.childElementCount > 0);
})"""

#: Cells' outputs showing a traceback, outside cells that raise on purpose.
_OUTPUT_ERRORS_JS = """() => Array.from(document.querySelectorAll('div.cell_output'))
  .filter(o => !o.closest('.tag_raises-exception'))
  .filter(o => o.querySelector('.traceback, .output.error, .output.stderr.error')
               || o.innerText.includes('Traceback (most recent call last)'))
  .map(o => o.innerText.slice(0, 200))"""

#: Images that did not load.
_UNLOADED_JS = """() => Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0))
  .map(i => i.getAttribute('src') || '(no src)')"""

#: The images of the cells' outputs, with their widths and places.
_SHOWN_IMAGES_JS = """() => Array.from(document.querySelectorAll('div.cell_output img')).map(i => ({
  src: (i.getAttribute('src') || '').slice(0, 120), natural: i.naturalWidth,
  shown: i.getBoundingClientRect().width, captioned: !!i.closest('figure'),
  boxed: !!i.closest('.admonition, details'), admonition: !!i.closest('.admonition'),
  widget: !!i.closest('.widget-subarea')}))"""

_EXPAND_JS = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; });
}"""

_OVERFLOW_JS = """() => {
  const article = document.querySelector('article.bd-article') || document.querySelector('article')
    || document.querySelector('main') || document.body;
  const style = getComputedStyle(article), box = article.getBoundingClientRect();
  const left = box.left + parseFloat(style.paddingLeft);
  const right = box.right - parseFloat(style.paddingRight);
  const scrolls = el => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
  const inColumn = b => b.left >= left - 1 && b.right <= right + 1;     // 1 px for rounding
  const name = el => el.tagName.toLowerCase()
    + (el.className && typeof el.className === 'string'
       ? '.' + el.className.trim().split(/\\s+/).slice(0, 3).join('.') : '');
  const out = [];
  const printed = article.querySelectorAll('.cell_output pre, .output pre, pre.output');
  for (const pre of printed) {
    if (pre.clientWidth > 0 && pre.scrollWidth > pre.clientWidth + 1) {
      const longest = pre.textContent.split('\\n')
        .reduce((a, b) => b.length > a.length ? b : a, '');
      out.push({what: 'printed line wider than its box', element: name(pre),
                width: pre.scrollWidth, box: pre.clientWidth, text: longest.slice(0, 120)});
    }
  }
  const blocks = article.querySelectorAll(
    '.cell_output, .cell_output > *, .output, table, img, pre');
  for (const el of blocks) {
    const b = el.getBoundingClientRect();
    if (b.width === 0 || inColumn(b)) continue;
    let held = false;
    for (let a = el.parentElement; a && a !== article; a = a.parentElement) {
      if (scrolls(a) && inColumn(a.getBoundingClientRect())) { held = true; break; }
    }
    if (!held) {
      out.push({what: 'wider than the content column', element: name(el),
                width: Math.round(b.width), box: Math.round(right - left),
                text: (el.innerText || el.getAttribute('alt') || '').trim().slice(0, 120)});
    }
  }
  return {column: Math.round(right - left), problems: out};
}"""

#: TeX a parsed page never shows as text (outside code): delimiters, commands, ``$x$``.
_RAW_TEX = re.compile(r"\$\$|\\begin\b|\\frac\b|\\\(|\\\)|\\\[|\\\]"
                      r"|\$[^$\s][^$\n]*?[^\s$]\$|\$[^$\s]\$")
#: An image's file name, path or hash where its alt text should be.
_FILE_LIKE = re.compile(r"\.(png|jpe?g|svg|gif|webp)\b|_images/|_static/|\.\./"
                        r"|\b[0-9a-f]{16,}\b|^\S*/\S*$", re.IGNORECASE)


def raw_tex_snippets(text: str, context: int = 30) -> List[str]:
    """Every place in ``text`` (a page's text outside code) with raw TeX, with some context."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return [" ".join(text[max(0, m.start() - context): m.end() + context].split())
            for m in _RAW_TEX.finditer(text)]


def alt_text_problem(alt: Optional[str], src: str = "", figure: bool = True) -> Optional[str]:
    """Why ``alt`` does not say what an image shows (None when it does).

    Parameters
    ----------
    alt : str or None
        The image's alt attribute (None when it has none).
    src : str
        The image's address, which an alt text must not repeat.
    figure : bool
        The image is part of the page's content (a figure), whose alt text needs at least
        :data:`MIN_ALT_WORDS` words; an icon of the page's frame (a logo of a launch button)
        needs only a name.
    """
    if alt is not None and not isinstance(alt, str):
        raise TypeError(f"alt must be a str or None, got {type(alt).__name__}")
    if alt is None:
        return "no alt attribute"
    text = alt.strip()
    if not text:
        return "empty alt text"
    name = src.rsplit("/", 1)[-1]
    if text == src or (name and name in text) or _FILE_LIKE.search(text):
        return f"alt text is a file name, path or hash: {text[:80]!r}"
    if figure and len(text.split()) < MIN_ALT_WORDS:
        return f"alt text too short to say what the image shows: {text!r}"
    return None


@dataclass
class PageResult:
    """What the audit found on one page."""

    page: str
    url: str
    typeset_math: int = 0
    images: int = 0
    widgets: int = 0                                         # ipywidgets views
    column_px: int = 0
    math: List[str] = field(default_factory=list)
    overflow: List[dict] = field(default_factory=list)
    axe: Dict[str, dict] = field(default_factory=dict)      # rule id -> impact, nodes, help
    bad_images: List[dict] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)          # the page did not load, ...
    #: console errors, uncaught exceptions, failed requests, requests off the machine
    console: List[str] = field(default_factory=list)
    unloaded_images: List[str] = field(default_factory=list)
    output_errors: List[str] = field(default_factory=list)
    unresolved: List[str] = field(default_factory=list)      # "??" where a reference failed
    #: the cells' output images: src, natural and shown width, captioned, boxed, admonition,
    #: widget
    shown_images: List[dict] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def blocking_axe(self) -> Dict[str, dict]:
        return {rule: v for rule, v in self.axe.items() if v["impact"] in BLOCKING_IMPACTS}

    @property
    def problems(self) -> List[str]:
        """One line per failure on the page."""
        out = list(self.errors) + list(self.console) + list(self.math)
        out += [f"image did not load: {src}" for src in self.unloaded_images]
        out += [f"error output outside a raises-exception cell: {text!r}"
                for text in self.output_errors]
        out += [f"unresolved reference: ...{text}..." for text in self.unresolved]
        out += [f"{o['what']} ({o['width']} px in {o['box']} px): {o['element']} {o['text']!r}"
                for o in self.overflow]
        out += [f"axe {rule} ({v['impact']}, {v['nodes']} element(s)): {v['help']}; e.g. "
                f"{', '.join(v['targets'])}" for rule, v in self.blocking_axe.items()]
        out += [f"image {img['src']}: {img['problem']}" for img in self.bad_images]
        return out

    def as_json(self) -> dict:
        return dict(asdict(self), problems=self.problems, ok=not self.problems)


# ------------------------------------------------------------------ server and browser
class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A browser or link checker that closes a connection early: not the site's fault.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(directory) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 (a free port) in a thread; yields the root URL."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ValueError(f"directory must be an existing folder, got {str(directory)!r}")
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def open_browser(executable: str = CHROMIUM):
    """A headless Chromium browser context with a :data:`WINDOW_WIDTH_PX` px window."""
    # optional dependency: only the audit needs Playwright
    from playwright.sync_api import sync_playwright

    if not Path(executable).exists() and shutil.which(executable) is None:
        raise ValueError(f"executable must be a Chromium binary, got {executable!r} "
                         "(apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="page-audit-chromium-") as profile, \
            sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=executable, headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": WINDOW_WIDTH_PX, "height": WINDOW_HEIGHT_PX})
        try:
            yield context
        finally:
            context.close()


def _keep_local(route) -> None:
    """Let requests to this machine through; abort the others (the book works offline)."""
    parts = urlsplit(route.request.url)
    if parts.scheme in ("data", "blob") or parts.hostname in LOCAL_HOSTS:
        route.continue_()
    else:
        route.abort()


def _axe_results(page, axe) -> Dict[str, dict]:
    response = axe.run(page).response
    return {v["id"]: {"impact": v.get("impact") or "unknown", "nodes": len(v.get("nodes", [])),
                      "help": v.get("help", ""),
                      "targets": [" ".join(map(str, n.get("target", [])))[:100]
                                  for n in v.get("nodes", [])[:3]],
                      "summary": " ".join(
                          (v.get("nodes") or [{}])[0].get("failureSummary", "").split())[:300]}
            for v in response.get("violations", [])}


def audit_page(page, axe, url: str, name: Optional[str] = None,
               screenshot: Optional[Path] = None) -> PageResult:
    """Open ``url`` in the Playwright ``page`` (a tab, reused) and audit it.

    ``axe`` is an ``axe_playwright_python.sync_playwright.Axe``; ``screenshot`` (a PNG path)
    takes a full-page screenshot as the reader first sees the page.
    """
    result = PageResult(page=name or url, url=url)
    start = time.perf_counter()
    recording = [True]                   # off while axe-core runs (see _listen)
    listeners = _listen(page, url, result.console, recording)
    try:
        response = page.goto(url, wait_until="load", timeout=LOAD_MS)
        if response is None or not response.ok:
            result.errors.append(f"page did not load: HTTP {response and response.status}")
            return result
        views = page.evaluate(_WIDGETS_JS)
        result.widgets = len(views)
        if views:                                    # widgets render after the page's load
            with contextlib.suppress(Exception):     # a widget that never renders: audited as is
                page.wait_for_function(f"() => ({_WIDGETS_JS})().every(x => x)", timeout=WAIT_MS)
            missing = page.evaluate(_WIDGETS_JS).count(False)
            if missing:
                result.errors.append(f"{missing} of {len(views)} widgets did not render")
        math = page.evaluate(_MATH_JS)
        result.typeset_math = math["typeset"]
        result.math += [f"math not typeset by MathJax: {t!r}" for t in math["untypeset"]]
        result.math += [f"MathJax error: {t!r}" for t in math["errors"]]
        result.math += [f"raw TeX in the text: ...{s}..." for s in raw_tex_snippets(math["text"])]
        result.unresolved = [" ".join(math["text"][max(0, m.start() - 40): m.end() + 5].split())
                             for m in re.finditer(r"\?\?", math["text"])]
        result.output_errors = page.evaluate(_OUTPUT_ERRORS_JS)
        images = page.evaluate(_IMAGES_JS)
        result.images = len(images)
        for img in images:
            problem = None if img["hidden"] else alt_text_problem(img["alt"], img["src"],
                                                                        img["content"])
            if problem:
                result.bad_images.append({"src": img["src"][:120], "problem": problem})
        if screenshot is not None:                   # for people to look at; not a check
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            try:
                page.screenshot(path=str(screenshot), full_page=True, timeout=LOAD_MS)
            except Exception as exc:
                print(f"page_audit: no screenshot of {result.page}: {exc}", file=sys.stderr)
        recording[0] = False             # the rest of the audit reads; axe fetches (_listen)
        result.axe = _axe_results(page, axe)
        page.evaluate(_EXPAND_JS)
        with contextlib.suppress(Exception):        # an image that never loads: measured as is
            page.wait_for_function("() => Array.from(document.images).every(i => i.complete)",
                                   timeout=WAIT_MS)
        result.unloaded_images = page.evaluate(_UNLOADED_JS)
        result.shown_images = page.evaluate(_SHOWN_IMAGES_JS)
        overflow = page.evaluate(_OVERFLOW_JS)
        result.column_px, result.overflow = overflow["column"], overflow["problems"]
    except Exception as exc:                         # report the page, audit the others
        result.errors.append(f"audit failed: {type(exc).__name__}: {exc}")
    finally:
        for event, listener in listeners:
            page.remove_listener(event, listener)
        result.seconds = round(time.perf_counter() - start, 2)
    return result


def _listen(page, url: str, found: List[str],
            recording: List[bool]) -> List[Tuple[str, Callable]]:
    """Record into ``found`` what the page's console and network report while ``url`` is open
    and ``recording[0]`` is true: errors of the site's own scripts, failed requests to the site
    and its HTTP errors, requests off the machine (which :func:`_keep_local` aborts). axe-core
    re-reads the style sheets, resolving their ``@import`` against the page (a 404 no reader
    meets), so the audit stops recording when it starts axe, its last step that loads anything
    (images that fail to load later are found by their size). Returns the listeners, to remove
    afterwards."""
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))

    def note(text: str) -> None:
        if recording[0]:
            found.append(text)

    def on_console(msg):
        where = (msg.location or {}).get("url", "") or ""
        if msg.type == "error" and (where.startswith(origin) or not where):
            note(f"console error: {msg.text} [{where}]")

    def on_request(request):
        parts = urlsplit(request.url)
        if parts.scheme not in ("data", "blob") and parts.hostname not in LOCAL_HOSTS:
            note(f"network request off the machine: {request.url}")

    def on_failed(request):
        if urlsplit(request.url).hostname in LOCAL_HOSTS:
            note(f"failed request: {request.url} ({request.failure})")

    def on_response(response):
        if response.status >= 400 and urlsplit(response.url).hostname in LOCAL_HOSTS:
            note(f"HTTP {response.status}: {response.url}")

    listeners = [("console", on_console), ("request", on_request), ("requestfailed", on_failed),
                 ("response", on_response),
                 ("pageerror", lambda exc: note(f"uncaught exception: {exc}"))]
    for event, listener in listeners:
        page.on(event, listener)
    return listeners


def audit_site(context, root_url: str, pages: Sequence[str],
               screenshots: Optional[Path] = None,
               on_page: Optional[Callable[[PageResult], None]] = None) -> List[PageResult]:
    """Audit ``pages`` (paths relative to ``root_url``) in one tab of the browser ``context``;
    ``on_page`` is called with each page's result as soon as it is audited."""
    # optional dependency: only the audit needs axe-core
    from axe_playwright_python.sync_playwright import Axe

    if isinstance(pages, str):
        raise TypeError("pages must be a sequence of page paths, got a str")
    axe = Axe()
    page = context.new_page()
    page.route("**/*", _keep_local)
    results = []
    try:
        for p in pages:
            results.append(audit_page(
                page, axe, root_url + p, name=p, screenshot=None if screenshots is None else
                screenshots / (p.replace("/", "__").replace(".html", "") + ".png")))
            if on_page is not None:
                on_page(results[-1])
        return results
    finally:
        page.close()


def site_pages(html) -> List[str]:
    """The pages of a built book: every page of the table of contents, then the index pages."""
    html = Path(html)
    pages = [f"{doc}.html" for doc in toc_files()] + list(EXTRA_PAGES)
    return [p for p in pages if (html / p).exists()]


def summarise(results: Sequence[PageResult]) -> dict:
    """The totals of an audit: pages, failing pages, and each kind of failure counted."""
    axe_rules: Counter = Counter()
    for r in results:
        axe_rules.update(r.blocking_axe.keys())
    return {
        "pages": len(results),
        "pages_failing": sum(1 for r in results if r.problems),
        "math_failures": sum(len(r.math) for r in results),
        "overflows": sum(len(r.overflow) for r in results),
        "axe_blocking_pages_by_rule": dict(sorted(axe_rules.items())),
        "axe_blocking_violations": sum(len(r.blocking_axe) for r in results),
        "images": sum(r.images for r in results),
        "images_without_good_alt": sum(len(r.bad_images) for r in results),
        "images_not_loaded": sum(len(r.unloaded_images) for r in results),
        "console_and_network_errors": sum(len(r.console) for r in results),
        "error_outputs": sum(len(r.output_errors) for r in results),
        "unresolved_references": sum(len(r.unresolved) for r in results),
        "page_errors": sum(len(r.errors) for r in results),
        "seconds": round(sum(r.seconds for r in results), 1),
    }


def _report(results: Sequence[PageResult], html: Path) -> Tuple[dict, str]:
    totals = summarise(results)
    lines = [f"failing pages: {', '.join(r.page for r in results if r.problems) or 'none'}"]
    lines.append("page audit: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    report = {"html": str(html), "window_px": WINDOW_WIDTH_PX,
              "blocking_impacts": list(BLOCKING_IMPACTS), "totals": totals,
              "pages": [r.as_json() for r in results]}
    return report, "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, required=True, help="the built HTML folder")
    parser.add_argument("--pages", nargs="+",
                        help="page paths relative to --html (default: every page of the book)")
    parser.add_argument("--json", type=Path, default=ROOT / "_build" / "page-audit.json",
                        help="where to write the report (default _build/page-audit.json)")
    parser.add_argument("--screenshots", type=Path, help="folder for a screenshot of each page")
    parser.add_argument("--chromium", default=CHROMIUM, help=f"browser (default {CHROMIUM})")
    args = parser.parse_args(argv)
    if not args.html.is_dir():
        print(f"page_audit: --html must be a built HTML folder, got {args.html}", file=sys.stderr)
        return 2
    pages = args.pages or site_pages(args.html)
    missing = [p for p in pages if not (args.html / p).exists()]
    if missing or not pages:
        print(f"page_audit: no such page(s) in {args.html}: {missing or 'none found'}",
              file=sys.stderr)
        return 2
    with serve(args.html) as root, open_browser(args.chromium) as context:
        results = audit_site(context, root, pages, args.screenshots, on_page=lambda r: print(
            f"{r.page}: {len(r.problems)} problem(s), {r.seconds:.0f} s"
            + "".join(f"\n  - {p}" for p in r.problems[:20]), flush=True))
    report, text = _report(results, args.html)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(text)
    print(f"page audit report: {args.json}")
    return 1 if report["totals"]["pages_failing"] else 0


if __name__ == "__main__":
    sys.exit(main())
