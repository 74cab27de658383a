"""``assess`` end to end on the bundled demo: calibrated to its labels, decided per dimension."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from assay.cli.main import cli
from assay.demo import demo_plan, demo_suite_path
from assay.verdict import assess, parse_plan

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    out = tmp_path_factory.mktemp("assess") / "demo"
    plan, missing = demo_plan()
    if missing:
        pytest.skip(f"demo extras not installed: {missing}")
    return assess(plan, out), out  # as written: its random round and hand-picked labels


def test_the_demo_verdict_follows_its_human_labels(demo) -> None:  # type: ignore[no-untyped-def]
    assessment, _ = demo
    assert assessment.model_decision("faithful") == "PASS"
    assert assessment.model_decision("hallucinating") == "FAIL"
    per = assessment.dimension_decisions("hallucinating")
    assert per["qa"] == "FAIL" and per["hallucination"] == "FAIL" and per["risk"] == "FAIL"
    # the terse model: mostly correct, but 4 of its 40 sampled answers are not grounded
    terse = assessment.dimension_decisions("terse")
    assert terse["qa"] == "PASS" and terse["hallucination"] == "FAIL"
    assert assessment.model_decision("terse") == "FAIL"
    assert assessment.exit_code == 1
    assert "bad_actor" not in assessment.dimension_decisions("faithful")  # no attack was run


def test_labelled_cases_keep_the_human_verdict(demo) -> None:  # type: ignore[no-untyped-def]
    assessment, _ = demo
    table = assessment.verdicts["correct answers"].table
    human = table[table["source"] == "human"]
    assert len(human) > 0
    expected = human["label"].map({1.0: "PASS", 0.0: "FAIL"})
    assert (human["verdict"] == expected).all()
    calibrated = table[table["source"] == "calibrated"]
    assert set(calibrated["verdict"]) <= {"PASS", "FAIL", "REVIEW", "UNMEASURED"}


def test_validity_gate_and_calibration_are_reported(demo) -> None:  # type: ignore[no-untyped-def]
    assessment, out = demo
    qa = assessment.verdicts["correct answers"]
    deciding = next(v for v in qa.validity if v["metric"] == qa.metric)
    assert deciding["ci_low"] > 0.5 and 0.0 <= deciding["coverage_test"] <= 1.0
    verdict = json.loads((out / "verdict.json").read_text(encoding="utf-8"))
    assert verdict["exit_code"] == 1 and verdict["models"]["faithful"]["decision"] == "PASS"
    html = (out / "verdict.html").read_text(encoding="utf-8")
    assert "plot-calibration" in html and "plot-distribution" in html
    assert html.index("Decisions") < html.index("Measurement validity")
    markdown = (out / "verdict.md").read_text(encoding="utf-8")
    assert markdown.startswith("# Northbridge Bank assistant (demo): FAIL")
    cases = pd.read_csv(out / "verdict_cases.csv")
    assert {"state", "reason", "design", "round", "probability"} <= set(cases.columns)
    # the random round's labels and the reviewer's hand-picked rest, each with its design
    assert set(cases.loc[cases["source"] == "human", "design"]) == {"random", "unknown"}
    looks = json.loads((out / "looks.json").read_text(encoding="utf-8"))
    assert looks["looks"]["correct answers"]["faithful"]  # one look recorded per check and system
    queue = (out / "review_queue.jsonl").read_text(encoding="utf-8").splitlines()
    reviews = sum(d.n_review for d in assessment.decisions if d.calibrated)
    assert len(queue) >= 1 and reviews >= 1


def test_a_metric_that_does_not_separate_cannot_decide(tmp_path: Path) -> None:
    """text statistics do not tell correct from incorrect answers: the labels decide alone."""
    plan = parse_plan(
        f"""
[run]
suite = "{demo_suite_path()}"
evaluators = ["text_statistics"]
[[check]]
dimension = "qa"
name = "correct answers"
label = "correct"
metrics = ["type_token_ratio"]
scope = "original"
min_pass_rate = 0.8
"""
    )
    assessment = assess(plan)
    decision = next(d for d in assessment.decisions if d.model == "faithful")
    assert decision.decision == "INCONCLUSIVE"
    assert "no metric separates human PASS from FAIL" in decision.reason
    assert "decided from its labels alone" in decision.reason and decision.method == "census"
    bad = next(d for d in assessment.decisions if d.model == "hallucinating")
    assert bad.decision == "FAIL"  # its hand-picked labels alone put it below the target
    assert assessment.exit_code == 1


def test_without_labels_the_verdict_says_uncalibrated(tmp_path: Path) -> None:
    plan = parse_plan(
        f"""
