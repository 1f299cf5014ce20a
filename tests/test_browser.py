"""Real-browser test of the built book (Debian chromium driven by Playwright).

Serves the quick build (``_build/quick/_build/html``) on 127.0.0.1, opens every page of
``_toc.yml`` in headless Chromium (Debian's ``chromium``, driven by Playwright) and checks what a
reader sees:

* no console error or uncaught exception from our own pages (same origin);
* no request leaves the machine (MathJax and the widget manager are served from the build);
* math typeset by MathJax: no ``.math`` element left untypeset, no raw ``$...$``, ``\\(`` or
  ``\\[`` in the text outside code;
* every image loaded (``naturalWidth > 0``);
* no traceback or error output except in cells tagged ``raises-exception``;
* every widget rendered by the HTML manager;
* no unresolved reference ("??");
* the search page finds "Laplace".

A full-page screenshot of each page goes to ``_build/screenshots/``. The same checker runs on
the deliberately broken mini book in ``tests/browser_fixture`` and must fail there (and pass on
its good page): the test of the test.

Chromium comes from Debian (``apt-get install chromium``; ``.ci/run`` installs it). Without it, the
test is skipped with a message saying it was NOT run, except in CI (``CI=true``), where a missing
browser is a failure.
"""
from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bookkit.book import toc_files

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.book, pytest.mark.xdist_group("book")]

SCREENSHOTS = ROOT / "_build" / "screenshots"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
WAIT_MS = 20_000          # per wait (MathJax, widgets, images, search results)
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


# ------------------------------------------------------------------ browser and server

def _not_available(reason: str):
    if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
        pytest.fail(f"browser test cannot run in CI: {reason}", pytrace=False)
    pytest.skip(f"browser test NOT RUN: {reason} (install Debian's chromium: "
                "apt-get install chromium; pip install playwright)")


def find_chromium() -> str | None:
    """``$DPOLEARN_CHROMIUM``, else Debian's chromium (or chromium-browser / google-chrome)."""
    env = os.environ.get("DPOLEARN_CHROMIUM")
    if env:
        return env if Path(env).exists() else None
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def open_browser():
    """Headless Chromium at a 1280 px window, as a generator for the session fixture ``browser``
    of ``conftest.py`` (one instance per test process: Playwright's sync API cannot run two
    at once in one thread, so the test modules that need a browser all share that fixture)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _not_available("the playwright package is not installed")
    exe = find_chromium()
    if exe is None:
        _not_available("no chromium executable found")
    with tempfile.TemporaryDirectory(prefix="dpolearn-chromium-") as profile, \
            sync_playwright() as pw:
        # A persistent context on a fresh temporary directory = a fresh --user-data-dir.
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=exe, headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 900})
        try:
            yield context
        finally:
            context.close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@dataclass
class Site:
    root: str
    directory: Path


def serve(directory: Path):
    """Serve ``directory`` on 127.0.0.1 (a free port) in a thread; returns (Site, stop)."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop():
        server.shutdown()
        server.server_close()
    return Site(f"http://127.0.0.1:{server.server_address[1]}/", directory), stop


# ------------------------------------------------------------------ the checker

@dataclass
class PageReport:
    name: str
    url: str
    problems: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)


_OUTPUT_ERRORS_JS = """() => Array.from(document.querySelectorAll('div.cell_output'))
  .filter(o => !o.closest('.tag_raises-exception'))
  .filter(o => o.querySelector('.traceback, .output.error, .output.stderr.error')
               || o.innerText.includes('Traceback (most recent call last)'))
  .map(o => o.innerText.slice(0, 200))"""

_UNTYPESET_JS = """() => Array.from(document.querySelectorAll('.math'))
  .filter(m => !m.querySelector('mjx-container') && m.tagName !== 'MJX-CONTAINER')
  .map(m => m.textContent.trim().slice(0, 80))"""

# Text outside code, scripts and typeset math, where a raw TeX delimiter would be a bug.
_TEXT_JS = """() => {
  const root = document.querySelector('article') || document.body;
  const skip = 'pre, code, script, style, textarea, mjx-container, .highlight, .math';
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const parts = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.parentElement.closest(skip)) parts.push(n.textContent);
  }
  return parts.join(' ');
}"""

_RAW_MATH = re.compile(r"\$\$|\$[^$\s][^$\n]*?[^\s$]\$|\$[^$\s]\$|\\\(|\\\)|\\\[|\\\]")

_IMAGES_JS = """() => Array.from(document.images).map(
  i => ({src: i.getAttribute('src'), complete: i.complete, width: i.naturalWidth}))"""

_WIDGETS_JS = """() => Array.from(document.querySelectorAll(
    'script[type="application/vnd.jupyter.widget-view+json"]')).map(s => {
  const area = s.previousElementSibling;
  return !!(area && area.classList.contains('widget-subarea') && area.childElementCount > 0);
})"""


