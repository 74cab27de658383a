"""A plan's mistakes are refused before anything runs, through ``assay assess`` and ``assay
validate``: thresholds outside their metric's range, unknown metrics, a mistyped label criterion,
label rows that match no case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from assay.cli.main import cli
from assay.errors import InvalidInputError

N = 10


def _suite(folder: Path, *, labels: bool = True) -> None:
    rows = []
    for i in range(N):
        row = {"id": f"q{i}", "model": "bot", "question": f"What is fee {i}?",
               "actual_answer": f"It is {i} euros, write to jane{i}@example.com, card "
                                "4111111111111111.",
               "expected_answer": f"{i} euros", "retrieved_context": [f"Fee {i} is {i} euros."],
               "relevant_context": ["Something else entirely."]}
        if labels:
            row["labels"] = {"correct": i % 3 != 0}
        rows.append(row)
    (folder / "suite.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows),
                                        encoding="utf-8")


def _plan(folder: Path, checks: str, run: str = "", labels: str = "") -> Path:
    path = folder / "plan.toml"
    path.write_text(
        '[run]\nsuite = "suite.jsonl"\nevaluators = ["token_f1", "retrieval", "pii_leakage"]\n'
        + run + labels + checks,
        encoding="utf-8",
    )
    return path


def _assess(plan: Path) -> Result:
    return CliRunner().invoke(cli, ["assess", str(plan), "--out", str(plan.parent / "out")])


HIT = '[[check]]\ndimension = "retrieval"\nname = "hit"\nmetrics = ["hit_at_k"]\n'


def test_a_check_threshold_outside_the_range_is_refused(tmp_path: Path) -> None:
    _suite(tmp_path)
    plan = _plan(tmp_path, HIT + "threshold = -1\nmin_pass_rate = 0.5\n")
    for result in (_assess(plan), CliRunner().invoke(cli, ["validate", str(plan)])):
        assert result.exit_code != 0
        assert isinstance(result.exception, Exception)
        message = str(result.exception)
        assert f"{plan}:8" in message and "threshold" in message and "[0, 1]" in message
    assert not (tmp_path / "out" / "run").exists()  # refused before anything ran


def test_a_run_threshold_outside_the_range_is_refused(tmp_path: Path) -> None:
    _suite(tmp_path)
    plan = _plan(tmp_path, HIT + "min_pass_rate = 0.5\n", run="thresholds.hit_at_k = -3\n")
    result = _assess(plan)
    assert result.exit_code != 0
    assert f"{plan}:4: run.thresholds.hit_at_k: -3 is outside" in str(result.exception)


def test_a_leak_threshold_of_five_is_refused(tmp_path: Path) -> None:
    _suite(tmp_path)
    plan = _plan(tmp_path, '[[check]]\ndimension = "risk"\nname = "no leak"\n'
                           'metrics = ["pii_generation_leak"]\nthreshold = 5\nmax_fail_rate = 0\n')
    result = _assess(plan)
    assert result.exit_code != 0 and "outside the range of pii_generation_leak" in str(
        result.exception)


def test_an_unknown_metric_is_refused_before_the_evaluation(tmp_path: Path) -> None:
    _suite(tmp_path)
    plan = _plan(tmp_path, '[[check]]\ndimension = "qa"\nname = "f1"\n'
                           'metrics = ["token_f1", "token_f2"]\nthreshold = 0.5\n'
                           'min_pass_rate = 0.5\n')
    result = _assess(plan)
    assert result.exit_code != 0
    assert "'token_f2' is not a metric" in str(result.exception)
    assert f"{plan}:7" in str(result.exception)
    assert not (tmp_path / "out" / "run").exists()


QA = ('[[check]]\ndimension = "qa"\nname = "correct"\nmetrics = ["token_f1"]\n'
      'label = "correct"\nmin_pass_rate = 0.5\n')


def test_a_mistyped_label_criterion_is_refused(tmp_path: Path) -> None:
    _suite(tmp_path)
    plan = _plan(tmp_path, QA + '[[check]]\ndimension = "qa"\nname = "typo"\n'
                               'metrics = ["token_f1"]\nlabel = "correctness"\n'
                               'min_pass_rate = 0.5\n')
    result = _assess(plan)
    assert result.exit_code != 0
    message = str(result.exception)
    assert "no source of the plan knows criterion 'correctness'" in message
    assert "did you mean correct" in message
    assert f"{plan}:14" in message


def _labels_file(folder: Path, ids: list[str]) -> None:
    lines = ["id,model,correct"] + [f"{i},bot,1" for i in ids]
    (folder / "labels.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_label_rows_matching_no_case_are_an_error(tmp_path: Path) -> None:
    _suite(tmp_path, labels=False)
    _labels_file(tmp_path, [f"q{i}" for i in range(5)] + [f"other{i}" for i in range(5)])
    plan = _plan(tmp_path, QA, labels='[labels]\nsource = "labels.csv"\n')
    result = _assess(plan)
    assert result.exit_code != 0
    message = str(result.exception)
    assert "5 of 10 labelled (case, model) pairs match no case" in message
    assert "'other0' (model 'bot')" in message


def test_a_few_unmatched_label_rows_are_shown_not_refused(tmp_path: Path) -> None:
    _suite(tmp_path, labels=False)
    rows = "id,model,correct\n" + "".join(f"q{i},bot,1\n" for i in range(N))
    (tmp_path / "labels.csv").write_text(rows + "stray,bot,0\n", encoding="utf-8")
    plan = _plan(tmp_path, QA, labels='[labels]\nsource = "labels.csv"\n')
    result = CliRunner().invoke(cli, ["validate", str(plan)])
    assert result.exit_code != 0  # 1 of 11 is above the 5 % tolerance
    assert "1 of 11 labelled (case, model) pairs match no case" in str(result.exception)
    many = "".join(f"q{i},bot,1\n" for i in range(N, 30))  # cases q10..q29 exist now
    _suite_rows = [json.dumps({"id": f"q{i}", "model": "bot", "question": "Fee?",
                               "actual_answer": "1", "expected_answer": "1"}) for i in range(30)]
    (tmp_path / "suite.jsonl").write_text("\n".join(_suite_rows) + "\n", encoding="utf-8")
    (tmp_path / "labels.csv").write_text(rows + many + "stray,bot,0\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(plan)])
    assert result.exit_code == 0, result.output
    assert "1 of 31 labelled (case, model) pairs match no case" in result.stderr
    assert "'stray' (model 'bot')" in result.stderr


def test_evaluate_refuses_a_threshold_outside_the_range(tmp_path: Path) -> None:
    _suite(tmp_path)
    result = CliRunner().invoke(cli, ["evaluate", str(tmp_path / "suite.jsonl"), "-e",
                                      "retrieval", "--threshold", "hit_at_k=-3", "--out",
                                      str(tmp_path / "run")])
    assert result.exit_code != 0
    assert "Threshold -3 for 'hit_at_k' is outside the metric's range [0, 1]" in str(
        result.exception)
    assert not (tmp_path / "run").exists()


def test_a_known_criterion_not_labelled_yet_is_a_note(tmp_path: Path) -> None:
    _suite(tmp_path, labels=False)
    rows = "id,model,correct,grounded\n" + "".join(f"q{i},bot,1,\n" for i in range(N))
    (tmp_path / "labels.csv").write_text(rows, encoding="utf-8")
    grounded = QA.replace('name = "correct"', 'name = "grounded"').replace(
        'label = "correct"', 'label = "grounded"')
    plan = _plan(tmp_path, QA + grounded, labels='[labels]\nsource = "labels.csv"\n')
    result = CliRunner().invoke(cli, ["validate", str(plan)])
    assert result.exit_code == 0, result.output
    assert "criterion 'grounded' has no label yet" in result.stderr


def test_the_suite_as_an_assessment_reads_it_checks_labels_as_its_cases(tmp_path: Path) -> None:
    """:class:`SuiteCases` (the case table and the labelled cases, streamed) gives the notes and
    the label evidence that the list of every case gives, a label on a sampled id included."""
    from assay.data import read_suite
    from assay.verdict.labels import label_evidence
    from assay.verdict.plan import load_plan
    from assay.verdict.preflight import check_labels
    from assay.verdict.suite_cases import SuiteCases

    _suite(tmp_path)
    samples = [json.dumps({"id": f"p~{k}", "model": "bot", "sample_of": "p", "sample": k,
                           "question": "Fee?", "actual_answer": "1"}) for k in (1, 2)]  # fmt: skip
    with (tmp_path / "suite.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("\n".join(samples) + "\n")
    _labels_file(tmp_path, [f"q{i}" for i in range(N)] + ["p"])  # 'p': its samples
    labels = '[labels]\nsource = ["suite", "labels.csv"]\n'
    plan = load_plan(_plan(tmp_path, QA, labels=labels))
    cases = list(read_suite(plan.suite_path).cases)
    streamed = SuiteCases(plan.suite_path, ["correct"])
    assert len(list(streamed)) == N  # the suite's labelled rows
    assert check_labels(plan, cases, None) == check_labels(plan, streamed, None) == []
    assert label_evidence(plan, streamed, None) == label_evidence(plan, cases, None)
    _labels_file(tmp_path, [f"q{i}" for i in range(N)] + ["p", "stray"])
    messages = []
    for given in (cases, streamed):
        with pytest.raises(InvalidInputError) as refused:
            check_labels(plan, given, None)
        messages.append(str(refused.value))
    assert messages[0] == messages[1]
    assert "1 of 12 labelled (case, model) pairs match no case" in messages[0]


def test_the_review_queue_read_trusts_the_keys_the_first_read_checked(tmp_path: Path) -> None:
    """The first read of a suite names a repeated key; the review queue's read of the same suite
    (``keys_unique``) keeps no registry of keys (~200 MB at a million cases) and so names none."""
    from assay.verdict.suite_cases import SuiteCases, each_case

    suite = tmp_path / "suite.jsonl"
    rows = [{"id": "q1", "question": "a?", "answer": "b"}] * 2
    suite.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    with pytest.raises(InvalidInputError, match="q1"):
        SuiteCases(suite, [])
    with pytest.raises(InvalidInputError, match="q1"):
        list(each_case(suite))
    assert [case.id for case in each_case(suite, keys_unique=True)] == ["q1", "q1"]
