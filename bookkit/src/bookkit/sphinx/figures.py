"""Sphinx extension: every experiment figure as files for slides and lecture notes.

Loaded by ``_config.yml`` (``sphinx.extra_extensions``: ``bookkit.sphinx.figures``).

* When the build finishes (and ``book/figures`` is part of it), every registered experiment that
  has a figure is drawn from its data (the experiment cache that the chapters just filled, at
  the scale of the build) and written by :func:`dpolearn.plotting.export` to
  ``_static/figures/<experiment id>.svg``, ``.png`` (200 dpi) and ``.csv`` (the plotted data:
  panel, series, x, y, standard error). The file names are the experiment ids, which do not
  change between builds.
* During the build ``$DPOLEARN_FIGURE_DIR`` points at the same directory and
  ``$DPOLEARN_FIGURE_PAGE`` names the page being executed, so a figure that a chapter's
  ``draw_<what>`` function draws with ``dpl.plotting.subplots`` (every widget's drawing) is
  exported at its first, default call as ``<page>-<what>``
  (:func:`bookkit.figures.export_chapter_figures`, in the page's kernel).
* The directive ``dpolearn-figures`` (used by ``book/figures.md``) writes the table of figures:
  experiment id, what it shows, its chapter, and links to the three files; the figures that
  chapter cells exported are added to the table when the build finishes.
* Every image of a cell's output gets as its alt text the description of the figure that the
  page's kernel wrote from the figure's data, and a link to that data as CSV under it
  (:func:`_describe_images`).
* Every figure a page shows is audited for legibility (:mod:`bookkit.figures`): the
  build points ``$IPYTHONDIR`` at a profile whose kernel configuration loads that module as an
  IPython extension (and ``$MPLBACKEND`` at matplotlib's inline backend, see
  :func:`_set_up_audit`), and ``$DPOLEARN_FIGURE_AUDIT`` at
  ``<build>/figure-audit/records/<page>`` (the docname, ``/`` written ``--``), where the kernel
  of the page writes one JSON line per displayed figure. When the build finishes the
  records are written to ``_static/figure-audit.json`` and every failing figure, and every cell
  that shows more images than were audited, is a warning naming the page (an error under
  ``-W``).
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.util import logging as sphinx_logging

from .. import figures as figure_audit

logger = sphinx_logging.getLogger(__name__)

FIGURE_SUBDIR = "figures"                    # -> _build/html/_static/figures/
FIGURES_PAGE = "book/figures"                # files are written when this page is in the build
CHAPTER_ROWS_MARK = "<!-- dpolearn-figures: chapter figures -->"
AUDIT_JSON = "figure-audit.json"             # -> _build/html/_static/figure-audit.json
KERNEL_CONFIG = (
    "# Written by bookkit.sphinx.figures: the book build's kernels audit every figure.\n"
    "c.InteractiveShellApp.extensions = ['bookkit.figures']\n"
)
#: The backend a page's kernel must draw with: ipykernel's default, whose PNG formatter shows
#: each figure in the cell's output (and which the audit wraps).
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


def _figure_dir(app) -> Path:
    return Path(app.outdir) / "_static" / FIGURE_SUBDIR


def _experiments():
    import dpolearn as dpl

    return [dpl.experiments.get(i) for i in dpl.experiments.ids()
            if dpl.experiments.get(i).plot is not None]


class FiguresTable(nodes.General, nodes.Element):
    """Placeholder replaced by the table once the page's relative URL is known."""


class FiguresDirective(Directive):
    has_content = False

    def run(self):
        return [FiguresTable()]


def _link(href: str, text: str) -> str:
    return f'<a class="reference external" href="{href}" download>{text}</a>'


