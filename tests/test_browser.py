"""Real-browser test of the built book (Debian chromium driven by Playwright).

The site made from the quick build (``make site`` at quick scale: the pages as a reader receives
them) is served on 127.0.0.1 and every page of ``_toc.yml`` is opened in headless Chromium by
the reader's audit (``bookkit.page_audit``, run once for all the tests that look at pages:
conftest's ``site_audit``). What it checks is
listed in that module: no console error or uncaught exception from our own pages, no request
leaving the machine, math typeset, every image loaded and described, no traceback outside cells
tagged ``raises-exception``, every widget rendered, no unresolved reference ("??"), nothing
wider than the column, no serious accessibility violation. Here: every page was opened and
passed, its full-page screenshot is in ``_build/screenshots/``, and the search page finds
"Laplace". The audit must also fail the deliberately broken mini book in
``tests/browser_fixture`` on each planted problem and pass its good page: the test of the test.

This module also provides the browser (:func:`open_browser`, conftest's ``browser`` fixture)
for the other browser tests; the local server is ``bookkit.page_audit.serve``.

Chromium comes from Debian (``apt-get install chromium``; ``make test`` installs it). Without it,
the test is skipped with a message saying it was NOT run, except in CI (``CI=true``), where a
missing browser is a failure.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from bookkit import page_audit
from bookkit.book import toc_files

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.book, pytest.mark.xdist_group("book")]

SCREENSHOTS = ROOT / "_build" / "screenshots"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]
WAIT_MS = 20_000          # per wait (MathJax, widgets, images, search results)


# ------------------------------------------------------------------ the browser

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


# ------------------------------------------------------------------ the search page

def check_search(context, root: str, term: str, screenshot: Path | None) -> list[str]:
    """The search page of the site served at ``root``, queried for ``term``, must list at least
    one result; returns the problems."""
    problems = []
    page = context.new_page()
    page.on("pageerror", lambda exc: problems.append(f"uncaught exception: {exc}"))
    try:
        page.goto(f"{root}search.html?q={term}", wait_until="load", timeout=WAIT_MS)
        try:
            page.wait_for_selector("#search-results ul.search li", timeout=WAIT_MS)
        except Exception:
            pass
        if page.locator("#search-results ul.search li").count() == 0:
            problems.append(f"search for {term!r} found nothing")
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=False)
    finally:
        page.close()
    return problems


# ------------------------------------------------------------------ tests

def test_every_page_in_a_real_browser(site_audit, site, browser):
    """Every page of the table of contents was opened (the reader's audit, conftest's
    ``site_audit``, one pass over the served site), shows no problem and has its screenshot;
    the search page finds "Laplace"."""
    pages = [f"{doc}.html" for doc in toc_files()]
    assert set(pages) <= set(site_audit), set(pages) - set(site_audit)
    assert all((SCREENSHOTS / (p.replace('/', '__').replace('.html', '') + ".png")).exists()
               for p in pages)
    bad = "\n".join(f"{p}:\n  - " + "\n  - ".join(site_audit[p].problems)
                    for p in pages if site_audit[p].problems)
    search = check_search(browser, site[0], "Laplace", SCREENSHOTS / "search.png")
    assert not bad and not search, "problems a reader would see:\n" + bad + "\n".join(search)


def test_checker_fails_on_the_broken_fixture(browser, broken_book):
    """The test of the test: the reader's audit finds each planted problem of the broken mini
    book and none on its good page."""
    with page_audit.serve(broken_book) as root:
        # good.html first: a reader's first visit (empty localStorage) must be clean too.
        good, broken = page_audit.audit_site(browser, root, ["good.html", "broken.html"],
                                             screenshots=SCREENSHOTS / "fixture")
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
    # ... and the good page (typeset math, a figure, a widget, a raises-exception cell) shows
    # none of them (the mini book has no alt texts and widget labels: the book's extensions
    # add those, and tests/test_page_audit.py tests their checks).
    false_alarms = (good.errors + good.console + good.math + good.unloaded_images
                    + good.output_errors + good.unresolved)
    assert not false_alarms, "false alarms on the good page:\n" + "\n".join(false_alarms)
    assert good.images >= 1 and good.typeset_math >= 2
    assert good.widgets == 1
