// Normative reasoning: the guideline specs it reads, and the assessments it writes.

// name: guidelines_in_force
// The latest edition of every guideline effective on or before $at (latest of all when null), with the
// spec JSON stored at load time (reasoning reads the graph, never the YAML files).
MATCH (g:Guideline)
WHERE $at IS NULL OR g.effective_date <= date($at)
WITH g ORDER BY g.effective_date DESC, g.version DESC
WITH g.id AS id, collect(g)[0] AS g
OPTIONAL MATCH (g)-[:APPLIES_TO]->(c:Concept)
RETURN g.id AS id, g.version AS version, g.sha256 AS sha256, g.spec AS spec,
       collect(c.system + '|' + c.code) AS condition_codes
ORDER BY id

// name: write_assessment
// One (:CareAssessment) per patient, guideline and date, replacing the previous one for that key,
// with one (:CareItem) per step status; every node carries `patient` (erasable with the patient).
MATCH (p:Patient {id: $patient})
OPTIONAL MATCH (p)-[:HAS_ASSESSMENT]->(old:CareAssessment {key: $key})
OPTIONAL MATCH (old)-[:HAS_ITEM]->(oi:CareItem)
WITH p, collect(DISTINCT old) AS olds, collect(DISTINCT oi) AS items
FOREACH (x IN items | DETACH DELETE x)
FOREACH (x IN olds | DETACH DELETE x)
WITH p
CREATE (a:CareAssessment {id: $id, key: $key, patient: $patient, guideline: $guideline, version: $version,
                          at: CASE WHEN $at IS NULL THEN null ELSE date($at) END, computed_at: datetime(),
                          applies: $applies, reason: $reason, followed_paths: $followed_paths,
                          missing_info: $missing_info, descriptive_path: $descriptive_path,
                          disagreement: $disagreement, json: $json})
CREATE (p)-[:HAS_ASSESSMENT]->(a)
WITH a
OPTIONAL MATCH (state:PatientState {id: $state})
FOREACH (_ IN CASE WHEN state IS NULL THEN [] ELSE [1] END | CREATE (a)-[:FROM_STATE]->(state))
WITH a
UNWIND $items AS it
CREATE (i:CareItem {id: it.id, patient: $patient, step: it.step, status: it.status, name: it.name,
                    date: it.date, due_from: it.due_from, overdue_since: it.overdue_since, window: it.window,
                    reason: it.reason, option_of: it.option_of, position: it.position})
CREATE (a)-[:HAS_ITEM]->(i)
WITH i, it
OPTIONAL MATCH (s:GuidelineStep {uid: it.step_uid})
FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | CREATE (i)-[:FOR_STEP]->(s))
WITH i, it
UNWIND it.evidence AS ev
MATCH (e:Event {id: ev})
CREATE (i)-[:EVIDENCED_BY]->(e)

// name: assessments_of_patient
MATCH (:Patient {id: $patient})-[:HAS_ASSESSMENT]->(a:CareAssessment)
OPTIONAL MATCH (a)-[:HAS_ITEM]->(i:CareItem)
WITH a, i ORDER BY i.position
RETURN a.id AS id, a.guideline AS guideline, a.version AS version, toString(a.at) AS at, a.applies AS applies,
       collect(i {.id, .step, .status, .name, .date, .overdue_since}) AS items
ORDER BY at DESC
