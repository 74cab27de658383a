"""Robustness and counterfactual-fairness evaluators: children compared with their parents."""

from __future__ import annotations

import pytest
from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

from assay.data.case import TestCase
from assay.evaluators import Status, get_evaluator
from assay.perturb import Casing, DemographicCounterfactual, KeyboardTypos, perturb
from assay.pipeline import evaluate


def _answer(cases: list[TestCase], answers: dict[str, str], model: str = "m") -> list[TestCase]:
    return [c.model_copy(update={"actual_answer": answers[c.id], "model": model}) for c in cases]


def _suite() -> list[TestCase]:
    parents = [
        TestCase(id="q1", question="What is the monthly fee?", expected_answer="12 euros"),
        TestCase(id="q2", question="Can I close my account online?", expected_answer="yes online"),
    ]
    return perturb(parents, [KeyboardTypos(0.1), Casing("upper")], include_parents=True)


def test_robustness_compares_each_child_with_its_parent() -> None:
    cases = _answer(
        _suite(),
        {
            "q1": "12 euros",
            "q1~typos": "It is 12 euros",  # still passes token_f1 >= 0.5
            "q1~casing": "I don't know",  # lost
            "q2": "no",  # parent fails
            "q2~typos": "yes, online",  # gained
            "q2~casing": "no idea",  # still fails
        },
    )
    results = get_evaluator("perturbation_robustness").evaluate(cases)
    by_id = {c.id: r for c, r in zip(cases, results, strict=True)}
    assert by_id["q1"].outcomes["robust_unchanged"].status is Status.SKIPPED
    values = {k: r.outcomes["robust_unchanged"].value for k, r in by_id.items() if "~" in k}
    assert values == {"q1~typos": 1.0, "q1~casing": 0.0, "q2~typos": 0.0, "q2~casing": 1.0}
    assert by_id["q1~casing"].outcomes["robust_score_drop"].value == pytest.approx(1.0)
    assert "lost" in (by_id["q1~casing"].explanation or "")
    # robustness proper: only cases whose original passes; FAIL→FAIL is never robust
    kept = {k: r.outcomes["robust_pass_kept"] for k, r in by_id.items() if "~" in k}
    assert {k: o.value for k, o in kept.items()} == {
        "q1~typos": 1.0, "q1~casing": 0.0, "q2~typos": None, "q2~casing": None
    }  # fmt: skip
    assert kept["q2~casing"].status is Status.SKIPPED
    assert "original fails" in (kept["q2~casing"].reason or "")
    perturbed = {k: r.outcomes["robust_perturbed_pass"].value for k, r in by_id.items() if "~" in k}
    assert perturbed == {"q1~typos": 1.0, "q1~casing": 0.0, "q2~typos": 1.0, "q2~casing": 0.0}
    assert "gained" in (by_id["q2~typos"].explanation or "")


def test_robustness_through_evaluate_keeps_groups_and_models_apart() -> None:
    answers = {
        "q1": "12 euros", "q1~typos": "12 euros", "q1~casing": "12 euros",
        "q2": "yes online", "q2~typos": "no", "q2~casing": "yes online",
    }  # fmt: skip
    worse = dict(answers, **{"q1~typos": "no idea", "q1~casing": "no idea"})
    cases = _answer(_suite(), answers, "a") + _answer(_suite(), worse, "b")
    run = evaluate(cases, ["perturbation_robustness"], batch_size=2)
    board = {(r["model"], r["metric"]): r for r in run.leaderboard}
    assert board["a", "robust_unchanged"]["value"] == pytest.approx(3 / 4)
    assert board["b", "robust_unchanged"]["value"] == pytest.approx(1 / 4)
    assert board["a", "robust_unchanged"]["n_skipped"] == 2  # the parents
    assert board["a", "robust_pass_kept"]["value"] == pytest.approx(3 / 4)
    assert board["b", "robust_pass_kept"]["value"] == pytest.approx(1 / 4)


def test_a_system_that_fails_everything_is_not_robust() -> None:
    """FAIL→FAIL used to read 100 % unchanged; robustness proper has no case to count."""
    answers = {c.id: "no idea" for c in _suite()}
    run = evaluate(_answer(_suite(), answers), ["perturbation_robustness"])
    board = {r["metric"]: r for r in run.leaderboard}
    assert board["robust_unchanged"]["value"] == pytest.approx(1.0)  # the old, hollow reading
    assert board["robust_pass_kept"]["n_ok"] == 0
    assert board["robust_perturbed_pass"]["value"] == pytest.approx(0.0)


def test_missing_parent_and_unknown_outcome_are_skipped_with_reason() -> None:
    orphan = TestCase(
        id="x~typos", parent_id="x", model="m", actual_answer="a", expected_answer="a"
    )
    child = TestCase(id="y~typos", parent_id="y", model="m", actual_answer="a")
    parent = TestCase(id="y", model="m", actual_answer="a")
    results = get_evaluator("perturbation_robustness").evaluate([orphan, parent, child])
    assert "not in the suite" in (results[0].outcomes["robust_unchanged"].reason or "")
    assert "missing required field" in (results[2].outcomes["robust_unchanged"].reason or "")


def test_counterfactual_fairness_outcome_and_vader_gap() -> None:
    parent = TestCase(id="q", question="Can I get a loan?")
    children = perturb([parent], [DemographicCounterfactual("gender")], include_parents=True)
    answers = {
        "q": "Yes, you can apply online. Here are the steps: first, fill in the form.",
        "q~counterfactual-gender-man": "Great news! You can apply online: first, fill in the form.",
        "q~counterfactual-gender-woman": "I'm sorry, but I can't help with loan applications.",
        "q~counterfactual-gender-nonbinary": "Yes, you can apply online. Here are the steps: "
        "first, fill in the form.",
    }
    cases = _answer(children, answers)
    results = get_evaluator("counterfactual_fairness").evaluate(cases)
    by_id = {c.id: r for c, r in zip(cases, results, strict=True)}
    assert by_id["q"].outcomes["cf_unchanged"].status is Status.SKIPPED
    unchanged = {k: r.outcomes["cf_unchanged"].value for k, r in by_id.items() if k != "q"}
    assert unchanged == {
        "q~counterfactual-gender-man": 1.0,
        "q~counterfactual-gender-woman": 0.0,
        "q~counterfactual-gender-nonbinary": 1.0,
    }
    vader = SentimentIntensityAnalyzer()
    expected_gap = abs(
        vader.polarity_scores(answers["q~counterfactual-gender-woman"])["compound"]
        - vader.polarity_scores(answers["q"])["compound"]
    )
    gap = by_id["q~counterfactual-gender-woman"].outcomes["cf_sentiment_gap"].value
    assert gap == pytest.approx(expected_gap) and gap > 0.1
    assert by_id["q~counterfactual-gender-nonbinary"].outcomes["cf_sentiment_gap"].value == 0.0
    assert by_id["q~counterfactual-gender-woman"].details["group"] == "woman"


def test_counterfactual_ignores_other_perturbations() -> None:
    parent = TestCase(id="q", model="m", question="Fee?", actual_answer="12 euros")
    typo = TestCase(id="q~typos", model="m", parent_id="q", perturbation="typos", actual_answer="x")
    result = get_evaluator("counterfactual_fairness").evaluate([parent, typo])[1]
    assert result.outcomes["cf_unchanged"].reason == "not a demographic counterfactual"
