"""The idf definitions of assay.text.idf: each pinned to its reference's values, and the places
that use them still give what they gave when each wrote its own formula."""

from __future__ import annotations

import math

import numpy as np
import pytest

from assay.text.idf import (
    ctfidf_idf,
    dfr_idf,
    lucene_bm25_idf,
    okapi_bm25_idf,
    sklearn_smooth_idf,
)

DOCS = ["the fee is five euros", "the card is free", "the fee is waived", "loans cost more"]


def _df(docs: list[str]) -> dict[str, int]:
    return {t: sum(t in d.split() for d in docs) for d in docs for t in d.split()}


def test_sklearn_smooth_idf_is_tfidf_vectorizers() -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(smooth_idf=True, token_pattern=r"\S+").fit(DOCS)
    df = _df(DOCS)
    for term, index in vectorizer.vocabulary_.items():
        assert sklearn_smooth_idf(len(DOCS), df[term]) == pytest.approx(vectorizer.idf_[index])


def test_lucene_bm25_idf_values() -> None:
    # Lucene's BM25Similarity.idf: log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5))
    assert lucene_bm25_idf(4, 3) == pytest.approx(math.log(1 + 1.5 / 3.5))  # "the": 0.3567
    assert lucene_bm25_idf(4, 1) == pytest.approx(1.2040, abs=1e-4)
    assert lucene_bm25_idf(4, 4) > 0  # a term in every document still counts


def test_okapi_bm25_idf_floors_common_terms_at_epsilon_of_the_mean() -> None:
    idf = okapi_bm25_idf(4, _df(DOCS), epsilon=0.25)
    raw = {t: math.log((4 - f + 0.5) / (f + 0.5)) for t, f in _df(DOCS).items()}
    floor = 0.25 * sum(raw.values()) / len(raw)
    assert idf["the"] == pytest.approx(floor) and raw["the"] < 0  # in 3 of 4 documents
    assert idf["card"] == pytest.approx(math.log(3.5 / 1.5))
    assert idf["fee"] == pytest.approx(0.0)  # in half: ln(1) = 0, not negative, kept
    assert okapi_bm25_idf(4, {}) == {}


def test_okapi_bm25_idf_matches_rank_bm25() -> None:
    rank_bm25 = pytest.importorskip("rank_bm25")
    corpus = [d.split() for d in DOCS]
    reference = rank_bm25.BM25Okapi(corpus, epsilon=0.25).idf
    ours = okapi_bm25_idf(len(corpus), _df(DOCS), epsilon=0.25)
    assert ours == pytest.approx(reference)


def test_dfr_idf_values() -> None:
    assert dfr_idf(2, 1) == pytest.approx(math.log(2.0))
    assert dfr_idf(2, 0) == pytest.approx(math.log(6.0))  # a term the collection lacks
    assert dfr_idf(10, 10) < dfr_idf(10, 1) < dfr_idf(10, 0)


def test_ctfidf_idf_is_bertopics() -> None:
    # BERTopic's ClassTfidfTransformer: idf = log(1 + A / f), A the mean words per class
    counts = np.array([[3.0, 1.0, 0.0], [0.0, 1.0, 2.0]])
    frequency, average = counts.sum(axis=0), float(counts.sum(axis=1).mean())
    assert ctfidf_idf(frequency, average) == pytest.approx(np.log(1 + 3.5 / frequency))
    assert ctfidf_idf(frequency, average).round(4).tolist() == [0.7732, 1.0116, 1.0116]


def test_users_of_the_definitions_keep_their_values() -> None:
    from assay.agents.factcheck.tools import BM25
    from assay.generate.selection import Specificity
    from assay.text.alignment import ContextIndex

    corpus = [["fee", "euro"], ["card", "free"], ["fee", "waiv"]]
    assert [round(s, 3) for s in BM25(corpus).scores(["fee"])] == [0.47, 0.0, 0.47]
    assert [round(s, 3) for s in BM25(corpus, idf="okapi").scores(["fee"])] == [0.077, 0.0, 0.077]
    index = ContextIndex.of(["Anna joined in 2019.", "Bob left in 2021."])
    assert index.idf["anna"] == pytest.approx(math.log(3 / 1.5))
    assert index.unseen_idf == pytest.approx(math.log(3 / 0.5))
    spec = Specificity(["The fee is 5 euros.", "The account fee is waived.", "Cards are free."])
    assert spec.weight("fee") == pytest.approx(math.log(4 / 3) + 1)
