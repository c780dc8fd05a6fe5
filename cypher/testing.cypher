// Statements the test suite uses to clean up after itself.

// name: delete_by_id_prefix
// Remove every node whose id starts with the test's unique prefix.
MATCH (n) WHERE n.id STARTS WITH $prefix
DETACH DELETE n

// name: delete_concepts_of_system
MATCH (c:Concept {system: $system})
DETACH DELETE c

// name: patient_ids_with_prefix
MATCH (p:Patient) WHERE p.id STARTS WITH $prefix
RETURN p.id AS id ORDER BY id

// name: patient_by_id
MATCH (p:Patient {id: $id})
RETURN p.id AS id, properties(p) AS props

// name: drop_test_index_a
// Schema commands take no parameters, so the migration test uses fixed index names.
DROP INDEX gk_test_index_a IF EXISTS

// name: drop_test_index_b
DROP INDEX gk_test_index_b IF EXISTS

// name: delete_schema_version
MATCH (v:SchemaVersion {id: $id})
DELETE v

// name: delete_guidelines_with_prefix
MATCH (g:Guideline) WHERE g.id STARTS WITH $prefix
OPTIONAL MATCH (g)-[:HAS_STEP]->(s)
OPTIONAL MATCH (g)-[:HAS_PATH]->(p)
DETACH DELETE g, s, p
