"""A result set: results files of any format as typed sources (rows + attributes), and their metadata, read-only.

What the checklist, the claims (``twelveways.claims``) and ``twelveways compare`` read, below all
three: :func:`load` opens files or trees through ``twelveways.readers`` (imported when called) into
:class:`ResultSource` objects gathered in one :class:`ResultSet`, which nothing changes once loaded (an
audit keeps its own state apart, ``checklist.model.AuditRun``; compare reads one set per side).  The
results files carry the evidence as rows (one per sample, ``twelveways.results``) and as attributes (typed once, on load,
against the evidence registry: :mod:`twelveways.evidence.attributes`).  The full list of attributes and
columns each check reads is in ``docs/checklist-evidence.md``; the vocabulary shared by several checks is
defined here, in one place:

* metric kinds (:func:`metric_kind`): ``cost`` (time units: s, ms, us, ns, min, h), ``rate``
  (unit ending in ``/s``, or qps/Hz), ``ratio`` (metric named ``*speedup*``, ``*efficiency*``,
  ``ratio``, ``*_ratio``), ``quality`` (``*accuracy*``, ``*loss*``, ``*error_rate*``, ``f1``),
  else ``other``.  The attribute ``metric_kinds`` (JSON ``{metric: kind}``) overrides, and may
  also name ``curve`` (a trajectory such as cumulative wall time per epoch: never summarized) or
  ``count``;
* ``summaries`` attribute: JSON list of stated summaries, each read once into a typed
  :class:`twelveways.evidence.summary.StatedSummary` (:meth:`ResultSource.summaries`; an entry
  that fails its domain is left out with one line, :meth:`ResultSource.summaries_left_out`);
* ``claims`` attribute: JSON list in the claims-file format (``twelveways.claims``);
* per-sample annotation columns that are not factors: :data:`ANNOTATION_COLUMNS`;
* synonyms accepted: ``time_to_train`` for ``time_to_quality``, ``time_per_step`` for
  ``iteration_time``, ``sparsification`` for ``approximation`` (:data:`TIME_TO_QUALITY`,
  :data:`PER_ITERATION_METRICS`, :data:`APPROXIMATION_COLUMNS`);
* the rows of a selection (:func:`select`): summarizable rows (valid, iteration != 0) matching
  ``metric`` and ``filters``; when a selection mixes whole-run rows (``rank == -1``) with
  per-rank rows and the filters do not name ``rank``, only the whole-run rows are used.
"""

from __future__ import annotations

import math
import re
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals
import xarray as xr

from . import inputs, memory, results
from .evidence import attributes, registry
from .evidence import summary as stated_summary
from .evidence import settings
from .env.capture_model import Capture
from .env.capture_model import load as load_capture
from .errors import AuditInputError

TIME_UNITS = {"s": 1.0, "sec": 1.0, "seconds": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9,
              "min": 60.0, "h": 3600.0}
KINDS = ("cost", "rate", "ratio", "quality", "curve", "count", "other")
QUALITY_TOKENS = ("accuracy", "loss", "error_rate", "top1", "top5", "f1_score", "auc")

#: Columns that annotate a sample rather than name a configuration (never used as factors).
ANNOTATION_COLUMNS = {"stop_reason", "flags", "note", "source_file", "environment_hash", "base_case",
                      "base_value", "reached_target", "converged", "learning_rate", "epoch",
                      "samples_seen", "wall_time", "query", "query_id", "timestamp", "loadgen_valid",
                      "percentile", "quantile", "run_order", "params", "status"}
#: Name endings of per-run or per-sample bookkeeping columns (never factors).
ANNOTATION_SUFFIXES = ("_order", "_seq", "_index", "_timestamp", "_run_id")
#: Required columns that identify a configuration (the rest: seed, run_id, iteration, value, valid).
CONFIG_COLUMNS = ("benchmark", "workload", "implementation", "ranks", "threads", "size", "precision",
                  "metric", "unit", "rank")

TRAIN_BENCHMARKS = {"train", "training"}
INFER_BENCHMARKS = {"infer", "inference"}
#: End-to-end time to the quality target, one row per run (MLPerf calls it time_to_train).
TIME_TO_QUALITY = ("time_to_quality", "time_to_train")
TRAIN_METRICS = {"train_loss", "train_accuracy", "epochs_to_quality", "epochs_to_target", *TIME_TO_QUALITY}
END_TO_END_METRICS = {"end_to_end_time", "total_time", *TIME_TO_QUALITY}
PER_ITERATION_METRICS = {"iteration_time", "step_time", "time_per_step", "throughput", "samples_per_second", "epoch_time"}
#: Trajectories (cumulative values along the iteration axis): never summarized as samples.
CURVE_METRICS = {"wall_time", "samples_seen", "elapsed_time", "cumulative_time"}
#: Columns naming an approximation that trades per-iteration cost against convergence (F2).
APPROXIMATION_COLUMNS = ("approximation", "sparsification", "compression")
SUMMARY_SUFFIXES = ("_min", "_max", "_mean", "_median", "_std")
PERCENTILE_RE = re.compile(r"(^|_)p\d{1,2}(\.\d+)?($|_)|percentile|quantile", re.IGNORECASE)

