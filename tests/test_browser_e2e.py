"""Neo4j Browser, driven end to end in a real browser (Debian's Chromium through Playwright).

Against the local Neo4j that graphkit starts for the tests: open Browser, log in with the generated
credentials, load graphkit's style, run the saved timeline and aligned-path queries for the sample
patient, and check that Browser drew exactly the nodes the same queries return from the database.
Screenshots go to the test's temporary folder (or to docs/ with GRAPHKIT_UPDATE_DOCS=1).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path

import pytest

from graphkit.cli.browser_cmd import saved_queries, style_command

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def labels_of(store, cypher: str, params: dict) -> Counter:
    """Distinct nodes per label in a query's result, as Browser's Overview counts them."""
    seen: dict[str, str] = {}
    with store.driver.session(database=store.settings.database) as s:
        for record in s.run(cypher, params):
            for value in record.values():
                for node in value if isinstance(value, list) else [value]:
                    if hasattr(node, "labels"):
                        seen[node.element_id] = next(iter(node.labels))
    return Counter(seen.values())


def test_browser_shows_the_timeline_and_the_aligned_path(needs_local, store, settings, aligned_sample, tmp_path):
    from graphkit.browser import BrowserSession
    from graphkit.settings import read_credentials

    creds = read_credentials(needs_local.home)
    queries = {q["name"]: q["cypher"] for q in saved_queries()}
    shots = ROOT / "docs" if os.environ.get("GRAPHKIT_UPDATE_DOCS") else tmp_path
    t0 = time.perf_counter()
    with BrowserSession(creds["browser"]) as browser:
        browser.connect(settings.user, settings.password, bolt_url=settings.uri.split("://", 1)[-1])
        browser.command(":config autoComplete: false")
        browser.command(style_command())
        browser.command(f":param patient => '{aligned_sample}'")

        timeline = browser.run_graph(queries["patient_timeline"])
        expected = labels_of(store, queries["patient_timeline"], {"patient": aligned_sample})
        assert expected["Encounter"] == 4 and expected["Event"] > 0
        assert timeline.labels == dict(expected)
        assert timeline.nodes == sum(expected.values())
        png = browser.screenshot(shots / "test-browser-timeline.png")
        assert png.stat().st_size > 10_000

        aligned = browser.run_graph(queries["patient_alignment"])
        expected = labels_of(store, queries["patient_alignment"], {"patient": aligned_sample})
        assert expected["GuidelineStep"] >= 5 and expected["Event"] >= 1 and expected["Patient"] == 1
        assert aligned.labels == dict(expected)
        assert any("stag" in c.lower() or "biopsy" in c.lower() for c in aligned.captions)  # step names drawn
        browser.screenshot(shots / "test-browser-aligned-path.png")
    print(f"browser test: {time.perf_counter() - t0:.1f} s")
