"""``assay run --repeats k`` against a target that answers at random (seeded per sample), then
``assay evaluate`` and ``assay assess``: linked samples, one cluster per case, flaky cases in
analysis.json, problems.json and both reports, and a verdict that counts each case once."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from assay.analyze.resampling import cluster_keys
from assay.analyze.uncertainty import clopper_pearson_interval
from assay.cli.main import cli
from assay.data import read_suite, write_suite
from assay.data.case import TestCase
from assay.data.samples import repeat_cases
from assay.errors import InvalidInputError
from assay.evaluators.robustness import PerturbationRobustness
from assay.rundir import load_run

K = 6
#: Cases whose id ends in "coin" are answered correctly with probability 1/2; the others always.
CASES = [
    TestCase(id=f"q{i}{'coin' if i % 3 == 0 else ''}", question=f"Question {i}?",
             expected_answer=f"answer {i}")
    for i in range(12)
]  # fmt: skip

TARGET = textwrap.dedent(
    """
    import random
    from pathlib import Path

    CALLS = Path(__file__).with_name("calls.txt")

    def answer(case):
        with CALLS.open("a") as log:
            log.write(case.id + "\\n")
        rng = random.Random(case.id)  # seeded: the same sample gets the same answer
        coin = case.sample_of.endswith("coin") and rng.random() < 0.5
        return "I am not sure." if coin else case.expected_answer
    """
)


def _cli(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result.output


@pytest.fixture(scope="module")
def repeated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repeats")
    (root / "coin_target.py").write_text(TARGET)
    write_suite(CASES, root / "suite.jsonl")
    target = root / "target.yaml"
    target.write_text(f"type: python\nname: coin\ncallable: {root / 'coin_target.py'}:answer\n")
    answered = root / "answered.jsonl"
    args = ["run", str(root / "suite.jsonl"), "--target", str(target), "--out", str(answered)]
    output = _cli(*args, "--repeats", str(K), "--keep-checkpoint")
    assert f"{len(CASES) * K} answered, 0 errors ({len(CASES)} cases x {K} samples)" in output
    # resumed from the checkpoint: no sample is asked twice
    _cli(*args, "--repeats", str(K))
    calls = (root / "calls.txt").read_text().split()
    assert len(calls) == len(set(calls)) == len(CASES) * K
    _cli("evaluate", str(answered), "-e", "exact_match", "--out", str(root / "run"))
    return root


def test_samples_are_linked_cases(repeated: Path) -> None:
    answered = read_suite(repeated / "answered.jsonl").cases
    assert len(answered) == len(CASES) * K
    first = answered[0]
    assert (first.id, first.sample, first.sample_of) == ("q0coin#sample1", 1, "q0coin")
    by_case: dict[str, set[str | None]] = {}
    for case in answered:
        assert case.id == f"{case.sample_of}#sample{case.sample}" and case.parent_id is None
        by_case.setdefault(case.sample_of or "", set()).add(case.actual_answer)
    flipping = {k for k, answers in by_case.items() if len(answers) > 1}
    assert flipping and flipping <= {c.id for c in CASES if c.id.endswith("coin")}
    with pytest.raises(InvalidInputError, match="already sample 1"):
        repeat_cases(answered, 2)


def test_one_cluster_per_case_and_intervals_not_from_k_times_n(repeated: Path) -> None:
    run = load_run(repeated / "run")
    results = run.lean_results()
    assert len(results) == len(CASES) * K
    assert cluster_keys(results).nunique() == len(CASES)  # k samples: one question
    analysis = json.loads((repeated / "run" / "analysis.json").read_text())
    row = next(r for r in analysis["leaderboard"] if r["metric"] == "exact_match")
    # the pass-rate interval is the cluster bootstrap's, wider than an exact interval that
    # would take the 72 samples as 72 independent cases
    n_pass = round(row["pass_rate"] * len(results))
    low, high = clopper_pearson_interval(np.array([n_pass]), np.array([len(results)]), 0.95)
    assert row["pass_ci_high"] - row["pass_ci_low"] > float(high[0] - low[0])


def test_flaky_cases_in_analysis_problems_and_reports(repeated: Path) -> None:
    answered = read_suite(repeated / "answered.jsonl").cases
    passes: dict[str, list[bool]] = {}
    for case in answered:
        passes.setdefault(case.sample_of or "", []).append(
            case.actual_answer == case.expected_answer
        )
    flaky = {k: sum(v) for k, v in passes.items() if 0 < sum(v) < K}
    assert flaky, "the seeded coin should flip some cases"
    analysis = json.loads((repeated / "run" / "analysis.json").read_text())
    repeats = analysis["repeats"]
    [summary] = repeats["metrics"]
    assert repeats["samples"] == K and summary["n_cases"] == len(CASES)
    assert summary["n_flaky"] == len(flaky) and summary["flaky_share"] == len(flaky) / len(CASES)
    always = sum(1 for v in passes.values() if all(v))
    assert summary["pass_all"] == always / len(CASES)
    assert summary["flaky_share_ci_low"] <= summary["flaky_share"] <= summary["flaky_share_ci_high"]
    assert summary["within_sd"] > 0
    listed = {f["case_id"]: f for f in repeats["flaky"]}
    assert {k: f["passing"] for k, f in listed.items()} == flaky
    assert all(f["judged"] == K for f in listed.values())
    problems = json.loads((repeated / "run" / "problems.json").read_text())
    reported = {p["case_id"]: p["evidence"]["passing"] for p in problems
                if p["kind"] == "flaky_case"}  # fmt: skip
    assert reported == flaky
    markdown = (repeated / "run" / "report.md").read_text()
    assert "## Repeats and flaky cases" in markdown
    html = (repeated / "run" / "report.html").read_text()
    assert 'id="flaky-table"' in html and all(case in html for case in flaky)


def test_the_verdict_counts_each_case_once(repeated: Path) -> None:
    plan = repeated / "plan.toml"
    plan.write_text(
        textwrap.dedent(
            f"""
            [run]
            suite = "{repeated / 'answered.jsonl'}"
            evaluators = ["exact_match"]
            [labels]
            source = "none"
            [[check]]
            dimension = "qa"
            name = "correct answers"
            metrics = ["exact_match"]
            min_pass_rate = 0.5
            """
        )
    )
    from assay.verdict import assess

    assessment = assess(plan, repeated / "assessment")
    [decision] = assessment.decisions
    answered = read_suite(repeated / "answered.jsonl").cases
    always = {c.sample_of for c in answered} - {
        c.sample_of for c in answered if c.actual_answer != c.expected_answer
    }
    assert decision.n_cases == len(CASES)  # not len(CASES) * K
    assert decision.n_pass == len(always) and decision.n_fail == len(CASES) - len(always)
    table = assessment.verdicts["correct answers"].table
    assert set(table["samples"]) == {K}


def test_a_perturbed_sample_is_compared_with_the_same_sample_of_its_parent() -> None:
    parent = TestCase(id="q", model="m", expected_answer="12 euros")
    child = parent.model_copy(update={"id": "q~typos", "parent_id": "q", "perturbation": "typos"})
    answers = {("q", 1): "12 euros", ("q", 2): "no idea", ("q~typos", 1): "12 euros",
               ("q~typos", 2): "12 euros"}  # fmt: skip
    samples = [
        c.model_copy(update={"actual_answer": answers[(c.sample_of, c.sample)]})
        for c in repeat_cases([parent, child], 2)
    ]
    results = PerturbationRobustness(base="exact_match").evaluate(samples)
    unchanged = [r.outcomes["robust_unchanged"] for r in results]
    assert [o.status.value for o in unchanged] == ["skipped", "skipped", "ok", "ok"]
    # sample 1: both pass (unchanged); sample 2: the parent failed, the child passed (changed)
    assert [o.value for o in unchanged[2:]] == [1.0, 0.0]
