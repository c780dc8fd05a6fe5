// Trajectory–guideline alignment: reads for the aligner, and the writers of one patient's result.
// A patient's result (FOLLOWS, ALIGNED_TO, conformance items, its COVERS link) is written in ONE
// transaction, so a run interrupted mid-way holds only whole patients and can be resumed.

// name: patients_all
MATCH (p:Patient)
RETURN p.id AS id
ORDER BY id

// name: trajectories
// Every event of the given patients with its concept codes and their is-a ancestors (the roll-up:
// lung adenocarcinoma ⊂ NSCLC, osimertinib ∈ EGFR TKI), in time order. O(events × ancestors).
UNWIND $patients AS pid
MATCH (ev:Event {patient: pid})
OPTIONAL MATCH (ev)-[:INSTANCE_OF]->(c:Concept)
OPTIONAL MATCH (c)-[:IS_A*1..12]->(a:Concept)
WITH pid, ev, collect(DISTINCT c.system + '|' + c.code) AS codes, collect(DISTINCT a.system + '|' + a.code) AS ancestors
RETURN pid AS patient, ev.id AS id, ev.kind AS kind, ev.text AS text, ev.assertion AS assertion,
       toString(ev.valid_time) AS valid_time, ev.order AS order, ev.source AS source,
       ev.value AS value, ev.values AS values, ev.detail AS detail, codes, ancestors
ORDER BY patient, valid_time, order, id

// name: guidelines_in_force
// The latest edition of every guideline effective on or before $at (all editions' latest when null).
MATCH (g:Guideline)
WHERE $at IS NULL OR g.effective_date <= date($at)
WITH g ORDER BY g.effective_date DESC, g.version DESC
WITH g.id AS id, collect(g)[0] AS g
OPTIONAL MATCH (g)-[:APPLIES_TO]->(c:Concept)
RETURN g.id AS id, g.version AS version, g.title AS title, collect(c.system + '|' + c.code) AS condition_codes
ORDER BY id

// name: guideline_steps
// A guideline edition's steps with their coded concepts (names included: they are embedded too).
MATCH (:Guideline {id: $id, version: $version})-[:HAS_STEP]->(s:GuidelineStep)
OPTIONAL MATCH (s)-[:CODED_AS]->(c:Concept)
WITH s, collect({code: c.system + '|' + c.code, name: c.name}) AS codes
RETURN s.uid AS uid, s.id AS id, s.kind AS kind, s.category AS category, s.name AS name,
       s.description AS description, s.order AS order, s.timing_after AS timing_after,
       s.min_days AS min_days, s.max_days AS max_days, [x IN codes WHERE x.code IS NOT NULL] AS codes
ORDER BY order, id

// name: guideline_path_rows
// A guideline edition's feasible paths, steps in order.
MATCH (:Guideline {id: $id, version: $version})-[:HAS_PATH]->(p:GuidelinePath)-[i:INCLUDES]->(s:GuidelineStep)
WHERE NOT coalesce(p.contradiction, false)
WITH p, i, s ORDER BY p.index, i.pos
RETURN p.id AS id, p.index AS index, p.stage_min AS stage_min, p.stage_max AS stage_max,
       p.biomarkers AS biomarkers, collect(s.uid) AS steps
ORDER BY index

// name: create_run
CREATE (r:AlignmentRun {id: $id, params: $params, model: $model, started_at: datetime(),
                        status: 'running', patients_total: $patients_total, patients_done: 0,
                        patients_failed: 0, host: $host, pid: $pid, heartbeat_at: datetime()})
RETURN r.id AS id

// name: heartbeat
// Written with each chunk of results: which process works on the run, and when it last did.
MATCH (r:AlignmentRun {id: $run})
SET r.status = 'running', r.host = $host, r.pid = $pid, r.heartbeat_at = datetime()

// name: running_runs
MATCH (r:AlignmentRun {status: 'running'})
RETURN r.id AS id, r.host AS host, r.pid AS pid, toString(r.heartbeat_at) AS heartbeat_at,
       duration.inSeconds(coalesce(r.heartbeat_at, r.started_at), datetime()).seconds AS idle_s