STATISTIC_ALIASES = {"mean": "arithmetic_mean", "amean": "arithmetic_mean", "average": "arithmetic_mean",
                     "arithmetic": "arithmetic_mean", "hmean": "harmonic_mean", "harmonic": "harmonic_mean",
                     "gmean": "geometric_mean", "geometric": "geometric_mean", "olympic": "olympic_mean"}


def normalize_statistic(name) -> str:
    name = str(name or "").strip().lower().replace("-", "_").replace(" ", "_")
    return STATISTIC_ALIASES.get(name, name)


def is_percentile(name: str) -> bool:
    return bool(PERCENTILE_RE.search(str(name or "")))


def metric_kind(metric: str, unit: str = "", overrides: Mapping | None = None) -> str:
    """cost / rate / ratio / quality / other (see the module docstring)."""
    if overrides and metric in overrides:
        return str(overrides[metric])
    name = str(metric).lower()
    if name in CURVE_METRICS:
        return "curve"
    if "speedup" in name or "efficiency" in name or name == "ratio" or name.endswith("_ratio"):
        return "ratio"
    if any(token in name for token in QUALITY_TOKENS):
        return "quality"
    unit = str(unit or "").strip()
    if unit in TIME_UNITS:
        return "cost"
    if unit.endswith("/s") or unit.lower() in ("qps", "hz"):
        return "rate"
    return "other"


def truthy(value) -> bool | None:
    """1/0, true/false, yes/no -> bool; missing/empty -> None."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("1", "true", "yes", "y", "t"):
            return True
        if text in ("0", "false", "no", "n", "f"):
            return False
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return bool(value)


def source_frame(ds: xr.Dataset) -> pd.DataFrame:
    """One file's rows as the checks read them (:func:`source_columns` as a frame)."""
    return pd.DataFrame(source_columns(ds), copy=False)


def source_columns(ds: xr.Dataset) -> dict:
    """One file's columns as the checks read them: ``valid`` as bool, texts as categories (missing as "").

    Why not ``Dataset.to_dataframe``: a round of thousands of files held every text of every row as
    its own string object (about 2 MB of a real-size PRK file's 3 MB).  Here a text column is a
    code per row and each distinct text once (categories in text order, so sorting by the column
    sorts the texts), and each column is its own array, so :attr:`ResultSet.frame` can take a
    file's columns over one at a time and hand back views.
    """
    variables = {name: ds.variables[name] for name in ds.data_vars}  # Variables: no DataArray built per column
    if ds.coords or any(var.ndim != 1 for var in variables.values()):
        frame = results.to_frame(ds)
        columns = {name: frame[name].to_numpy() for name in frame.columns}
    else:
        columns = {name: var.values for name, var in variables.items()}
    for name, values in columns.items():
        if values.dtype.kind in "OUS":
            text = _texts_of_codes(variables[name], values) if name in variables else None
            columns[name] = (texts(values) if text is None else text).array
    columns["valid"] = pd.Series(columns["valid"], copy=False).astype(bool).to_numpy()
    return columns


def texts(values) -> pd.Series:
    """Values as a text column: categories in text order, missing values (None, NaN) as ""."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=True)
    names = [_as_text(u) for u in uniques] + ([""] if (codes < 0).any() else [])  # code -1 takes the last: ""
    categories, code_of = np.unique(np.asarray(names, dtype=object), return_inverse=True)  # sorted; 1 and "1" one
    dtype = pd.CategoricalDtype(pd.Index(categories, dtype="str"))
    return pd.Series(pd.Categorical.from_codes(code_of[codes], dtype=dtype, validate=False))  # codes in range by making


def _texts_of_codes(var: xr.Variable, values: np.ndarray) -> pd.Series | None:
    """:func:`texts` of a string column ``results.open`` decoded from codes, built from its codes and
    category list (a few distinct texts) instead of every row's string; None where the column is not that
    decoding (the values were replaced since)."""
    decoded = var.encoding.get(results.DECODED_FROM_CODES)
    if decoded is None or decoded[0] is not values:
        return None
    _, codes, categories = decoded  # categories end in "" for code -1
    categories, code_of = np.unique(categories, return_inverse=True)  # sorted, duplicates one
    codes = code_of[codes]
    used = np.bincount(codes, minlength=categories.size) > 0  # as texts(): only the texts the rows hold
    renumber = np.cumsum(used) - 1
    dtype = pd.CategoricalDtype(pd.Index(categories[used], dtype="str"))
    return pd.Series(pd.Categorical.from_codes(renumber[codes], dtype=dtype, validate=False))


def _as_text(value) -> str:
    """A value as the text pandas' ``astype(str)`` makes of it (bytes decoded as UTF-8)."""
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)


def per_text(column: pd.Series, function) -> np.ndarray:
    """``function(text)`` of each row's text (``str`` of the value), computed once per distinct text: a
    round's text columns hold millions of rows and few distinct texts."""
    if isinstance(column.dtype, pd.CategoricalDtype) and not (column.cat.codes.to_numpy() < 0).any():
        codes, distinct = column.cat.codes.to_numpy(), column.cat.categories
    else:
        codes, distinct = pd.factorize(column.astype(str), use_na_sentinel=False)
    return np.asarray([function(str(text)) for text in distinct] or [function("")], dtype=object)[codes]


def is_text(column: pd.Series) -> bool:
    """A column of texts: categories (what :func:`source_frame` makes), str or Python objects."""
    return _text_type(column.dtype)


