// Statements graphkit.store itself runs.

// name: ping
// One row when the database answers.
RETURN 1 AS ok

// name: components
// Server name, version and edition.
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition

// name: schema_version
// The applied schema version for a schema id (0 when none).
OPTIONAL MATCH (v:SchemaVersion {id: $id})
RETURN coalesce(v.version, 0) AS version

// name: set_schema_version
// Record that migration $version was applied.
MERGE (v:SchemaVersion {id: $id})
SET v.version = $version, v.applied_at = datetime(), v.title = $title

// name: count_by_label
// Node counts per label (for status and summaries).
MATCH (n)
UNWIND labels(n) AS label
RETURN label, count(*) AS count
ORDER BY label

// name: count_by_type
// Relationship counts per type.
MATCH ()-[r]->()
RETURN type(r) AS type, count(*) AS count
ORDER BY type

// name: constraints
// Names of the constraints and indexes present.
SHOW CONSTRAINTS YIELD name RETURN name

// name: await_indexes
// Wait until every index is online (after a bulk import the schema's indexes populate in the
// background; queries that run before would scan labels instead).
CALL db.awaitIndexes($timeout_s)
