"""Classification: per-class precision, recall, F1 and support, and positive-class metrics of a
binary task, as scikit-learn defines them (``precision_recall_fscore_support`` with
``average=None`` and ``average="binary", pos_label=...``; ``zero_division=0``)."""

from __future__ import annotations

import random

import pytest

from assay.data.case import TestCase
from assay.evaluators.classification import Classification

metrics = pytest.importorskip("sklearn.metrics")


def _run(evaluator: Classification, true: list[str], pred: list[str]):  # type: ignore[no-untyped-def]
    cases = [
        TestCase(id=str(i), expected_answer=t, actual_answer=p)
        for i, (t, p) in enumerate(zip(true, pred, strict=True))
    ]
    accumulator = evaluator.corpus_accumulator()
    accumulator.add(cases, evaluator.evaluate(cases))
    return accumulator.finish(), accumulator.details()


def test_per_class_scores_equal_scikit_learn() -> None:
    rng = random.Random(4)
    classes = ["billing", "cards", "loans", "other"]
    true = [rng.choice(classes) for _ in range(300)]
    pred = [t if rng.random() < 0.6 else rng.choice(classes) for t in true]
    _, details = _run(Classification(), true, pred)
    p, r, f, support = metrics.precision_recall_fscore_support(
        true, pred, labels=classes, average=None, zero_division=0
    )
    for i, label in enumerate(classes):
        got = details["per_class"][label]
        assert got["precision"] == pytest.approx(p[i], abs=1e-12)
        assert got["recall"] == pytest.approx(r[i], abs=1e-12)
        assert got["f1"] == pytest.approx(f[i], abs=1e-12)
        assert got["support"] == support[i]


@pytest.mark.parametrize("positive", [None, "no"])
def test_positive_class_metrics_of_a_binary_task(positive: str | None) -> None:
    rng = random.Random(9)
    true = [rng.choice(["yes", "no"]) for _ in range(200)]
    pred = [t if rng.random() < 0.7 else rng.choice(["yes", "no"]) for t in true]
    values, details = _run(Classification(positive_label=positive), true, pred)
    pos = positive or "yes"  # "yes" is recognised as the positive class of {yes, no}
    assert details["positive_label"] == pos
    p, r, f, _ = metrics.precision_recall_fscore_support(
        true, pred, average="binary", pos_label=pos, zero_division=0
    )
    assert values["clf_positive_precision"] == pytest.approx(p, abs=1e-12)
    assert values["clf_positive_recall"] == pytest.approx(r, abs=1e-12)
    assert values["clf_positive_f1"] == pytest.approx(f, abs=1e-12)


def test_no_positive_class_without_a_binary_task() -> None:
    values, details = _run(Classification(), ["a", "b", "c"], ["a", "b", "b"])
    assert details["positive_label"] is None
    assert values["clf_positive_f1"] is None and values["clf_macro_f1"] is not None


def test_default_classes_are_the_expected_labels_as_in_the_catalogue() -> None:
    # H2O Sonar: precision_recall_fscore_support(labels=<expected classes>, average="macro");
    # a predicted label outside them is a miss, not an extra class of the average
    true = ["a", "a", "b", "b", "c"]
    pred = ["a", "b", "b", "x", "c"]
    values, details = _run(Classification(), true, pred)
    p, r, f, _ = metrics.precision_recall_fscore_support(
        true, pred, labels=["a", "b", "c"], average="macro", zero_division=0
    )
    assert details["labels"] == ["a", "b", "c"]
    assert values["clf_macro_precision"] == pytest.approx(p, abs=1e-12)
    assert values["clf_macro_recall"] == pytest.approx(r, abs=1e-12)
    assert values["clf_macro_f1"] == pytest.approx(f, abs=1e-12)
    seen, _ = _run(Classification(classes="seen"), true, pred)
    sk = metrics.precision_recall_fscore_support(true, pred, average="macro", zero_division=0)
    assert seen["clf_macro_f1"] == pytest.approx(sk[2], abs=1e-12) != values["clf_macro_f1"]
