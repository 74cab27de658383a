"""``assay judge-estimate``: a dry run prints calls, tokens and cost and sends nothing."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from assay.cli.main import cli
from assay.data.suite import write_suite
from assay.testing import sample_cases


def test_judge_estimate_prices_a_run_without_sending(tmp_path: Path) -> None:
    suite = write_suite(sample_cases(), tmp_path / "suite.jsonl")
    runner = CliRunner()
    result = runner.invoke(cli, ["judge-estimate", str(suite), "-e",
                                 "judge_qa_accuracy,judge_faithfulness,exact_match",
                                 "--judge", "openai:gpt-4o-mini", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    n = len(sample_cases())
    assert data["per_evaluator"]["judge_qa_accuracy"]["calls"] == n
    assert data["per_evaluator"]["judge_faithfulness"]["calls"] == 2 * n
    assert "exact_match" not in data["per_evaluator"]
    assert data["calls"] == 3 * n and data["cost_usd"] > 0 and data["models"] == ["gpt-4o-mini"]
    text = runner.invoke(cli, ["judge-estimate", str(suite), "-e", "judge_sexism",
                               "--judge", "ollama:llama3.1"])
    assert text.exit_code == 0 and "cost unknown" in text.output
