"""Tables for the notebooks and the report, built so that machine strings are always escaped.

Host names, package names, environment variables and claims come from the machine or from
config and may contain anything, including markup.  Tables are pandas DataFrames rendered
with ``to_html(escape=True)``; the only HTML put together by hand here runs every piece of
text through :func:`html.escape`.  Notebooks must show machine text only through these
helpers or a DataFrame, never through ``Markdown``/``HTML`` built from f-strings.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import ResultsError

#: Rows beyond this go into a collapsed <details> block.
LONG_TABLE = 25
#: Cell text beyond this is cut (the full value stays in environment.json).
MAX_CELL = 400


def read_json(path: str | os.PathLike, what: str) -> dict:
    """A JSON object from ``path``; a ResultsError line when missing or malformed."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise ResultsError(f"{what} not found or unreadable: {path}", cause=exc) from exc
    except ValueError as exc:
        raise ResultsError(f"{what} is not valid JSON: {path}", cause=exc) from exc
    if not isinstance(data, Mapping):
        raise ResultsError(f"{what} must hold a JSON object: {path}")
    return dict(data)


def _text(value) -> str:
    if isinstance(value, float):
        text = f"{value:.6g}"
    elif isinstance(value, (list, tuple)) and all(not isinstance(v, (Mapping, list, tuple)) for v in value):
        text = ", ".join(map(str, value))
    elif isinstance(value, (Mapping, list, tuple)):
        text = json.dumps(value, sort_keys=True, default=str)
    elif value is None:
        text = "—"
    else:
        text = str(value)
    return text if len(text) <= MAX_CELL else text[:MAX_CELL] + f"… ({len(text)} characters)"


def _unavailable(value) -> bool:
    return isinstance(value, Mapping) and set(value) == {"unavailable"}


def flatten(obj, prefix: str = "") -> list[tuple[str, str]]:
    """Nested mappings as (dotted key, text) pairs; lists of scalars joined; lists of records as JSON.

    A field the capture could not read (``{"unavailable": reason}``) shows as one row with its reason.
    """
    pairs = []
    if isinstance(obj, Mapping) and not _unavailable(obj):
        for key, value in obj.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if isinstance(value, Mapping) and value and not _unavailable(value):
                pairs.extend(flatten(value, name))
            elif _unavailable(value):
                pairs.append((name, f"unavailable: {_text(value['unavailable'])}"))
            else:
                pairs.append((name, _text(value)))
    elif _unavailable(obj):
        pairs.append((prefix or "value", f"unavailable: {_text(obj['unavailable'])}"))
    else:
        pairs.append((prefix or "value", _text(obj)))
    return pairs


def key_value(obj, key: str = "field", value: str = "value") -> pd.DataFrame:
    """A two-column table of a (nested) mapping."""
    return pd.DataFrame(flatten(obj), columns=[key, value])


def records(items: list) -> pd.DataFrame:
    """A list of records (dicts) or scalars as a table."""
    if items and all(isinstance(item, Mapping) for item in items):
        frame = pd.DataFrame([{k: _text(v) for k, v in item.items()} for item in items])
    else:
        frame = pd.DataFrame({"value": [_text(item) for item in items]})
    return frame


def _long_flat(value) -> bool:
    """A mapping of many scalars (a package list): worth a table of its own."""
    return (isinstance(value, Mapping) and len(value) > LONG_TABLE
            and all(isinstance(v, (str, int, float)) or v is None for v in value.values()))


def sections(capture: Mapping) -> list[tuple[str, pd.DataFrame]]:
    """One (title, table) per top-level part of an environment capture, scalars gathered first;
    long flat mappings inside a part (e.g. python.packages) get a table of their own."""
    general, parts = {}, []
    for key, value in capture.items():
        if isinstance(value, Mapping) and not _unavailable(value):
            own = {k: v for k, v in value.items() if not _long_flat(v)}
            parts.append((str(key), key_value(own)))
            for name, inner in value.items():
                if _long_flat(inner):
                    parts.append((f"{key}.{name}", pd.DataFrame([(str(k), _text(v)) for k, v in inner.items()],
                                                                columns=["name", "value"])))
        elif isinstance(value, list):
            parts.append((str(key), records(value)))
        else:
            general[key] = value
    if general:
        parts.insert(0, ("summary", key_value(general)))
    return parts


def number(value: float) -> str:
    """Four significant digits, without exponents for the magnitudes a benchmark table shows."""
    if not np.isfinite(value):
        return "—"
    if abs(value) >= 1e4 and abs(value) < 1e15:
        return f"{value:,.0f}"
    return f"{value:.4g}"


#: A training configuration id, alone or inside a cell's text (``mlp-large/digits8/b64/lr0.1-linear/fp32/io/r1-base/none/final``).
_CONFIG_ID = re.compile(r"[\w.+-]+/[a-z_]+\d+/b\d+/lr[^/\s,]+/[^/\s,]+/[^/\s,]+/r\d+-[^/\s,]+/[^/\s,]+/[^/\s,]+")


def _run_config(text: str):
    """The training configuration ``text`` names, or None."""
    from ..errors import ConfigError
    from ..train.planning import RunConfig

    try:
        return RunConfig.from_id(text)
    except (ConfigError, ValueError):
        return None


