// The query layer's reads: a patient's subgraph context for prompts and recommendations, and the
// writers of a (:Recommendation). Every fact comes back with the id of the node it came from, so a
// citation can be checked against the graph.

// name: patient_header
MATCH (p:Patient {id: $patient})
OPTIONAL MATCH (p)-[:HAD_ENCOUNTER]->(e:Encounter)
RETURN p.id AS id, coalesce(p.gender, p.sex) AS gender, coalesce(toString(p.birth_date), toString(p.birth_year)) AS birth_date,
       count(e) AS encounters,
       toString(min(e.start)) AS first_encounter, toString(max(e.start)) AS last_encounter

// name: patient_events
// Events that happened (not negated / family / hypothetical), newest last, with their evidence sentence.
MATCH (ev:Event {patient: $patient})
WHERE ev.assertion IN ['present', 'historical']
OPTIONAL MATCH (ev)-[:EVIDENCED_BY]->(s:Sentence)
WITH ev, collect(s.id)[0] AS sentence
RETURN ev.id AS id, ev.kind AS kind, ev.text AS text, ev.value AS value, ev.assertion AS assertion,
       toString(date(ev.valid_time)) AS date, ev.source AS source, sentence
ORDER BY date, ev.order, ev.id

// name: patient_negations
// What the notes rule out or attribute to relatives: kept apart so a summary never states them as facts.
MATCH (ev:Event {patient: $patient})
WHERE ev.assertion IN ['negated', 'family']
RETURN ev.id AS id, ev.kind AS kind, ev.text AS text, ev.assertion AS assertion,
       toString(date(ev.valid_time)) AS date
ORDER BY date, ev.id
LIMIT $limit

// name: patient_alignment
// The newest alignment run covering the patient: its status, the followed path and its steps in order.
MATCH (run:AlignmentRun)-[c:COVERS]->(:Patient {id: $patient})
WITH run, c ORDER BY run.started_at DESC LIMIT 1
OPTIONAL MATCH (:Patient {id: $patient})-[f:FOLLOWS {run: run.id, rank: 1}]->(path:GuidelinePath)-[i:INCLUDES]->(s:GuidelineStep)
WITH run, c, f, path, i, s ORDER BY i.pos
RETURN run.id AS run, c.status AS status, c.reason AS reason, path.id AS path, path.guideline AS guideline,
       path.version AS version, path.conditions AS conditions, f.score AS score,
       collect(CASE WHEN s IS NULL THEN NULL ELSE {uid: s.uid, id: s.id, name: s.name, kind: s.kind, pos: i.pos,
                    evidence_level: s.evidence_level, evidence_source: s.evidence_source} END) AS steps

// name: patient_conformance
// The conformance items of a run, each with up to three evidence events.
MATCH (:Patient {id: $patient})-[:HAS_CONFORMANCE]->(ci:ConformanceItem {run: $run})
WHERE ci.type <> 'off_guideline' OR ci.score >= $off_min_score
OPTIONAL MATCH (ci)-[:EVIDENCE]->(ev:Event)
WITH ci, collect(ev.id)[0..3] AS events
RETURN ci.id AS id, ci.type AS type, ci.step AS step, ci.step_uid AS step_uid, ci.date AS date,
       ci.detail AS detail, ci.days AS days, ci.limit_days AS limit_days, events
ORDER BY ci.date, ci.id

// name: patient_sentences
// The sentences of a patient's notes (the note text the prompt may quote), in time order, with the
// character spans (within the sentence) of the entity mentions linked to events: CPTF keeps them.
MATCH (:Patient {id: $patient})-[:HAD_ENCOUNTER]->(e:Encounter)-[:DOCUMENTED_BY]->(n:Note)-[:HAS_SECTION]->(sec:Section)-[:HAS_SENTENCE]->(s:Sentence)
OPTIONAL MATCH (:Event)-[x:EVIDENCED_BY]->(s)
WITH s, sec, n, e, collect([x.start, x.end]) AS mentions
RETURN s.id AS id, s.text AS text, sec.name AS section, n.id AS note, toString(date(e.start)) AS date,
       [m IN mentions WHERE m[0] IS NOT NULL] AS mentions
