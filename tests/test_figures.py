"""Figures a reader can read (issue 39): no two tick labels of one axis overlap, and no two texts of a figure
(titles, axis labels, legends, notes) run into one another, measured on the rendered figure
(``fig.canvas.draw()`` and each text's ``get_window_extent()``), in every figure the notebooks draw on
data/reference; the layouts that keep them apart (configurations on the y axis, thinned numeric ticks)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from twelveways import plots  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

#: Fourteen configuration labels of one kernel, as the PRK notebook writes them.
LABELS = [f"{impl} {ranks}r×{threads}t n={size}" for impl in ("c-mpi", "c-openmp", "mpi4py", "numpy")
          for ranks, threads in ((1, 1), (2, 1)) for size in ("1.02k", "1.45k")][:14]


def _samples(labels, per_label: int = 10) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    return pd.DataFrame({"label": np.repeat(labels, per_label),
                         "time_s": rng.lognormal(-7, 0.3, len(labels) * per_label)})


@pytest.mark.parametrize("rotation", [0, 45])
def test_measure_finds_configuration_labels_that_run_together(rotation):
    """The issue's offender: fourteen long labels under one narrow panel, flat or at 45°, form a band."""
    fig, ax = plt.subplots(figsize=(4.3, 3.1))
    ax.set_xticks(range(len(LABELS)), LABELS, rotation=rotation, ha="right" if rotation else "center")
    found = plots.tick_label_collisions(fig)
    assert found and all(", x axis: " in line for line in found)
    assert f"{LABELS[0]!r} overlaps {LABELS[1]!r}" in found[0]
    plt.close(fig)


def test_horizontal_panels_give_every_configuration_a_line_of_its_own():
    samples = _samples(LABELS)
    summary = samples.groupby("label", sort=False)["time_s"].agg(m="median", lo="min", hi="max").reset_index()
    fig, (left, right) = plots.category_panels([len(LABELS), len(LABELS)], ncols=2)
    plots.distribution(samples, x="label", y="time_s", ax=left, horizontal=True, log=True, ylabel="time (s)")
    plots.ci_bars(summary, "label", "m", "lo", "hi", ax=right, horizontal=True, ylabel="median time (s)")
    fig.tight_layout()
    assert plots.tick_label_collisions(fig) == [] and plots.text_collisions(fig) == []
    for ax in (left, right):
        shown = [label.get_text() for label in ax.get_yticklabels()]
        assert shown == LABELS and all(label.get_rotation() == 0 for label in ax.get_yticklabels())
        top, bottom = (ax.get_yticklabels()[i].get_window_extent().y0 for i in (0, -1))
        assert top > bottom  # the first configuration at the top, read downwards
    assert right.get_xlim()[0] == 0  # a linear value axis starts at zero
    plt.close(fig)


def test_crowded_log_ticks_are_thinned_until_they_stand_apart():
    """A narrow log axis over less than two decades labels its minor ticks (2×10⁻³, 3×10⁻³ …) into one another."""
    fig, ax = plt.subplots(figsize=(2.2, 2.0))
    ax.set_xscale("log")
    ax.set_xlim(3.7e-4, 8.3e-3)
    ax.xaxis.set_minor_formatter(matplotlib.ticker.LogFormatterSciNotation(labelOnlyBase=False))
    assert plots.tick_label_collisions(fig)
    plots.readable_ticks(fig)
    assert plots.tick_label_collisions(fig) == []
    assert len(plots._drawn_tick_labels(ax.xaxis)) >= 2  # thinned, not emptied
    plt.close(fig)


def test_text_collisions_see_a_title_over_its_neighbour_and_the_fix():
    fig, axes = plt.subplots(1, 2, figsize=(6, 2.5))
    long_title = "base case: best serial = c-mpi, size 4000000: median 0.003219 s per iteration"
    for ax in axes:
        ax.set_title(long_title)
    assert any("title overlaps" in line for line in plots.text_collisions(fig))
    plt.close(fig)
    summary = pd.DataFrame({"pe": [1, 2], "value": [1.0, 1.8], "low": [0.9, 1.6], "high": [1.1, 2.0],
                            "implementation": ["c-mpi", "c-mpi"]})
    fig, axes = plt.subplots(1, 2, figsize=(8.8, 3.2))
    for ax in axes:
        plots.scaling(summary, "pe", "value", "low", "high", hue="implementation", base_label=long_title, ax=ax,
                      legend=False, wrap=60, hue_order=["c-mpi", "numpy"])
    plots.shared_legend(fig, axes)
    fig.tight_layout()
    assert plots.text_collisions(fig) == []
    assert [text.get_text() for text in fig.legends[0].get_texts()] == ["ideal (linear)", "c-mpi"]
    plt.close(fig)


def test_text_collisions_see_a_label_inside_the_neighbouring_panel():
    fig, axes = plt.subplots(1, 2, figsize=(5, 2.5))
    fig.subplots_adjust(wspace=0.02)
    axes[1].set_ylabel("samples per second")
    assert any("reaches into the panel" in line for line in plots.text_collisions(fig))
    plt.close(fig)


def test_a_legend_under_its_panel_clears_the_tick_labels_however_short_the_panel():
    fig, axes = plt.subplots(2, 2, figsize=(7, 4.4))
    for number, ax in enumerate(axes.flat):
        ax.plot([0, 1], [0, 1], "o", color=f"C{number}", label="measured")  # one label, four colours: no shared legend
        ax.set_xticks([0, 1], ["a long category", "another one"], rotation=30, ha="right")
        ax.set(xlabel="category", title=f"panel {number}")
        ax.legend()
    fig.tight_layout()
    plots.legends_outside(fig)
    assert all(ax.get_legend().get_bbox_to_anchor().bounds != ax.bbox.bounds for ax in axes.flat)
    assert [line for line in plots.text_collisions(fig) if "legend" in line and "title" not in line] == []
    plt.close(fig)


@pytest.mark.slow
def test_no_figure_of_the_reference_report_has_overlapping_labels(tmp_path):
    """Every figure the notebooks draw on data/reference, measured when it is rendered to its PNG."""
    from notebook_figures import notebook_figures

    def measure(fig):
        return plots.tick_label_collisions(fig) + plots.text_collisions(fig)

    measured = notebook_figures(ROOT / "data" / "reference", tmp_path, measure)
    drawn = {f"{png.parent.name}/{png.stem}" for png in (tmp_path / "figures").glob("*/*.png")}
    assert set(measured) == drawn  # every PNG the report embeds was measured
    assert {"prk/distributions", "prk/time-ci", "prk/scaling-strong", "train/f2-per-iteration-vs-end-to-end",
            "inference/server_vs_offline", "inference/latency_cdf"} <= drawn
    assert {name: found for name, found in measured.items() if found} == {}
