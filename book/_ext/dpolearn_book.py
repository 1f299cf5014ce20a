"""Sphinx extension for the dpolearn book: offline assets and runnable notebooks for readers.

Loaded by ``_config.yml`` (``sphinx.local_extensions``). It does three things (and works around
an nbclient hang with widget cells, see :func:`patch_nbclient_reply_polling`).

1. **Offline assets.** MathJax 3, require.js and the ipywidgets HTML manager are served from the
   copies committed under ``book/_vendor/`` (see ``tools/vendor_assets.py``) instead of CDNs,
   so the built book typesets math and renders widgets without internet. The copies land in
   ``_static/vendored/`` of the HTML output, with ``static/widgets-setup.js`` (where the
   manager finds its fonts, and a bridge for its MathJax 2 typeset call). Repeated inline
   scripts (sphinx-thebe's config, emitted twice) are dropped from each page, and the theme gets
   an explicit colour mode (its empty default logs a console error on a first visit).
2. **Downloadable notebooks.** sphinx-book-theme already copies each executed MyST notebook to
   ``_sources/<page>.ipynb`` for its ".ipynb" download button; we prepend the install cell
   (:data:`INSTALL_SOURCE`) so a downloaded chapter also runs outside a clone.
3. **Paired notebooks for Colab and Binder.** Colab opens only ``.ipynb`` files from GitHub. The
   theme points its launch buttons at ``book/<page>.ipynb`` when that file exists next to the
   ``.md`` source, so those notebooks are committed. :func:`paired_notebook` builds one from
   its ``.md`` chapter (jupytext conversion, no outputs, install cell first);
   ``tools/sync_notebooks.py`` writes them and ``tests/test_notebooks.py`` checks they are in
   sync.

Chapters themselves carry no install cell: it is added here, in one place.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "book" / "_vendor"
STATIC_SUBDIR = "vendored"   # -> _build/html/_static/vendored/ (the theme owns _static/vendor)
MATHJAX_PATH = f"{STATIC_SUBDIR}/mathjax/tex-mml-chtml.js"
OWN_STATIC = Path(__file__).resolve().parent / "static"     # our own small scripts
WIDGETS_JS = {
    f"{STATIC_SUBDIR}/requirejs/require.js": {},
    # font path for the manager + a MathJax 2 -> 3 bridge for its typeset() (see the file)
    f"{STATIC_SUBDIR}/widgets-setup.js": {},
    # Modules that are not bundled in embed-amd.js (none of ours) would still come from a CDN.
    f"{STATIC_SUBDIR}/html-manager/embed-amd.js": {
        "data-jupyter-widgets-cdn": "https://cdn.jsdelivr.net/npm/"},
}
INSTALL_TAG = "dpolearn-install"
DEFAULT_REPOSITORY = "https://github.com/dpolearn/dpolearn"


def install_source(repository_url: str = DEFAULT_REPOSITORY, branch: str = "main") -> str:
    """Source of the first cell of every downloadable / Colab notebook.

    In a clone after ``pip install -r requirements.txt`` (and in the book build) ``dpolearn``
    imports and the cell does nothing; elsewhere it installs the package from the repository
    named by ``repository.url`` in ``_config.yml``.
    """
    url = repository_url.rstrip("/")
    if url.endswith(".git"):
        url = url[:-4]
    return (
        "# Opened outside a clone of the dpolearn repository (Colab, Binder or a downloaded\n"
        "# notebook)? This cell installs the dpolearn package. In a clone, after\n"
        "# `pip install -r requirements.txt`, it does nothing.\n"
        "try:\n"
        "    import dpolearn\n"
        "except ImportError:\n"
        f"    %pip install --quiet \"dpolearn @ git+{url}@{branch}\"\n"
    )


INSTALL_SOURCE = install_source()


def repository_settings(config_path: Path = ROOT / "_config.yml") -> tuple[str, str]:
    """``(repository.url, repository.branch)`` from the book's ``_config.yml``."""
    import yaml

    repo = (yaml.safe_load(config_path.read_text()) or {}).get("repository") or {}
    return repo.get("url", DEFAULT_REPOSITORY), repo.get("branch", "main")


def install_cell(repository_url: str, branch: str):
    """The install cell as an nbformat code cell (tagged :data:`INSTALL_TAG`)."""
    import nbformat

    cell = nbformat.v4.new_code_cell(install_source(repository_url, branch))
    cell.metadata["tags"] = [INSTALL_TAG]
    return cell


def with_install_cell(nb, repository_url: str, branch: str):
    """Return ``nb`` with the install cell first (no-op if it already has one)."""
    if nb.cells and INSTALL_TAG in nb.cells[0].get("metadata", {}).get("tags", []):
        return nb
    nb.cells.insert(0, install_cell(repository_url, branch))
    return nb


def is_notebook_source(md_path: Path) -> bool:
    """True if ``md_path`` is a MyST notebook (jupytext front matter with a kernelspec)."""
    text = md_path.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return False
    front = text.split("---", 2)[1]
    return "kernelspec" in front


