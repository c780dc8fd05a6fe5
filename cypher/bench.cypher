// Statements the benchmarks use besides the regular writers.

// name: delete_by_id_prefix
// Remove a benchmark's graph in chunks (needs an auto-commit transaction).
MATCH (n) WHERE n.id STARTS WITH $prefix
CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS

// name: delete_concepts_of_system
MATCH (c:Concept {system: $system})
CALL { WITH c DETACH DELETE c } IN TRANSACTIONS OF 10000 ROWS
