"""The one KEY=VALUE parser of the CLI: JSON values with commas stay whole."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from assay.cli.main import cli
from assay.cli.options import parse_assignments, parse_params, split_assignments
from assay.cli.perturb import parse_spec


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("a=1", ["a=1"]),
        ("a=1,b=2", ["a=1", "b=2"]),
        ("weights=[0.5,0.5]", ["weights=[0.5,0.5]"]),
        ('judge={"model": "m", "seed": 1},n=2', ['judge={"model": "m", "seed": 1}', "n=2"]),
        ('x="a,b=c",y=[{"k": [1,2]}]', ['x="a,b=c"', 'y=[{"k": [1,2]}]']),
        ('x="quote \\" ,y=1"', ['x="quote \\" ,y=1"']),
        ("types=rouge1,rouge2,n=3", ["types=rouge1,rouge2", "n=3"]),
        (" a=1, b=2 ", ["a=1", "b=2"]),
    ],
)
def test_split_keeps_json_values_whole(text: str, items: list[str]) -> None:
    assert split_assignments(text) == items


def test_params_parse_json_values_and_name_bad_items() -> None:
    params = parse_params(("emb_answer_relevancy_weighted.weights=[0.5,0.5],rouge.n=2",))
    assert params == {"emb_answer_relevancy_weighted": {"weights": [0.5, 0.5]}, "rouge": {"n": 2}}
    assert parse_spec("distractors:kind=contradictory,n=2") == (
        "distractors", {"kind": "contradictory", "n": 2})
    with pytest.raises(click.BadParameter, match="expected KEY=VALUE"):
        parse_assignments(("=1",), "--param")
    with pytest.raises(click.BadParameter, match="NAME:KEY=VALUE"):
        parse_spec("typos:rate")


def test_a_json_list_param_reaches_the_evaluator_from_the_cli(tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl"
    suite.write_text(json.dumps({"id": "q1", "question": "What is the fee?",
                                 "actual_answer": "The fee is 5 euros. It is monthly."}) + "\n",
                     encoding="utf-8")
    out = tmp_path / "run"
    result = CliRunner().invoke(cli, [
        "evaluate", str(suite), "-e", "emb_answer_relevancy", "--out", str(out), "--param",
        "emb_answer_relevancy.embedder=fake,emb_answer_relevancy.weights=[0.25,0.75]"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    [spec] = manifest["evaluators"]
    assert spec["params"] == {"embedder": "fake", "weights": [0.25, 0.75]}
