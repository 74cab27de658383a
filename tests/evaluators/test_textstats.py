"""Text statistics: TTR, mean segmental TTR, mean sentence length, word-count difference."""

from __future__ import annotations

import math

import pytest

from assay import TestCase
from assay.errors import InvalidInputError
from assay.evaluators import get_evaluator
from assay.evaluators.base import Status
from assay.evaluators.textstats import mean_segmental_ttr, type_token_ratio


def _one(actual: str | None, expected: str | None = None, **params: int) -> dict[str, object]:
    [result] = get_evaluator("text_statistics", **params).evaluate(
        [TestCase(id="1", actual_answer=actual, expected_answer=expected)]
    )
    return {
        k: (o.value if o.status is Status.OK else o.status.value)
        for k, o in result.outcomes.items()
    }


def test_values_on_a_hand_checked_answer() -> None:
    answer = "The fee is 12 euros. The fee is waived above 5,000 euros!"
    # words: the fee is 12 euros | the fee is waived above 5 000 euros -> 13 words, 9 distinct
    values = _one(answer, "It costs twelve euros a month.", segment_length=5)
    assert values["type_token_ratio"] == pytest.approx(9 / 13)
    # segments: [the fee is 12 euros] [the fee is waived above]; the 3 trailing words dropped
    assert values["msttr"] == pytest.approx((5 / 5 + 5 / 5) / 2)
    assert values["mean_sentence_words"] == pytest.approx((5 + 8) / 2)
    assert values["word_count_diff_pct"] == pytest.approx(100 * (13 - 6) / 6)
    assert values["word_count_abs_diff_pct"] == pytest.approx(100 * 7 / 6)


def test_msttr_averages_segments_and_drops_the_remainder() -> None:
    words = ["a", "a", "b", "b", "a", "b", "c", "d", "e", "f", "g"]
    assert mean_segmental_ttr(words, 4) == pytest.approx((2 / 4 + 4 / 4) / 2)
    assert mean_segmental_ttr(words[:3], 4) is None
    assert type_token_ratio(["x"] * 4) == 0.25


def test_shorter_answer_gives_negative_difference_down_to_minus_100() -> None:
    assert _one("one two", "one two three four")["word_count_diff_pct"] == -50.0
    assert _one("12", "one two three four")["word_count_diff_pct"] == -75.0


def test_skips_carry_reasons() -> None:
    [result] = get_evaluator("text_statistics").evaluate(
        [TestCase(id="1", actual_answer="Short answer.")]
    )
    assert result.outcomes["type_token_ratio"].value == 1.0
    assert result.outcomes["msttr"].status is Status.SKIPPED
    assert "fewer than one segment of 50" in (result.outcomes["msttr"].reason or "")
    assert result.outcomes["word_count_diff_pct"].reason == "no expected answer"
    [empty] = get_evaluator("text_statistics").evaluate([TestCase(id="1", actual_answer="?!")])
    assert {o.status for o in empty.outcomes.values()} == {Status.SKIPPED}
    assert _one("words here", "...")["word_count_diff_pct"] == "skipped"


def test_declared_ranges_allow_long_answers() -> None:
    evaluator = get_evaluator("text_statistics")
    assert evaluator.metric("word_count_diff_pct").range == (-100.0, math.inf)
    values = _one(" ".join(["word"] * 400), "one")
    assert values["word_count_diff_pct"] == 39900.0


@pytest.mark.parametrize("bad", [0, 1, 2.5, True])
def test_segment_length_is_validated(bad: object) -> None:
    with pytest.raises(InvalidInputError, match="segment_length"):
        get_evaluator("text_statistics", segment_length=bad)
