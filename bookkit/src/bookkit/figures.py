"""The figures of the book on their pages: the page-width model and the legibility audit.

**The page.** The book's text column is :data:`COLUMN_WIDTH_PX` CSS pixels wide
(sphinx-book-theme at a 1280 px browser window). The page shows a figure's PNG at
``min(PNG width, column width)`` CSS pixels, so a font of ``f`` points is shown at
``f * display_scale(fig, png_width)`` points (:func:`display_scale`), and every visible text must
come out at no less than :data:`MIN_FONT_PT`; a figure with several panels carries exactly one
legend (none when nothing is labelled); and in every panel no two series look alike
(:func:`series_clashes`). The book style of :mod:`dpolearn.plotting` draws every
figure :data:`~dpolearn.plotting.FIGURE_WIDTH_IN` inches wide at 96 dpi, inside the column.
:func:`legibility_problems` checks a figure against these rules from its own objects: each Text
artist's size, the figure's dpi and the PNG's pixel width.

**The audit.** During a book build the kernel that executes a page loads this module as an
IPython extension (the build's ``ipython_kernel_config.py``, written by
:mod:`bookkit.sphinx.figures`, lists it). It wraps the ``image/png`` formatter that
matplotlib's inline backend registers for ``Figure``: every figure a cell displays, whichever
code drew it, is still rendered by the inline backend's own formatter (the page is unchanged),
then audited, and one JSON line per figure is appended to ``<$DPOLEARN_FIGURE_AUDIT>/<page>.jsonl``.
The book's Sphinx extension reads these files when the build finishes (:func:`read_records`,
:func:`audit_warnings`) and turns every problem into a warning, which fails the build (``-W``).
Outside a book build (no ``$DPOLEARN_FIGURE_AUDIT``, e.g. in Colab) the extension does nothing.

**Widget drawings for the figures page.** In the same kernels, a figure that a chapter's
``draw_<what>`` function draws with :func:`dpolearn.plotting.subplots` (every widget's drawing)
is written by :func:`dpolearn.plotting.export` to ``$DPOLEARN_FIGURE_DIR`` as ``<page>-<what>``,
at its first (default) call (:func:`export_chapter_figures`).
"""
from __future__ import annotations

import base64
import csv
import functools
import io
import json
import os
import struct
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple

from dpolearn import figure_text, plotting, widgets
from dpolearn.plotting import CSS_PX_PER_INCH

__all__ = [
    "COLUMN_WIDTH_PX",
    "MIN_FONT_PT",
    "AUDIT_DIR_ENV",
    "FIGURE_DIR_ENV",
    "FIGURE_PAGE_ENV",
    "display_scale",
    "page_png",
    "png_size",
    "visible_texts",
    "panels",
    "legends",
    "series_styles",
    "series_clashes",
    "legibility_problems",
    "smallest_shown_font",
    "figure_record",
    "available_width_px",
    "data_file_stem",
    "install",
    "export_chapter_figures",
    "load_ipython_extension",
    "read_records",
    "audit_page",
    "audit_warnings",
]

#: Widest an image in a cell's output is shown, in CSS pixels: sphinx-book-theme 1.3 at a
#: 1280 x 800 window (headless Chromium, built primer page: a 1411 px PNG was shown 672 px wide;
#: the article's content box is 688 px). Narrower windows down to 992 px give wider columns.
COLUMN_WIDTH_PX = 672
#: Smallest font size, in points at display size, that any figure text may have.
MIN_FONT_PT = 9.0
#: Environment variable naming the directory the figures of a build are written to (set by the
#: book build: ``_static/figures/`` of the site).
FIGURE_DIR_ENV = "DPOLEARN_FIGURE_DIR"
#: Environment variable naming the page being executed (set by the book build).
FIGURE_PAGE_ENV = "DPOLEARN_FIGURE_PAGE"
#: Environment variable naming the directory of the per-page record files (set by the build).
AUDIT_DIR_ENV = "DPOLEARN_FIGURE_AUDIT"
#: Set by the build for its kernels: widgets draw their static form (:mod:`dpolearn.widgets`).
STATIC_WIDGETS_ENV = widgets.BOOK_BUILD_ENV

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: Where an image of a cell's output can sit, and the CSS pixels each takes off the article's
#: width at a 1280 px window (sphinx-book-theme 1.3, headless Chromium; the Chromium test of
#: tests/test_figures.py checks every image of the quick build against this model).
_ARTICLE_PX = 688.0
_CAPTIONED_PX = 16.0          # a captioned figure (mystnb figure metadata): 672 px
_BOXED_PX = 22.2              # a box: collapsed output (hide-output, hide-cell)
_ADMONITION_PX = 67.0         # an admonition (exercise, solution, note): box and indented body
_WIDGET_PX = 4.0              # an interactive widget's output area


