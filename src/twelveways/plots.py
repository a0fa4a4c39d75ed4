"""Shared seaborn figures that show the data (SC15 rule 12) for every notebook.

Conventions, so that no figure suggests more than was measured:

* every sample is drawn (strip plot over a violin or box), never only a bar of a summary;
* measured summaries are points with CI bars and are **not** joined by lines: the factor
  levels between them (rank counts, implementations) were not measured, so interpolation
  is not valid (R12);
* lines are drawn only for models defined everywhere on the axis (ideal scaling, a fitted
  Amdahl curve, roofline bounds, a Q–Q reference line) or for step functions that are exact
  (an empirical CDF);
* a speedup plot always names its base case and prints its absolute value (R1);
* axes carry units; log scales are labelled as such.

Statistics come from ``twelveways.stats`` (scipy, statsmodels); these helpers only draw them.
"""

from __future__ import annotations

import os
import re
import textwrap
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from .errors import ResultsError
from .evidence.settings import resolve_confidence

#: Points fewer than this per group get a box instead of a violin (a density of 3 points misleads).
MIN_VIOLIN_POINTS = 8

#: What a figure declaration may say (SC15 R12; docs/checklist-evidence.md, attr ``figures``).
FIGURE_SHOWS = ("samples", "distribution", "summary")
FIGURE_LINES = ("none", "ideal", "model", "connect_levels")
X_KINDS = ("continuous", "categorical")

#: Declarations of the figures drawn in this process, by name, in drawing order.
_DECLARED: dict[str, dict] = {}


def declare(name: str, *, shows: str, lines: str, x: str, x_kind: str) -> dict:
    """Record what the figure ``name`` shows, which lines it draws and what its x axis is.

    Declared where the figure is drawn (not by the benchmark that measured the data), so the
    analysis stage can write it into its derived results for the checklist (R12).
    """
    for field, value, allowed in (("shows", shows, FIGURE_SHOWS), ("lines", lines, FIGURE_LINES),
                                  ("x_kind", x_kind, X_KINDS)):
        if value not in allowed:
            raise ResultsError(f"figure {name!r}: {field} must be one of {', '.join(allowed)}, not {value!r}")
    declaration = {"name": str(name), "shows": shows, "lines": lines, "x": str(x), "x_kind": x_kind}
    _DECLARED[str(name)] = declaration
    return declaration


def declared() -> list[dict]:
    """Every figure declared in this process (a notebook's kernel), in drawing order."""
    return [dict(d) for d in _DECLARED.values()]


def forget_declarations() -> None:
    """Start a fresh registry (tests; a notebook's kernel starts with an empty one)."""
    _DECLARED.clear()


def setup() -> None:
    """One look for every notebook: small PNGs (the report embeds them), readable fonts."""
    sns.set_theme(context="notebook", style="whitegrid", palette="colorblind")
    plt.rcParams.update({"figure.dpi": 96, "savefig.dpi": 96, "figure.figsize": (7.5, 4.2),
                         "figure.autolayout": False, "axes.titlesize": "medium"})


#: A model curve needs at least this many distinct levels of its factor (two points fix any 1-parameter curve).
MIN_MODEL_LEVELS = 3
#: Line styles paired with the colour-blind palette, so that ten series stay distinguishable in grey too.
DASHES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (8, 2)))


def figure_data(fig: plt.Figure) -> pd.DataFrame:
    """Every plotted series of ``fig`` in long form (panel, series, kind, x, y): the CSV behind the figure."""
    from matplotlib.collections import PathCollection, PolyCollection
    from matplotlib.patches import Rectangle

    frames = []
    for number, ax in enumerate(a for a in fig.axes if a.get_visible()):
        panel = ax.get_title().split("\n")[0] or f"panel {number + 1}"
        for line in ax.get_lines():
            x, y = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
            if x.size:
                frames.append(pd.DataFrame({"panel": panel, "series": line.get_label(), "kind": "line", "x": x, "y": y}))
        for collection in ax.collections:
            if isinstance(collection, PathCollection) and not isinstance(collection, PolyCollection):
                offsets = np.asarray(collection.get_offsets(), float).reshape(-1, 2)
                if offsets.size:
                    frames.append(pd.DataFrame({"panel": panel, "series": collection.get_label(), "kind": "points",
                                                "x": offsets[:, 0], "y": offsets[:, 1]}))
        bars = [patch for patch in ax.patches if isinstance(patch, Rectangle) and patch.get_height()]
        if bars:
            frames.append(pd.DataFrame({"panel": panel, "series": [b.get_label() for b in bars], "kind": "bar",
                                        "x": [b.get_x() + b.get_width() / 2 for b in bars],
                                        "y": [b.get_height() for b in bars]}))
    data = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["panel", "series", "kind", "x", "y"])
    data["series"] = data["series"].astype(str).where(~data["series"].astype(str).str.startswith("_"), "")
    return data


