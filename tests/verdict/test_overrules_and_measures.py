"""Through the CLI: a reviewer's overrule of a rule verdict, and decisions saying what they
measure (retrieval matched by document; the run's reason for unmeasured cases)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

from assay.cli.main import cli
from assay.errors import InvalidInputError

_PLAN = """
title = "overrules"
[run]
suite = "suite.jsonl"
evaluators = ["pii_leakage", "retrieval", "token_f1"]
{params}
[labels]
source = "suite"
[[check]]
dimension = "risk"
name = "no PII leak"
metrics = ["pii_generation_leak"]
max_fail_rate = 0.0
[[check]]
dimension = "retrieval"
name = "relevant chunk retrieved"
metrics = ["hit_at_k"]
threshold = 1.0
min_pass_rate = 0.5
confidence = 0.8
[[check]]
dimension = "qa"
name = "correct answers"
label = "correct"
metrics = ["token_f1"]
min_pass_rate = 0.5
confidence = 0.8
"""


def _write(tmp_path: Path, params: str = "") -> Path:
    rows = []
    for i in range(6):
        answer = "Write to support@example.com for a refund." if i == 0 else f"It is {i} euros."
        rows.append({
            "id": f"q{i}", "model": "m", "question": f"What is fee {i}?",
            "expected_answer": f"It is {i} euros.", "actual_answer": answer,
            "context_ids": [f"fees.md::{i}"], "relevant_ids": {f"fees.md#{i + 1}": 1},
            "labels": {"correct": int(i % 2 == 0)},
        })  # fmt: skip
    (tmp_path / "suite.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    plan = tmp_path / "plan.toml"
    plan.write_text(_PLAN.format(params=params), encoding="utf-8")
    return plan


def _decision(out: Path, check: str) -> dict:  # type: ignore[type-arg]
    verdict = json.loads((out / "verdict.json").read_text(encoding="utf-8"))
    return next(c for c in verdict["checks"] if c["check"] == check)


def test_a_reviewer_overrules_a_rule_verdict_and_the_verdict_reports_it(tmp_path: Path) -> None:
    plan, out, runner = _write(tmp_path), tmp_path / "a", CliRunner()
    first = runner.invoke(cli, ["assess", str(plan), "--out", str(out)])
    assert first.exit_code == 1, first.output
    assert _decision(out, "no PII leak")["decision"] == "FAIL"
    args = ["review", "overrule", str(out), "--check", "no PII leak", "--case", "q0", "--model",
            "m", "--verdict", "pass", "--by", "Ana Reviewer", "--reason",
            "support@example.com is the bank's published address"]  # fmt: skip
    recorded = runner.invoke(cli, args)
    assert recorded.exit_code == 0, recorded.output
    line = json.loads((out / "overrules.jsonl").read_text(encoding="utf-8"))
    assert line["by"] == "Ana Reviewer" and line["verdict"] == "PASS" and line["at"]
    again = runner.invoke(cli, ["assess", str(plan), "--out", str(out)])
    assert again.exit_code in (0, 3), again.output
    risk = _decision(out, "no PII leak")
    assert risk["decision"] == "PASS" and "overruled by a reviewer" in risk["reason"]
    verdict = json.loads((out / "verdict.json").read_text(encoding="utf-8"))
    (record,) = verdict["overrules"]
    assert record["rule_verdict"] == "FAIL" and record["verdict"] == "PASS"
    assert record["by"] == "Ana Reviewer" and "published address" in record["reason"]
    markdown = (out / "verdict.md").read_text(encoding="utf-8")
    assert "## Overrules" in markdown and "Ana Reviewer" in markdown
    assert "Overrules" in (out / "verdict.html").read_text(encoding="utf-8")
    cases = pd.read_csv(out / "verdict_cases.csv")
    row = cases[(cases["check"] == "no PII leak") & (cases["case_id"] == "q0")].iloc[0]
    assert row["source"] == "reviewer" and row["rule_verdict"] == "FAIL"


def test_overrules_refuse_labelled_checks_and_unknown_cases(tmp_path: Path) -> None:
    plan, out, runner = _write(tmp_path), tmp_path / "a", CliRunner()
    runner.invoke(cli, ["assess", str(plan), "--out", str(out)])
    base = ["review", "overrule", str(out), "--model", "m", "--verdict", "PASS", "--by", "Ana",
            "--reason", "read it"]  # fmt: skip
    labelled = runner.invoke(cli, [*base, "--check", "correct answers", "--case", "q1"])
    assert isinstance(labelled.exception, InvalidInputError)  # `assay` exits 2 with the message
    assert "rule-based checks only" in str(labelled.exception)
    assert "human label" in str(labelled.exception)
    unknown = runner.invoke(cli, [*base, "--check", "no PII leak", "--case", "nope"])
    assert isinstance(unknown.exception, InvalidInputError)
    assert "no case 'nope'" in str(unknown.exception)
    assert not (out / "overrules.jsonl").exists()


def test_unmeasured_checks_carry_the_runs_reason_and_document_matching_is_named(
    tmp_path: Path,
) -> None:
    plan, out, runner = _write(tmp_path), tmp_path / "a", CliRunner()
    runner.invoke(cli, ["assess", str(plan), "--out", str(out)])
    retrieval = _decision(out, "relevant chunk retrieved")
    assert retrieval["decision"] == "INCONCLUSIVE" and retrieval["n_unmeasured"] == 6
    assert "the run says: disjoint id spaces" in retrieval["reason"]
    assert "id_match=document" in retrieval["reason"]  # the run's own advice, carried over
    assert "disjoint id spaces" in (out / "verdict.md").read_text(encoding="utf-8")
    plan = _write(tmp_path, 'params.retrieval = { id_match = "document" }')
    by_document = runner.invoke(cli, ["assess", str(plan), "--out", str(tmp_path / "b")])
    assert by_document.exit_code in (0, 1, 3), by_document.output
    retrieval = _decision(tmp_path / "b", "relevant chunk retrieved")
    assert retrieval["n_unmeasured"] == 0
    assert "a chunk of the same document as a relevant chunk" in retrieval["reason"]
