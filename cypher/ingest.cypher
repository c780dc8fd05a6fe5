// Ingestion writers. A batch of notes (all statements below, in order) runs in ONE transaction, so a
// note is either completely in the graph, with its sha256, or not at all: a crashed job resumes by
// skipping the notes whose sha256 is already stored.

// name: note_hashes
// The stored sha256 of the given note ids (to skip unchanged notes and replace changed ones).
UNWIND $ids AS id
MATCH (n:Note {id: id})
RETURN n.id AS id, n.sha256 AS sha256, n.pipeline AS pipeline

// name: claim_notes
// Lock the batch's notes inside the writing transaction and return what is stored now, so that two
// jobs ingesting the same file at once never both write (and report) a note: the second one waits
// for the first to commit, then sees its sha256. Rows are sorted by id (a fixed lock order).
UNWIND $rows AS r
MERGE (n:Note {id: r.id})
SET n.claimed = true
REMOVE n.claimed
RETURN n.id AS id, n.sha256 AS sha256, n.pipeline AS pipeline

// name: mark_relink
// Written in the same transaction as a batch of a patient's events: the patient's NEXT chains must be
// rebuilt. The mark is cleared only by relink_trajectory, so a crash between the two is healed by any
// later run (patients_needing_relink).
UNWIND $patients AS pid
MATCH (p:Patient {id: pid})
SET p.needs_relink = true

// name: patients_needing_relink
MATCH (p:Patient)
WHERE p.needs_relink = true
RETURN p.id AS id
ORDER BY id

// name: delete_note_content
// A changed note: remove its sections, sentences and the events they evidence (the Note node stays).
UNWIND $ids AS id
MATCH (n:Note {id: id})-[:HAS_SECTION]->(s:Section)
OPTIONAL MATCH (s)-[:HAS_SENTENCE]->(t:Sentence)
OPTIONAL MATCH (ev:Event)-[:EVIDENCED_BY]->(t)
OPTIONAL MATCH (n)-[:HAS_CHUNK]->(c:Chunk)
DETACH DELETE ev, t, s, c

// name: merge_fact_events
// Events from structured resources; the encounter may be missing (then the patient holds the event).
UNWIND $rows AS r
MERGE (ev:Event {id: r.id})
SET ev.kind = r.kind, ev.text = r.text, ev.assertion = r.assertion, ev.valid_time = r.valid_time,
    ev.recorded_time = r.recorded_time, ev.order = r.order, ev.patient = r.patient, ev.value = r.value,
    ev.values = r.values, ev.detail = r.detail, ev.flags = r.flags,
    ev.source = r.source, ev.note = r.note, ev.cue = r.cue, ev.context = r.context
WITH ev, r
OPTIONAL MATCH (enc:Encounter {id: r.encounter})
OPTIONAL MATCH (p:Patient {id: r.patient})
FOREACH (_ IN CASE WHEN enc IS NOT NULL THEN [1] ELSE [] END | MERGE (enc)-[:HAS_EVENT]->(ev))
FOREACH (_ IN CASE WHEN enc IS NULL AND p IS NOT NULL THEN [1] ELSE [] END | MERGE (p)-[:HAS_EVENT]->(ev))
FOREACH (_ IN CASE WHEN p IS NOT NULL THEN [1] ELSE [] END | SET p.needs_relink = true)

// name: relink_trajectory
// Rebuild each patient's NEXT chain over all its events in time order (valid time, then encounter
// order) and the NEXT_ENCOUNTER chain, and clear the patient's needs_relink mark in the same
// transaction. O(events of the patients): the old chain is found from the patient's events by index
// (left to itself the planner scanned every NEXT relationship of the database, O(all events) per call).
UNWIND $patients AS pid
MATCH (p:Patient {id: pid})
REMOVE p.needs_relink
WITH p, pid
CALL {
  WITH pid
  MATCH (a:Event {patient: pid})-[old:NEXT]->(:Event)
  USING INDEX a:Event(patient)
  DELETE old
}
WITH p, pid
MATCH (ev:Event {patient: pid})
WITH p, pid, ev ORDER BY ev.valid_time, ev.order, ev.id
WITH p, pid, collect(ev) AS evs
FOREACH (i IN range(0, size(evs) - 2) | FOREACH (a IN [evs[i]] | FOREACH (b IN [evs[i + 1]] | MERGE (a)-[:NEXT]->(b))))
WITH p, pid
OPTIONAL MATCH (p)-[:HAD_ENCOUNTER]->(e:Encounter)
WITH p, e ORDER BY e.start, e.id
WITH p, collect(e) AS encs
FOREACH (i IN range(0, size(encs) - 2) | FOREACH (a IN [encs[i]] | FOREACH (b IN [encs[i + 1]] | MERGE (a)-[:NEXT_ENCOUNTER]->(b))))

// name: first_patient
// A patient with a cancer event from notes, to suggest in the demo.
MATCH (ev:Event {kind: 'Cancer', source: 'note'})
RETURN ev.patient AS id ORDER BY id LIMIT 1
