#!/usr/bin/env python3
"""Assemble the public release of the book: one folder, deployable by copying it to any host.

    python -m bookkit.site --html _build/html                 # make site (paper scale)
    python -m bookkit.site --html _build/quick/_build/html --scale quick --base-url URL

``make site`` builds the book and then runs this. The folder (default ``_build/site/``) holds:

* the book's HTML, with a "Run in your browser" launch on every chapter;
* ``simple/``: the package hosted by the site itself, a PEP 503 index of the wheel and sdist of
  this version (``python -m build``), so that
  ``pip install dpolearn==<version> --index-url <site>/simple/ --extra-index-url <PyPI>`` works;
* every notebook the site links (the ``.ipynb`` download of each chapter), whose first cell
  installs this version from ``simple/`` (:func:`bookkit.notebook.install_source`);
* ``lite/``: the browser-only edition (JupyterLite with the Pyodide kernel), its contents the
  chapter notebooks with the Lite install cell (:func:`bookkit.notebook.lite_install_source`),
  the same wheel served to ``piplite``;
* ``pdf/``: the whole book (``dpolearn.pdf``) and one PDF per page (:mod:`bookkit.pdf`);
* the figure files of the Figures page (``_static/figures/``, part of the HTML);
* ``release.json``: what was assembled (version, scale, address, contents).

The site's address (``--base-url``) defaults to ``html.baseurl`` of ``_config.yml``, which the
deploy workflow sets, else the GitHub Pages address of ``repository.url``. It goes into the
install cells (the package index) and into the PDFs' links to pages they do not contain.
"""
from __future__ import annotations

import argparse
import hashlib
import html as html_escape
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

import nbformat
import tomllib

from .book import ROOT, book_site_url, release_version, toc_files
from .notebook import (
    DEFAULT_DEPENDENCY_INDEX,
    install_source,
    lite_install_source,
    notebook_text,
    replace_install_cell,
)
from .pdf import page_paths, print_pages

SITE = ROOT / "_build" / "site"
PROJECT = "dpolearn"
LITE = "lite"
#: The JupyterLite app a chapter's launch opens (one notebook, no file browser).
LITE_APP = "notebooks/index.html"
LAUNCH_TEXT = "Run in your browser"
LAUNCH_MENU = re.compile(r'(<div class="dropdown dropdown-launch-buttons">.*?'
                         r'<ul class="dropdown-menu">)', re.S)
LAUNCH_ITEM = """
      <li><a href="{href}" target="_blank"
   class="btn btn-sm dropdown-item dpolearn-lite-launch"
   title="{title}" data-bs-placement="left" data-bs-toggle="tooltip">
<span class="btn__icon-container"><i class="fas fa-laptop-code"></i></span>
<span class="btn__text-container">{text}</span>
</a></li>"""


# --------------------------------------------------------------------------- the package

def build_distributions(out: Path, root: Path = ROOT) -> list[Path]:
    """The wheel and sdist of the package in ``root`` (``python -m build``), in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir",
                           str(out), str(root)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("python -m build failed:\n" + proc.stdout[-3000:] + proc.stderr[-3000:])
    dists = sorted(out.glob(f"{PROJECT}-*.whl")) + sorted(out.glob(f"{PROJECT}-*.tar.gz"))
    if not dists:
        raise RuntimeError(f"python -m build wrote no {PROJECT} distribution in {out}")
    return dists


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _page(title: str, links: list[str]) -> str:
    body = "\n".join(links)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"pypi:repository-version\" content=\"1.0\">\n"
            f"<title>{title}</title>\n</head>\n<body>\n<h1>{title}</h1>\n{body}\n</body>\n"
            "</html>\n")


def write_simple_index(simple: Path, dists: list[Path], requires_python: str) -> Path:
    """A PEP 503 index under ``simple`` with the files ``dists`` of the project; returns the
    project's folder (the files are copied there, each link carries its ``#sha256=``)."""
    project = simple / PROJECT
    project.mkdir(parents=True, exist_ok=True)
    links = []
    for dist in sorted(dists, key=lambda p: p.name):
        if dist.parent.resolve() != project.resolve():
            shutil.copy2(dist, project / dist.name)
        links.append(f'<a href="{dist.name}#sha256={sha256(dist)}" data-requires-python="'
                     f'{html_escape.escape(requires_python)}">{dist.name}</a><br>')
    (project / "index.html").write_text(_page(f"Links for {PROJECT}", links), encoding="utf-8")
    (simple / "index.html").write_text(
        _page("Simple index", [f'<a href="{PROJECT}/">{PROJECT}</a><br>']), encoding="utf-8")
    return project


