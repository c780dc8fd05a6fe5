"""graphkit.store against the real Neo4j: schema, batched writes, parameters, reads."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
import pytz

from graphkit import cypher
from graphkit.errors import BatchWriteError, DatabaseUnavailableError
from graphkit.settings import ConnectionSettings
from graphkit.store import GraphStore, parse_migrations


def test_schema_bootstrap_is_idempotent(store):
    version = store.schema_version()
    assert store.apply_schema() == []  # already applied by the fixture: nothing to do
    assert store.schema_version() == version >= 2
    names = {r["name"] for r in store.read("store.constraints")}
    assert {"patient_id", "event_id", "concept_system_code", "guideline_step_uid"} <= names


def test_migrations_apply_in_order_and_only_once(store):
    schema_id = f"test-{uuid.uuid4().hex[:8]}"
    source = """
// migration: 1 first
CREATE INDEX gk_test_index_a IF NOT EXISTS FOR (n:GkTestThing) ON (n.a);
// migration: 2 second
CREATE INDEX gk_test_index_b IF NOT EXISTS FOR (n:GkTestThing) ON (n.b);
"""
    first, both = parse_migrations(source)[:1], parse_migrations(source)
    try:
        assert store.apply_schema(first, schema_id=schema_id) == [1]
        assert store.apply_schema(both, schema_id=schema_id) == [2]  # only the new one runs
        assert store.apply_schema(both, schema_id=schema_id) == []
        assert store.schema_version(schema_id) == 2
    finally:
        store.write("testing.drop_test_index_a")
        store.write("testing.drop_test_index_b")
        store.write("testing.delete_schema_version", id=schema_id)


def test_migrations_must_be_numbered_in_order():
    with pytest.raises(ValueError, match="numbered"):
        parse_migrations("// migration: 2 oops\nRETURN 1;")


def test_batches_write_all_rows_and_rewrite_nothing(store, prefix):
    rows = [{"id": f"{prefix}{i}", "props": {"n": i}} for i in range(25)]
    report = store.write_batches("tkg.merge_patients", rows, batch_size=10)
    assert (report.rows, report.batches, report.counters["nodes_created"]) == (25, 3, 25)
    again = store.write_batches("tkg.merge_patients", rows, batch_size=7)  # a retried job
    assert again.counters["nodes_created"] == 0
    assert len(store.read("testing.patient_ids_with_prefix", prefix=prefix)) == 25


def test_a_failing_batch_rolls_back_whole(store, prefix):
    good = [{"id": f"{prefix}a{i}", "props": {"n": i}} for i in range(3)]
    # A nested map is not a storable property value: the server rejects the second batch.
    bad = [{"id": f"{prefix}b0", "props": {"n": 0}}, {"id": f"{prefix}b1", "props": {"n": {"nested": 1}}},
           {"id": f"{prefix}b2", "props": {"n": 2}}]
    with pytest.raises(BatchWriteError) as info:
        store.write_batches("tkg.merge_patients", good + bad, batch_size=3)
    assert info.value.batch_index == 1 and info.value.first_row == 3
    ids = [r["id"] for r in store.read("testing.patient_ids_with_prefix", prefix=prefix)]
    assert ids == [f"{prefix}a0", f"{prefix}a1", f"{prefix}a2"]  # batch 0 kept, batch 1 not half-written


def test_values_with_cypher_syntax_are_stored_verbatim(store, prefix):
    nasty = prefix + "x'}) DETACH DELETE n // \"; MATCH (m) RETURN m"
    store.write_batches("tkg.merge_patients", [{"id": nasty, "props": {"note": "$param {a:1} `tick`"}}])
    rows = store.read("testing.patient_by_id", id=nasty)
    assert rows == [{"id": nasty, "props": {"id": nasty, "note": "$param {a:1} `tick`"}}]


def test_batched_datetimes_are_stored_exactly_as_the_driver_would_store_them(store, prefix):
    # The batched writer sends datetimes as pandas Timestamps (faster to pack); what lands must be
    # the same Neo4j value, type and zone as a plain datetime sent through the driver's own path.
    moments = {
        "naive": datetime(2024, 3, 20, 9, 30, 15, 123456),
        "utc": datetime(2024, 3, 20, 9, 30, tzinfo=timezone.utc),
        "offset": datetime(2024, 3, 20, 9, 30, tzinfo=timezone(timedelta(hours=-5))),
        "zone": pytz.timezone("Europe/Paris").localize(datetime(2024, 7, 14, 22, 0)),
        "mimic_shifted": datetime(2180, 7, 4, 23, 59, 59),
        "before_pandas": datetime(1600, 1, 1, 12),  # outside a Timestamp's range: sent as is
    }
    store.write_batches("tkg.merge_patients", [{"id": f"{prefix}fast", "props": moments}])
    store.write("tkg.merge_patients", rows=[{"id": f"{prefix}plain", "props": moments}])  # driver's path
    fast = store.read("testing.patient_by_id", id=f"{prefix}fast")[0]["props"]
    plain = store.read("testing.patient_by_id", id=f"{prefix}plain")[0]["props"]
    for key in moments:
        assert type(fast[key]) is type(plain[key]) and fast[key] == plain[key], key
        assert fast[key].tzinfo == plain[key].tzinfo and fast[key].to_native() == moments[key], key
    # A zoneinfo zone too (the driver's own path for these can crash CPython 3.11, so no "plain" here).
    paris = datetime(2024, 7, 14, 22, 0, tzinfo=ZoneInfo("Europe/Paris"))
    store.write_batches("tkg.merge_patients", [{"id": f"{prefix}zoneinfo", "props": {"at": paris}}])
    back = store.read("testing.patient_by_id", id=f"{prefix}zoneinfo")[0]["props"]["at"]
    assert back.to_native() == paris and back.tzinfo.zone == "Europe/Paris"


def test_reads_return_plain_python_data(store):
    rows = store.read("store.components")
    assert isinstance(rows, list) and isinstance(rows[0], dict)
    assert rows[0]["version"].startswith("5.") and rows[0]["name"] == "Neo4j Kernel"


def test_every_project_statement_compiles_on_the_server(store):
    """EXPLAIN each named statement in cypher/*.cypher: a typo fails here, not in a user's job."""
    checked = 0
    for path in sorted(cypher.cypher_dir().glob("*.cypher")):
        if path.stem in ("schema", "testing"):
            continue
        for stmt in cypher.parse_statements(path.read_text(), path.stem).values():
            if stmt.text.upper().startswith(("SHOW", "CALL DBMS")):
                continue
            with store.driver.session() as s:
                s.run("EXPLAIN " + stmt.text).consume()
            checked += 1
    assert checked >= 15


def test_unreachable_server_is_a_clear_error():
    settings = ConnectionSettings(uri="bolt://127.0.0.1:1", user="neo4j", password="x")
    with pytest.raises(DatabaseUnavailableError, match="unreachable"):
        GraphStore(settings, connect_timeout_s=2).verify()


def test_wrong_password_is_a_clear_error(settings):
    wrong = ConnectionSettings(uri=settings.uri, user=settings.user, password="not-the-password")
    with pytest.raises(DatabaseUnavailableError, match="refused the login"):
        GraphStore(wrong).verify()


def test_settings_never_show_the_password(settings):
    assert settings.password not in repr(settings)


def test_browser_queries_compile(store):
    """The saved Neo4j Browser queries in cypher/browser/ are valid Cypher on the server."""
    checked = 0
    for path in sorted((cypher.cypher_dir() / "browser").glob("*.cypher")):
        for stmt in cypher.parse_statements(path.read_text(), f"browser/{path.stem}").values():
            if "$" in stmt.text:
                assert ":param" in stmt.doc, f"{stmt.name} does not document its parameters"
            with store.driver.session() as s:
                s.run("EXPLAIN " + stmt.text).consume()
            checked += 1
    assert checked >= 4
