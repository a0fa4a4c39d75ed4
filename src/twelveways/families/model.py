"""What a benchmark family declares: the one place the rules, notebooks, report and checklist read.

Kept free of imports from the rest of the package so that every stage (and the Snakefile, at
parse time) can read a declaration without pulling a benchmark's dependencies in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Family:
    """One benchmark family (or the environment capture), stated once.

    ``stage`` is the config key ``stages.<stage>`` that switches it on (None: always on) and the
    value of the rows' ``benchmark`` column; ``results`` are its raw files under ``results/``, main
    file first; ``levels`` the factor levels it can run (SC15 R2: a level left out needs a reason);
    ``analysis`` the module its notebook ``notebooks/<notebook>.py`` builds on.  ``suite``: its
    workloads are a fixed published set (the PRK), so a results file of this benchmark that states
    no ``levels_available`` (someone else's) is still judged against them (R2).
    """

    name: str
    stage: str | None
    notebook: str
    results: tuple[str, ...] = ()
    levels: Mapping[str, tuple] = field(default_factory=dict)
    analysis: str | None = None
    figures: Figures | None = None
    suite: bool = False
    title: str = ""  # the experiment as the appendix names it
    rules: tuple[str, ...] = ()  # the Snakemake rules that run it, in order
    needs: str = ""  # what it needs from another experiment
    headline: Headline | None = None  # its rows in the report's first screen (None: none)

    @property
    def outputs(self) -> tuple[str, ...]:
        """Its results files and the notebook's derived file, as paths under the workflow's directory."""
        return tuple(f"results/{name}" for name in self.results) + ((f"results/{self.derived_file}",)
                                                                     if self.derived_file else ())

    @property
    def source(self) -> str:
        """The notebook's jupytext file under ``notebooks/``."""
        return f"{self.notebook}.py"

    @property
    def results_file(self) -> str | None:
        """The main results file (its presence makes the notebook worth running)."""
        return self.results[0] if self.results else None

    @property
    def derived_file(self) -> str | None:
        """``derived/<stage>.nc``: what a benchmark family's notebook derives (None for the environment)."""
        return f"derived/{self.stage}.nc" if self.stage else None

    @property
    def section(self) -> str:
        """The title of its notebook's section in the report (its figures' category in Snakemake's report)."""
        return self.figures.category if self.figures else self.notebook.title()

    @property
    def workloads(self) -> tuple:
        """The benchmarks (kernels, models) the family can run."""
        return tuple(self.levels.get("workload", ()))


@dataclass(frozen=True)
class Figures:
    """Where Snakemake's report files a notebook's figures: the caption (relative to workflow/rules) and category."""

    caption: str
    category: str


@dataclass(frozen=True)
class Headline:
    """What a family shows on the report's first screen, so the report and a reproduction never branch on its name.

    One row per ``group(filters)``: the summary of ``metric`` with one of ``statistics`` (first: preferred) and the
    best value, named by ``describe(filters)`` (a function, or ``"module:function"`` where naming needs the family's
    own code), its value in ``unit``, linked to the notebook's figure ``figure``.  ``bounds``: the results file of the
    machine's measured bounds, for the "of its bound" column (None: no bound defined).  ``table``: the family's own
    table (``"module:function"``) shown instead of rows of the common one.
    """

    title: str
    statistics: tuple[str, ...]
    metric: str
    unit: str
    figure: str
    group: Callable[[Mapping], tuple]
    describe: Callable[[Mapping], str] | str
    bounds: str | None = None
    table: str | None = None


def by_filters(*names: str) -> Callable[[Mapping], tuple]:
    """A headline grouping by the values of the named filters (``workload``: one row per workload)."""
    return lambda filters: tuple(str(filters.get(name, "")) for name in names)
