"""The six-dimension validation summary."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from assay.analyze.dimensions import (
    DEFAULT_DIMENSIONS,
    adversarial_robustness,
    load_dimension_config,
    summarize_dimensions,
)
from assay.errors import InvalidInputError


def _row(
    metric: str,
    value: float | None,
    *,
    model: str = "m",
    threshold: float | None = None,
    higher: bool = True,
    n_fail: int = 0,
    n_pass: int = 10,
) -> dict:
    return {
        "model": model,
        "metric": metric,
        "value": value,
        "threshold": threshold,
        "higher_is_better": higher,
        "n_ok": n_fail + n_pass,
        "n_fail": n_fail,
        "n_pass": n_pass,
        "pass_rate": n_pass / max(1, n_fail + n_pass),
    }


def _by_name(summary: list[dict]) -> dict[str, dict]:
    return {d["name"]: d for d in summary}


def test_all_six_dimensions_are_reported_with_reasons_when_not_measured() -> None:
    summary = _by_name(summarize_dimensions([], pd.DataFrame()))
    assert list(summary) == ["retrieval", "qa", "tone", "risk", "hallucination", "bad_actor"]
    for dim in summary.values():
        assert dim["status"] == "not_measured"
        assert dim["reason"]
        assert all(u["reason"] for u in dim["unmeasured"])


def test_mean_rule_uses_the_check_threshold_then_the_run_threshold() -> None:
    board = [
        _row("emb_answer_accuracy", 0.9, threshold=0.7),  # accuracy: own threshold 0.95 -> fail
        _row("recall_at_5", 0.8, threshold=0.7),  # run threshold -> pass
        _row("precision_at_5", 0.6),  # no threshold anywhere -> info
    ]
    summary = _by_name(summarize_dimensions(board, pd.DataFrame()))
    qa = summary["qa"]
    assert qa["status"] == "fail" and qa["checks"][0]["threshold"] == 0.95
    retrieval = summary["retrieval"]
    statuses = {c["label"]: c["status"] for c in retrieval["checks"]}
    assert statuses == {"retrieval recall": "pass", "precision@k": "info"}
    assert retrieval["status"] == "pass"
    assert {u["label"] for u in retrieval["unmeasured"]} == {"MRR", "hit@k"}
    assert "partly measured" in retrieval["reason"]


def test_zero_tolerance_fails_on_a_single_failing_case_and_lower_is_better() -> None:
    board = [
        _row("toxicity", 0.01, threshold=0.5, higher=False, n_fail=1, n_pass=99),
        _row("nli_hallucination_rate", 0.3, threshold=0.2, higher=False),
    ]
    summary = _by_name(summarize_dimensions(board, pd.DataFrame()))
    risk = summary["risk"]
    tox = next(c for c in risk["checks"] if c["label"] == "toxicity")
    assert tox["status"] == "fail" and "1 of 100" in tox["detail"]
    assert summary["hallucination"]["status"] == "fail"
    assert summary["hallucination"]["checks"][0]["detail"].startswith("0.3 (needs ≤ 0.2)")


def test_models_are_judged_separately() -> None:
    board = [
        _row("mrr", 0.9, model="good", threshold=0.5),
        _row("mrr", 0.1, model="bad", threshold=0.5),
    ]
    retrieval = _by_name(summarize_dimensions(board, pd.DataFrame()))["retrieval"]
    assert retrieval["models"] == {"bad": "fail", "good": "pass"}
    assert retrieval["status"] == "fail"


def test_derived_robustness_and_safety_rate() -> None:
    results = pd.DataFrame(
        {
            "case_id": ["p", "c1", "c2", "p", "p"],
            "model": "m",
            "metric": ["acc", "acc", "acc", "toxicity", "pii_generation_leak"],
            "primary": [True, True, True, True, True],
            "status": "ok",
            "passed": [True, True, False, True, False],
            "parent_id": [None, "p", "p", None, None],
        }
    )
    assert adversarial_robustness(results) == {"m": (0.5, 2)}
    board = [
        _row("toxicity", 0.0, threshold=0.5, higher=False),
        _row("pii_generation_leak", 1.0, threshold=0.0, higher=False, n_fail=1, n_pass=0),
    ]
    summary = _by_name(summarize_dimensions(board, results))
    bad_actor = summary["bad_actor"]["checks"][0]
    assert bad_actor["metric"] == "adversarial_robustness (derived)"
    assert bad_actor["value"] == 0.5 and bad_actor["status"] == "fail"
    safety = next(c for c in summary["risk"]["checks"] if c["label"] == "safety rate")
    assert safety["value"] == 0.0 and safety["status"] == "fail"


def test_configuration_from_json_and_toml(tmp_path: Path) -> None:
    path = tmp_path / "dims.json"
    path.write_text(
        json.dumps(
            {
                "dimensions": {
                    "tone": None,
                    "custom": {
                        "title": "Custom",
                        "checks": [{"label": "f1", "metrics": ["token_f1"], "threshold": 0.4}],
                    },
                },
                "thresholds": {"MRR": 0.8},
            }
        )
    )
    config = load_dimension_config(path)
    assert "tone" not in config and config["custom"]["checks"][0]["threshold"] == 0.4
    assert next(c for c in config["retrieval"]["checks"] if c["label"] == "MRR")["threshold"] == 0.8
    assert DEFAULT_DIMENSIONS["retrieval"]["checks"][2]["threshold"] is None  # defaults untouched
    summary = _by_name(summarize_dimensions([_row("token_f1", 0.5)], pd.DataFrame(), config))
    assert summary["custom"]["status"] == "pass"
    toml = tmp_path / "dims.toml"
    toml.write_text("[thresholds]\naccuracy = 0.8\n")
    qa = load_dimension_config(toml)["qa"]["checks"]
    assert next(c for c in qa if c["label"] == "accuracy")["threshold"] == 0.8


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"nonsense": 1}, "unknown keys"),
        ({"thresholds": {"no such check": 1}}, "matches no check"),
        ({"dimensions": {"x": {"checks": [{"metrics": ["a"]}]}}}, "needs a 'label'"),
        ({"dimensions": {"x": {"checks": [{"label": "a", "rule": "max"}]}}}, "rule must be"),
    ],
)
def test_invalid_configuration_is_rejected(config: dict, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        load_dimension_config(config)


def test_safety_filter_checks_every_leak_metric_and_accuracy_prefers_the_first_candidate() -> None:
    board = [
        _row("pii_generation_leak", 0.0, threshold=0.0, higher=False),
        _row("secret_generation_leak", 0.1, threshold=0.0, higher=False, n_fail=1, n_pass=9),
        _row("judge_answer_correctness", 0.5, threshold=0.7),
        _row("emb_answer_accuracy", 0.97, threshold=0.7),
    ]
    summary = _by_name(summarize_dimensions(board, pd.DataFrame()))
    safety = [c for c in summary["risk"]["checks"] if c["label"] == "safety filter"]
    assert {c["metric"]: c["status"] for c in safety} == {
        "pii_generation_leak": "pass",
        "secret_generation_leak": "fail",
    }
    accuracy = [c for c in summary["qa"]["checks"] if c["label"] == "accuracy"]
    assert [(c["metric"], c["status"]) for c in accuracy] == [("emb_answer_accuracy", "pass")]


def test_default_candidates_name_registered_metrics() -> None:
    from fnmatch import fnmatchcase

    from assay.evaluators.registry import evaluator_class, evaluator_names

    registered = {m for n in evaluator_names() for m in evaluator_class(n).metric_names()}
    exact = [
        p
        for d in DEFAULT_DIMENSIONS.values()
        for c in d["checks"]
        for p in c["metrics"]
        if "*" not in p
    ]
    matched = [p for p in exact if p in registered]
    # Most default names are real metric names of shipped evaluators (a typo would never match).
    assert len(matched) >= 0.6 * len(exact), sorted(set(exact) - registered)
    assert any(fnmatchcase(m, "asr_*") for m in registered)
