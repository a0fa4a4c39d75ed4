"""The samples of each configuration of a side, keyed so that both sides line up.

Why: "the same configuration" must mean the same thing on both sides — the schema's naming
columns (benchmark, workload, implementation, ranks, threads, size, precision, metric, unit)
plus the extra factors both sides' files declare (scenario, dataset, scaling, ...).  Samples are
what a summary may use (valid, not the warm-up iteration); where a run stores both per-rank and
whole-run rows, the whole-run rows are the configuration's samples (as the checklist does).
Only metrics with a direction are compared: costs and rates (faster / slower) and qualities;
per-run summaries of other rows (a file's ``derived_metrics``, percentiles, ``*_mean``) are
left out, since their samples are compared directly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import resultset, results

#: Kinds a comparison judges (a count, a curve or an unnamed kind has no "better").
COMPARED_KINDS = ("cost", "rate", "quality")
#: Factors implied by the others (sizes, timers): kept in the key, left out of a label.
LABEL_HIDDEN = ("timer", "base_size")
LABEL_HIDDEN_SUFFIXES = ("_per_iteration",)
NAMING = ("benchmark", "workload", "implementation", "ranks", "threads", "size", "precision", "metric", "unit")


@dataclass(frozen=True)
class Samples:
    """One configuration's samples on one side."""

    key: tuple
    kind: str
    values: np.ndarray
    runs: int
    groups: tuple[np.ndarray, ...] = ()  # the values of each run (invocation): the replicates of this side

    def replicates(self) -> tuple[np.ndarray, ...]:
        """One array per invocation; without run ids every value is taken as its own invocation."""
        return self.groups or tuple(np.atleast_1d(v) for v in self.values)


def source_family(source: resultset.ResultSource) -> str:
    """The family a file's configurations are keyed under: its attr, else its first row's benchmark."""
    return source.family or str(source.frame["benchmark"].iloc[0] if len(source.frame) else "")


def family_columns(*datas: resultset.ResultSet) -> dict[str, list[str]]:
    """{family: naming columns plus the extra factors its files declare that all its files hold}."""
    sources: dict[str, list[resultset.ResultSource]] = {}
    for data in datas:
        for source in data.raw_sources:
            sources.setdefault(source_family(source), []).append(source)
    columns = {}
    for family, members in sources.items():
        extra: list[str] = []
        for source in members:
            extra += [c for c in source.factor_columns if c not in NAMING and c != "rank" and c not in extra]
        columns[family] = list(NAMING) + [c for c in extra if all(c in s.frame.columns for s in members)]
    return columns


def _whole_run_rows(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Drop per-rank rows of configurations that also have whole-run rows (rank -1)."""
    whole = frame["rank"] < 0
    if whole.all() or not whole.any():
        return frame
    keys_with_whole = set(map(tuple, frame.loc[whole, columns].astype(str).to_numpy()))
    has_whole = [tuple(row) in keys_with_whole for row in frame[columns].astype(str).to_numpy()]
    return frame[whole | ~pd.Series(has_whole, index=frame.index)]


def _source_samples(source: resultset.ResultSource, family: str, columns: list[str]) -> dict[tuple, Samples]:
    frame = source.frame.assign(_kind=source.kinds)
    derived = {m for m in frame["metric"].unique() if source.is_derived(str(m))}
    frame = frame[results.summarizable_mask(frame) & frame["_kind"].isin(COMPARED_KINDS)
                  & ~frame["metric"].isin(derived)]
    frame = frame[np.isfinite(pd.to_numeric(frame["value"], errors="coerce"))]
    frame = _whole_run_rows(frame, columns)
    found = {}
    for values, rows in frame.groupby(columns, sort=True, dropna=False):
        key = (("family", family), *zip(columns, (plain(v) for v in values)))
        groups = tuple(g.to_numpy(dtype=float) for _, g in rows.groupby("run_id", sort=True)["value"])
        found[key] = Samples(key, str(rows["_kind"].iloc[0]), rows["value"].to_numpy(dtype=float),
                             int(rows["run_id"].nunique()), groups)
    return found


def samples(data: resultset.ResultSet, columns: dict[str, list[str]]) -> dict[tuple, Samples]:
    """{configuration key ((column, value) pairs): its samples} for the compared kinds."""
    table: dict[tuple, Samples] = {}
    for source in data.raw_sources:
        family = source_family(source)
        for key, found in _source_samples(source, family, columns[family]).items():
            if key in table:  # the same configuration in two files of one side: pool its samples
                found = Samples(key, found.kind, np.concatenate([table[key].values, found.values]),
                                table[key].runs + found.runs, table[key].groups + found.groups)
            table[key] = found
    return table


def plain(value):
    """Numpy scalars to Python values; NaN (a column another family's rows fill) to None; whole floats to int."""
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float):
        if value != value:
            return None
        if value.is_integer():
            return int(value)
    return value


def varying(keys) -> set[tuple[str, str]]:
    """(family, column) pairs whose value differs between configurations: the factors a label shows."""
    seen: dict[tuple[str, str], set] = {}
    for key in keys:
        named = dict(key)
        for column, value in key[1:]:
            seen.setdefault((named["family"], column), set()).add(str(value))
    return {pair for pair, values in seen.items() if len(values) > 1}


def label(key: tuple, shown: set[tuple[str, str]] | None = None) -> str:
    """A configuration as a reader reads it: workload implementation, resources, size, precision,
    the extra factors that vary within its family, then the metric with its unit."""
    named = dict(key)
    if named.get("config_id"):  # the training benchmark names a whole configuration in one identifier
        unit = f" [{named['unit']}]" if named.get("unit") else ""
        return f"{named['config_id']}: {named.get('metric', '')}{unit}"
    parts = [str(named.get("workload", "")), str(named.get("implementation", ""))]
    ranks, threads = named.get("ranks"), named.get("threads")
    if ranks not in (None, "", 1) or threads not in (None, "", 1):
        parts.append(f"{ranks}x{threads}")
    if named.get("size") not in (None, "", 0):
        parts.append(f"size {named['size']}")
    if named.get("precision") not in (None, ""):
        parts.append(str(named["precision"]))
    family = named.get("family")
    parts += [f"{c}={v}" for c, v in key[1:] if c not in NAMING and v not in (None, "", -1)
              and c not in LABEL_HIDDEN and not c.endswith(LABEL_HIDDEN_SUFFIXES)
              and (shown is None or (family, c) in shown)]
    unit = f" [{named['unit']}]" if named.get("unit") else ""
    return " ".join(p for p in parts if p) + f": {named.get('metric', '')}{unit}"