# ------------------------------------------------------------------ the checks
def page_png(fig) -> bytes:
    """The PNG a notebook page embeds for ``fig`` (the inline backend's rendering:
    ``bbox_inches="tight"`` at the figure's dpi)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi, bbox_inches="tight")
    return buf.getvalue()


def png_size(png: bytes) -> Tuple[int, int]:
    """Width and height in pixels of a PNG, read from its header."""
    if not isinstance(png, (bytes, bytearray)) or png[:8] != _PNG_SIGNATURE or len(png) < 24:
        raise ValueError(f"png must be the bytes of a PNG file, got {type(png).__name__} "
                         f"starting {bytes(png[:8])!r}")
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)


def _axis_texts(ax) -> list:
    return (ax.xaxis.get_ticklabels(which="both") + ax.yaxis.get_ticklabels(which="both")
            + [ax.xaxis.label, ax.yaxis.label])


def visible_texts(fig) -> Iterator:
    """Every Text artist that is drawn with some text in it (tick labels included)."""
    from matplotlib.text import Text

    fig.draw_without_rendering()               # tick labels exist only after a draw
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip():
            continue
        ax = text.axes
        if ax is not None and not ax.axison and text in _axis_texts(ax):
            continue                           # axis("off") hides ticks and axis labels
        yield text


def panels(fig) -> list:
    """Data panels: axes that are drawn and are not colour bars."""
    return [ax for ax in fig.axes if ax.axison and ax.get_label() != "<colorbar>"]


def legends(fig) -> list:
    """Figure legends and axes legends."""
    return list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]


def _has_labelled_artists(fig) -> bool:
    return any(lab and not lab.startswith("_")
               for ax in panels(fig) for lab in ax.get_legend_handles_labels()[1])


def _check_figure(fig) -> None:
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")


def _positive_number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(
            value, "__float__"):
        raise TypeError(f"{name} must be a number, got {value!r}")
    number = float(value)
    if not number > 0 or number == float("inf"):
        raise ValueError(f"{name} must be finite and > 0, got {value!r}")
    return number


def display_scale(fig, rendered_width_px: float, column_px: float = COLUMN_WIDTH_PX) -> float:
    """Ratio of a point's displayed size to its nominal size for a figure shown on the page.

    The page shows the PNG at ``min(rendered, column)`` CSS pixels (images have
    ``max-width: 100%``); a font of ``f`` pt covers ``f * dpi / 72`` image pixels, hence
    ``f * (dpi / 96) * (shown / rendered)`` CSS points.
    """
    _check_figure(fig)
    rendered_width_px = _positive_number("rendered_width_px", rendered_width_px)
    column_px = _positive_number("column_px", column_px)
    shown = min(rendered_width_px, column_px)
    return (fig.dpi / CSS_PX_PER_INCH) * shown / rendered_width_px


def smallest_shown_font(fig, png_width: Optional[int] = None,
                        column_px: float = COLUMN_WIDTH_PX) -> Optional[float]:
    """Smallest size, in points on the page, of the figure's visible texts (None without text).

    ``png_width`` is the width of the PNG the page shows (rendered with :func:`page_png` when
    not given).
    """
    _check_figure(fig)
    width = png_size(page_png(fig))[0] if png_width is None else png_width
    scale = display_scale(fig, width, column_px)
    sizes = [text.get_fontsize() * scale for text in visible_texts(fig)]
    return min(sizes) if sizes else None


def _line_look(line) -> Optional[Tuple[Any, ...]]:
    """What tells a line apart on the page: its colour, marker and line style (None if it
    draws nothing: no points, or neither line nor marker)."""
    from matplotlib.colors import to_rgba

    if len(line.get_xdata(orig=False)) == 0:
        return None                        # e.g. an empty proxy that only makes a legend entry

    linestyle = line.get_linestyle()
    if linestyle in ("None", " ", ""):
        linestyle = "None"
    else:                                  # "--" and a custom dash pattern both read "--"
        linestyle = str(getattr(line, "_unscaled_dash_pattern", linestyle))
    marker = line.get_marker()
    marker = "None" if marker in (None, "None", "none", " ", "") else str(marker)
    if linestyle == "None" and marker == "None":
        return None
    colour = tuple(round(c, 3) for c in to_rgba(line.get_color())[:3])
    return colour, marker, linestyle


def series_styles(ax) -> List[Tuple[str, Tuple[Any, ...]]]:
    """The series of a panel and their looks: ``(name, (colour, marker, line style))``.

    The rule: every visible line of the panel that draws something is a series, labelled or
    not, except a line marked as a reference line (a level, a bound:
    :func:`dpolearn.plotting.mark_reference`); an error-bar plot is one series (its data
    line, named by the container's label; its caps and bars are part of it). A series is named
    by its legend label, or ``"unlabelled line <n>"``.
    """
    from matplotlib.container import ErrorbarContainer

    out, parts = [], set()
    for container in ax.containers:
        if isinstance(container, ErrorbarContainer):
            data_line, caps, _ = container.lines
            parts.update(id(cap) for cap in caps)
            if data_line is not None:
                parts.add(id(data_line))
                look = _line_look(data_line)
                if look is not None and data_line.get_visible():
                    out.append((container.get_label(), look))
    for n, line in enumerate(ax.get_lines(), start=1):
        if id(line) in parts or not line.get_visible() or plotting.is_reference(line):
            continue
        look = _line_look(line)
        if look is None:
            continue
        label = line.get_label()
        out.append((label if label and not label.startswith("_") else f"unlabelled line {n}",
                    look))
    return out


def series_clashes(fig) -> List[str]:
    """One sentence per pair of series in one panel with the same colour, marker and line
    style (the rule of :func:`series_styles`)."""
    _check_figure(fig)
    problems = []
    for number, ax in enumerate(panels(fig), start=1):
        seen: Dict[Tuple[Any, ...], str] = {}
        for name, look in series_styles(ax):
            if look in seen:
                colour = "".join(f"{round(255 * c):02x}" for c in look[0])
                problems.append(f"panel {number}: series {seen[look]!r} and {name!r} share "
                                f"colour #{colour}, marker {look[1]!r} and line style: a reader "
                                "cannot tell them apart")
            else:
                seen[look] = name
    return problems


def legibility_problems(fig, png_width: Optional[int] = None,
                        column_px: float = COLUMN_WIDTH_PX) -> List[str]:
    """Every way ``fig`` fails the book's figure rules (empty when it passes).

    Parameters
    ----------
    fig : matplotlib Figure
    png_width : int, optional
        Width in pixels of the PNG the page shows; rendered with :func:`page_png` when not given.
    column_px : float
        Width of the page's text column in CSS pixels.

    Returns
    -------
    list of str
        One sentence per problem: a PNG wider than the column, each text shown below
        :data:`MIN_FONT_PT`, a multi-panel figure without exactly one legend, two series of a
        panel that look alike (:func:`series_clashes`).
    """
    _check_figure(fig)
    width = png_size(page_png(fig))[0] if png_width is None else png_width
    problems = []
    if width > column_px:
        problems.append(f"PNG is {width} px wide, the column {column_px:g} px: the page "
                        f"would scale it down to {column_px / width:.2f}")
    scale = display_scale(fig, width, column_px)
    for text in visible_texts(fig):
        shown = text.get_fontsize() * scale
        if shown < MIN_FONT_PT - 1e-9:
            problems.append(f"text {text.get_text()[:40]!r} is {text.get_fontsize():g} pt, "
                            f"shown at {shown:.1f} pt (minimum {MIN_FONT_PT:g})")
    n_panels = len(panels(fig))
    if n_panels > 1:
        n_legends = len(legends(fig))
        wanted = 1 if _has_labelled_artists(fig) else 0
        if n_legends != wanted:
            problems.append(f"{n_panels} panels with {n_legends} legends (want {wanted})")
    return problems + series_clashes(fig)


def _describe(fig) -> str:
    """A short name for a figure in a warning: its first panel's axis labels."""
    for ax in panels(fig):
        labels = [" ".join(ax.get_xlabel().split()), " ".join(ax.get_ylabel().split())]
        if any(labels):
            return " / ".join(lab for lab in labels if lab)[:80]
    return ""


def figure_record(fig, png: bytes, column_px: float = COLUMN_WIDTH_PX) -> Dict[str, Any]:
    """The audit of a displayed figure: PNG size, smallest shown font, panels, legends, problems.

    Parameters
    ----------
    fig : matplotlib Figure
    png : bytes
        The PNG the page shows for ``fig``.
    column_px : float
        Width of the page's text column in CSS pixels.
    """
    _check_figure(fig)
    width, height = png_size(png)
    smallest = smallest_shown_font(fig, width, column_px)
    return {
        "png_px": [width, height],
        "display_scale": round(display_scale(fig, width, column_px), 4),
        "min_font_pt": None if smallest is None else round(smallest, 2),
        "panels": len(panels(fig)),
        "legends": len(legends(fig)),
        "axes": _describe(fig),
        "problems": legibility_problems(fig, width, column_px),
    }


def available_width_px(*, captioned: bool = False, boxed: bool = False,
                       widget: bool = False, admonition: bool = False) -> float:
    """Widest an image of a cell's output is shown, in CSS pixels, at a 1280 px window.

    Parameters
    ----------
    captioned : bool
        The image is a captioned figure (``mystnb: figure`` metadata).
    boxed : bool
        The output sits in a box: a collapsed output (``hide-output``, ``hide-cell``).
    widget : bool
        The image is an interactive widget's drawing.
    admonition : bool
        The output sits in an admonition (an exercise, its solution, a note), whose body is
        indented inside its box: 621 px (a figure there is drawn with
        ``dpolearn.plotting.subplots(boxed=True)``).
    """
    box = _ADMONITION_PX if admonition else _BOXED_PX * bool(boxed)
    return _ARTICLE_PX - _CAPTIONED_PX * bool(captioned) - box - _WIDGET_PX * bool(widget)


def _context_problem(record: Mapping[str, Any], width: float, where: str) -> Optional[str]:
    """A figure that its place on the page (narrower than the column) would scale down."""
    png_width = (record.get("png_px") or [0])[0]
    column = COLUMN_WIDTH_PX
    if png_width <= width or png_width > column:    # fits, or already reported
        return None
    smallest = record.get("min_font_pt")
    text = "" if smallest is None else (
        f"; its smallest text is shown at {smallest * width / png_width:.1f} pt")
    return (f"PNG is {png_width} px wide but {where} is {width:.0f} px wide: the page scales it "
            f"down to {width / png_width:.3f}{text}")


# ------------------------------------------------------------------ the kernel side
_COUNTS: Dict[str, int] = {}            # figures recorded, by page
_CELLS_RUN = [0]                        # cells executed since the audit was installed


def _png_bytes(data) -> Optional[bytes]:
    """The PNG bytes of a formatter's result (bytes, base64 text, or ``(data, metadata)``)."""
    if isinstance(data, tuple):
        data = data[0]
    if isinstance(data, str):
        return base64.b64decode(data)
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    return None


def _inside_output_widget() -> bool:
    """Whether a cell's display is being captured by an ipywidgets Output (an interactive
    widget's drawing): such figures live in the widget's state, not in the cell's output."""
    widget_module = sys.modules.get("ipywidgets.widgets.widget")
    output_module = sys.modules.get("ipywidgets.widgets.widget_output")
    if widget_module is None or output_module is None:
        return False
    instances = getattr(widget_module, "_instances", {})
    return any(isinstance(w, output_module.Output) and w.msg_id
               for w in list(instances.values()))


def data_file_stem(page: str, index: int) -> str:
    """File name (without ``.csv``) of the data of figure number ``index`` of ``page``."""
    return f"{page.replace('/', '-')}-figure-{index}"


def _data_rows(csv_path: Path) -> int:
    """The number of rows under the header of a CSV written by
    :func:`dpolearn.plotting.export_data`."""
    with open(csv_path, encoding="utf-8", newline="") as fh:
        return sum(1 for _ in csv.reader(fh)) - 1


def _write_record(fig, data) -> None:
    directory = os.environ.get(AUDIT_DIR_ENV)
    page = os.environ.get(FIGURE_PAGE_ENV) or "unknown-page"
    if not directory:
        return
    _COUNTS[page] = _COUNTS.get(page, 0) + 1
    drives = widgets.precomputing()      # a static widget's drawing of one of its settings
    record: Dict[str, Any] = {"page": page, "index": _COUNTS[page], "cell": _CELLS_RUN[0],
                              "widget": drives is not None or _inside_output_widget()}
    if drives:
        record["drives"] = drives         # shown in place of that captioned figure's image
    try:
        png = _png_bytes(data)
        if png is None:
            raise ValueError(f"the formatter returned {type(data).__name__}, not a PNG")
        record.update(figure_record(fig, png))
        record["alt"] = figure_text.describe_figure(fig)      # the image's alt text on the page
        figure_dir = os.environ.get(FIGURE_DIR_ENV)
        if figure_dir and not record["widget"]:               # the data, linked under the image
            name = data_file_stem(page, record["index"])
            csv_path = plotting.export_data(fig, name, figure_dir) / f"{name}.csv"
            record["data_rows"] = _data_rows(csv_path)
            if record["data_rows"]:
                record["csv"] = csv_path.name
            else:                          # a diagram plots no data: no file, no link
                csv_path.unlink()
    except Exception as exc:             # the figure is still shown; the build reports this
        record["problems"] = [f"the audit failed: {type(exc).__name__}: {exc}"]
    path = Path(directory) / f"{page}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")


