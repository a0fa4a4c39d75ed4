"""User text reaching Markdown is escaped: a renderer that allows HTML finds no live tag."""

import json
from pathlib import Path

from markdown_it import MarkdownIt

from twelveways.env import render as env_render
from twelveways.escape import markdown_fence, markdown_text

HOSTILE = '<script>alert(1)</script> <img src=x onerror="alert(2)"> | [link](javascript:alert(3)) **bold**'
REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference"


def _html(markdown: str) -> str:
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)


def test_markdown_text_leaves_no_live_markup():
    rendered = _html(f"| a | b |\n|---|---|\n| {markdown_text(HOSTILE)} | x |\n")
    assert "<script" not in rendered and "<img" not in rendered and "<strong>" not in rendered
    assert 'href="javascript' not in rendered
    assert "&lt;script&gt;" in rendered  # shown as text, not dropped
    assert rendered.count("<td>") == 2  # the pipe did not split the cell


def test_fence_cannot_be_broken_out_of():
    block = "\n".join(markdown_fence("x=1\n```\n<script>alert(1)</script>"))
    assert "<script" not in _html(block)


def test_artifact_description_escapes_subset_reasons_and_datasets():
    capture = json.loads((REFERENCE / "environment.json").read_text())
    config = json.loads((REFERENCE / "config.json").read_text())
    config["subset_reasons"] = {"kernels": HOSTILE}
    config.setdefault("train", {})["datasets"] = [HOSTILE]
    rendered = _html(env_render.render_artifact_description(capture, config))
    assert "<script" not in rendered and "<img" not in rendered and "onerror=" not in rendered.replace("onerror=&quot;", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rendered