// name: mark_interrupted
// A run whose process is gone: partial (resumable with --resume), with the reason.
MATCH (r:AlignmentRun {id: $id, status: 'running'})
OPTIONAL MATCH (r)-[c:COVERS]->(:Patient)
WITH r, count(c) AS done, count(CASE WHEN c.status = 'failed' THEN 1 END) AS failed
SET r.status = 'partial', r.interrupted = $reason, r.patients_done = done, r.patients_failed = failed

// name: run_info
MATCH (r:AlignmentRun {id: $id})
RETURN r.id AS id, r.params AS params, r.model AS model, toString(r.started_at) AS started_at,
       toString(r.finished_at) AS finished_at, r.status AS status, r.patients_total AS patients_total,
       r.patients_done AS patients_done, r.patients_failed AS patients_failed

// name: run_done_patients
// Patients a run has already finished (whole results written): skipped when the run resumes.
MATCH (r:AlignmentRun {id: $id})-[c:COVERS]->(p:Patient)
RETURN p.id AS patient, c.status AS status

// name: finish_run
// Counts come from the graph, so parallel processes sharing a run agree on them.
MATCH (r:AlignmentRun {id: $id})
OPTIONAL MATCH (r)-[c:COVERS]->(:Patient)
WITH r, count(c) AS done, count(CASE WHEN c.status = 'failed' THEN 1 END) AS failed
SET r.patients_done = done, r.patients_failed = failed, r.finished_at = datetime(),
    r.status = CASE WHEN $interrupted THEN 'partial'
                    WHEN done < r.patients_total THEN 'partial'
                    WHEN failed > 0 THEN 'completed_with_failures' ELSE 'completed' END
RETURN r.status AS status, done, failed

// name: write_covers
// Marks patients done in this run (status aligned | no_events | no_guideline | no_paths | failed).
UNWIND $rows AS r
MATCH (run:AlignmentRun {id: $run}), (p:Patient {id: r.patient})
MERGE (run)-[c:COVERS]->(p)
SET c.status = r.status, c.reason = r.reason, c.guideline = r.guideline, c.version = r.version,
    c.path = r.path, c.score = r.score, c.events = r.events, c.units = r.units,
    c.aligned_events = r.aligned_events, c.rerank = r.rerank

// name: write_follows
UNWIND $rows AS r
MATCH (p:Patient {id: r.patient}), (gp:GuidelinePath {id: r.path})
CREATE (p)-[:FOLLOWS {run: $run, rank: r.rank, score: r.score, recall: r.recall,
                      precision: r.precision, order_consistency: r.order_consistency,
                      condition_factor: r.condition_factor, reranked: r.reranked}]->(gp)

// name: write_aligned
UNWIND $rows AS r
MATCH (ev:Event {id: r.event}), (s:GuidelineStep {uid: r.step})
CREATE (ev)-[:ALIGNED_TO {run: $run, score: r.score, semantic: r.semantic, neighborhood: r.neighborhood,
                         iteration: r.iteration, role: r.role, unit: r.unit}]->(s)

// name: write_conformance
UNWIND $rows AS r
MATCH (p:Patient {id: r.patient})
CREATE (ci:ConformanceItem {id: r.id, run: $run, patient: r.patient, type: r.type, step: r.step,
                           step_uid: r.step_uid, guideline: r.guideline, version: r.version,
                           date: r.date, detail: r.detail, days: r.days, limit_days: r.limit_days,
                           score: r.score})
CREATE (p)-[:HAS_CONFORMANCE]->(ci)
WITH ci, r
OPTIONAL MATCH (s:GuidelineStep {uid: r.step_uid})
FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | CREATE (ci)-[:ABOUT_STEP]->(s))
WITH ci, r
UNWIND r.events AS eid
MATCH (ev:Event {id: eid})
CREATE (ci)-[:EVIDENCE]->(ev)

// name: write_decisions
// The bootstrapping log of a patient, as JSON on the COVERS link (every decision with its iteration).
UNWIND $rows AS r
MATCH (:AlignmentRun {id: $run})-[c:COVERS]->(:Patient {id: r.patient})
SET c.decisions = r.decisions

