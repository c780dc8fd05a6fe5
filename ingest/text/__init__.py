"""Clinical text processing (CLI-RAG §2.2): normalize → sections → sentences → hierarchical chunks.

Everything works on the normalized text and maps back to the original note through
``NormalizedText.to_original``, so provenance spans always point at the exact original characters.
"""

from ingest.text.chunks import Chunk, chunk_sections
from ingest.text.normalize import NormalizedText, normalize
from ingest.text.sections import Section, split_sections
from ingest.text.sentences import Sentence, split_sentences

__all__ = ["NormalizedText", "normalize", "Section", "split_sections", "Sentence", "split_sentences",
           "Chunk", "chunk_sections"]
