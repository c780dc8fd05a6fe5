// Writers for the patient temporal knowledge graph (DESIGN.md graph model). Each takes $rows, a
// list of maps, and is run once per batch in one transaction. MERGE on the unique keys makes a
// retried batch write nothing twice.

// name: merge_patients
UNWIND $rows AS r
MERGE (p:Patient {id: r.id})
SET p += r.props

// name: merge_encounters
// Encounter start = the earliest time any record of it shows (notes may arrive in any order).
UNWIND $rows AS r
MATCH (p:Patient {id: r.patient})
MERGE (e:Encounter {id: r.id})
SET e.start = CASE WHEN e.start IS NULL OR r.start < e.start THEN r.start ELSE e.start END,
    e.end = coalesce(r.end, e.end), e.class = coalesce(r.class, e.class), e.patient = r.patient
MERGE (p)-[:HAD_ENCOUNTER]->(e)

// name: link_next_encounter
UNWIND $rows AS r
MATCH (a:Encounter {id: r.from}), (b:Encounter {id: r.to})
MERGE (a)-[:NEXT_ENCOUNTER]->(b)

// name: merge_notes
// recorded_at, source (file:row), pipeline (the extraction fingerprint) and flags may be null.
UNWIND $rows AS r
MATCH (e:Encounter {id: r.encounter})
MERGE (n:Note {id: r.id})
SET n.type = r.type, n.authored_at = r.authored_at, n.recorded_at = r.recorded_at, n.sha256 = r.sha256,
    n.patient = r.patient, n.source = r.source, n.pipeline = r.pipeline, n.flags = r.flags
MERGE (e)-[:DOCUMENTED_BY]->(n)

// name: merge_sections
UNWIND $rows AS r
MATCH (n:Note {id: r.note})
MERGE (s:Section {id: r.id})
SET s.name = r.name, s.idx = r.idx
MERGE (n)-[:HAS_SECTION]->(s)

// name: merge_sentences
UNWIND $rows AS r
MATCH (s:Section {id: r.section})
MERGE (t:Sentence {id: r.id})
SET t.idx = r.idx, t.text = r.text, t.start = r.start, t.end = r.end
MERGE (s)-[:HAS_SENTENCE]->(t)

// name: merge_events
// Events of an encounter (from note text, or the sample); source, note, cue and context may be null.
UNWIND $rows AS r
MATCH (enc:Encounter {id: r.encounter})
MERGE (ev:Event {id: r.id})
SET ev.kind = r.kind, ev.text = r.text, ev.assertion = r.assertion, ev.valid_time = r.valid_time,
    ev.recorded_time = r.recorded_time, ev.order = r.order, ev.patient = r.patient, ev.value = r.value,
    ev.values = r.values, ev.detail = r.detail, ev.flags = r.flags,
    ev.source = r.source, ev.note = r.note, ev.cue = r.cue, ev.context = r.context
MERGE (enc)-[:HAS_EVENT]->(ev)

// name: link_evidence
UNWIND $rows AS r
MATCH (ev:Event {id: r.event}), (s:Sentence {id: r.sentence})
MERGE (ev)-[x:EVIDENCED_BY]->(s)
SET x.start = r.start, x.end = r.end

// name: merge_concepts
UNWIND $rows AS r
MERGE (c:Concept {system: r.system, code: r.code})
SET c.name = coalesce(c.name, r.name), c.source = coalesce(c.source, r.source), c.kind = coalesce(c.kind, r.kind)

// name: link_instance_of
UNWIND $rows AS r
MATCH (ev:Event {id: r.event}), (c:Concept {system: r.system, code: r.code})
MERGE (ev)-[:INSTANCE_OF]->(c)

// name: link_next_event
UNWIND $rows AS r
MATCH (a:Event {id: r.from}), (b:Event {id: r.to})
MERGE (a)-[:NEXT]->(b)

