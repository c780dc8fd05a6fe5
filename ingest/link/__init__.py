"""Codes for mentions: the terminologies graphkit links to, and the lookup from surface form to concept."""

from ingest.link.lexicon import Concept, Lexicon, load_lexicon

__all__ = ["Concept", "Lexicon", "load_lexicon"]
