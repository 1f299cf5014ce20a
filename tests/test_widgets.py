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
from bookkit import page_audit  # noqa: E402
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
    open_before = set(plt.get_fignums())

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
    assert set(plt.get_fignums()) <= open_before                    # no figure left open


def test_without_a_figure_to_drive_the_form_shows_the_default_setting_even_without_script():
    w = widgets.interactive(draw_line, static=True,
                            slope=widgets.Slider([0.5, 1.0, 2.0], value=2.0),
                            colour=widgets.Choice(["blue", "orange"], value="orange"))
    src = re.search(r'<img class="dpl-widget-image" src="data:image/png;base64,([^"]+)"',
                    w._repr_html_()).group(1)
    assert base64.b64decode(src) == w.images[2 * 2 + 1]       # slope 2.0, colour orange
    driving = widgets.interactive(draw_line, static=True, figure="fig-test-line",
                                  slope=widgets.Slider([0.5, 1.0]))
    assert "<img" not in driving._repr_html_()     # the captioned figure shows the default


def test_the_figure_audit_counts_a_static_widgets_drawings_as_the_figure_they_replace(
        monkeypatch, tmp_path):
    """Drawings made while a static widget precomputes its settings are recorded as widget
    drawings shown in place of the captioned figure they drive, not as figures of the cell."""
    monkeypatch.setenv(figure_audit.AUDIT_DIR_ENV, str(tmp_path))
    monkeypatch.setenv(figure_audit.FIGURE_PAGE_ENV, "book/page")
    seen = []

    def draw(slope=1.0):
        seen.append(widgets.precomputing())
        fig = draw_line(slope)
        figure_audit._write_record(fig, widgets._figure_png(fig))   # as the formatter would
        return fig

    widgets.interactive(draw, static=True, figure="fig-test-line",
                        slope=widgets.Slider([0.5, 1.0]))
    widgets.interactive(draw, static=True, slope=widgets.Slider([0.5, 1.0]))
    assert seen == ["fig-test-line"] * 2 + [""] * 2 and widgets.precomputing() is None
    fig = draw_line()
    figure_audit._write_record(fig, widgets._figure_png(fig))       # an ordinary figure
    plt.close(fig)
    records = figure_audit.read_records(tmp_path / "book")["page"]
    assert [(r["widget"], r.get("drives")) for r in records] == \
        [(True, "fig-test-line")] * 2 + [(True, None)] * 2 + [(False, None)]
    checked, escaped = figure_audit.audit_page(records, {})
    column = figure_audit.COLUMN_WIDTH_PX
    assert [c["shown_in_px"] for c in checked[:3]] == [
        min(column, figure_audit.available_width_px(captioned=True))] * 2 + [
        min(column, figure_audit.available_width_px(widget=True))]
    assert escaped == []


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
    assert widgets.BOOK_BUILD_ENV == figure_audit.STATIC_WIDGETS_ENV     # what the build sets
    monkeypatch.setenv(widgets.BOOK_BUILD_ENV, "1")
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


# ------------------------------------------------------------------ in the browser
#: Most bytes of images one widget may add to its page (base64 data URIs).
MAX_WIDGET_BYTES = 2_000_000

#: Every static widget of a page: its controls, the image it drives and that image's source.
_WIDGETS_JS = """() => Array.from(document.querySelectorAll('div.dpl-widget')).map(w => {
  const data = JSON.parse(w.querySelector('script.dpl-widget-data').textContent);
  const target = data.target && document.getElementById(data.target);
  return {id: w.id, target: data.target, found: !!(target && target.querySelector('img')),
          controls: w.querySelectorAll('[data-axis]').length, settings: data.images.length,
          bytes: w.querySelector('script.dpl-widget-data').textContent.length};
})"""

_IMAGE_JS = """(id) => {
  const w = document.getElementById(id);
  const data = JSON.parse(w.querySelector('script.dpl-widget-data').textContent);
  const t = data.target && document.getElementById(data.target);
  const img = (t && t.querySelector('img')) || w.querySelector('img.dpl-widget-image');
  return {src: img.currentSrc || img.src, loaded: img.complete && img.naturalWidth > 0,
          alt: img.getAttribute('alt') || ''};
}"""


