"""The local Neo4j that graphkit provisions: install, start/stop/status, faults."""

from __future__ import annotations

import http.server
import json
import os
import socket
import stat
import subprocess
import sys
import threading

import pytest

from graphkit.errors import DatabaseUnavailableError, GraphkitError
from graphkit.neo4j.artifacts import Artifact, Lock, fetch_artifacts, load_lock
from graphkit.neo4j.server import InstallOptions, LocalNeo4j, java_executable
from graphkit.settings import read_credentials
from graphkit.store import GraphStore

LOCK = load_lock()


def test_lock_pins_neo4j_5_26_with_the_browser():
    assert LOCK.neo4j_version.startswith("5.26.")
    files = {a.file for a in LOCK.artifacts}
    assert f"neo4j-{LOCK.neo4j_version}.jar" in files and f"neo4j-browser-{LOCK.browser_version}.jar" in files
    assert all(len(a.sha256) == 64 for a in LOCK.artifacts)


def test_install_is_idempotent_and_keeps_the_password(needs_local):
    server = needs_local
    before = read_credentials(server.home)
    assert server.install() is False  # same version and options: nothing to do
    assert read_credentials(server.home) == before
    mode = stat.S_IMODE((server.home / "credentials.json").stat().st_mode)
    assert mode == 0o600
    # a config written by an older graphkit (or edited by hand) is brought back to the template
    conf = server.neo4j_home / "conf" / "neo4j.conf"
    current = conf.read_text()
    conf.write_text(current.replace("256M size", "1 days"))
    assert server.install() is True and conf.read_text() == current
    assert "db.tx_log.rotation.retention_policy=256M size" in current  # bounded transaction logs
    assert read_credentials(server.home) == before


def test_status_reports_the_running_server(needs_local):
    st = needs_local.status()
    assert st.installed and st.running and st.pid
    assert st.version == LOCK.neo4j_version
    assert st.bolt_uri == "bolt://localhost:17687"
    assert st.browser_url == "http://localhost:17474/browser/"
    assert st.store_bytes > 0 and st.home_bytes > st.store_bytes


def test_browser_is_served(needs_local):
    import urllib.request

    with urllib.request.urlopen("http://127.0.0.1:17474/browser/", timeout=10) as resp:
        assert resp.status == 200 and b"<html" in resp.read(2000).lower()


@pytest.mark.slow
def test_store_reconnects_after_the_server_restarts(needs_local, store, prefix):
    store.write_batches("tkg.merge_patients", [{"id": f"{prefix}before", "props": {}}])
    assert needs_local.stop() is True
    assert needs_local.status().running is False
    with pytest.raises(DatabaseUnavailableError):
        GraphStore(store.settings, connect_timeout_s=2).verify()
    needs_local.start()
    # the same store object (its pooled connections are dead) simply carries on
    store.write_batches("tkg.merge_patients", [{"id": f"{prefix}after", "props": {}}])
    ids = [r["id"] for r in store.read("testing.patient_ids_with_prefix", prefix=prefix)]
    assert ids == [f"{prefix}after", f"{prefix}before"]


def test_port_in_use_is_reported_with_a_fix(needs_local, tmp_path):
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        other = LocalNeo4j(tmp_path / "other")
        other.install(InstallOptions(bolt_port=port, http_port=port + 1 if port < 65535 else port - 1))
        with pytest.raises(GraphkitError, match=f"port {port} is already in use"):
            other.start()


def test_java_that_is_too_old_or_missing(tmp_path, monkeypatch):
    fake = tmp_path / "jdk" / "bin"
    fake.mkdir(parents=True)
    (fake / "java").write_text('#!/bin/sh\necho \'openjdk version "11.0.22" 2024-01-16\' >&2\n')
    (fake / "java").chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    with pytest.raises(GraphkitError, match="Java 11 .* too old"):
        java_executable()
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nowhere"))
    with pytest.raises(GraphkitError, match="no Java runtime"):
        java_executable()


def _small_artifact() -> Artifact:
    return min(LOCK.artifacts, key=lambda a: a.size)


def _one_jar_lock(art: Artifact) -> Lock:
    return Lock(LOCK.neo4j_version, LOCK.browser_version, LOCK.main_class, LOCK.admin_class, (art,))


def test_corrupted_cached_jar_is_replaced(tmp_path, needs_local):
    art = _small_artifact()
    (tmp_path / art.file).write_bytes(b"truncated")  # a partial download left behind
    fetch_artifacts(_one_jar_lock(art), tmp_path)  # refetched from the verified sources
    assert (tmp_path / art.file).stat().st_size == art.size


def test_corrupted_download_is_rejected(tmp_path, monkeypatch, needs_local):
    """A repository serving a tampered jar: install refuses it and names the file."""
    art = _small_artifact()
    served = tmp_path / "repo" / art.path
    served.parent.mkdir(parents=True)
    served.write_bytes(b"x" * art.size)

    handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=str(tmp_path / "repo"), **k)  # noqa: E731
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("GRAPHKIT_MAVEN_REPOSITORY", f"http://127.0.0.1:{httpd.server_address[1]}")
        monkeypatch.setenv("MAVEN_LOCAL_REPOSITORY", str(tmp_path / "empty-m2"))
        with pytest.raises(GraphkitError, match=f"checksum mismatch for {art.file}"):
            fetch_artifacts(_one_jar_lock(art), tmp_path / "cache")
        assert not (tmp_path / "cache" / art.file).exists()  # nothing half-written is kept
        assert not list((tmp_path / "cache").glob("*.part"))
    finally:
        httpd.shutdown()


def _cli(args, env, timeout=120):
    return subprocess.run([sys.executable, "-m", "graphkit.cli.app", *args], env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_cli_exit_code_3_when_the_database_is_unreachable(tmp_path):
    env = dict(os.environ, NEO4J_URI="bolt://127.0.0.1:1", NEO4J_PASSWORD="x")
    proc = _cli(["db", "counts"], env)
    assert proc.returncode == 3
    assert "unreachable" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 2  # the error line and the fix line


def test_cli_exit_code_2_on_bad_usage():
    proc = _cli(["timeline"], dict(os.environ))
    assert proc.returncode == 2


def test_cli_status_json(needs_local, cli_env):
    proc = _cli(["neo4j", "status", "--json"], cli_env)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["running"] is True and data["version"] == LOCK.neo4j_version
    assert "password" not in proc.stdout
