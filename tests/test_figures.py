"""Every figure the book shows is legible on the page it is shown on.

The page shows a figure's PNG (rendered as Jupyter's inline backend does: ``bbox_inches="tight"``
at the figure's dpi) at ``min(PNG width, column width)`` CSS pixels, the column width being
``figure_audit.COLUMN_WIDTH_PX`` (672 px at a 1280 px window; the Chromium test below measures
every image of the quick build). A font of ``f`` points is then shown at
``f * figure_audit.display_scale(fig, png_width)`` points; every visible text must come out at
>= ``figure_audit.MIN_FONT_PT`` (9 pt), and a multi-panel figure has one legend. The checks
(``bookkit.figures``, the book's machinery) read the figure's own objects: each Text artist's
size in points, the figure's size in inches and dpi, and the PNG's pixel width.

They run here on every experiment figure, and in the book build on every figure a page
displays, whichever code drew it: the build's kernels load ``bookkit.figures`` as an
IPython extension, and the book's extension fails the build on a failing figure (tested on a
planted page) and writes ``_static/figure-audit.json``, which the quick-build tests read.

Data come from the experiment cache (``_build/cache``; the quick book build fills it) and are
computed at quick scale when missing; experiments that take more than about 5 s to compute at
quick scale are marked ``slow``.
"""
from __future__ import annotations

import csv
import pathlib
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

import dpolearn as dpl  # noqa: E402
from bookkit import figures as figure_audit  # noqa: E402
from bookkit import myst  # noqa: E402
from bookkit.book import ROOT, toc_files  # noqa: E402
from bookkit.sphinx import figures as figures_ext  # noqa: E402
from dpolearn import plotting  # noqa: E402

#: Experiments measured at more than about 5 s at quick scale (2-core machine, empty cache).
HEAVY = {"hu2022-fig1", "hu2022-fig2", "hu2022-fig3", "hu2022-fig4", "hu2022-fig5",
         "hu2022-table", "compare-bandits", "compare-gap", "compare-ranking",
         "tossou2016-fig2", "tossou2016-int-schedules", "tossou2016-counter-error",
         "wu2025-regret-vs-eps", "primer-rnm", "hu2021-fig1", "hu2021-fig2", "hu2021-eps-sweep",
         "hu2021-lazy-schedule", "lowerbounds-regret-eps", "audit-table"}


def _figure_ids():
    out = []
    for id_ in dpl.experiments.ids():
        if dpl.experiments.get(id_).plot is None:
            continue
        marks = [pytest.mark.slow] if id_ in HEAVY else []
        out.append(pytest.param(id_, marks=marks, id=id_))
    return out


# ------------------------------------------------------------------ the checks
# (in the book's machinery, so that a book build's kernels run the same ones: bookkit.figures)
page_png = figure_audit.page_png
legibility_problems = figure_audit.legibility_problems


# ------------------------------------------------------------------ the checker can fail
def test_checker_rejects_small_text_wide_figures_and_many_legends():
    fig, axes = plotting.subplots(1, 2)
    for ax in axes[0]:
        ax.plot([0, 1], [0, 1], label="a curve")
    plotting.shared_legend(fig, axes)
    assert legibility_problems(fig) == []

    axes[0, 0].set_xlabel("tiny", fontsize=7)
    assert any("'tiny'" in p for p in legibility_problems(fig))
    axes[0, 0].xaxis.label.set_fontsize(plotting.STYLE["axes.labelsize"])

    axes[0, 1].legend()                                   # a second legend
    assert any("legends" in p for p in legibility_problems(fig))
    axes[0, 1].get_legend().remove()
    assert legibility_problems(fig) == []

    fig.set_size_inches(14.0, 4.0)                        # the old two-panel size
    problems = legibility_problems(fig)
    assert any("scale it down" in p for p in problems)
    assert any("shown at" in p for p in problems)
    plt.close(fig)


def test_display_scale_formula():
    fig = plt.figure(figsize=(7.0, 3.0), dpi=100)
    # 700 px rendered, 672 shown: a point is 100/96 * 672/700 = 1.0 of its nominal size
    assert figure_audit.display_scale(fig, 700, 672) == pytest.approx(100 / 96 * 672 / 700)
    # narrower than the column: shown at its own size, 1 px per CSS px at 96 dpi
    fig.set_dpi(96)
    assert figure_audit.display_scale(fig, 600, 672) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="rendered_width_px.*0"):
        figure_audit.display_scale(fig, 0)
    with pytest.raises(TypeError, match="column_px"):
        figure_audit.display_scale(fig, 600, "wide")
    plt.close(fig)


def test_subplots_refuses_more_than_two_columns_and_figsize():
    with pytest.raises(ValueError, match="ncols"):
        plotting.subplots(1, 3)
    with pytest.raises(TypeError, match="figsize"):
        plotting.subplots(1, 1, figsize=(10, 4))
    with pytest.raises(ValueError, match="nrows"):
        plotting.subplots(0, 1)


