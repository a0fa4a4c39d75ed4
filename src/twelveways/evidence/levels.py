"""Replicate levels: which column counts independent replicates, and which only describe one.

Kalibera & Jones: replicates are counted at the outermost random level (processes or
invocations, LoadGen runs, training seeds); iterations, queries and a process's inner values
describe one replicate and never multiply n.  A file states its nesting (attr ``nesting``,
outermost first, or ``ci_level``); without one the outermost level is the first of
:data:`OUTER_CANDIDATES` that the rows carry with more than one value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

#: columns that can identify one independent replicate, outermost first
OUTER_CANDIDATES = ("seed", "invocation", "run_id")
#: columns that index values inside one replicate
INNER_CANDIDATES = ("iteration", "repetition", "query", "warmup_index")


@dataclass(frozen=True)
class Replicates:
    """The outermost level rows are independent at, the inner levels, and how many replicates there are."""

    outer: str | None
    inner: tuple[str, ...]
    n: int
    basis: str

    def describe(self) -> str:
        inner = f" ({', '.join(self.inner)} inside each)" if self.inner else ""
        return f"{self.n} independent {self.outer or 'replicate'}(s){inner}: {self.basis}"


def replicates(rows: pd.DataFrame, attrs: Mapping | None = None) -> Replicates:
    """The replicate structure of ``rows`` (one configuration's rows) from the file's declared nesting, else its columns."""
    attrs = attrs or {}
    nesting = attrs.get("nesting")
    declared = [str(x) for x in nesting] if isinstance(nesting, (list, tuple)) and nesting else []
    if not declared and attrs.get("ci_level"):
        declared = [str(attrs["ci_level"])]
    inner = tuple(c for c in INNER_CANDIDATES if c in rows.columns and rows[c].nunique() > 1)
    if declared and declared[0] in rows.columns:
        outer = declared[0]
        basis = "the file's declared nesting"
    else:
        present = [c for c in OUTER_CANDIDATES if c in rows.columns and _distinct(rows[c]) > 1]
        outer = present[0] if present else None
        basis = "the first replicate column with more than one value" if outer else "no replicate column varies"
    n = _distinct(rows[outer]) if outer else 1
    return Replicates(outer, tuple(c for c in inner if c != outer), n, basis)


def _distinct(column: pd.Series) -> int:
    values = column.dropna()
    values = values[~values.astype(str).isin(["", "-1"])]
    return int(values.nunique())
