"""Figures in one style across the book, sized for the book's page.

A figure is drawn :data:`FIGURE_WIDTH_IN` inches wide at ``figure.dpi = 96`` (one image pixel
per CSS pixel: about 653 px, inside the book's text column of 672 CSS pixels at a 1280 px
browser window), so the PNG a page embeds is not scaled down and a font of ``f`` points is shown
at ``f`` points. With at most two panels side by side and no text below 9 pt (:data:`STYLE`),
every label stays legible at 100 % zoom.

Every algorithm label has one colour, one line style and one marker book-wide
(:func:`style_of`), so curves stay apart in greyscale print too. The colours are Okabe and Ito's
colour-blind-safe palette (:data:`PALETTE`), and in every panel no two series share colour,
marker *and* line style (the book's figure audit checks it); a line that is not a series (a
level, a bound drawn for reference) is marked with :func:`mark_reference`. A multi-panel figure
carries one legend, below the panels (:func:`shared_legend`). :func:`export` writes a figure as
SVG, as a 200 dpi PNG and as a CSV of the data it plots, for slides and lecture notes.
"""
from __future__ import annotations

import csv
import os
import re
import zlib
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

import numpy as np

from . import _algorithms
from ._algorithms import DerivedList
from ._validation import as_float_array, check_directory, check_figure, show
from .simulate import Result

__all__ = [
    "STYLE",
    "use_style",
    "color_of",
    "style_of",
    "PALETTE",
    "REFERENCE_GID",
    "mark_reference",
    "is_reference",
    "sweep_styles",
    "subplots",
    "regret",
    "errorbar",
    "shared_legend",
    "export",
    "export_data",
    "LABEL_ORDER",
    "FIGURE_WIDTH_IN",
    "BOXED_FIGURE_WIDTH_IN",
    "CSS_PX_PER_INCH",
    "EXPORT_DPI",
    "ALGORITHM_LABELS",
    "VARIANT_LABELS",
    "MECHANISM_LABELS",
    "COUNTER_LABELS",
]

#: CSS pixels per inch (a fixed ratio in every browser at 100 % zoom).
CSS_PX_PER_INCH = 96
#: Figure width: 6.8 in at 96 dpi is 653 px, inside the column with room for ``bbox="tight"``.
FIGURE_WIDTH_IN = 6.8
#: Width of a figure in a box (an exercise's solution), whose body is indented: 614 px.
BOXED_FIGURE_WIDTH_IN = 6.4
#: Resolution of the exported PNG files (slides, printed notes).
EXPORT_DPI = 200

_PANEL_HEIGHT_IN = {1: 3.7, 2: 2.75}          # height of one row of panels, by columns

#: Shared matplotlib settings; chapters and experiments do not set figure sizes themselves.
STYLE = {
    "figure.figsize": (FIGURE_WIDTH_IN, _PANEL_HEIGHT_IN[1]),
    "figure.dpi": CSS_PX_PER_INCH,
    "savefig.dpi": "figure",
    "savefig.bbox": "tight",
    # a thin margin around the tight box: a figure of the column width is 652 px, which fits
    # every place a page gives an uncaptioned figure or a widget's drawing (the narrowest, a
    # widget in a collapsed output, is 662 px at a 1280 px window)
    "savefig.pad_inches": 0.04,
    "lines.linewidth": 1.8,
    "lines.markersize": 5.0,
    "errorbar.capsize": 2.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "font.size": 10.0,
    "axes.labelsize": 10.0,
    "axes.titlesize": 10.0,
    "xtick.labelsize": 9.0,
    "ytick.labelsize": 9.0,
    "legend.fontsize": 9.0,
    "legend.title_fontsize": 9.0,
    "figure.titlesize": 10.0,
    "legend.handlelength": 3.0,
    "legend.columnspacing": 1.2,
}

#: Algorithm labels (the policies' ``label``), in the order of the entries of
#: ``dpolearn/_algorithms.py`` (derived from them, live).
ALGORITHM_LABELS = DerivedList(_algorithms.labels)
#: Full-information variants that figures compare side by side with the algorithms above (the
#: ``"common"`` preset's labels that are not an algorithm's own, derived from the entries).
VARIANT_LABELS = DerivedList(lambda: [label for label in _algorithms.labels("common")
                                           if label not in _algorithms.labels()])
