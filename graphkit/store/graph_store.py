"""The Neo4j connection, reads, batched writes and schema bootstrap."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import TypeVar

import neo4j
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable, SessionExpired

from graphkit import cypher
from graphkit.errors import BadInputError, BatchWriteError, DatabaseUnavailableError
from graphkit.settings import ConnectionSettings, connection_settings
from graphkit.store.encode import fast_rows
from graphkit.store.schema import Migration, parse_migrations

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 10_000
SCHEMA_ID = "graphkit"


@dataclass
class WriteReport:
    """What a batched write did: rows sent, batches committed, summed counters."""

    rows: int = 0
    batches: int = 0
    counters: dict[str, int] = field(default_factory=dict)

    def add(self, rows: int, counters: neo4j.SummaryCounters) -> None:
        self.rows += rows
        self.batches += 1
        for key in ("nodes_created", "nodes_deleted", "relationships_created",
                    "relationships_deleted", "properties_set"):
            self.counters[key] = self.counters.get(key, 0) + getattr(counters, key)


T = TypeVar("T")


class Tx:
    """A transaction in progress: named statements only (see :meth:`GraphStore.transaction`)."""

    def __init__(self, tx: neo4j.ManagedTransaction):
        self._tx = tx

    def run(self, name: str, **params) -> list[dict]:
        """Rows (a ``rows`` list of maps) travel with datetimes as pandas Timestamps, as in write_batches."""
        if isinstance(params.get("rows"), list):
            params = {**params, "rows": fast_rows(params["rows"])}
        return self._tx.run(cypher.query(name), params).data()


def chunked(rows: Iterable[dict], size: int) -> Iterator[list[dict]]:
    """Consecutive lists of at most ``size`` rows; streams, never materializes the input."""
    it = iter(rows)
    while batch := list(islice(it, size)):
        yield batch


class GraphStore:
    """A Neo4j driver plus graphkit's query conventions.

    Transient failures (``TransientError``, a lost connection, a leader switch) are retried by the
    driver's managed transactions with exponential backoff and jitter for up to ``max_retry_s``;
    anything else (a syntax error, a constraint violation, a wrong password) fails at once.
    """

    def __init__(self, settings: ConnectionSettings, *, batch_size: int = DEFAULT_BATCH_SIZE,
                 max_retry_s: float = 30.0, connect_timeout_s: float = 10.0):
        self.settings = settings
        self.batch_size = batch_size
        self.driver = GraphDatabase.driver(
            settings.uri,
            auth=(settings.user, settings.password),
            max_transaction_retry_time=max_retry_s,
            connection_timeout=connect_timeout_s,
            connection_acquisition_timeout=connect_timeout_s * 3,
            # Our queries are reviewed files; server hints would only flood the user's terminal.
            notifications_min_severity="OFF",
        )

    # -- lifecycle -------------------------------------------------------------------------
    @classmethod
    def connect(cls, home: str | None = None, *, verify: bool = True, **kwargs) -> GraphStore:
        """Connect with :func:`graphkit.settings.connection_settings`; fail fast with exit code 3."""
        store = cls(connection_settings(home), **kwargs)
        if verify:
            store.verify()
        return store

    def verify(self) -> None:
        """Check the server answers and accepts our login, else raise DatabaseUnavailableError."""
        try:
            self.driver.verify_connectivity()
        except AuthError as exc:
            raise DatabaseUnavailableError(
                f"Neo4j at {self.settings.uri} refused the login for user {self.settings.user!r}",
                fix="check NEO4J_USER/NEO4J_PASSWORD, or `graphkit neo4j password` for the local server",
            ) from exc
        except (ServiceUnavailable, SessionExpired, OSError, ValueError) as exc:
            raise DatabaseUnavailableError(
                f"Neo4j at {self.settings.uri} is unreachable ({type(exc).__name__})",
                fix="start it with `graphkit neo4j start`, or check NEO4J_URI and the network",
            ) from exc

    def close(self) -> None:
        self.driver.close()

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _session(self) -> neo4j.Session:
        return self.driver.session(database=self.settings.database)

    # -- reads and single writes -----------------------------------------------------------
    def read(self, name: str, **params) -> list[dict]:
        """Run the named read query; rows as plain dicts."""
        text = cypher.query(name)
        with self._session() as s:
            return self._guard(lambda: s.execute_read(lambda tx: tx.run(text, params).data()))

    def write(self, name: str, **params) -> list[dict]:
        """Run the named write query in one retried transaction; rows as plain dicts."""
        text = cypher.query(name)
        with self._session() as s:
            return self._guard(lambda: s.execute_write(lambda tx: tx.run(text, params).data()))

    def write_many(self, steps: list[tuple[str, dict]]) -> dict[str, int]:
        """Run several named statements in ONE transaction: all of them land, or none does.

        For units that must never be half-written (a whole guideline version). Summed counters.
        """
        texts = [(cypher.query(name), params) for name, params in steps]

        def work(tx):
            totals: dict[str, int] = {}
            for text, params in texts:
                c = tx.run(text, params).consume().counters
                for key in ("nodes_created", "relationships_created", "properties_set", "nodes_deleted"):
                    totals[key] = totals.get(key, 0) + getattr(c, key)
            return totals

        with self._session() as s:
            return self._guard(lambda: s.execute_write(work))

    def transaction(self, work: Callable[[Tx], T]) -> T:
        """Run ``work(tx)`` in ONE managed write transaction and return its result.

        ``tx.run(name, **params)`` runs a named statement and returns its rows. The driver may call
        ``work`` again after a transient error (a deadlock between concurrent jobs, a leader switch),
        so ``work`` must be a pure function of what it reads through ``tx``.
        """
        with self._session() as s:
            return self._guard(lambda: s.execute_write(lambda tx: work(Tx(tx))))

    def run_autocommit(self, name: str, **params) -> dict[str, int]:
        """Run a named statement outside an explicit transaction (``CALL {} IN TRANSACTIONS``).

        Not retried automatically: use it only for statements that are safe to re-run.
        """
        text = cypher.query(name)
        with self._session() as s:
            summary = self._guard(lambda: s.run(text, params).consume())
        c = summary.counters
        return {"nodes_deleted": c.nodes_deleted, "relationships_deleted": c.relationships_deleted}

    def write_batches(self, name: str, rows: Iterable[dict], *, batch_size: int | None = None,
                      on_batch: Callable[[int], None] | None = None) -> WriteReport:
        """``UNWIND $rows`` the named query over ``rows``, one transaction per batch.

        A failing batch rolls back whole and raises :class:`BatchWriteError` naming the batch;
        earlier batches stay committed (queries MERGE on unique keys, so re-running the job
        rewrites nothing twice). O(len(rows)) round trips / batch_size. Datetimes travel as pandas
        Timestamps (:mod:`graphkit.store.encode`): same stored values, a fraction of the packing time.
        """
        text = cypher.query(name)
        report = WriteReport()
        size = batch_size or self.batch_size
        with self._session() as s:
            for index, batch in enumerate(chunked(rows, size)):
                params = fast_rows(batch)
                try:
                    summary = self._guard(
                        lambda: s.execute_write(lambda tx: tx.run(text, rows=params).consume()))
                except Neo4jError as exc:
                    raise BatchWriteError(name, index, index * size, exc) from exc
                report.add(len(batch), summary.counters)
                if on_batch:
                    on_batch(len(batch))
        return report

    def _guard(self, work: Callable):
        """Map 'server gone' (after the driver's retries) to DatabaseUnavailableError."""
        try:
            return work()
        except AuthError as exc:
            raise DatabaseUnavailableError(
                f"Neo4j at {self.settings.uri} refused the login", fix="check the credentials") from exc
        except (ServiceUnavailable, SessionExpired) as exc:
            raise DatabaseUnavailableError(
                f"lost Neo4j at {self.settings.uri} and could not reconnect within the retry time",
                fix="check the server (`graphkit neo4j status`) and re-run; finished batches are kept",
            ) from exc

    def require_patients(self, patients: list[str]) -> list[str]:
        """The ids, de-duplicated, when every one names a patient in the graph; else BadInputError
        (exit code 2) naming the first unknown one. One read."""
        found = {r["id"] for r in self.read("tkg.patients_existing", patients=list(patients))}
        unknown = [p for p in patients if p not in found]
        if unknown:
            more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
            raise BadInputError(f"no patient {unknown[0]!r} in the graph{more}",
                                fix="check the id (`graphkit db counts`), or ingest the patient's notes first")
        return list(dict.fromkeys(patients))

    # -- schema ----------------------------------------------------------------------------
    def schema_version(self, schema_id: str = SCHEMA_ID) -> int:
        return self.read("store.schema_version", id=schema_id)[0]["version"]

    def apply_schema(self, migrations: list[Migration] | None = None,
                     schema_id: str = SCHEMA_ID) -> list[int]:
        """Apply the migrations newer than the recorded version, in order; returns those applied.

        Schema statements cannot share a transaction with data writes, so each runs auto-commit;
        all are ``IF NOT EXISTS``, so an interrupted migration is safe to re-run.
        """
        if migrations is None:
            migrations = parse_migrations((cypher.cypher_dir() / "schema.cypher").read_text())
        current = self.schema_version(schema_id)
        applied = []
        for mig in migrations:
            if mig.version <= current:
                continue
            with self._session() as s:
                for stmt in mig.statements:
                    self._guard(lambda: s.run(stmt).consume())
            self.write("store.set_schema_version", id=schema_id, version=mig.version, title=mig.title)
            applied.append(mig.version)
            log.info("schema migration %d applied: %s", mig.version, mig.title)
        return applied

    def counts(self) -> dict[str, dict[str, int]]:
        """Node counts per label and relationship counts per type."""
        return {
            "nodes": {r["label"]: r["count"] for r in self.read("store.count_by_label")},
            "relationships": {r["type"]: r["count"] for r in self.read("store.count_by_type")},
        }
