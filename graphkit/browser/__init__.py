"""Neo4j Browser driven by a real browser (Playwright + the system Chromium): screenshots of saved
queries for reports, and the end-to-end test of graphkit's Browser experience."""

from graphkit.browser.session import BrowserSession, find_chromium

__all__ = ["BrowserSession", "find_chromium"]
