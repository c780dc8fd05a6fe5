// Statements the benchmarks use besides the regular writers.

// name: delete_by_id_prefix
// Remove a benchmark's graph in chunks (needs an auto-commit transaction).
MATCH (n) WHERE n.id STARTS WITH $prefix
CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS

// name: delete_concepts_of_system
MATCH (c:Concept {system: $system})
CALL { WITH c DETACH DELETE c } IN TRANSACTIONS OF 10000 ROWS

// name: clone_patient_trajectory
// A synthetic patient for the alignment benchmark: a copy of a template patient's first $limit
// events (kind, text, assertion, times, codes) under new ids with the prefix $dst.
MATCH (src:Event {patient: $src})
WITH src ORDER BY src.valid_time, src.order, src.id LIMIT $limit
WITH collect(src) AS evs
MERGE (p:Patient {id: $dst})
WITH p, evs
UNWIND range(0, size(evs) - 1) AS i
WITH p, evs[i] AS src, i
CREATE (ev:Event {id: $dst + ':' + toString(i), patient: $dst, kind: src.kind, text: src.text,
                  assertion: src.assertion, valid_time: src.valid_time, order: src.order,
                  source: src.source, value: src.value, values: src.values, detail: src.detail,
                  flags: src.flags, context: src.context})
CREATE (p)-[:HAS_EVENT]->(ev)
WITH src, ev
MATCH (src)-[:INSTANCE_OF]->(c:Concept)
CREATE (ev)-[:INSTANCE_OF]->(c)

// name: delete_conformance_with_prefix
// Remove what alignments wrote for the benchmark's synthetic patients (in chunks: auto-commit).
MATCH (ci:ConformanceItem) WHERE ci.patient STARTS WITH $prefix
CALL { WITH ci DETACH DELETE ci } IN TRANSACTIONS OF 10000 ROWS

// name: delete_events_with_prefix
MATCH (ev:Event) WHERE ev.patient STARTS WITH $prefix
CALL { WITH ev DETACH DELETE ev } IN TRANSACTIONS OF 5000 ROWS

// name: delete_patients_with_prefix
MATCH (p:Patient) WHERE p.id STARTS WITH $prefix
CALL { WITH p DETACH DELETE p } IN TRANSACTIONS OF 5000 ROWS

// name: delete_runs_with_prefix
MATCH (r:AlignmentRun) WHERE r.id STARTS WITH $prefix
CALL { WITH r DETACH DELETE r } IN TRANSACTIONS OF 1000 ROWS

// name: pykeen_newest_run
// Link-prediction bench (bench/align_pykeen.py): the merged graph flattened into triples.
MATCH (r:AlignmentRun) RETURN r.id AS id ORDER BY r.started_at DESC LIMIT 1

// name: pykeen_instance_of
MATCH (e:Event)-[:INSTANCE_OF]->(c:Concept)
WHERE e.assertion IN $assertions
RETURN e.id AS event, c.system AS system, c.code AS code

// name: pykeen_event_next
MATCH (a:Event)-[:NEXT]->(b:Event) RETURN a.id AS head, b.id AS tail

// name: pykeen_steps
MATCH (s:GuidelineStep) RETURN s.uid AS uid, s.guideline AS guideline

// name: pykeen_step_next
MATCH (a:GuidelineStep)-[:NEXT]->(b:GuidelineStep) RETURN a.uid AS head, b.uid AS tail

// name: pykeen_coded_as
MATCH (s:GuidelineStep)-[:CODED_AS]->(c:Concept)
RETURN s.uid AS step, c.system AS system, c.code AS code

// name: pykeen_aligned_to
MATCH (e:Event)-[a:ALIGNED_TO {run: $run}]->(s:GuidelineStep)
RETURN e.id AS event, e.patient AS patient, s.uid AS step, s.guideline AS guideline, a.role AS role

// name: wipe
// Empty the database (schema stays): the fault-injection bench starts every trial from nothing.
MATCH (n)
CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS

// name: all_nodes
// Every node with its labels and properties (the canonical graph checksum).
MATCH (n)
RETURN elementId(n) AS eid, labels(n) AS labels, properties(n) AS props

// name: all_relationships
MATCH (a)-[r]->(b)
RETURN elementId(a) AS a, elementId(b) AS b, type(r) AS type, properties(r) AS props

// name: notes_existing
UNWIND $ids AS id
MATCH (n:Note {id: id})
RETURN n.id AS id