// name: latest_run_for_patient
// The newest run that covers a patient.
MATCH (r:AlignmentRun)-[c:COVERS]->(:Patient {id: $patient})
RETURN r.id AS run, c.status AS status, c.reason AS reason, c.guideline AS guideline, c.version AS version,
       c.path AS path, c.score AS score
ORDER BY r.started_at DESC
LIMIT 1

// name: conformance_report
// One patient's conformance items in a run, each with its evidence: event -> sentence span -> note,
// and step -> guideline id and version. Ids and spans only: the mention text stays in the graph.
MATCH (:Patient {id: $patient})-[:HAS_CONFORMANCE]->(ci:ConformanceItem {run: $run})
OPTIONAL MATCH (ci)-[:EVIDENCE]->(ev:Event)
OPTIONAL MATCH (ev)-[x:EVIDENCED_BY]->(s:Sentence)<-[:HAS_SENTENCE]-(:Section)<-[:HAS_SECTION]-(n:Note)
WITH ci, ev, collect({sentence: s.id, note: n.id, start: x.start, end: x.end})[0] AS span
WITH ci, collect(CASE WHEN ev IS NULL THEN NULL ELSE
       {event: ev.id, kind: ev.kind, date: toString(ev.valid_time), source: ev.source,
        assertion: ev.assertion, sentence: span.sentence, note: span.note, start: span.start, end: span.end} END) AS evidence
RETURN ci.id AS id, ci.type AS type, ci.step AS step, ci.step_uid AS step_uid, ci.guideline AS guideline,
       ci.version AS version, ci.date AS date, ci.detail AS detail, ci.days AS days,
       ci.limit_days AS limit_days, ci.score AS score, evidence
ORDER BY CASE ci.type WHEN 'matched' THEN 0 WHEN 'missing' THEN 1 WHEN 'pending' THEN 2
         WHEN 'condition_mismatch' THEN 3 WHEN 'order_violation' THEN 4 WHEN 'timing_violation' THEN 5 ELSE 6 END,
         ci.date, ci.id

// name: patient_follows
MATCH (:Patient {id: $patient})-[f:FOLLOWS {run: $run}]->(gp:GuidelinePath)
RETURN gp.id AS path, gp.guideline AS guideline, gp.version AS version, f.rank AS rank, f.score AS score,
       f.recall AS recall, f.precision AS precision, f.order_consistency AS order_consistency,
       f.condition_factor AS condition_factor, f.reranked AS reranked, gp.conditions AS conditions
ORDER BY rank

// name: run_alignments
// Every ALIGNED_TO link of a run (used by the evaluation).
MATCH (ev:Event)-[a:ALIGNED_TO {run: $run}]->(s:GuidelineStep)
RETURN ev.id AS event, ev.patient AS patient, s.uid AS step, a.score AS score, a.role AS role,
       a.iteration AS iteration

// name: delete_run
// Remove one run and everything it wrote (ALIGNED_TO, FOLLOWS, conformance items).
MATCH (r:AlignmentRun {id: $id})
OPTIONAL MATCH (ci:ConformanceItem {run: $id})
DETACH DELETE ci
WITH DISTINCT r
OPTIONAL MATCH ()-[a:ALIGNED_TO {run: $id}]->()
DELETE a
WITH DISTINCT r
OPTIONAL MATCH ()-[f:FOLLOWS {run: $id}]->()
DELETE f
WITH DISTINCT r
DETACH DELETE r

// name: forget_run
// Drop a run node only (its ALIGNED_TO / FOLLOWS / items must already be gone with their patients).
MATCH (r:AlignmentRun {id: $id})
DETACH DELETE r

// name: list_runs
MATCH (r:AlignmentRun)
RETURN r.id AS id, r.status AS status, r.model AS model, toString(r.started_at) AS started_at,
       toString(r.finished_at) AS finished_at, r.patients_total AS patients_total,
       r.patients_done AS patients_done, r.patients_failed AS patients_failed
ORDER BY r.started_at DESC