class ResultSource:
    """One results file: its rows as a frame (:func:`source_frame`) and typed access to its attributes.

    The rows are held as columns (name -> numpy array or categories) until something asks for the
    frame; a source travels between processes as its columns only, and :func:`_merge_raw` takes the
    columns of a round's files without building a frame per file.
    """

    def __init__(self, path: str | Path, attrs: dict, frame: pd.DataFrame | None = None, *,
                 columns: dict | None = None):
        self.path, self.attrs = str(path), attrs
        #: The file's declared attributes, typed and checked against the evidence registry once, here (a wrong
        #: type is one AttributeTypeError line naming the file and the attribute): what every consumer reads.
        self.attributes = attributes.from_attrs(attrs, self.path)
        self._frame, self._columns = frame, columns

    @classmethod
    def from_dataset(cls, path: str | Path, ds: xr.Dataset) -> "ResultSource":
        return cls(path, dict(ds.attrs), columns=source_columns(ds))

    def __repr__(self) -> str:
        return f"ResultSource({self.path!r})"

    @property
    def frame(self) -> pd.DataFrame:
        if self._frame is None:  # built once; the frame then holds the columns (it may be changed in place)
            self._frame, self._columns = pd.DataFrame(self._columns or {}, copy=False), None
        return self._frame

    @frame.setter
    def frame(self, frame: pd.DataFrame) -> None:
        self._frame, self._columns = frame, None

    @property
    def rows(self) -> int:
        return len(self.frame) if self._columns is None else len(next(iter(self._columns.values()), ()))

    def _as_columns(self) -> dict:
        if self._columns is not None:
            return self._columns
        return {name: _array(column) for name, column in self.frame.items()}

    def busy_reason(self) -> str | None:
        """"load 4.9 on 2 cores during the PRK stage: rerun on an idle machine" when the file records a busy
        machine (attr ``contention``, :mod:`twelveways.contention`); None when quiet or not recorded."""
        from . import contention

        return contention.busy_reason(self.attributes.contention)

    def take_columns(self) -> dict:
        """The rows as columns (name -> numpy array or categories), which the source then no longer holds."""
        columns = dict(self._as_columns())
        self._frame, self._columns = None, {}
        return columns

    def __getstate__(self) -> dict:
        """Columns, not a frame: a frame costs more to pickle, and the parent may never need this file's."""
        return {**self.__dict__, "_frame": None, "_columns": self._as_columns()}

    @property
    def family(self) -> str:
        return str(self.attributes.family or "")

    @property
    def derived(self) -> bool:
        """A file the analysis stage wrote (attr ``derived``): what the report shows, not samples."""
        return bool(self.attributes.derived)

    def attr(self, key: str, default=None):
        """Attribute ``key`` (canonical name or alias) of :attr:`attributes`, typed; ``default`` when unset.

        For the records other modules have not typed yet (``summaries``, ``claims``): checks, claims, compare and
        the report read fields of :attr:`attributes` (a test keeps attribute strings out of them)."""
        declared = registry.lookup(key)
        if declared is None:
            raise KeyError(f"attribute {key!r} is read by a check but not declared in twelveways.evidence.registry")
        value = getattr(self.attributes, declared.name)
        return default if value is None else value

    @cached_property
    def kind_overrides(self) -> dict:
        return self.attributes.metric_kinds or {}

    def kind(self, metric: str, unit: str = "") -> str:
        return metric_kind(metric, unit, self.kind_overrides)

    def unit_of(self, metric: str) -> str:
        units = self.frame.loc[self.frame["metric"] == metric, "unit"]
        return str(units.iloc[0]) if len(units) else ""

    @cached_property
    def kinds(self) -> pd.Series:
        """Kind of every row (aligned with ``frame``), as categories; each (metric, unit) judged once."""
        pairs = group_codes(self.frame, ["metric", "unit"])
        first = np.unique(pairs, return_index=True)[1]
        names = np.asarray([self.kind(m, u) for m, u in zip(self.frame["metric"].to_numpy()[first],
                                                             self.frame["unit"].to_numpy()[first])] or [""], dtype=object)
        return pd.Series(texts(names[pairs]).array, index=self.frame.index)

    def records(self, key: str) -> list[dict]:
        """The objects of a list attribute (comparisons, figures, bounds; summaries are typed, :meth:`summaries`):
        someone else's file may hold anything there, and an entry that is not an object says nothing a check can use."""
        return attributes.objects(self.attr(key))

    @cached_property
    def _stated(self) -> tuple[tuple[stated_summary.StatedSummary, ...], tuple[str, ...]]:
        return stated_summary.load(self.attr("summaries", []), self.path)

    def summaries(self) -> tuple[stated_summary.StatedSummary, ...]:
        """The file's stated summaries, each checked on load (:mod:`twelveways.evidence.summary`)."""
        return self._stated[0]

    def summaries_left_out(self) -> tuple[str, ...]:
        """One line per entry of ``summaries`` that fails its domain (file, index, field, why): R3 names them."""
        return self._stated[1]

    def summary_kind(self, summary: stated_summary.StatedSummary) -> str:
        if summary.kind:
            return summary.kind
        return self.kind(summary.metric, summary.unit or self.unit_of(summary.metric))

    @cached_property
    def factor_columns(self) -> list[str]:
        """Columns that name a configuration: the required factors plus extra factor columns.

        Extra factors are the attribute ``factors`` (JSON list) when given; otherwise every extra
        string/int/bool column that is not an annotation (:data:`ANNOTATION_COLUMNS`).
        """
        declared = self.attributes.factors
        if declared is not None:
            extra = [c for c in declared if c in self.frame.columns]
        else:
            runs = max(1, int(self.frame["run_id"].nunique()))
            extra = [c for c in self.frame.columns
                     if c not in results.COLUMNS and c not in ANNOTATION_COLUMNS and not c.endswith(ANNOTATION_SUFFIXES)
                     and self.frame[c].nunique(dropna=False) <= runs]
        return list(CONFIG_COLUMNS) + extra

    def is_derived(self, metric: str) -> bool:
        """A per-run summary of other rows (attr derived_metrics, a percentile, *_mean/_min/...)."""
        return (metric in (self.attributes.derived_metrics or []) or is_percentile(metric)
                or str(metric).endswith(SUMMARY_SUFFIXES))

    def column(self, name: str) -> pd.Series:
        """A column, or an empty-string column when the file lacks it."""
        if name in self.frame.columns:
            return self.frame[name]
        return pd.Series([""] * len(self.frame), index=self.frame.index, dtype=object)