#: Mechanisms and counters: never drawn next to algorithms, so each list is styled from its start.
MECHANISM_LABELS = ["Laplace", "Exponential", "Gumbel", "Gaussian", "broken Laplace"]
COUNTER_LABELS = ["binary", "logarithmic", "hybrid (chan)", "hybrid (paper)"]
#: Every styled label; each keeps its colour, line style and marker on every page of the book.
LABEL_ORDER = DerivedList(lambda: ALGORITHM_LABELS + VARIANT_LABELS + MECHANISM_LABELS
                          + COUNTER_LABELS)

#: The Okabe-Ito palette (Okabe and Ito, "Color Universal Design", 2008), told apart by readers
#: with any common colour-vision deficiency; its yellow is left out (too faint as a thin line on
#: white). Label number i gets colour i mod 7, line style i mod 4 and marker i mod 11: the three
#: counts are coprime, so no two of the first 308 labels share all three, and no two of the first
#: 44 share both line style and marker (what greyscale print keeps).
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000"]
_LINESTYLES = ["-", "--", "-.", (0, (1, 1.5))]
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", "*", ">", "h"]
#: The ``gid`` of a line drawn for reference (a level, a bound), which is not a series.
REFERENCE_GID = "reference"


def use_style() -> None:
    """Apply :data:`STYLE` to matplotlib's rcParams (with :data:`PALETTE` as the colour cycle)."""
    import matplotlib as mpl

    mpl.rcParams.update(STYLE)
    mpl.rcParams["axes.prop_cycle"] = mpl.cycler(color=PALETTE)


def mark_reference(*lines):
    """Mark lines as reference lines (a level, a bound, a diagonal), not series.

    The book's figure audit requires the *series* of a panel to differ in colour, marker or line
    style; a reference line may share its look with another one (two dotted grey levels). Every
    line that is not marked counts as a series, labelled or not.

    Parameters
    ----------
    *lines : matplotlib Line2D
        E.g. what ``ax.axhline`` returns.

    Returns
    -------
    The first line (for ``line = mark_reference(ax.axhline(0))``).
    """
    from matplotlib.lines import Line2D

    for line in lines:
        if not isinstance(line, Line2D):
            raise TypeError(f"lines must be matplotlib Line2D objects, got {show(line)}")
        line.set_gid(REFERENCE_GID)
    return lines[0] if lines else None


def is_reference(line) -> bool:
    """Whether ``line`` (a matplotlib Line2D) was marked by :func:`mark_reference`."""
    if not hasattr(line, "get_gid"):
        raise TypeError(f"line must be a matplotlib Line2D, got {show(line)}")
    return line.get_gid() == REFERENCE_GID


def _style_index(label: str) -> int:
    for section in (MECHANISM_LABELS, COUNTER_LABELS):
        if label in section:
            return section.index(label)
    order = list(LABEL_ORDER)                 # one read of the entries
    if label in order:
        return order.index(label)
    base = label.split(" (")[0]
    if base in order:                         # a variant: its algorithm's colour, its own lines
        i = order.index(base)
        return i + len(PALETTE) * (1 + zlib.crc32(label.encode()) % 43)
    return zlib.crc32(label.encode()) % 4400


def style_of(label: str) -> Dict[str, Any]:
    """The book-wide style of a series label: ``color``, ``linestyle`` and ``marker``.

    Parameters
    ----------
    label : str
        An algorithm's ``label`` (or a variant ``"<label> (<detail>)"``, which keeps the
        algorithm's colour), a mechanism or a counter name of :data:`LABEL_ORDER`.

    Returns
    -------
    dict
        Keyword arguments for ``Axes.plot`` / ``Axes.errorbar``.
    """
    if not isinstance(label, str):
        raise TypeError(f"label must be a str, got {label!r}")
    i = _style_index(label)
    return {"color": PALETTE[i % len(PALETTE)], "linestyle": _LINESTYLES[i % len(_LINESTYLES)],
            "marker": _MARKERS[i % len(_MARKERS)]}


def sweep_styles(n: int) -> List[Dict[str, Any]]:
    """Styles for ``n`` values of one parameter (e.g. alpha = 0, 0.5, 1, ...): a sequential
    colour scale (viridis, light end cut) plus a line style and marker each, so the order is
    visible in colour and the curves stay apart in greyscale."""
    import matplotlib as mpl

    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    cmap = mpl.colormaps["viridis"]
    return [
        {
            "color": cmap(0.85 * i / max(n - 1, 1)),
            "linestyle": _LINESTYLES[i % len(_LINESTYLES)],
            "marker": _MARKERS[i % len(_MARKERS)],
        }
        for i in range(n)
    ]


