"""Open a local HTML file in headless Chromium and report what a reader would see.

Chromium is driven through its DevTools protocol over a pipe (``--remote-debugging-pipe``:
JSON messages separated by NUL bytes on file descriptors 3 and 4), so nothing listens on a
port and only the standard library is needed.  Networking is switched off as far as flags
allow; the page itself must not need it.

Checks: every ``<img>`` decoded with a natural width above zero, no console error, no
uncaught exception, no log entry of level error (a blocked resource or a CSP violation
shows up there); and a PNG of the first screen is saved.

Command line: ``python tests/browser/chromium.py reports/report.html --screenshot reports/screenshot.png``
(exit 0 when the page passes, 1 when it does not, 2 when Chromium is unavailable).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--disable-extensions", "--disable-default-apps",
         "--no-default-browser-check", "--metrics-recording-only", "--mute-audio", "--hide-scrollbars",
         "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication"]
#: The first screen a reader sees (1,400 × 1,000 px).
WIDTH, HEIGHT = 1400, 1000


class ChromiumUnavailable(RuntimeError):
    """No Chromium binary, and none could be installed here (the reason is the message)."""


def find_chromium() -> str | None:
    """The Chromium executable: Debian's real binary behind its wrapper script when present."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            real = Path("/usr/lib/chromium/chromium")
            return str(real) if name == "chromium" and real.is_file() else path
    return None


def ensure_chromium(install: bool = True) -> str:
    """Chromium's path, installing Debian's ``chromium`` with apt-get when missing and allowed."""
    path = find_chromium()
    if path:
        return path
    if not install:
        raise ChromiumUnavailable("chromium is not installed (apt-get install chromium)")
    if not shutil.which("apt-get"):
        raise ChromiumUnavailable("chromium is not installed and there is no apt-get to install it")
    if os.geteuid() != 0:
        raise ChromiumUnavailable("chromium is not installed and installing it needs root (sudo apt-get install chromium)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    command = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium"]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:  # stale or empty package lists: refresh once
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, text=True)
        done = subprocess.run(command, env=env, capture_output=True, text=True)
    path = find_chromium()
    if done.returncode != 0 or not path:
        last = (done.stderr or done.stdout).strip().splitlines()
        raise ChromiumUnavailable(f"apt-get install chromium failed: {last[-1] if last else done.returncode}")
    return path


