"""Classification metrics equal scikit-learn's, streamed per model through assay.evaluate."""

from __future__ import annotations

import random

import numpy as np
import pytest

from assay import TestCase, evaluate
from assay.errors import InvalidInputError
from assay.evaluators import get_evaluator
from assay.evaluators.classification import ClassificationAccumulator, normalize_label

metrics = pytest.importorskip("sklearn.metrics")

LABELS = ["positive", "negative", "neutral", "mixed"]
SURFACE = {
    "positive": ["Positive", "positive.", " POSITIVE "],
    "negative": ["negative", "Negative!"],
    "neutral": ["neutral"],
    "mixed": ["Mixed", "mixed ."],
}


def _cases(n: int, seed: int) -> list[TestCase]:
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        true = rng.choice(LABELS)
        if rng.random() < 0.6:
            predicted = true
        elif rng.random() < 0.9:
            predicted = rng.choice(LABELS)
        else:
            predicted = rng.choice(["unsure", "I cannot tell"])
        cases.append(
            TestCase(
                id=str(i),
                model=rng.choice(["m1", "m2"]),
                expected_answer=rng.choice(SURFACE[true]),
                actual_answer=rng.choice(SURFACE.get(predicted, [predicted])),
            )
        )
    return cases


def _reference(cases: list[TestCase], labels: list[str] | None) -> dict[str, float]:
    y_true = [normalize_label(c.expected_answer or "") for c in cases]
    y_pred = [normalize_label(c.actual_answer or "") for c in cases]
    out = {"clf_accuracy": metrics.accuracy_score(y_true, y_pred)}
    for average in ("macro", "micro"):
        p, r, f, _ = metrics.precision_recall_fscore_support(
            y_true, y_pred, labels=labels, average=average, zero_division=0
        )
        out |= {f"clf_{average}_precision": p, f"clf_{average}_recall": r, f"clf_{average}_f1": f}
    return out


@pytest.mark.parametrize("labels", [None, LABELS, ["positive", "negative"]])
def test_metrics_equal_scikit_learn(labels: list[str] | None) -> None:
    cases = _cases(700, seed=len(labels or []))
    evaluator = get_evaluator("classification", labels=labels, classes="seen")
    run = evaluate(cases, [evaluator], batch_size=64)
    for model in ("m1", "m2"):
        reference = _reference([c for c in cases if c.model == model], labels)
        for metric, value in reference.items():
            assert run.metric(model, metric) == pytest.approx(value, abs=1e-12), metric


def test_confusion_matrix_equals_scikit_learn() -> None:
    cases = _cases(300, seed=4)
    evaluator = get_evaluator("classification")
    for labels in (None, ["neutral", "positive", "negative"]):
        accumulator = ClassificationAccumulator(labels, classes="seen")
        accumulator.add(cases, evaluator.evaluate(cases))
        details = accumulator.details()
        y_true = [normalize_label(c.expected_answer or "") for c in cases]
        y_pred = [normalize_label(c.actual_answer or "") for c in cases]
        expected_labels = labels or sorted(set(y_true) | set(y_pred))
        assert details["labels"] == expected_labels
        np.testing.assert_array_equal(
            details["confusion_matrix"],
            metrics.confusion_matrix(y_true, y_pred, labels=expected_labels),
        )


def test_per_case_outcome_and_explanation() -> None:
    [right, wrong] = get_evaluator("classification").evaluate(
        [
            TestCase(id="1", expected_answer="Positive", actual_answer=" positive. "),
            TestCase(id="2", expected_answer="Positive", actual_answer="negative"),
        ]
    )
    assert right.outcomes["clf_accuracy"].value == 1.0
    assert wrong.outcomes["clf_accuracy"].value == 0.0
    assert wrong.details == {"predicted": "negative", "true": "positive"}
    assert "wrong" in (wrong.explanation or "")


def test_label_normalisation_keeps_single_letter_choices() -> None:
    assert [normalize_label(x) for x in ["A", "(a)", "b.", " The  answer "]] == [
        "a",
        "a",
        "b",
        "the answer",
    ]


def test_no_scored_case_gives_undefined_corpus_metrics() -> None:
    assert set(ClassificationAccumulator(None).finish().values()) == {None}


@pytest.mark.parametrize("labels", [[], "positive", [1, 2]])
def test_invalid_labels_are_rejected(labels: object) -> None:
    with pytest.raises(InvalidInputError, match="labels"):
        get_evaluator("classification", labels=labels)


def test_labels_are_shown_masked_but_scored_on_the_raw_text() -> None:
    """A secret in an answer is masked before lower-casing (lower-cased, it no longer looks like
    a key and would slip past the report's scrub), while correctness compares the raw labels."""
    key = "AKIAIOSFODNN7EXAMPLE"
    leaked, same = get_evaluator("classification").score(
        [
            TestCase(id="a", question="q", expected_answer="positive", actual_answer=f"key {key}"),
            TestCase(id="b", question="q", expected_answer=f"key {key}", actual_answer=f"KEY {key}"),
        ]
    )
    assert leaked.outcomes["clf_accuracy"].value == 0.0
    assert same.outcomes["clf_accuracy"].value == 1.0  # raw labels equal after normalisation
    shown = f"{leaked.explanation} {leaked.details} {same.explanation} {same.details}"
    assert key.lower() not in shown and key not in shown
