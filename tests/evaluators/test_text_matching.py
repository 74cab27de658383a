"""TextMatching: pass/failure attribution, parse failures, timeouts, masking."""

from __future__ import annotations

import pytest

from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import Status
from assay.evaluators.text_matching import TextMatching
from assay.testing import check_evaluator

CTX = ["The Premier account costs 12 euros a month."]


def run(case: TestCase, **params):
    result = TextMatching(**params).evaluate([case])[0]
    values = {
        k: (o.value if o.status is Status.OK else o.status.value)
        for k, o in result.outcomes.items()
    }
    return values, result


def test_pass() -> None:
    values, result = run(
        TestCase(
            id="q", actual_answer="It is 12 euros.", retrieved_context=CTX, condition='"12 euros"'
        )
    )
    assert values == {
        "text_match_pass": 1.0,
        "text_match_failure": 0.0,
        "text_match_retrieval_failure": 0.0,
        "text_match_generation_failure": 0.0,
        "text_match_parse_failure": 0.0,
    }
    assert result.explanation.startswith("answer satisfies the condition")


def test_generation_failure_when_context_has_it() -> None:
    values, result = run(
        TestCase(id="q", actual_answer="It is free.", retrieved_context=CTX, condition='"12 euros"')
    )
    assert values["text_match_failure"] == 1.0
    assert values["text_match_generation_failure"] == 1.0
    assert values["text_match_retrieval_failure"] == 0.0
    assert "generation failure" in result.explanation


def test_retrieval_failure_when_context_lacks_it() -> None:
    values, _ = run(
        TestCase(
            id="q",
            actual_answer="No idea.",
            retrieved_context=["Unrelated."],
            condition='"12 euros"',
        )
    )
    assert values["text_match_retrieval_failure"] == 1.0
    assert values["text_match_generation_failure"] == 0.0


def test_no_context_skips_attribution() -> None:
    values, _ = run(TestCase(id="q", actual_answer="No idea.", condition='"12 euros"'))
    assert values["text_match_failure"] == 1.0
    assert values["text_match_retrieval_failure"] == "skipped"


def test_parse_failure_counts_and_others_skip_with_position() -> None:
    values, result = run(TestCase(id="q", actual_answer="x", condition='"a" AND AND "b"'))
    assert values["text_match_parse_failure"] == 1.0
    assert values["text_match_pass"] == "skipped"
    assert "position 8" in result.outcomes["text_match_pass"].reason
    assert result.details == {"position": 8, "expected": 'a quoted string, regexp("…"), NOT or "("'}


def test_condition_from_parameter_and_case_precedence() -> None:
    case = TestCase(id="q", actual_answer="fee: 3 euros")
    assert run(case, condition='regexp("\\d euros")')[0]["text_match_pass"] == 1.0
    case2 = TestCase(id="q", actual_answer="fee: 3 euros", condition='"nope"')
    assert run(case2, condition='"fee"')[0]["text_match_pass"] == 0.0
    values, result = run(TestCase(id="q", actual_answer="x"))
    assert values["text_match_pass"] == "skipped"
    assert "no condition" in result.outcomes["text_match_pass"].reason


def test_bad_parameters() -> None:
    with pytest.raises(InvalidInputError, match="position 6"):
        TextMatching(condition='"a" OR')
    with pytest.raises(InvalidInputError, match="'engine' parameter"):
        TextMatching(engine="pcre")


@pytest.mark.timeout(30)
def test_hostile_regex_is_an_error_not_a_hang() -> None:
    case = TestCase(id="q", actual_answer="a" * 5000 + "!", condition='regexp("(a+)+$")')
    values, result = run(case, timeout_s=0.1)
    assert values["text_match_pass"] == "error"
    assert "timed out" in result.outcomes["text_match_pass"].reason


def test_ignore_case_and_inline_flags() -> None:
    case = TestCase(id="q", actual_answer="THE FEE", condition='"the fee" AND regexp("(?i)fee")')
    assert run(case)[0]["text_match_pass"] == 0.0
    assert run(case, ignore_case=True)[0]["text_match_pass"] == 1.0


def test_pii_in_condition_is_masked_in_outputs() -> None:
    case = TestCase(id="q", actual_answer="card 4111111111111111", condition='"4111111111111111"')
    _, result = run(case)
    dumped = f"{result.explanation} {result.details}"
    assert "4111111111111111" not in dumped and "4111********1111" in dumped


def test_conformance() -> None:
    check_evaluator(TextMatching())