#: id(frame) -> (weak reference to the frame, {metric: row positions}); see _metric_positions.
_METRIC_INDEX: dict[int, tuple[weakref.ref, dict[str, np.ndarray]]] = {}


def _metric_positions(frame: pd.DataFrame, metric) -> np.ndarray:
    """Row positions of ``metric`` (a name, several, or None for all), indexed once per frame:
    every check selects by metric, and comparing a string column of every row each time dominated
    the checklist's run time."""
    if metric is None:
        return np.arange(len(frame))
    cached = _METRIC_INDEX.get(id(frame))
    if cached is None or cached[0]() is not frame:
        index = {str(name): rows for name, rows in frame.groupby("metric", sort=False).indices.items()} \
            if len(frame) else {}
        cached = (weakref.ref(frame), index)
        _METRIC_INDEX[id(frame)] = cached
    names = list(metric) if isinstance(metric, (list, tuple, set)) else [metric]
    parts = [cached[1].get(str(name), np.empty(0, dtype=np.intp)) for name in names]
    return np.sort(np.concatenate(parts)) if parts else np.empty(0, dtype=np.intp)


def select(frame: pd.DataFrame, metric: str | Sequence[str] | None = None, filters: Mapping | None = None,
           summarizable: bool = True, collapse_ranks: bool = True) -> pd.DataFrame:
    """Rows of ``metric`` matching ``filters`` ({column: value or [values]}); see the module doc.

    Filters narrow a set of row positions, one column at a time, and the rows are taken once at
    the end: the audited frames are wide (every configuration column of every family), so taking
    rows per filter copied them each time and made the checklist stage minutes long."""
    filters = dict(filters or {})
    if any(column not in frame.columns for column in filters):
        return frame.iloc[0:0]
    positions = _metric_positions(frame, metric)
    if summarizable:
        positions = positions[np.asarray(results.summarizable_mask(frame[["valid", "iteration"]].iloc[positions]))]
    for column, wanted in filters.items():
        positions = positions[matches(frame[column].iloc[positions], wanted)]
    if collapse_ranks and "rank" not in filters and positions.size:
        ranks = frame["rank"].iloc[positions].to_numpy()
        if (ranks == -1).any() and (ranks != -1).any():
            positions = positions[ranks == -1]
    return frame.iloc[positions]


def _texty(column: pd.Series) -> bool:
    """Texts held as Python objects or strings (not categories)."""
    return column.dtype == object or pd.api.types.is_string_dtype(column.dtype)


def _text_type(dtype) -> bool:
    """Values of this type are texts: categories, str or Python objects."""
    return isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)


def matches(column: pd.Series, wanted) -> np.ndarray:
    """Whether each row's value equals ``wanted`` (or one of a list); numbers compare as numbers (32 == 32.0),
    everything else as its text.  A category column is matched on its categories and then its codes: turning
    every row into text first cost the checklist seconds on a LoadGen file's hundreds of thousands of rows."""
    options = list(wanted) if isinstance(wanted, (list, tuple, set)) else [wanted]
    if pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column.dtype):
        numbers = pd.to_numeric(pd.Series(options, dtype=object), errors="coerce").dropna().astype(float)
        return column.astype(float).isin(set(numbers)).to_numpy()
    texts = {str(v) for v in options}
    if isinstance(column.dtype, pd.CategoricalDtype):
        # one entry per category, and a last one for code -1: a missing value has no text and matches nothing
        wanted_codes = np.append(column.cat.categories.astype(str).isin(texts), False)
        return wanted_codes[column.cat.codes.to_numpy()]
    return column.astype(str).isin(texts).to_numpy()


def finite(values) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    return array[np.isfinite(array)]


def group_codes(frame: pd.DataFrame, keys: Sequence[str]) -> np.ndarray:
    """One integer per row naming its group of equal ``keys`` (missing values a group of their own), numbered
    in order of first appearance: what ``groupby(keys, sort=False, dropna=False)`` groups, without its cost
    (a round of thousands of files is grouped per file, several times)."""
    columns = [_key_codes(frame[key]) for key in keys]
    sizes = [int(codes.max(initial=0)) + 1 for codes in columns]
    if columns and math.prod(sizes) < 2 ** 62:  # one number per combination, numbered once
        return pd.factorize(np.ravel_multi_index(columns, sizes))[0].astype(np.int64)
    combined = np.zeros(len(frame), dtype=np.int64)
    for codes, size in zip(columns, sizes):
        combined = pd.factorize(combined * size + codes)[0].astype(np.int64)
    return combined


