"""What a benchmark family declares: the one place the rules, notebooks, report and checklist read.

Kept free of imports from the rest of the package so that every stage (and the Snakefile, at
parse time) can read a declaration without pulling a benchmark's dependencies in.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    def workloads(self) -> tuple:
        """The benchmarks (kernels, models) the family can run."""
        return tuple(self.levels.get("workload", ()))


@dataclass(frozen=True)
class Figures:
    """Where Snakemake's report files a notebook's figures: the caption (relative to workflow/rules) and category."""

    caption: str
    category: str
