"""The :class:`Calibrator` lifecycle shared by every calibrator (DESIGN §7).

``fit(scores, labels)`` maps machine scores to human labels; ``conformalize(scores, labels)`` on an
*independent* split adds split-conformal prediction sets; ``predict_proba`` / ``predict_set`` /
``needs_review`` then apply to new cases. Calling them out of order raises
:class:`~assay.errors.NotFittedError`. ``save`` / :func:`load_calibrator` round-trip through a
versioned, hashed JSON file (no pickle).
"""

from __future__ import annotations

import logging
import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from assay.calibrate._arrays import (
    BoolArray,
    FloatArray,
    IntArray,
    as_binary,
    as_classes,
    as_scores,
    check_same_length,
    orient,
)
from assay.calibrate.conformal import SplitConformalClassifier, needs_review, set_summary
from assay.errors import InvalidInputError, NotFittedError
from assay.params import check, constructor_params

logger = logging.getLogger(__name__)

BINARY_CLASSES: tuple[str, str] = ("FAIL", "PASS")


@dataclass(eq=False, repr=False)
class Calibrator(ABC):
    """Base class: maps one or several metric scores to the probability of each human label.

    Args:
        metrics: names of the metric columns, in order (recorded; used to apply the calibrator
            to a run). Defaults to ``score_0, score_1, ...``.
        higher_is_better: per metric, whether a higher score means closer to PASS (default: all).
        pass_at: for binary calibrators, graded labels ``>= pass_at`` count as PASS.

    The parameters are dataclass fields, so ``get_params`` and saved files read them from the
    generated ``__init__`` signature: a subclass decorated ``@dataclass(eq=False, repr=False)``
    declares its own after these (each with its default) and extends :meth:`__post_init__` with
    their checks and its fitted attributes. A subclass may also write ``__init__`` and call
    ``super().__init__(metrics, higher_is_better, pass_at)``.
    """

    kind: ClassVar[str] = ""
    #: whether the calibrator predicts more than two ordered classes
    multiclass: ClassVar[bool] = False
    #: most metric columns the method accepts (None: any number)
    max_metrics: ClassVar[int | None] = None
    #: the fitted float arrays that are the model, by their key in the saved state (e.g.
    #: ``{"coef": "coef_"}``); a model held otherwise overrides ``_get_state`` / ``_set_state``
    fitted_arrays: ClassVar[dict[str, str]] = {}

    metrics: Sequence[str] | None = None
    higher_is_better: Sequence[bool] | None = None
    pass_at: float | None = None

    def __post_init__(self) -> None:
        self.metrics = list(self.metrics) if self.metrics is not None else None
        if self.higher_is_better is not None:
            self.higher_is_better = list(self.higher_is_better)
        self.classes_: list[Any] | None = None
        self.n_features_in_: int = 0
        self.conformal_: SplitConformalClassifier | None = None
        self.fit_summary_: dict[str, Any] = {}

    # ----------------------------------------------------------------- lifecycle
    def fit(self, scores: Any, labels: Any) -> Calibrator:
        """Fit the calibration map on (scores, labels); returns ``self``."""
        where = f"{type(self).__name__}.fit"
        x = as_scores(scores, where)
        labels = list(labels)
        check_same_length(x, labels, where)
        if self.max_metrics is not None and x.shape[1] > self.max_metrics:
            raise InvalidInputError(
                f"{where}: this method takes at most {self.max_metrics} metric column(s); got "
                f"{x.shape[1]} (use 'logistic', 'ordinal' or 'monotone' for several metrics)"
            )
        per_column = (("metrics", self.metrics, "names"),
                      ("higher_is_better", self.higher_is_better, "booleans"))
        for name, given, what in per_column:
            if given is not None:
                check(len(given) == x.shape[1], name, where,
                      f"{x.shape[1]} {what} (one per score column)", given)
        codes, classes = self._encode(labels, where)
        if len(set(codes.tolist())) < 2:
            raise InvalidInputError(
                f"{where}: every label is {classes[int(codes[0])]!r}; need at least two classes"
            )
        self.n_features_in_ = x.shape[1]
        self.classes_ = classes
        self.conformal_ = None
        self._fit(self._oriented(x), codes)
        self.fit_summary_ = {"n": len(codes), "class_counts": np.bincount(codes).tolist()}
        return self

    def conformalize(
        self,
        scores: Any,
        labels: Any,
        alpha: float = 0.1,
        *,
        randomized: bool = False,
        seed: int = 0,
    ) -> Calibrator:
        """Split-conformal step on a calibration split *independent* of the fit split.

        ``randomized=True`` uses smoothed p-values (exact coverage when probabilities tie; see
        :class:`~assay.calibrate.conformal.SplitConformalClassifier`)."""
        where = f"{type(self).__name__}.conformalize"
        self._require_fitted(where)
        x = as_scores(scores, where, n_features=self.n_features_in_)
        labels = list(labels)
        check_same_length(x, labels, where)
        codes = self._codes_for(labels, where)
        self.conformal_ = SplitConformalClassifier(
            self, alpha=alpha, randomized=randomized, seed=seed
        ).conformalize(x, codes)
        return self

    def predict_proba(self, scores: Any) -> FloatArray:
        """Probabilities of each class, shape (n, K) (binary: columns FAIL, PASS)."""
        where = f"{type(self).__name__}.predict_proba"
        self._require_fitted(where)
        x = as_scores(scores, where, n_features=self.n_features_in_)
        proba = np.clip(self._proba(self._oriented(x)), 0.0, 1.0)
        return np.asarray(proba / proba.sum(axis=1, keepdims=True), dtype=np.float64)

    def predict_pass_proba(self, scores: Any) -> FloatArray:
        """Binary calibrators: P(PASS | scores), shape (n,)."""
        if self.multiclass:
            raise InvalidInputError(
                f"{type(self).__name__} predicts several classes; use predict_proba()"
            )
        return self.predict_proba(scores)[:, 1]

    def predict(self, scores: Any) -> list[Any]:
        """Most probable class label of each case."""
        proba = self.predict_proba(scores)
        classes = self.classes_ or []
        return [classes[int(k)] for k in np.argmax(proba, axis=1)]

    def predict_set(self, scores: Any) -> BoolArray:
        """Conformal prediction sets, boolean (n, K) aligned with ``classes_``."""
        if self.conformal_ is None:
            raise NotFittedError(
                f"{type(self).__name__} has no conformal step; call conformalize(scores, labels) "
                "on a calibration split after fit()"
            )
        return self.conformal_.predict_set(scores)

    def needs_review(self, scores: Any) -> BoolArray:
        """Cases whose prediction set is empty or ambiguous."""
        return needs_review(self.predict_set(scores))

    def set_labels(self, sets: BoolArray) -> list[list[Any]]:
        """Prediction sets as lists of class labels."""
        classes = self.classes_ or []
        return [[classes[k] for k in np.flatnonzero(row)] for row in sets]

    def conformal_summary(self, scores: Any, labels: Any) -> dict[str, Any]:
        """Coverage and set sizes on labelled data (e.g. a held-out test split)."""
        codes = self._codes_for(list(labels), "conformal_summary")
        return set_summary(self.predict_set(scores), codes)

    @property
    def class_names(self) -> list[str]:
        """Display names of the classes (``FAIL``/``PASS`` for binary calibrators)."""
        if not self.multiclass:
            return list(BINARY_CLASSES)
        return [str(c) for c in self.classes_ or []]

    @property
    def metric_names(self) -> list[str]:
        """The metric names, or ``score_0 ...`` when none were given."""
        return list(self.metrics or [f"score_{i}" for i in range(self.n_features_in_)])

    @property
    def alpha(self) -> float | None:
        """The conformal miscoverage level, when conformalized."""
        return self.conformal_.alpha if self.conformal_ is not None else None

    # ----------------------------------------------------------------- persistence
    def save(self, path: str | Path) -> Path:
        """Write the calibrator to a versioned, hashed JSON file (see :func:`load_calibrator`)."""
        from assay.calibrate.persist import save_calibrator

        return save_calibrator(self, path)

    def get_params(self) -> dict[str, Any]:
        """Constructor parameters (scikit-learn style)."""
        return constructor_params(self)

    def state(self) -> dict[str, Any]:
        """The fitted state as JSON-serialisable data."""
        self._require_fitted("state")
        return {
            "classes": self.classes_,
            "n_features_in": self.n_features_in_,
            "fit_summary": self.fit_summary_,
            "model": self._get_state(),
            "conformal": None
            if self.conformal_ is None
            else {
                "alpha": self.conformal_.alpha,
                "qhat": None if math.isinf(self.conformal_.qhat_ or 0.0) else self.conformal_.qhat_,
                "n": self.conformal_.n_calibration_,
                "randomized": self.conformal_.randomized,
                "seed": self.conformal_.seed,
                "scores": None
                if self.conformal_.calibration_scores_ is None
                else self.conformal_.calibration_scores_.tolist(),
            },
        }

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore a state produced by :meth:`state`."""
        self.classes_ = list(state["classes"])
        self.n_features_in_ = int(state["n_features_in"])
        self.fit_summary_ = dict(state.get("fit_summary") or {})
        self._set_state(state["model"])
        conf = state.get("conformal")
        self.conformal_ = None
        if conf is not None:
            cp = SplitConformalClassifier(
                self,
                alpha=float(conf["alpha"]),
                randomized=bool(conf.get("randomized", False)),
                seed=int(conf.get("seed", 0)),
            )
            cp.qhat_ = math.inf if conf["qhat"] is None else float(conf["qhat"])
            cp.n_calibration_ = int(conf["n"])
            if conf.get("scores") is not None:
                cp.calibration_scores_ = np.asarray(conf["scores"], dtype=np.float64)
            self.conformal_ = cp

    # ----------------------------------------------------------------- helpers
    def _encode(self, labels: list[Any], where: str) -> tuple[IntArray, list[Any]]:
        if self.multiclass:
            return as_classes(labels, where)
        return as_binary(labels, where, pass_at=self.pass_at), [0, 1]

    def _codes_for(self, labels: list[Any], where: str) -> IntArray:
        if not self.multiclass:
            return as_binary(labels, where, pass_at=self.pass_at)
        codes, classes = as_classes(labels, where)
        index = {c: k for k, c in enumerate(self.classes_ or [])}
        unknown = [c for c in classes if c not in index]
        if unknown:
            raise InvalidInputError(
                f"{where}: labels {unknown} were not seen in fit (classes {self.classes_})"
            )
        return np.array([index[classes[k]] for k in codes], dtype=np.int64)

    def _oriented(self, x: FloatArray) -> FloatArray:
        if self.higher_is_better is None:
            return x
        return orient(x, self.higher_is_better)

    def _require_fitted(self, where: str) -> bool:
        if self.classes_ is None:
            raise NotFittedError(
                f"{type(self).__name__} is not fitted; call fit(scores, labels) before {where}"
            )
        return True

    @abstractmethod
    def _fit(self, x: FloatArray, codes: IntArray) -> None:
        """Fit on oriented scores (higher = closer to PASS) and class codes 0..K-1."""

    @abstractmethod
    def _proba(self, x: FloatArray) -> FloatArray:
        """(n, K) probabilities for oriented scores."""

    def _get_state(self) -> dict[str, Any]:
        """Model parameters as JSON-serialisable data: by default the :attr:`fitted_arrays`."""
        if not self.fitted_arrays:
            raise NotImplementedError(
                f"{type(self).__name__} declares no fitted_arrays: override _get_state/_set_state"
            )
        return {key: getattr(self, attr).tolist() for key, attr in self.fitted_arrays.items()}

    def _set_state(self, state: dict[str, Any]) -> None:
        """Restore model parameters saved by :meth:`_get_state`."""
        for key, attr in self.fitted_arrays.items():
            setattr(self, attr, np.asarray(state[key], dtype=np.float64))

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items() if v is not None)
        return f"{type(self).__name__}({params})"
