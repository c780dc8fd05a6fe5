"""Batched UNWIND writer vs one transaction per row, on one synthetic patient graph.

    python bench/write_throughput.py [--encounters 800] [--batch-size 5000]

Builds one synthetic patient (encounters → notes → sections → sentences → events with evidence,
codes and the NEXT chain; >= 200,000 nodes + relationships at the default size), writes it with
``GraphStore.write_batches`` and then, under other ids, the same graph with a naive writer that
commits every row in its own transaction. Uses NEO4J_URI, else graphkit's local server (installed
and started if needed). Also times a restart of the local server (start → Bolt ready).

Both writers are measured on a warm server, the state a long ingestion job runs in. After a restart
the JVM keeps compiling (its C2 compiler thread takes one of the two cores) until about a million
elements have been written: passes of the batched writer over the full graph ran at 15k, 30k,
30k, 33k, 36k, 39k, 39k, 38k elements/s (and 42-45k after a few more). So, untimed, the batched
writer first writes (and deletes)
the graph --warmup-passes times, then the naive writer writes a small graph (its own query plans;
the JIT it shares is warm by then). Every warm-up pass's speed is reported
(``batched_warmup_passes``; the first is the cold server). Datetimes travel as pandas Timestamps for both writers
(``graphkit.store.encode``).
Last line: JSON with batched_elements_per_s, naive_elements_per_s, ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timedelta

from graphkit import cypher
from graphkit.settings import connection_settings
from graphkit.store import GraphStore
from graphkit.store.encode import fast_rows

ORDER = ["merge_patients", "merge_encounters", "link_next_encounter", "merge_notes", "merge_sections",
         "merge_sentences", "merge_concepts", "merge_events", "link_evidence", "link_instance_of",
         "link_next_event"]


def synthetic_patient(prefix: str, encounters: int, sections: int = 5, sentences: int = 8,
                      concepts: int = 500) -> dict[str, list[dict]]:
    """Writer rows for one patient; one event per sentence. Deterministic."""
    rows: dict[str, list[dict]] = {k: [] for k in ORDER}
    pid = f"{prefix}p"
    rows["merge_patients"].append({"id": pid, "props": {"synthetic": True}})
    rows["merge_concepts"] = [{"system": "BENCH", "code": str(c), "name": f"concept {c}"} for c in range(concepts)]
    t0 = datetime(2020, 1, 1)
    event_ids = []
    for e in range(encounters):
        enc, note, when = f"{prefix}e{e}", f"{prefix}n{e}", t0 + timedelta(days=e)
        rows["merge_encounters"].append({"id": enc, "patient": pid, "start": when,
                                         "end": when + timedelta(hours=1), "class": "ambulatory"})
        rows["merge_notes"].append({"id": note, "encounter": enc, "type": "Progress note", "patient": pid,
                                    "authored_at": when + timedelta(hours=2), "sha256": f"{e:064x}"})
        for s in range(sections):
            sec = f"{note}:s{s}"
            rows["merge_sections"].append({"id": sec, "note": note, "name": f"Section {s}", "idx": s})
            for t in range(sentences):
                sent, ev = f"{sec}:t{t}", f"{sec}:ev{t}"
                rows["merge_sentences"].append({"id": sent, "section": sec, "idx": t, "start": t * 90,
                                                "end": t * 90 + 80, "text": f"Synthetic sentence {t} of {sec}."})
                rows["merge_events"].append({"id": ev, "encounter": enc, "patient": pid, "kind": "Problem",
                                             "text": f"finding {t}", "assertion": "present", "valid_time": when,
                                             "recorded_time": when + timedelta(hours=2),
                                             "order": s * sentences + t, "value": None})
                rows["link_evidence"].append({"event": ev, "sentence": sent, "start": 0, "end": 9})
                rows["link_instance_of"].append({"event": ev, "system": "BENCH",
                                                 "code": str((e * 7 + s * 3 + t) % concepts)})
                event_ids.append(ev)
    rows["link_next_encounter"] = [{"from": f"{prefix}e{i}", "to": f"{prefix}e{i + 1}"}
                                   for i in range(encounters - 1)]
    rows["link_next_event"] = [{"from": a, "to": b} for a, b in zip(event_ids, event_ids[1:])]
    return rows


def write_batched(store: GraphStore, rows, batch_size: int) -> int:
    created = 0
    for name in ORDER:
        c = store.write_batches(f"tkg.{name}", rows[name], batch_size=batch_size).counters
        created += c.get("nodes_created", 0) + c.get("relationships_created", 0)
    return created


def write_naive(store: GraphStore, rows) -> int:
    """The baseline: the same statements and the same parameter encoding (pandas Timestamps, as
    ``write_batches`` sends them), but one transaction (and one commit) per row."""
    created = 0
    with store.driver.session(database=store.settings.database) as session:
        for name in ORDER:
            text = cypher.query(f"tkg.{name}")
            for row in rows[name]:
                params = fast_rows([row])
                c = session.execute_write(lambda tx: tx.run(text, rows=params).consume()).counters
                created += c.nodes_created + c.relationships_created
    return created


def ensure_server():
    """Start graphkit's local server unless NEO4J_URI names one; returns it (or None)."""
    if os.environ.get("NEO4J_URI"):
        return None
    from graphkit.neo4j import LocalNeo4j

    server = LocalNeo4j()
    if not server.is_installed():
        server.install()
    server.start()
    return server


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--encounters", type=int, default=800, help="graph size (800 → ~236k elements)")
    ap.add_argument("--batch-size", type=int, default=10_000)
    ap.add_argument("--warmup-passes", type=int, default=8,
                    help="untimed warm-up passes of the batched writer over the full graph (JIT)")
    ap.add_argument("--naive-warmup-encounters", type=int, default=40,
                    help="untimed warm-up graph of the naive writer (40 → ~12k transactions)")
    ap.add_argument("--writers", default="batched,naive", help="which writers to run (comma-separated)")
    args = ap.parse_args()
    writers = args.writers.split(",")

    server = ensure_server()
    restart_s = None
    if server is not None:  # target: start → Bolt ready <= 60 s
        server.stop()
        restart_s = round(server.start(), 2)
    store = GraphStore(connection_settings())
    store.apply_schema()
    stamp = time.strftime("%H%M%S")
    results = {}
    try:
        # Warm-up, untimed: the server's JIT and query-plan cache start cold after a restart, which
        # would penalize whichever writer runs first (see the module doc).
        chosen = [(label, writer) for label, writer in
                  (("batched", lambda r: write_batched(store, r, args.batch_size)),
                   ("naive", lambda r: write_naive(store, r))) if label in writers]
        warm_speeds = []
        for label, writer in chosen:
            passes = args.warmup_passes if label == "batched" else 1
            size = args.encounters if label == "batched" else args.naive_warmup_encounters
            for i in range(passes):
                prefix = f"bench-{stamp}-warm{i}-{label}-"
                t = time.perf_counter()
                elements = writer(synthetic_patient(prefix, size))
                speed = elements / (time.perf_counter() - t)
                store.run_autocommit("bench.delete_by_id_prefix", prefix=prefix)
                store.run_autocommit("bench.delete_concepts_of_system", system="BENCH")
                if label == "batched":
                    warm_speeds.append(round(speed))
                    print(f"warm-up pass {i + 1}: {speed:,.0f} elements/s", file=sys.stderr)
        for label, writer in chosen:
            prefix = f"bench-{stamp}-{label}-"
            rows = synthetic_patient(prefix, args.encounters)
            t = time.perf_counter()
            elements = writer(rows)
            seconds = time.perf_counter() - t
            results[label] = (elements, seconds)
            print(f"{label:8s} {elements:,} elements in {seconds:.1f} s = {elements / seconds:,.0f} elements/s",
                  file=sys.stderr)
            store.run_autocommit("bench.delete_by_id_prefix", prefix=prefix)
            store.run_autocommit("bench.delete_concepts_of_system", system="BENCH")
    finally:
        store.run_autocommit("bench.delete_concepts_of_system", system="BENCH")
        store.close()
    if len(results) < 2:
        print(json.dumps({f"{k}_elements_per_s": round(e / s) for k, (e, s) in results.items()}))
        return 0
    (b_el, b_s), (n_el, n_s) = results["batched"], results["naive"]
    assert b_el == n_el, f"writers disagree: {b_el} vs {n_el} elements"
    out = {
        "elements": b_el,
        "batch_size": args.batch_size,
        "batched_elements_per_s": round(b_el / b_s),
        "naive_elements_per_s": round(n_el / n_s),
        "ratio": round((b_el / b_s) / (n_el / n_s), 1),
        "batched_seconds": round(b_s, 2),
        "naive_seconds": round(n_s, 2),
        "batched_warmup_passes": warm_speeds,
        "start_to_bolt_ready_s": restart_s,
        "cpus": os.cpu_count(),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
