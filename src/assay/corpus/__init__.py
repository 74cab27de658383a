"""A corpus of documents and its chunks: reading files into documents (:mod:`.ingest`) and
cutting them into sentence chunks with stable ids and offsets (:mod:`.chunking`).

Shared by test generation (:mod:`assay.generate`) and the fact-check agent's corpus search
(:mod:`assay.agents.factcheck.tools`), hence below both in the layers (docs/architecture.md).
"""

from assay.corpus.chunking import Chunk, chunk_document, chunk_documents, sentence_spans
from assay.corpus.ingest import Corpus, Document, ingest, read_document

__all__ = ["Chunk", "Corpus", "Document", "chunk_document", "chunk_documents", "ingest",
           "read_document", "sentence_spans"]
