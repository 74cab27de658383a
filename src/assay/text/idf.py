"""Inverse document frequency, one function per reference definition.

IDF weighs a term by how rare it is in a collection, but the references assay follows define it
differently, and each definition belongs to where it is used: a BM25 score is only faithful
with BM25's idf, a keyword weight only with BERTopic's. So they are not merged into one; they
are written here once each, named after their reference, with the values pinned by tests:

* :func:`lucene_bm25_idf`: BM25 as Lucene computes it (the fact-check agent's corpus search);
* :func:`okapi_bm25_idf`: BM25 as ``rank_bm25.BM25Okapi`` computes it (its ``idf="okapi"``);
* :func:`sklearn_smooth_idf`: scikit-learn's ``TfidfVectorizer(smooth_idf=True)`` (how specific a
  generated question's words are to the corpus);
* :func:`dfr_idf`: the informative content ``I(n)`` of the divergence-from-randomness models
  (Amati and van Rijsbergen, 2002), in natural log (how rare a detail is in a context, for the
  alignment of a claim with it);
* :func:`ctfidf_idf`: BERTopic's class-based TF-IDF (the keywords of a topic).

``n_docs`` is the number of documents (chunks, sentences, classes), ``df`` how many of them hold
the term.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TypeVar

import numpy as np

K = TypeVar("K")


def lucene_bm25_idf(n_docs: int, df: int) -> float:
    """Lucene's BM25 idf, ``ln(1 + (N - df + 0.5) / (df + 0.5))``: always positive, so a term in
    half of a tiny corpus still counts.

    Example:
        >>> round(lucene_bm25_idf(3, 2), 4), round(lucene_bm25_idf(3, 3), 4)
        (0.47, 0.1335)
    """
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))


def okapi_bm25_idf(n_docs: int, df: Mapping[K, int], epsilon: float = 0.25) -> dict[K, float]:
    """``rank_bm25.BM25Okapi``'s idf of every term: ``ln((N - df + 0.5) / (df + 0.5))``, where a
    negative value (a term in more than half the documents) becomes ``epsilon`` times the mean
    idf of all terms.

    Example:
        >>> idf = okapi_bm25_idf(4, {"fee": 3, "card": 1, "loan": 1})
        >>> {t: round(v, 4) for t, v in idf.items()}
        {'fee': 0.0706, 'card': 0.8473, 'loan': 0.8473}
    """
    okapi = {t: math.log(n_docs - f + 0.5) - math.log(f + 0.5) for t, f in df.items()}
    floor = epsilon * (sum(okapi.values()) / len(okapi)) if okapi else 0.0
    return {t: (v if v >= 0 else floor) for t, v in okapi.items()}


def sklearn_smooth_idf(n_docs: int, df: int) -> float:
    """scikit-learn's smoothed idf (``TfidfVectorizer(smooth_idf=True)``),
    ``ln((1 + N) / (1 + df)) + 1``: 1 for a term in every document, more the rarer it is.

    Example:
        >>> sklearn_smooth_idf(3, 3), round(sklearn_smooth_idf(3, 1), 4)
        (1.0, 1.6931)
    """
    return math.log((n_docs + 1) / (df + 1)) + 1.0


def dfr_idf(n_docs: int, df: int) -> float:
    """The inverse document frequency of the divergence-from-randomness models' informative
    content ``I(n)`` (Amati and van Rijsbergen, 2002; Terrier's ``Idf.idfDFR``), in natural log:
    ``ln((N + 1) / (df + 0.5))``; ``df = 0`` gives a term the collection does not hold.

    Example:
        >>> round(dfr_idf(2, 1), 4), round(dfr_idf(2, 0), 4)
        (0.6931, 1.7918)
    """
    return math.log((n_docs + 1) / (df + 0.5))


def ctfidf_idf(frequency: np.ndarray, average: float) -> np.ndarray:
    """BERTopic's class-based idf, ``ln(1 + A / f)``: ``frequency`` holds each term's count over
    all classes, ``average`` the mean number of words per class.

    Example:
        >>> ctfidf_idf(np.array([1.0, 4.0]), 4.0).round(4).tolist()
        [1.6094, 0.6931]
    """
    return np.log(1.0 + average / frequency)
