// Guideline graphs: writers (run together in one transaction per guideline version) and reads.

// name: guideline_sha
// The content hash of a loaded guideline version (none when not loaded).
MATCH (g:Guideline {id: $id, version: $version})
RETURN g.sha256 AS sha256

// name: merge_guideline
MERGE (g:Guideline {id: $id, version: $version})
SET g.title = $title, g.effective_date = date($effective_date), g.sha256 = $sha256,
    g.condition = $condition, g.sources = $sources, g.source_file = $source_file,
    g.applies_when = $applies_when, g.spec = $spec, g.loaded_at = datetime()
WITH g
UNWIND $condition_codes AS c
MERGE (k:Concept {system: c.system, code: c.code})
SET k.name = coalesce(k.name, c.display)
MERGE (g)-[:APPLIES_TO]->(k)

// name: merge_steps
UNWIND $rows AS r
MATCH (g:Guideline {id: $id, version: $version})
MERGE (s:GuidelineStep {uid: r.uid})
SET s.id = r.id, s.guideline = $id, s.version = $version, s.kind = r.kind, s.category = r.category,
    s.name = r.name, s.description = r.description, s.terminal = r.terminal, s.entry = r.entry,
    s.order = r.order, s.timing_after = r.timing_after, s.min_days = r.min_days, s.max_days = r.max_days,
    s.evidence_level = r.evidence_level, s.evidence_source = r.evidence_source,
    s.not_indicated = r.not_indicated, s.establishes = r.establishes, s.requires = r.requires
MERGE (g)-[:HAS_STEP]->(s)

// name: merge_step_codes
UNWIND $rows AS r
MATCH (s:GuidelineStep {uid: r.uid})
MERGE (c:Concept {system: r.system, code: r.code})
SET c.name = coalesce(c.name, r.display)
MERGE (s)-[:CODED_AS]->(c)

// name: merge_step_edges
// NEXT between steps; the condition is kept as JSON plus flat properties for Cypher filters.
UNWIND $rows AS r
MATCH (a:GuidelineStep {uid: r.from}), (b:GuidelineStep {uid: r.to})
MERGE (a)-[n:NEXT]->(b)
SET n.condition = r.condition, n.biomarkers = r.biomarkers, n.stage_min = r.stage_min,
    n.stage_max = r.stage_max, n.site = r.site, n.prior_step = r.prior_step, n.ecog_max = r.ecog_max,
    n.note = r.note

// name: merge_paths
UNWIND $rows AS r
MATCH (g:Guideline {id: $id, version: $version})
MERGE (p:GuidelinePath {id: r.id})
SET p.guideline = $id, p.version = $version, p.index = r.index, p.length = r.length,
    p.step_ids = r.step_ids, p.conditions = r.conditions, p.biomarkers = r.biomarkers,
    p.stage_min = r.stage_min, p.stage_max = r.stage_max, p.contradiction = r.contradiction
MERGE (g)-[:HAS_PATH]->(p)

// name: merge_path_steps
UNWIND $rows AS r
MATCH (p:GuidelinePath {id: r.path}), (s:GuidelineStep {uid: r.uid})
MERGE (p)-[i:INCLUDES {pos: r.pos}]->(s)

// name: list_guidelines
MATCH (g:Guideline)
OPTIONAL MATCH (g)-[:HAS_STEP]->(s)
WITH g, count(s) AS steps
OPTIONAL MATCH (g)-[:HAS_PATH]->(p)
RETURN g.id AS id, g.version AS version, g.title AS title, toString(g.effective_date) AS effective_date,
       steps, count(p) AS paths
ORDER BY id, effective_date

// name: guideline_in_force
// The edition of a guideline in force at a date (the latest effective on or before it).
MATCH (g:Guideline {id: $id})
WHERE $at IS NULL OR g.effective_date <= date($at)
RETURN g.id AS id, g.version AS version, toString(g.effective_date) AS effective_date
ORDER BY g.effective_date DESC, g.version DESC
LIMIT 1

// name: guideline_paths
// A guideline version's paths with their steps in order.
MATCH (g:Guideline {id: $id, version: $version})-[:HAS_PATH]->(p:GuidelinePath)-[i:INCLUDES]->(s:GuidelineStep)
WITH p, i, s ORDER BY p.index, i.pos
RETURN p.id AS id, p.index AS index, p.conditions AS conditions, p.contradiction AS contradiction,
       collect(s.id) AS steps, collect(s.kind) AS kinds
ORDER BY index

// name: step_codes
// Every coded guideline step: used to see which patient codes find a guideline step.
MATCH (s:GuidelineStep)-[:CODED_AS]->(c:Concept)
RETURN s.uid AS step, c.system AS system, c.code AS code

// name: code_coverage
// Distinct patient event codes (excluding negated / family mentions), and those that a guideline
// step is coded with: how much of the patients' care the guideline graphs can recognize by code.
MATCH (ev:Event)-[:INSTANCE_OF]->(c:Concept)
WHERE NOT ev.assertion IN ['negated', 'family'] AND c.system IN ['SNOMED-CT', 'RxNorm', 'LOINC', 'ICD-10-CM']
WITH c, count(ev) AS events
OPTIONAL MATCH (c)<-[:CODED_AS]-(s:GuidelineStep)
WITH c, events, collect(DISTINCT s.guideline + '/' + s.id) AS steps
RETURN c.system AS system, c.code AS code, c.name AS name, events, steps
ORDER BY size(steps) = 0, events DESC