def _key_codes(column: pd.Series) -> np.ndarray:
    """One integer per row, equal where the values are (missing values one of their own): a text column's
    category codes as they are, other values factorized."""
    values = column.array
    if isinstance(values, pd.Categorical) and len(values.categories) <= len(values):
        return values.codes + 1 if (values.codes < 0).any() else values.codes
    if isinstance(values, pd.Categorical):  # a file's view of a round's texts: more texts than rows, numbered afresh
        return pd.factorize(values.codes, use_na_sentinel=False)[0]
    return pd.factorize(column.to_numpy() if isinstance(column.dtype, np.dtype) else values, use_na_sentinel=False)[0]


def group_positions(frame: pd.DataFrame, keys: Sequence[str], codes: np.ndarray | None = None
                    ) -> list[tuple[tuple, np.ndarray]]:
    """(key values, row positions) of each group of :func:`group_codes` (given or computed), in order of first
    appearance: the i-th entry is group code i."""
    if not len(frame):
        return []
    parts = code_positions(group_codes(frame, keys) if codes is None else codes)
    columns = [frame[key].to_numpy() for key in keys]
    return [(tuple(column[part[0]] for column in columns), part) for part in parts]


def code_positions(codes: np.ndarray) -> list[np.ndarray]:
    """The row positions of each code 0..C-1 (every code present), each in row order."""
    order, starts = code_order(codes)
    return np.split(order, starts[1:]) if codes.size else []


