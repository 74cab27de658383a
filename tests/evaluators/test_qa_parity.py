"""Token F1 and exact match against the official SQuAD v1.1 evaluation logic (inlined below)."""

from __future__ import annotations

import re
import string
from collections import Counter

from lexical_pairs import answer_pairs

from assay import TestCase
from assay.evaluators import get_evaluator
from assay.evaluators.qa import token_f1


# --- reference: SQuAD v1.1 evaluate-v1.1.py (Rajpurkar et al.), verbatim logic -------------
def normalize_answer(s: str) -> str:
    def remove_articles(text: str) -> str:
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text: str) -> str:
        return " ".join(text.split())

    def remove_punc(text: str) -> str:
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text: str) -> str:
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def f1_score(prediction: str, ground_truth: str) -> float:
    prediction_tokens = normalize_answer(prediction).split()
    ground_truth_tokens = normalize_answer(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    f1 = (2 * precision * recall) / (precision + recall)
    return f1


def exact_match_score(prediction: str, ground_truth: str) -> bool:
    return normalize_answer(prediction) == normalize_answer(ground_truth)


# -------------------------------------------------------------------------------------------
PAIRS = [
    ("The Annual Fee!", "annual fee"),
    ("an apple a day", "Apple, day."),
    ("theater", "the ater"),
    ("12 euros", "12  euros."),
    ("Über-fast", "uber fast"),
    ("a", "the"),
    ("", "nothing"),
    ("yes yes yes", "yes"),
]


def test_token_f1_and_exact_match_equal_squad_v11() -> None:
    pairs = PAIRS + answer_pairs(800, seed=21)
    em = get_evaluator("exact_match")
    f1 = get_evaluator("token_f1", normalization="squad", counting="multiset")  # SQuAD's form
    cases = [
        TestCase(id=str(i), expected_answer=e, actual_answer=a) for i, (e, a) in enumerate(pairs)
    ]
    for case, em_result, f1_result in zip(
        cases, em.evaluate(cases), f1.evaluate(cases), strict=True
    ):
        actual, expected = case.actual_answer or "", case.expected_answer or ""
        assert em_result.outcomes["exact_match"].value == float(exact_match_score(actual, expected))
        reference = f1_score(actual, expected)
        # the official script divides by zero when exactly one side normalises to nothing and
        # the other does not share a token; it returns 0 for no overlap, as token_f1 does
        assert f1_result.outcomes["token_f1"].value == float(reference) or (
            not normalize_answer(actual).split() and not normalize_answer(expected).split()
        )


def test_both_empty_after_normalisation_counts_as_match() -> None:
    # SQuAD's f1_score gives 0 when both normalise to nothing (num_same == 0); assay's token_f1
    # treats two empty answers as equal (1.0), like SQuAD 2.0's evaluation script.
    assert f1_score("the", "a") == 0
    assert token_f1("the", "a", "squad", "multiset") == 1.0
