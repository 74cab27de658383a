"""Validation plans: validated TOML whose errors name the key and its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import InvalidInputError
from assay.verdict.plan import load_plan, parse_plan

GOOD = """
title = "t"
[run]
suite = "suite.jsonl"
evaluators = ["token_f1"]

[[check]]
dimension = "qa"
name = "correct answers"
label = "correct"
metrics = ["token_f1"]
min_pass_rate = 0.95

[[check]]
dimension = "hallucination"
name = "grounded"
metrics = ["facts_support"]
max_fail_rate = 0.02
confidence = 0.95
"""


def test_a_good_plan_parses_with_defaults(tmp_path: Path) -> None:
    path = tmp_path / "plan.toml"
    path.write_text(GOOD, encoding="utf-8")
    plan = load_plan(path)
    assert plan.suite_path == tmp_path / "suite.jsonl"
    assert plan.labels.source == "suite" and plan.calibration.method == "isotonic"
    assert [c.appetite() for c in plan.check] == [
        "pass rate ≥ 95.0% at 95%",
        "fail rate ≤ 2.0% at 95%",
    ]
    assert plan.check[1].target == pytest.approx(0.98)


def test_errors_name_the_key_and_its_line() -> None:
    bad = GOOD.replace("max_fail_rate = 0.02", "max_fail_rate = 2")
    with pytest.raises(InvalidInputError) as err:
        parse_plan(bad, "plan.toml")
    line = bad.splitlines().index("max_fail_rate = 2") + 1
    assert f"plan.toml:{line}: check.1.max_fail_rate" in str(err.value)


def test_unknown_keys_and_missing_limits_are_refused() -> None:
    with pytest.raises(InvalidInputError, match=r"check\.0\.min_pass_rat"):
        parse_plan(GOOD.replace("min_pass_rate = 0.95", "min_pass_rat = 0.95"), "p")
    with pytest.raises(InvalidInputError, match="exactly one of"):
        parse_plan(GOOD.replace("min_pass_rate = 0.95", ""), "p")
    with pytest.raises(InvalidInputError, match="'dimension' must be one of"):
        parse_plan(GOOD.replace('dimension = "qa"', 'dimension = "vibes"'), "p")


def test_invalid_toml_and_missing_file_are_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"p\.toml: not valid TOML"):
        parse_plan("[run\n", "p.toml")
    with pytest.raises(InvalidInputError, match="cannot read the validation plan"):
        load_plan(tmp_path / "absent.toml")
