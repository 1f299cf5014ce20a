"""Text alternatives of figures, written from the figure's own data.

A reader who cannot see a figure (a screen reader reads an image's ``alt`` text) should learn
what it shows: the kind of plot, its axes and scales, its series, and the main result in numbers.
:func:`describe_figure` writes that text from a matplotlib Figure's objects, after it is drawn:
axis labels and scales, each labelled line's last value (where a regret curve ends), bar
heights, the range of a heat map, reference lines. It never names a file.

The book's build attaches the text to every figure a page shows (the figure audit runs in each
page's kernel and the book's Sphinx extension sets it as the image's ``alt``). In a notebook,
``describe_figure(fig)`` prints the same text.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt
>>> fig, ax = plt.subplots()
>>> _ = ax.plot([1, 10, 100], [0.0, 4.0, 9.5], label="UCB1")
>>> _ = ax.set(xlabel="round t", ylabel="regret", xscale="log")
>>> describe_figure(fig)  # doctest: +NORMALIZE_WHITESPACE
'Line plot of regret against round t (log scale) from 1 to 100.
 1 series: UCB1 ends at 9.5 (round t = 100).'
>>> plt.close(fig)
"""
from __future__ import annotations

import re
from typing import List, Optional

import numpy as np

__all__ = ["describe_figure", "describe_axes", "MAX_SERIES", "MAX_LABELS"]

#: Most series named per panel; the others are counted.
MAX_SERIES = 8
#: Most texts named for a diagram drawn without axes.
MAX_LABELS = 20
_PANEL_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _check_figure(fig) -> None:
    if not (hasattr(fig, "axes") and hasattr(fig, "legends") and hasattr(fig, "savefig")):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")


def _number(value: float) -> str:
    """A value as a reader would say it: 3 significant digits, no exponent for everyday sizes."""
    value = float(value)
    if not np.isfinite(value):
        return str(value)
    if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
        return f"{value:.2e}"
    text = f"{value:.3g}"
    return f"{float(text):,.0f}" if "e" in text else text


def _clean(text: str) -> str:
    """Axis or legend text without TeX markup: ``$\\varepsilon$`` -> ``varepsilon``."""
    text = re.sub(r"\\(mathrm|mathbf|mathit|text|operatorname)\{([^}]*)\}", r"\2", text)
    text = text.replace("\\varepsilon", "epsilon").replace("\\epsilon", "epsilon")
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", text)
    text = re.sub(r"\\(left|right|,|;|!|quad)", " ", text)
    text = text.replace("$", "").replace("\\", "").replace("{", "").replace("}", "")
    return " ".join(text.split())


def _label(artist) -> Optional[str]:
    """The series name of an artist, or None for an unnamed helper."""
    label = getattr(artist, "_dpolearn_label", None) or artist.get_label() or ""
    if label == "_nolegend_" or re.fullmatch(r"_(child|collection|container|line)\d+", label):
        return None
    return _clean(label.lstrip("_")) or None


