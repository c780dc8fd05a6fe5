"""Test fixtures: a real Neo4j for the whole session.

With ``NEO4J_URI`` set the suite runs against that server. Otherwise it installs graphkit's own
Neo4j into ``.pytest-neo4j/`` (ports 17687/17474, so a running demo server is left alone), starts
it once and stops it at the end (``GRAPHKIT_TEST_KEEP_SERVER=1`` keeps it up for the next run).
Every test writes under a unique id prefix and removes what it wrote.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from graphkit.settings import ConnectionSettings, connection_settings  # noqa: E402
from graphkit.store import GraphStore  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TEST_HOME = Path(os.environ.get("GRAPHKIT_TEST_HOME", ROOT / ".pytest-neo4j"))
EXTERNAL = bool(os.environ.get("NEO4J_URI"))


@pytest.fixture(scope="session")
def local_server():
    """The graphkit-managed server, or None when NEO4J_URI names another one."""
    if EXTERNAL:
        yield None
        return
    from graphkit.neo4j.server import InstallOptions, LocalNeo4j

    server = LocalNeo4j(TEST_HOME)
    server.install(InstallOptions(bolt_port=17687, http_port=17474, heap="1g", pagecache="256m"))
    server.start()
    yield server
    if not os.environ.get("GRAPHKIT_TEST_KEEP_SERVER"):
        server.stop()


@pytest.fixture(scope="session")
def settings(local_server) -> ConnectionSettings:
    return connection_settings(None if EXTERNAL else TEST_HOME)


@pytest.fixture(scope="session")
def store(settings):
    s = GraphStore(settings, max_retry_s=20)
    s.verify()
    s.apply_schema()
    yield s
    s.close()


@pytest.fixture
def prefix(store):
    """A unique id prefix for this test; everything under it is deleted afterwards."""
    p = f"test-{uuid.uuid4().hex[:10]}-"
    yield p
    store.write("testing.delete_by_id_prefix", prefix=p)


@pytest.fixture
def needs_local(local_server):
    if local_server is None:
        pytest.skip("needs the server graphkit starts itself (NEO4J_URI names another)")
    return local_server


@pytest.fixture
def cli_env(settings):
    """Environment for running the `graphkit` CLI in a subprocess against the test server."""
    env = dict(os.environ)
    if not EXTERNAL:
        env["GRAPHKIT_HOME"] = str(TEST_HOME)
    return env


@pytest.fixture(scope="session")
def nlp():
    """graphkit's entity + ConText pipeline (built once: ~3 s)."""
    from ingest.nlp import build_pipeline

    return build_pipeline()


def load_repo_guideline(store, name: str):
    """Load a guideline edition from guidelines/; a stale copy of the same edition left in a kept test
    server by an older checkout is replaced."""
    from graphkit.guidelines import load_guideline, validate_file

    spec = validate_file(ROOT / "guidelines" / f"{name}.yaml").spec
    try:
        return load_guideline(store, spec)
    except Exception:
        store.write("testing.delete_guidelines_with_prefix", prefix=spec.id)
        return load_guideline(store, spec)


@pytest.fixture(scope="session")
def embedder(tmp_path_factory):
    """The sentence-embedding model, with a cache private to this test session."""
    from graphkit.align.embed import TextEmbedder

    return TextEmbedder(cache_file=tmp_path_factory.mktemp("emb") / "cache.npz")


@pytest.fixture(scope="session")
def aligned_sample(store, embedder):
    """The sample patient (demo-p001), the breast guideline, and one alignment run of the patient."""
    from graphkit.align.job import run_alignment
    from graphkit.demo.sample import load_sample

    load_sample(store)
    load_repo_guideline(store, "breast-early")
    run = run_alignment(store, patients=["demo-p001"], guidelines=["breast-early"], embedder=embedder).run
    yield "demo-p001"
    store.write("align.delete_run", id=run)
