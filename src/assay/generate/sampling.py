"""Stratified sampling: how many questions each topic gets, and which chunks they come from.

Strategies: ``proportional`` (to the topic's number of chunks), ``equal`` (the same for every
topic) and ``weighted`` (proportional to size × a given importance; topics not named weigh 1, a
weight of 0 excludes a topic). Every topic with a positive weight gets at least one question when
``n`` allows; the rest goes one by one to the topic furthest below its ideal share (largest
remainder), capped at ``max_per_chunk`` questions per chunk. Within a topic chunks are drawn
without replacement in a seeded order (cycling only when a topic has fewer chunks than
questions); query types are dealt round-robin over all slots from a seeded start, so type counts
differ by at most one.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.generate.taxonomy import QueryType
from assay.generate.topics import TopicModel
from assay.params import check, check_choice, check_int

logger = logging.getLogger(__name__)

STRATEGIES = ("proportional", "equal", "weighted")


@dataclass(frozen=True)
class Slot:
    """One question to write: its topic, type and the chunk indices it draws on.

    ``variant`` counts earlier slots with the same chunks and type (so repeated requests differ);
    ``polarity`` is the wanted answer of a yes/no question (``yes`` / ``no``), else None.
    """

    index: int
    topic_id: int
    query_type: str
    chunks: tuple[int, ...]
    variant: int = 0
    polarity: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable record."""
        return {"index": self.index, "topic_id": self.topic_id, "query_type": self.query_type,
                "chunks": list(self.chunks), "variant": self.variant, "polarity": self.polarity}


def allocate(
    sizes: Mapping[int, int],
    n: int,
    *,
    strategy: str = "proportional",
    weights: Mapping[int, float] | None = None,
    max_per_chunk: int | None = 3,
    seed: int = 0,
) -> dict[int, int]:
    """Questions per topic.

    Args:
        sizes: Number of chunks per topic id.
        n: Questions wanted in all.
        strategy: ``proportional``, ``equal`` or ``weighted``.
        weights: Importance per topic id (``weighted`` only; default 1).
        max_per_chunk: Most questions per chunk of a topic (None: no cap).
        seed: Breaks ties.

    Example:
        >>> allocate({0: 10, 1: 5, 2: 1}, 8)
        {0: 5, 1: 2, 2: 1}
        >>> allocate({0: 10, 1: 5, 2: 1}, 9, strategy="equal")
        {0: 3, 1: 3, 2: 3}
        >>> allocate({0: 10, 1: 5, 2: 1}, 8, strategy="weighted", weights={2: 0, 1: 4})
        {0: 3, 1: 5, 2: 0}
    """
    check_choice(strategy, STRATEGIES, "strategy", "allocate")
    check_int(n, "n", "allocate", minimum=0)
    check(max_per_chunk is None or max_per_chunk >= 1, "max_per_chunk", "allocate",
          "None or a positive integer", max_per_chunk)
    weights = dict(weights or {})
    unknown = set(weights) - set(sizes)
    check(not unknown, "weights", "allocate", "weights of existing topics only", sorted(unknown))
    check(all(w >= 0 for w in weights.values()), "weights", "allocate", "non-negative", weights)
    topics = sorted(sizes)
    if strategy == "equal":
        share = {t: 1.0 for t in topics}
    elif strategy == "proportional":
        share = {t: float(sizes[t]) for t in topics}
    else:
        share = {t: sizes[t] * float(weights.get(t, 1.0)) for t in topics}
    cap = {t: (sizes[t] * max_per_chunk if max_per_chunk else n) for t in topics}
    eligible = [t for t in topics if share[t] > 0 and cap[t] > 0]
    total = sum(share[t] for t in eligible)
    ideal = {t: n * share[t] / total if total else 0.0 for t in eligible}
    tiebreak = dict(zip(topics, np.random.default_rng(seed).permutation(len(topics)).tolist(),
                        strict=True))
    out = dict.fromkeys(topics, 0)
    if n < len(eligible):
        chosen = sorted(eligible, key=lambda t: (-share[t], tiebreak[t]))[:n]
        logger.warning("only %d questions for %d topics: %d topics get none",
                       n, len(eligible), len(eligible) - n)
        for t in chosen:
            out[t] = 1
        return out
    for t in eligible:
        out[t] = 1
    for _ in range(n - len(eligible)):
        room = [t for t in eligible if out[t] < cap[t]]
        if not room:
            logger.warning("every topic is at its cap of %s questions per chunk; %d questions "
                           "instead of %d", max_per_chunk, sum(out.values()), n)
            break
        best = max(room, key=lambda t: (ideal[t] - out[t], -tiebreak[t]))
        out[best] += 1
    return out


def _partner(index: int, members: Sequence[int], embeddings: np.ndarray) -> int | None:
    """The chunk most similar to ``index`` among ``members`` (else the whole corpus)."""
    pool = [m for m in members if m != index] or [m for m in range(len(embeddings)) if m != index]
    if not pool:
        return None
    similarity = embeddings[pool] @ embeddings[index]
    return int(pool[int(np.argmax(similarity))])


def plan_slots(
    model: TopicModel,
    embeddings: np.ndarray,
    quotas: Mapping[int, int],
    types: Sequence[QueryType],
    *,
    seed: int = 0,
) -> list[Slot]:
    """Turn per-topic quotas into slots (topic, type, chunks), seeded.

    Multi-hop types pair the drawn chunk with the most similar other chunk of its topic (of the
    corpus when the topic has one chunk). Yes/no slots alternate the wanted answer.

    Example:
        >>> from assay.generate.topics import Topic, TopicModel
        >>> from assay.generate.taxonomy import resolve_types
        >>> model = TopicModel(np.array([0, 0, 1]), [Topic(0, "a", [], 2), Topic(1, "b", [], 1)],
        ...                    np.zeros((3, 2)))
        >>> emb = np.eye(3)
        >>> slots = plan_slots(model, emb, {0: 2, 1: 1}, resolve_types(["factual", "multi_hop"]))
        >>> [(s.topic_id, s.query_type, len(s.chunks)) for s in slots]
        [(0, 'multi_hop', 2), (0, 'factual', 1), (1, 'multi_hop', 2)]
    """
    check(len(types) > 0, "types", "plan_slots", "at least one query type", types)
    rng = np.random.default_rng(seed)
    emb = np.asarray(embeddings, dtype=np.float64)
    offset = int(rng.integers(len(types)))
    slots: list[Slot] = []
    uses: dict[tuple[tuple[int, ...], str], int] = {}
    polarity = ("yes", "no")
    yes_no = 0
    for topic in model.topics:
        count = quotas.get(topic.id, 0)
        members = model.members(topic.id)
        if not count or not members:
            continue
        order = [int(i) for i in rng.permutation(members)]
        for j in range(count):
            qtype = types[(offset + len(slots)) % len(types)]
            first = order[j % len(order)]
            chunks: tuple[int, ...] = (first,)
            if qtype.n_chunks == 2:
                partner = _partner(first, members, emb)
                chunks = (first,) if partner is None else (first, partner)
            key = (chunks, qtype.name)
            variant = uses.get(key, 0)
            uses[key] = variant + 1
            wanted = None
            if qtype.answer_format == "yes_no":
                wanted = polarity[(yes_no + offset) % 2]
                yes_no += 1
            slots.append(Slot(len(slots), topic.id, qtype.name, chunks, variant, wanted))
    return slots
