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


def test_the_run_executor_and_its_ray_options() -> None:
    from assay.verdict.assess import _run_fingerprint

    ray = GOOD.replace(
        'evaluators = ["token_f1"]\n',
        'evaluators = ["token_f1"]\nexecutor = "ray"\n[run.ray]\naddress = "auto"\nworkers = 4\n',
    )
    plan = parse_plan(ray, "p")
    assert plan.run.executor == "ray"
    assert plan.run.ray.executor_options() == {
        "address": "auto", "num_workers": 4, "num_cpus": 1.0, "num_gpus": 0.0,
    }  # fmt: skip
    local = parse_plan(GOOD, "p")
    assert local.run.executor == "local" and local.run.ray.address is None
    # where the run is evaluated is not one of its inputs: a complete run serves both
    assert _run_fingerprint(plan, "sha") == _run_fingerprint(local, "sha")
    with pytest.raises(InvalidInputError, match=r"p:\d+: run\.ray\.adress"):
        parse_plan(ray.replace("address =", "adress ="), "p")
    with pytest.raises(InvalidInputError, match=r"run\.executor"):
        parse_plan(ray.replace('executor = "ray"', 'executor = "dask"'), "p")
    with pytest.raises(InvalidInputError, match=r"run\.ray\.workers"):
        parse_plan(ray.replace("workers = 4", "workers = 0"), "p")
