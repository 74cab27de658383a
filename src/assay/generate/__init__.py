"""Test generation from a document corpus (HCAT §2): questions that cover every topic.

corpus → :func:`ingest` → :func:`chunk_documents` → embeddings → :func:`build_topics` (reduce,
cluster, c-TF-IDF labels) → :func:`allocate` / :func:`plan_slots` (stratified sampling) → key facts
and questions through the judge → :func:`select` (query selection) → a
:class:`~assay.data.TestSuite`, a coverage table and a topic map. :func:`generate` runs it all.
Nothing heavy is imported here: scikit-learn, pypdf, python-docx and BeautifulSoup load when used.
"""

from assay.corpus.chunking import Chunk, chunk_document, chunk_documents, sentence_spans
from assay.corpus.ingest import Corpus, Document, ingest, read_document
from assay.generate.coverage import coverage_markdown, coverage_rows
from assay.generate.pipeline import GenerationConfig, GenerationResult, generate
from assay.generate.questions import UNANSWERABLE_ANSWER, Candidate
from assay.generate.sampling import STRATEGIES, Slot, allocate, plan_slots
from assay.generate.selection import REASONS, SelectionConfig, select
from assay.generate.taxonomy import (
    DEFAULT_TAXONOMY,
    TREC_CLASSES,
    TREC_TAXONOMY,
    QueryType,
    load_taxonomy,
    resolve_types,
    trec_class,
)
from assay.generate.topic_map import topic_map_svg
from assay.generate.topics import Topic, TopicModel, build_topics, ctfidf

__all__ = [
    "DEFAULT_TAXONOMY", "REASONS", "STRATEGIES", "TREC_CLASSES", "TREC_TAXONOMY",
    "UNANSWERABLE_ANSWER", "Candidate", "Chunk", "Corpus", "Document", "GenerationConfig",
    "GenerationResult", "QueryType", "SelectionConfig", "Slot", "Topic", "TopicModel", "allocate",
    "build_topics", "chunk_document", "chunk_documents", "coverage_markdown", "coverage_rows",
    "ctfidf", "generate", "ingest", "load_taxonomy", "plan_slots", "read_document",
    "resolve_types", "select", "sentence_spans", "topic_map_svg", "trec_class",
]
