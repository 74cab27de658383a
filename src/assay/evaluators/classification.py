"""Classification metrics for answers that are labels: accuracy, macro / micro P, R, F1, per-class
P, R, F1 and support, positive-class P, R, F1 for binary tasks, and the confusion matrix.

The predicted label is the actual answer and the true label is the expected answer, both passed
through :func:`normalize_label` (lower-case, surrounding whitespace and punctuation removed, inner
whitespace collapsed), so ``"Positive."`` and ``"positive"`` are the same label. The per-case metric
``clf_accuracy`` is 1 when the labels match (its mean over a model's cases is the accuracy); the
macro and micro averages are corpus metrics computed, like ``scikit-learn``'s
``precision_recall_fscore_support(y_true, y_pred, labels=labels, average=..., zero_division=0)``,
from a confusion matrix streamed batch by batch. The matrix and the per-class scores
(``average=None``) are in the accumulator's :meth:`ClassificationAccumulator.details`; the
positive-class scores (``average="binary"``, ``pos_label``) are corpus metrics when the task is
binary with a known positive label. Written with numpy only: importing
scikit-learn in an evaluator module is not allowed (DESIGN §5), and parity is tested against it.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from assay.data.case import TestCase
from assay.evaluators.base import CaseByCaseEvaluator, CaseResult, MetricSpec
from assay.evaluators.registry import register
from assay.params import check, check_choice
from assay.safety.masking import scrub

_STRIP = string.whitespace + string.punctuation


def normalize_label(text: str) -> str:
    """Normalise an answer used as a class label.

    Example:
        >>> normalize_label("  Not   relevant. ")
        'not relevant'
        >>> normalize_label("(B)")
        'b'
    """
    return " ".join(text.lower().split()).strip(_STRIP)


#: Labels taken as the positive class of a binary task when ``positive_label`` is not given.
POSITIVE_LABELS = ("1", "yes", "y", "true", "positive", "pos", "pass", "relevant", "correct")


def per_class_prf(matrix: np.ndarray, n_classes: int) -> list[tuple[float, float, float, int]]:
    """Precision, recall, F1 and support of each of the first ``n_classes`` classes, as
    scikit-learn's ``precision_recall_fscore_support(average=None, zero_division=0)``.

    Example:
        >>> per_class_prf(np.array([[2, 1], [0, 1]]), 2)
        [(1.0, 0.6666666666666666, 0.8, 3), (0.5, 1.0, 0.6666666666666666, 1)]
    """
    out = []
    for i in range(n_classes):
        sub = np.zeros((2, 2), dtype=np.int64)
        sub[0, 0] = matrix[i, i]
        sub[0, 1] = matrix[i, :].sum() - matrix[i, i]
        sub[1, 0] = matrix[:, i].sum() - matrix[i, i]
        p, r, f = prf_from_confusion(sub, "macro", 1)
        out.append((p, r, f, int(matrix[i, :].sum())))
    return out


def prf_from_confusion(
    matrix: np.ndarray, average: str, n_classes: int | None = None
) -> tuple[float, float, float]:
    """Precision, recall and F1 averaged ``"macro"`` or ``"micro"`` from a confusion matrix
    (rows true, columns predicted), with scikit-learn's ``zero_division=0`` convention.

    Only the first ``n_classes`` classes are averaged (default: all); later rows and columns
    hold labels outside the chosen ones, which still count as false negatives / positives.

    Example:
        >>> prf_from_confusion(np.array([[2, 1], [0, 1]]), "macro")
        (0.75, 0.8333333333333333, 0.7333333333333334)
    """
    n = matrix.shape[0] if n_classes is None else n_classes
    tp = np.diag(matrix)[:n].astype(float)
    pred = matrix[:, :n].sum(axis=0).astype(float)
    true = matrix[:n, :].sum(axis=1).astype(float)
    if average == "micro":
        tp, pred, true = np.array([tp.sum()]), np.array([pred.sum()]), np.array([true.sum()])
    elif average != "macro":
        raise ValueError(f"average must be 'macro' or 'micro'; got {average!r}")
    precision = np.divide(tp, pred, out=np.zeros_like(tp), where=pred > 0)
    recall = np.divide(tp, true, out=np.zeros_like(tp), where=true > 0)
    denominator = 2 * tp + (pred - tp) + (true - tp)
    f1 = np.divide(2 * tp, denominator, out=np.zeros_like(tp), where=denominator > 0)
    return float(precision.mean()), float(recall.mean()), float(f1.mean())


class ClassificationAccumulator:
    """Counts (true, predicted) label pairs of one model; memory grows with the label set only."""

    def __init__(
        self,
        labels: Sequence[str] | None,
        positive_label: str | None = None,
        classes: str = "expected",
    ) -> None:
        self.labels = None if labels is None else [normalize_label(x) for x in labels]
        self.classes = classes
        self.positive = None if positive_label is None else normalize_label(positive_label)
        self.pairs: dict[tuple[str, str], int] = {}

    def add(self, cases: Sequence[TestCase], results: Sequence[CaseResult]) -> None:
        """Count the labels :class:`Classification` stored in each ok result's details."""
        for result in results:
            details = result.details or {}
            if "true" in details and "predicted" in details:
                key = (details["true"], details["predicted"])
                self.pairs[key] = self.pairs.get(key, 0) + 1

    def _matrix(self) -> tuple[list[str], np.ndarray]:
        """Classes and an (n+1)×(n+1) confusion matrix whose last row / column gathers labels
        outside ``labels`` (always empty when the classes are the labels seen)."""
        labels = self.labels
        if labels is None and self.classes == "expected":
            labels = sorted({true for true, _ in self.pairs})
        elif labels is None:
            labels = sorted({label for pair in self.pairs for label in pair})
        other = len(labels)
        index = {label: i for i, label in enumerate(labels)}
        matrix = np.zeros((other + 1, other + 1), dtype=np.int64)
        for (true, predicted), count in self.pairs.items():
            matrix[index.get(true, other), index.get(predicted, other)] += count
        return labels, matrix

    def positive_label(self, labels: Sequence[str]) -> str | None:
        """The positive class of a binary task: ``positive_label`` when given, else the one of
        two classes named like a positive (:data:`POSITIVE_LABELS`); None otherwise."""
        if self.positive is not None:
            return self.positive
        if len(labels) != 2:
            return None
        named = [label for label in labels if label in POSITIVE_LABELS]
        return named[0] if len(named) == 1 else None

    def details(self) -> dict[str, Any]:
        """The classes, the confusion matrix (rows: true label, columns: predicted; equal to
        ``sklearn.metrics.confusion_matrix(y_true, y_pred, labels=classes)``), the per-class
        precision, recall, F1 and support, and the positive label of a binary task."""
        labels, matrix = self._matrix()
        per_class = {
            label: {"precision": p, "recall": r, "f1": f, "support": n}
            for label, (p, r, f, n) in zip(labels, per_class_prf(matrix, len(labels)), strict=True)
        }
        return {
            "labels": labels,
            "confusion_matrix": matrix[:-1, :-1].tolist(),
            "per_class": per_class,
            "positive_label": self.positive_label(labels),
        }

    def finish(self) -> dict[str, float | None]:
        """Macro, micro and positive-class precision, recall and F1 (None when no case was
        scored; the positive-class ones also when the task has no known positive class)."""
        names = [
            f"clf_{a}_{m}"
            for a in ("macro", "micro", "positive")
            for m in ("precision", "recall", "f1")
        ]
        if not self.pairs:
            return dict.fromkeys(names)
        labels, matrix = self._matrix()
        values: dict[str, float | None] = dict.fromkeys(names)
        for average in ("macro", "micro"):
            p, r, f = prf_from_confusion(matrix, average, len(labels))
            values.update(
                {f"clf_{average}_precision": p, f"clf_{average}_recall": r, f"clf_{average}_f1": f}
            )
        positive = self.positive_label(labels)
        if positive is not None and positive in labels:
            p, r, f, _ = per_class_prf(matrix, len(labels))[labels.index(positive)]
            values.update(
                {"clf_positive_precision": p, "clf_positive_recall": r, "clf_positive_f1": f}
            )
        return values


