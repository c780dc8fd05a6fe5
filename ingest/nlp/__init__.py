"""Clinical entities and their assertion, as a spaCy / medspaCy pipeline."""

from ingest.nlp.pipeline import Mention, NlpConfig, build_pipeline, extract_mentions

__all__ = ["Mention", "NlpConfig", "build_pipeline", "extract_mentions"]
