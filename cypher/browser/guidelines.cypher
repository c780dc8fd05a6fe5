// Neo4j Browser: guideline graphs. Paste a query into the Browser editor (or save it as a favorite)
// after setting its parameters, e.g.
//   :param guideline => 'breast-early'
//   :param version => '2026.1'
//   :param system => 'SNOMED-CT'
//   :param code => '392021009'

// name: guideline_graph
// A guideline edition as a graph: its steps and the NEXT edges between them (conditions on the edges).
// :param guideline => 'breast-early'
// :param version => '2026.1'
MATCH (g:Guideline {id: $guideline, version: $version})-[:HAS_STEP]->(s:GuidelineStep)
OPTIONAL MATCH (s)-[n:NEXT]->(t:GuidelineStep)
RETURN g, s, n, t

// name: guideline_paths
// The normative paths of an edition, one row per path, steps in order, with the merged conditions.
// :param guideline => 'nsclc'
// :param version => '2026.1'
MATCH (g:Guideline {id: $guideline, version: $version})-[:HAS_PATH]->(p:GuidelinePath)-[i:INCLUDES]->(s:GuidelineStep)
WITH p, i, s ORDER BY p.index, i.pos
RETURN p.index + 1 AS path, p.conditions AS conditions, collect(s.name) AS steps
ORDER BY path

// name: guideline_path_graph
// One path drawn as a graph: the path node and the steps it includes (pos on INCLUDES).
// :param guideline => 'colorectal'
// :param version => '2026.1'
// :param path => 1
MATCH (g:Guideline {id: $guideline, version: $version})-[:HAS_PATH]->(p:GuidelinePath {index: $path - 1})
MATCH (p)-[i:INCLUDES]->(s:GuidelineStep)
OPTIONAL MATCH (s)-[n:NEXT]->(t:GuidelineStep)<-[:INCLUDES]-(p)
RETURN p, i, s, n, t

// name: steps_with_code
// Every guideline step (all guidelines and editions) coded with a given concept, and the patient
// events that carry the same code.
// :param system => 'SNOMED-CT'
// :param code => '392021009'
MATCH (c:Concept {system: $system, code: $code})<-[:CODED_AS]-(s:GuidelineStep)<-[:HAS_STEP]-(g:Guideline)
OPTIONAL MATCH (c)<-[:INSTANCE_OF]-(e:Event)
RETURN g, s, c, collect(e)[..25] AS events
