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

// name: patient_state_and_guideline_status
// What the guideline says for this patient (normative): the latest state snapshot with the events it
// rests on, and each assessed guideline step with its status (done, due, overdue, missing, option,
// done-not-indicated) linked to the step and to the care that realized it. Run `graphkit recommend`
// or `graphkit state PATIENT --save` first.
// :param patient => 'fhir-7a1d5954-c722-4266-aa13-952e2beef7c9'
MATCH (p:Patient {id: $patient})-[hs:HAS_STATE]->(st:PatientState)
WITH p, hs, st ORDER BY st.computed_at DESC LIMIT 1
OPTIONAL MATCH (st)-[sb:SUPPORTED_BY]->(ev:Event)
OPTIONAL MATCH (p)-[ha:HAS_ASSESSMENT]->(a:CareAssessment)-[hi:HAS_ITEM]->(i:CareItem)-[fs:FOR_STEP]->(g:GuidelineStep)
WHERE a.applies AND i.status IN ['done', 'due', 'overdue', 'missing', 'option', 'done-not-indicated']
OPTIONAL MATCH (i)-[eb:EVIDENCED_BY]->(done:Event)
RETURN p, hs, st, collect(DISTINCT sb)[0..8] AS sbs, collect(DISTINCT ev)[0..8] AS evs,
       collect(DISTINCT ha) AS has, collect(DISTINCT a) AS assessments, collect(DISTINCT hi) AS his,
       collect(DISTINCT i) AS items, collect(DISTINCT fs) AS fss, collect(DISTINCT g) AS steps,
       collect(DISTINCT eb)[0..20] AS ebs, collect(DISTINCT done)[0..20] AS dones

// name: patient_guideline_status_table
// The same as a table: each step of each applicable guideline with its status, dates and reason.
// :param patient => 'fhir-7a1d5954-c722-4266-aa13-952e2beef7c9'
MATCH (:Patient {id: $patient})-[:HAS_ASSESSMENT]->(a:CareAssessment)-[:HAS_ITEM]->(i:CareItem)
WHERE a.applies
RETURN a.guideline AS guideline, a.version AS version, toString(a.at) AS as_of, i.position AS pos, i.name AS step,
       i.status AS status, i.date AS done_or_skipped, i.due_from AS due_from, i.overdue_since AS overdue_since,
       i.reason AS reason
ORDER BY guideline, pos