def check_page(context, site: Site, path: str, screenshot: Path | None) -> PageReport:
    """Open ``site.root + path`` and return every problem a reader would see."""
    report = PageReport(name=path, url=site.root + path)
    origin = site.root.rstrip("/")
    page = context.new_page()

    def on_console(msg):
        if msg.type != "error":
            return
        where = (msg.location or {}).get("url", "") or ""
        if where.startswith(origin) or where == "":
            report.problems.append(f"console error: {msg.text} [{where}]")

    def on_route(route):
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob") or parts.hostname in LOCAL_HOSTS:
            route.continue_()
        else:
            report.problems.append(f"network request off the machine: {url}")
            route.abort()

    page.on("console", on_console)
    page.on("pageerror", lambda exc: report.problems.append(f"uncaught exception: {exc}"))
    page.on("requestfailed", lambda req: report.problems.append(
        f"failed request: {req.url} ({req.failure})")
        if urlsplit(req.url).hostname in LOCAL_HOSTS else None)
    page.route("**/*", on_route)
    try:
        response = page.goto(report.url, wait_until="load", timeout=WAIT_MS)
        if response is None or not response.ok:
            report.problems.append(f"page did not load: HTTP {response and response.status}")
            return report
        # MathJax typesets after load; wait for it when the page uses it.
        has_mathjax = page.evaluate("() => !!(window.MathJax && MathJax.startup)")
        if has_mathjax:
            page.evaluate("async () => { await MathJax.startup.promise; }")
        # Images: load lazy ones too, then wait until every image has finished.
        page.evaluate("() => document.querySelectorAll('img').forEach(i => i.loading = 'eager')")
        try:
            page.wait_for_function("() => Array.from(document.images).every(i => i.complete)",
                                   timeout=WAIT_MS)
        except Exception:
            pass                                   # reported below as not loaded
        # Widgets render asynchronously once the HTML manager has loaded.
        views = page.evaluate(_WIDGETS_JS)
        if views:
            try:
                page.wait_for_function(f"() => ({_WIDGETS_JS})().every(x => x)", timeout=WAIT_MS)
            except Exception:
                pass
            views = page.evaluate(_WIDGETS_JS)
            missing = views.count(False)
            if missing:
                report.problems.append(f"{missing} of {len(views)} widgets did not render")
        images = page.evaluate(_IMAGES_JS)
        for img in images:
            if not img["complete"] or img["width"] == 0:
                report.problems.append(f"image did not load: {img['src']}")
        for text in page.evaluate(_UNTYPESET_JS):
            report.problems.append(f"math not typeset by MathJax: {text}")
        text = page.evaluate(_TEXT_JS)
        for m in _RAW_MATH.finditer(text):
            snippet = text[max(0, m.start() - 30): m.end() + 30].replace("\n", " ")
            report.problems.append(f"raw TeX in the text: ...{snippet}...")
        for out in page.evaluate(_OUTPUT_ERRORS_JS):
            report.problems.append(f"error output outside a raises-exception cell: {out!r}")
        if "??" in text:
            i = text.index("??")
            report.problems.append(f"unresolved reference: ...{text[max(0, i - 40): i + 5]}...")
        report.stats = {"images": len(images), "widgets": len(views),
                        "math": page.evaluate("() => document.querySelectorAll("
                                              "'mjx-container').length")}
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)
    finally:
        page.close()
    return report


def check_search(context, site: Site, term: str, screenshot: Path | None) -> PageReport:
    """The search page, queried for ``term``, must list at least one result."""
    report = PageReport(name=f"search?q={term}", url=f"{site.root}search.html?q={term}")
    page = context.new_page()
    page.on("pageerror", lambda exc: report.problems.append(f"uncaught exception: {exc}"))
    try:
        page.goto(report.url, wait_until="load", timeout=WAIT_MS)
        try:
            page.wait_for_selector("#search-results ul.search li", timeout=WAIT_MS)
        except Exception:
            pass
        hits = page.locator("#search-results ul.search li").count()
        report.stats = {"hits": hits}
        if hits == 0:
            report.problems.append(f"search for {term!r} found nothing")
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=False)
    finally:
        page.close()
    return report


def check_site(context, site: Site, pages: list[str], shots: Path | None,
               search_term: str | None = "Laplace") -> list[PageReport]:
    reports = [check_page(context, site, p, shots / (p.replace("/", "__").replace(".html", "")
                                                     + ".png") if shots else None)
               for p in pages]
    if search_term:
        reports.append(check_search(context, site, search_term,
                                    shots / "search.png" if shots else None))
    return reports


def _format(reports: list[PageReport]) -> str:
    return "\n".join(f"{r.name}:\n  - " + "\n  - ".join(r.problems)
                     for r in reports if r.problems)


# ------------------------------------------------------------------ tests

def test_every_page_in_a_real_browser(browser, quick_book):
    pages = [f"{doc}.html" for doc in toc_files()]
    site, stop = serve(quick_book.html)
    start = time.perf_counter()
    try:
        reports = check_site(browser, site, pages, SCREENSHOTS)
    finally:
        stop()
    seconds = time.perf_counter() - start
    for r in reports:
        print(f"{r.name}: {r.stats} {len(r.problems)} problems")
    print(f"browser check of {len(reports)} pages: {seconds:.1f} s; screenshots in {SCREENSHOTS}")
    assert all((SCREENSHOTS / (p.replace('/', '__').replace('.html', '') + ".png")).exists()
               for p in pages)
    bad = _format(reports)
    assert not bad, "problems a reader would see:\n" + bad


def test_checker_fails_on_the_broken_fixture(browser, broken_book):
    site, stop = serve(broken_book)
    try:
        # good.html first: a reader's first visit (empty localStorage) must be clean too.
        good, broken = check_site(browser, site, ["good.html", "broken.html"],
                                  SCREENSHOTS / "fixture", search_term=None)
    finally:
        stop()
    problems = "\n".join(broken.problems)
    expected = {
        "broken image": "image did not load: _static/no-such-image.png",
        "error output": "error output outside a raises-exception cell",
        "raw math": "raw TeX in the text",
        "our own script error": "undefinedFunctionOfOurOwn",
        "unresolved reference": "unresolved reference",
    }
    missed = [what for what, needle in expected.items() if needle not in problems]
    assert not missed, f"the checker missed: {missed}; it reported:\n{problems}"
    # ... and the good page (typeset math, a figure, a widget, a raises-exception cell) passes.
    assert not good.problems, "false alarms on the good page:\n" + "\n".join(good.problems)
    assert good.stats["widgets"] == 1 and good.stats["images"] >= 1 and good.stats["math"] >= 2
