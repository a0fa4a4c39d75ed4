"""The rendered report in a real browser: headless Chromium, no network, fresh profile.

Every figure must decode (natural width above zero), the page must log no error (a blocked
remote load or a CSP violation would), and a PNG of the first screen is saved.  Chromium is
Debian's ``chromium``, installed with apt-get when missing and allowed (root); otherwise the
tests skip with one line saying why.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from browser import chromium, reportdata

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def binary() -> str:
    try:
        return chromium.ensure_chromium()
    except chromium.ChromiumUnavailable as exc:
        pytest.skip(f"headless Chromium unavailable: {exc}")


def _png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", header[16:24])


def test_report_renders_every_figure_without_errors(binary):
    kind = "reference" if (ROOT / "data" / "reference" / "environment.json").is_file() else "synthetic"
    report = reportdata.built_report(kind)
    shot = ROOT / "reports" / f"screenshot-{kind}.png"  # kept for CI; reports/ is git-ignored
    page = chromium.check_page(report, shot, binary=binary)
    assert page.errors == []
    assert len(page.images) >= 3
    assert page.broken_images == []
    assert page.title
    assert _png_size(shot) == (chromium.WIDTH, chromium.HEIGHT)
    _first_screen_leads_with_the_numbers(page, kind)


#: The reference report was 49,578 px tall before the report put the headline first and folded the detail.
HEIGHT_BEFORE_ISSUE_16 = 49_578


def _first_screen_leads_with_the_numbers(page: chromium.PageReport, kind: str) -> None:
    """The first 1,400 × 1,000 px: the profile caveat, headline numbers with CIs, the verdict counts."""
    first = " ".join(page.first_screen.split())
    assert "Profile " in first and "runtime" in first
    assert " pass" in first and " warn" in first and " fail" in first and "needs human" in first
    if kind == "reference":  # the synthetic set has no derived results, so no headline numbers
        assert re.search(r"\d ms \[[\d.]+, [\d.]+\]", first), first[:400]
        assert page.height <= HEIGHT_BEFORE_ISSUE_16 / 2


def test_workflow_report_if_present(binary):
    """The report of the last real run (reports/report.html), screenshot to reports/screenshot.png."""
    report = ROOT / "reports" / "report.html"
    if not report.is_file():
        pytest.skip("no reports/report.html yet (run make report)")
    page = chromium.check_page(report, ROOT / "reports" / "screenshot.png", binary=binary)
    assert page.errors == [] and page.broken_images == []


def test_checker_catches_a_broken_image_and_a_console_error(binary, tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><head><title>bad</title></head><body>"
                   "<img src='data:image/png;base64,AAAA'><script>console.error('deliberate')</script></body></html>")
    page = chromium.check_page(bad, binary=binary)
    assert len(page.broken_images) == 1
    assert any("deliberate" in error for error in page.errors)
    assert not page.ok