def test_style_of_keeps_labels_apart_in_greyscale():
    """The algorithm labels differ in (line style, marker), not only in colour."""
    pairs = {}
    for label in plotting.ALGORITHM_LABELS + plotting.VARIANT_LABELS:
        s = plotting.style_of(label)
        key = (str(s["linestyle"]), s["marker"])
        assert key not in pairs, f"{label} and {pairs.get(key)} look the same in greyscale"
        pairs[key] = label
    assert plotting.style_of("DP-UCB") == plotting.style_of("DP-UCB")
    assert plotting.color_of("DP-UCB") == plotting.style_of("DP-UCB")["color"]
    with pytest.raises(TypeError, match="label"):
        plotting.style_of(3)


def test_audit_rejects_two_series_of_one_panel_with_the_same_look():
    fig, axes = plotting.subplots(1, 2)
    left, right = axes[0]
    left.plot([0, 1], [0, 1], color="#0072B2", ls="--", marker="o", label="DP-SE")
    left.plot([0, 1], [1, 2], color="#0072B2", ls="--", marker="o", label="DP-SE (sum)")
    right.plot([0, 1], [0, 1], color="#0072B2", ls="--", marker="o", label="DP-SE")
    plotting.shared_legend(fig, axes)
    problems = legibility_problems(fig)
    assert len(problems) == 1
    assert "panel 1" in problems[0] and "'DP-SE'" in problems[0] and "'DP-SE (sum)'" in problems[0]

    # any one of colour, marker and line style tells the two apart
    for change in ({"color": "#E69F00"}, {"marker": "s"}, {"linestyle": ":"}):
        left.get_lines()[1].set(**dict({"color": "#0072B2", "marker": "o", "linestyle": "--"},
                                       **change))
        assert figure_audit.series_clashes(fig) == [], change
    plt.close(fig)


def test_series_rule_counts_unlabelled_lines_and_error_bars_but_not_marked_reference_lines():
    fig, axes = plotting.subplots()
    ax = axes[0, 0]
    plotting.errorbar(ax, [1, 2], [0.1, 0.2], 0.01, "DP-UCB")
    plotting.errorbar(ax, [1, 2], [0.3, 0.4], 0.01, "DP-UCB")         # the same look twice
    assert [name for name, _ in figure_audit.series_styles(ax)] == ["DP-UCB", "DP-UCB"]
    assert len(figure_audit.series_clashes(fig)) == 1
    plt.close(fig)

    fig, axes = plotting.subplots()
    ax = axes[0, 0]
    ax.plot([0, 1], [0, 1], color="grey", ls=":", label="a bound")
    level = ax.axhline(0.5, color="grey", ls=":")                      # unlabelled, not marked
    assert len(figure_audit.series_clashes(fig)) == 1
    plotting.mark_reference(level)
    assert figure_audit.series_clashes(fig) == []
    ax.plot([], [], color="grey", ls=":", label="a bound")          # a legend proxy: draws nothing
    assert figure_audit.series_clashes(fig) == []
    with pytest.raises(TypeError, match="Line2D"):
        plotting.mark_reference("not a line")
    plt.close(fig)


@pytest.mark.parametrize("group", ["algorithms", "mechanisms", "counters"])
def test_style_of_uses_the_colour_blind_safe_palette_and_keeps_every_label_apart(group):
    """Labels that can share a panel differ in look (mechanisms and counters are never drawn
    next to algorithms, so each of their lists is styled from its start)."""
    labels = {"algorithms": list(plotting.ALGORITHM_LABELS) + list(plotting.VARIANT_LABELS),
              "mechanisms": plotting.MECHANISM_LABELS, "counters": plotting.COUNTER_LABELS}[group]
    looks = {}
    for label in labels:
        s = plotting.style_of(label)
        assert s["color"] in plotting.PALETTE
        key = (s["color"], str(s["linestyle"]), s["marker"])
        assert key not in looks, f"{label} and {looks.get(key)} look the same"
        looks[key] = label
    plotting.use_style()
    assert [c.upper() for c in matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]] == [
        c.upper() for c in plotting.PALETTE]


#: Colour words a caption must not use: the figures tell series apart by their legend labels
#: (and a colour named in prose cannot be checked against the palette, nor seen by every reader).
COLOUR_WORDS = re.compile(
    r"\b(red|blue|green|orange|purple|pink|brown|gr[ae]y|black|white|yellow|cyan|magenta|"
    r"violet|olive|teal|vermill?ion|reddish|bluish|greenish)\b", re.IGNORECASE)


def _captions():
    """``(chapter, line, caption)`` of every figure of the book: code cells' ``mystnb``
    figure captions and ``{figure}`` directives, read by the book's MyST reader."""
    out = []
    for doc in toc_files():
        path = ROOT / f"{doc}.md"
        if not path.is_file():
            continue
        for block in myst.walk(myst.read(path.read_text(encoding="utf-8")).blocks):
            caption = None
            if isinstance(block, myst.CodeCell):
                caption = ((block.metadata.get("mystnb") or {}).get("figure") or {}).get("caption")
            elif isinstance(block, myst.Directive) and block.name == "figure":
                caption = "\n".join(block.body)
            if caption:
                out.append((doc, block.line, str(caption)))
    return out


def test_captions_name_series_by_their_labels_never_by_colour():
    captions = _captions()
    assert len(captions) > 40                                 # the reader found the figures
    named = [f"{doc}.md:{line}: {match.group(0)!r}"
             for doc, line, caption in captions for match in COLOUR_WORDS.finditer(caption)]
    assert named == [], "captions naming colours: " + "; ".join(named)