def _text_columns(frame: pd.DataFrame) -> list:
    return [c for c in frame.columns if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c])]


class Configurations:
    """A table's training configurations shown short: each cell names only the factors that set its row apart
    (at most two lines at the page's width), its hover text (``title``) names every factor in words, and the
    factors every row shares are said once above the table."""

    def __init__(self, frame: pd.DataFrame):
        self.titles: dict[tuple[int, str], str] = {}
        ids = frame["config_id"].astype(str).tolist() if "config_id" in frame.columns else []
        texts = [v for column in _text_columns(frame) for v in frame[column] if isinstance(v, str)]
        configs = {found: _run_config(found) for found in [*ids, *(m for t in texts for m in _CONFIG_ID.findall(t))]}
        configs = {key: value for key, value in configs.items() if value is not None}
        factor_sets = [set(config.short_factors()) for config in configs.values()]
        self.shared = ([f for f in next(iter(configs.values())).short_factors() if all(f in s for s in factor_sets)]
                       if len(configs) > 1 else [])
        self.configs = configs
        self.frame = self._shortened(frame)

    def label(self, config) -> str:
        """The factors of ``config`` that not every configuration of the table shares (the model at least)."""
        return ", ".join(f for f in config.short_factors() if f not in self.shared) or config.model

    def _text(self, text: str, words: bool) -> str:
        def swap(match):
            config = self.configs.get(match.group(0))
            return match.group(0) if config is None else (config.describe() if words else self.label(config))
        return _CONFIG_ID.sub(swap, text)

    def _shortened(self, frame: pd.DataFrame) -> pd.DataFrame:
        frame = frame.copy()
        for column in _text_columns(frame):
            values = []
            for row, value in enumerate(frame[column]):
                short = self._text(value, False) if isinstance(value, str) else value
                if isinstance(value, str) and short != value:  # (a NaN is never equal to itself)
                    self.titles[(row, "configuration" if column == "config_id" else column)] = self._text(value, True)
                values.append(short)
            frame[column] = values
        return frame.rename(columns={"config_id": "configuration"}) if "configuration" not in frame.columns else frame

    def note(self) -> str:
        """The sentence above the table that names the shared factors (empty when nothing is shared)."""
        if not self.shared or not self.titles:
            return ""
        return f"<p class='tw-muted tw-shared'>Every configuration below: {html.escape(', '.join(self.shared))}.</p>"

    def mark(self, body: str) -> str:
        """``body`` (the table's HTML) with each shortened cell in a two-line box whose ``title`` holds its words."""
        if not self.titles:
            return body
        from bs4 import BeautifulSoup

        soup = BeautifulSoup(body, "html.parser")
        header = [th.get_text() for th in soup.select("thead th")]
        for row, tr in enumerate(soup.select("tbody tr")):
            for column, td in zip(header, tr.find_all("td")):
                title = self.titles.get((row, column))
                if title:
                    td["title"] = title
                    box = soup.new_tag("div", attrs={"class": "tw-clamp"})
                    box.string = td.get_text()
                    td.clear()
                    td.append(box)
        return str(soup)


def named_configurations(frame: pd.DataFrame) -> pd.DataFrame:
    """A training ``config_id`` column (and ids inside other cells) shown short, as :class:`Configurations` does."""
    return Configurations(frame).frame


def table_html(frame: pd.DataFrame, caption: str | None = None, *, collapse_after: int = LONG_TABLE) -> str:
    """Escaped HTML of a table; longer than ``collapse_after`` rows: inside a <details> block
    (folded, opens without any script).  Training configurations are shortened (:class:`Configurations`)."""
    if frame.empty:
        return f"<p class='tw-note'>{html.escape(caption or 'table')}: nothing recorded.</p>"
    configurations = Configurations(frame.reset_index(drop=True))
    frame = configurations.frame
    body = configurations.note() + configurations.mark(
        frame.to_html(index=False, escape=True, border=0, classes="tw-table", na_rep="—", float_format=number))
    title = html.escape(caption) if caption else ""
    if len(frame) > collapse_after:
        summary = f"{title} ({len(frame)} rows)" if title else f"{len(frame)} rows"
        return f"<details><summary>{summary}</summary>{body}</details>"
    return (f"<p class='tw-caption'>{title}</p>" if title else "") + body


def parts_html(parts) -> str:
    """(title, table) pairs each folded under its title, side by side while closed: twenty parts of a capture
    take a few lines of the page, and each opens on its own."""
    return "<div class='tw-parts'>" + "".join(table_html(frame, title, collapse_after=0) for title, frame in parts) \
        + "</div>"


def show_parts(parts) -> None:
    """Display :func:`parts_html` in a notebook (IPython)."""
    from IPython.display import HTML, display

    display(HTML(parts_html(parts)))


def show(frame: pd.DataFrame, caption: str | None = None, **kwargs) -> None:
    """Display an escaped table in a notebook (IPython)."""
    from IPython.display import HTML, display

    display(HTML(table_html(frame, caption, **kwargs)))


def note(text: str, kind: str = "note") -> None:
    """Display a one-paragraph note whose text is escaped (for messages that quote machine strings)."""
    from IPython.display import HTML, display

    display(HTML(f"<p class='tw-{html.escape(kind)}'>{html.escape(text)}</p>"))
