"""Interactive figures that work in a live kernel and on the book's static pages.

:func:`interactive` takes a drawing function and its controls (:class:`Slider`,
:class:`Choice`). In a live kernel (Jupyter, Colab, Binder) it returns an ipywidgets
``interactive`` that redraws the figure whenever a control moves. During the book's build
(``$DPOLEARN_STATIC_WIDGETS`` set, :data:`BOOK_BUILD_ENV`), no Python runs behind the published
page, so it draws the figure once for every setting of the controls (the product of their
values) and emits a small HTML form whose controls swap the precomputed images in the browser.

Each control lists the values the static page offers; keep the product small (at most
:data:`MAX_IMAGES` images, each a PNG at the book's 96 dpi, about 50 kB).

With ``figure="fig-<name>"`` the static controls drive the captioned figure of that name on the
same page (the figure a cell above shows at the default setting), so the page shows the figure
once, with its caption, and the controls below it change it; without it the form shows its own
image.
"""
from __future__ import annotations

import base64
import html
import io
import itertools
import json
import math
import numbers
import os
import re
import sys
import zlib
from typing import Any, Callable, Dict, List, Optional, Sequence

from ._validation import show

__all__ = ["BOOK_BUILD_ENV", "MAX_IMAGES", "Slider", "Choice", "Fixed", "interactive",
           "precomputing"]

#: Environment variable that asks for the static form; the book's build sets it for the pages
#: it executes (any non-empty value).
BOOK_BUILD_ENV = "DPOLEARN_STATIC_WIDGETS"
#: Most images one static widget may hold (the product of its controls' numbers of values).
MAX_IMAGES = 30

_FIGURE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]*")

# The static widget drawing its settings now: [figure name or ""], empty when none is.
_PRECOMPUTING: List[str] = []


def precomputing() -> Optional[str]:
    """While a static widget draws its settings: the name of the captioned figure it drives
    (``""`` when it shows its own image); otherwise None. The book's figure audit reads it to
    tell a widget's drawings from a cell's figures."""
    return _PRECOMPUTING[-1] if _PRECOMPUTING else None