def _fill_tables(app, doctree, docname):
    if not doctree.traverse(FiguresTable):
        return
    prefix = "../" * docname.count("/")
    rows = []
    for exp in _experiments():
        base = f"{prefix}_static/{FIGURE_SUBDIR}/{exp.id}"
        chapter = exp.chapter or ""
        chapter_cell = (f'<a class="reference internal" href="{prefix}book/{chapter}.html">'
                        f"{chapter}</a>" if chapter else "")
        files = " · ".join(_link(f"{base}.{ext}", ext.upper()) for ext in ("svg", "png", "csv"))
        title = exp.title.replace("&", "&amp;").replace("<", "&lt;")
        rows.append(f"<tr><td><code>{exp.id}</code></td><td>{title}</td>"
                    f"<td>{chapter_cell}</td><td>{files}</td></tr>")
    html = ('<table class="table"><thead><tr><th>figure</th><th>what it shows</th>'
            "<th>chapter</th><th>files</th></tr></thead><tbody>" + "".join(rows)
            + CHAPTER_ROWS_MARK + "</tbody></table>")
    for node in doctree.traverse(FiguresTable):
        node.replace_self(nodes.raw("", html, format="html"))


def _set_export_dir(app, config):
    os.environ[figure_audit.FIGURE_DIR_ENV] = str(_figure_dir(app))
    _set_up_audit(app)


def _audit_dir(app) -> Path:
    return Path(app.outdir).parent / "figure-audit"


def _set_up_audit(app) -> None:
    """A kernel profile that loads the figure audit, the directory of its records, and the
    inline backend for the kernels.

    The kernels inherit the build's environment. ipykernel selects the inline backend only when
    ``$MPLBACKEND`` is unset, so a build run with, e.g., ``MPLBACKEND=Agg`` (common in CI and
    test set-ups) would execute every page with a backend that displays nothing: no figure in
    any cell's output, hence no target for the ``mystnb`` figure names, and the build would fail
    with "undefined label" warnings for every figure reference (and audit nothing). The
    kernels are therefore told to use the inline backend, whatever the environment says.
    """
    root = _audit_dir(app)
    profile = root / "ipython" / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    (profile / "ipython_kernel_config.py").write_text(KERNEL_CONFIG, encoding="utf-8")
    (root / "records").mkdir(exist_ok=True)
    os.environ["IPYTHONDIR"] = str(root / "ipython")
    os.environ["MPLBACKEND"] = INLINE_BACKEND
    os.environ[figure_audit.AUDIT_DIR_ENV] = str(root / "records")
    os.environ[figure_audit.STATIC_WIDGETS_ENV] = "1"     # no kernel behind the published page


def _page(docname: str) -> str:
    return docname.rsplit("/", 1)[-1]


def _records_dir(app, docname: str) -> Path:
    """The directory of a page's figure records (``book/api/gdp`` and ``book/gdp`` apart)."""
    return _audit_dir(app) / "records" / docname.replace("/", "--")


def _set_page(app, docname, source):
    """Name the page about to be executed and the directory of its figure records (its kernel
    inherits the environment), and forget the records of its previous execution."""
    os.environ[figure_audit.FIGURE_PAGE_ENV] = _page(docname)
    records = _records_dir(app, docname)
    if app.config.nb_execution_mode != "off":   # off: the records came with the notebooks
        shutil.rmtree(records, ignore_errors=True)
    os.environ[figure_audit.AUDIT_DIR_ENV] = str(records)


def _in_figure(image) -> bool:
    node = image.parent
    while node is not None and node.get("nb_element") != "cell_code_output":
        if isinstance(node, nodes.figure):
            return True
        node = node.parent
    return False