def paired_notebook(md_path: Path, repository_url: Optional[str] = None,
                    branch: Optional[str] = None) -> str:
    """The committed ``.ipynb`` twin of chapter ``md_path``, as a JSON string.

    Jupytext converts the MyST notebook; jupytext's own metadata (which records the jupytext
    version) is dropped and cell ids are numbered, so the text depends only on the chapter.
    """
    import jupytext
    import nbformat

    if repository_url is None or branch is None:
        repository_url, branch = repository_settings()
    nb = jupytext.read(md_path, fmt="md:myst")
    nb.metadata.pop("jupytext", None)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["dpolearn"] = {
        "generated_from": md_path.resolve().relative_to(ROOT).as_posix(),
        "note": "generated by tools/sync_notebooks.py; edit the .md chapter, not this file"}
    with_install_cell(nb, repository_url, branch)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i}"
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.nbformat, nb.nbformat_minor = 4, 5
    nbformat.validate(nb)
    return nbformat.writes(nb, version=4) + "\n"


# --------------------------------------------------------------------------- execution

def patch_nbclient_reply_polling(step: float = 1.0) -> None:
    """Make nbclient wait for each execute reply in ``step``-second polls (idempotent).

    With ipywidgets in a cell, nbclient sometimes sits in ``shell_channel.get_msg(timeout=T)``
    for the whole cell timeout although the reply has already arrived (jupyter/nbclient#312).
    We saw it in this book: gdp.md, a 10-second chapter, executed in 608 s under
    ``execute.timeout: 600``, and widget chapters in the notebook tests took exactly their 300 s
    cell timeout, then succeeded. Polling in short steps up to the same deadline picks the
    waiting reply up at the next step; the timeout semantics are unchanged. Applied to the
    book build (myst-nb runs nbclient inside Sphinx) and to ``tests/test_notebooks.py``.
    """
    import time
    from queue import Empty

    from nbclient import NotebookClient
    from nbclient.util import run_sync

    if getattr(NotebookClient, "_dpolearn_stepped_polling", False):
        return
    original = NotebookClient.async_start_new_kernel_client

    async def async_start_new_kernel_client(self):
        kc = await original(self)
        channel = kc.shell_channel
        get_msg = channel.get_msg

        async def stepped_get_msg(timeout=None, **kwargs):
            deadline = None if timeout is None else time.monotonic() + timeout
            while True:
                wait = step if deadline is None else min(step, max(0.0, deadline - time.monotonic()))
                try:
                    return await get_msg(timeout=wait, **kwargs)
                except Empty:
                    if deadline is not None and time.monotonic() >= deadline:
                        raise

        channel.get_msg = stepped_get_msg
        return kc

    NotebookClient.async_start_new_kernel_client = async_start_new_kernel_client
    NotebookClient.start_new_kernel_client = run_sync(async_start_new_kernel_client)
    NotebookClient._dpolearn_stepped_polling = True


# --------------------------------------------------------------------------- Sphinx hooks

def _use_local_assets(app, config) -> None:
    """config-inited: point MathJax and the widget manager at the vendored copies."""
    if not (VENDOR / "MANIFEST.json").exists():
        from sphinx.util import logging
        logging.getLogger(__name__).warning(
            "book/_vendor is missing: MathJax and widgets load from CDNs "
            "(run python tools/vendor_assets.py)")
        return
    default_mathjax = "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"
    if not config.mathjax_path or config.mathjax_path == default_mathjax:
        config.mathjax_path = MATHJAX_PATH
    config.nb_ipywidgets_js = dict(WIDGETS_JS)


def _theme_defaults(app, config) -> None:
    """config-inited: an explicit colour mode.

    Without ``html_context["default_mode"]`` pydata-sphinx-theme writes ``data-mode=""`` and, on
    a reader's first visit (empty localStorage), logs the console error "Got invalid theme mode:
    . Resetting to auto.".
    """
    context = dict(config.html_context or {})
    context.setdefault("default_mode", "auto")
    config.html_context = context


def _finish(app, exception) -> None:
    """build-finished: copy the vendored assets; add the install cell to notebook downloads."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    if (VENDOR / "MANIFEST.json").exists():
        shutil.copytree(VENDOR, out / "_static" / STATIC_SUBDIR, dirs_exist_ok=True)
        shutil.copytree(OWN_STATIC, out / "_static" / STATIC_SUBDIR, dirs_exist_ok=True)
    import nbformat

    url = app.config.html_theme_options.get("repository_url") or DEFAULT_REPOSITORY
    branch = app.config.html_theme_options.get("repository_branch") or "main"
    for docname in app.env.found_docs:
        ipynb = out / "_sources" / f"{docname}.ipynb"
        if ipynb.exists():
            nb = nbformat.read(ipynb, as_version=4)
            nbformat.write(with_install_cell(nb, url, branch), ipynb)


def _dedupe_scripts(app, pagename, templatename, context, doctree) -> None:
    """html-page-context: drop repeated identical scripts.

    sphinx-thebe's inline ``const THEBE_JS_URL = ...`` reaches every page twice under Jupyter
    Book, and the second copy throws "Identifier 'THEBE_JS_URL' has already been declared".
    """
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    seen, unique = set(), []
    for js in scripts:
        key = (getattr(js, "filename", str(js)) or "",        # None and "" both mean inline
               tuple(sorted((getattr(js, "attributes", {}) or {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(js)
    # In place, and early: later handlers (myst-nb's per-page widget scripts) append to this
    # same list, and Sphinx stops calling handlers after the first that returns a template.
    scripts[:] = unique


def setup(app):
    patch_nbclient_reply_polling()
    app.connect("config-inited", _use_local_assets, priority=900)
    app.connect("config-inited", _theme_defaults, priority=900)
    app.connect("html-page-context", _dedupe_scripts, priority=100)
    app.connect("build-finished", _finish)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
