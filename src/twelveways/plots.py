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
import textwrap
from collections.abc import Mapping, Sequence
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
        parts.append(text)
    return ". ".join(parts)[:900] + "."


def _overlaps(labels) -> bool:
    boxes = [label.get_window_extent() for label in labels if label.get_visible() and label.get_text()]
    return any(a.overlaps(b) for a, b in zip(boxes, boxes[1:]))


def readable_ticks(fig: plt.Figure) -> None:
    """Numeric tick labels that collide (``10000120001400016000``) are thinned, then rotated."""
    from matplotlib.ticker import MaxNLocator

    fig.canvas.draw()
    for ax in fig.axes:
        labels = ax.get_xticklabels()
        if not _overlaps(labels):
            continue
        if ax.get_xscale() == "linear" and all(_numeric(label.get_text()) for label in labels if label.get_text()):
            ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
            fig.canvas.draw()
            labels = ax.get_xticklabels()
        if _overlaps(labels):
            plt.setp(labels, rotation=30, ha="right", rotation_mode="anchor")


def _numeric(text: str) -> bool:
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
            value = np.asarray(getattr(handle, getter)())
        except (AttributeError, TypeError, ValueError):
            continue
        if value.size:
            return tuple(np.round(to_rgba(value.reshape(-1, value.shape[-1])[0] if value.ndim > 1 else value), 3))
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
        ax.legend(*ax.get_legend_handles_labels(), fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.22),
                  frameon=False)


def _render(fig: plt.Figure, name: str) -> tuple[bytes, pd.DataFrame, str]:
    """PNG bytes, the data behind it and its alt text, after making ticks and legends readable."""
    import io

    legends_outside(fig)
    readable_ticks(fig)
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


def _display(png: bytes, name: str, alt: str, path: Path | None) -> None:
    """Show the PNG in a notebook with its alt text and CSV path in the output metadata (the report reads them)."""
    try:
        from IPython import get_ipython
        from IPython.display import Image, display
    except ImportError:
        return
    if get_ipython() is not None:
        meta = {"alt": alt, "twelveways": {"figure": str(name), "alt": alt,
                                          "csv": str(path.with_suffix(".csv")) if path else ""}}
        display(Image(data=png, format="png"), metadata={"image/png": {"alt": alt}, **meta})


class FigurePath(type(Path())):
    """The saved figure's path; shows as a plain path, never as ``PosixPath('…')``, when a cell ends with it."""

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(f"figure saved: {self}")


def save(fig: plt.Figure, figures_dir: str | os.PathLike | None, name: str, *,
         declaration: Mapping | None = None) -> Path | None:
    """Write ``fig`` as ``<figures_dir>/<name>.png`` with the data behind it as ``<name>.csv``, display it
    once with a real alt text (in a notebook) and close it, so a following ``plt.show()`` draws nothing twice.

    ``declaration`` ({shows, lines, x, x_kind}) is recorded with :func:`declare` under ``name``.
    """
    if declaration is not None:
        declare(name, **declaration)
    png, data, alt = _render(fig, name)
    path = _write(figures_dir, name, png, data)
    _display(png, name, alt, path)
    plt.close(fig)
    return FigurePath(path) if path else None


def show(fig: plt.Figure, figures_dir: str | os.PathLike | None = None, name: str | None = None, *,
         declaration: Mapping | None = None) -> Path | None:
    """Render ``fig`` once as PNG, save it with its CSV (when a folder is given) and display it.

    ``declaration`` ({shows, lines, x, x_kind}) is recorded with :func:`declare` under ``name``.
    """
    if declaration is not None and not name:
        raise ResultsError("a declared figure needs a name")
    return save(fig, figures_dir, name or "figure", declaration=declaration) if name else \
        _show_unnamed(fig)


def _show_unnamed(fig: plt.Figure) -> None:
    png, _, alt = _render(fig, "figure")
    _display(png, "figure", alt, None)
    plt.close(fig)


def _axes(ax):
    if ax is None:
        _, ax = plt.subplots()
    return ax


def distribution(data: pd.DataFrame, x: str, y: str, hue: str | None = None, *, order: Sequence | None = None,
                 ax=None, log: bool = False, ylabel: str | None = None, title: str | None = None):
    """Every sample as a point, over a violin (enough points) or a box (few points)."""
    ax = _axes(ax)
    if data.empty:
        ax.text(0.5, 0.5, "no valid samples", ha="center", va="center", transform=ax.transAxes)
        return ax
    groups = data.groupby([x] + ([hue] if hue else []), observed=True)[y].size()
    common = dict(data=data, x=x, y=y, hue=hue, order=order, ax=ax, log_scale=10 if log else None)
    if int(groups.min()) >= MIN_VIOLIN_POINTS:
        sns.violinplot(**common, cut=0, inner=None, density_norm="width", fill=True, linewidth=0.6,
                       alpha=0.35, legend=False)
    else:
        sns.boxplot(**common, showfliers=False, fill=False, linewidth=0.8, legend=False)
    sns.stripplot(**common, dodge=bool(hue), jitter=0.2, size=3, alpha=0.75, linewidth=0,
                  legend=bool(hue))
    ax.set_ylabel(ylabel or y)
    if title:
        ax.set_title(title)
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right", rotation_mode="anchor")
    return ax


