"""Sentence chunks: offsets into the document, size and overlap, stable ids."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.corpus.chunking import chunk_document, chunk_documents, sentence_spans
from assay.corpus.ingest import Document, ingest
from assay.errors import InvalidInputError
from assay.text import words


def test_offsets_point_into_the_document(corpus_dir: Path) -> None:
    documents = ingest(corpus_dir).documents
    chunks = chunk_documents(documents, size=25, overlap=1)
    texts = {d.id: d.text for d in documents}
    assert len(chunks) > len(documents)
    for chunk in chunks:
        assert texts[chunk.document_id][chunk.start:chunk.end] == chunk.text
        assert chunk.source.endswith(chunk.document_id)
    assert len({c.id for c in chunks}) == len(chunks)


def test_ids_are_stable(corpus_dir: Path) -> None:
    first = [c.to_dict() for c in chunk_documents(ingest(corpus_dir).documents, size=30)]
    second = [c.to_dict() for c in chunk_documents(ingest(corpus_dir).documents, size=30)]
    assert first == second
    assert first[0]["id"] == "cards.md#1"


def test_size_and_overlap() -> None:
    text = " ".join(f"Sentence number {i} has five words." for i in range(10))
    doc = Document("d", "d", "text", text)
    chunks = chunk_document(doc, size=12, overlap=1)
    assert [c.sentences for c in chunks] == [(0, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5, 7),
                                             (6, 8), (7, 9), (8, 10)]
    assert all(len(words(c.text)) <= 12 for c in chunks)
    no_overlap = chunk_document(doc, size=12, overlap=0)
    assert [c.sentences for c in no_overlap] == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10)]
    # an overlap as large as the chunk still moves forward by one sentence
    assert len(chunk_document(doc, size=12, overlap=5)) == 9


def test_long_sentence_forms_its_own_chunk() -> None:
    long = "word " * 50
    doc = Document("d", "d", "text", f"Short one. {long.strip()}. Short two.")
    chunks = chunk_document(doc, size=10, overlap=0)
    assert [len(words(c.text)) for c in chunks] == [2, 50, 2]


def test_parameters_are_checked() -> None:
    doc = Document("d", "d", "text", "A b c.")
    with pytest.raises(InvalidInputError, match="'size' parameter of chunk_document"):
        chunk_document(doc, size=0)
    with pytest.raises(InvalidInputError, match="'overlap'"):
        chunk_document(doc, overlap=-1)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["The fee is 5 euros.", "Cards   are free!", "Dr. Who pays 3.5%?",
                                 "\n\n", "Ends here", "Mr. X left."]), min_size=1, max_size=12),
       st.integers(1, 15), st.integers(0, 3))
def test_chunks_cover_every_sentence_in_order(parts: list[str], size: int, overlap: int) -> None:
    text = " ".join(parts)
    doc = Document("d", "d", "text", text)
    spans = sentence_spans(text)
    chunks = chunk_document(doc, size=size, overlap=overlap)
    covered = sorted({i for c in chunks for i in range(*c.sentences)})
    assert covered == list(range(len(spans)))
    for chunk in chunks:
        assert text[chunk.start:chunk.end] == chunk.text
    starts = [c.sentences[0] for c in chunks]
    assert starts == sorted(set(starts))
