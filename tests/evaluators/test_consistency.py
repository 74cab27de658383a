"""Self-consistency: pairwise ROUGE among a model's answers to the same question."""

from __future__ import annotations

import random

import pytest

from assay import TestCase, evaluate
from assay.errors import InvalidInputError
from assay.evaluators import get_evaluator
from assay.evaluators.base import Status
from assay.evaluators.consistency import stratified_sample

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

ANSWERS = [
    "The fee is 12 euros a month.",
    "It costs 12 euros per month, waived above 5,000 euros.",
    "Twelve euros monthly.",
    "The monthly fee is 12 euros.",
]


def _group(question: str, model: str, answers: list[str], prefix: str) -> list[TestCase]:
    return [
        TestCase(id=f"{prefix}{i}", model=model, question=question, actual_answer=a)
        for i, a in enumerate(answers)
    ]


def test_means_equal_pairwise_rouge_score_f1() -> None:
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"])
    cases = _group("What is the fee?", "m", ANSWERS, "q")
    results = get_evaluator("self_consistency").evaluate(cases)
    for i, result in enumerate(results):
        others = [scorer.score(ANSWERS[j], ANSWERS[i]) for j in range(len(ANSWERS)) if j != i]
        assert result.outcomes["consistency_rouge1"].value == pytest.approx(
            sum(s["rouge1"].fmeasure for s in others) / 3, abs=1e-15
        )
        assert result.outcomes["consistency_rougeL"].value == pytest.approx(
            sum(s["rougeL"].fmeasure for s in others) / 3, abs=1e-15
        )
        assert result.details["group_size"] == 4 and not result.details["sampled"]


def test_groups_by_model_and_normalised_question_and_skips_singletons() -> None:
    cases = (
        _group("What is the fee?", "a", ANSWERS[:2], "x")
        + _group("  what is THE fee? ", "a", ANSWERS[2:3], "y")  # same normalised question
        + _group("What is the fee?", "b", ANSWERS[:1], "z")  # other model: alone
    )
    results = get_evaluator("self_consistency").evaluate(cases)
    assert [r.details.get("group_size") for r in results[:3]] == [3, 3, 3]
    lonely = results[3].outcomes["consistency_rougeL"]
    assert lonely.status is Status.SKIPPED
    assert "no other answer" in (lonely.reason or "")


def test_identical_answers_are_fully_consistent() -> None:
    results = get_evaluator("self_consistency").evaluate(
        _group("Q?", "m", ["Same words."] * 3, "s")
    )
    assert {r.outcomes["consistency_rougeL"].value for r in results} == {1.0}


def test_large_groups_are_sampled_stratified_and_reproducibly() -> None:
    rng = random.Random(0)
    answers = [
        " ".join(
            rng.choice(["fee", "euros", "month", "12", "waived"]) for _ in range(rng.randint(1, 60))
        )
        for _ in range(40)
    ]
    cases = _group("Q?", "m", answers, "c")
    evaluator = get_evaluator("self_consistency", max_group=8, seed=3)
    first = evaluator.evaluate(cases)
    again = evaluator.evaluate(list(reversed(cases)))[::-1]
    assert [r.outcomes for r in first] == [r.outcomes for r in again]
    assert all(r.details["sampled"] for r in first)
    compared = {tuple(r.details["compared_with"]) for r in first}
    sample = set(max(compared, key=len))
    assert len(sample) == 8
    # stratified: one answer from each eighth of the length distribution
    lengths = sorted(len(a) for a in answers)
    picked = sorted(len(answers[int(cid[1:])]) for cid in sample)
    for k, length in enumerate(picked):
        assert lengths[k * 5] <= length <= lengths[k * 5 + 4]
    other_seed = get_evaluator("self_consistency", max_group=8, seed=4).evaluate(cases)
    assert [r.details["compared_with"] for r in other_seed] != [
        r.details["compared_with"] for r in first
    ]


def test_stratified_sample_takes_everything_when_small() -> None:
    assert stratified_sample([3, 1, 2], 5, 0, "k") == [0, 1, 2]
    assert len(set(stratified_sample(list(range(100)), 10, 0, "k"))) == 10


def test_engine_keeps_groups_whole_across_batches() -> None:
    cases = []
    for q in range(30):
        for m in ("a", "b"):
            cases += _group(f"Question {q}?", m, ANSWERS[: 2 + q % 3], f"{q}{m}-")
    run = evaluate(cases, ["self_consistency"], batch_size=7)
    rows = run.results
    assert (rows["status"] == "ok").all(), rows[rows["status"] != "ok"]["reason"].unique()
    whole = evaluate(cases, ["self_consistency"], batch_size=10_000).results
    assert (
        rows.sort_values(["case_id", "metric"])["value"].tolist()
        == whole.sort_values(["case_id", "metric"])["value"].tolist()
    )


@pytest.mark.parametrize("params", [{"max_group": 1}, {"seed": "x"}, {"use_stemmer": 1}])
def test_parameters_are_validated(params: dict[str, object]) -> None:
    with pytest.raises(InvalidInputError):
        get_evaluator("self_consistency", **params)