def color_of(label: str) -> str:
    """The book-wide colour of a series label (stable for unknown labels too)."""
    return style_of(label)["color"]


def subplots(nrows: int = 1, ncols: int = 1, *, height: float = 1.0, boxed: bool = False,
             **kwargs):
    """``plt.subplots`` in the book style, sized for the book's column.

    Parameters
    ----------
    nrows, ncols : int
        Panel grid; at most two columns fit the column at a legible size.
    height : float
        Multiplier of the default row height (e.g. 1.2 for a tall single panel).
    boxed : bool
        The figure is shown in a box of the page (an exercise's solution), narrower than the
        column: drawn :data:`BOXED_FIGURE_WIDTH_IN` wide instead of :data:`FIGURE_WIDTH_IN`.
    **kwargs
        Passed to ``plt.subplots`` (``figsize`` is rejected: every figure has the column width).

    Returns
    -------
    (Figure, ndarray of Axes)
        ``axes`` is always 2-D (``squeeze=False``).
    """
    import matplotlib.pyplot as plt

    for name, value in (("nrows", nrows), ("ncols", ncols)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if ncols > 2:
        raise ValueError(
            f"ncols must be at most 2 (panels stay legible in the column), got {ncols!r}"
        )
    if not isinstance(height, (int, float)) or not 0.3 <= height <= 3:
        raise ValueError(f"height must be a number in [0.3, 3], got {height!r}")
    if not isinstance(boxed, bool):
        raise TypeError(f"boxed must be True or False, got {show(boxed)}")
    if "figsize" in kwargs:
        raise TypeError(f"figsize is fixed by the book style, got figsize={kwargs['figsize']!r}")
    use_style()
    row = _PANEL_HEIGHT_IN[ncols] * height
    width = BOXED_FIGURE_WIDTH_IN if boxed else FIGURE_WIDTH_IN
    kwargs["figsize"] = (width, row * nrows + (0.2 if nrows > 1 else 0.0))
    kwargs.setdefault("squeeze", False)
    kwargs.setdefault("layout", "constrained")
    return plt.subplots(nrows, ncols, **kwargs)


def _markevery(label: str):
    """Markers spaced evenly along the curve, offset per label so they do not sit on each other."""
    return (0.013 * (_style_index(label) % 7), 0.11)


def regret(results: Union[Result, Sequence[Result]], ax=None, *, log_x: bool = False,
           log_y: bool = False, band: Optional[str] = "ci", labels: Optional[Iterable[str]] = None,
           colors: Optional[Iterable[str]] = None, style_keys: Optional[Iterable[str]] = None,
           legend: bool = True, **line_kwargs):
    """Plot mean pseudo-regret against rounds, one curve per result, in the book style.

    Parameters
    ----------
    results : Result or sequence of Result
    ax : matplotlib Axes, optional
    log_x, log_y : bool
        Logarithmic axes (use ``log_x`` where the theory is logarithmic in T).
    band : {"ci", "se", "quantile", None}
        ``"ci"``: mean +- 1.96 standard errors (95% interval for the mean); ``"se"``: +- 1 SE;
        ``"quantile"``: the 10%-90% range of the runs.
    labels, colors : optional overrides of the legend names and colours (line style and marker
        follow the label).
    style_keys : optional labels whose book-wide style each curve takes (default: its label),
        for a variant named differently from its entry in :data:`LABEL_ORDER`.
    legend : bool
        Draw a legend on ``ax`` (single-panel figures; multi-panel figures use
        :func:`shared_legend`).
    **line_kwargs
        Passed to ``Axes.plot`` (e.g. ``ls`` overrides the label's line style).

    Returns
    -------
    matplotlib Axes
    """
    if isinstance(results, Result):
        results = [results]
    if isinstance(results, (str, bytes)) or not hasattr(results, "__iter__"):
        raise TypeError(f"results must be a Result or a sequence of them, got {show(results)}")
    results = list(results)
    if not results:
        raise ValueError("results must hold at least one Result, got an empty sequence")
    bad = [r for r in results if not isinstance(r, Result)]
    if bad:
        raise TypeError(f"results must hold dpolearn Result objects, got {show(bad[0])}")
    if band not in ("ci", "se", "quantile", None):
        raise ValueError(f"band must be 'ci', 'se', 'quantile' or None, got {band!r}")
    if ax is None:
        _, axes = subplots()
        ax = axes[0, 0]
    labels = list(labels) if labels is not None else [r.label for r in results]
    colors = list(colors) if colors is not None else [None] * len(labels)
    keys = list(style_keys) if style_keys is not None else labels
    for res, lab, col, key in zip(results, labels, colors, keys):
        x, m = res.checkpoints, res.mean()
        style = style_of(key)
        if col is not None:
            style["color"] = col
        kw = dict(style, markevery=_markevery(key))
        if "ls" in line_kwargs:
            kw.pop("linestyle")
        kw.update(line_kwargs)
        (line,) = ax.plot(x, m, label=lab, **kw)
        se = res.se() if res.n_runs > 1 else np.zeros_like(m)
        line._dpolearn_se = se
        if band in ("ci", "se") and res.n_runs > 1:
            k = 1.96 if band == "ci" else 1.0
            ax.fill_between(x, m - k * se, m + k * se, color=line.get_color(), alpha=0.2, lw=0)
        elif band == "quantile" and res.n_runs > 1:
            lo, hi = res.quantile([0.1, 0.9])
            ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.15, lw=0)
    if log_x:
        ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")
    ax.set_xlabel("round t")
    ax.set_ylabel("pseudo-regret")
    if legend:
        ax.legend()
    return ax


