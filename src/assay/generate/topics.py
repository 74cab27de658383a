"""Topic strata: reduce chunk embeddings, cluster them, label clusters by class-based TF-IDF.

Reduction is PCA (scikit-learn, the default) or UMAP (extra ``embed``); clustering is k-means with
``k`` chosen by the silhouette score over a range, HDBSCAN (scikit-learn's) or DBSCAN (``eps`` by
default the median distance to the ``min_samples``-th neighbour). Points the density methods
leave unclustered form their own *noise* stratum (id ``-1``), sampled like any other topic.
Topic ids are renumbered by decreasing size, so they are the same for the same input and seed.
Keywords are c-TF-IDF (BERTopic's class-based TF-IDF): ``tf(t, c) · log(1 + A / f(t))`` with
``tf`` normalised per class, ``f(t)`` the term's count over all classes and ``A`` the mean number
of words per class.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assay.errors import require
from assay.params import check, check_choice, check_int
from assay.text.idf import ctfidf_idf

logger = logging.getLogger(__name__)

REDUCERS = ("pca", "umap", "none")
CLUSTERERS = ("kmeans", "hdbscan", "dbscan")
NOISE = -1


@dataclass(frozen=True)
class Topic:
    """One stratum: its id (``-1`` for noise), label, keywords with c-TF-IDF weights, size."""

    id: int
    label: str
    keywords: list[tuple[str, float]]
    size: int

    @property
    def is_noise(self) -> bool:
        """Whether this is the stratum of unclustered points."""
        return self.id == NOISE

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable record."""
        return {"id": self.id, "label": self.label, "size": self.size,
                "keywords": [[w, round(s, 6)] for w, s in self.keywords]}


@dataclass
class TopicModel:
    """The strata of a corpus: one topic id per chunk, the topics, and how they were found."""

    labels: np.ndarray
    topics: list[Topic]
    coords: np.ndarray
    params: dict[str, Any] = field(default_factory=dict)
    silhouette: dict[int, float] = field(default_factory=dict)

    def topic(self, topic_id: int) -> Topic:
        """The topic with id ``topic_id``."""
        return next(t for t in self.topics if t.id == topic_id)

    def members(self, topic_id: int) -> list[int]:
        """Indices of the chunks in topic ``topic_id``, in order."""
        return [int(i) for i in np.flatnonzero(self.labels == topic_id)]

    def to_dict(self) -> dict[str, Any]:
        """Topics, parameters and silhouette scores (JSON-serialisable)."""
        return {
            "params": self.params,
            "silhouette": {str(k): round(v, 6) for k, v in self.silhouette.items()},
            "topics": [t.to_dict() for t in self.topics],
        }


def reduce(embeddings: np.ndarray, *, method: str = "pca", n_components: int = 10,
           seed: int = 0) -> np.ndarray:
    """Project rows to at most ``n_components`` dimensions (PCA or UMAP; ``none`` keeps them).

    Example:
        >>> x = np.random.default_rng(0).normal(size=(20, 8))
        >>> reduce(x, n_components=3).shape
        (20, 3)
    """
    check_choice(method, REDUCERS, "method", "reduce")
    x = np.asarray(embeddings, dtype=np.float64)
    n, dim = x.shape
    n_components = min(n_components, dim, max(1, n - 1))
    if method == "none" or n < 3:
        return x
    if method == "umap" and n > n_components + 2:
        umap = require("umap", extra="embed", package="umap-learn")
        reducer = umap.UMAP(  # type: ignore[attr-defined]
            n_components=n_components, n_neighbors=min(15, n - 1), metric="cosine",
            random_state=seed, min_dist=0.0, n_jobs=1,
        )
        return np.asarray(reducer.fit_transform(x), dtype=np.float64)
    if method == "umap":
        logger.info("too few chunks (%d) for UMAP; using PCA", n)
    from sklearn.decomposition import PCA

    return np.asarray(PCA(n_components=n_components, random_state=seed).fit_transform(x))


def _silhouette(x: np.ndarray, labels: np.ndarray) -> float | None:
    from sklearn.metrics import silhouette_score

    mask = labels != NOISE
    distinct = len(set(labels[mask].tolist()))
    if distinct < 2 or distinct >= mask.sum():
        return None
    return float(silhouette_score(x[mask], labels[mask]))