def code_order(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row positions sorted by code (stable), and where each code's run of positions starts."""
    order = np.argsort(codes, kind="stable")
    return order, np.flatnonzero(np.r_[True, np.diff(codes[order]) != 0]) if codes.size else np.zeros(0, dtype=np.int64)


def describe(key: Mapping, varying: set | None = None) -> str:
    """Short text of a configuration, e.g. ``workload=transpose implementation=c-mpi ranks=2``.

    With ``varying`` (the columns that take several values in the file) only those are named.
    """
    parts = []
    for k, v in key.items():
        if (varying is not None and k not in varying) or (v in ("", -1, None) and k != "rank"):
            continue
        text = str(v)
        parts.append(f"{k}={text if len(text) <= 40 else text[:39] + '…'}")
    return " ".join(parts)


@dataclass(frozen=True)
class ResultSet:
    """The results files read (as sources), the files of the trees left unread, and the optional environment capture
    and configuration dump given with them.

    Frozen: read by one audit or by both sides of a compare, never changed by them (an audit's claims, results and
    caches are its own, ``checklist.model.AuditRun``).  The properties below are computed once, on first use."""

    sources: tuple[ResultSource, ...]
    environment: Capture | None = None
    environment_path: str = ""
    config: dict | None = None
    config_path: str = ""
    skipped: tuple[tuple[str, str, bool], ...] = ()  # (path, why, unreadable) of files in the trees not read

    def __post_init__(self) -> None:
        """Lists given (the readers return lists) are held as tuples: nothing appends to a loaded set."""
        object.__setattr__(self, "sources", tuple(self.sources))
        object.__setattr__(self, "skipped", tuple(self.skipped))

    @property
    def raw_sources(self) -> list[ResultSource]:
        """Files of measured samples (not written by the analysis stage)."""
        return [s for s in self.sources if not s.derived]

    @property
    def derived_sources(self) -> list[ResultSource]:
        """Files the analysis stage derived from the samples (speedups, fits, summaries, figures)."""
        return [s for s in self.sources if s.derived]

    @cached_property
    def frame(self) -> pd.DataFrame:
        """All rows of the raw sources, with a ``source_file`` column; missing columns filled ("").

        Derived files (:attr:`derived_sources`) are left out: their rows are numbers computed from
        these rows, not samples, and the checks that judge them read them per source.  Each raw
        source's frame becomes a view of its rows here (:func:`_merge_raw`): every row is held once.
        """
        return _merge_raw(self.raw_sources)

    @cached_property
    def kinds(self) -> pd.Series:
        """Kind of every row of :attr:`frame` (each file's ``metric_kinds`` applied to its own rows)."""
        parts = [source.kinds.array for source in self.raw_sources]
        if not parts:
            return pd.Series([], dtype=object)
        return pd.Series(_union_texts(parts), index=self.frame.index)

    @cached_property
    def exclusions(self) -> list["Exclusion"]:
        """Runs and configurations every check leaves out, with their reasons (:func:`exclusions`): the report
        lists them, so no check may read them."""
        return exclusions(self)

    @cached_property
    def kept(self) -> pd.Series:
        """Row mask of :attr:`frame`: False on the rows of a run the report lists as excluded (every row of the
        run invalid).  A check that reads facts rather than valid samples (models, machines, latencies a file
        has) reads only these rows, so an excluded run changes no check's result."""
        return pd.Series(kept_runs(self.frame, ("source_file", "run_id")), index=self.frame.index)

    def kept_rows(self, rows: pd.DataFrame) -> pd.DataFrame:
        """``rows`` (of :attr:`frame`) without those of excluded runs (:attr:`kept`)."""
        return rows[self.kept.loc[rows.index].to_numpy()] if len(rows) else rows

    @cached_property
    def kept_sources(self) -> list[ResultSource]:
        """Sources with at least one row outside the excluded runs (a file whose every run is excluded says
        nothing a check may read: not its machine, not its models)."""
        return [s for s in self.sources if not len(s.frame) or bool(s.frame["valid"].to_numpy(dtype=bool).any())]

    def busy_machine(self) -> dict[str, str]:
        """{file: why the machine was busy while it was measured} for each raw file whose ``contention`` record
        shows a busy machine ("load 4.9 on 2 cores during the PRK stage: rerun on an idle machine")."""
        return {s.path: s.busy_reason() for s in self.raw_sources if s.busy_reason()}

    def stating(self, field: Callable[[attributes.Attributes], object]) -> list[tuple[ResultSource, object]]:
        """(source, value) of every file that sets the attribute ``field`` reads (``lambda stated: stated.tuning``)."""
        return [(s, field(s.attributes)) for s in self.sources if attributes.is_set(field(s.attributes))]

    def objects(self, field: Callable[[attributes.Attributes], object]) -> list[tuple[ResultSource, dict]]:
        """(source, object) for every object of the list attribute ``field`` reads, in every file."""
        return [(s, record) for s in self.sources for record in attributes.objects(field(s.attributes))]

    def config_value(self, *keys, default=None):
        node = self.config or {}
        for key in keys:
            if not isinstance(node, Mapping) or key not in node:
                return default
            node = node[key]
        return node

    def measurement(self, source: ResultSource, key: str) -> float:
        """``confidence`` / ``ci_target`` of one file (:meth:`measurement_setting`)."""
        return self.measurement_setting(source, key).value

    def measurement_setting(self, source: ResultSource, key: str) -> settings.Setting:
        """``confidence`` / ``ci_target`` of one file with its origin: the file's attribute, else the run's config
        (config.json ``measurement``), else the schema's default.  Set but unusable (``'high'``, 1.5) in the file
        or the config: a SettingError naming it, never the default in its place (a check that needs the value
        then needs a human, and says why)."""
        return settings.resolve(key, {settings.RESULTS_FILE: getattr(source.attributes, key),
                                      settings.RUN_CONFIG: self.config_value("measurement", key)},
                                {settings.RESULTS_FILE: f"{source.path} attribute {key}",
                                 settings.RUN_CONFIG: f"measurement.{key}" + (f" ({self.config_path})"
                                                                              if self.config_path else "")})


def _merge_raw(sources: list[ResultSource]) -> pd.DataFrame:
    """The sources' rows one below the other, as ``pd.concat`` would put them, built one column at a time.

    Why: a round of thousands of files would otherwise be held twice (each file's frame and the
    merged copy).  Each column is merged, then dropped from the files' own columns; afterwards every
    file's frame is rebuilt from views of its rows in the merged frame (a column whose type the
    merge changed, e.g. integers beside a file that lacks them, stays the file's own).  Text columns
    are categories over the texts of every file (missing as "", as the files' own are).
    """
    if not sources:
        return pd.DataFrame(columns=list(results.COLUMNS))
    lengths = [source.rows for source in sources]
    own = [source.take_columns() for source in sources]  # they live on in ``own`` until merged
    order = [list(columns) for columns in own]
    for source, columns, n in zip(sources, own, lengths):
        columns["source_file"] = _repeated_text(source.path, n).array
    merged = {}
    for name in dict.fromkeys(name for columns in own for name in columns):
        merged[name] = _merged_column([columns.get(name) for columns in own], lengths)
        merged_type = merged[name].dtype
        for columns in own:
            if name in columns and _same_type(columns[name].dtype, merged_type):
                del columns[name]
        memory.release_freed()
    frame = pd.DataFrame(merged, copy=False)
    arrays = {name: _array(column) for name, column in merged.items()}
    starts = np.cumsum([0, *lengths])
    for source, columns, names_of, start, stop in zip(sources, own, order, starts, starts[1:]):
        # a column the merge widened stays the file's own (and source_file is not a column of the file)
        source.frame = pd.DataFrame({name: columns[name] if name in columns else arrays[name][start:stop]
                                     for name in names_of}, copy=False)
    return frame


def _array(column: pd.Series):
    """A column's values without copying: its numpy array, or its extension array (categories, ...)."""
    return column.to_numpy() if isinstance(column.dtype, np.dtype) else column.array


def _merged_column(parts: list, lengths: list[int]) -> pd.Series:
    """One column of every file (None where a file lacks it): texts if any file's are, else as ``pd.concat``."""
    if any(part is not None and _text_type(part.dtype) for part in parts):
        return pd.Series(_union_texts([_categorical(part, n) for part, n in zip(parts, lengths)]), copy=False)
    dtypes = {None if part is None else part.dtype for part in parts}
    if len(dtypes) == 1 and None not in dtypes and isinstance(next(iter(dtypes)), np.dtype):  # what concat gives:
        return pd.Series(np.concatenate(parts), copy=False)  # without its checks
    column = pd.concat([pd.Series(np.full(n, np.nan) if part is None else part, copy=False)
                        for part, n in zip(parts, lengths)], ignore_index=True)
    return texts(column.to_numpy(dtype=object)) if _texty(column) else column


def _union_texts(parts: list[pd.Categorical]) -> pd.Categorical:
    """The parts one below the other over the union of their categories, in text order (as
    ``union_categoricals(sort_categories=True)`` gives, without its per-part cost)."""
    if any((part.codes < 0).any() for part in parts):  # a missing value (none of ours): pandas words it
        return union_categoricals(parts, sort_categories=True)
    categories = np.unique(np.concatenate([np.asarray(part.categories, dtype=object) for part in parts]))
    code_type = next(t for t in (np.int8, np.int16, np.int32, np.int64)  # pandas' code type for so many categories
                     if categories.size < np.iinfo(t).max)
    codes = np.concatenate([np.searchsorted(categories, np.asarray(part.categories, dtype=object)).astype(code_type)
                            [part.codes] for part in parts]) if categories.size else np.zeros(0, dtype=np.int8)
    return pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype="str"), validate=False)


