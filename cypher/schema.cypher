// graphkit schema, as ordered migrations. Each block starts with "// migration: N <title>" and holds
// ';'-terminated schema statements. Every statement is idempotent (IF NOT EXISTS), so a migration that
// was interrupted can simply run again. The applied version is kept on (:SchemaVersion {id}).
// Never edit an applied migration: append a new one.

// migration: 1 uniqueness constraints of the graph model (DESIGN.md)
CREATE CONSTRAINT patient_id IF NOT EXISTS FOR (n:Patient) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT encounter_id IF NOT EXISTS FOR (n:Encounter) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT note_id IF NOT EXISTS FOR (n:Note) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT section_id IF NOT EXISTS FOR (n:Section) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT sentence_id IF NOT EXISTS FOR (n:Sentence) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT event_id IF NOT EXISTS FOR (n:Event) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT concept_system_code IF NOT EXISTS FOR (n:Concept) REQUIRE (n.system, n.code) IS UNIQUE;
CREATE CONSTRAINT guideline_id_version IF NOT EXISTS FOR (n:Guideline) REQUIRE (n.id, n.version) IS UNIQUE;
CREATE CONSTRAINT guideline_step_uid IF NOT EXISTS FOR (n:GuidelineStep) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT guideline_path_id IF NOT EXISTS FOR (n:GuidelinePath) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT alignment_run_id IF NOT EXISTS FOR (n:AlignmentRun) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT conformance_item_id IF NOT EXISTS FOR (n:ConformanceItem) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT recommendation_id IF NOT EXISTS FOR (n:Recommendation) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT schema_version_id IF NOT EXISTS FOR (n:SchemaVersion) REQUIRE n.id IS UNIQUE;

// migration: 2 lookup indexes for timelines, cohort views and Browser search
CREATE INDEX event_patient IF NOT EXISTS FOR (n:Event) ON (n.patient);
CREATE INDEX event_kind IF NOT EXISTS FOR (n:Event) ON (n.kind);
CREATE INDEX event_valid_time IF NOT EXISTS FOR (n:Event) ON (n.valid_time);
CREATE INDEX encounter_start IF NOT EXISTS FOR (n:Encounter) ON (n.start);
CREATE INDEX note_sha256 IF NOT EXISTS FOR (n:Note) ON (n.sha256);
CREATE INDEX concept_code IF NOT EXISTS FOR (n:Concept) ON (n.code);
CREATE FULLTEXT INDEX sentence_text IF NOT EXISTS FOR (n:Sentence) ON EACH [n.text];

// migration: 3 patient state and normative reasoning
CREATE CONSTRAINT patient_state_id IF NOT EXISTS FOR (n:PatientState) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT care_assessment_id IF NOT EXISTS FOR (n:CareAssessment) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT care_item_id IF NOT EXISTS FOR (n:CareItem) REQUIRE n.id IS UNIQUE;
CREATE INDEX care_assessment_key IF NOT EXISTS FOR (n:CareAssessment) ON (n.key);

// migration: 4 retrieval chunks: lookup, full text and a vector index (all-MiniLM-L6-v2, 384 dimensions)
CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (n:Chunk) REQUIRE n.id IS UNIQUE;
CREATE INDEX chunk_patient IF NOT EXISTS FOR (n:Chunk) ON (n.patient);
CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS FOR (n:Chunk) ON EACH [n.text];
CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS FOR (n:Chunk) ON (n.embedding) OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};

// migration: 5 clinical documents (SOAP notes, aspect summaries)
CREATE CONSTRAINT clinical_document_id IF NOT EXISTS FOR (n:ClinicalDocument) REQUIRE n.id IS UNIQUE;