def ci_bars(summary: pd.DataFrame, x: str, estimate: str, low: str, high: str, hue: str | None = None, *,
            ax=None, log: bool = False, ylabel: str | None = None, title: str | None = None,
            label_ci: str = "95% CI of the median"):
    """Point estimates with CI bars per category, deliberately not joined by lines (R12)."""
    ax = _axes(ax)
    categories = list(dict.fromkeys(summary[x].astype(str)))
    positions = {name: i for i, name in enumerate(categories)}
    hues = list(dict.fromkeys(summary[hue].astype(str))) if hue else [None]
    palette = sns.color_palette(n_colors=max(len(hues), 1))
    width = 0.6
    for i, level in enumerate(hues):
        part = summary if level is None else summary[summary[hue].astype(str) == level]
        offset = 0.0 if len(hues) == 1 else -width / 2 + width * (i + 0.5) / len(hues)
        xs = np.array([positions[str(v)] for v in part[x]]) + offset
        centre = part[estimate].to_numpy(float)
        lower = np.clip(centre - part[low].to_numpy(float), 0, None)
        upper = np.clip(part[high].to_numpy(float) - centre, 0, None)
        ax.errorbar(xs, centre, yerr=[lower, upper], fmt="o", linestyle="none", capsize=3, color=palette[i],
                    label=level)
    ax.set_xticks(range(len(categories)), categories, rotation=30, ha="right", rotation_mode="anchor")
    ax.set_xlim(-0.5, len(categories) - 0.5)
    if log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)  # differences are read against zero, not against an arbitrary floor
    ax.set_ylabel(ylabel or estimate)
    ax.set_title(title or f"median with {label_ci}")
    if hue:
        ax.legend(title=hue, fontsize="small")
    return ax


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
            amdahl_fits: Mapping[str, tuple[float, float]] | None = None, ax=None, title: str | None = None):
    """Strong (speedup) or weak (efficiency) scaling: measured points with CI, ideal and Amdahl lines.

    ``amdahl_fits`` maps a hue level to ``(fit, scale)``, ``fit`` a ``twelveways.stats.AmdahlFit``
    (or a bare serial fraction); ``base_label`` states the base case and its absolute value,
    printed on the figure (R1).
    """
    if kind not in ("strong", "weak"):
        raise ValueError(f"kind must be 'strong' or 'weak', not {kind!r}")
    ax = _axes(ax)
    hues = list(dict.fromkeys(summary[hue].astype(str))) if hue else [None]
    palette = dict(zip(hues, sns.color_palette(n_colors=max(len(hues), 1))))
    pmax = max(float(summary[x].max()), 2.0)
    grid = np.linspace(1.0, pmax, 200)
    if kind == "strong":
        ax.plot(grid, grid, linestyle="--", color="0.45", linewidth=1, label="ideal (linear)")
    else:
        ax.axhline(1.0, linestyle="--", color="0.45", linewidth=1, label="ideal (constant)")
    for level in hues:
        part = summary if level is None else summary[summary[hue].astype(str) == level]
        yerr = None
        if low and high:
            centre = part[y].to_numpy(float)
            yerr = [np.clip(centre - part[low].to_numpy(float), 0, None),
                    np.clip(part[high].to_numpy(float) - centre, 0, None)]
        ax.errorbar(part[x].to_numpy(float), part[y].to_numpy(float), yerr=yerr, fmt="o", linestyle="none",
                    capsize=3, color=palette[level], label=level or "measured")
        levels = part[x].nunique()
        if amdahl_fits and level in amdahl_fits and kind == "strong" and levels >= MIN_MODEL_LEVELS:
            fit, scale = amdahl_fits[level]
            fraction = float(getattr(fit, "serial_fraction", fit))
            points = f"{fit.n} runs at {levels} counts" if hasattr(fit, "n") else f"{levels} counts"
            label = f"{level}: Amdahl fit to {points}, serial fraction {fraction:.3f}"
            if getattr(fit, "ci", None):
                label += f" (CI {fit.ci[0]:.2f}–{fit.ci[1]:.2f})"
            ax.plot(grid, amdahl(grid, fraction, scale), linestyle=":", color=palette[level], linewidth=1.2,
                    label=label)
    ax.set_xlabel("processing elements (ranks × threads)")
    ax.set_xticks(sorted(set(summary[x].astype(int))))
    ax.set_ylabel("speedup over the base case" if kind == "strong" else "weak-scaling efficiency T(1)/T(p)")
    heading = title or f"{kind} scaling"
    if base_label:
        heading += "\n" + "\n".join(textwrap.fill(part, 90) for part in base_label.split("; "))
    ax.set_title(heading, fontsize="small")
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax.set_ylim(bottom=0)
    return ax


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
                label=f"p{q * 100:g} (QuantReg on log latency, n={line.n})")
    ax.set_yscale("log")
    return fits