// name: orphans
// Text nodes whose note is gone, events whose patient is gone: what an erasure must not leave.
OPTIONAL MATCH (s:Section) WHERE NOT ()-[:HAS_SECTION]->(s)
WITH count(s) AS sections
OPTIONAL MATCH (t:Sentence) WHERE NOT ()-[:HAS_SENTENCE]->(t)
WITH sections, count(t) AS sentences
OPTIONAL MATCH (ev:Event) WHERE NOT EXISTS { MATCH (:Patient {id: ev.patient}) }
RETURN sections, sentences, count(ev) AS events

// name: ingest_started
// True once an ingestion job has written its first note.
OPTIONAL MATCH (n:Note)
RETURN count(n) > 0 AS started

// name: align_started
// True once an alignment job has written its first patient's result.
OPTIONAL MATCH (:AlignmentRun)-[c:COVERS]->()
RETURN count(c) > 0 AS started

// name: delete_reasoning_with_prefix
// Remove the state snapshots and care assessments written for the benchmark's synthetic patients.
MATCH (n) WHERE (n:PatientState OR n:CareAssessment OR n:CareItem) AND n.patient STARTS WITH $prefix
CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS

// name: count_nodes_with_prefix
// Nodes of patients whose id starts with $prefix (any node carrying `patient`), by label.
MATCH (n) WHERE n.patient STARTS WITH $prefix OR (n:Patient AND n.id STARTS WITH $prefix)
RETURN labels(n)[0] AS label, count(*) AS n
ORDER BY label

// name: nodes_with_prefix
// Every node of those patients with its properties (for a checksum): the nodes carrying `patient`, and
// their notes' sections and sentences.
MATCH (n) WHERE n.patient STARTS WITH $prefix OR (n:Patient AND n.id STARTS WITH $prefix)
RETURN labels(n)[0] AS label, properties(n) AS props
UNION ALL
MATCH (n:Note)-[:HAS_SECTION]->(s:Section) WHERE n.patient STARTS WITH $prefix
OPTIONAL MATCH (s)-[:HAS_SENTENCE]->(t:Sentence)
WITH s, collect(t) AS ts
UNWIND [s] + ts AS x
RETURN labels(x)[0] AS label, properties(x) AS props

// name: relationships_with_prefix
MATCH (a)-[r]->(b) WHERE a.patient STARTS WITH $prefix OR (a:Patient AND a.id STARTS WITH $prefix)
RETURN type(r) AS type, labels(a)[0] + ':' + coalesce(a.id, a.uid, a.code, '') AS src,
       labels(b)[0] + ':' + coalesce(b.id, b.uid, b.system + '|' + b.code, '') AS dst, properties(r) AS props
UNION ALL
MATCH (n:Note)-[:HAS_SECTION]->(s:Section)-[r]->(b) WHERE n.patient STARTS WITH $prefix
RETURN type(r) AS type, 'Section:' + s.id AS src, labels(b)[0] + ':' + b.id AS dst, properties(r) AS props

// name: delete_note_text_with_prefix
// Remove the sections and sentences of the notes of patients whose id starts with $prefix (chunks of
// notes per transaction: auto-commit); then delete_patient_graphs_with_prefix removes the rest.
MATCH (n:Note) WHERE n.patient STARTS WITH $prefix
CALL { WITH n
  OPTIONAL MATCH (n)-[:HAS_SECTION]->(s:Section)
  OPTIONAL MATCH (s)-[:HAS_SENTENCE]->(t:Sentence)
  DETACH DELETE t, s } IN TRANSACTIONS OF 100 ROWS

// name: delete_patient_graphs_with_prefix
// Remove the patients whose id starts with $prefix and every node carrying their id (auto-commit).
MATCH (n) WHERE n.patient STARTS WITH $prefix OR (n:Patient AND n.id STARTS WITH $prefix)
CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 2000 ROWS

// name: count_all_but_schema
// Nodes other than graphkit's schema-version node (an empty database has none).
MATCH (n) WHERE NOT n:SchemaVersion
RETURN count(n) AS n

// name: concepts_with_prefix
// The concepts the events of those patients are instances of, with all their ancestors (IS_A closure).
MATCH (e:Event)-[:INSTANCE_OF]->(c:Concept) WHERE e.patient STARTS WITH $prefix
WITH DISTINCT c
MATCH (c)-[:IS_A*0..]->(a:Concept)
WITH DISTINCT a
OPTIONAL MATCH (a)-[:IS_A]->(p:Concept)
RETURN properties(a) AS props, collect(p.system + '|' + p.code) AS parents