def requires_python(pyproject: Path = ROOT / "pyproject.toml") -> str:
    return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["requires-python"]


# --------------------------------------------------------------------------- notebooks

def site_notebooks(site: Path) -> dict[str, Path]:
    """Page (``book/primer``) -> its ``.ipynb`` download in the site (``_sources/``)."""
    sources = site / "_sources"
    return {p.relative_to(sources).with_suffix("").as_posix(): p
            for p in sorted(sources.rglob("*.ipynb"))} if sources.exists() else {}


def set_install_cells(notebooks: dict[str, Path], index_url: str, version: str,
                      dependency_index: str) -> list[str]:
    """Point the install cell of every notebook at the site's index; returns the pages whose
    notebook has no install cell."""
    source = install_source(index_url, version, dependency_index)
    missing = []
    for doc, path in notebooks.items():
        nb = nbformat.read(path, as_version=4)
        if replace_install_cell(nb, source):
            path.write_text(notebook_text(nb), encoding="utf-8")
        else:
            missing.append(doc)
    return missing


def lite_name(doc: str) -> str:
    """A page's notebook in the Lite contents (``book/primer`` -> ``primer.ipynb``)."""
    return doc.removeprefix("book/").replace("/", "-") + ".ipynb"


def build_lite(site: Path, notebooks: dict[str, Path], wheel: Path, version: str) -> Path:
    """The browser-only edition in ``site/lite``: JupyterLite (Pyodide kernel) whose contents
    are the chapter notebooks, without outputs, with the Lite install cell; ``wheel`` is
    served to ``piplite`` from its ``pypi/`` index."""
    out = site / LITE
    with tempfile.TemporaryDirectory() as tmp:
        contents = Path(tmp) / "contents"
        contents.mkdir()
        for doc, path in notebooks.items():
            nb = nbformat.read(path, as_version=4)
            if not replace_install_cell(nb, lite_install_source(version)):
                continue
            for cell in nb.cells:
                if cell.cell_type == "code":
                    cell.outputs, cell.execution_count = [], None
            nb.metadata.pop("widgets", None)
            (contents / lite_name(doc)).write_text(notebook_text(nb), encoding="utf-8")
        exe = Path(sys.executable).with_name("jupyter-lite")
        cmd = [str(exe) if exe.exists() else "jupyter-lite", "build", "--lite-dir", tmp,
               "--contents", str(contents), "--piplite-wheels", str(wheel),
               "--no-sourcemaps", "--output-dir", str(out)]
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("jupyter lite build failed:\n" + proc.stdout[-3000:]
                               + proc.stderr[-3000:])
    return out


def lite_href(page_path: Path, site: Path, doc: str) -> str:
    """Relative address, from the HTML page ``page_path``, of the Lite app on ``doc``."""
    up = "../" * (len(page_path.relative_to(site).parts) - 1)
    return f"{up}{LITE}/{LITE_APP}?path={lite_name(doc)}"


def add_launch_links(site: Path, docs: list[str]) -> list[str]:
    """Put "Run in your browser" first in the launch menu of each page of ``docs``; returns the
    pages that have no launch menu."""
    missing = []
    for doc in docs:
        page = site / f"{doc}.html"
        text = page.read_text(encoding="utf-8") if page.exists() else ""
        if "dpolearn-lite-launch" in text:
            continue
        item = LAUNCH_ITEM.format(href=lite_href(page, site, doc), text=LAUNCH_TEXT,
                                  title="Run this chapter in your browser (JupyterLite, "
                                        "quick scale)")
        menu = LAUNCH_MENU.search(text)
        if menu:
            page.write_text(text[:menu.end()] + item + text[menu.end():], encoding="utf-8")
        else:
            missing.append(doc)
    return missing


# --------------------------------------------------------------------------- the site

