"""Labels read as 0 / 1: a numeric array at once reads as each value one by one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from assay.calibrate._arrays import _binary_value, as_binary
from assay.errors import InvalidInputError

LABELS = [[1, 0, 1], [1.0, 0.0], [True, False], np.array([1, 0]), np.array([0.2, 0.9]),
          [0.5, 1.0], [1, 2], np.array([True, False]), (1, 0), [np.int64(1)], [1, True],
          ["pass", 1], [float("nan"), 1.0], np.array([np.inf, 0.0]),
          list(np.array([1, 0, 1])), list(np.array([0.5, 1.0])), list(np.array([True, False])),
          [np.int32(2), np.int32(0)], [np.float64("nan"), np.float64(1.0)]]  # fmt: skip


def _one_by_one(labels: Any, pass_at: float | None) -> list[int] | str:
    try:
        return [_binary_value(v, i, "w", pass_at) for i, v in enumerate(list(labels))]
    except InvalidInputError:
        return "refused"


@pytest.mark.parametrize("labels", LABELS, ids=range(len(LABELS)))
@pytest.mark.parametrize("pass_at", [None, 0.0, 0.5, 1.5])
def test_whole_arrays_read_as_each_value(labels: Any, pass_at: float | None) -> None:
    try:
        whole: list[int] | str = as_binary(labels, "w", pass_at=pass_at).tolist()
    except InvalidInputError:
        whole = "refused"
    assert whole == _one_by_one(labels, pass_at)


def test_a_graded_label_without_pass_at_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="not binary"):
        as_binary(np.array([0.0, 0.5]), "fit")
