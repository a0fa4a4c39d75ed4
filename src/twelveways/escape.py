"""Text from users and data made safe for the formats the project writes (Markdown, HTML).

Anything a user wrote (a subset reason, a dataset name, a claim statement) or a machine
reported may hold ``<script>`` or Markdown syntax; a Markdown renderer that allows HTML would
run the first and the second could break a table.  Everything that reaches Markdown goes
through :func:`markdown_text` (or :func:`markdown_fence` for code blocks); HTML uses
``html.escape``.
"""

from __future__ import annotations

import re

#: Markdown's punctuation that changes meaning inside a line (emphasis, code, links, table cells, strike);
#: ``( ) # + !`` mean something only after ``]`` or at a line's start, and a line here never starts with text.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


#: ``<`` before a letter, ``/``, ``!`` or ``?`` (raw HTML, autolinks) and ``&`` before an entity name.
_LIVE = re.compile(r"(<(?=[A-Za-z/!?])|&(?=#?\w+;))")


def markdown_text(value) -> str:
    """One line of literal text for Markdown (table cells included): no HTML, no markup, no newline."""
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(value).split()))
    # only what could start a tag, an autolink or an entity is escaped (a backslash, CommonMark), so the
    # file reads as written in a text editor too: "p < 0.05" stays, never "p &lt; 0.05"
    return inert_tags(text)


def inert_tags(text: str) -> str:
    """``text`` with every ``<`` that could open a tag or autolink, and every entity-like ``&``, backslash-escaped."""
    return _LIVE.sub(r"\\\1", text)


def markdown_fence(text: str, info: str = "") -> list[str]:
    """A fenced code block whose fence is longer than any backtick run inside (no break-out)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", text, fence]