def test_the_colour_word_check_catches_a_colour_in_a_caption():
    assert COLOUR_WORDS.search("the red line is the bound")
    assert COLOUR_WORDS.search("Grey band: 95% interval")
    assert not COLOUR_WORDS.search("the dashed line, labelled \"bound\" in the legend")


def test_leaderboard_figure_keeps_every_series_apart():
    """KL-UCB and DP-TS-UCB share a colour and run without epsilon: their levels differ by
    marker."""
    assert plotting.color_of("KL-UCB") == plotting.color_of("DP-TS-UCB")
    board = dpl.evaluate(dpl.bandits.AnytimeLazyUCB, algorithms=["KL-UCB", "DP-TS-UCB", "UCB1"],
                         instances=["2 arms, gap 0.1", "2 arms, gap 0.2"], epsilons=[0.5, 1.0],
                         horizon=300, n_runs=2, audit=False)
    fig = board.figure()
    try:
        assert figure_audit.series_clashes(fig) == []
        assert len(figure_audit.series_styles(fig.axes[0])) == 4
    finally:
        plt.close(fig)


# ------------------------------------------------------------------ every experiment figure
@pytest.mark.parametrize("experiment", _figure_ids())
def test_experiment_figure_is_legible_on_the_page(experiment):
    data = dpl.experiments.run(experiment, "quick", progress=False)
    fig = dpl.experiments.figure(experiment, data)
    try:
        assert legibility_problems(fig) == []
        # every figure is drawn at the column width (no per-figure sizes)
        assert fig.get_size_inches()[0] == pytest.approx(plotting.FIGURE_WIDTH_IN)
    finally:
        plt.close(fig)


def test_a_boxed_figure_fits_the_indented_body_of_an_admonition():
    """A figure drawn for an exercise's solution (``subplots(boxed=True)``) is no wider than
    the place the page gives it, so the page shows it at its own size."""
    from bookkit.figures import page_png, png_size

    for boxed, place in ((False, figure_audit.COLUMN_WIDTH_PX),
                         (True, figure_audit.available_width_px(admonition=True))):
        fig, axes = plotting.subplots(boxed=boxed)
        axes[0, 0].plot([0, 1], [0, 1], label="a curve")
        axes[0, 0].set_xlabel("round t")
        axes[0, 0].set_ylabel("regret")
        axes[0, 0].legend()
        try:
            width = png_size(page_png(fig))[0]
        finally:
            plt.close(fig)
        assert place - 40 < width <= place, (boxed, width, place)
    with pytest.raises(TypeError, match="boxed"):
        plotting.subplots(boxed="yes")


# ------------------------------------------------------------------ figure files
def test_export_writes_svg_png_at_200_dpi_and_the_plotted_data(tmp_path):
    from dpolearn.simulate import Result

    regret = np.cumsum(np.ones((4, 3)), axis=1) * np.arange(1, 5)[:, None]
    res = Result(regret=regret, checkpoints=np.array([1, 2, 3]), pulls=np.ones((4, 2)),
                 label="UCB1", horizon=3, n_runs=4, seed=0)
    fig, axes = plotting.subplots(1, 2)
    plotting.regret(res, ax=axes[0, 0], legend=False)
    plotting.errorbar(axes[0, 1], [0.5, 1.0], [2.0, 1.0], [0.1, 0.2], "DP-UCB")
    plotting.shared_legend(fig, axes)
    out = plotting.export(fig, "demo-figure", tmp_path)
    plt.close(fig)
    assert out == tmp_path
    png = Image.open(tmp_path / "demo-figure.png")
    assert png.size[0] == pytest.approx(plotting.FIGURE_WIDTH_IN * plotting.EXPORT_DPI, abs=60)
    assert (tmp_path / "demo-figure.svg").read_text().lstrip().startswith("<?xml")
    with open(tmp_path / "demo-figure.csv") as fh:
        rows = list(csv.DictReader(fh))
    curve = [r for r in rows if r["panel"] == "a" and r["series"] == "UCB1"]
    assert [float(r["y"]) for r in curve] == pytest.approx(res.mean().tolist())
    assert [float(r["se"]) for r in curve] == pytest.approx(res.se().tolist())
    bars = [r for r in rows if r["panel"] == "b" and r["series"] == "DP-UCB"]
    assert [v for r in bars for v in (float(r["x"]), float(r["y"]), float(r["se"]))] == \
        pytest.approx([0.5, 2.0, 0.1, 1.0, 1.0, 0.2])


def test_export_needs_a_directory_and_a_plain_name(monkeypatch, tmp_path):
    """The library writes where it is told, never where an environment variable points."""
    monkeypatch.setenv(figure_audit.FIGURE_DIR_ENV, str(tmp_path / "build"))
    fig, _ = plotting.subplots()
    with pytest.raises(TypeError, match="outdir"):
        plotting.export(fig, "nothing")
    with pytest.raises(TypeError, match="outdir.*None"):
        plotting.export(fig, "nothing", None)
    assert plotting.export(fig, "something", str(tmp_path / "out")) == tmp_path / "out"
    assert (tmp_path / "out" / "something.svg").exists()
    assert not (tmp_path / "build").exists()
    with pytest.raises(ValueError, match="name"):
        plotting.export(fig, "../escape", tmp_path)
    plt.close(fig)


