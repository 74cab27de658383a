"""Topic strata: k-means with k by silhouette, HDBSCAN / DBSCAN noise stratum, c-TF-IDF labels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from assay.backends.embed.fake import FakeEmbedder
from assay.errors import InvalidInputError
from assay.generate.topics import (
    NOISE,
    build_topics,
    ctfidf,
    density_clusters,
    kmeans_by_silhouette,
    reduce,
    renumber,
)

TEXTS = (
    [f"card payment fee abroad number {i}" for i in range(6)]
    + [f"mortgage loan rate fixed term {i}" for i in range(6)]
    + [f"pension salary contribution employer {i}" for i in range(6)]
)


def blobs(centres: int = 4, per: int = 12, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    points = [rng.normal(rng.uniform(-20, 20, size=5), 0.3, size=(per, 5)) for _ in range(centres)]
    return np.vstack(points)


def test_silhouette_chooses_the_true_number_of_clusters() -> None:
    for centres in (3, 5):
        labels, scores = kmeans_by_silhouette(blobs(centres), k_range=(2, 7), seed=1)
        assert max(scores, key=lambda k: scores[k]) == centres
        assert len(set(labels.tolist())) == centres


def test_fixed_k_and_degenerate_input() -> None:
    labels, _ = kmeans_by_silhouette(blobs(3), k=5)
    assert len(set(labels.tolist())) == 5
    same = np.ones((6, 3))
    labels, scores = kmeans_by_silhouette(same)
    assert labels.tolist() == [0] * 6 and scores == {}
    with pytest.raises(InvalidInputError, match="k_range"):
        kmeans_by_silhouette(blobs(2), k_range=(1, 3))


def test_hdbscan_and_dbscan_leave_outliers_as_noise() -> None:
    x = np.vstack([blobs(2, per=15), [[80.0] * 5, [-80.0] * 5]])
    for method in ("hdbscan", "dbscan"):
        labels = density_clusters(x, method=method, min_cluster_size=5)
        assert labels[-2] == NOISE and labels[-1] == NOISE, method
        assert len(set(labels[:30].tolist()) - {NOISE}) == 2, method


def test_noise_forms_its_own_labelled_stratum() -> None:
    texts = [*TEXTS[:12], "tortoise shell garden lettuce", "volcano eruption lava ash"]
    emb = FakeEmbedder().encode(texts)
    model = build_topics(emb, texts, method="hdbscan", reducer="none", min_cluster_size=4)
    noise = [t for t in model.topics if t.is_noise]
    assert noise and noise[0].label.startswith("noise: ")
    assert model.topics[-1].is_noise  # listed last
    assert sum(t.size for t in model.topics) == len(texts)
    assert set(model.members(NOISE)) >= {12, 13}


def test_ctfidf_matches_the_formula() -> None:
    classes = ["fee fee card card card", "loan fee rate"]
    keywords = ctfidf(classes, top_n=5)
    # tf normalised per class; f(t) over all classes; A = mean words per class = 4
    a = 4.0
    expected_card = 3 / 5 * math.log(1 + a / 3)
    expected_fee_0 = 2 / 5 * math.log(1 + a / 3)
    expected_loan = 1 / 3 * math.log(1 + a / 1)
    weights0 = dict(keywords[0])
    weights1 = dict(keywords[1])
    assert weights0["card"] == pytest.approx(expected_card)
    assert weights0["fee"] == pytest.approx(expected_fee_0)
    assert weights1["loan"] == pytest.approx(expected_loan)
    assert [w for w, _ in keywords[1]] == ["loan", "rate", "fee"]
    assert ctfidf(["the a an", "of to"]) == [[], []]  # only stop words


def test_topics_are_labelled_and_deterministic() -> None:
    emb = FakeEmbedder().encode(TEXTS)
    first = build_topics(emb, TEXTS, seed=3)
    second = build_topics(emb, TEXTS, seed=3)
    assert first.labels.tolist() == second.labels.tolist()
    assert first.to_dict() == second.to_dict()
    assert first.params["chosen_k"] == 3
    heads = sorted(t.label.split(", ")[0] for t in first.topics)
    assert len(heads) == 3 and all(t.size == 6 for t in first.topics)
    assert {w for t in first.topics for w, _ in t.keywords[:4]} >= {"card", "mortgage", "pension"}
    assert first.coords.shape == (18, 2)
    assert first.silhouette and max(first.silhouette, key=lambda k: first.silhouette[k]) == 3


def test_reduce_and_renumber() -> None:
    x = blobs(3)
    assert reduce(x, method="pca", n_components=2).shape == (36, 2)
    assert reduce(x, method="none").shape == x.shape
    assert renumber(np.array([7, 7, 3, -1, 3, 3])).tolist() == [1, 1, 0, -1, 0, 0]
    with pytest.raises(InvalidInputError):
        reduce(x, method="tsne")


def test_tiny_corpora() -> None:
    emb = FakeEmbedder().encode(["one card", "two cards"])
    model = build_topics(emb, ["one card", "two cards"])
    assert model.labels.tolist() == [0, 0] and len(model.topics) == 1


@pytest.mark.slow
def test_umap_reduction() -> None:
    pytest.importorskip("umap", reason="needs the embed extra")
    x = blobs(3, per=15)
    reduced = reduce(x, method="umap", n_components=2, seed=0)
    assert reduced.shape == (45, 2)
    again = reduce(x, method="umap", n_components=2, seed=0)
    np.testing.assert_allclose(reduced, again)
    labels, _ = kmeans_by_silhouette(reduced, seed=0)
    assert len(set(labels.tolist())) == 3