def kmeans_by_silhouette(
    x: np.ndarray, *, k: int | None = None, k_range: tuple[int, int] = (2, 12), seed: int = 0
) -> tuple[np.ndarray, dict[int, float]]:
    """K-means labels, with ``k`` (when None) the one of ``k_range`` with the best silhouette.

    Returns the labels and the silhouette score of each ``k`` tried.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> x = np.vstack([rng.normal(c, 0.1, size=(10, 2)) for c in (0, 5, 10)])
        >>> labels, scores = kmeans_by_silhouette(x, seed=0)
        >>> len(set(labels.tolist())), max(scores, key=scores.get)
        (3, 3)
    """
    from sklearn.cluster import KMeans

    n = len(x)
    if k is not None:
        check_int(k, "k", "kmeans_by_silhouette")
        k = min(k, n)
        labels = KMeans(n_clusters=k, n_init=4, random_state=seed).fit_predict(x)
        score = _silhouette(x, labels)
        return labels, ({k: score} if score is not None else {})
    low, high = k_range
    check(2 <= low <= high, "k_range", "kmeans_by_silhouette", "(low, high) with 2 <= low <= high",
          k_range)
    scores: dict[int, float] = {}
    best: tuple[float, np.ndarray] | None = None
    if len(np.unique(x.round(9), axis=0)) > 2:
        for candidate in range(low, min(high, n - 1) + 1):
            labels = KMeans(n_clusters=candidate, n_init=4, random_state=seed).fit_predict(x)
            score = _silhouette(x, labels)
            if score is None:
                continue
            scores[candidate] = score
            if best is None or score > best[0] + 1e-12:
                best = (score, labels)
    if best is None:
        return np.zeros(n, dtype=int), scores
    return best[1], scores


def density_clusters(x: np.ndarray, *, method: str = "hdbscan", min_cluster_size: int = 5,
                     min_samples: int | None = None, eps: float | None = None) -> np.ndarray:
    """HDBSCAN or DBSCAN labels (``-1`` for noise).

    Example:
        >>> rng = np.random.default_rng(0)
        >>> x = np.vstack([rng.normal(c, 0.05, size=(8, 2)) for c in (0, 5)] + [[[20.0, 20.0]]])
        >>> labels = density_clusters(x, min_cluster_size=4)
        >>> len(set(labels[:16].tolist())), int(labels[-1])
        (2, -1)
    """
    from sklearn.cluster import DBSCAN, HDBSCAN
    from sklearn.neighbors import NearestNeighbors

    n = len(x)
    size = max(2, min(min_cluster_size, n))
    if method == "hdbscan":
        if n < 3:
            return np.zeros(n, dtype=int)
        model = HDBSCAN(min_cluster_size=size, min_samples=min_samples, copy=True)
        return np.asarray(model.fit_predict(x), dtype=int)
    samples = min_samples or size
    if eps is None:
        neighbours = NearestNeighbors(n_neighbors=min(samples, n)).fit(x)
        distances = neighbours.kneighbors(x)[0][:, -1]
        eps = float(np.median(distances)) or 1e-9
    return np.asarray(DBSCAN(eps=eps, min_samples=samples).fit_predict(x), dtype=int)


def renumber(labels: np.ndarray) -> np.ndarray:
    """Cluster ids by decreasing size (ties: first member first); noise stays ``-1``.

    Example:
        >>> renumber(np.array([5, 2, 2, -1, 5, 2])).tolist()
        [1, 0, 0, -1, 1, 0]
    """
    labels = np.asarray(labels, dtype=int)
    clusters = [c for c in dict.fromkeys(labels.tolist()) if c != NOISE]
    order = sorted(clusters, key=lambda c: (-int((labels == c).sum()),
                                            int(np.argmax(labels == c))))
    mapping = {old: new for new, old in enumerate(order)} | {NOISE: NOISE}
    return np.array([mapping[c] for c in labels.tolist()], dtype=int)


def ctfidf(texts_by_class: Sequence[str], *, top_n: int = 10,
           ngram_range: tuple[int, int] = (1, 1)) -> list[list[tuple[str, float]]]:
    """The ``top_n`` c-TF-IDF keywords of each class (one concatenated text per class).

    Example:
        >>> kw = ctfidf(["fee fee card monthly fee", "loan interest loan rate card"], top_n=2)
        >>> [[w for w, _ in k] for k in kw]
        [['fee', 'monthly'], ['loan', 'rate']]
    """
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(stop_words="english", ngram_range=ngram_range,
                                 token_pattern=r"(?u)\b[^\W\d_][^\W\d_]+\b")
    try:
        counts = vectorizer.fit_transform(texts_by_class).toarray().astype(np.float64)
    except ValueError:  # no word left after stop words
        return [[] for _ in texts_by_class]
    vocabulary = vectorizer.get_feature_names_out()
    totals = counts.sum(axis=1, keepdims=True)
    tf = counts / np.where(totals > 0, totals, 1.0)
    frequency = counts.sum(axis=0)
    average = float(counts.sum(axis=1).mean())
    weights = tf * ctfidf_idf(frequency, average)
    out = []
    for row in weights:
        order = sorted(range(len(row)), key=lambda j: (-row[j], vocabulary[j]))[:top_n]
        out.append([(str(vocabulary[j]), float(row[j])) for j in order if row[j] > 0])
    return out