def _format(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return str(value)
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    return f"{float(value):g}"


class _Control:
    kind = ""

    def __init__(self, values: Sequence[Any], value: Any, description: Optional[str],
                 labels: Sequence[str]):
        if description is not None and not isinstance(description, str):
            raise TypeError(f"description must be a str, got {show(description)}")
        if value is None:
            value = values[0]
        if value not in values:
            raise ValueError(f"value must be one of the values {list(values)!r}, got {value!r}")
        self.values, self.value, self.description = list(values), value, description
        self.labels = list(labels)

    @property
    def default_index(self) -> int:
        return self.values.index(self.value)


class Slider(_Control):
    """A numeric control.

    Parameters
    ----------
    values : sequence of numbers
        The settings the static page offers, increasing (at least two, or one with
        ``live_range``: a control only the live kernel shows).
    value : number, optional
        The default, one of ``values`` (default: the first).
    description : str, optional
        The control's label (default: the drawing function's parameter name).
    step : number, optional
        The live slider's step (default: 1 for integer values, else the smallest gap of
        ``values``); the live slider runs from ``values[0]`` to ``values[-1]``.
    log : bool
        A logarithmic live slider (``FloatLogSlider``, base 10; ``step`` in decades, default
        0.05).
    live_range : (number, number), optional
        The live slider's ends (default: the first and last of ``values``).
    """

    kind = "range"

    def __init__(self, values: Sequence[Any], *, value: Any = None,
                 description: Optional[str] = None, step: Optional[float] = None,
                 log: bool = False, live_range: Optional[Sequence[float]] = None):
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError(f"values must be a sequence of numbers, got {show(values)}")
        values = list(values)
        if live_range is not None:
            if (not isinstance(live_range, (tuple, list)) or len(live_range) != 2
                    or not all(isinstance(v, numbers.Real) for v in live_range)
                    or not live_range[0] <= min(values, default=0) <= max(values, default=0)
                    <= live_range[1]):
                raise ValueError(f"live_range must be (min, max) around the values, got "
                                 f"{live_range!r}")
        if len(values) < (1 if live_range is not None else 2) or not all(
                isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values):
            raise ValueError(f"values must hold at least two numbers, got {values!r}")
        if any(b <= a for a, b in zip(values, values[1:])):
            raise ValueError(f"values must increase, got {values!r}")
        if log and values[0] <= 0:
            raise ValueError(f"values must be > 0 for a log slider, got {values!r}")
        if step is not None and (not isinstance(step, numbers.Real) or isinstance(step, bool)
                                 or not step > 0):
            raise ValueError(f"step must be a number > 0, got {step!r}")
        super().__init__(values, value, description, [_format(v) for v in values])
        self.step, self.log = step, bool(log)
        self.live_range = tuple(live_range) if live_range is not None else (values[0],
                                                                            values[-1])

    def live_widget(self, name: str):
        widgets = _import_ipywidgets()
        description = self.description or name
        lo, hi = self.live_range
        if self.log:
            return widgets.FloatLogSlider(value=self.value, base=10, min=_log10(lo),
                                          max=_log10(hi), step=self.step or 0.05,
                                          description=description)
        if all(isinstance(v, numbers.Integral) for v in [*self.values, lo, hi]):
            return widgets.IntSlider(value=self.value, min=lo, max=hi, step=self.step or 1,
                                     description=description)
        step = self.step or min((b - a for a, b in zip(self.values, self.values[1:])),
                                default=(hi - lo) / 20)
        return widgets.FloatSlider(value=self.value, min=lo, max=hi, step=step,
                                   description=description)


class Choice(_Control):
    """A choice among a few options (a drop-down list).

    Parameters
    ----------
    options : sequence
        The values, or ``(label, value)`` pairs.
    value : optional
        The default value (default: the first option's).
    description : str, optional
        The control's label (default: the drawing function's parameter name).
    live_options : sequence, optional
        The live drop-down's options, when the live kernel offers more than the static page
        (default: ``options``).
    """

    kind = "select"

    def __init__(self, options: Sequence[Any], *, value: Any = None,
                 description: Optional[str] = None, live_options: Optional[Sequence[Any]] = None):
        if isinstance(options, (str, bytes)) or not hasattr(options, "__iter__"):
            raise TypeError(f"options must be a sequence, got {show(options)}")
        pairs = [o if isinstance(o, tuple) and len(o) == 2 else (_format(o), o) for o in options]
        if not pairs:
            raise ValueError("options must hold at least one option, got an empty sequence")
        super().__init__([v for _, v in pairs], value, description, [str(k) for k, _ in pairs])
        self.live_options = list(pairs if live_options is None else live_options)

    def live_widget(self, name: str):
        widgets = _import_ipywidgets()
        return widgets.Dropdown(options=self.live_options, value=self.value,
                                description=self.description or name)


class Fixed(_Control):
    """A parameter the static page keeps at one value and only the live kernel lets the reader
    set (with a widget of any kind, e.g. ``ipywidgets.SelectMultiple``).

    Parameters
    ----------
    value
        The value on the static page.
    live : callable
        ``live()`` returns the ipywidgets control of the live kernel.
    """

    kind = "fixed"

    def __init__(self, value: Any, *, live: Callable[[], Any]):
        if not callable(live):
            raise TypeError(f"live must be callable, got {show(live)}")
        super().__init__([value], value, None, [_format(value)])
        self._live = live

    def live_widget(self, name: str):
        return self._live()


def _log10(x: float) -> float:
    return float(f"{math.log10(x):.6g}")


def _import_ipywidgets():
    try:
        import ipywidgets
    except ImportError:
        raise ImportError("live widgets need ipywidgets: pip install ipywidgets") from None
    return ipywidgets


def in_book_build() -> bool:
    """Whether this process executes a page of the book's build (:data:`BOOK_BUILD_ENV`)."""
    return bool(os.environ.get(BOOK_BUILD_ENV))


def _figure_png(fig) -> bytes:
    """The PNG a notebook page shows for ``fig``: through the kernel's display formatter when
    one is active (so the book's figure audit sees every precomputed image), else as the
    inline backend renders it."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        data, _ = shell.display_formatter.format(fig, include=("image/png",))
        png = data.get("image/png")
        if isinstance(png, str):
            return base64.b64decode(png)
        if isinstance(png, (bytes, bytearray)):
            return bytes(png)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi, bbox_inches="tight")
    return buf.getvalue()


def _drawn_figure(draw: Callable, kwargs: Dict[str, Any]):
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    before = set(plt.get_fignums())
    result = draw(**kwargs)
    if isinstance(result, Figure):
        return result
    new = [n for n in plt.get_fignums() if n not in before]
    if not new:
        raise ValueError(f"draw must return a matplotlib Figure or leave one open, got "
                         f"{show(result)} and no new figure for {kwargs!r}")
    return plt.figure(new[-1])


class StaticWidget:
    """The static form of :func:`interactive`: every setting's image and the HTML that swaps
    them (shown by Jupyter through ``_repr_html_``).

    Attributes
    ----------
    names : list of str
        The drawing function's parameters the controls set.
    controls : list of Slider or Choice
    images : list of bytes
        One PNG per setting, in row-major order of the controls' values.
    figure : str or None
        The name of the captioned figure the controls drive.
    """

    def __init__(self, names: List[str], controls: List[_Control], images: List[bytes],
                 figure: Optional[str], alt: str):
        self.names, self.controls, self.images = names, controls, images
        self.figure, self.alt = figure, alt

    def setting(self, index: int) -> Dict[str, Any]:
        """The control values of image number ``index``."""
        out = {}
        for name, control in zip(reversed(self.names), reversed(self.controls)):
            index, i = divmod(index, len(control.values))
            out[name] = control.values[i]
        return dict(reversed(list(out.items())))

    def _repr_html_(self) -> str:
        uid = f"dpl-widget-{zlib.crc32(b''.join(self.images[:1]) + repr(self.names).encode()):08x}"
        urls = ["data:image/png;base64," + base64.b64encode(png).decode("ascii")
                for png in self.images]
        default = 0
        for control in self.controls:
            default = default * len(control.values) + control.default_index
        rows = []
        for axis, (name, control) in enumerate(zip(self.names, self.controls)):
            if len(control.values) == 1:
                continue                      # set only in a live kernel
            label = html.escape(control.description or name)
            cid = f"{uid}-{axis}"
            if control.kind == "range":
                field = (f'<input type="range" id="{cid}" data-axis="{axis}" min="0" '
                         f'max="{len(control.values) - 1}" step="1" '
                         f'value="{control.default_index}" '
                         f'aria-valuetext="{html.escape(control.labels[control.default_index])}">'
                         f'<output for="{cid}">'
                         f'{html.escape(control.labels[control.default_index])}</output>')
            else:
                options = "".join(
                    f'<option value="{i}"{" selected" if i == control.default_index else ""}>'
                    f'{html.escape(text)}</option>' for i, text in enumerate(control.labels))
                field = f'<select id="{cid}" data-axis="{axis}">{options}</select>'
            rows.append(f'<div class="dpl-widget-control"><label for="{cid}">{label}</label> '
                        f'{field}</div>')
        data = {
            "target": self.figure,
            "shape": [len(c.values) for c in self.controls],
            "names": [c.description or n for n, c in zip(self.names, self.controls)],
            "labels": [c.labels for c in self.controls],
            "alt": self.alt,
            "images": urls,
        }
        # Without a figure to drive, the form shows the default setting's image (also without
        # JavaScript); with one, the script adds its own image only if that figure is missing.
        own = ("" if self.figure else f'<img class="dpl-widget-image" src="{urls[default]}" '
               f'alt="{html.escape(self.alt)}">')
        return (f'<div class="dpl-widget" id="{uid}">' + "".join(rows) + own
                + '<script type="application/json" class="dpl-widget-data">'
                + json.dumps(data).replace("</", "<\\/") + "</script>"
                + f"<script>{_SCRIPT}</script></div>")


#: Swaps the image when a control moves: image index = row-major index of the controls' values.
_SCRIPT = """(function () {
  var root = document.currentScript.parentElement;
  var data = JSON.parse(root.querySelector("script.dpl-widget-data").textContent);
  var target = data.target && document.getElementById(data.target);
  var img = (target && target.querySelector("img")) || root.querySelector("img.dpl-widget-image");
  if (!img) {
    img = document.createElement("img");
    img.className = "dpl-widget-image";
    img.setAttribute("alt", data.alt);
    root.insertBefore(img, root.querySelector("script"));
  }
  var base = img.getAttribute("alt") || "";
  var inputs = Array.prototype.slice.call(root.querySelectorAll("[data-axis]"));
  function update(first) {
    var k = 0, parts = [];
    inputs.forEach(function (el) {
      var a = Number(el.getAttribute("data-axis")), i = Number(el.value);
      k = k * data.shape[a] + i;
      parts.push(data.names[a] + " = " + data.labels[a][i]);
      if (el.type === "range") {
        el.nextElementSibling.textContent = data.labels[a][i];
        el.setAttribute("aria-valuetext", data.labels[a][i]);
      }
    });
    // at first the page's own image shows the default setting: replacing it would abort
    // its request
    if (!(first && img.getAttribute("src"))) img.src = data.images[k];
    img.setAttribute("alt", base + " (setting: " + parts.join(", ") + ")");
    root.setAttribute("data-shown", String(k));
  }
  inputs.forEach(function (el) { el.addEventListener("input", function () { update(false); }); });
  update(true);
})();"""


def interactive(draw: Callable, *, figure: Optional[str] = None, alt: Optional[str] = None,
                static: Optional[bool] = None, **controls):
    """A figure with controls: live ipywidgets in a kernel, precomputed images on the site.

    Parameters
    ----------
    draw : callable
        ``draw(**setting)`` draws the figure for one setting of the controls and returns it
        (or leaves it as matplotlib's newest figure); it must not call ``plt.show()``.
    figure : str, optional
        The name of the captioned figure (``fig-...``) on the same page that the static
        controls drive; without it the static form shows its own image.
    alt : str, optional
        The text alternative of the static form's own image (default: names the function).
    static : bool, optional
        Force the static (True) or the live (False) form; default: static exactly during the
        book's build (``in_book_build()``, which reads :data:`BOOK_BUILD_ENV`).
    **controls : Slider or Choice
        One control per parameter of ``draw`` that the reader sets.

    Returns
    -------
    ipywidgets.interactive or StaticWidget
    """
    if not callable(draw):
        raise TypeError(f"draw must be callable, got {show(draw)}")
    if figure is not None and (not isinstance(figure, str) or not _FIGURE_NAME.fullmatch(figure)):
        raise ValueError(f"figure must be a figure name such as 'fig-primer-mechanisms', got "
                         f"{figure!r}")
    if not controls:
        raise ValueError("interactive needs at least one control, got none")
    for name, control in controls.items():
        if not isinstance(control, _Control):
            raise TypeError(f"control {name!r} must be a Slider or a Choice, got {show(control)}")
    if static is not None and not isinstance(static, bool):
        raise TypeError(f"static must be True, False or None, got {static!r}")
    names, boxes = list(controls), list(controls.values())
    n_images = 1
    for box in boxes:
        n_images *= len(box.values)
    if n_images > MAX_IMAGES:
        raise ValueError(f"the controls make {n_images} settings, more than MAX_IMAGES = "
                         f"{MAX_IMAGES}: offer fewer values")
    if not (in_book_build() if static is None else static):
        return _live(draw, names, boxes)
    import matplotlib.pyplot as plt

    images = []
    _PRECOMPUTING.append(figure or "")
    try:
        for values in itertools.product(*(box.values for box in boxes)):
            fig = _drawn_figure(draw, dict(zip(names, values)))
            try:
                images.append(_figure_png(fig))
            finally:
                plt.close(fig)
    finally:
        _PRECOMPUTING.pop()
    name = getattr(draw, "__name__", "the drawing")
    return StaticWidget(names, boxes, images, figure,
                        alt if alt is not None else f"figure drawn by {name}")


def _live(draw: Callable, names: List[str], boxes: List[_Control]):
    widgets = _import_ipywidgets()
    import matplotlib.pyplot as plt

    def show_figure(**setting):
        _drawn_figure(draw, setting)
        plt.show()

    return widgets.interactive(show_figure, **{name: box.live_widget(name)
                                               for name, box in zip(names, boxes)})