@dataclass
class PageReport:
    url: str
    title: str = ""
    images: list[dict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    screenshot: Path | None = None
    #: Full page height in CSS px, the height of each top-level section, the text of the first screen.
    height: int = 0
    sections: dict[str, int] = field(default_factory=dict)
    first_screen: str = ""
    #: Document width in CSS px (above WIDTH: the page scrolls sideways), elements reaching past the window, all text.
    width: int = 0
    overflowing: list[str] = field(default_factory=list)
    text: str = ""
    headline: str = ""
    #: With every <details> opened: tables wider than their box, configuration cells taller than two lines or
    #: without their full text on hover (``title``), each named.
    wide_tables: list[str] = field(default_factory=list)
    tall_configurations: list[str] = field(default_factory=list)
    untitled_configurations: list[str] = field(default_factory=list)
    configuration_cells: int = 0

    @property
    def squashed_images(self) -> list[dict]:
        """Images drawn off their aspect ratio (over 2 %) or at less than half their natural width."""
        bad = []
        for image in self.images:
            natural_w, natural_h = image.get("naturalWidth") or 0, image.get("naturalHeight") or 0
            width, height = image.get("width") or 0, image.get("height") or 0
            if not natural_w or not natural_h or not width or not height:
                continue
            off_ratio = abs((width / height) / (natural_w / natural_h) - 1) > 0.02
            if off_ratio or width < 0.5 * min(natural_w, WIDTH):
                bad.append(image)
        return bad

    @property
    def broken_images(self) -> list[dict]:
        return [image for image in self.images if not image.get("naturalWidth")]

    @property
    def ok(self) -> bool:
        return not self.errors and not self.broken_images


class DevTools:
    """A minimal DevTools-protocol client over Chromium's debugging pipe."""

    def __init__(self, binary: str, profile: Path, log: Path):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # the child's ends move above 10 first, so that placing them on 3 and 4 below cannot
        # clobber one another (a pipe end may itself be descriptor 3 or 4)
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser_r, from_browser_w)]
        os.close(to_browser_r)
        os.close(from_browser_w)

        def onto_3_and_4():  # runs in the child between fork and exec; dup2 leaves 3 and 4 inheritable
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        args = [*FLAGS, f"--user-data-dir={profile}", f"--window-size={WIDTH},{HEIGHT}",
                "--remote-debugging-pipe", "about:blank"]
        self._log = open(log, "wb")
        # close_fds=False: the standard streams and fds 3/4 are the only inheritable descriptors
        # (Python opens everything else close-on-exec), and closing would also close 3 and 4
        self.process = subprocess.Popen([binary, *args], close_fds=False, preexec_fn=onto_3_and_4,
                                        stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT)
        for fd in high:
            os.close(fd)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], remaining)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"Chromium exited (code {self.process.poll()})")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 30.0) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, session: str | None, timeout: float = 30.0) -> dict:
        for event in self.events:
            if event.get("method") == method and event.get("sessionId") == session:
                return event
        deadline = time.monotonic() + timeout
        while True:
            event = self._read_message(deadline)
            self.events.append(event)
            if event.get("method") == method and event.get("sessionId") == session:
                return event

    def drain(self, seconds: float) -> None:
        """Collect events for a while (late console messages)."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                self.events.append(self._read_message(deadline))
        except TimeoutError:
            pass

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except Exception:  # closing a browser that is already gone is fine
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()


IMAGES_JS = """
(async () => {
  const images = Array.from(document.images);
  await Promise.all(images.map(i => i.decode().catch(() => null)));
  return JSON.stringify({title: document.title, images: images.map(i => ({
    src: i.currentSrc.slice(0, 40), complete: i.complete, naturalWidth: i.naturalWidth,
    naturalHeight: i.naturalHeight, width: i.getBoundingClientRect().width,
    height: i.getBoundingClientRect().height, alt: i.alt}))});
})()
"""


#: Page height, section heights and the text of every element that starts inside the first screen.
METRICS_JS = """
(() => {
  const sections = {};
  document.querySelectorAll('section[id]').forEach(s => { sections[s.id] = Math.round(s.getBoundingClientRect().height); });
  const seen = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, parent = node.parentElement;
    if (!node.textContent.trim() || !parent || !parent.offsetParent && parent.tagName !== 'BODY') continue;
    const rect = parent.getBoundingClientRect();
    if (rect.top < window.innerHeight && rect.bottom > 0 && rect.left < window.innerWidth) seen.push(node.textContent.trim());
  }
  const wide = [], past = e => e.getBoundingClientRect().right > window.innerWidth + 1;
  document.querySelectorAll('main *, header *, nav *').forEach(e => {  // the outermost element past the window
    if (past(e) && e.offsetParent !== null && !e.closest('.tw-scroll') && !(e.parentElement && past(e.parentElement)))
      wide.push(e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ')[0] : '')
                + ' ' + Math.round(e.getBoundingClientRect().right) + ' px');
  });
  return JSON.stringify({height: document.documentElement.scrollHeight, width: document.documentElement.scrollWidth,
                         sections, first: seen.join(' '), wide: wide.slice(0, 20), text: document.body.innerText,
                         headline: (document.getElementById('section-headline') || {}).innerText || ''});
})()
"""


#: Every <details> opened, then: each table against its box, each cell of a "… configuration" column in lines.
TABLES_JS = """
(() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const named = t => Array.from(t.querySelectorAll('tr:first-child > *')).slice(0, 3).map(c => c.innerText.trim()).join(' | ');
  const wide = [], tall = [], untitled = [];
  let cells = 0;
  document.querySelectorAll('table').forEach(t => {
    const width = t.getBoundingClientRect().width, room = t.parentElement.clientWidth;
    if (width > room + 1) wide.push(`${named(t)}: ${Math.round(width)} px in ${room} px`);
    const rows = Array.from(t.querySelectorAll('tr'));
    if (!rows.length) return;
    const columns = Array.from(rows[0].children).map((c, i) => [c.innerText.trim().toLowerCase(), i])
      .filter(([name]) => name.endsWith('configuration')).map(([, i]) => i);
    rows.slice(1).forEach(row => columns.forEach(i => {
      const cell = row.children[i];
      if (!cell || !cell.innerText.trim()) return;
      cells += 1;
      const shown = cell.querySelector('.tw-clamp') || cell;
      const range = document.createRange();
      range.selectNodeContents(shown);
      const height = shown === cell ? range.getBoundingClientRect().height : shown.getBoundingClientRect().height;
      const lines = height / parseFloat(getComputedStyle(shown).lineHeight);
      if (lines > 2.1) tall.push(`${named(t)}: ${cell.innerText.slice(0, 60)} (${lines.toFixed(1)} lines)`);
      if (!cell.title) untitled.push(`${named(t)}: ${cell.innerText.slice(0, 60)}`);
    }));
  });
  return JSON.stringify({wide, tall, untitled, cells});
})()
"""


def _errors(events: list[dict], session: str) -> list[str]:
    found = []
    for event in events:
        if event.get("sessionId") != session:
            continue
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            text = " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", []))
            found.append(f"console.{params['type']}: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            found.append(f"exception: {details.get('exception', {}).get('description') or details.get('text')}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            found.append(f"log {entry.get('source')}: {entry.get('text')} {entry.get('url', '')}".strip())
    return found


def check_page(html_file: str | os.PathLike, screenshot: str | os.PathLike | None = None, *,
               binary: str | None = None, timeout: float = 60.0, full_page: bool = False) -> PageReport:
    """Load ``html_file`` in a fresh headless Chromium profile and report images, errors, screenshot."""
    path = Path(html_file).resolve()
    if not path.is_file():
        raise FileNotFoundError(path)
    binary = binary or ensure_chromium()
    report = PageReport(url=path.as_uri())
    with tempfile.TemporaryDirectory(prefix="tw-chromium-") as tmp:
        browser = DevTools(binary, Path(tmp) / "profile", Path(tmp) / "chromium.log")
        try:
            target = browser.call("Target.createTarget", {"url": "about:blank"}, timeout=timeout)["targetId"]
            session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                browser.call(f"{domain}.enable", session=session)
            browser.call("Emulation.setDeviceMetricsOverride",
                         {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False}, session=session)
            navigation = browser.call("Page.navigate", {"url": report.url}, session=session, timeout=timeout)
            if navigation.get("errorText"):
                report.errors.append(f"navigation failed: {navigation['errorText']}")
            else:
                browser.wait_for("Page.loadEventFired", session, timeout=timeout)
                result = browser.call("Runtime.evaluate", {"expression": IMAGES_JS, "awaitPromise": True,
                                                           "returnByValue": True}, session=session, timeout=timeout)
                if "exceptionDetails" in result:
                    report.errors.append(f"inspection failed: {result['exceptionDetails'].get('text')}")
                else:
                    data = json.loads(result["result"]["value"])
                    report.title, report.images = data["title"], data["images"]
                metrics = browser.call("Runtime.evaluate", {"expression": METRICS_JS, "returnByValue": True},
                                       session=session, timeout=timeout)
                if "exceptionDetails" not in metrics:
                    measured = json.loads(metrics["result"]["value"])
                    report.height, report.sections = measured["height"], measured["sections"]
                    report.first_screen = measured["first"]
                    report.width, report.overflowing = measured["width"], measured["wide"]
                    report.text, report.headline = measured["text"], measured["headline"]
                browser.drain(0.5)
                report.errors += _errors(browser.events, session)
                if screenshot:
                    options = {"format": "png"}
                    if full_page:  # the whole page at 1,400 px wide, as far down as it goes
                        options.update(captureBeyondViewport=True,
                                       clip={"x": 0, "y": 0, "width": WIDTH, "height": report.height, "scale": 1})
                    shot = browser.call("Page.captureScreenshot", options, session=session, timeout=timeout)
                    report.screenshot = Path(screenshot)
                    report.screenshot.parent.mkdir(parents=True, exist_ok=True)
                    report.screenshot.write_bytes(base64.b64decode(shot["data"]))
                tables = browser.call("Runtime.evaluate", {"expression": TABLES_JS, "returnByValue": True},
                                      session=session, timeout=timeout)  # last: it opens every fold
                if "exceptionDetails" not in tables:
                    measured = json.loads(tables["result"]["value"])
                    report.wide_tables, report.tall_configurations = measured["wide"], measured["tall"]
                    report.untitled_configurations = measured["untitled"]
                    report.configuration_cells = measured["cells"]
        finally:
            browser.close()
    return report


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Check a local HTML report in headless Chromium.")
    parser.add_argument("html", help="the HTML file (e.g. reports/report.html)")
    parser.add_argument("--screenshot", help="save a PNG of the first screen here")
    parser.add_argument("--full-page", action="store_true", help="screenshot the whole page, not the first screen")
    parser.add_argument("--no-install", action="store_true", help="do not apt-get install chromium when missing")
    args = parser.parse_args(argv)
    try:
        binary = ensure_chromium(install=not args.no_install)
    except ChromiumUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report = check_page(args.html, args.screenshot, binary=binary, full_page=args.full_page)
    print(f"{report.url}: {len(report.images)} images, {len(report.broken_images)} broken, "
          f"{len(report.errors)} console errors, page height {report.height} px"
          + (f", screenshot {report.screenshot}" if report.screenshot else ""))
    for name, height in report.sections.items():
        print(f"  section {name}: {height} px")
    print(f"  document width {report.width} px at a {WIDTH} px window")
    for element in report.overflowing:
        print(f"  past the window: {element}")
    for table in report.wide_tables:
        print(f"  table wider than its box: {table}")
    for cell in report.tall_configurations + [f"{c} (no title)" for c in report.untitled_configurations]:
        print(f"  configuration cell: {cell}")
    for image in report.images:
        print(f"  image {image['alt'][:50]!r}: natural {image['naturalWidth']}x{image['naturalHeight']}, "
              f"drawn {image['width']:.0f}x{image['height']:.0f}")
    for problem in report.errors + [f"broken image: {image}" for image in report.broken_images]:
        print(f"  {problem}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