[run]
suite = "{demo_suite_path()}"
evaluators = ["token_f1"]
[labels]
source = "none"
[[check]]
dimension = "qa"
name = "correct answers"
label = "correct"
metrics = ["token_f1"]
min_pass_rate = 0.5
"""
    )
    decisions = assess(plan).decisions
    assert all("uncalibrated" in d.reason for d in decisions)
    assert all(not d.calibrated for d in decisions)


def test_cli_plan_then_assess_and_junit_exit_codes(tmp_path: Path) -> None:
    runner = CliRunner()
    plan_path = tmp_path / "plan.toml"
    result = runner.invoke(cli, ["plan", str(demo_suite_path()), "--out", str(plan_path)])
    assert result.exit_code == 0, result.output
    text = plan_path.read_text(encoding="utf-8")
    assert text.startswith("# assay validation plan") and 'source = ["suite", "store"]' in text
    out = tmp_path / "assessment"
    result = runner.invoke(cli, ["assess", str(plan_path), "--out", str(out)])
    assert result.exit_code in (1, 3), result.output  # the hallucinating system cannot pass
    assert result.output.strip().splitlines()[-1] == str(out / "verdict.md")
    verdict = json.loads((out / "verdict.json").read_text(encoding="utf-8"))
    assert result.exit_code == verdict["exit_code"]
    junit = runner.invoke(cli, ["junit", str(out), "--check"])
    assert junit.exit_code == verdict["exit_code"]
    xml = (out / "junit.xml").read_text(encoding="utf-8")
    assert "hallucinating :: " in xml and "<failure" in xml
    # a second run reuses the complete run: the run directory is not rewritten
    before = (out / "run" / "manifest.json").stat().st_mtime_ns
    again = runner.invoke(cli, ["assess", str(plan_path), "--out", str(out)])
    assert again.exit_code == verdict["exit_code"]
    assert (out / "run" / "manifest.json").stat().st_mtime_ns == before
    refused = runner.invoke(cli, ["plan", str(demo_suite_path()), "--out", str(plan_path)])
    assert refused.exit_code != 0


def test_review_cases_come_first_in_the_labeling_queue_and_new_labels_count(  # type: ignore[no-untyped-def]
    demo, tmp_path: Path
) -> None:
    from assay.label.queue import uncertain_cases

    assessment, out = demo
    results = pd.read_parquet(out / "run" / "results.parquet")
    flags, _ = uncertain_cases(results, out / "run", None)
    table = assessment.verdicts["correct answers"].table
    review = {(r.case_id, r.model) for r in table[table["verdict"] == "REVIEW"].itertuples()}
    assert review and review <= {k for k, v in flags.items() if v}
    assert len(results) > 0
    # annotators label the REVIEW cases (here: a labels file); re-running counts them as labels
    labels = tmp_path / "new_labels.csv"
    rows = ["id,model,correct"] + [f"{case_id},{model},1" for case_id, model in sorted(review)]
    labels.write_text("\n".join(rows) + "\n", encoding="utf-8")
    plan = demo_plan()[0]
    sources = [*plan.labels.sources, str(labels)]  # REVIEW labels: an unknown design
    relabelled = plan.model_copy(
        update={"labels": plan.labels.model_copy(update={"source": sources})}
    )
    again = assess(relabelled, out)
    before = {d.model: d for d in assessment.decisions if d.check == "correct answers"}
    after = {d.model: d for d in again.decisions if d.check == "correct answers"}
    for model, decision in after.items():
        assert decision.n_labelled >= before[model].n_labelled
    assert sum(d.n_labelled for d in after.values()) > sum(d.n_labelled for d in before.values())


@pytest.mark.parametrize("rows_per_write", [1, 50_000])
def test_verdict_cases_are_written_as_the_concatenated_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows_per_write: int
) -> None:
    """verdict_cases.csv is written a check's part at a time, in slices of rows; its text is the
    one concatenated table's: columns in order of first appearance, a part's integers as floats
    where another part lacks the column, REVIEW keys gathered from every part."""
    from assay.verdict.assess import _write_verdict_cases
    from assay.verdict.cases import CaseVerdicts

    # the package's ``assess`` function hides its module of the same name
    monkeypatch.setattr(importlib.import_module("assay.verdict.assess"), "_ROWS_PER_WRITE",
                        rows_per_write)  # fmt: skip

    calibrated = pd.DataFrame({"case_id": ["a", "b"], "model": ["m", "m"],
                               "verdict": ["PASS", "REVIEW"], "round": [1, 2]})  # fmt: skip
    rule = pd.DataFrame({"case_id": ["a", "c"], "model": ["m", "m"], "verdict": ["REVIEW", "FAIL"],
                         "failed_metric": [None, "rouge"], "flag": [True, False]})  # fmt: skip
    excluded = pd.DataFrame({"case_id": ["d"], "model": ["m"], "state": ["out of scope"],
                             "reason": ["skipped"]})  # fmt: skip
    verdicts = {
        "first": CaseVerdicts(calibrated, "x", True, excluded=excluded),
        "second": CaseVerdicts(rule, None, False, excluded=excluded.iloc[:0]),
    }
    wanted = _write_verdict_cases(verdicts, tmp_path / "cases.csv")
    whole = pd.concat([calibrated.assign(check="first"), excluded.assign(check="first"),
                       rule.assign(check="second")], ignore_index=True)  # fmt: skip
    assert (tmp_path / "cases.csv").read_text() == whole.to_csv(index=False)
    assert "1.0" in (tmp_path / "cases.csv").read_text()  # the integer round, as concat has it
    assert wanted == {("b", "m"), ("a", "m")}
    _write_verdict_cases({}, tmp_path / "none.csv")
    assert (tmp_path / "none.csv").read_text() == pd.DataFrame().to_csv(index=False)


def test_a_suite_without_models_matches_its_labels_to_its_scores(tmp_path: Path) -> None:
    """Cases with no ``model`` are one system, keyed ``""`` as the run's results key them: their
    labels meet their scores (keyed ``"None"`` they never did, and every check was decided by its
    labels alone)."""
    rows = [json.loads(line) for line in demo_suite_path().read_text().splitlines()]
    rows = [r for r in rows if r.get("model") == "hallucinating"]
    for row in rows:
        del row["model"]
    (tmp_path / "suite.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    labelled = [r for r in rows if "correct" in r.get("labels", {})]
    plan = parse_plan(
        '[run]\nsuite = "suite.jsonl"\nevaluators = ["token_f1"]\n'
        '[labels]\nsource = ["suite"]\ndesign = "random"\n'
        '[[check]]\nname = "correct"\ndimension = "qa"\nmetrics = ["token_f1"]\n'
        'label = "correct"\nmin_pass_rate = 0.5\n',
        "plan.toml",
        tmp_path,
    )
    assessment = assess(plan, tmp_path / "out")
    assert [d.model for d in assessment.decisions] == [""]
    candidate = assessment.verdicts["correct"].validity[0]
    assert candidate["n_labelled"] == len(labelled) > 0
    assert candidate["auroc"] is not None


def test_each_check_reads_only_its_own_metrics_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A check's verdicts get the result rows of its metrics only, read for it and dropped before
    its bounds (every check's rows, held through all the bounds, were ~180 MB at a million
    cases)."""
    module = importlib.import_module("assay.verdict.assess")
    seen: dict[str, set[str]] = {}
    original = module._check_verdicts

    def spy(check, results, *args):  # type: ignore[no-untyped-def]
        seen[check.name] = set(results["metric"].astype(str))
        return original(check, results, *args)

    monkeypatch.setattr(module, "_check_verdicts", spy)
    plan = parse_plan(
        f"""
[run]
suite = "{demo_suite_path()}"
evaluators = ["token_f1", "retrieval"]
[[check]]
dimension = "qa"
name = "correct answers"
label = "correct"
metrics = ["token_f1"]
min_pass_rate = 0.5
[[check]]
dimension = "retrieval"
name = "hit"
metrics = ["hit_at_k"]
threshold = 1.0
min_pass_rate = 0.5
"""
    )
    decisions = assess(plan).decisions
    # (the evaluation's own implicit checks are decided by the same code: left aside here)
    assert seen["correct answers"] == {"token_f1"} and seen["hit"] == {"hit_at_k"}
    assert {d.check for d in decisions} == {"correct answers", "hit"}