#: The gid of a panel's note (a base case printed under it): the alt text repeats it.
NOTE = "twelveways-note"


def alt_text(fig: plt.Figure, name: str) -> str:
    """What the figure shows, in words: its declaration, panels, axes and series (the <img> alt text)."""
    declaration = _DECLARED.get(str(name), {})
    parts = [f"Figure {name}"]
    if declaration:
        parts[0] += f" shows {declaration['shows']}" + ("" if declaration["lines"] == "none"
                                                        else f" with {declaration['lines'].replace('_', ' ')} lines")
    for ax in [a for a in fig.axes if a.get_visible()][:6]:
        title = " ".join(ax.get_title().split()) or "panel"
        labels = [t for t in ax.get_legend_handles_labels()[1] if not t.startswith("_")]
        text = f"{title}: {ax.get_ylabel() or 'y'} against {ax.get_xlabel() or 'x'}"
        if labels:
            text += f"; series {', '.join(dict.fromkeys(labels[:8]))}" + (" and more" if len(labels) > 8 else "")
        text += "".join(f"; {' '.join(note.get_text().split())}" for note in ax.texts if note.get_gid() == NOTE)
        parts.append(text)
    return ". ".join(parts)[:900] + "."


def _drawn_tick_labels(axis) -> list:
    """The tick labels ``axis`` draws: major and minor, visible, with text, at a tick inside the view."""
    low, high = sorted(axis.get_view_interval())
    slack = (high - low) * 1e-9
    labels = []
    for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
        if low - slack <= tick.get_loc() <= high + slack:
            labels += [label for label in (tick.label1, tick.label2) if label.get_visible() and label.get_text()]
    return labels


def _colliding(axis) -> list[tuple[str, str]]:
    """Pairs of drawn tick labels of ``axis`` whose boxes intersect (call after a draw)."""
    from itertools import combinations

    boxes = [(label.get_text(), label.get_window_extent()) for label in _drawn_tick_labels(axis)]
    return [(first, second) for (first, a), (second, b) in combinations(boxes, 2) if a.overlaps(b)]


def tick_label_collisions(fig: plt.Figure) -> list[str]:
    """Every pair of tick labels of one axis whose drawn boxes intersect (a reader sees a smudge), in words.

    Measured on the rendered figure (``get_window_extent`` after a draw), so rotation, font size and
    the panel's final size all count; empty when every label stands clear of the others.
    """
    fig.canvas.draw()
    found = []
    for number, ax in enumerate(a for a in fig.axes if a.get_visible()):
        panel = " ".join(ax.get_title().split()) or f"panel {number + 1}"
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            found += [f"{panel}, {name} axis: {first!r} overlaps {second!r}" for first, second in _colliding(axis)]
    return found


def _texts(fig: plt.Figure) -> list[tuple[str, object]]:
    """(name, artist) of every text a reader reads in ``fig``: titles, axis labels, drawn tick labels, legends,
    annotations, the figure's own texts and legends."""
    found = []
    for number, ax in enumerate(a for a in fig.axes if a.get_visible()):
        panel = " ".join(ax.get_title().split()) or f"panel {number + 1}"
        found += [(f"{panel}: title", ax.title), (f"{panel}: x label", ax.xaxis.label),
                  (f"{panel}: y label", ax.yaxis.label)]
        found += [(f"{panel}: tick {label.get_text()!r}", label) for axis in (ax.xaxis, ax.yaxis)
                  for label in _drawn_tick_labels(axis)]
        found += [(f"{panel}: text {text.get_text()[:30]!r}", text) for text in ax.texts]
        found += [(f"{panel}: legend", ax.get_legend())] if ax.get_legend() else []
    found += [(f"figure text {text.get_text()[:30]!r}", text) for text in fig.texts]
    found += [("figure legend", legend) for legend in fig.legends]
    return [(name, artist) for name, artist in found
            if artist.get_visible() and (not hasattr(artist, "get_text") or artist.get_text().strip())]


