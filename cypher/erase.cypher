// Erasing a patient: every node derived from them, found by ownership, in one transaction.
// Every patient-derived node carries `patient` (Encounter, Note, Event, ConformanceItem,
// Recommendation, and whatever later layers add); sections and sentences hang off their note.

// name: patient_owned_nodes
// The patient, every node whose `patient` property names them, their notes' sections and sentences,
// and their recommendations (older ones carry no `patient`). A label-less scan: O(nodes), acceptable
// for an erasure, and it cannot miss a label added later.
MATCH (n)
WHERE n.patient = $patient OR (n:Patient AND n.id = $patient)
WITH collect(n) AS own
CALL {
  WITH own
  UNWIND own AS n
  MATCH (n:Note)-[:HAS_SECTION]->(s:Section)
  OPTIONAL MATCH (s)-[:HAS_SENTENCE]->(t:Sentence)
  RETURN collect(DISTINCT s) + collect(DISTINCT t) AS text_nodes
}
CALL {
  WITH own
  UNWIND own AS n
  MATCH (n:Patient)-[:HAS_RECOMMENDATION]->(r:Recommendation)
  RETURN collect(DISTINCT r) AS recs
}
UNWIND own + text_nodes + recs AS x
WITH DISTINCT x
RETURN elementId(x) AS id, labels(x)[0] AS label

// name: delete_nodes
// Detach and delete nodes by element id (all of one patient's, in the caller's transaction).
UNWIND $ids AS id
MATCH (x) WHERE elementId(x) = id
DETACH DELETE x

// name: event_texts
// The texts of a patient's events and retrieval chunks (their embeddings are cached by text hash;
// erasure drops them).
MATCH (ev:Event {patient: $patient})
RETURN DISTINCT ev.text AS text
UNION
MATCH (c:Chunk {patient: $patient})
RETURN DISTINCT c.text AS text

// name: runs_naming_patient
// Alignment runs whose stored scope lists the patient (a run started with --patient).
MATCH (r:AlignmentRun)
WHERE r.params CONTAINS $patient
RETURN r.id AS id, r.params AS params

// name: set_run_params
MATCH (r:AlignmentRun {id: $id})
SET r.params = $params

// name: property_scan
// Every node's labels and properties, then every relationship's (the erasure check reads them all).
MATCH (n)
RETURN labels(n) AS labels, properties(n) AS props
UNION ALL
MATCH ()-[r]->()
RETURN [type(r)] AS labels, properties(r) AS props
