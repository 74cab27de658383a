"""Questions drift: a corpus metric over the chronologically ordered suite, per model."""

from __future__ import annotations

import pytest

from assay import evaluate
from assay.backends.embed.fake import FakeEmbedder
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.embedding_drift import EmbQuestionsDrift, centroid_drift

FEES = [f"What is the fee of card number {i}?" for i in range(6)]
TRAVEL = [f"Can I travel to country {i} with my card?" for i in range(6)]


def drift(cases: list[TestCase], **params: object) -> dict[str, float | None]:
    evaluator = EmbQuestionsDrift(embedder=FakeEmbedder(), **params)  # type: ignore[arg-type]
    accumulator = evaluator.corpus_accumulator()
    for start in range(0, len(cases), 4):  # several batches
        batch = cases[start : start + 4]
        accumulator.add(batch, evaluator.evaluate(batch))
    return accumulator.finish()


def cases_of(questions: list[str], model: str = "m") -> list[TestCase]:
    return [TestCase(id=str(i), model=model, question=q) for i, q in enumerate(questions)]


def test_a_topic_shift_drifts_more_than_a_stable_suite() -> None:
    stable = drift(cases_of(FEES + FEES))["emb_questions_drift"]
    shifted = drift(cases_of(FEES + TRAVEL))["emb_questions_drift"]
    assert stable == pytest.approx(0.0, abs=1e-6)
    assert shifted is not None and shifted > 0.2


def test_too_few_questions_leave_the_metric_undefined() -> None:
    assert drift(cases_of(FEES[:4] + TRAVEL[:4]))["emb_questions_drift"] is None
    assert drift(cases_of(FEES[:2] + TRAVEL[:2]), min_size=2)["emb_questions_drift"] is not None


def test_time_field_orders_the_suite() -> None:
    interleaved = [
        TestCase(id=str(i), question=q, metadata={"t": t})
        for i, (q, t) in enumerate(
            [(FEES[i], i) for i in range(6)] + [(TRAVEL[i], 100 + i) for i in range(6)]
        )
    ]
    mixed = interleaved[::2] + interleaved[1::2]  # file order mixes both topics
    unordered = drift(mixed)["emb_questions_drift"]
    ordered = drift(mixed, time_field="t")["emb_questions_drift"]
    assert ordered is not None and unordered is not None and ordered > unordered


def test_per_model_value_through_the_engine() -> None:
    suite = cases_of(FEES + TRAVEL, "a") + cases_of(FEES + FEES, "b")
    run = evaluate(suite, [EmbQuestionsDrift(embedder=FakeEmbedder())])
    values = {
        row["model"]: row["value"]
        for row in run.leaderboard
        if row["metric"] == "emb_questions_drift"
    }
    assert values["a"] > 0.2 and values["b"] == pytest.approx(0.0, abs=1e-6)


def test_centroid_drift_bounds_and_parameters() -> None:
    import numpy as np

    assert centroid_drift(np.array([[1.0, 0.0]]), np.array([[-1.0, 0.0]])) == pytest.approx(2.0)
    with pytest.raises(InvalidInputError, match="'split' parameter"):
        EmbQuestionsDrift(split=1.0)
    with pytest.raises(InvalidInputError, match="'min_size' parameter"):
        EmbQuestionsDrift(min_size=0)