def text_collisions(fig: plt.Figure) -> list[str]:
    """Every pair of texts of ``fig`` (see :func:`_texts`) whose drawn boxes intersect, and every text that reaches
    into another panel's plotting area, in words: a title over a neighbour's label, a legend over a tick label, a
    y label inside the panel to its left.  Measured after a draw, like :func:`tick_label_collisions`."""
    from itertools import combinations

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [(name, artist.get_window_extent(renderer)) for name, artist in _texts(fig)]
    found = [f"{first} overlaps {second}" for (first, a), (second, b) in combinations(boxes, 2) if a.overlaps(b)]
    panels = [(" ".join(ax.get_title().split()) or f"panel {number + 1}", ax.get_window_extent(renderer))
              for number, ax in enumerate(a for a in fig.axes if a.get_visible())]
    return found + [f"{name} reaches into the panel {panel}" for name, box in boxes for panel, area in panels
                    if not name.startswith(f"{panel}: ") and box.overlaps(area)]


def _number_steps(axis) -> list:
    """Ways to thin a numeric axis, gentlest first: a log axis labelled at 1, 2, 5 per decade in plain numbers,
    then at 1 and 3, then at its decades only; a linear one at four, then three round numbers.  Minor labels go in every step."""
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

    def log_at(subs):
        def step():
            axis.set_major_locator(LogLocator(base=10, subs=subs))
            axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
            axis.set_minor_formatter(NullFormatter())
        return step

    def linear_at(bins):
        def step():
            axis.set_major_locator(MaxNLocator(nbins=bins))
            axis.set_minor_formatter(NullFormatter())
        return step

    if axis.get_scale() == "log":
        return [log_at((1.0, 2.0, 5.0)), log_at((1.0, 3.0)), log_at((1.0,))]
    return [linear_at(4), linear_at(3)] if axis.get_scale() == "linear" else []


def _upright(ax) -> None:
    """The x tick labels turned to 90°: each then needs only a line's height of room along the axis."""
    plt.setp(ax.get_xticklabels(), rotation=90, ha="center", rotation_mode="default")


def readable_ticks(fig: plt.Figure) -> None:
    """Tick labels that collide (``10000120001400016000``) are made legible: numeric ones thinned, the words
    of a categorical x axis turned upright (90°, one label per line width); measured again after each step.

    A safety net: figures with many categories are drawn with their labels on the y axis in the first place
    (``horizontal=True`` of :func:`distribution` and :func:`ci_bars`).  Measured on a layout-only draw
    (``draw_without_rendering``: every label placed, no pixel painted); ``savefig`` paints the figure once.
    """
    fig.draw_without_rendering()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if not _colliding(axis):
                continue
            numeric = all(_numeric(label.get_text()) for label in _drawn_tick_labels(axis))
            steps = _number_steps(axis) if numeric else []
            if axis is ax.xaxis:
                steps.append(partial(_upright, ax))
            for step in steps:
                step()
                fig.draw_without_rendering()
                if not _colliding(axis):
                    break


def _numeric(text: str) -> bool:
    """A number as matplotlib writes one: minus sign, thousands commas, or mathtext such as ``$\\mathdefault{10^{-3}}$``."""
    text = re.sub(r"\\mathdefault|\\times|[${}]", "", text).replace("^", "e").replace("10e", "1e")
    try:
        float(text.replace("\u2212", "-").replace(",", ""))
    except ValueError:
        return False
    return True


def _inside(ax) -> bool:
    legend = ax.get_legend()
    return legend is not None and legend.get_bbox_to_anchor().bounds == ax.bbox.bounds


def _colour(handle) -> tuple:
    from matplotlib.colors import to_rgba

    for getter in ("get_color", "get_facecolor", "get_edgecolor"):
        try:
            value = getattr(handle, getter)()
            value = value if isinstance(value, str) else np.asarray(value)  # "C0", "red" or RGBA rows
            if isinstance(value, str) or value.size:
                first = value if isinstance(value, str) or value.ndim == 1 else value.reshape(-1, value.shape[-1])[0]
                return tuple(np.round(to_rgba(first), 3))
        except (AttributeError, TypeError, ValueError):
            continue
    return ()


