"""Sphinx extension for the dpolearn book: offline assets and runnable notebooks for readers.

Loaded by ``_config.yml`` (``sphinx.extra_extensions``: ``bookkit.sphinx.book``). It does three
things (and works around an nbclient hang with widget cells, see
:func:`patch_nbclient_reply_polling`).

1. **Offline assets.** MathJax 3, require.js and the ipywidgets HTML manager are served from the
   copies committed under ``book/_vendor/`` (see ``bookkit.vendor``) instead of CDNs,
   so the built book typesets math and renders widgets without internet. The copies land in
   ``_static/vendored/`` of the HTML output, with ``static/widgets-setup.js`` (where the
   manager finds its fonts, and a bridge for its MathJax 2 typeset call). Repeated inline
   scripts (sphinx-thebe's config, emitted twice) are dropped from each page, and the theme gets
   an explicit colour mode (its empty default logs a console error on a first visit).
2. **Downloadable notebooks.** sphinx-book-theme copies each executed MyST notebook to
   ``_sources/<page>.ipynb`` for its ".ipynb" download button. Neither Colab nor classic
   Jupyter renders MyST, so we replace that file with the chapter converted to plain Markdown
   and code by ``bookkit.notebook`` (install cell first), for the edition being built
   (config value ``dpolearn_edition``: ``public``, or ``student`` without solutions, see
   ``bookkit.editions``), with the outputs of the executed notebook copied cell by cell.
3. **Paired notebooks for Colab and Binder.** Colab opens only ``.ipynb`` files from GitHub. The
   theme points its launch buttons at ``book/<page>.ipynb`` when that file exists next to the
   ``.md`` source, so those notebooks are committed. :func:`paired_notebook` is the same
   conversion (public edition, no outputs); ``bookkit.sync`` writes them and
   ``tests/test_notebooks.py`` checks they are in sync.

Chapters themselves carry no install cell: the converter adds it, in one place.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from sphinx.util import logging as sphinx_logging

from ..book import ROOT, is_notebook_source
from ..notebook import (
    convert_chapter,
    copy_outputs,
    install_source,  # noqa: F401  (the install cell, for the tests)
    notebook_text,
    package_index_url,
)

logger = sphinx_logging.getLogger(__name__)

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
EDITION_CONFIG = "dpolearn_edition"


def paired_notebook(md_path: Path) -> str:
    """The committed ``.ipynb`` twin of chapter ``md_path`` (public edition, no outputs), as
    JSON."""
    return notebook_text(convert_chapter(md_path, "public"))


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
                wait = step if deadline is None \
                    else min(step, max(0.0, deadline - time.monotonic()))
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
            "(run python -m bookkit.vendor)")
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
    """build-finished: copy the vendored assets; make the ".ipynb" downloads plain notebooks."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    if (VENDOR / "MANIFEST.json").exists():
        shutil.copytree(VENDOR, out / "_static" / STATIC_SUBDIR, dirs_exist_ok=True)
        shutil.copytree(OWN_STATIC, out / "_static" / STATIC_SUBDIR, dirs_exist_ok=True)
    import nbformat

    edition = getattr(app.config, EDITION_CONFIG, "public")
    srcdir = Path(app.srcdir)
    # The package comes from the index of the repository's own site (its _config.yml), also for
    # an edition whose repository.url names another repository (one that publishes the student
    # edition).
    index_url = package_index_url(ROOT / "_config.yml")
    for docname in sorted(app.env.found_docs):
        ipynb = out / "_sources" / f"{docname}.ipynb"
        md = srcdir / f"{docname}.md"
        if not (ipynb.exists() and md.exists() and is_notebook_source(md)):
            continue
        executed = nbformat.read(ipynb, as_version=4)
        plain = convert_chapter(md, edition, root=srcdir, index_url=index_url)
        if not copy_outputs(plain, executed):
            logger.warning(f"{docname}: code cells differ from the executed notebook; the "
                           ".ipynb download has no outputs", type="dpolearn", subtype="download")
        ipynb.write_text(notebook_text(plain), encoding="utf-8")


def _offer_notebook_download(app, pagename, templatename, context, doctree) -> None:
    """html-page-context, before the theme's buttons: an ".ipynb" download on every chapter.

    sphinx-book-theme copies the executed notebook to ``_sources/`` (and offers it for
    download) only while building its launch buttons, so an edition without launch buttons
    (the student edition, whose buttons would open the public notebooks) would have no
    notebook download. We copy it here for every edition; :func:`_finish` then replaces it
    with the plain-Markdown notebook of that edition.
    """
    md = Path(app.srcdir) / f"{pagename}.md"   # the page's source, or beside its notebook
    if not md.exists() or not is_notebook_source(md):
        return
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if not executed.exists():
        return
    dest = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(executed, dest)
    context["ipynb_source"] = f"{pagename}.ipynb"


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
    # "public" (solutions in dropdowns) or "student" (no solutions); set by bookkit.editions.
    app.add_config_value(EDITION_CONFIG, "public", "env")
    app.connect("config-inited", _use_local_assets, priority=900)
    app.connect("config-inited", _theme_defaults, priority=900)
    app.connect("html-page-context", _dedupe_scripts, priority=100)
    # after the theme's prep_header_buttons (500), before its download button (501)
    app.connect("html-page-context", _offer_notebook_download, priority=500)
    app.connect("build-finished", _finish)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
