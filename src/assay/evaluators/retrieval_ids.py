"""Id spaces of retrieval judgements: how retrieved ids are matched to relevant ids.

A system under test names its chunks its own way (``stdtypes::4``) while a generated suite names
them assay's way (``stdtypes.md#2``). Compared as they are, every retrieval metric is 0 and looks
like a total retrieval failure. This module (1) maps both sides to a shared space when asked:
``"document"`` keeps the part before the last ``::`` or ``#`` on both sides, ``"text"`` matches
retrieved chunk texts to the suite's relevant chunk texts; and (2) detects the disjoint case, so
it is reported as an error naming the likely cause, never as a score of 0.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay.data.case import TestCase

#: How retrieved ids are matched to relevant ids.
ID_MATCHES = ("id", "document", "text")
#: Cases with both retrieved and relevant ids a batch needs before disjoint spaces are called.
MIN_CASES_FOR_DISJOINT = 3
_SPACE = re.compile(r"\s+")


def document_of(chunk_id: str) -> str:
    """The document part of a chunk id: before the last ``::``, else before the last ``#``.

    Example:
        >>> document_of("stdtypes::4"), document_of("stdtypes.md#2"), document_of("faq")
        ('stdtypes', 'stdtypes.md', 'faq')
    """
    for separator in ("::", "#"):
        if separator in chunk_id:
            return chunk_id.rsplit(separator, 1)[0]
    return chunk_id


def _stem(document: str) -> str:
    """A document name without a file extension (``stdtypes.md`` and ``stdtypes`` meet)."""
    head, dot, tail = document.rpartition(".")
    return head if dot and head and tail.isalnum() and len(tail) <= 5 else document


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lower()


@dataclass(frozen=True)
class Judgement:
    """One case's ranking and relevance in the matched id space (``error`` when unusable)."""

    ranking: list[str]
    relevance: dict[str, float]
    error: str | None = None


def _text_judgement(case: TestCase) -> Judgement:
    relevant = [_norm(t) for t in case.relevant_context or []]
    retrieved = case.retrieved_context or []
    if not relevant:
        return Judgement([], {}, "id_match='text' needs relevant_context (the relevant texts)")
    ranking = []
    for rank, chunk in enumerate(retrieved):
        text = _norm(chunk)
        match = next((j for j, r in enumerate(relevant) if r and (r in text or text in r)), None)
        ranking.append(f"relevant:{match}" if match is not None else f"retrieved:{rank}")
    return Judgement(ranking, {f"relevant:{j}": 1.0 for j in range(len(relevant))})


def judgement(case: TestCase, id_match: str) -> Judgement:
    """The case's ranking and relevance once ids are matched by ``id_match``.

    ``"document"`` maps both sides to :func:`document_of` without a file extension; a document
    keeps its best grade. ``"text"`` ranks retrieved chunks by the relevant text they contain or
    are contained in (``relevant_context``; every relevant text has grade 1).

    Example:
        >>> case = TestCase(id="q", context_ids=["faq::3", "stdtypes::0"],
        ...                 relevant_ids={"stdtypes.md#2": 1, "stdtypes.md#5": 2})
        >>> judgement(case, "document")
        Judgement(ranking=['faq', 'stdtypes'], relevance={'stdtypes': 2.0}, error=None)
    """
    if id_match == "text":
        return _text_judgement(case)
    # the case's own list and dict (read, never changed: no copy per case); a validated
    # TestCase holds float grades
    ranking = case.context_ids or []
    relevance = case.relevant_ids or {}
    if id_match == "document":
        ranking = [_stem(document_of(i)) for i in ranking]
        mapped: dict[str, float] = {}
        for chunk_id, grade in relevance.items():
            key = _stem(document_of(chunk_id))
            mapped[key] = max(grade, mapped.get(key, grade))
        relevance = mapped
    return Judgement(ranking, relevance)


def misaligned(case: TestCase) -> str | None:
    """Why ``context_ids`` and ``retrieved_context`` cannot describe the same chunks (None
    when they can: either is absent, or they have the same length).

    Example:
        >>> misaligned(TestCase(id="q", context_ids=["a", "b"], retrieved_context=["a"]))[:45]
        'context_ids has 2 ids but retrieved_context 1'
    """
    ids, texts = case.context_ids, case.retrieved_context
    if ids is None or texts is None or len(ids) == len(texts):
        return None
    return (f"context_ids has {len(ids)} ids but retrieved_context {len(texts)} chunks: they do "
            "not describe the same ranking")


def disjoint_spaces(judgements: Sequence[Judgement]) -> str | None:
    """The reason to refuse a batch whose retrieved and relevant ids never meet, else None.

    Called only when at least :data:`MIN_CASES_FOR_DISJOINT` cases have both; a system that
    retrieves wrongly still retrieves *some* judged id somewhere, while two naming schemes never
    share one.

    Example:
        >>> js = [Judgement([f"sys::{i}"], {f"doc.md#{i}": 1.0}) for i in range(3)]
        >>> disjoint_spaces(js)[:61]
        'disjoint id spaces: none of the 3 retrieved ids (e.g. sys::0)'
    """
    usable = [j for j in judgements if j.error is None and j.ranking and j.relevance]
    if len(usable) < MIN_CASES_FOR_DISJOINT:
        return None
    if any(not j.relevance.keys().isdisjoint(j.ranking) for j in usable):
        return None  # the usual case, found without building the batch's id sets
    retrieved = {i for j in usable for i in j.ranking}
    judged = {i for j in usable for i in j.relevance}
    if retrieved & judged:
        return None
    return (f"disjoint id spaces: none of the {len(retrieved)} retrieved ids (e.g. "
            f"{min(retrieved)}) is among the {len(judged)} judged ids (e.g. {min(judged)}) of "
            f"{len(usable)} cases; the system names its chunks differently. Match by document "
            "(--param retrieval.id_match=document) or by text (id_match=text)")