def legends_outside(fig: plt.Figure) -> None:
    """Move legends that sit inside their panel out of the data: right of a single panel; for several
    panels one figure legend at the right when every label keeps its colour, else one below each panel."""
    panels = [ax for ax in fig.axes if ax.get_visible() and _inside(ax)]
    if not panels:
        return
    # one figure legend only when every panel had one and every label keeps its colour across them
    if len([ax for ax in fig.axes if ax.get_visible()]) == 1:
        ax = panels[0]
        title = ax.get_legend().get_title().get_text() or None
        ax.legend(*ax.get_legend_handles_labels(), title=title, fontsize="x-small", loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        return
    entries: dict[str, tuple] = {}
    consistent = True
    for ax in panels:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label in entries and _colour(entries[label]) != _colour(handle):
                consistent = False
            entries.setdefault(label, handle)
    if consistent and len(panels) == len([ax for ax in fig.axes if ax.get_visible()]):
        for ax in panels:
            ax.get_legend().remove()
        fig.legend(list(entries.values()), list(entries), fontsize="x-small", loc="upper left",
                   bbox_to_anchor=(1.0, 0.98), borderaxespad=0)
        return
    for ax in panels:
        _legend_below(fig, ax)


def _legend_below(fig: plt.Figure, ax) -> None:
    """``ax``'s legend under its x axis: below the lowest tick label or axis label as drawn, whatever the panel's height."""
    from matplotlib.transforms import offset_copy

    fig.draw_without_rendering()  # the layout of every label, nothing painted
    renderer = fig.canvas.get_renderer()
    axis = ax.xaxis.get_tightbbox(renderer)
    drop = ax.get_window_extent(renderer).y0 - axis.y0 + 4 if axis is not None else 30
    below = offset_copy(ax.transAxes, fig=fig, y=-drop * 72 / fig.dpi, units="points")
    ax.legend(*ax.get_legend_handles_labels(), fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, 0),
              bbox_transform=below, frameon=False)


def _render(fig: plt.Figure, name: str) -> tuple[bytes, pd.DataFrame, str]:
    """PNG bytes, the data behind it and its alt text, after making ticks and legends readable."""
    import io

    readable_ticks(fig)
    legends_outside(fig)  # after the ticks: a legend under a panel goes below its tick labels as finally drawn
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue(), figure_data(fig), alt_text(fig, name)


def _write(folder, name: str, png: bytes, data: pd.DataFrame) -> Path | None:
    if not folder or not name:
        return None
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    data.to_csv(folder / f"{name}.csv", index=False)
    path = folder / f"{name}.png"
    path.write_bytes(png)
    return path


def _display(png: bytes, name: str, alt: str, path: Path | None, fold: str | None = None) -> None:
    """Show the PNG in a notebook with its alt text, CSV path and fold in the output metadata (the report reads them)."""
    try:
        from IPython import get_ipython
        from IPython.display import Image, display
    except ImportError:
        return
    if get_ipython() is not None:
        meta = {"alt": alt, "twelveways": {"figure": str(name), "alt": alt, "fold": fold or "",
                                          "csv": str(path.with_suffix(".csv")) if path else ""}}
        display(Image(data=png, format="png"), metadata={"image/png": {"alt": alt}, **meta})


class FigurePath(type(Path())):
    """The saved figure's path; shows as a plain path, never as ``PosixPath('…')``, when a cell ends with it."""

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(f"figure saved: {self}")


def save(fig: plt.Figure, figures_dir: str | os.PathLike | None, name: str, *,
         declaration: Mapping | None = None, fold: str | None = None) -> Path | None:
    """Write ``fig`` as ``<figures_dir>/<name>.png`` with the data behind it as ``<name>.csv``, display it
    once with a real alt text (in a notebook) and close it, so a following ``plt.show()`` draws nothing twice.

    ``declaration`` ({shows, lines, x, x_kind}) is recorded with :func:`declare` under ``name``; ``fold``, a
    one-line summary, makes the report fold the figure under it (a diagnostic, not the story).
    """
    if declaration is not None:
        declare(name, **declaration)
    png, data, alt = _render(fig, name)
    path = _write(figures_dir, name, png, data)
    _display(png, name, alt, path, fold)
    plt.close(fig)
    return FigurePath(path) if path else None


def show(fig: plt.Figure, figures_dir: str | os.PathLike | None = None, name: str | None = None, *,
         declaration: Mapping | None = None, fold: str | None = None) -> Path | None:
    """Render ``fig`` once as PNG, save it with its CSV (when a folder is given) and display it.

    ``declaration`` ({shows, lines, x, x_kind}) is recorded with :func:`declare` under ``name``; ``fold``
    as in :func:`save`.
    """
    if declaration is not None and not name:
        raise ResultsError("a declared figure needs a name")
    return save(fig, figures_dir, name or "figure", declaration=declaration, fold=fold) if name else \
        _show_unnamed(fig)


def _show_unnamed(fig: plt.Figure) -> None:
    png, _, alt = _render(fig, "figure")
    _display(png, "figure", alt, None)
    plt.close(fig)


def _axes(ax):
    if ax is None:
        _, ax = plt.subplots()
    return ax


