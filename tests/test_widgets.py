"""Widgets: live ipywidgets in a kernel, precomputed images swapped in the browser on the site.

The browser test of the static form (every control moved, the image changes) runs on a built
chapter in tests/test_browser.py style; here the two forms are checked without a browser.
"""
from __future__ import annotations

import base64
import json
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from bookkit import figures as figure_audit  # noqa: E402
from dpolearn import plotting, widgets  # noqa: E402


def draw_line(slope=1.0, colour="blue", width=1):
    fig, axes = plotting.subplots()
    axes[0, 0].plot([0, 1], [0, slope], color=colour, lw=width)
    return fig


def _data(html):
    payload = re.search(r'<script type="application/json" class="dpl-widget-data">(.*?)</script>',
                        html, re.S).group(1)
    return json.loads(payload.replace("<\\/", "</"))


def test_static_form_draws_every_setting_once_and_swaps_images_by_row_major_index():
    calls = []

    def draw(slope=1.0, colour="blue"):
        calls.append((slope, colour))
        return draw_line(slope, colour)

    w = widgets.interactive(draw, static=True, figure="fig-test-line",
                            slope=widgets.Slider([0.5, 1.0, 2.0], value=1.0),
                            colour=widgets.Choice(["blue", "orange"], description="colour"))
    assert calls == [(s, c) for s in (0.5, 1.0, 2.0) for c in ("blue", "orange")]
    assert len(w.images) == 6 and len(set(w.images)) == 6         # every setting differs
    assert w.setting(3) == {"slope": 1.0, "colour": "orange"}
    html = w._repr_html_()
    data = _data(html)
    assert data["target"] == "fig-test-line" and data["shape"] == [3, 2]
    assert [base64.b64decode(u.split(",", 1)[1]) for u in data["images"]] == w.images
    assert 'type="range"' in html and "<select" in html and 'value="1"' in html
    assert html.count("<label") == 2                                # every control is named
    assert plt.get_fignums() == []                                  # no figure left open


def test_live_form_is_an_ipywidgets_interactive_with_the_controls_ranges():
    ipywidgets = pytest.importorskip("ipywidgets")
    w = widgets.interactive(draw_line, static=False,
                            slope=widgets.Slider([0.1, 1.0, 10.0], value=1.0, log=True),
                            colour=widgets.Fixed("blue", live=lambda: ipywidgets.Text("blue")))
    assert isinstance(w, ipywidgets.interactive)
    slider, text = w.children[:2]
    assert isinstance(slider, ipywidgets.FloatLogSlider)
    assert (slider.min, slider.max, slider.value) == (-1.0, 1.0, 1.0)
    assert isinstance(text, ipywidgets.Text)


def test_the_form_is_static_exactly_in_a_book_build(monkeypatch):
    assert widgets.BOOK_BUILD_ENV == figure_audit.FIGURE_PAGE_ENV
    monkeypatch.setenv(widgets.BOOK_BUILD_ENV, "a-page")
    w = widgets.interactive(draw_line, slope=widgets.Slider([1.0, 2.0]))
    assert isinstance(w, widgets.StaticWidget)
    monkeypatch.delenv(widgets.BOOK_BUILD_ENV)
    assert widgets.in_book_build() is False


def test_a_one_value_control_is_only_shown_live():
    w = widgets.interactive(draw_line, static=True, slope=widgets.Slider([1.0, 2.0]),
                            width=widgets.Slider([3], live_range=(1, 5)))
    html = w._repr_html_()
    assert html.count("<label") == 1 and _data(html)["shape"] == [2, 1]


@pytest.mark.parametrize("call, error, match", [
    (lambda: widgets.interactive(3, x=widgets.Slider([1, 2])), TypeError, "draw.*3"),
    (lambda: widgets.interactive(draw_line), ValueError, "at least one control"),
    (lambda: widgets.interactive(draw_line, slope=[1, 2]), TypeError, "slope.*Slider"),
    (lambda: widgets.interactive(draw_line, figure="no spaces", slope=widgets.Slider([1, 2])),
     ValueError, "figure.*no spaces"),
    (lambda: widgets.interactive(draw_line, slope=widgets.Slider(list(range(31)))),
     ValueError, "31 settings"),
    (lambda: widgets.Slider([2, 1]), ValueError, "increase"),
    (lambda: widgets.Slider([1]), ValueError, "at least two"),
    (lambda: widgets.Slider([1, 2], value=3), ValueError, "value.*3"),
    (lambda: widgets.Slider([0, 1], log=True), ValueError, "log"),
    (lambda: widgets.Slider([1, 2], live_range=(2, 3)), ValueError, "live_range"),
    (lambda: widgets.Slider("12"), TypeError, "values"),
    (lambda: widgets.Choice([]), ValueError, "options"),
    (lambda: widgets.Fixed(1, live=3), TypeError, "live"),
    (lambda: widgets.interactive(lambda slope: None, static=True, slope=widgets.Slider([1, 2])),
     ValueError, "Figure"),
])
def test_bad_input_is_rejected_naming_the_parameter(call, error, match):
    with pytest.raises(error, match=match):
        call()
