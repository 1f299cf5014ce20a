"""Regret curves with error bands, in one consistent style across the book."""
from __future__ import annotations

import zlib
from typing import Iterable, Optional, Sequence, Union

import numpy as np

__all__ = ["STYLE", "use_style", "color_of", "subplots", "regret", "LABEL_ORDER"]

#: Shared matplotlib settings (figure size, line width, grid); chapters do not set figsize.
STYLE = {
    "figure.figsize": (7.0, 4.2),
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "lines.linewidth": 2.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "font.size": 10.5,
}

#: Algorithm labels in a fixed order; each keeps its colour on every page of the book.
LABEL_ORDER = [
    "UCB1", "KL-UCB", "TS (Beta)", "TS (Gaussian)", "Uniform",
    "DP-UCB-BOUND", "DP-UCB", "DP-UCB-INT", "Private-UCB",
    "Anytime-Lazy-UCB", "DP-TS", "Lazy-DP-TS", "DP-SE", "AdaP-UCB", "AdaP-KLUCB",
    "DP-TS-UCB", "M-TS-Gaussian",
    "FTL", "Hedge", "RNM-FTNL", "Naive FTNL",
]

_PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22", "#17becf", "#003f5c", "#a05195", "#f95d6a", "#2f4b7c",
            "#665191", "#d45087", "#ffa600", "#488f31", "#de425b", "#00876c", "#6a3d9a"]


def use_style() -> None:
    """Apply :data:`STYLE` to matplotlib's rcParams."""
    import matplotlib as mpl

    mpl.rcParams.update(STYLE)


def color_of(label: str) -> str:
    """The book-wide colour of an algorithm label (stable for unknown labels too)."""
    base = label.split(" (")[0] if label not in LABEL_ORDER else label
    if base in LABEL_ORDER:
        return _PALETTE[LABEL_ORDER.index(base) % len(_PALETTE)]
    return _PALETTE[zlib.crc32(label.encode()) % len(_PALETTE)]


def subplots(nrows: int = 1, ncols: int = 1, **kwargs):
    """``plt.subplots`` in the book style, sized for the number of panels."""
    import matplotlib.pyplot as plt

    use_style()
    w, h = STYLE["figure.figsize"]
    kwargs.setdefault("figsize", (w * min(ncols, 2) if ncols > 1 else w,
                                  h * (0.85 * nrows if nrows > 1 else 1)))
    kwargs.setdefault("squeeze", False)
    kwargs.setdefault("constrained_layout", True)
    return plt.subplots(nrows, ncols, **kwargs)


def regret(results: Union["Result", Sequence["Result"]], ax=None, *, log_x: bool = False,
           log_y: bool = False, band: Optional[str] = "ci", labels: Optional[Iterable[str]] = None,
           colors: Optional[Iterable[str]] = None, legend: bool = True, **line_kwargs):
    """Plot mean pseudo-regret against rounds, one curve per result.

    Parameters
    ----------
    results : Result or sequence of Result
    ax : matplotlib Axes, optional
    log_x, log_y : bool
        Logarithmic axes (use ``log_x`` where the theory is logarithmic in T).
    band : {"ci", "se", "quantile", None}
        ``"ci"``: mean +- 1.96 standard errors (95% interval for the mean); ``"se"``: +- 1 SE;
        ``"quantile"``: the 10%-90% range of the runs.
    labels, colors : optional overrides of the legend names and colours.

    Returns
    -------
    matplotlib Axes
    """
    from .simulate import Result

    if isinstance(results, Result):
        results = [results]
    if ax is None:
        _, axes = subplots()
        ax = axes[0, 0]
    labels = list(labels) if labels is not None else [r.label for r in results]
    colors = list(colors) if colors is not None else [color_of(lab) for lab in labels]
    for res, lab, col in zip(results, labels, colors):
        x, m = res.checkpoints, res.mean()
        ax.plot(x, m, label=lab, color=col, **line_kwargs)
        if band in ("ci", "se") and res.n_runs > 1:
            k = 1.96 if band == "ci" else 1.0
            ax.fill_between(x, m - k * res.se(), m + k * res.se(), color=col, alpha=0.2, lw=0)
        elif band == "quantile" and res.n_runs > 1:
            lo, hi = res.quantile([0.1, 0.9])
            ax.fill_between(x, lo, hi, color=col, alpha=0.15, lw=0)
        elif band not in ("ci", "se", "quantile", None):
            raise ValueError(f"band must be 'ci', 'se', 'quantile' or None, got {band!r}")
    if log_x:
        ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")
    ax.set_xlabel("round t")
    ax.set_ylabel("pseudo-regret")
    if legend:
        ax.legend()
    return ax