def build_topics(
    embeddings: np.ndarray,
    texts: Sequence[str],
    *,
    reducer: str = "pca",
    n_components: int = 10,
    method: str = "kmeans",
    k: int | None = None,
    k_range: tuple[int, int] = (2, 12),
    min_cluster_size: int = 5,
    min_samples: int | None = None,
    eps: float | None = None,
    n_keywords: int = 10,
    seed: int = 0,
) -> TopicModel:
    """Cluster chunk embeddings into labelled topic strata.

    Args:
        embeddings: One L2-normalised row per chunk.
        texts: The chunks' texts (for the keywords).
        reducer: ``pca``, ``umap`` or ``none``.
        n_components: Dimensions kept by the reducer.
        method: ``kmeans``, ``hdbscan`` or ``dbscan``.
        k: Number of k-means clusters (None: chosen by silhouette within ``k_range``).
        k_range: Smallest and largest ``k`` tried.
        min_cluster_size: HDBSCAN's minimum cluster size (DBSCAN's ``min_samples`` default).
        min_samples: HDBSCAN / DBSCAN ``min_samples``.
        eps: DBSCAN radius (None: median distance to the ``min_samples``-th neighbour).
        n_keywords: Keywords kept per topic (the label shows the first three).
        seed: Seed of the reducer and of k-means.

    Example:
        >>> from assay.backends.embed.fake import FakeEmbedder
        >>> texts = ["card fee abroad", "card fee cash", "card fee euros",
        ...          "loan rate interest", "loan rate term", "loan rate repay"]
        >>> model = build_topics(FakeEmbedder().encode(texts), texts, k=2)
        >>> sorted(t.label.split(", ")[0] for t in model.topics)
        ['card', 'loan']
    """
    check_choice(method, CLUSTERERS, "method", "build_topics")
    x = np.asarray(embeddings, dtype=np.float64)
    check(x.ndim == 2 and len(x) == len(texts), "embeddings", "build_topics",
          "one row per text", getattr(x, "shape", None))
    n = len(x)
    reduced = reduce(x, method=reducer, n_components=n_components, seed=seed) if n else x
    silhouette: dict[int, float] = {}
    if n < 3:
        labels = np.zeros(n, dtype=int)
    elif method == "kmeans":
        labels, silhouette = kmeans_by_silhouette(reduced, k=k, k_range=k_range, seed=seed)
    else:
        labels = density_clusters(reduced, method=method, min_cluster_size=min_cluster_size,
                                  min_samples=min_samples, eps=eps)
    labels = renumber(labels)
    ids = sorted(set(labels.tolist()), key=lambda c: (c == NOISE, c))
    joined = [" ".join(texts[int(i)] for i in np.flatnonzero(labels == c)) for c in ids]
    keywords = ctfidf(joined, top_n=n_keywords) if n else []
    topics = []
    for topic_id, words in zip(ids, keywords, strict=True):
        head = ", ".join(w for w, _ in words[:3]) or f"topic {topic_id}"
        label = f"noise: {head}" if topic_id == NOISE else head
        topics.append(Topic(topic_id, label, words, int((labels == topic_id).sum())))
    coords = reduce(x, method="umap" if reducer == "umap" else "pca", n_components=2, seed=seed)
    if coords.shape[1] < 2:
        coords = np.hstack([coords, np.zeros((n, 2 - coords.shape[1]))])[:, :2]
    params = {"reducer": reducer, "n_components": n_components, "method": method, "k": k,
              "k_range": list(k_range), "min_cluster_size": min_cluster_size,
              "min_samples": min_samples, "eps": eps, "seed": seed,
              "chosen_k": len([t for t in topics if not t.is_noise])}
    return TopicModel(labels, topics, np.asarray(coords[:, :2]), params, silhouette)
