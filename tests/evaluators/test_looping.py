"""Looping detection: unique sentences, longest repeated substring (suffix array), compression."""

from __future__ import annotations

import random
import time
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay import TestCase
from assay.evaluators import get_evaluator
from assay.evaluators.base import Status
from assay.evaluators.looping import (
    compression_ratio,
    repeated_substring_score,
    unique_sentence_ratio,
)
from assay.text.repeats import longest_repeated_substring


def _brute_force_lrs_length(text: str) -> int:
    for length in range(len(text) - 1, 0, -1):
        seen: set[str] = set()
        for i in range(len(text) - length + 1):
            if text[i : i + length] in seen:
                return length
            seen.add(text[i : i + length])
    return 0


@given(st.text(alphabet="ab c\u00e9\U0001f4b6", max_size=50))
@settings(max_examples=200, deadline=None)
def test_suffix_array_lrs_equals_brute_force(text: str) -> None:
    repeat = longest_repeated_substring(text)
    assert len(repeat) == _brute_force_lrs_length(text)
    if repeat:
        first = text.find(repeat)
        assert text.find(repeat, first + 1) != -1, "the substring must occur twice"


def test_lrs_is_fast_on_long_texts() -> None:
    rng = random.Random(0)
    text = "".join(rng.choice("abcdefghij klmnop") for _ in range(100_000))
    start = time.perf_counter()
    repeat = longest_repeated_substring(text + text[5000:5600])
    assert len(repeat) >= 600
    assert time.perf_counter() - start < 20  # O(n log² n): well under a second normally


def test_repeated_substring_score_is_share_of_text() -> None:
    assert repeated_substring_score("abcabc") == (1.0, "abc", 2)
    score, repeat, count = repeated_substring_score("aaaa")
    assert (repeat, count, score) == ("aaa", 1, 0.75)  # overlapping repeat, counted once
    assert repeated_substring_score("abcd") == (0.0, "", 0)
    assert repeated_substring_score("") == (0.0, "", 0)


def test_unique_sentence_ratio_ignores_short_sentences() -> None:
    text = "Yes. Yes. Yes. You can close it online. You can close it online. It is free of charge."
    assert unique_sentence_ratio(text) == pytest.approx(2 / 3)
    assert unique_sentence_ratio("Yes. No. Ok.") is None


def test_compression_ratio_is_zlib_level_9() -> None:
    text = "The loop goes on. " * 40
    raw = text.encode()
    assert compression_ratio(text) == len(zlib.compress(raw, 9)) / len(raw)
    assert compression_ratio(text) < 0.1 < compression_ratio("A short, varied answer.") == 1.0


def test_evaluator_separates_loops_from_normal_answers() -> None:
    normal = (
        "The Premier account costs 12 euros a month. The fee is waived when the balance "
        "stays above 5,000 euros. Card payments abroad cost 1.5% of the amount."
    )
    loop = "I can help with that. " + "Please contact your branch for details. " * 12
    results = get_evaluator("looping").evaluate(
        [
            TestCase(id="n", actual_answer=normal),
            TestCase(id="l", actual_answer=loop),
            TestCase(id="e", actual_answer="  "),
        ]
    )
    good, bad, empty = (r.outcomes for r in results)
    assert (
        good["repeated_substring_score"].value < 0.2 < 0.8 < bad["repeated_substring_score"].value
    )
    assert good["unique_sentence_ratio"].value == 1.0
    assert bad["unique_sentence_ratio"].value == pytest.approx(2 / 13)
    assert bad["compression_ratio"].value < 1 / 3 < good["compression_ratio"].value
    assert {o.status for o in empty.values()} == {Status.SKIPPED}
    assert "longest repeat" in (results[1].explanation or "")


def test_max_chars_bounds_the_analysed_prefix() -> None:
    [result] = get_evaluator("looping", max_chars=100).evaluate(
        [TestCase(id="1", actual_answer="abcdefghij" * 50)]
    )
    assert result.details["analysed_chars"] == 100
    assert result.outcomes["repeated_substring_score"].value == pytest.approx(0.9)