def _audited(original):
    def audited_png(fig, *args, **kwargs):
        data = original(fig, *args, **kwargs)
        if data is not None:             # an empty figure is not shown
            _write_record(fig, data)
        return data

    audited_png.dpolearn_audit = True
    audited_png.wrapped = original
    return audited_png


def _wrap_png_formatter(shell) -> bool:
    """Wrap the ``image/png`` formatter registered for matplotlib figures (once)."""
    from matplotlib.figure import Figure

    formatter = shell.display_formatter.formatters["image/png"]
    try:
        current = formatter.lookup_by_type(Figure)
    except KeyError:
        return False                     # no inline backend yet: nothing is shown as PNG
    if not getattr(current, "dpolearn_audit", False):
        formatter.for_type(Figure, _audited(current))
    return True


def install(shell) -> bool:
    """Audit every figure ``shell`` displays, when a book build asks for it.

    Does nothing unless ``$DPOLEARN_FIGURE_AUDIT`` and ``$DPOLEARN_FIGURE_PAGE`` are set (the
    book build sets both). Loads the inline backend if it is matplotlib's backend (so that its
    formatter exists), wraps the formatter, and re-checks the wrapping before and after every
    cell (a cell may select other figure formats). Each record names its cell by the number
    of cells run since, which is the cell's execution count in a notebook executed from the
    top (IPython's own ``execution_count`` is one ahead during a cell in IPython 9, not in
    earlier versions).

    Returns
    -------
    bool
        Whether the audit is active.
    """
    if not (os.environ.get(AUDIT_DIR_ENV) and os.environ.get(FIGURE_PAGE_ENV)):
        return False
    import matplotlib
    import matplotlib.pyplot as plt

    backend = matplotlib.rcParams["backend"]
    if "inline" in str(backend):
        plt.switch_backend(backend)      # configures the inline formatter now
    _wrap_png_formatter(shell)

    def before_cell(info=None):
        # a cell of the notebook (comm messages of widgets also trigger pre_execute)
        if info is None or (getattr(info, "store_history", True)
                            and not getattr(info, "silent", False)):
            _CELLS_RUN[0] += 1
        _wrap_png_formatter(shell)

    def after_cell():
        _wrap_png_formatter(shell)

    for event, callback in (("pre_run_cell", before_cell), ("post_execute", after_cell)):
        callbacks = shell.events.callbacks[event]
        if not any(getattr(cb, "dpolearn_audit", False) for cb in callbacks):
            callback.dpolearn_audit = True
            callbacks.insert(0, callback)        # before the inline backend's flush
    return True


