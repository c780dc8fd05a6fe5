// Retrieval over stored chunks (CLI-RAG): global (the whole record) or local (one encounter or a date
// window), hybrid (vector index, full-text index, graph neighbourhood of the patient's events).

// name: chunks_without_embedding
MATCH (c:Chunk)
WHERE c.embedding IS NULL AND ($patients IS NULL OR c.patient IN $patients)
RETURN c.id AS id, c.text AS text
LIMIT $limit

// name: set_chunk_embeddings
UNWIND $rows AS r
MATCH (c:Chunk {id: r.id})
CALL db.create.setNodeVectorProperty(c, 'embedding', r.embedding)

// name: vector_hits
// Nearest chunks by cosine in the vector index, kept when they are the patient's and in scope.
// The index ranks all patients' chunks, so $k asks for enough to leave $keep of this patient's.
CALL db.index.vector.queryNodes('chunk_embedding', $k, $vector) YIELD node AS c, score
WHERE c.patient = $patient
  AND ($encounter IS NULL OR c.encounter = $encounter)
  AND ($from IS NULL OR date(c.time) >= date($from)) AND ($to IS NULL OR date(c.time) <= date($to))
RETURN c.id AS id, score
ORDER BY score DESC
LIMIT $keep

// name: fulltext_hits
CALL db.index.fulltext.queryNodes('chunk_text', $query) YIELD node AS c, score
WHERE c.patient = $patient
  AND ($encounter IS NULL OR c.encounter = $encounter)
  AND ($from IS NULL OR date(c.time) >= date($from)) AND ($to IS NULL OR date(c.time) <= date($to))
RETURN c.id AS id, score
ORDER BY score DESC
LIMIT $keep

// name: graph_hits
// Chunks holding the evidence sentences of the patient's events whose concepts the question names,
// and of the events aligned to a guideline step: the graph neighbourhood of the question.
MATCH (ev:Event {patient: $patient})
WHERE ev.assertion IN ['present', 'historical']
OPTIONAL MATCH (ev)-[:INSTANCE_OF]->(:Concept)-[:IS_A*0..6]->(k:Concept)
WITH ev, collect(DISTINCT k.system + '|' + k.code) AS codes
WHERE any(c IN codes WHERE c IN $codes) OR (size($codes) = 0 AND EXISTS { (ev)-[:ALIGNED_TO]->() })
MATCH (ev)-[:EVIDENCED_BY]->(:Sentence)<-[:HAS_SENTENCE]-(c:Chunk)
WHERE ($encounter IS NULL OR c.encounter = $encounter)
  AND ($from IS NULL OR date(c.time) >= date($from)) AND ($to IS NULL OR date(c.time) <= date($to))
RETURN c.id AS id, count(DISTINCT ev) AS score
ORDER BY score DESC
LIMIT $keep

// name: chunk_details
UNWIND $ids AS id
MATCH (c:Chunk {id: id})
OPTIONAL MATCH (c)-[:HAS_SENTENCE]->(t:Sentence)
WITH c, t ORDER BY t.id
RETURN c.id AS id, c.text AS text, c.note AS note, c.encounter AS encounter, c.note_type AS note_type,
       c.section AS section, toString(c.time) AS time, c.embedding AS embedding,
       collect({id: t.id, text: t.text}) AS sentences

// name: patient_chunk_count
MATCH (c:Chunk {patient: $patient})
RETURN count(c) AS n, count(c.embedding) AS embedded

// name: encounter_exists
MATCH (e:Encounter {id: $encounter, patient: $patient})
RETURN e.id AS id
