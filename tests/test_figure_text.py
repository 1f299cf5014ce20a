"""Alt text from a figure's data (``dpolearn.figure_text``): what a reader who cannot see the
figure learns from it: plot type, axes, series and their final values, never a file name."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from dpolearn import plotting  # noqa: E402
from dpolearn.figure_text import MAX_SERIES, describe_axes, describe_figure  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_line_plot_names_axes_scale_series_and_final_values():
    fig, ax = plt.subplots()
    t = np.arange(1, 10_001)
    ax.plot(t, 3.0 * np.log(t), label="UCB1")
    ax.plot(t, 0.5 * np.sqrt(t), label="DP-UCB")
    ax.set(xlabel="round $t$", ylabel="cumulative regret", xscale="log")
    text = describe_figure(fig)
    assert text.startswith("Line plot of cumulative regret against round t (log scale) "
                           "from 1 to 10,000.")
    assert f"UCB1 ends at {3 * np.log(10_000):.3g} (round t = 10,000)" in text
    assert "DP-UCB ends at 50 (round t = 10,000)" in text
    assert ".png" not in text and "/" not in text


def test_panels_bands_errorbars_reference_lines_bars_and_heat_maps():
    fig, (a, b, c) = plt.subplots(1, 3)
    x = np.linspace(0, 1, 5)
    plotting.errorbar(a, x, 2 * x, 0.1 * np.ones(5), label="Laplace")
    a.fill_between(x, x, 2 * x, alpha=0.2)
    a.axhline(1.5, color="k", ls="--")
    a.set(xlabel=r"$\varepsilon$", ylabel="error")
    b.bar(["UCB1", "DP-TS"], [3.25, 10.5])
    b.set_ylabel("final regret")
    c.imshow(np.arange(6.0).reshape(2, 3))
    text = describe_figure(fig)
    assert text.startswith("Figure with 3 panels. Panel (a): Line plot with shaded bands of error "
                           "against epsilon from 0 to 1.")
    assert "Laplace ends at 2 (epsilon = 1)" in text
    assert "Reference: a horizontal line at 1.5." in text
    assert "Panel (b): Bar chart of final regret" in text and "UCB1 3.25, DP-TS 10.5" in text
    assert "Panel (c): Heat map" in text and "values from 0 to 5 over 2 by 3 cells" in text


def test_colour_bars_are_not_panels_and_many_series_are_counted():
    fig, ax = plt.subplots()
    for i in range(MAX_SERIES + 3):
        ax.plot([0, 1, 2], [0, i, 2 * i], label=f"eps {i}")
    fig.colorbar(matplotlib.cm.ScalarMappable(), ax=ax)
    text = describe_figure(fig)
    assert "Figure with" not in text                          # the colour bar is no panel
    assert f"{MAX_SERIES + 3} series" in text and "and 3 more" in text
    assert f"eps {MAX_SERIES - 1} ends" in text and f"eps {MAX_SERIES} ends" not in text


def test_a_diagram_without_axes_is_told_by_its_texts():
    fig, ax = plt.subplots()
    for i, value in enumerate([3, 1, 4]):
        ax.text(i, 0, str(value))
    ax.text(0, 1, "arm 1")
    ax.text(0, 2, r"$M(X) \to J$: same law up to $\frac{1}{2}$")
    ax.axis("off")
    assert describe_figure(fig) == ("Diagram without axes, with the labels: arm 1; M(X) to J: "
                                    "same law up to (1)/(2); it shows 3 numbers.")


def test_empty_figure_and_bad_input():
    assert describe_figure(plt.figure()) == "A figure without data panels or text."
    with pytest.raises(TypeError, match="fig must be a matplotlib Figure, got str"):
        describe_figure("figure.png")
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes, got int"):
        describe_axes(3)
