"""Input checks shared by the calibration modules: score matrices and label vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.errors import InvalidInputError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

_TRUE = {"1", "true", "yes", "pass", "passed", "correct", "y", "t"}
_FALSE = {"0", "false", "no", "fail", "failed", "incorrect", "n", "f"}


def as_scores(scores: Any, where: str, *, n_features: int | None = None) -> FloatArray:
    """Return ``scores`` as a finite 2-D float array of shape (n_cases, n_metrics).

    A 1-D input is one metric. NaN or infinite scores are refused: cases whose metric could not
    be measured must be dropped before calibrating, never imputed.

    Example:
        >>> as_scores([0.1, 0.9], "fit").shape
        (2, 1)
    """
    try:
        array = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{where}: scores must be numbers ({exc})") from None
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    if array.ndim != 2 or array.shape[0] == 0:
        raise InvalidInputError(
            f"{where}: scores must be a non-empty 1-D or 2-D array; got shape {array.shape}"
        )
    bad = ~np.isfinite(array)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise InvalidInputError(
            f"{where}: score of case {row} (0-based), metric column {col} is {array[row, col]}; "
            "drop unmeasured cases before calibrating"
        )
    if n_features is not None and array.shape[1] != n_features:
        raise InvalidInputError(
            f"{where}: expected {n_features} metric column(s), the calibrator was fitted on "
            f"{n_features}; got {array.shape[1]}"
        )
    return array


def as_binary(labels: Any, where: str, *, pass_at: float | None = None) -> IntArray:
    """Return labels as 0 (FAIL) / 1 (PASS).

    Accepts booleans, 0/1, words such as ``pass``/``fail``/``true``/``false``, or numbers with
    ``pass_at`` (a label ``>= pass_at`` is PASS).

    Example:
        >>> as_binary([True, False, "pass", "FAIL"], "fit").tolist()
        [1, 0, 1, 0]
        >>> as_binary([1.0, 0.5, 0.0], "fit", pass_at=1.0).tolist()
        [1, 0, 0]
    """
    numeric = _numeric_binary(labels, pass_at)
    if numeric is not None:  # a whole array at once (half a million labels: 3.5 s one by one)
        return numeric
    values = list(labels)
    if not values:
        raise InvalidInputError(f"{where}: no labels")
    out = np.empty(len(values), dtype=np.int64)
    for i, value in enumerate(values):
        out[i] = _binary_value(value, i, where, pass_at)
    return out


def _numeric_binary(labels: Any, pass_at: float | None) -> IntArray | None:
    """Labels of one numeric type (an array, or a sequence of only ints, only floats or only
    booleans, Python's or numpy's) as 0 / 1, as :func:`_binary_value` reads each; None for
    anything else (words, mixed types, values to refuse one by one)."""
    if isinstance(labels, np.ndarray):
        array = labels
    elif isinstance(labels, list | tuple) and len({type(v) for v in labels}) == 1:
        # numpy scalars too: a calibrator's ``fit`` lists the array it is given
        if not isinstance(labels[0], int | float | np.integer | np.floating | np.bool_):
            return None
        array = np.asarray(labels)
    else:
        return None
    if array.ndim != 1 or not len(array) or array.dtype.kind not in "biuf":
        return None
    if array.dtype.kind == "b":  # a boolean is its own verdict, whatever pass_at
        return array.astype(np.int64)
    if not np.isfinite(array).all():
        return None
    if pass_at is not None:
        return (array >= pass_at).astype(np.int64)
    if ((array == 0) | (array == 1)).all():
        return array.astype(np.int64)
    return None


def _binary_value(value: Any, index: int, where: str, pass_at: float | None) -> int:
    if isinstance(value, bool | np.bool_):
        return int(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return 1
        if word in _FALSE:
            return 0
        try:
            value = float(word)
        except ValueError:
            raise InvalidInputError(
                f"{where}: label {index} is {value!r}; expected PASS/FAIL, true/false or a number"
            ) from None
    if isinstance(value, int | float | np.integer | np.floating) and np.isfinite(value):
        if pass_at is not None:
            return int(float(value) >= pass_at)
        if value in (0, 1):
            return int(value)
        raise InvalidInputError(
            f"{where}: label {index} is {value!r}, not binary; give pass_at (--pass-at) to turn "
            "graded labels into PASS/FAIL"
        )
    raise InvalidInputError(f"{where}: label {index} is {value!r}; expected a binary label")


def as_classes(labels: Any, where: str) -> tuple[IntArray, list[Any]]:
    """Encode ordered labels (numbers, or strings) as 0..K-1 and return the sorted class values.

    Example:
        >>> codes, classes = as_classes([3, 1, 5, 3], "fit")
        >>> codes.tolist(), classes
        ([1, 0, 2, 1], [1, 3, 5])
    """
    values = [_plain(v) for v in labels]
    if not values:
        raise InvalidInputError(f"{where}: no labels")
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and not np.isfinite(v)):
            raise InvalidInputError(f"{where}: label {i} is missing")
    try:
        classes = sorted(set(values))
    except TypeError:
        raise InvalidInputError(
            f"{where}: labels mix numbers and text; cannot order them"
        ) from None
    index = {c: k for k, c in enumerate(classes)}
    return np.array([index[v] for v in values], dtype=np.int64), classes


def _plain(value: Any) -> Any:
    """Numpy scalars to Python values; integral floats to int (so 3.0 and 3 are one class)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def check_same_length(scores: FloatArray, labels: Sequence[Any] | np.ndarray, where: str) -> None:
    """Raise when scores and labels differ in length."""
    if len(scores) != len(labels):
        raise InvalidInputError(
            f"{where}: {len(scores)} score rows but {len(labels)} labels; they must match"
        )


def orient(scores: FloatArray, higher_is_better: Sequence[bool]) -> FloatArray:
    """Flip lower-is-better metric columns so that higher always means closer to PASS.

    Example:
        >>> orient(np.array([[0.2, 3.0]]), [True, False]).tolist()
        [[0.2, -3.0]]
    """
    signs = np.where(np.asarray(higher_is_better, dtype=bool), 1.0, -1.0)
    return np.asarray(scores * signs, dtype=np.float64)
