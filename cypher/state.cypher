// Patient state: the facts it is built from, and its stored snapshots.

// name: patient_facts
// Every event of the given patients with stored values, detail, flags, concept codes and their is-a
// ancestors, in time order. O(events × ancestors).
UNWIND $patients AS pid
MATCH (ev:Event {patient: pid})
OPTIONAL MATCH (ev)-[:INSTANCE_OF]->(c:Concept)
OPTIONAL MATCH (c)-[:IS_A*1..12]->(a:Concept)
WITH pid, ev, collect(DISTINCT c.system + '|' + c.code) AS codes, collect(DISTINCT a.system + '|' + a.code) AS ancestors
RETURN pid AS patient, ev.id AS id, ev.kind AS kind, ev.text AS text, ev.assertion AS assertion,
       toString(ev.valid_time) AS valid_time, ev.order AS order, ev.source AS source, ev.value AS value,
       ev.values AS values, ev.detail AS detail, ev.flags AS flags, ev.note AS note, ev.context AS context,
       toString(ev.recorded_time) AS recorded_time, codes, ancestors
ORDER BY patient, valid_time, order, id

// name: write_snapshot
// One (:PatientState) per patient and date (replaced when recomputed); `patient` makes it erasable.
MATCH (p:Patient {id: $patient})
MERGE (s:PatientState {id: $id})
SET s.patient = $patient, s.at = CASE WHEN $at IS NULL THEN null ELSE date($at) END, s.computed_at = datetime(),
    s.cancers = $cancers, s.stage = $stage, s.stage_basis = $stage_basis, s.tnm = $tnm,
    s.biomarkers = $biomarkers, s.ecog = $ecog, s.treatments = $treatments, s.issues = $issues,
    s.json = $json
MERGE (p)-[:HAS_STATE]->(s)
WITH s
UNWIND $evidence AS ev
MATCH (e:Event {id: ev})
MERGE (s)-[:SUPPORTED_BY]->(e)

// name: snapshots_of_patient
MATCH (:Patient {id: $patient})-[:HAS_STATE]->(s:PatientState)
RETURN s.id AS id, toString(s.at) AS at, s.stage AS stage, s.biomarkers AS biomarkers, s.issues AS issues
ORDER BY at
