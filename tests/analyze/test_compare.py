"""Comparing two runs: regressions first, significance on paired cases."""

from __future__ import annotations

import assay
from assay import TestCase
from assay.analyze.compare import compare_runs
from assay.report.comparison import comparison_markdown


def _cases(wrong: set[int], n: int = 40, model: str = "m") -> list[TestCase]:
    return [
        TestCase(
            id=str(i),
            model=model,
            question="q",
            expected_answer="yes",
            actual_answer="no" if i in wrong else "yes",
        )
        for i in range(n)
    ]


def test_a_significant_drop_is_a_regression_listed_first() -> None:
    base = assay.evaluate(_cases(set(range(4))) + _cases(set(), model="n"), ["exact_match"])
    new = assay.evaluate(_cases(set(range(20))) + _cases({1}, model="n"), ["exact_match"])
    out = compare_runs(base, new, n_resamples=300)
    first = out["changes"][0]
    assert (first["model"], first["kind"]) == ("m", "regression")
    assert first["delta"] < 0 and first["p_value"] < 0.05 and first["n_paired"] == 40
    assert first["ci_high"] < 0
    other = next(c for c in out["changes"] if c["model"] == "n")
    assert other["kind"] in {"possible_regression", "regression"}
    assert out["summary"]["case_regressions"] == 17
    assert all(f["direction"] == "pass → fail" for f in out["case_flips"])


def test_an_improvement_and_unchanged_metrics() -> None:
    base = assay.evaluate(_cases(set(range(20))), ["exact_match", "token_f1"])
    new = assay.evaluate(_cases(set()), ["exact_match", "token_f1"])
    kinds = {c["metric"]: c["kind"] for c in compare_runs(base, new, n_resamples=200)["changes"]}
    assert kinds == {"exact_match": "improvement", "token_f1": "improvement"}
    same = compare_runs(base, base, n_resamples=200)
    assert {c["kind"] for c in same["changes"]} == {"unchanged"}
    assert same["case_flips"] == []


def test_added_removed_and_threshold_flip() -> None:
    base = assay.evaluate(_cases(set()), ["exact_match"])
    new = assay.evaluate(_cases(set()), ["token_f1"])
    kinds = {c["metric"]: c["kind"] for c in compare_runs(base, new)["changes"]}
    assert kinds == {"exact_match": "removed", "token_f1": "added"}
    # One more failure turns a passing aggregate into a failing one: always a regression.
    base = assay.evaluate(_cases(set()), ["exact_match"], thresholds={"exact_match": 1.0})
    new = assay.evaluate(_cases({0}), ["exact_match"], thresholds={"exact_match": 1.0})
    change = compare_runs(base, new, n_resamples=200)["changes"][0]
    assert change["p_value"] > 0.05 and change["kind"] == "regression"
    assert (change["verdict_a"], change["verdict_b"]) == (True, False)


def test_runs_of_different_populations_are_compared_on_their_shared_cases() -> None:
    # A: 40 ordinary cases, all right, plus 60 attack cases, all wrong; B: the 40 only.
    attacks = [TestCase(id=f"attack{i}", model="m", question="q", expected_answer="yes",
                        actual_answer="no") for i in range(60)]
    base = assay.evaluate(_cases(set()) + attacks, ["exact_match"],
                          thresholds={"exact_match": 0.9})
    new = assay.evaluate(_cases(set()), ["exact_match"], thresholds={"exact_match": 0.9})
    out = compare_runs(base, new, n_resamples=200)
    change = out["changes"][0]
    assert (out["summary"]["cases_a"], out["summary"]["cases_b"],
            out["summary"]["shared_cases"]) == (100, 40, 40)
    # all-case means would read 0.4 -> 1.0, "fail -> pass", an artefact of the populations
    assert change["value_a_all"] == 0.4 and change["value_b_all"] == 1.0
    assert (change["value_a"], change["value_b"], change["delta"]) == (1.0, 1.0, 0.0)
    assert (change["verdict_a"], change["verdict_b"]) == (True, True)
    assert change["kind"] == "unchanged" and change["n_paired"] == 40
    page = comparison_markdown(out)
    assert "**40 shared**" in page and "40 shared (of 100 / 40)" in page


def test_runs_without_shared_cases_report_an_unpaired_difference() -> None:
    base = assay.evaluate(_cases(set()), ["exact_match"], thresholds={"exact_match": 0.9})
    other = [c.model_copy(update={"id": f"x{c.id}"}) for c in _cases(set(range(30)))]
    new = assay.evaluate(other, ["exact_match"], thresholds={"exact_match": 0.9})
    change = compare_runs(base, new, n_resamples=200)["changes"][0]
    assert change["scope"] == "unpaired" and change["n_paired"] == 0
    assert change["ci_low"] is None and change["p_value"] is None
    assert change["kind"] == "possible_regression"  # never "regression" across populations
    assert "unpaired (40 / 40)" in comparison_markdown(
        compare_runs(base, new, n_resamples=200))


def _family_cases(wrong_parents: set[int], parents: int = 5, children: int = 7) -> list[TestCase]:
    """``parents`` questions, each with ``children`` perturbed variants that share its outcome."""
    out = []
    for p in range(parents):
        answer = "no" if p in wrong_parents else "yes"
        out.append(TestCase(id=f"q{p}", model="m", question="q", expected_answer="yes",
                            actual_answer=answer))
        out += [
            TestCase(id=f"q{p}~v{k}", parent_id=f"q{p}", model="m", question="q",
                     expected_answer="yes", actual_answer=answer)
            for k in range(children)
        ]
    return out


def test_variants_of_one_question_are_resampled_together() -> None:
    """Issue 24 item 7: one question and its variants are one cluster, not eight independent
    cases. Two of five questions regress: 40 pairs but only 5 clusters, so the interval is that of
    5 draws, and McNemar (which assumes independent pairs) is not used."""
    base = assay.evaluate(_family_cases(set()), ["exact_match"])
    new = assay.evaluate(_family_cases({0, 1}), ["exact_match"])
    change = compare_runs(base, new, n_resamples=2000)["changes"][0]
    assert (change["n_paired"], change["n_clusters"]) == (40, 5)
    assert change["test"] == "paired_cluster_bootstrap" and "mcnemar" not in change
    # With 5 clusters a 2-of-5 drop is not significant; counted as 40 independent cases it was.
    assert change["p_value"] > 0.05
    assert change["ci_low"] <= -0.5 and change["ci_high"] >= -0.3
