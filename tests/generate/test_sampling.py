"""Stratified sampling: quotas per topic and the slots drawn from them."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.errors import InvalidInputError
from assay.generate.sampling import allocate, plan_slots
from assay.generate.taxonomy import resolve_types
from assay.generate.topics import Topic, TopicModel


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.integers(-1, 12), st.integers(1, 40), min_size=1, max_size=10),
       st.integers(0, 200), st.sampled_from(["proportional", "equal", "weighted"]),
       st.integers(0, 5))
def test_allocation_properties(sizes: dict[int, int], n: int, strategy: str, seed: int) -> None:
    weights = {t: float(i % 3 + 1) for i, t in enumerate(sizes)} if strategy == "weighted" else None
    quotas = allocate(sizes, n, strategy=strategy, weights=weights, max_per_chunk=None, seed=seed)
    assert sum(quotas.values()) == n
    if n >= len(sizes):  # every topic is represented
        assert all(q >= 1 for q in quotas.values())
    else:
        assert all(q <= 1 for q in quotas.values())
    if strategy == "proportional" and n >= len(sizes):
        total = sum(sizes.values())
        for topic, size in sizes.items():  # never further than 1 from the ideal share, beyond the minimum
            assert quotas[topic] <= max(1, n * size / total) + 1


def test_proportional_equal_weighted() -> None:
    sizes = {0: 30, 1: 10, 2: 5, -1: 5}
    assert allocate(sizes, 10) == {-1: 1, 0: 6, 1: 2, 2: 1}
    assert allocate(sizes, 12, strategy="equal") == {-1: 3, 0: 3, 1: 3, 2: 3}
    assert allocate(sizes, 10, strategy="weighted", weights={0: 0.0, 2: 6.0}) == {
        -1: 1, 0: 0, 1: 2, 2: 7}  # shares 5 : 10 : 30, ideal 1.1 / 2.2 / 6.7


def test_cap_per_chunk_and_shortfall() -> None:
    assert allocate({0: 1, 1: 1}, 10, max_per_chunk=2) == {0: 2, 1: 2}
    # fewer questions than topics: the biggest topics get one
    assert allocate({0: 9, 1: 1, 2: 5}, 2) == {0: 1, 1: 0, 2: 1}


def test_parameters_are_checked() -> None:
    with pytest.raises(InvalidInputError, match="'strategy' parameter of allocate"):
        allocate({0: 1}, 1, strategy="random")
    with pytest.raises(InvalidInputError, match="weights"):
        allocate({0: 1}, 1, strategy="weighted", weights={5: 1.0})
    with pytest.raises(InvalidInputError, match="non-negative"):
        allocate({0: 1}, 1, strategy="weighted", weights={0: -1.0})


def model(sizes: list[int]) -> tuple[TopicModel, np.ndarray]:
    labels = np.repeat(np.arange(len(sizes)), sizes)
    topics = [Topic(i, f"t{i}", [], s) for i, s in enumerate(sizes)]
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(len(labels), 8))
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    return TopicModel(labels, topics, np.zeros((len(labels), 2))), emb


def test_slots_are_stratified_balanced_and_seeded() -> None:
    tm, emb = model([8, 5, 3])
    types = resolve_types(None)
    quotas = allocate({0: 8, 1: 5, 2: 3}, 18)
    slots = plan_slots(tm, emb, quotas, types, seed=4)
    assert Counter(s.topic_id for s in slots) == quotas
    counts = Counter(s.query_type for s in slots)
    assert max(counts.values()) - min(counts.values()) <= 1 and len(counts) == 6
    for slot in slots:
        assert all(tm.labels[i] == slot.topic_id for i in slot.chunks)
        assert len(slot.chunks) == (2 if slot.query_type == "multi_hop" else 1)
        if slot.query_type == "multi_hop":
            assert slot.chunks[0] != slot.chunks[1]
    # chunks drawn without replacement while the topic has enough
    first_topic = [s.chunks[0] for s in slots if s.topic_id == 0]
    assert len(set(first_topic)) == min(len(first_topic), 8)
    polarities = [s.polarity for s in slots if s.query_type == "yes_no"]
    assert set(polarities) <= {"yes", "no"} and len(polarities) >= 2 and len(set(polarities)) == 2
    assert [s.to_dict() for s in plan_slots(tm, emb, quotas, types, seed=4)] == [
        s.to_dict() for s in slots]
    assert [s.to_dict() for s in plan_slots(tm, emb, quotas, types, seed=5)] != [
        s.to_dict() for s in slots]


def test_multi_hop_partner_is_the_most_similar_chunk_of_the_topic() -> None:
    tm = TopicModel(np.array([0, 0, 0, 1]), [Topic(0, "a", [], 3), Topic(1, "b", [], 1)],
                    np.zeros((4, 2)))
    emb = np.array([[1.0, 0.0], [0.0, 1.0], [0.8, 0.6], [1.0, 0.0]])
    slots = plan_slots(tm, emb, {0: 3, 1: 1}, resolve_types(["multi_hop"]), seed=0)
    pairs = {s.chunks for s in slots}
    assert (0, 2) in pairs and (1, 2) in pairs
    # a one-chunk topic pairs with the most similar chunk of the corpus
    assert next(s for s in slots if s.topic_id == 1).chunks == (3, 0)


def test_repeated_chunks_count_variants() -> None:
    tm, emb = model([1])
    slots = plan_slots(tm, emb, {0: 3}, resolve_types(["factual"]))
    assert [s.variant for s in slots] == [0, 1, 2]