def _axis(ax, which: str) -> str:
    """An axis's label and scale; for x also the range of the lines' data."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    label = _clean(axis.get_label_text()) or f"{which} value"
    if axis.get_scale() in ("log", "symlog"):
        label += " (log scale)"
    if which == "x":
        xs = [np.asarray(line.get_xdata(), dtype=float) for line in ax.get_lines()
              if line.get_transform() == ax.transData and len(line.get_xdata()) > 2]
        xs = np.concatenate(xs) if xs else np.array([])
        xs = xs[np.isfinite(xs)]
        if xs.size:
            label += f" from {_number(xs.min())} to {_number(xs.max())}"
    return label


def _is_reference(line, ax) -> Optional[str]:
    """'horizontal line at y = v' for an axhline-like line (or vertical), else None."""
    x, y = (np.asarray(v, dtype=float).ravel() for v in line.get_data())
    if x.size < 2:
        return None
    if line.get_transform() != ax.transData:               # axhline / axvline
        return (f"a vertical line at {_number(x[0])}" if x[0] == x[-1]
                else f"a horizontal line at {_number(y[0])}")
    if x.size == 2 and y[0] == y[1]:
        return f"a horizontal line at {_number(y[0])}"
    if x.size == 2 and x[0] == x[1]:
        return f"a vertical line at {_number(x[0])}"
    return None


def _line_summary(line, xname: str) -> Optional[str]:
    x, y = (np.asarray(v, dtype=float).ravel() for v in line.get_data())
    ok = np.isfinite(x) & np.isfinite(y) if x.size == y.size else np.isfinite(y)
    if not ok.any():
        return None
    last = np.flatnonzero(ok)[-1]
    if x.size == y.size and x.size > 1:
        return f"ends at {_number(y[last])} ({xname} = {_number(x[last])})"
    return f"is {_number(y[last])}"


def _add(kinds: List[str], kind: str) -> None:
    if kind not in kinds:
        kinds.append(kind)


def describe_axes(ax) -> str:
    """One panel in words: plot type, axes, series and their final values (see module doc)."""
    if not hasattr(ax, "get_lines") or not hasattr(ax, "containers"):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
    xname = _clean(ax.get_xlabel()) or "x"
    kinds, series, references = [], [], []
    for line in ax.get_lines():
        reference = _is_reference(line, ax)
        name = _label(line)
        if reference is not None and name is None:
            references.append(reference)
            continue
        if name is None:
            continue
        summary = _line_summary(line, xname)
        if summary is not None:
            series.append(f"{name} {summary}" if reference is None else f"{name}: {reference}")
        if len(line.get_xdata()) > 1:
            _add(kinds, "line plot")
    for bars in ax.containers:
        patches = list(getattr(bars, "patches", []))
        if not patches:
            continue
        _add(kinds, "bar chart")
        heights = [p.get_height() for p in patches]
        name = _label(bars) or "bars"
        ticks = [_clean(t.get_text()) for t in ax.get_xticklabels()]
        if len(ticks) == len(patches) and all(ticks):
            values = ", ".join(f"{t} {_number(h)}" for t, h in zip(ticks, heights))
        else:
            values = ", ".join(_number(h) for h in heights[:12]) + (
                f" and {len(heights) - 12} more" if len(heights) > 12 else "")
        series.append(f"{name}: heights {values}")
    for coll in ax.collections:
        kind = type(coll).__name__
        name = _label(coll)
        if kind == "PathCollection":
            _add(kinds, "scatter plot")
            n = len(coll.get_offsets())
            series.append(f"{name or 'points'}: {n} points")
        elif kind in ("PolyCollection", "FillBetweenPolyCollection"):
            _add(kinds, "shaded bands")
    for image in ax.images:
        _add(kinds, "heat map")
        values = np.ma.masked_invalid(np.ma.asarray(image.get_array(), dtype=float))
        if values.count():
            series.append(f"values from {_number(values.min())} to {_number(values.max())}"
                          f" over {values.shape[0]} by {values.shape[1]} cells")
    if not kinds:
        kinds = ["empty plot"] if not series else ["plot"]
    kind = kinds[0] + (" with " + " and ".join(kinds[1:]) if len(kinds) > 1 else "")
    title = _clean(ax.get_title())
    text = (f"{kind[0].upper()}{kind[1:]}" + (f" titled {title!r}" if title else "")
            + f" of {_axis(ax, 'y')} against {_axis(ax, 'x')}.")
    if series:
        named = series[:MAX_SERIES]
        more = len(series) - len(named)
        text += (f" {len(series)} series: " + "; ".join(named)
                 + (f"; and {more} more" if more else "") + ".")
    if references:
        text += " Reference: " + "; ".join(references[:4]) + "."
    return text


def _describe_diagram(fig) -> str:
    """A figure without axes (a drawn diagram): its texts in drawing order, numbers counted."""
    texts = [t.get_text() for ax in fig.axes for t in ax.texts] + [t.get_text() for t in fig.texts]
    labels, numbers = [], 0
    for text in texts:
        text = _clean(text)
        if not text:
            continue
        if re.fullmatch(r"[-+.,\d\s]+", text):
            numbers += 1
        elif text not in labels:
            labels.append(text)
    if not labels and not numbers:
        return "A figure without data panels or text."
    shown = labels[:MAX_LABELS]
    return ("Diagram without axes" + (f", with the labels: {'; '.join(shown)}" if shown else "")
            + (f" and {len(labels) - len(shown)} more" if len(labels) > len(shown) else "")
            + (f"; it shows {numbers} numbers" if numbers else "") + ".")


def describe_figure(fig) -> str:
    """What ``fig`` shows, in words, for a reader who cannot see it (an image's alt text).

    Parameters
    ----------
    fig : matplotlib Figure

    Returns
    -------
    str
        One sentence or more per data panel (panels named (a), (b), ... in reading order):
        the plot type, the y axis against the x axis (label, log scale, range), each labelled
        series with its last value, and reference lines. Colour bars are left out.
    """
    _check_figure(fig)
    panels = [ax for ax in fig.axes if ax.axison and ax.get_label() != "<colorbar>"]
    if not panels:
        return _describe_diagram(fig)
    texts: List[str] = []
    for i, ax in enumerate(panels):
        text = describe_axes(ax)
        texts.append(text if len(panels) == 1 else f"Panel ({_PANEL_LETTERS[i % 26]}): {text}")
    head = "" if len(panels) == 1 else f"Figure with {len(panels)} panels. "
    title = _clean(fig._suptitle.get_text()) if getattr(fig, "_suptitle", None) else ""
    return (f"{title}. " if title else "") + head + " ".join(texts)