def errorbar(ax, x, mean, se, label: str, *, z: float = 1.96, **kwargs):
    """Means with ``z`` x standard-error bars, in the label's book-wide style.

    The standard errors are kept on the line, so :func:`export` writes them to the CSV.
    """
    mean = as_float_array("mean", mean)
    se = as_float_array("se", se)
    if se.ndim and se.shape != mean.shape:
        raise ValueError(f"se must be a number or have the shape of mean {mean.shape}, got shape "
                         f"{se.shape}")
    se = np.broadcast_to(se, mean.shape)
    kw = style_of(label)
    if "ls" in kwargs:
        kw.pop("linestyle")
    if "fmt" in kwargs:                       # a format string decides the look
        kw = {}
    kw.update(kwargs)
    container = ax.errorbar(x, mean, yerr=z * se, label=label, **kw)
    if container.lines[0] is not None:
        container.lines[0]._dpolearn_se = np.array(se)
        container.lines[0]._dpolearn_label = label
    return container


def shared_legend(fig, axes=None, *, ncol: Optional[int] = None, handles=None, labels=None,
                  **kwargs):
    """One legend for the whole figure, below the panels, with as many columns as fit.

    Handles are collected from every axes (first occurrence of each label wins), unless
    ``handles`` and ``labels`` are given. When the grid has an empty slot (an axes turned off)
    and at most ten entries, the legend fills that slot instead.
    """
    check_figure(fig)
    if handles is None:
        handles, labels, seen = [], [], set()
        for ax in np.ravel(axes if axes is not None else fig.axes):
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in seen and not lab.startswith("_"):
                    seen.add(lab)
                    handles.append(h)
                    labels.append(lab)
    if not handles:
        return None
    spare = [ax for ax in np.ravel(axes if axes is not None else fig.axes)
             if not ax.axison and not ax.has_data()]
    if spare and ncol is None and len(labels) <= 10 and "loc" not in kwargs:
        return spare[0].legend(handles, labels, loc="center", **kwargs)   # an empty panel slot
    if ncol is None:
        # a legend entry is about 3 em of handle plus 0.55 em per character
        size = float(_rc("legend.fontsize"))
        widest = max(len(lab) for lab in labels)
        entry_pt = size * (4.2 + 0.55 * widest)
        ncol = max(1, min(len(labels), int(FIGURE_WIDTH_IN * 72 * 0.97 // entry_pt)))
    kwargs.setdefault("loc", "outside lower center")
    if kwargs["loc"].startswith("outside"):
        # grow the figure by the legend's height, so the panels keep their size
        size = float(_rc("legend.fontsize"))
        n_rows = -(-len(labels) // ncol) + (1 if kwargs.get("title") else 0)
        fig.set_figheight(fig.get_figheight() + (1.45 * size * n_rows + 8) / 72)
    return fig.legend(handles, labels, ncol=ncol, **kwargs)


def _rc(key: str):
    import matplotlib as mpl

    value = mpl.rcParams[key]
    if isinstance(value, str):                       # "medium" and the like
        from matplotlib.font_manager import FontProperties

        return FontProperties(size=value).get_size_in_points()
    return value


# ---------------------------------------------------------------- figure files for lecturing
def _panel_names(fig) -> Dict[Any, str]:
    axes = [ax for ax in fig.axes if ax.axison and (ax.get_lines() or ax.collections
                                                   or ax.images or ax.patches)]
    if len(axes) == 1:
        return {axes[0]: ""}
    return {ax: "abcdefghijklmnopqrstuvwxyz"[i] for i, ax in enumerate(axes)}


def _cell(value: float):
    return "" if not np.isfinite(value) else float(value)


def _plotted_rows(fig) -> List[Dict[str, Any]]:
    """The rows of :func:`export`'s CSV: the data ``fig`` plots (columns in its docstring)."""
    from matplotlib.container import BarContainer

    check_figure(fig)
    rows = []
    for ax, panel in _panel_names(fig).items():
        for line in ax.get_lines():
            label = getattr(line, "_dpolearn_label", line.get_label())
            if label == "_nolegend_" or re.fullmatch(r"_child\d+", label):
                continue                                  # matplotlib's unnamed helpers
            label = label.lstrip("_")                     # named, only kept out of the legend
            x, y = (np.asarray(v, dtype=float).ravel() for v in line.get_data())
            if x.size == 0 or x.size != y.size:
                continue
            if line.get_transform() != ax.transData:      # axhline / axvline: one level
                x, y = (np.array([np.nan]), y[:1]) if x[0] != x[-1] else (x[:1], np.array([np.nan]))
            se = getattr(line, "_dpolearn_se", None)
            se = np.full(x.size, np.nan) if se is None else np.asarray(se, dtype=float).ravel()
            for xi, yi, si in zip(x, y, se):
                rows.append({"panel": panel, "series": label, "x": _cell(xi), "y": _cell(yi),
                             "se": _cell(si)})
        for bars in ax.containers:
            if isinstance(bars, BarContainer):                # bars are data, named or not
                series = "" if bars.get_label().startswith("_") else bars.get_label()
                for patch in bars.patches:
                    rows.append({"panel": panel, "series": series,
                                 "x": _cell(patch.get_x() + patch.get_width() / 2),
                                 "y": _cell(patch.get_height()), "se": ""})
        for image in ax.images:
            table = getattr(image, "_dpolearn_table", None)
            if table is None:                             # a matrix: row, column, value
                values = np.ma.filled(np.ma.asarray(image.get_array(), dtype=float), np.nan)
                table = [(f"row {i + 1}", j + 1, values[i, j])
                         for i in range(values.shape[0]) for j in range(values.shape[1])]
            for series, x, y in table:
                rows.append({"panel": panel, "series": series, "x": x, "y": _cell(y), "se": ""})
    return rows


def export(fig, name: str, outdir: Union[str, os.PathLike]) -> Path:
    """Write ``<name>.svg``, ``<name>.png`` (at :data:`EXPORT_DPI`) and ``<name>.csv``.

    The CSV holds the data the figure plots, one row per point of every labelled line, per bar
    and per heat-map cell: ``panel`` (a, b, ... in reading order; empty for a single panel),
    ``series`` (the legend label; empty for bars without one), ``x``, ``y`` and ``se`` (the
    standard error where the curve is a mean, as drawn by :func:`regret` and :func:`errorbar`;
    else empty). A horizontal reference line has an empty ``x`` (a vertical one an empty
    ``y``); a bar gives its centre and height; a heat map gives one row per cell (``series`` its
    row, ``x`` its column, ``y`` the value). A diagram (text and shapes, no data) gives the
    header line only.

    Parameters
    ----------
    fig : matplotlib Figure
    name : str
        A stable file name (the experiment id, e.g. ``"hu2021-fig1"``); letters, digits,
        ``-``, ``_`` and ``.`` only.
    outdir : str or path
        Target directory (created if missing).

    Returns
    -------
    Path
        The directory written to.
    """
    outdir = export_data(fig, name, outdir)
    fig.savefig(outdir / f"{name}.svg")
    fig.savefig(outdir / f"{name}.png", dpi=EXPORT_DPI)
    return outdir


def export_data(fig, name: str, outdir: Union[str, os.PathLike]) -> Path:
    """Write only ``<name>.csv``, the data ``fig`` plots (the columns of :func:`export`); returns
    the directory written to."""
    check_figure(fig)
    if not isinstance(name, str) or not name or not all(c.isalnum() or c in "-_." for c in name):
        raise ValueError(f"name must be letters, digits, '-', '_' or '.', got {name!r}")
    outdir = check_directory("outdir", outdir)
    rows = _plotted_rows(fig)
    with open(outdir / f"{name}.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["panel", "series", "x", "y", "se"])
        writer.writeheader()
        writer.writerows(rows)
    return outdir