def _categorical(part, n: int) -> pd.Categorical:
    """A file's column (its values) as categories: its own, its values as texts, or "" where it lacks the column."""
    if part is None:
        return _repeated_text("", n).array
    return part if isinstance(part.dtype, pd.CategoricalDtype) else texts(np.asarray(part, dtype=object)).array


def _same_type(own, merged) -> bool:
    """Whether the merged column (of type ``merged``) can stand for a file's own (of type ``own``): same type,
    or texts both (the values are the same)."""
    both_texts = isinstance(own, pd.CategoricalDtype) and isinstance(merged, pd.CategoricalDtype)
    return both_texts or own == merged


def _repeated_text(text: str, n: int) -> pd.Series:
    """``text`` n times, as a text column of one category."""
    return pd.Series(pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=pd.Index([text], dtype="str")))


def open_source(path: str | Path) -> ResultSource:
    """One results file in any format the readers know (``twelveways.readers``), as a source.

    A file that holds several results (none today) gives its first; use :func:`load` for trees.
    """
    from . import readers

    return readers.read_paths([path], convert=as_source)[0]


def as_source(item) -> ResultSource:
    """A reader's result (``readers.Loaded``) as a source; run in the reader workers, so the Dataset never
    travels back to this process."""
    source = ResultSource.from_dataset(item.path, item.ds)
    source.kinds  # noqa: B018 - judged where the file was read, beside the other files
    return source


def read_json(path: str | Path, what: str) -> dict:
    return inputs.read_json_object(path, what, AuditInputError)


def load(paths: Sequence[str | Path], *, environment: str | Path | None = None, config: str | Path | None = None,
         csv_metadata: str | Path | None = None, csv_map: Mapping | None = None,
         csv_set: Mapping | None = None) -> ResultSet:
    """Open every input (files or trees, any format ``twelveways.readers`` knows) and the optional metadata."""
    from . import readers

    if not paths:
        raise AuditInputError("no results files given")
    skipped: list = []
    sources = readers.read_paths(paths, csv_metadata=csv_metadata, mapping=dict(csv_map or {}),
                                 constants=dict(csv_set or {}), skipped=skipped, convert=as_source)
    if not any(len(source.frame) for source in sources):
        raise AuditInputError(f"no samples in {', '.join(s.path for s in sources)[:300]}: nothing to audit")
    capture = load_capture(environment, "environment capture", AuditInputError) if environment else None
    dump = read_json(config, "configuration dump") if config else None
    return ResultSet(sources, environment=capture, environment_path=str(environment) if environment else "",
                     config=dump, config_path=str(config) if config else "",
                     skipped=[(str(s.path), s.why, s.unreadable) for s in skipped])


@dataclass(frozen=True)
class Exclusion:
    """One run (every row invalid) or configuration (marked failed/null/NaN by its publisher's tool) that every
    check leaves out, with the reason its source gave; ``role`` names a run that is invalid by design (a
    server-QPS search probe, a pilot): it was meant to find a limit, never to be reported."""

    path: str
    what: str  # "run <run_id>" or the configuration's factors
    reason: str
    role: str = ""
    family: str = ""
    configuration: bool = False

    @property
    def line(self) -> str:
        if self.configuration:
            return f"{self.path}: {self.what}: not measured ({self.reason})"
        return f"{self.path}: {self.what}{f' ({self.role} run)' if self.role else ''}: {self.reason}"


def excluded_runs(data: ResultSet) -> list[str]:
    """Runs every check leaves out (all their rows invalid), each with the reason its source gave."""
    return [entry.line for entry in data.exclusions]


def exclusions(data: ResultSet) -> list[Exclusion]:
    """Every run and configuration the checks leave out (:class:`Exclusion`), file by file."""
    found = []
    for src in data.sources:
        frame = src.frame
        invalid = frame[~frame["valid"].astype(bool)]
        for run_id, rows in invalid.groupby("run_id", sort=True):
            if len(rows) < int((frame["run_id"] == run_id).sum()):
                continue
            stated = (src.attributes.loadgen_result or {}).get("reason")
            reason = stated or (str(rows["status"].iloc[0]) if "status" in rows and str(rows["status"].iloc[0])
                                else _failed_criteria(rows) or "every row marked invalid")
            found.append(Exclusion(src.path, f"run {run_id or '(unnamed)'}", reason, _role(rows), src.family))
        found += not_measured(src)
    return found


