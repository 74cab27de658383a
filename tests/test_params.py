"""assay.params: the choice and count checks every component uses, and their messages."""

from __future__ import annotations

import numpy as np
import pytest

from assay.errors import InvalidInputError
from assay.params import check_choice, check_int


@pytest.mark.parametrize("value", [1, 7, np.int64(3), np.uint8(1)])
def test_check_int_accepts_integers_of_any_integer_type(value: object) -> None:
    check_int(value, "n", "f")


@pytest.mark.parametrize(
    ("value", "minimum", "expected"),
    [
        (True, 1, "a positive integer"),  # a bool is not a count
        (2.0, 1, "a positive integer"),  # nor is a float, even a whole one
        ("3", 1, "a positive integer"),
        (0, 1, "a positive integer"),
        (-1, 0, "a non-negative integer"),
        (1, 2, "an integer >= 2"),
    ],
)
def test_check_int_refuses_with_the_standard_message(
    value: object, minimum: int, expected: str
) -> None:
    with pytest.raises(InvalidInputError) as raised:
        check_int(value, "n_boot", "select_thresholds", minimum=minimum)
    assert str(raised.value) == (
        f"The 'n_boot' parameter of select_thresholds must be {expected}; got {value!r} instead."
    )


def test_check_choice_lists_the_choices() -> None:
    check_choice("max", ("mean", "max"), "aggregate", "f")
    check_choice("b", {"a": 1, "b": 2}, "mode", "f")  # a mapping's keys are its choices
    with pytest.raises(InvalidInputError, match=r"must be 'mean' or 'max'; got 'sum' instead"):
        check_choice("sum", ["mean", "max"], "aggregate", "f")
    with pytest.raises(InvalidInputError, match=r"must be one of 'a', 'b', 'c'; got 'x' instead"):
        check_choice("x", iter("abc"), "mode", "f")


def test_components_use_them() -> None:
    from assay.calibrate import MonotoneBoostingCalibrator
    from assay.perturb import Casing, KeyboardTypos

    with pytest.raises(InvalidInputError, match="'mode' parameter of Casing must be one of 'upper'"):
        Casing("shout")
    with pytest.raises(InvalidInputError, match="'rate' parameter of KeyboardTypos must be in"):
        KeyboardTypos(rate=2.0)
    with pytest.raises(InvalidInputError, match="'field' parameter of KeyboardTypos must be "
                                                "'question' or 'expected_answer'"):
        KeyboardTypos(field="answer")
    with pytest.raises(InvalidInputError, match="'num_leaves' parameter of "
                                                "MonotoneBoostingCalibrator must be an integer >= 2"):
        MonotoneBoostingCalibrator(num_leaves=True)