_PENDING_EXPORTS: List[Any] = []
_EXPORTED_NAMES: set = set()


def _queue_chapter_export(fig, caller, shell) -> None:
    """Remember a figure drawn by a chapter function, to export it after its cell."""
    page, outdir = os.environ.get(FIGURE_PAGE_ENV), os.environ.get(FIGURE_DIR_ENV)
    function = caller.f_code.co_name
    if (not page or not outdir or function.startswith("<")
            or caller.f_globals.get("__name__", "").startswith("dpolearn")):
        return                        # experiment figures are exported under their own ids
    name = f"{page}-{function.removeprefix('draw_').strip('_')}"
    if name in _EXPORTED_NAMES:
        return                        # only the first (default) drawing of a widget
    _EXPORTED_NAMES.add(name)
    if _flush_chapter_exports not in shell.events.callbacks["post_run_cell"]:
        shell.events.register("post_run_cell", _flush_chapter_exports)
    _PENDING_EXPORTS.append((fig, name))


def _flush_chapter_exports(*_args) -> None:
    """After a cell ran: export the figures it drew (they are complete by then)."""
    while _PENDING_EXPORTS:
        fig, name = _PENDING_EXPORTS.pop(0)
        try:
            plotting.export(fig, name, os.environ[FIGURE_DIR_ENV])
        except Exception as exc:       # never break a chapter over a figure file
            print(f"dpolearn: could not export figure {name!r}: {exc}", file=sys.stderr)


