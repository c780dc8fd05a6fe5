// Alignment views for Neo4j Browser. Set the parameters first, e.g.
//   :param patient => 'fhir-7a1d5954-c722-4266-aa13-952e2beef7c9'
//   :param step => 'axillary-staging'
// Each query uses the newest alignment run that covers the patient(s).

// name: patient_alignment
// A patient's followed guideline path (newest run): the path's steps chained by NEXT, and the event
// that realized each step (ALIGNED_TO, one-to-one). Steps with no event are missing or pending.
// :param patient => 'fhir-7a1d5954-c722-4266-aa13-952e2beef7c9'
MATCH (run:AlignmentRun)-[:COVERS]->(p:Patient {id: $patient})
WITH p, run ORDER BY run.started_at DESC LIMIT 1
MATCH (p)-[f:FOLLOWS {run: run.id, rank: 1}]->(path:GuidelinePath)-[:INCLUDES]->(s:GuidelineStep)
OPTIONAL MATCH (s)-[nx:NEXT]->(s2:GuidelineStep)<-[:INCLUDES]-(path)
OPTIONAL MATCH (ev:Event)-[a:ALIGNED_TO {run: run.id, role: 'primary'}]->(s)
WHERE ev.patient = p.id
WITH p, f, path, s, nx, collect(a)[0..1] AS links, collect(ev)[0..1] AS events
RETURN p, f, path, s, nx, links, events

// name: patient_conformance
// A patient's conformance items (newest run): type, step, date, detail and how many evidence events.
// :param patient => 'fhir-7a1d5954-c722-4266-aa13-952e2beef7c9'
MATCH (run:AlignmentRun)-[:COVERS]->(p:Patient {id: $patient})
WITH p, run ORDER BY run.started_at DESC LIMIT 1
MATCH (p)-[:HAS_CONFORMANCE]->(ci:ConformanceItem {run: run.id})
WHERE ci.type <> 'off_guideline'
OPTIONAL MATCH (ci)-[:EVIDENCE]->(ev:Event)
RETURN ci.type AS type, ci.step AS step, ci.date AS date, ci.detail AS detail, count(ev) AS evidence_events
ORDER BY CASE ci.type WHEN 'matched' THEN 0 WHEN 'missing' THEN 1 WHEN 'pending' THEN 2 ELSE 3 END, ci.date

// name: patients_missing_step
// Cohort view: patients whose followed path expected step $step before a later step they had,
// but the record shows no event for it (newest run per patient).
// :param step => 'axillary-staging'
MATCH (run:AlignmentRun)-[c:COVERS]->(p:Patient)
WITH p, run ORDER BY run.started_at DESC
WITH p, collect(run)[0] AS run
MATCH (p)-[:HAS_CONFORMANCE]->(ci:ConformanceItem {run: run.id, type: 'missing', step: $step})
RETURN p.id AS patient, ci.guideline AS guideline, ci.detail AS detail
ORDER BY patient

// name: patients_off_guideline_after
// Cohort view: patients with off-guideline events after their first event aligned to step $step.
// :param step => 'core-needle-biopsy'
MATCH (run:AlignmentRun)-[:COVERS]->(p:Patient)
WITH p, run ORDER BY run.started_at DESC
WITH p, collect(run)[0] AS run
MATCH (ev:Event {patient: p.id})-[:ALIGNED_TO {run: run.id}]->(:GuidelineStep {id: $step})
WITH p, run, date(min(ev.valid_time)) AS after
MATCH (p)-[:HAS_CONFORMANCE]->(ci:ConformanceItem {run: run.id, type: 'off_guideline'})
WHERE ci.date IS NOT NULL AND date(ci.date) > after AND ci.score >= 0.3
RETURN p.id AS patient, toString(after) AS step_date, count(ci) AS off_guideline_events,
       collect(ci.detail)[0..3] AS examples
ORDER BY off_guideline_events DESC

// name: time_to_first_treatment
// Cohort view: days from diagnosis (first Cancer event that happened) to the first event aligned to
// a Treatment step, per patient (newest run).
MATCH (run:AlignmentRun)-[:COVERS]->(p:Patient)
WITH p, run ORDER BY run.started_at DESC
WITH p, collect(run)[0] AS run
MATCH (dx:Event {patient: p.id, kind: 'Cancer'})
WHERE dx.assertion IN ['present', 'historical'] AND dx.valid_time IS NOT NULL
WITH p, run, date(min(dx.valid_time)) AS diagnosis
MATCH (ev:Event {patient: p.id})-[:ALIGNED_TO {run: run.id}]->(s:GuidelineStep {kind: 'Treatment'})
WITH p, diagnosis, date(min(ev.valid_time)) AS first_treatment
RETURN p.id AS patient, toString(diagnosis) AS diagnosis, toString(first_treatment) AS first_treatment,
       duration.inDays(diagnosis, first_treatment).days AS days
ORDER BY days DESC
