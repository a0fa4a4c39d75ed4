"""The key results a report leads with and a reproduction re-checks: one summary per family and group.

Why here, below both: the report's first screen (:mod:`twelveways.report.headline`) and a reproduction
(:mod:`twelveways.compare.reproduce`) must pick the same configurations and name them the same way,
and each family's declaration (:class:`twelveways.families.model.Headline`) says how, so neither
branches on a family's name.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from .evidence import summary as stated_summary
from .evidence.summary import StatedSummary
from .families import FAMILIES, Family, staged

#: Factors a configuration's words leave out (constants of a run, or the row's position in it).
HIDDEN_FILTERS = {"benchmark", "radius", "tile", "base_size", "iteration", "rank_reduction"}
MAX_ROWS = 12


def hook(target: Callable | str) -> Callable:
    """A declaration's function: given, or named ``"module:function"`` (where it needs the family's own code)."""
    if callable(target):
        return target
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def headline_families() -> list[Family]:
    """The families with headline rows, in report order."""
    return [family for family in staged() if family.headline is not None]


def load_summaries(derived_dir: str | os.PathLike | None, *, strict: bool = False
                   ) -> list[tuple[str, StatedSummary]]:
    """(family, summary) for every summary with a value of every family's derived file in ``derived_dir``, each
    checked on load (:func:`twelveways.evidence.summary.load`).  ``strict``: a damaged derived file or entry is an
    error (a comparison must not read "no derived results" into it); else a damaged file is passed over and a
    damaged entry left out."""
    from . import results
    from .errors import ResultsError
    from .evidence import attributes

    found = []
    folder = Path(derived_dir) if derived_dir else None
    for family in headline_families():
        path = folder / Path(family.derived_file).name if folder else None
        if path is None or not path.is_file():
            continue
        try:
            value = attributes.from_attrs(results.open(path).attrs, str(path)).summaries or []
            if not isinstance(value, list):
                raise ResultsError("attribute 'summaries' is not a list of objects")
            summaries, left_out = stated_summary.load(value, str(path))
            if strict and left_out:
                raise ResultsError(left_out[0])
        except Exception as exc:  # a damaged derived file must not stop the report; the checklist judges it
            if strict:
                raise ResultsError(f"{path}: damaged derived results", cause=exc) from exc
            continue
        found += [(family.name, s) for s in summaries if s.value is not None]
    return found


def configuration(filters: Mapping) -> str:
    """All factors of the raw rows behind a summary, ``name=value`` (what selects them in the results file)."""
    return ", ".join(f"{k}={v}" for k, v in filters.items() if k not in HIDDEN_FILTERS and v not in (-1, "", None))


def short_configuration(family: str, filters: Mapping) -> str:
    """The key configuration in a few words, as the family's declaration names it (else every factor)."""
    declared = FAMILIES[family].headline
    words = hook(declared.describe)(filters) if declared else None
    return words or configuration(filters)


def key_rows(summaries: Sequence[tuple[str, StatedSummary]]) -> list[tuple[str, StatedSummary]]:
    """One summary per family and group (workload, scenario): the configuration with the best value."""
    chosen = []
    for family in headline_families():
        spec = family.headline
        groups: dict[tuple, list[StatedSummary]] = {}
        for name, s in summaries:
            if name == family.name and s.statistic in spec.statistics and s.metric == spec.metric:
                groups.setdefault(spec.group(s.filters), []).append(s)
        for key in sorted(groups):
            best = min(groups[key], key=lambda s: (s.ci is None, float(s.value)))
            chosen.append((family.name, best))
    return chosen[:MAX_ROWS]
