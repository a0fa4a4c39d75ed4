"""Every config key documented from the schema itself, so the docs cannot drift from validation."""

from __future__ import annotations

import json

from .config import load_schema


def _rows(schema: dict, prefix: str = ""):
    for name, sub in schema.get("properties", {}).items():
        key = f"{prefix}{name}"
        kind = sub.get("type", "")
        if kind == "array" and isinstance(sub.get("items"), dict):
            item = sub["items"]
            kind = f"list of {item.get('type', 'value')}"
            if "enum" in item:
                kind += f" ({', '.join(map(str, item['enum']))})"
        elif "enum" in sub:
            kind = f"{kind} ({', '.join(map(str, sub['enum']))})"
        bounds = []
        for word, symbol in (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<="), ("exclusiveMaximum", "<")):
            if word in sub:
                bounds.append(f"{symbol} {sub[word]}")
        if bounds:
            kind += f", {' '.join(bounds)}"
        default = sub.get("default")
        shown = "" if sub.get("type") == "object" else f"`{json.dumps(default)}`" if "default" in sub else "(none)"
        text = " ".join(str(sub.get("description", "")).split())
        yield key, kind, shown, text
        if sub.get("type") == "object":
            yield from _rows(sub, key + ".")


def render() -> str:
    """Markdown table of every key: name, type and bounds, default, meaning."""
    schema = load_schema()
    lines = [
        "# Configuration keys",
        "",
        "Generated from `workflow/schemas/*.schema.yaml` by `twelveways config-docs`; unknown keys are rejected.",
        "",
        "| key | type | default | meaning |",
        "|---|---|---|---|",
    ]
    for key, kind, default, text in _rows(schema):
        text = text.replace("|", "\\|")
        lines.append(f"| `{key}` | {kind} | {default} | {text} |")
    return "\n".join(lines) + "\n"
