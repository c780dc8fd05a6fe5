// Neo4j Browser: a patient's temporal graph. Set the patient first, e.g.
//   :param patient => 'fhir-7a1d5954-c722-4266-aa13-952e2beef7c9'
// (`graphkit demo` prints one; `graphkit db counts` shows how many there are).

// name: patient_timeline
// A patient's timeline as a graph: the encounters chained in time order by NEXT_ENCOUNTER (a string
// of pearls from the first visit to the last), each with up to three clinical events it documented
// that really happened (diagnoses, procedures, drugs, stage, biomarkers).
// :param patient => 'fhir-7a1d5954-c722-4266-aa13-952e2beef7c9'
MATCH (:Patient {id: $patient})-[:HAD_ENCOUNTER]->(e:Encounter)
OPTIONAL MATCH (e)-[n:NEXT_ENCOUNTER]->(:Encounter)
OPTIONAL MATCH (e)-[he:HAS_EVENT]->(ev:Event)
WHERE ev.assertion IN ['present', 'historical']
  AND ev.kind IN ['Cancer', 'Procedure', 'Medication', 'Stage', 'Biomarker']
WITH e, n, collect(he)[0..3] AS hes, collect(ev)[0..3] AS evs
RETURN e, n, hes, evs

// name: patient_events_with_evidence
// Every event of a patient from the notes, in time order, with its assertion and the exact sentence
// (and character span) it came from. A table: read it, or click a note id to open the note.
// :param patient => 'fhir-7a1d5954-c722-4266-aa13-952e2beef7c9'
MATCH (ev:Event {patient: $patient})-[x:EVIDENCED_BY]->(s:Sentence)<-[:HAS_SENTENCE]-(sec:Section)<-[:HAS_SECTION]-(n:Note)
RETURN toString(date(ev.valid_time)) AS date, ev.kind AS kind, ev.text AS mention, ev.assertion AS assertion,
       sec.name AS section, s.text AS sentence, x.start AS span_start, x.end AS span_end, n.id AS note
ORDER BY date, note, span_start
LIMIT 500

// name: patient_negated_and_family
// What the notes rule out or attribute to relatives: negated, possible, hypothetical and family
// mentions (they never count as events that happened, and never align to a guideline step).
// :param patient => 'fhir-7a1d5954-c722-4266-aa13-952e2beef7c9'
MATCH (ev:Event {patient: $patient})
WHERE NOT ev.assertion IN ['present', 'historical']
RETURN toString(date(ev.valid_time)) AS date, ev.assertion AS assertion, ev.kind AS kind, ev.text AS mention,
       ev.cue AS cue
ORDER BY date