@register
class Classification(CaseByCaseEvaluator):
    """Accuracy, macro / micro precision, recall and F1 of label answers (equal to scikit-learn).

    Args:
        labels: the class labels (normalised like the answers). With it, averages run over these
            classes only and an answer outside them counts as a miss. Without it, ``classes``
            decides.
        classes: without ``labels``, the classes are the expected labels seen (``"expected"``,
            the reference catalogue's choice: ``labels=`` the true classes) or every label seen
            in true or predicted labels (``"seen"``, scikit-learn's default).
        positive_label: the positive class of a binary task (scikit-learn's ``pos_label``) for
            the ``clf_positive_*`` metrics; without it, the one of two classes named like a
            positive (:data:`POSITIVE_LABELS`: ``yes``, ``true``, ``1``, ``positive``, ...),
            else those metrics are undefined.
    """

    name = "classification"
    family = "classification"
    description = (
        "Classification metrics with the normalised actual answer as the predicted label and the "
        "expected answer as the true label: accuracy, macro/micro precision, recall, F1."
    )
    requires = ("actual_answer", "expected_answer")
    metrics = (
        MetricSpec(
            "clf_accuracy",
            "1 when the predicted label equals the true label; its mean is the accuracy",
            threshold=0.5,
            primary=True,
        ),
        *(
            MetricSpec(
                f"clf_{average}_{metric}",
                f"{average}-averaged {metric} over the classes (scikit-learn, zero_division=0)",
                aggregation="corpus",
            )
            for average in ("macro", "micro")
            for metric in ("precision", "recall", "f1")
        ),
        *(
            MetricSpec(
                f"clf_positive_{metric}",
                f"{metric} of the positive class of a binary task (scikit-learn "
                "average='binary', pos_label)",
                aggregation="corpus",
            )
            for metric in ("precision", "recall", "f1")
        ),
    )

    def __init__(
        self,
        labels: list[str] | None = None,
        positive_label: str | None = None,
        classes: str = "expected",
    ) -> None:
        check(
            labels is None
            or (
                isinstance(labels, list | tuple)
                and bool(labels)
                and all(isinstance(x, str) for x in labels)
            ),
            "labels",
            "Classification",
            "None or a non-empty list of strings",
            labels,
        )
        check(
            positive_label is None or isinstance(positive_label, str),
            "positive_label", "Classification", "None or a string", positive_label,
        )  # fmt: skip
        check_choice(classes, ("expected", "seen"), "classes", "Classification")
        self.labels = labels
        self.positive_label = positive_label
        self.classes = classes

    def score_case(self, case: TestCase) -> CaseResult:
        raw_predicted = normalize_label(case.actual_answer or "")
        correct = float(raw_predicted == normalize_label(case.expected_answer or ""))
        # Labels are shown (explanation, confusion matrix) masked first: once lower-cased, a key
        # or a PEM header no longer looks like one and would slip past the report's scrub.
        predicted = normalize_label(scrub(case.actual_answer or ""))
        true = normalize_label(scrub(case.expected_answer or ""))
        note = "" if correct else " (wrong)"
        return CaseResult.ok(
            {"clf_accuracy": correct},
            f"predicted {predicted!r}, true {true!r}{note}",
            {"predicted": predicted, "true": true},
        )

    def corpus_accumulator(self) -> ClassificationAccumulator:
        return ClassificationAccumulator(self.labels, self.positive_label, self.classes)
