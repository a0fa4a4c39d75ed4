"""Run the analysis notebooks in this process on a stored result set and keep every figure they draw.

papermill runs a notebook in a kernel of its own, where a test cannot reach the matplotlib
figures; here each code cell of the jupytext source runs in one namespace (the parameters
injected after the ``parameters`` cell, as papermill does), and every figure that reaches
``plots._render`` (the one path from ``plots.save``/``plots.show`` to a PNG) is measured at that
moment, when it is final.  Command line: ``python tests/notebook_figures.py [data/reference]``
prints each figure's colliding tick labels.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]


def _parameters(name: str, layout: dict, output: Path) -> dict:
    from twelveways.report import notebooks as nb

    params = {key: str(value) for key, value in layout.items() if value is not None}
    params["figures_dir"] = str(output / "figures" / name)
    if nb.derived_file(name):
        params["derived_path"] = str(output / nb.derived_file(name))
    return params


def _run_cells(source: Path, params: dict) -> None:
    import jupytext

    namespace: dict = {"__name__": f"notebook_{source.stem}"}
    for cell in jupytext.read(source).cells:
        if cell.cell_type != "code":
            continue
        exec(compile(cell.source, f"{source.name}", "exec"), namespace)  # noqa: S102 - our own notebooks
        if "parameters" in cell.metadata.get("tags", []):
            namespace.update(params)


def notebook_figures(source_set: Path, output: Path, measure: Callable, names: list[str] | None = None) -> dict:
    """``{"notebook/figure": measure(fig)}`` for every figure the notebooks draw on ``source_set``.

    The notebooks run as the report's rebuild runs them (:func:`twelveways.report.commands.plan`), their
    printed output swallowed; ``names`` limits them (default: all that the set supports).
    """
    from twelveways import plots
    from twelveways.report import commands
    from twelveways.report import notebooks as nb

    layout, chosen, _ = commands.plan(Path(source_set))
    measured: dict = {}
    original = plots._render
    for name in names or chosen:
        def spy(fig, figure_name, _notebook=name):
            rendered = original(fig, figure_name)
            measured[f"{_notebook}/{figure_name}"] = measure(fig)
            return rendered

        plots._render = spy
        try:  # the notebooks' plots.setup() changes matplotlib's settings: restored after each
            with contextlib.redirect_stdout(io.StringIO()), matplotlib.rc_context():
                _run_cells(nb.notebook_source(name), _parameters(name, layout, Path(output)))
        finally:
            plots._render = original
            plots.forget_declarations()
            matplotlib.pyplot.close("all")
    return measured


if __name__ == "__main__":
    import tempfile

    from twelveways import plots

    source = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "data" / "reference"
    with tempfile.TemporaryDirectory() as tmp:
        found = notebook_figures(source, Path(tmp), plots.tick_label_collisions, sys.argv[2:] or None)
    for figure, collisions in found.items():
        print(f"{figure}: {len(collisions)} colliding tick-label pairs")
        for line in collisions[:6]:
            print(f"    {line}")