#: Height per category of a horizontal panel (inches): one line of tick-label text and some air.
CATEGORY_HEIGHT = 0.24


def category_panels(sizes: Sequence[int], *, ncols: int = 3, width: float = 4.4, frame: float = 1.1):
    """A figure of one panel per group, each with ``sizes[i]`` categories on its y axis.

    Each row of panels is as tall as its largest group needs (:data:`CATEGORY_HEIGHT` per category plus
    ``frame`` for title and axis), so every configuration label gets a line of its own however many a
    kernel has; spare panels of the last row are hidden.
    """
    sizes = [max(int(size), 1) for size in sizes]
    ncols = max(1, min(ncols, len(sizes)))
    rows = [sizes[i:i + ncols] for i in range(0, len(sizes), ncols)]
    heights = [CATEGORY_HEIGHT * max(row) + frame for row in rows]
    fig, axes = plt.subplots(len(rows), ncols, figsize=(width * ncols, sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax in axes.flat[len(sizes):]:
        ax.set_visible(False)
    return fig, list(axes.flat[:len(sizes)])


def distribution(data: pd.DataFrame, x: str, y: str, hue: str | None = None, *, order: Sequence | None = None,
                 ax=None, log: bool = False, ylabel: str | None = None, title: str | None = None,
                 horizontal: bool = False):
    """Every sample as a point, over a violin (enough points) or a box (few points).

    ``x`` names the categories, ``y`` the values; ``horizontal`` puts the categories on the y axis, one
    label per line, so that long configuration names never run into one another.
    """
    ax = _axes(ax)
    if data.empty:
        ax.text(0.5, 0.5, "no valid samples", ha="center", va="center", transform=ax.transAxes)
        return ax
    groups = data.groupby([x] + ([hue] if hue else []), observed=True)[y].size()
    axes = dict(x=y, y=x, orient="h") if horizontal else dict(x=x, y=y)
    common = dict(data=data, **axes, hue=hue, order=order, ax=ax, log_scale=10 if log else None)
    if int(groups.min()) >= MIN_VIOLIN_POINTS:
        sns.violinplot(**common, cut=0, inner=None, density_norm="width", fill=True, linewidth=0.6,
                       alpha=0.35, legend=False)
    else:
        sns.boxplot(**common, showfliers=False, fill=False, linewidth=0.8, legend=False)
    sns.stripplot(**common, dodge=bool(hue), jitter=0.2, size=3, alpha=0.75, linewidth=0,
                  legend=bool(hue))
    if title:
        ax.set_title(title)
    if horizontal:
        ax.set_xlabel(ylabel or y)
        ax.set_ylabel("")
        return ax
    ax.set_ylabel(ylabel or y)
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right", rotation_mode="anchor")
    return ax


def ci_bars(summary: pd.DataFrame, x: str, estimate: str, low: str, high: str, hue: str | None = None, *,
            ax=None, log: bool = False, ylabel: str | None = None, title: str | None = None,
            label_ci: str = "95% CI of the median", horizontal: bool = False):
    """Point estimates with CI bars per category, deliberately not joined by lines (R12).

    ``horizontal`` puts the categories on the y axis (first at the top), one label per line.
    """
    ax = _axes(ax)
    categories = list(dict.fromkeys(summary[x].astype(str)))
    positions = {name: i for i, name in enumerate(categories)}
    hues = list(dict.fromkeys(summary[hue].astype(str))) if hue else [None]
    palette = sns.color_palette(n_colors=max(len(hues), 1))
    width = 0.6
    for i, level in enumerate(hues):
        part = summary if level is None else summary[summary[hue].astype(str) == level]
        offset = 0.0 if len(hues) == 1 else -width / 2 + width * (i + 0.5) / len(hues)
        places = np.array([positions[str(v)] for v in part[x]]) + offset
        centre = part[estimate].to_numpy(float)
        error = [np.clip(centre - part[low].to_numpy(float), 0, None),
                 np.clip(part[high].to_numpy(float) - centre, 0, None)]
        drawn = dict(xerr=error) if horizontal else dict(yerr=error)
        ax.errorbar(*((centre, places) if horizontal else (places, centre)), **drawn, fmt="o", linestyle="none",
                    capsize=3, color=palette[i], label=level)
    _category_axis(ax, categories, horizontal)
    value_axis = ax.xaxis if horizontal else ax.yaxis
    if log:
        (ax.set_xscale if horizontal else ax.set_yscale)("log")
    elif horizontal:
        ax.set_xlim(left=0)  # differences are read against zero, not against an arbitrary floor
    else:
        ax.set_ylim(bottom=0)
    value_axis.set_label_text(ylabel or estimate)
    ax.set_title(title or f"median with {label_ci}")
    if hue:
        ax.legend(title=hue, fontsize="small")
    return ax


def _category_axis(ax, categories: Sequence[str], horizontal: bool) -> None:
    """Categories as ticks: on the y axis top to bottom (horizontal), else on the x axis at 30°."""
    if horizontal:
        ax.set_yticks(range(len(categories)), categories)
        ax.set_ylim(len(categories) - 0.5, -0.5)
        return
    ax.set_xticks(range(len(categories)), categories, rotation=30, ha="right", rotation_mode="anchor")
    ax.set_xlim(-0.5, len(categories) - 0.5)


def qq(samples, *, ax=None, title: str | None = None, ylabel: str = "ordered samples"):
    """Normal Q–Q plot of every sample with the Shapiro–Wilk p-value in the corner (R6).

    The test and the Q–Q data come from ``twelveways.stats.normality`` (scipy).
    """
    from . import stats

    ax = _axes(ax)
    values = np.asarray(samples, dtype=float)
    values = values[np.isfinite(values)]
    if values.size < 3:
        ax.text(0.5, 0.5, f"{values.size} samples: too few for a Q–Q plot", ha="center", va="center",
                transform=ax.transAxes)
        return ax
    check = stats.normality(values)
    theoretical, ordered = np.asarray(check.qq["theoretical"]), np.asarray(check.qq["ordered"])
    ax.plot(theoretical, ordered, "o", markersize=3, alpha=0.8)
    ax.plot(theoretical, check.qq["slope"] * theoretical + check.qq["intercept"], "-", linewidth=1, color="0.3",
            label="normal reference")
    ax.text(0.03, 0.95, f"n = {values.size}\nShapiro–Wilk p = {check.p:.2g}", transform=ax.transAxes,
            va="top", fontsize="small", bbox=dict(facecolor="white", alpha=0.8, linewidth=0))
    ax.set_xlabel("normal quantiles")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize="small")
    return ax


def compact(number: float) -> str:
    """1500 -> 1.5k, 2000000 -> 2M: short tick labels for problem sizes."""
    for factor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(number) >= factor:
            return f"{number / factor:.3g}{suffix}"
    return f"{number:g}"


def amdahl(p, serial_fraction: float, scale: float = 1.0):
    """Amdahl's law times ``scale`` (a model: defined for every p >= 1), from ``twelveways.stats``."""
    from . import stats

    return scale * stats.amdahl_speedup(p, serial_fraction)


def scaling(summary: pd.DataFrame, x: str, y: str, low: str | None = None, high: str | None = None,
            hue: str | None = None, *, kind: str = "strong", base_label: str | None = None,
            amdahl_fits: Mapping[str, tuple[float, float]] | None = None, ax=None, title: str | None = None,
            hue_order: Sequence | None = None, legend: bool = True, wrap: int = 90):
    """Strong (speedup) or weak (efficiency) scaling: measured points with CI, ideal and Amdahl lines.

    ``amdahl_fits`` maps a hue level to ``(fit, scale)``, ``fit`` a ``twelveways.stats.AmdahlFit``
    (or a bare serial fraction); ``base_label`` states the base case and its absolute value,
    printed under the panel, wrapped at ``wrap`` characters (R1).  ``hue_order`` (default: the levels
    here) fixes each level's colour, so that panels drawn one by one agree; ``legend=False`` leaves the
    measured series to :func:`shared_legend` and keeps only this panel's fits in a legend of its own.
    """
    if kind not in ("strong", "weak"):
        raise ValueError(f"kind must be 'strong' or 'weak', not {kind!r}")
    ax = _axes(ax)
    hues = list(dict.fromkeys(summary[hue].astype(str))) if hue else [None]
    colours = {level: colour for level, (colour, _) in series_styles(hue_order or [str(h) for h in hues]).items()}
    pmax = max(float(summary[x].max()), 2.0)
    grid = np.linspace(1.0, pmax, 200)
    if kind == "strong":
        ax.plot(grid, grid, linestyle="--", color="0.45", linewidth=1, label="ideal (linear)")
    else:
        ax.axhline(1.0, linestyle="--", color="0.45", linewidth=1, label="ideal (constant)")
    fits = []
    for level in hues:
        part = summary if level is None else summary[summary[hue].astype(str) == level]
        colour = colours.get(str(level), "C0")
        yerr = None
        if low and high:
            centre = part[y].to_numpy(float)
            yerr = [np.clip(centre - part[low].to_numpy(float), 0, None),
                    np.clip(part[high].to_numpy(float) - centre, 0, None)]
        ax.errorbar(part[x].to_numpy(float), part[y].to_numpy(float), yerr=yerr, fmt="o", linestyle="none",
                    capsize=3, color=colour, label=level or "measured")
        if amdahl_fits and level in amdahl_fits and kind == "strong" and part[x].nunique() >= MIN_MODEL_LEVELS:
            fits += ax.plot(grid, amdahl(grid, *_fraction(amdahl_fits[level])), linestyle=":", color=colour,
                            linewidth=1.2, label=_fit_label(level, amdahl_fits[level][0], part[x].nunique()))
    ax.set_xlabel("processing elements (ranks × threads)")
    ax.set_xticks(sorted(set(summary[x].astype(int))))
    ax.set_ylabel("speedup over the base case" if kind == "strong" else "efficiency T(1)/T(p)")  # short: fits a panel
    ax.set_title(title or f"{kind} scaling", fontsize="small")
    if base_label:
        ax.annotate("\n".join(textwrap.fill(part, wrap) for part in base_label.split("; ")), xy=(0, 0),
                    xycoords="axes fraction", xytext=(0, -42), textcoords="offset points", va="top", ha="left",
                    fontsize="x-small", color="0.2", gid=NOTE)
    if legend or fits:
        ax.legend(handles=None if legend else fits, fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  borderaxespad=0)
    ax.set_ylim(bottom=0)
    return ax


def _fraction(fit_and_scale) -> tuple[float, float]:
    fit, scale = fit_and_scale
    return float(getattr(fit, "serial_fraction", fit)), scale


def _fit_label(level: str, fit, levels: int) -> str:
    """What an Amdahl line is fitted to, its serial fraction and that fraction's CI (legend text)."""
    points = f"{fit.n} runs at {levels} counts" if hasattr(fit, "n") else f"{levels} counts"
    label = f"{level}: Amdahl fit to {points}, serial fraction {float(getattr(fit, 'serial_fraction', fit)):.3f}"
    if getattr(fit, "ci", None):
        label += f" (CI {fit.ci[0]:.2f}–{fit.ci[1]:.2f})"
    return label


def shared_legend(fig: plt.Figure, axes: Sequence) -> None:
    """One legend above the panels for the series they share (the first handle of each label: colours are
    fixed per level, see ``hue_order``), so no panel gives up width to a legend of its own; entries of a
    panel's own legend (its fits) stay there."""
    entries: dict[str, object] = {}
    for ax in axes:
        own = {text.get_text() for text in ax.get_legend().get_texts()} if ax.get_legend() else set()
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in own and not label.startswith("_"):
                entries.setdefault(label, handle)
    order = sorted(entries, key=lambda label: (not label.startswith("ideal"), label))  # the reference line first
    if entries:
        fig.legend([entries[label] for label in order], order, loc="lower center", bbox_to_anchor=(0.5, 1.0),
                   ncol=min(len(entries), 6), fontsize="small", frameon=False)


def roofline(points: pd.DataFrame, intensity: str, performance: str, *, bandwidth: float | None,
             peak: float | None, hue: str | None = None, style: str | None = None, ax=None, title: str | None = None,
             bandwidth_label: str = "measured bandwidth", peak_label: str = "measured peak"):
    """Roofline in GFlop/s over flop/byte: the measured bounds as lines, kernels as points (R11).

    ``bandwidth`` is in GB/s and ``peak`` in GFlop/s; either may be None (not measured).
    """
    ax = _axes(ax)
    finite = points[np.isfinite(points[intensity]) & (points[intensity] > 0) & (points[performance] > 0)]
    lo = float(finite[intensity].min()) / 4 if not finite.empty else 0.01
    hi = float(finite[intensity].max()) * 4 if not finite.empty else 100.0
    if bandwidth and peak:
        lo, hi = min(lo, peak / bandwidth / 8), max(hi, peak / bandwidth * 8)
    grid = np.geomspace(lo, hi, 200)
    if bandwidth:
        roof = grid * bandwidth if not peak else np.minimum(grid * bandwidth, peak)
        ax.plot(grid, roof, color="0.2", linewidth=1.5,
                label=f"{bandwidth_label} {bandwidth:.3g} GB/s" + (f", {peak_label} {peak:.3g} GFlop/s" if peak else ""))
    elif peak:
        ax.axhline(peak, color="0.2", linewidth=1.5, label=f"{peak_label} {peak:.3g} GFlop/s")
    if not finite.empty:
        sns.scatterplot(data=finite, x=intensity, y=performance, hue=hue, style=style or hue, s=45, ax=ax)
        _above_the_roof(ax, finite, intensity, performance, bandwidth, peak)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (flop/byte, log scale)")
    ax.set_ylabel("performance (GFlop/s, log scale)")
    ax.set_title(title or "roofline with this machine's measured bounds")
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return ax


def _above_the_roof(ax, points: pd.DataFrame, intensity: str, performance: str, bandwidth: float | None,
                    peak: float | None) -> int:
    """Ring and note the points above the measured roof: their data stayed in cache, which the bound's
    large arrays do not (a roof measured from memory bounds memory-resident runs only).  Returns how many."""
    if not bandwidth and not peak:
        return 0
    x = points[intensity].to_numpy(float)
    roof = np.minimum(x * bandwidth if bandwidth else np.inf, peak if peak else np.inf)
    above = points[performance].to_numpy(float) > roof
    if above.any():
        ax.scatter(x[above], points[performance].to_numpy(float)[above], s=160, facecolors="none", edgecolors="0.1",
                   linewidths=1.0, label="above the measured roof: data held in cache")
    return int(above.sum())


def series_styles(levels: Sequence) -> dict:
    """A (colour, line style) per level, stable across panels: colour-blind palette, styles cycled beside it."""
    levels = list(dict.fromkeys(map(str, levels)))
    colours = sns.color_palette("colorblind", n_colors=10)
    return {level: (colours[i % 10], DASHES[i % len(DASHES)]) for i, level in enumerate(levels)}


def latency_cdf(data: pd.DataFrame, value: str, hue: str | None = None, *,
                percentiles: Sequence[float] = (50, 90, 99), ax=None, log: bool = True,
                xlabel: str | None = None, title: str | None = None, hue_order: Sequence | None = None):
    """Empirical CDF (an exact step function) with the reported percentiles marked (R8).

    Each hue level keeps one colour and line style (``hue_order``, default sorted), so panels agree
    and nine series stay apart; the legend goes outside the data.
    """
    ax = _axes(ax)
    groups = list(data.groupby(hue, observed=True)) if hue else [("all", data)]
    styles = series_styles(hue_order or sorted(str(level) for level, _ in groups))
    for level, part in groups:
        values = np.sort(part[value].to_numpy(float))
        values = values[np.isfinite(values)]
        if values.size == 0:
            continue
        colour, dash = styles.get(str(level), ("0.3", "-"))
        ax.step(values, np.arange(1, values.size + 1) / values.size, where="post", color=colour, linestyle=dash,
                linewidth=1.2, label=str(level))
        marks = np.percentile(values, percentiles)
        ax.plot(marks, np.asarray(percentiles) / 100.0, "x", color=colour, markersize=5, label="_marks")
    if log:
        ax.set_xscale("log")
    for q in percentiles:
        ax.axhline(q / 100.0, color="0.8", linewidth=0.6, zorder=0)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(xlabel or value)
    ax.set_ylabel("fraction of queries at or below")
    ax.set_title(title or f"latency CDF, percentiles {', '.join(f'p{q:g}' for q in percentiles)} marked (x)")
    if hue:
        ax.legend(title=hue, fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return ax


def quantile_lines(ax, x, y, quantiles: Sequence[float] = (0.5, 0.9, 0.99), *, confidence: float | None = None) -> dict:
    """Quantile regression of log10(y) on x, drawn as 10**fit between the smallest and largest x measured.

    A linear fit of y on a log axis plunges to negative values off the data; on log y it stays
    positive and is the model the axis shows.  Returns the fits (``twelveways.stats``; their slope
    is in log10 units of y per unit of x; ``confidence`` None: the schema's).  Raises StatisticsError where the
    data cannot support one.
    """
    from . import stats

    xs, ys = np.asarray(x, float), np.asarray(y, float)
    keep = np.isfinite(xs) & np.isfinite(ys) & (ys > 0)
    fits = stats.quantile_regression(xs[keep], np.log10(ys[keep]), quantiles=quantiles,
                                     confidence=resolve_confidence(confidence))
    grid = np.linspace(xs[keep].min(), xs[keep].max(), 50)
    styles = series_styles([f"p{q * 100:g}" for q in fits])
    for q, line in fits.items():
        colour, dash = styles[f"p{q * 100:g}"]
        ax.plot(grid, 10 ** line.predict(grid), color=colour, linestyle=dash,
                label=f"p{q * 100:g} (QuantReg on log latency)")  # n goes in the panel's title: one legend serves all
    ax.set_yscale("log")
    return fits
