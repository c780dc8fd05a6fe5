// Clinical documents (SOAP notes, aspect summaries): what they are built from, and how they are stored.

// name: encounter_sentences
// The sentences of an encounter's notes in reading order, with section, note type, date and the events
// they evidence (kind, assertion, codes), for the SOAP builder.
MATCH (e:Encounter {id: $encounter, patient: $patient})-[:DOCUMENTED_BY]->(n:Note)-[:HAS_SECTION]->(s:Section)
      -[:HAS_SENTENCE]->(t:Sentence)
OPTIONAL MATCH (ev:Event)-[:EVIDENCED_BY]->(t)
WITH e, n, s, t, collect(CASE WHEN ev IS NULL THEN NULL ELSE {id: ev.id, kind: ev.kind, assertion: ev.assertion,
     text: ev.text, values: ev.values} END) AS events
RETURN t.id AS id, t.text AS text, s.name AS section, s.idx AS section_idx, t.idx AS idx, n.id AS note,
       n.type AS note_type, toString(coalesce(n.authored_at, e.start)) AS time, toString(e.start) AS encounter_start,
       [x IN events WHERE x IS NOT NULL] AS events
ORDER BY time, note, section_idx, idx

// name: patient_encounters
MATCH (:Patient {id: $patient})-[:HAD_ENCOUNTER]->(e:Encounter)
OPTIONAL MATCH (e)-[:DOCUMENTED_BY]->(n:Note)
RETURN e.id AS id, toString(e.start) AS start, count(n) AS notes
ORDER BY start

// name: sentences_by_id
UNWIND $ids AS id
MATCH (t:Sentence {id: id})<-[:HAS_SENTENCE]-(s:Section)<-[:HAS_SECTION]-(n:Note)<-[:DOCUMENTED_BY]-(e:Encounter)
RETURN t.id AS id, t.text AS text, e.id AS encounter, toString(n.authored_at) AS time, s.name AS section

// name: event_sentences
// The evidence sentence of each event (the first, when several).
UNWIND $ids AS id
MATCH (ev:Event {id: id})-[:EVIDENCED_BY]->(t:Sentence)
WITH ev, collect(t)[0] AS t
RETURN ev.id AS event, t.id AS sentence, t.text AS text

// name: write_document
// One clinical document and its CITES links, in one transaction; earlier ones stay (history).
MATCH (p:Patient {id: $patient})
CREATE (d:ClinicalDocument {id: $id, patient: $patient, kind: $kind, encounter: $encounter, text: $text,
                            mode: $mode, model: $model, created_at: datetime(), sections: $sections,
                            unsupported: $unsupported, uncited: $uncited})
CREATE (p)-[:HAS_DOCUMENT]->(d)
WITH d
UNWIND $cites AS c
CALL {
  WITH c
  OPTIONAL MATCH (ev:Event {id: c.id}) WHERE c.label = 'Event'
  OPTIONAL MATCH (s:Sentence {id: c.id}) WHERE c.label = 'Sentence'
  OPTIONAL MATCH (g:GuidelineStep {uid: c.id}) WHERE c.label = 'GuidelineStep'
  OPTIONAL MATCH (n:CareItem {id: c.id}) WHERE c.label = 'CareItem'
  OPTIONAL MATCH (k:Chunk {id: c.id}) WHERE c.label = 'Chunk'
  RETURN coalesce(ev, s, g, n, k) AS target
}
WITH d, c, target WHERE target IS NOT NULL
CREATE (d)-[:CITES {alias: c.alias, part: c.part, supported: c.supported}]->(target)

// name: sentence_events
// The events each cited sentence evidences: what ingestion read in it, with its note's date and section
// (the attribution check compares a claim with these, not with a re-reading of the bare sentence).
UNWIND $ids AS id
MATCH (ev:Event)-[:EVIDENCED_BY]->(t:Sentence {id: id})
RETURN id AS sentence, collect(ev.id) AS events
