"""Through the CLI: robustness counts only cases whose original passes; FAIL→FAIL never PASSes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from assay.cli.main import cli

_PLAN = """
[run]
suite = "suite.jsonl"
evaluators = ["perturbation_robustness"]
[labels]
source = "none"
[[check]]
dimension = "robustness"
name = "passes kept"
metrics = ["{metric}"]
scope = "perturbed"
min_pass_rate = 0.5
confidence = 0.8
"""


def _suite(tmp_path: Path, answer: str) -> None:
    rows = []
    for i in range(12):
        expected = f"The fee is {i} euros a month."
        rows.append(
            {
                "id": f"q{i}",
                "model": "m",
                "question": f"Fee {i}?",
                "expected_answer": expected,
                "actual_answer": answer or expected,
            }
        )
        for kind in ("typos", "casing"):
            rows.append({"id": f"q{i}~{kind}", "parent_id": f"q{i}", "perturbation": kind,
                         "model": "m", "question": f"FEE {i}?", "expected_answer": expected,
                         "actual_answer": answer or expected})  # fmt: skip
    (tmp_path / "suite.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")


def _decide(tmp_path: Path, metric: str) -> dict:  # type: ignore[type-arg]
    plan = tmp_path / f"{metric}.toml"
    plan.write_text(_PLAN.format(metric=metric), encoding="utf-8")
    out = tmp_path / metric
    result = CliRunner().invoke(cli, ["assess", str(plan), "--out", str(out)])
    assert result.exit_code in (0, 1, 3), result.output
    verdict = json.loads((out / "verdict.json").read_text(encoding="utf-8"))
    (check,) = verdict["checks"]
    return check


def test_a_system_failing_everything_is_not_robust(tmp_path: Path) -> None:
    _suite(tmp_path, "I do not know.")
    old = _decide(tmp_path, "robust_unchanged")
    assert old["decision"] == "PASS"  # the hollow reading: failing twice is 'unchanged'
    new = _decide(tmp_path, "robust_pass_kept")
    assert new["decision"] != "PASS" and new["n_cases"] == 0


def test_a_system_that_keeps_its_passes_is_robust(tmp_path: Path) -> None:
    _suite(tmp_path, "")
    check = _decide(tmp_path, "robust_pass_kept")
    assert check["decision"] == "PASS" and check["n_cases"] == 24