def check_static_widgets(page) -> tuple[list, int]:
    """Move every control of every static widget on ``page`` (keyboard for a slider, a choice
    for a drop-down) and check that the image it drives changes and loads; returns the
    problems and the number of widgets."""
    problems = []
    widgets_found = page.evaluate(_WIDGETS_JS)
    for w in widgets_found:
        if w["bytes"] > MAX_WIDGET_BYTES:
            problems.append(f"{w['id']}: {w['bytes']:,} bytes of images, more than "
                            f"{MAX_WIDGET_BYTES:,}")
        if w["target"] and not w["found"]:
            problems.append(f"{w['id']}: no figure {w['target']!r} with an image on the page")
            continue
        for axis in range(w["controls"]):
            control = page.locator(f"#{w['id']} [data-axis]").nth(axis)
            before = page.evaluate(_IMAGE_JS, w["id"])
            if control.evaluate("el => el.tagName") == "SELECT":
                n = control.evaluate("el => el.options.length")
                current = int(control.input_value())
                control.select_option(index=(current + 1) % n)
            else:
                at_end = control.evaluate("el => el.value === el.max")
                control.focus()
                page.keyboard.press("Home" if at_end else "End")
            page.wait_for_function(f"() => ({_IMAGE_JS})({w['id']!r}).loaded", timeout=10_000)
            after = page.evaluate(_IMAGE_JS, w["id"])
            if after["src"] == before["src"]:
                problems.append(f"{w['id']}: moving control {axis} did not change the image")
            if "setting:" not in after["alt"]:
                problems.append(f"{w['id']}: the image's text alternative does not name the "
                                f"setting: {after['alt'][:80]!r}")
    return problems, len(widgets_found)


def _duplicate_images(page) -> list:
    srcs = page.evaluate("""() => Array.from(document.querySelectorAll('img'))
        .filter(i => !i.closest('div.dpl-widget')).map(i => i.getAttribute('src'))""")
    return sorted({s for s in srcs if srcs.count(s) > 1})


def _page_with(widget_html: str) -> str:
    figure = ('<figure id="fig-test-line"><img alt="a line" src="data:image/png;base64,'
              + base64.b64encode(draw_png()).decode() + '"></figure>')
    return f"<!doctype html><html><body>{figure}{widget_html}</body></html>"


def draw_png() -> bytes:
    fig = draw_line(1.0)
    try:
        return widgets._figure_png(fig)
    finally:
        plt.close(fig)


def test_the_browser_check_moves_every_control_and_sees_the_image_change(browser, tmp_path):
    good = widgets.interactive(draw_line, static=True, figure="fig-test-line",
                               slope=widgets.Slider([0.5, 1.0, 2.0], value=1.0),
                               colour=widgets.Choice(["blue", "orange"]))
    (tmp_path / "good.html").write_text(_page_with(good._repr_html_()), encoding="utf-8")
    frozen = widgets.interactive(draw_line, static=True, figure="fig-test-line",
                                 slope=widgets.Slider([0.5, 1.0, 2.0], value=1.0))
    frozen.images = [frozen.images[1]] * 3                     # every setting the same image
    (tmp_path / "frozen.html").write_text(_page_with(frozen._repr_html_()), encoding="utf-8")
    with page_audit.serve(tmp_path) as root:
        page = browser.new_page()
        try:
            page.goto(root + "good.html")
            before = page.evaluate(_IMAGE_JS, page.locator("div.dpl-widget").get_attribute("id"))
            assert before["src"] == page.locator("figure img").get_attribute("src")  # left loading
            assert "setting:" in before["alt"]
            assert check_static_widgets(page) == ([], 1)
            (tmp_path / "alone.html").write_text(
                f"<!doctype html><html><body>{good._repr_html_()}</body></html>", encoding="utf-8")
            page.goto(root + "alone.html")        # the figure it drives is not on the page
            problems, n = check_static_widgets(page)
            assert n == 1 and len(problems) == 1 and "no figure 'fig-test-line'" in problems[0]
            shown = page.evaluate(_IMAGE_JS, page.locator("div.dpl-widget").get_attribute("id"))
            assert shown["loaded"] and "setting:" in shown["alt"]      # its own image instead
            page.goto(root + "frozen.html")
            problems, n = check_static_widgets(page)
            assert n == 1 and any("did not change the image" in p for p in problems)
        finally:
            page.close()


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_every_widget_changes_its_image_on_the_static_page_and_no_figure_is_shown_twice(
        quick_book, browser):
    found, problems = {}, []
    with page_audit.serve(quick_book.html) as root:
        page = browser.new_page()
        try:
            for path in sorted(quick_book.html.glob("book/*.html")):
                if "dpl-widget" not in path.read_text(encoding="utf-8"):
                    continue
                page.goto(root + f"book/{path.name}")
                page_problems, n = check_static_widgets(page)
                found[path.stem] = n
                problems += [f"{path.stem}: {p}" for p in page_problems]
                problems += [f"{path.stem}: image {src} shown twice"
                             for src in _duplicate_images(page)]
                if page.locator('script[type="application/vnd.jupyter.widget-view+json"]').count():
                    problems.append(f"{path.stem}: an ipywidgets view, which cannot run on the "
                                    "site")
        finally:
            page.close()
    assert problems == []
    # the widgets of the book: six in the first half, and lower_bounds, auditing, comparison
    assert set(found) >= {"dp_primer", "private_ts", "continual_release", "gdp", "gdp_ts_ucb",
                          "lazy_forgetting", "lower_bounds", "auditing", "comparison"}, found
