"""Clinical entities, their values and assertion, as a spaCy / medspaCy pipeline."""

from ingest.nlp.pipeline import Mention, NlpConfig, build_pipeline, extract_mentions, find_mentions, resolve_note

__all__ = ["Mention", "NlpConfig", "build_pipeline", "extract_mentions", "find_mentions", "resolve_note"]
