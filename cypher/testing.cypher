// Statements the test suite uses to clean up after itself.

// name: delete_by_id_prefix
// Remove every node whose id starts with the test's unique prefix.
MATCH (n) WHERE n.id STARTS WITH $prefix
DETACH DELETE n

// name: delete_concepts_of_system
MATCH (c:Concept {system: $system})
DETACH DELETE c

// name: patient_ids_with_prefix
MATCH (p:Patient) WHERE p.id STARTS WITH $prefix
RETURN p.id AS id ORDER BY id

// name: patient_by_id
MATCH (p:Patient {id: $id})
RETURN p.id AS id, properties(p) AS props

// name: drop_test_index_a
// Schema commands take no parameters, so the migration test uses fixed index names.
DROP INDEX gk_test_index_a IF EXISTS

// name: drop_test_index_b
DROP INDEX gk_test_index_b IF EXISTS

// name: delete_schema_version
MATCH (v:SchemaVersion {id: $id})
DELETE v

// name: delete_guidelines_with_prefix
MATCH (g:Guideline) WHERE g.id STARTS WITH $prefix
OPTIONAL MATCH (g)-[:HAS_STEP]->(s)
OPTIONAL MATCH (g)-[:HAS_PATH]->(p)
DETACH DELETE g, s, p

// name: events_of_patient
MATCH (ev:Event {patient: $patient})
OPTIONAL MATCH (ev)-[x:EVIDENCED_BY]->(t:Sentence)
OPTIONAL MATCH (ev)-[:INSTANCE_OF]->(c:Concept)
RETURN ev.id AS id, ev.text AS text, ev.kind AS kind, ev.assertion AS assertion, ev.note AS note,
       toString(ev.valid_time) AS valid_time, toString(ev.recorded_time) AS recorded_time,
       substring(t.text, x.start, x.end - x.start) AS evidence, collect(c.system + ':' + c.code) AS codes
ORDER BY id

// name: next_chain_length
MATCH (a:Event {patient: $patient})-[:NEXT]->(b:Event {patient: $patient})
RETURN count(*) AS links

// name: provenance_of_event
// event → sentence → section → note → encounter → patient
MATCH (ev:Event {id: $id})-[:EVIDENCED_BY]->(t:Sentence)<-[:HAS_SENTENCE]-(s:Section)<-[:HAS_SECTION]-(n:Note)
      <-[:DOCUMENTED_BY]-(e:Encounter)<-[:HAD_ENCOUNTER]-(p:Patient)
RETURN t.id AS sentence, s.name AS section, n.id AS note, e.id AS encounter, p.id AS patient

// name: concept_users
MATCH (c:Concept {system: $system, code: $code})<-[:INSTANCE_OF]-(ev:Event)
RETURN count(DISTINCT c) AS concepts, count(ev) AS events

// name: note_flags
MATCH (n:Note {id: $id})
RETURN n.flags AS note_flags

// name: patient_state
MATCH (s:PatientState {id: $id})
RETURN s.json AS json, s.patient AS patient

// name: event_time
MATCH (ev:Event {id: $id})
RETURN toString(ev.valid_time) AS time

// name: chunks_of_encounter
MATCH (c:Chunk {encounter: $encounter})
RETURN c.id AS id, c.text AS text

// name: sentences_overlapping_text
// A patient's sentences whose text is a labelled pair's sentence, or lies inside it, or holds it: the pair's
// sentence as this code splits it (a header the code now reads splits "Administered: pembrolizumab ...").
UNWIND $rows AS row
MATCH (:Patient {id: row.patient})-[:HAD_ENCOUNTER]->(:Encounter)-[:DOCUMENTED_BY]->(:Note)-[:HAS_SECTION]->(:Section)
      -[:HAS_SENTENCE]->(t:Sentence)
WHERE t.text = row.text OR (size(trim(t.text)) >= 12 AND row.text CONTAINS trim(t.text))
   OR (size(row.text) >= 12 AND t.text CONTAINS row.text)
RETURN row.patient AS patient, row.text AS text, collect([t.id, t.text]) AS found