def test_figures_page_lists_figures_that_chapters_exported(tmp_path):
    """The build extension adds every exported file that is not an experiment's to the page."""
    from types import SimpleNamespace

    ext = figures_ext
    target = tmp_path / "_static" / ext.FIGURE_SUBDIR
    for name in ("hu2021-fig1", "gdp-tradeoff-widget"):
        (target / "x").parent.mkdir(parents=True, exist_ok=True)
        (target / f"{name}.svg").write_text("<svg/>")
    page = tmp_path / f"{ext.FIGURES_PAGE}.html"
    page.parent.mkdir(parents=True)
    page.write_text(f"<table>{ext.CHAPTER_ROWS_MARK}</table>")
    ext._list_chapter_figures(SimpleNamespace(outdir=str(tmp_path)), target, {"hu2021-fig1"})
    html = page.read_text()
    assert "gdp-tradeoff-widget.png" in html and "gdp-tradeoff-widget.csv" in html
    assert "hu2021-fig1" not in html and ext.CHAPTER_ROWS_MARK not in html


# ------------------------------------------------------------------ the pages themselves
@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_every_figure_on_the_pages_is_shown_at_its_own_size(quick_book):
    """Every image in a cell's output of the quick build (chapter-drawn figures and widgets'
    static renderings included) is at most the column wide, so the page never scales it down;
    with the book style's 9 pt minimum a point in the figure is a point on the screen. (Chapter
    cells that set their own smaller font sizes are not caught here: their text is in the PNG.)"""
    import re

    too_wide = []
    for page in sorted((quick_book.html / "book").glob("*.html")):
        html = page.read_text(encoding="utf-8")
        for src in re.findall(r'<img[^>]*src="([^"]+\.png)"', html):
            path = (page.parent / src).resolve()
            if "_images" not in path.parts or not path.exists():
                continue
            width = Image.open(path).size[0]
            if width > figure_audit.COLUMN_WIDTH_PX:
                too_wide.append(f"{page.name}: {src} is {width} px")
    assert too_wide == [], "\n".join(too_wide)


def test_widget_drawings_are_exported_once_during_a_book_build(monkeypatch, tmp_path):
    """With the build's two variables set, a chapter's draw_<what> function that draws with
    plotting.subplots is exported after its cell, at its first (default) call only; top-level
    figures are not (the experiment figures are exported under their ids)."""
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.setenv(figure_audit.FIGURE_DIR_ENV, str(tmp_path))
    monkeypatch.setenv(figure_audit.FIGURE_PAGE_ENV, "testpage")
    shell = InteractiveShell.instance()
    original = plotting.subplots
    monkeypatch.setattr(plotting, "subplots", original)      # undone after the test
    assert figure_audit.export_chapter_figures(shell) is True
    assert plotting.subplots is not original and plotting.subplots.wrapped is original
    assert figure_audit.export_chapter_figures(shell) is True   # idempotent: wrapped once
    assert plotting.subplots.wrapped is original
    cell = ("import dpolearn as dpl\n"
            "def draw_thing(level=1.0):\n"
            "    fig, axes = dpl.plotting.subplots()\n"
            "    axes[0, 0].plot([0, 1], [0, level], label='a line')\n"
            "    return fig\n"
            "draw_thing()\n"
            "top, _ = dpl.plotting.subplots()\n")
    assert shell.run_cell(cell).success
    assert shell.run_cell("draw_thing(5.0)").success
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "testpage-thing.csv", "testpage-thing.png", "testpage-thing.svg"]
    with open(tmp_path / "testpage-thing.csv") as fh:
        assert [float(r["y"]) for r in csv.DictReader(fh)] == [0.0, 1.0]    # the default call
    plt.close("all")