def _count_shown_images(app, doctree):
    """Per cell of the page just read (by execution count): the images in its output, whether
    they are captioned figures, and whether the output sits in a box (collapsed output or an
    exercise's solution), which is narrower than the column."""
    cells = {}
    for cell in doctree.findall(nodes.container):
        if cell.get("nb_element") != "cell_code":
            continue
        images = [image for output in cell.findall(nodes.container)
                  if output.get("nb_element") == "cell_code_output"
                  for image in output.findall(nodes.image)]
        boxed = cell.get("hide_mode") in ("output", "input+output", "all")
        admonition = False
        parent = cell.parent
        while parent is not None and not admonition:
            admonition = isinstance(parent, nodes.Admonition)
            parent = parent.parent
        entry = cells.setdefault(cell.get("exec_count"), {"images": 0, "captioned": False,
                                                          "boxed": False, "admonition": False})
        entry["images"] += len(images)
        entry["captioned"] |= any(_in_figure(image) for image in images)
        entry["boxed"] |= boxed or admonition
        entry["admonition"] |= admonition
    if not hasattr(app.env, "dpolearn_shown_images"):
        app.env.dpolearn_shown_images = {}
    app.env.dpolearn_shown_images[app.env.docname] = cells


def _describe_images(app, doctree):
    """Give each image of a cell's output the alt text that the page's kernel wrote from the
    figure's data (``alt`` of its audit record, :func:`dpolearn.figure_text.describe_figure`),
    in the order the cell displayed them, and a link to the figure's data (``csv`` of the
    record: the CSV the kernel wrote beside the figure files) under it. An alt text set in the
    cell's metadata is kept; without one the HTML writer would use the image's file name (a
    hash) as its alt text."""
    by_cell = {}
    for records in figure_audit.read_records(_records_dir(app, app.env.docname)).values():
        for rec in records:
            if not rec.get("widget"):
                by_cell.setdefault(rec.get("cell"), []).append(rec)
    prefix = "../" * app.env.docname.count("/")
    for cell in list(doctree.findall(nodes.container)):
        if cell.get("nb_element") != "cell_code" or cell.get("exec_count") not in by_cell:
            continue
        images = [image for output in cell.findall(nodes.container)
                  if output.get("nb_element") == "cell_code_output"
                  for image in output.findall(nodes.image)]
        for image, rec in zip(images, by_cell[cell.get("exec_count")]):
            if "alt" not in image and rec.get("alt"):
                image["alt"] = rec["alt"]
            if rec.get("csv") and (_figure_dir(app) / rec["csv"]).is_file():
                _link_data(image, f"{prefix}_static/{FIGURE_SUBDIR}/{rec['csv']}")


def _link_data(image, href: str) -> None:
    """Put a link to the figure's data under ``image``: after the part of the cell's output
    that holds it (its figure, when captioned)."""
    shown = image
    while shown.parent is not None and shown.parent.get("nb_element") != "cell_code_output":
        shown = shown.parent
    if shown.parent is None:
        return
    link = nodes.reference("", "Data of this figure (CSV)", refuri=href, internal=False)
    shown.parent.insert(shown.parent.index(shown) + 1,
                        nodes.paragraph("", "", link, classes=["dpl-figure-data"]))


def _purge_shown_images(app, env, docname):
    getattr(env, "dpolearn_shown_images", {}).pop(docname, None)


def _merge_shown_images(app, env, docnames, other):
    if not hasattr(env, "dpolearn_shown_images"):
        env.dpolearn_shown_images = {}
    for docname in docnames:
        if docname in getattr(other, "dpolearn_shown_images", {}):
            env.dpolearn_shown_images[docname] = other.dpolearn_shown_images[docname]


def _audit_figures(app, exception):
    """Warn about every illegible or unaudited figure; write the records for the site."""
    if exception is not None:
        return
    shown = getattr(app.env, "dpolearn_shown_images", {})
    pages, figures, failing = {}, [], 0
    for docname in sorted(app.env.found_docs):
        page_records = [rec for recs in figure_audit.read_records(
            _records_dir(app, docname)).values() for rec in recs]
        cells = shown.get(docname, {})
        if not page_records and not any(c["images"] for c in cells.values()):
            continue
        for message in figure_audit.audit_warnings(page_records, cells):
            logger.warning(f"figure audit: {message}", location=docname)
        checked, _ = figure_audit.audit_page(page_records, cells)
        failing += sum(1 for rec in checked if rec["problems"])
        pages[docname] = {"figures": len(checked),
                          "widget_figures": sum(1 for rec in checked if rec.get("widget")),
                          "shown_images": sum(c["images"] for c in cells.values())}
        figures += [dict(rec, page=docname) for rec in checked]
    if app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    summary = {"column_px": figure_audit.COLUMN_WIDTH_PX,
               "min_font_pt": figure_audit.MIN_FONT_PT,
               "scale": os.environ.get("DPOLEARN_SCALE", "quick"),
               "figures_audited": len(figures), "figures_failing": failing,
               "pages": pages, "figures": figures}
    (static / AUDIT_JSON).write_text(json.dumps(summary, indent=1), encoding="utf-8")
    logger.info(f"dpolearn_figures: {len(figures)} figures audited on {len(pages)} pages, "
                f"{failing} failing; records in {static / AUDIT_JSON}")