// name: patient_timeline
// A patient's events in trajectory order, with their codes (plain rows for the CLI).
MATCH (p:Patient {id: $patient})-[:HAD_ENCOUNTER]->(enc:Encounter)-[:HAS_EVENT]->(ev:Event)
OPTIONAL MATCH (ev)-[:INSTANCE_OF]->(c:Concept)
WITH enc, ev, collect(c.system + ':' + c.code) AS codes
RETURN ev.id AS id, ev.kind AS kind, ev.text AS text, ev.assertion AS assertion,
       toString(ev.valid_time) AS valid_time, enc.id AS encounter, codes
ORDER BY ev.valid_time, ev.order

// name: patients_existing
UNWIND $patients AS pid
MATCH (p:Patient {id: pid})
RETURN p.id AS id

// name: link_is_a
// Is-a edges between concepts (both nodes must exist: concept rows are merged first).
UNWIND $rows AS r
MATCH (c:Concept {system: r.system, code: r.code}), (p:Concept {system: r.parent_system, code: r.parent_code})
MERGE (c)-[:IS_A]->(p)

// name: merge_chunks
// Retrieval chunks of a note (CLI-RAG's hierarchical chunks: section sub-chunks) with their sentences.
// The embedding is added later (`graphkit index`); a changed note gets new chunks without one.
UNWIND $rows AS r
MATCH (n:Note {id: r.note})
MERGE (c:Chunk {id: r.id})
SET c.patient = r.patient, c.encounter = r.encounter, c.note = r.note, c.note_type = r.note_type,
    c.section = r.section, c.order = r.order, c.time = r.time, c.text = r.text
MERGE (n)-[:HAS_CHUNK]->(c)
WITH c, r
UNWIND r.sentences AS sid
MATCH (t:Sentence {id: sid})
MERGE (c)-[:HAS_SENTENCE]->(t)

// The content of a note claimed by ingest.claim_notes whose old content (if any) was deleted in the
// same transaction: nothing of it exists, so CREATE (no lookup, no merge lock) instead of MERGE.
// The unique constraints still reject a duplicate id.

// name: create_sections
UNWIND $rows AS r
MATCH (n:Note {id: r.note})
CREATE (n)-[:HAS_SECTION]->(:Section {id: r.id, name: r.name, idx: r.idx})

// name: create_sentences
UNWIND $rows AS r
MATCH (s:Section {id: r.section})
CREATE (s)-[:HAS_SENTENCE]->(:Sentence {id: r.id, idx: r.idx, text: r.text, start: r.start, end: r.end})

// name: create_events
// With their EVIDENCED_BY links (r.evidence: sentence, start, end), the events being at hand.
UNWIND $rows AS r
MATCH (enc:Encounter {id: r.encounter})
CREATE (enc)-[:HAS_EVENT]->(ev:Event {id: r.id, kind: r.kind, text: r.text, assertion: r.assertion,
    valid_time: r.valid_time, recorded_time: r.recorded_time, order: r.order, patient: r.patient, value: r.value,
    values: r.values, detail: r.detail, flags: r.flags, source: r.source, note: r.note, cue: r.cue,
    context: r.context})
WITH ev, r
UNWIND r.evidence AS x
MATCH (s:Sentence {id: x.sentence})
CREATE (ev)-[:EVIDENCED_BY {start: x.start, end: x.end}]->(s)

// name: create_instance_of
UNWIND $rows AS r
MATCH (ev:Event {id: r.event}), (c:Concept {system: r.system, code: r.code})
CREATE (ev)-[:INSTANCE_OF]->(c)

// name: create_chunks
UNWIND $rows AS r
MATCH (n:Note {id: r.note})
CREATE (n)-[:HAS_CHUNK]->(c:Chunk {id: r.id, patient: r.patient, encounter: r.encounter, note: r.note,
    note_type: r.note_type, section: r.section, order: r.order, time: r.time, text: r.text})
WITH c, r
UNWIND r.sentences AS sid
MATCH (t:Sentence {id: sid})
CREATE (c)-[:HAS_SENTENCE]->(t)
