"""A Neo4j Browser session in headless Chromium: connect, style, set parameters, run, screenshot.

Uses the system Chromium (Debian's ``chromium`` package, or ``GRAPHKIT_CHROMIUM``); Playwright never
downloads a browser here. Selectors are Neo4j Browser 5's ``data-testid`` attributes.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from graphkit.errors import GraphkitError

_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str:
    """Path of a Chromium/Chrome executable, or a GraphkitError saying how to get one."""
    explicit = os.environ.get("GRAPHKIT_CHROMIUM")
    if explicit:
        return explicit
    for name in _CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    raise GraphkitError("no Chromium found for driving Neo4j Browser",
                        fix="apt-get install chromium (or set GRAPHKIT_CHROMIUM to a Chrome/Chromium binary)")


@dataclass
class Frame:
    """What a result frame drew: counts, node captions, and the Overview's nodes per label."""

    nodes: int
    relationships: int
    captions: list[str]
    labels: dict[str, int]


class BrowserSession:
    """``with BrowserSession(url) as b: b.connect(user, pw); b.run(query); b.screenshot(path)``."""

    def __init__(self, browser_url: str, width: int = 1600, height: int = 1000, timeout_s: float = 60):
        self.url = browser_url
        self.size = {"width": width, "height": height}
        self.timeout_ms = int(timeout_s * 1000)

    def __enter__(self) -> BrowserSession:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as exc:
            raise GraphkitError("Playwright is not installed", fix="pip install 'graphkit[browser]'") from exc
        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(executable_path=find_chromium(),
                                                 args=["--no-sandbox", "--disable-gpu"])
        self.page = self._browser.new_page(viewport=self.size)
        self.page.set_default_timeout(self.timeout_ms)
        return self

    def __exit__(self, *exc) -> None:
        self._browser.close()
        self._pw.stop()

    def connect(self, user: str, password: str, bolt_url: str | None = None) -> float:
        """Open Browser and log in; returns the seconds it took."""
        t = time.perf_counter()
        self.page.goto(self.url)
        if bolt_url:
            self.page.locator('[data-testid="boltaddress"]').fill(bolt_url)
        self.page.locator('[data-testid="username"]').fill(user)
        self.page.locator('[data-testid="password"]').fill(password)
        self.page.locator('[data-testid="connect"]').click()
        self.page.wait_for_selector("text=You are connected")
        return time.perf_counter() - t

    def command(self, text: str, settle_ms: int = 800) -> None:
        """Type a command or query into the editor and run it (multi-line text is fine)."""
        editor = self.page.locator('[data-testid="activeEditor"] textarea').first
        editor.click()
        self.page.keyboard.press("Control+A")
        self.page.keyboard.press("Delete")
        self.page.keyboard.insert_text(text)
        self.page.locator('[data-testid="editor-Run"]').click()
        self.page.wait_for_timeout(settle_ms)

    def run_graph(self, query: str, min_nodes: int = 1, settle_ms: int = 2500) -> Frame:
        """Run a query whose result is drawn as a graph; wait for the drawing to settle."""
        self.command(query, settle_ms=0)
        frame = self.page.locator("article").first  # newest result frame is on top
        frame.locator("svg g.node").nth(min_nodes - 1).wait_for()
        self.page.wait_for_timeout(settle_ms)  # the force layout keeps moving for a moment
        captions = [c.strip() for c in frame.locator("svg g.node text").all_text_contents() if c.strip()]
        labels = {}
        for badge in frame.locator('[data-testid^="property-details-overview-node-label-"]').all():
            m = re.match(r"(.+?) \((\d+)\)$", badge.inner_text().strip())
            if m and m.group(1) != "*":
                labels[m.group(1)] = int(m.group(2))
        return Frame(frame.locator("svg g.node").count(), frame.locator("svg g.relationship").count(), captions,
                     labels)

    def dismiss_banners(self) -> None:
        """Close the usage-data banner so screenshots show only the graph."""
        close = self.page.locator("text=To help make Neo4j Browser better").locator("xpath=..").locator("button")
        if close.count():
            close.first.click()

    def screenshot(self, path: Path, fullscreen: bool = True, settle_ms: int = 2500) -> Path:
        """PNG of the newest result frame (enlarged to the whole window by default)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        frame = self.page.locator("article").first
        if fullscreen:
            frame.locator('button[title="Fullscreen"]').first.click()
            self.page.wait_for_timeout(settle_ms)
            fit = frame.locator('button[aria-label="zoom-to-fit"]')
            if fit.count():
                fit.first.click()
                self.page.wait_for_timeout(1000)
            self.page.screenshot(path=str(path))
            frame.locator('button[title="Close fullscreen"], button[title="Fullscreen"]').first.click()
        else:
            frame.screenshot(path=str(path))
        return path