def assemble(html: Path, out: Path = SITE, base_url: Optional[str] = None,
             scale: str = "paper", dependency_index: str = DEFAULT_DEPENDENCY_INDEX,
             extra_dists: Optional[Path] = None, lite: bool = True, pdf: bool = True,
             root: Path = ROOT) -> dict:
    """Assemble the site from the HTML build ``html`` into ``out`` (replaced); returns the
    manifest also written to ``out/release.json``."""
    if scale not in ("quick", "paper"):
        raise ValueError(f"scale must be 'quick' or 'paper', got {scale!r}")
    html = Path(html)
    if not (html / "index.html").exists():
        raise ValueError(f"html must be a built book (no index.html in {html})")
    base_url = (base_url or book_site_url(root / "_config.yml")).rstrip("/") + "/"
    version = release_version(root / "pyproject.toml")
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(html, out, ignore=shutil.ignore_patterns(".buildinfo", "reports"))
    (out / ".nojekyll").write_text("", encoding="utf-8")

    with tempfile.TemporaryDirectory() as tmp:
        dists = build_distributions(Path(tmp), root)
        extra = sorted(p for p in Path(extra_dists).iterdir()
                       if p.name.startswith(f"{PROJECT}-") and p.suffix in (".whl", ".gz")
                       and p.name not in {d.name for d in dists}) if extra_dists else []
        project = write_simple_index(out / "simple", dists + extra,
                                     requires_python(root / "pyproject.toml"))
    wheel = project / f"{PROJECT}-{version}-py3-none-any.whl"
    if not wheel.exists():
        raise RuntimeError(f"the build made no {wheel.name}")
    index_url = f"{base_url}simple/"

    notebooks = site_notebooks(out)
    no_cell = set_install_cells(notebooks, index_url, version, dependency_index)
    chapters = [doc for doc in notebooks if doc not in no_cell]
    manifest = {"version": version, "scale": scale, "base_url": base_url,
                "index_url": index_url, "dependency_index": dependency_index,
                "distributions": sorted(p.name for p in project.glob(f"{PROJECT}-*")
                                        if p.name != "index.html"),
                "notebooks": [f"_sources/{doc}.ipynb" for doc in chapters]}
    if lite:
        build_lite(out, {d: notebooks[d] for d in chapters}, wheel, version)
        manifest["lite"] = [f"{LITE}/files/{lite_name(d)}" for d in chapters]
        manifest["lite_launch_missing"] = add_launch_links(out, chapters)
    if pdf:
        pages = page_paths(out, None)
        print_pages(pages, out / "pdf" / f"{PROJECT}.pdf", html=out, base_url=base_url,
                    chapters=out / "pdf")
        manifest["pdf"] = sorted(p.relative_to(out).as_posix()
                                 for p in (out / "pdf").glob("*.pdf"))
    figures = out / "_static" / "figures"
    manifest["figures"] = len(list(figures.glob("*"))) if figures.exists() else 0
    manifest["pages"] = [f"{doc}.html" for doc in toc_files(root / "_toc.yml")]
    (out / "release.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, required=True, help="the built book's HTML")
    parser.add_argument("--out", type=Path, default=SITE, help="the site folder (replaced)")
    parser.add_argument("--base-url", help="the site's address (default: html.baseurl of "
                        "_config.yml, else the repository's GitHub Pages address)")
    parser.add_argument("--scale", choices=("quick", "paper"), default="paper",
                        help="the scale the HTML was built at (recorded in release.json)")
    parser.add_argument("--dependency-index", default=DEFAULT_DEPENDENCY_INDEX,
                        help="where the notebooks' install cell finds the dependencies")
    parser.add_argument("--extra-dists", type=Path,
                        help="a folder of earlier releases' wheels and sdists to keep indexed")
    parser.add_argument("--no-lite", action="store_true", help="skip the browser-only edition")
    parser.add_argument("--no-pdf", action="store_true", help="skip the PDFs")
    args = parser.parse_args(argv)
    manifest = assemble(args.html, args.out, args.base_url, args.scale, args.dependency_index,
                        args.extra_dists, lite=not args.no_lite, pdf=not args.no_pdf)
    print(f"site: {args.out} (dpolearn {manifest['version']}, {manifest['scale']} scale, "
          f"{len(manifest['notebooks'])} notebooks, {len(manifest.get('pdf', []))} PDFs) "
          f"for {manifest['base_url']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
