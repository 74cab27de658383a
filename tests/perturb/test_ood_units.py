"""An out-of-scope question is one unit: asked once by ``assay perturb``, counted once by the
verdict even in a suite that repeats it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from assay.cli.main import cli
from assay.data import TestCase, read_suite, write_suite
from assay.perturb import OOD_QUESTIONS


def test_perturb_asks_each_out_of_scope_question_once(tmp_path: Path) -> None:
    parents = [TestCase(id=f"q{i}", question=f"What is fee {i}?") for i in range(26)]
    write_suite(parents, tmp_path / "s.jsonl")
    out = tmp_path / "p.jsonl"
    result = CliRunner().invoke(
        cli, ["perturb", str(tmp_path / "s.jsonl"), "--out", str(out), "-p", "ood",
              "--children-only"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    children = read_suite(out)
    questions = [c.question for c in children]
    assert len(questions) == len(set(questions)) == len(set(OOD_QUESTIONS)) < len(parents)
    assert all(c.labels["expected_behaviour"] == "abstain" for c in children)


_PLAN = """
[run]
suite = "suite.jsonl"
evaluators = ["abstention"]
[labels]
source = "none"
[[check]]
dimension = "bad_actor"
name = "abstains out of scope"
metrics = ["abstained"]
scope = "abstain"
min_pass_rate = 0.5
"""


def test_the_verdict_counts_a_repeated_out_of_scope_question_once(tmp_path: Path) -> None:
    rows = [
        {"id": f"q{i}~ood", "parent_id": f"q{i}", "perturbation": "ood", "model": "m",
         "question": OOD_QUESTIONS[i % 10], "actual_answer": "I can only help with banking.",
         "labels": {"expected_behaviour": "abstain"}}
        for i in range(26)
    ]  # fmt: skip
    (tmp_path / "suite.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    (tmp_path / "plan.toml").write_text(_PLAN, encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["assess", str(tmp_path / "plan.toml"), "--out", str(tmp_path / "a")]
    )
    assert result.exit_code in (0, 1, 3), result.output
    verdict = json.loads((tmp_path / "a" / "verdict.json").read_text(encoding="utf-8"))
    (check,) = verdict["checks"]
    assert check["n_cases"] == 10  # 26 cases, 10 distinct questions