def export_chapter_figures(shell) -> bool:
    """Export the figures that chapter functions draw with :func:`dpolearn.plotting.subplots`.

    Does nothing unless ``$DPOLEARN_FIGURE_DIR`` and ``$DPOLEARN_FIGURE_PAGE`` are set (the
    book build sets both). Replaces ``dpolearn.plotting.subplots`` in the kernel by a wrapper
    that draws exactly as before and then, when its caller is a function of the chapter named
    ``draw_<what>`` (not a cell's top level, not the package's own experiment code), queues the
    figure; after the cell the figure is written as ``<page>-<what>`` (SVG, PNG and CSV), once
    per name, so a widget's drawing is exported at its first (default) setting.

    Returns
    -------
    bool
        Whether the exports are active.
    """
    if not (os.environ.get(FIGURE_DIR_ENV) and os.environ.get(FIGURE_PAGE_ENV)):
        return False
    if not getattr(plotting.subplots, "dpolearn_export", False):
        original = plotting.subplots

        @functools.wraps(original)
        def subplots(*args, **kwargs):
            fig, axes = original(*args, **kwargs)
            _queue_chapter_export(fig, sys._getframe(1), shell)
            return fig, axes

        subplots.dpolearn_export = True
        subplots.wrapped = original
        plotting.subplots = subplots
    return True


