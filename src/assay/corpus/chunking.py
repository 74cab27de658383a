"""Sentence chunking with a size and an overlap, stable chunk ids and source offsets.

Sentences come from :func:`assay.text.split_sentences`; each is located in the document text so
every chunk knows its character span, and ``document.text[chunk.start:chunk.end] == chunk.text``.
A chunk gathers whole sentences until adding one would pass ``size`` words (a single longer
sentence forms a chunk of its own); the next chunk starts ``overlap`` sentences before the end of
the previous one. Chunk ids are ``<document id>#<n>`` (n from 1 in document order), so the same
corpus and parameters always give the same ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from assay.corpus.ingest import Document
from assay.errors import InvalidInputError
from assay.params import check_int
from assay.text import split_sentences, words


@dataclass(frozen=True)
class Chunk:
    """A run of whole sentences of one document.

    Attributes:
        id: ``<document id>#<n>``.
        document_id: The document's id.
        source: The file the document was read from.
        start: Character offset of the chunk in the document text.
        end: End offset (exclusive).
        text: ``document.text[start:end]``.
        sentences: ``(first, last + 1)`` indices of the document's sentences it holds.
    """

    id: str
    document_id: str
    source: str
    start: int
    end: int
    text: str
    sentences: tuple[int, int]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable record."""
        record = asdict(self)
        record["sentences"] = list(self.sentences)
        return record


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of ``text``, in order.

    Example:
        >>> text = "The fee is 5 euros. It is waived\\nfor students."
        >>> [text[a:b] for a, b in sentence_spans(text)]
        ['The fee is 5 euros.', 'It is waived', 'for students.']
    """
    spans: list[tuple[int, int]] = []
    cursor = 0
    for sentence in split_sentences(text):
        at = text.find(sentence, cursor)
        if at >= 0:
            end = at + len(sentence)
        else:  # the splitter changed whitespace: match the words with any whitespace between
            pattern = r"\s+".join(re.escape(part) for part in sentence.split())
            match = re.compile(pattern).search(text, cursor)
            if match is None:
                raise InvalidInputError(f"sentence not found in the text: {sentence[:60]!r}")
            at, end = match.span()
        spans.append((at, end))
        cursor = end
    return spans


def chunk_document(document: Document, *, size: int = 120, overlap: int = 1) -> list[Chunk]:
    """Split one document into sentence chunks.

    Args:
        document: The document.
        size: Most words per chunk (a longer single sentence forms its own chunk).
        overlap: Sentences shared by consecutive chunks (less than the chunk's sentence count).

    Example:
        >>> doc = Document("fees.md", "fees.md", "markdown",
        ...                "One two three. Four five. Six seven eight. Nine.")
        >>> for chunk in chunk_document(doc, size=5, overlap=1):
        ...     print(chunk.id, chunk.start, chunk.end, chunk.text)
        fees.md#1 0 25 One two three. Four five.
        fees.md#2 15 42 Four five. Six seven eight.
        fees.md#3 26 48 Six seven eight. Nine.
    """
    check_int(size, "size", "chunk_document")
    check_int(overlap, "overlap", "chunk_document", minimum=0)
    spans = sentence_spans(document.text)
    counts = [len(words(document.text[a:b])) for a, b in spans]
    chunks: list[Chunk] = []
    first = 0
    while first < len(spans):
        last, total = first, counts[first]
        while last + 1 < len(spans) and total + counts[last + 1] <= size:
            last += 1
            total += counts[last]
        start, end = spans[first][0], spans[last][1]
        chunks.append(Chunk(
            id=f"{document.id}#{len(chunks) + 1}",
            document_id=document.id,
            source=document.path,
            start=start,
            end=end,
            text=document.text[start:end],
            sentences=(first, last + 1),
        ))
        if last + 1 >= len(spans):
            break
        # step forward, keeping ``overlap`` sentences but always making progress
        first = max(first + 1, last + 1 - overlap)
    return chunks


def chunk_documents(
    documents: Iterable[Document], *, size: int = 120, overlap: int = 1
) -> list[Chunk]:
    """Chunks of every document, in document order (see :func:`chunk_document`).

    Example:
        >>> docs = [Document("a", "a", "text", "Cards are free."),
        ...         Document("b", "b", "text", "Loans cost 5%. Fees apply.")]
        >>> [c.id for c in chunk_documents(docs, size=50)]
        ['a#1', 'b#1']
    """
    return [chunk for document in documents
            for chunk in chunk_document(document, size=size, overlap=overlap)]


def chunk_index(chunks: Sequence[Chunk]) -> dict[str, int]:
    """Position of each chunk id in ``chunks``.

    Example:
        >>> chunk_index([Chunk("a#1", "a", "a", 0, 1, "x", (0, 1))])
        {'a#1': 0}
    """
    return {chunk.id: index for index, chunk in enumerate(chunks)}