def _export_all(app, exception):
    """build-finished: the SVG, PNG and CSV of every experiment figure, for the figures page.

    A build that executes nothing (an edition made from a public build's executed notebooks,
    which copies that build's figure files first) keeps the files it finds."""
    if exception is not None or app.builder.format != "html":
        return
    if FIGURES_PAGE not in app.env.found_docs:       # e.g. one chapter built alone
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import dpolearn as dpl

    target = _figure_dir(app)
    target.mkdir(parents=True, exist_ok=True)       # made by the kernels when pages execute
    failed = []
    keep = app.config.nb_execution_mode == "off"
    for exp in _experiments():
        if keep and all((target / f"{exp.id}.{ext}").is_file() for ext in ("svg", "png", "csv")):
            continue
        try:
            data = dpl.experiments.run(exp.id, progress=False)
            fig = dpl.experiments.figure(exp.id, data)
            try:
                dpl.plotting.export(fig, exp.id, target)
            finally:
                plt.close(fig)
        except Exception as exc:                 # report every failure, export the others
            failed.append(exp.id)
            logger.warning(f"dpolearn_figures: no files for {exp.id}: "
                           f"{type(exc).__name__}: {exc}")
    _list_chapter_figures(app, target, {exp.id for exp in _experiments()})
    logger.info(f"dpolearn_figures: SVG, PNG and CSV of the experiment figures in {target}"
                + (f" (failed: {', '.join(failed)})" if failed else ""))


def _list_chapter_figures(app, target: Path, experiment_ids) -> None:
    """Add the figures that chapter functions drew (widget drawings, exported by the kernels:
    :func:`bookkit.figures.export_chapter_figures`) to the table of the figures page, which is
    written before the build finishes."""
    names = sorted({p.stem for p in target.glob("*.svg")} - set(experiment_ids))
    page = Path(app.outdir) / f"{FIGURES_PAGE}.html"
    if not page.exists():
        return
    prefix = "../" * FIGURES_PAGE.count("/")
    rows = "".join(
        f"<tr><td><code>{name}</code></td><td>drawn in a chapter (e.g. a widget at its default "
        "setting)</td><td></td><td>"
        + " · ".join(_link(f"{prefix}_static/{FIGURE_SUBDIR}/{name}.{ext}", ext.upper())
                     for ext in ("svg", "png", "csv")) + "</td></tr>" for name in names)
    html = page.read_text(encoding="utf-8")
    page.write_text(html.replace(CHAPTER_ROWS_MARK, rows), encoding="utf-8")


def setup(app):
    app.add_node(FiguresTable, html=(lambda self, node: None, lambda self, node: None))
    app.add_directive("dpolearn-figures", FiguresDirective)
    app.connect("config-inited", _set_export_dir)
    app.connect("source-read", _set_page)
    app.connect("doctree-resolved", _fill_tables)
    app.connect("doctree-read", _count_shown_images)
    app.connect("doctree-read", _describe_images)
    app.connect("env-purge-doc", _purge_shown_images)
    app.connect("env-merge-info", _merge_shown_images)
    app.connect("build-finished", _audit_figures)
    app.connect("build-finished", _export_all)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