def load_ipython_extension(shell) -> None:
    """IPython extension entry point (``c.InteractiveShellApp.extensions``)."""
    install(shell)
    export_chapter_figures(shell)


# ------------------------------------------------------------------ the build side
def read_records(directory) -> Dict[str, List[Dict[str, Any]]]:
    """Records of every page in ``directory``, by page name (the file's stem)."""
    out: Dict[str, List[Dict[str, Any]]] = {}
    for path in sorted(Path(directory).glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        out[path.stem] = [json.loads(line) for line in lines if line.strip()]
    return out


def audit_page(records: Iterable[Mapping[str, Any]],
               cells: Mapping[Any, Mapping[str, Any]]) -> Tuple[List[Dict[str, Any]], List[str]]:
    """Check a page's records against the places their images take on the page.

    Parameters
    ----------
    records : iterable of dict
        The page's records (:func:`read_records`).
    cells : mapping
        Cell execution count -> ``{"images": number of images in the cell's output on the
        page, "captioned": bool, "boxed": bool, "admonition": bool}`` (see
        :func:`available_width_px`).

    Returns
    -------
    (list of dict, list of str)
        The records, each with ``shown_in_px`` (the width of its place) and its ``problems``
        completed (a figure its place would scale down); and one sentence per cell whose output
        shows more images than the audit recorded (a figure that escaped the audit).
    """
    checked = []
    for rec in records:
        cell = cells.get(rec.get("cell"), {})
        widget, boxed = bool(rec.get("widget")), bool(cell.get("boxed"))
        admonition = bool(cell.get("admonition")) and not rec.get("drives")
        # a static widget's drawing takes the place of the captioned figure it drives
        captioned = bool(rec.get("drives")) or (bool(cell.get("captioned")) and not widget)
        width = min(float(COLUMN_WIDTH_PX), available_width_px(
            captioned=captioned, boxed=boxed, widget=widget and not rec.get("drives"),
            admonition=admonition))
        where = ("the captioned figure it drives" if rec.get("drives") else
                 "an admonition (e.g. an exercise's solution)" if admonition else
                 "a widget's output in a box" if widget and boxed else
                 "a box (collapsed output)" if boxed else "its place")
        extra = _context_problem(rec, width, where)
        checked.append(dict(rec, shown_in_px=round(width, 1),
                            problems=list(rec.get("problems", [])) + ([extra] if extra else [])))
    audited: Dict[Any, int] = {}
    for rec in records:
        if not rec.get("widget"):
            audited[rec.get("cell")] = audited.get(rec.get("cell"), 0) + 1
    escaped = []
    for count, cell in sorted(cells.items(), key=lambda kv: str(kv[0])):
        n_images = cell.get("images", 0)
        if n_images > audited.get(count, 0):
            escaped.append(f"cell [{count}] shows {n_images} image(s) but the figure audit "
                           f"recorded {audited.get(count, 0)}: a figure escaped the audit "
                           "(an image not drawn by matplotlib, or figure formats changed)")
    return checked, escaped


def audit_warnings(records: Iterable[Mapping[str, Any]],
                   cells: Mapping[Any, Mapping[str, Any]]) -> List[str]:
    """One sentence per problem of a page's figures and per figure that escaped the audit
    (the arguments of :func:`audit_page`)."""
    checked, escaped = audit_page(records, cells)
    warnings = []
    for rec in checked:
        what = f" ({rec['axes']})" if rec.get("axes") else ""
        kind = "widget drawing" if rec.get("widget") else "figure"
        warnings += [f"{kind} {rec.get('index')} of the page, cell [{rec.get('cell')}]{what}: "
                     f"{problem}" for problem in rec["problems"]]
    return warnings + escaped