ORDER BY date, note, sec.idx, s.idx

// name: existing_nodes
// Which of the given ids name a node a recommendation may cite (event, sentence, step, item).
UNWIND $ids AS id
OPTIONAL MATCH (ev:Event {id: id})
OPTIONAL MATCH (s:Sentence {id: id})
OPTIONAL MATCH (g:GuidelineStep {uid: id})
OPTIONAL MATCH (ci:ConformanceItem {id: id})
OPTIONAL MATCH (n:CareItem {id: id})
OPTIONAL MATCH (a:CareAssessment {id: id})
WITH id, coalesce(ev, s, g, ci, n, a) AS node
WHERE node IS NOT NULL
RETURN id, labels(node)[0] AS label

// name: write_recommendation
// One recommendation and its CITES links, in one transaction; earlier ones stay (history).
MATCH (p:Patient {id: $patient})
CREATE (r:Recommendation {id: $id, patient: $patient, summary: $summary, text: $text, model: $model, mode: $mode,
                          created_at: datetime(), run: $run, status: $status, prompt_tokens: $prompt_tokens,
                          citations: $citations, unknown_citations: $unknown, uncited_sentences: $uncited})
CREATE (p)-[:HAS_RECOMMENDATION]->(r)
WITH r
OPTIONAL MATCH (run:AlignmentRun {id: $run})
FOREACH (_ IN CASE WHEN run IS NULL THEN [] ELSE [1] END | CREATE (r)-[:BASED_ON]->(run))
WITH r
UNWIND $cites AS c
CALL {
  WITH c
  OPTIONAL MATCH (ev:Event {id: c.id}) WHERE c.label = 'Event'
  OPTIONAL MATCH (s:Sentence {id: c.id}) WHERE c.label = 'Sentence'
  OPTIONAL MATCH (g:GuidelineStep {uid: c.id}) WHERE c.label = 'GuidelineStep'
  OPTIONAL MATCH (ci:ConformanceItem {id: c.id}) WHERE c.label = 'ConformanceItem'
  OPTIONAL MATCH (n:CareItem {id: c.id}) WHERE c.label = 'CareItem'
  OPTIONAL MATCH (a:CareAssessment {id: c.id}) WHERE c.label = 'CareAssessment'
  RETURN coalesce(ev, s, g, ci, n, a) AS target
}
WITH r, c, target WHERE target IS NOT NULL
CREATE (r)-[:CITES {alias: c.alias, part: c.part}]->(target)

// name: latest_recommendation
MATCH (:Patient {id: $patient})-[:HAS_RECOMMENDATION]->(r:Recommendation)
OPTIONAL MATCH (r)-[c:CITES]->(t)
WITH r, collect({alias: c.alias, id: coalesce(t.id, t.uid), label: labels(t)[0]}) AS cites
RETURN r.id AS id, r.summary AS summary, r.text AS text, r.model AS model, r.mode AS mode, r.run AS run,
       r.status AS status, toString(r.created_at) AS created_at, r.unknown_citations AS unknown,
       r.uncited_sentences AS uncited, cites
ORDER BY r.created_at DESC
LIMIT 1

// name: citation_validity
// Over all stored recommendations: citations written in their text vs CITES links that resolve.
MATCH (r:Recommendation)
OPTIONAL MATCH (r)-[c:CITES]->()
WITH r, count(c) AS resolved
RETURN count(r) AS recommendations, sum(size(r.citations)) AS cited, sum(resolved) AS resolved,
       sum(size(r.unknown_citations)) AS unknown

// name: aligned_patients
// Patients covered by at least one alignment run (the set `graphkit recommend --all` works on).
MATCH (:AlignmentRun)-[:COVERS]->(p:Patient)
RETURN DISTINCT p.id AS patient
ORDER BY patient