def test_widget_drawings_are_not_exported_outside_a_book_build(monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.delenv(figure_audit.FIGURE_DIR_ENV, raising=False)
    monkeypatch.setenv(figure_audit.FIGURE_PAGE_ENV, "testpage")
    original = plotting.subplots
    monkeypatch.setattr(plotting, "subplots", original)
    assert figure_audit.export_chapter_figures(InteractiveShell.instance()) is False
    assert plotting.subplots is original


def test_exported_data_include_bars_and_heat_maps(tmp_path):
    fig, axes = plotting.subplots(1, 2)
    axes[0, 0].bar([0, 1], [0.25, 0.75], label="P(selected)")
    axes[0, 1].imshow(np.array([[1.0, 2.0], [3.0, 4.0]]))
    plotting.export(fig, "bars", tmp_path)
    plt.close(fig)
    with open(tmp_path / "bars.csv") as fh:
        rows = list(csv.DictReader(fh))
    bars = [(float(r["x"]), float(r["y"])) for r in rows if r["panel"] == "a"]
    assert bars == [(0.0, 0.25), (1.0, 0.75)]
    cells = [(r["series"], int(r["x"]), float(r["y"])) for r in rows if r["panel"] == "b"]
    assert cells == [("row 1", 1, 1.0), ("row 1", 2, 2.0), ("row 2", 1, 3.0), ("row 2", 2, 4.0)]


# ------------------------------------------------------------------ the build's figure audit
def _inline_shell():
    """An IPython shell with the inline backend's PNG formatter for figures."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.core.pylabtools import select_figure_formats

    shell = InteractiveShell.instance()
    select_figure_formats(shell, {"png"}, bbox_inches="tight")
    return shell


def _planted_figure():
    """Two panels, a 5-pt axis label and a legend on each panel: two problems."""
    fig, axes = plotting.subplots(1, 2)
    for ax in axes[0]:
        ax.plot([0, 1], [0, 1], label="a line")
        ax.legend()
    axes[0, 0].set_xlabel("tiny label", fontsize=5)
    return fig


def test_each_shown_figure_gets_its_data_as_csv_beside_the_figure_files(monkeypatch, tmp_path):
    """In a book build (figure directory set) every figure a cell shows is written as CSV,
    named after its page and number, and its record names the file; a widget's drawing is
    not (the figure it stands for has its own)."""
    import csv

    monkeypatch.setenv(figure_audit.AUDIT_DIR_ENV, str(tmp_path / "records"))
    monkeypatch.setenv(figure_audit.FIGURE_PAGE_ENV, "book/planted")
    monkeypatch.setenv(figure_audit.FIGURE_DIR_ENV, str(tmp_path / "figures"))
    fig, axes = plotting.subplots()
    axes[0, 0].plot([1, 2, 3], [0.5, 0.25, 0.125], label="UCB1")
    axes[0, 0].legend()
    try:
        figure_audit._write_record(fig, figure_audit.page_png(fig))
        monkeypatch.setattr(figure_audit, "_inside_output_widget", lambda: True)
        figure_audit._write_record(fig, figure_audit.page_png(fig))
    finally:
        plt.close(fig)
    first, drawing = figure_audit.read_records(tmp_path / "records" / "book")["planted"]
    stem = figure_audit.data_file_stem("book/planted", first["index"])
    assert first["csv"] == f"{stem}.csv" and "/" not in stem and "csv" not in drawing
    with open(tmp_path / "figures" / first["csv"], newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["series"], float(r["x"]), float(r["y"])) for r in rows] == [
        ("UCB1", 1.0, 0.5), ("UCB1", 2.0, 0.25), ("UCB1", 3.0, 0.125)]
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == [first["csv"]]


def test_a_diagram_gets_no_data_file_and_unlabelled_bars_are_data(monkeypatch, tmp_path):
    """A figure of text and shapes plots no data: its record counts 0 rows and names no file,
    and no empty CSV is left for a link; a bar chart without a legend label still has rows."""
    monkeypatch.setenv(figure_audit.AUDIT_DIR_ENV, str(tmp_path / "records"))
    monkeypatch.setenv(figure_audit.FIGURE_PAGE_ENV, "book/planted")
    monkeypatch.setenv(figure_audit.FIGURE_DIR_ENV, str(tmp_path / "figures"))
    diagram, axes = plotting.subplots()
    axes[0, 0].text(0.5, 0.5, "private mechanism")
    axes[0, 0].add_patch(plt.Rectangle((0.1, 0.1), 0.3, 0.3))
    axes[0, 0].set_axis_off()
    bars, axes = plotting.subplots()
    axes[0, 0].bar([1, 2, 3], [4.0, 2.0, 1.0])
    try:
        figure_audit._write_record(diagram, figure_audit.page_png(diagram))
        figure_audit._write_record(bars, figure_audit.page_png(bars))
    finally:
        plt.close(diagram)
        plt.close(bars)
    drawn, charted = figure_audit.read_records(tmp_path / "records" / "book")["planted"]
    assert drawn["data_rows"] == 0 and "csv" not in drawn
    assert charted["data_rows"] == 3 and charted["csv"]
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == [charted["csv"]]
    with open(tmp_path / "figures" / charted["csv"], newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["series"], float(r["x"]), float(r["y"])) for r in rows] == [
        ("", 1.0, 4.0), ("", 2.0, 2.0), ("", 3.0, 1.0)]


def test_audit_hook_records_a_planted_illegible_figure_and_keeps_its_png(monkeypatch, tmp_path):
    """The wrapped formatter returns the inline backend's PNG byte for byte, and appends a
    record whose problems name the 5-pt label and the second legend; the collector turns them
    into warnings."""
    import base64

    from IPython.core.pylabtools import print_figure

    shell = _inline_shell()
    fig = _planted_figure()
    plain = shell.display_formatter.format(fig)[0]["image/png"]

    monkeypatch.delenv(figure_audit.AUDIT_DIR_ENV, raising=False)
    assert figure_audit.install(shell) is False          # outside a book build: nothing
    monkeypatch.setenv(figure_audit.AUDIT_DIR_ENV, str(tmp_path))
    monkeypatch.setenv(figure_audit.FIGURE_PAGE_ENV, "planted")
    try:
        assert figure_audit.install(shell) is True
        shown = shell.display_formatter.format(fig)[0]["image/png"]
        assert shown == plain
        assert base64.b64decode(shown) == print_figure(fig, "png", bbox_inches="tight")
        good, axes = plotting.subplots()
        axes[0, 0].plot([0, 1], [1, 0])
        shell.display_formatter.format(good)
    finally:
        formatter = shell.display_formatter.formatters["image/png"]
        audited = formatter.lookup_by_type(matplotlib.figure.Figure)
        formatter.for_type(matplotlib.figure.Figure, audited.wrapped)   # unwrap for others
        for event in ("pre_run_cell", "post_execute"):
            shell.events.callbacks[event][:] = [
                cb for cb in shell.events.callbacks[event]
                if not getattr(cb, "dpolearn_audit", False)]
        plt.close("all")

    records = figure_audit.read_records(tmp_path)["planted"]
    assert [r["index"] for r in records] == [1, 2]
    bad, ok = records
    assert bad["png_px"][0] <= figure_audit.COLUMN_WIDTH_PX and bad["display_scale"] == 1.0
    assert bad["min_font_pt"] == 5.0 and bad["panels"] == 2 and bad["legends"] == 2
    assert len(bad["problems"]) == 2
    assert "'tiny label' is 5 pt" in bad["problems"][0]
    assert "2 panels with 2 legends (want 1)" in bad["problems"][1]
    assert ok["problems"] == [] and ok["min_font_pt"] >= figure_audit.MIN_FONT_PT

    cell = bad["cell"]
    warnings = figure_audit.audit_warnings(records, {cell: {"images": 2}})
    assert len(warnings) == 2 and all("figure 1 of the page" in w for w in warnings)
    # an image the audit did not see (here: a third image in the same cell) is reported
    escaped = figure_audit.audit_warnings(records, {cell: {"images": 3}})
    assert any("escaped the audit" in w for w in escaped)
    # figures drawn in a widget are not images of the cell's output
    widget = [dict(ok, widget=True)]
    assert any("escaped" in w for w in figure_audit.audit_warnings(widget, {cell: {"images": 1}}))


def test_audit_checks_each_figure_against_the_width_of_its_place():
    """A PNG that fits the column can still be scaled down in a narrower place: a captioned
    figure in a box (collapsed output or solution), or a widget's drawing in a box."""
    boxed_captioned = figure_audit.available_width_px(captioned=True, boxed=True)
    boxed_widget = figure_audit.available_width_px(boxed=True, widget=True)
    assert figure_audit.available_width_px(captioned=True) == figure_audit.COLUMN_WIDTH_PX
    assert boxed_captioned < boxed_widget < figure_audit.COLUMN_WIDTH_PX
    rec = {"index": 1, "cell": 4, "widget": False, "png_px": [663, 300], "min_font_pt": 9.0,
           "problems": []}
    fits = figure_audit.audit_page([rec], {4: {"images": 1, "captioned": True}})[0][0]
    assert fits["problems"] == [] and fits["shown_in_px"] == figure_audit.COLUMN_WIDTH_PX
    boxed = figure_audit.audit_page([rec], {4: {"images": 1, "captioned": True,
                                                "boxed": True}})[0][0]
    shown = 9.0 * boxed_captioned / 663
    assert len(boxed["problems"]) == 1 and f"shown at {shown:.1f} pt" in boxed["problems"][0]
    drawing = dict(rec, widget=True, png_px=[670, 300])
    warnings = figure_audit.audit_warnings([drawing], {4: {"images": 0, "boxed": True}})
    assert len(warnings) == 1 and "widget drawing 1" in warnings[0]
    assert figure_audit.audit_warnings([drawing], {4: {"images": 0}}) == []
    # an admonition's body (an exercise's solution) is indented inside its box: narrower
    solution = figure_audit.audit_page([dict(rec, png_px=[652, 300])], {4: {
        "images": 1, "boxed": True, "admonition": True}})[0][0]
    assert solution["shown_in_px"] == figure_audit.available_width_px(admonition=True) < 652
    assert len(solution["problems"]) == 1 and "admonition" in solution["problems"][0]


def test_legibility_checks_reject_bad_input():
    with pytest.raises(TypeError, match="fig"):
        legibility_problems("not a figure")
    with pytest.raises(ValueError, match="png"):
        figure_audit.png_size(b"GIF89a")


TINY_BOOK_PAGE = """---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  name: python3
  display_name: Python 3
---
# A planted figure

```{code-cell} ipython3
import dpolearn as dpl
fig, axes = dpl.plotting.subplots(1, 2)
for ax in axes[0]:
    ax.plot([0, 1], [0, 1], label="a line")
    ax.legend()
axes[0, 0].set_xlabel("tiny label", fontsize=5)
```

```{code-cell} ipython3
fig, axes = dpl.plotting.subplots()
axes[0, 0].plot([0, 1], [1, 0])
```
"""


def _figures_in_a_kernel() -> int:
    """Images in the output of one cell that draws a figure, run by nbclient in a new kernel
    (as myst-nb runs the pages of a book build: the kernel inherits this environment)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import matplotlib.pyplot as plt\nplt.plot([0, 1], [1, 0]);")])
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    return sum("image/png" in out.get("data", {}) for out in nb.cells[0].outputs)


def test_book_kernels_show_figures_whatever_mplbackend_the_build_inherits(monkeypatch, tmp_path):
    """With ``MPLBACKEND=Agg`` in the environment (CI and test set-ups set it), a kernel draws
    with Agg and shows no figure: a page's captioned figures then never exist and every
    reference to them is an "undefined label". The figure extension tells the build's kernels
    to use the inline backend."""
    from types import SimpleNamespace

    for name in ("IPYTHONDIR", figure_audit.AUDIT_DIR_ENV):   # restored (or removed) after
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    assert _figures_in_a_kernel() == 0                  # the failure: nothing is shown
    figures_ext._set_up_audit(SimpleNamespace(outdir=str(tmp_path / "html")))
    assert figures_ext.INLINE_BACKEND == "module://matplotlib_inline.backend_inline"
    assert _figures_in_a_kernel() == 1                  # monkeypatch restores the environment


@pytest.mark.slow
def test_a_book_with_an_illegible_figure_fails_to_build(tmp_path):
    """End to end: jupyter-book with the book's figure extension, -W, one planted page. The
    build fails, its warnings name the page, the figure and each problem, and the audit file
    lists both figures (the legible one without problems)."""
    import json
    import subprocess
    import sys

    (tmp_path / "_config.yml").write_text(
        "title: planted\nonly_build_toc_files: true\nexecute:\n  execute_notebooks: force\n"
        "sphinx:\n  extra_extensions:\n    - bookkit.sphinx.figures\n  config:\n"
        "    nb_execution_raise_on_error: true\n")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: index\nchapters:\n"
                                       "  - file: planted\n")
    (tmp_path / "index.md").write_text("# Index\n\nA page.\n")
    (tmp_path / "planted.md").write_text(TINY_BOOK_PAGE)
    exe = pathlib.Path(sys.executable).with_name("jupyter-book")
    proc = subprocess.run([str(exe), "build", ".", "-W", "-n", "--keep-going"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0, log[-3000:]
    audit_lines = [line for line in log.splitlines() if "figure audit:" in line]
    assert len(audit_lines) == 2, log[-3000:]
    assert all("planted.md" in line and "figure 1 of the page, cell [1]" in line
               for line in audit_lines)
    assert "'tiny label' is 5 pt" in audit_lines[0]
    assert "2 panels with 2 legends" in audit_lines[1]
    audit = json.loads((tmp_path / "_build" / "html" / "_static" / "figure-audit.json")
                       .read_text())
    assert audit["pages"]["planted"] == {"figures": 2, "widget_figures": 0, "shown_images": 2}
    assert [len(f["problems"]) for f in audit["figures"]] == [2, 0]


def _cell_output_images(html: str) -> int:
    """Number of <img> elements inside the page's cell outputs (div.cell_output)."""
    from html.parser import HTMLParser

    class Counter(HTMLParser):
        def __init__(self):
            super().__init__()
            self.depth, self.inside_at, self.count = 0, None, 0

        def handle_starttag(self, tag, attrs):
            if tag == "div":
                self.depth += 1
                classes = (dict(attrs).get("class") or "").split()
                if self.inside_at is None and "cell_output" in classes:
                    self.inside_at = self.depth
            elif tag == "img" and self.inside_at is not None:
                self.count += 1

        def handle_endtag(self, tag):
            if tag == "div":
                if self.inside_at == self.depth:
                    self.inside_at = None
                self.depth -= 1

    counter = Counter()
    counter.feed(html)
    return counter.count


def _static_widget_images(html: str):
    """(number of precomputed images, whether the form shows an image of its own) of the
    static widgets (``dpolearn.widgets``) in a cell's HTML output."""
    import json
    import re

    found = []
    for payload in re.findall(r'<script type="application/json" class="dpl-widget-data">'
                              r'(.*?)</script>', html, flags=re.S):
        data = json.loads(payload)          # "<\\/" is JSON for "</"
        found.append((len(data["images"]), not data["target"]))
    return found


def _notebook_images(path: pathlib.Path):
    """PNG outputs of an executed notebook: (execution count of the cell of each PNG output,
    number of images the page shows in the outputs of its cells, number of widget drawings:
    in the state of its live widgets and in its static widgets' forms)."""
    import json

    nb = json.loads(path.read_text(encoding="utf-8"))
    cells, shown, in_widgets = [], 0, 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        outputs = cell.get("outputs", [])
        n = sum(1 for out in outputs if "image/png" in out.get("data", {}))
        cells += [cell["execution_count"]] * n
        static = [form for out in outputs
                  for form in _static_widget_images("".join(out.get("data", {})
                                                            .get("text/html", "")))]
        in_widgets += sum(count for count, _ in static)
        tags = set(cell.get("metadata", {}).get("tags", []))
        if not tags & {"remove-output", "remove-cell"}:
            shown += n + sum(own for _, own in static)
    state = (nb.get("metadata", {}).get("widgets", {})
             .get("application/vnd.jupyter.widget-state+json", {}).get("state", {}))
    in_widgets += sum(1 for model in state.values()
                      for out in model.get("state", {}).get("outputs", []) or []
                      if "image/png" in out.get("data", {}))
    return cells, shown, in_widgets


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_every_figure_of_a_page_links_its_data(quick_book):
    """Under every image of a cell's output (a widget's form aside) whose figure plots data the
    page links the CSV of that data, and the file is there with the figure's rows; a diagram
    (text and shapes: no row to write) has no link and no file."""
    import csv
    import json

    from bs4 import BeautifulSoup

    audit = json.loads((quick_book.html / "_static" / "figure-audit.json").read_text())
    records = [f for f in audit["figures"] if not f.get("widget")]
    with_data = [f for f in records if f.get("data_rows")]
    diagrams = [f for f in records if f.get("data_rows") == 0]
    assert len(with_data) + len(diagrams) == len(records), "a record without its row count"
    assert all(f.get("csv") for f in with_data) and not any(f.get("csv") for f in diagrams)
    problems, n_links = [], 0
    for path in sorted((quick_book.html / "book").glob("*.html")):
        diagram_alts = {f.get("alt") for f in diagrams if f["page"] == f"book/{path.stem}"}
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        for output in soup.select("div.cell_output"):
            images = [i for i in output.find_all("img") if not i.find_parent(class_="dpl-widget")]
            shown_diagrams = sum(1 for i in images if i.get("alt") in diagram_alts)
            links = output.select("p.dpl-figure-data a")
            n_links += len(links)
            if len(links) != len(images) - shown_diagrams:
                problems.append(f"{path.name}: {len(images)} image(s) ({shown_diagrams} "
                                f"diagrams), {len(links)} data link(s)")
                continue
            for link in links:
                target = (path.parent / link["href"]).resolve()
                if not target.is_file():
                    problems.append(f"{path.name}: {link['href']} is not there")
                    continue
                with open(target, newline="") as fh:
                    reader = csv.DictReader(fh)
                    rows = list(reader)
                if reader.fieldnames != ["panel", "series", "x", "y", "se"] or not rows:
                    problems.append(f"{path.name}: {link['href']} holds no data rows")
    figure_dir = quick_book.html / "_static" / "figures"
    for f in diagrams:
        stray = figure_dir / f"{f['page'].replace('/', '-')}-figure-{f['index']}.csv"
        if stray.exists():
            problems.append(f"{stray.name}: the data file of a diagram")
    assert problems == [], "\n".join(problems)
    # the book's figures plot data; diagrams are few (the chapters' schematic drawings)
    assert n_links > 50 and len(diagrams) <= 10, (n_links, len(diagrams))


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_the_quick_build_audited_every_figure_of_every_page_and_all_pass(quick_book):
    """The build's audit file lists every figure of every executed page, none with a problem:
    its records name the cells of the executed notebook's PNG outputs, one record per output
    (plus one per widget drawing in the notebook's widget state), and the page's HTML shows
    exactly the cell-output images of the cells whose output is not removed."""
    import json

    audit = json.loads((quick_book.html / "_static" / "figure-audit.json").read_text())
    assert audit["column_px"] == figure_audit.COLUMN_WIDTH_PX
    failing = [f"{f['page']} figure {f['index']} (cell [{f['cell']}]): {p}"
               for f in audit["figures"] for p in f["problems"]]
    assert failing == [], "\n".join(failing)
    by_page = {}
    for fig in audit["figures"]:
        by_page.setdefault(fig["page"], []).append(fig)
    mismatches, n_pages = [], 0
    for notebook in sorted((quick_book.executed / "book").glob("*.ipynb")):
        docname = f"book/{notebook.stem}"
        cells, shown, in_widgets = _notebook_images(notebook)
        every = len(cells)
        records = by_page.get(docname, [])
        cell_records = sorted(r["cell"] for r in records if not r["widget"])
        widget_records = sum(1 for r in records if r["widget"])
        html = (quick_book.html / "book" / f"{notebook.stem}.html").read_text(encoding="utf-8")
        n_img = _cell_output_images(html)
        n_pages += bool(every)
        if (cell_records, widget_records, n_img) != (sorted(cells), in_widgets, shown):
            mismatches.append(f"{docname}: audited figures of cells {cell_records} and "
                              f"{widget_records} widget drawings; the notebook has PNGs in "
                              f"cells {sorted(cells)} ({shown} shown) and {in_widgets} in "
                              f"widgets; the HTML has {n_img} <img> in cell outputs")
        assert [r["index"] for r in records] == list(range(1, len(records) + 1))
    assert mismatches == [], "\n".join(mismatches)
    assert n_pages >= 10 and audit["figures_audited"] == len(audit["figures"]) > 50


@pytest.mark.book
@pytest.mark.xdist_group("book")
def test_every_figure_is_shown_at_its_own_width_in_a_1280_px_window(site_audit):
    """Headless Chromium at a 1280 px window (the reader's audit of conftest's
    ``site_audit``, which measures every image of the cells' outputs after opening every
    box): each image, widget drawings included, is shown ``min(PNG width, width of its place)``
    CSS pixels wide, the place's width being ``figure_audit.available_width_px`` (captioned or
    not, in a box or not, a widget's drawing or not): the display model with which the build's
    audit turns each figure's font sizes into shown sizes."""
    wrong, n_images = [], 0
    for name, result in sorted(site_audit.items()):
        if not name.startswith("book/"):
            continue
        for img in result.shown_images:
            n_images += 1
            place = figure_audit.available_width_px(
                captioned=img["captioned"], boxed=img["boxed"], widget=img["widget"],
                admonition=img["admonition"])
            expected = min(img["natural"], place)
            if img["natural"] == 0 or abs(img["shown"] - expected) > 1.0:
                wrong.append(f"{name}: {img['src'][:60]} is {img['natural']} px, "
                             f"shown {img['shown']:.1f} px (expected {expected:.1f})")
    assert wrong == [], "\n".join(wrong)
    assert n_images > 50