def not_measured_lines(src) -> list[str]:
    """Configurations the publisher's tool marked failed, skipped, null or NaN (attr ``not_measured``), one line each:
    excluded with the tool's reason, while the rest of the file is audited."""
    return [entry.line for entry in not_measured(src)]


def not_measured(src) -> list[Exclusion]:
    """:func:`not_measured_lines` as records."""
    found = []
    for entry in attributes.objects(src.attributes.not_measured):
        factors = ", ".join(f"{k}={v}" for k, v in entry.items() if k != "not_measured")
        reason = entry.get("not_measured") or "no reason given"
        found.append(Exclusion(src.path, factors or "a configuration", str(reason), family=src.family,
                               configuration=True))
    return found


#: Run roles (column ``role``) that are invalid by design, as the summary counts them (singular, plural).
ROLE_WORDS = {"search": ("server-QPS search run", "server-QPS search runs"), "pilot": ("pilot", "pilots"),
              "load_sweep": ("load-sweep run", "load-sweep runs")}
#: Roles of runs that are invalid by design: probes for a limit and pilots, never meant to be reported.
DESIGN_ROLES = ("search", "pilot")
#: What a family's runs are called in the summary ("29 LoadGen runs invalid by design").
FAMILY_RUNS = {"infer": "LoadGen", "train": "training", "prk": "PRK"}
#: Reasons the summary names one by one; the rest are counted together (the list names each).
SUMMARY_REASONS = 4


def exclusion_summary(entries: Sequence[Exclusion]) -> list[dict]:
    """One record per reason, most runs first: {line, count, what (runs/configurations), reason, by_design,
    parts ({role words: count})}: "29 LoadGen runs invalid by design: 20 server-QPS search runs, 9 pilots"."""
    groups: dict[tuple, list[Exclusion]] = {}
    for entry in entries:
        by_design = bool(set(entry.role.split(", ")) & set(DESIGN_ROLES))
        key = ("design", entry.family) if by_design else ("reason", entry.configuration, entry.reason)
        groups.setdefault(key, []).append(entry)
    records = [_summary_record(key, found) for key, found in groups.items()]
    records.sort(key=lambda r: (not r["by_design"], -r["count"], r["reason"]))
    if len(records) > SUMMARY_REASONS:
        rest = records[SUMMARY_REASONS - 1:]
        count = sum(r["count"] for r in rest)
        records = records[:SUMMARY_REASONS - 1] + [{
            "line": f"{count} more runs or configurations for {len(rest)} other reasons (each listed with its reason)",
            "count": count, "what": "runs or configurations", "reason": "other reasons", "by_design": False,
            "parts": {r["reason"]: r["count"] for r in rest}}]
    return records


def _summary_record(key: tuple, found: list[Exclusion]) -> dict:
    """One reason's summary record (see :func:`exclusion_summary`)."""
    count = len(found)
    if key[0] == "design":
        roles: dict[str, int] = {}
        for entry in found:
            for role in entry.role.split(", "):
                roles[role] = roles.get(role, 0) + 1
        parts = {ROLE_WORDS.get(r, (f"{r} run", f"{r} runs"))[n != 1]: n
                 for r, n in sorted(roles.items(), key=lambda item: (-item[1], item[0]))}
        runs = " ".join(filter(None, (FAMILY_RUNS.get(key[1], ""), "run" if count == 1 else "runs")))
        text = ", ".join(f"{n} {words}" for words, n in parts.items())
        return {"line": f"{count} {runs} invalid by design: {text}", "count": count, "what": "runs",
                "reason": "invalid by design (probes and pilots, never reported)", "by_design": True, "parts": parts}
    what = ("configuration" if count == 1 else "configurations") if key[1] else ("run" if count == 1 else "runs")
    verb = "not measured" if key[1] else "excluded"
    return {"line": f"{count} {what} {verb}: {key[2]}", "count": count, "what": what, "reason": key[2],
            "by_design": False, "parts": {}}


def kept_runs(frame: pd.DataFrame, keys: Sequence[str] = ("run_id",)) -> np.ndarray:
    """Row mask: False on the rows of runs (groups of ``keys``) every row of which is invalid: the runs
    :func:`exclusions` lists, which no check may read."""
    if not len(frame):
        return np.zeros(0, dtype=bool)
    codes = group_codes(frame, list(keys))
    return (np.bincount(codes, weights=frame["valid"].to_numpy(dtype=bool)) > 0)[codes]


def _failed_criteria(rows: pd.DataFrame) -> str:
    """The LoadGen criteria a run failed, in LoadGen's own words (its criterion rows of value 0)."""
    from .infer.parse import CRITERIA

    criteria = rows[rows["metric"].isin(set(CRITERIA.values()))]
    failed = set(criteria.loc[criteria["value"] == 0, "metric"])
    words = [f"{line}: NO" for line, metric in CRITERIA.items() if metric in failed]
    return f"LoadGen's result INVALID ({'; '.join(words)})" if words else ""


def _role(rows: pd.DataFrame) -> str:
    """"search" for a run the file marks as a search probe or pilot (column ``role``), so a reader knows it was
    meant to find a limit, not to be reported; several roles comma-separated, "" when none."""
    roles = sorted({str(r) for r in rows["role"].unique()} - {"", "nan"}) if "role" in rows else []
    return ", ".join(roles)
