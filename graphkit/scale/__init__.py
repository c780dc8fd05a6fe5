"""Scale-out: ingestion and alignment on Apache Spark, and bulk loading with neo4j-admin import."""
