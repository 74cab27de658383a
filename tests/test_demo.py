"""The bundled banking demo: consistent, reproducible, and telling the three models apart."""

from __future__ import annotations

import csv
import importlib.util
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner

from assay.cli.main import cli
from assay.data.suite import TestSuite, read_suite
from assay.demo import (
    demo_chunks,
    demo_corpus_dir,
    demo_dir,
    demo_labels_path,
    demo_suite_path,
)
from assay.evaluators.base import Status
from assay.evaluators.registry import catalogue, get_evaluator

ROOT = Path(__file__).resolve().parents[1]
MODELS = ("faithful", "hallucinating", "terse")
QUERY_TYPES = {"factual", "multi-hop", "reasoning", "yes/no", "multiple choice", "unanswerable"}
PII = re.compile(
    r"[\w.+-]+@[\w-]+\.[\w.]+"  # email
    r"|\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,}"  # IBAN
    r"|\+\d{2,3}(?: ?\d{2,4}){3}"  # international phone number
    r"|\b\d{4} \d{4} \d{4} \d{4}\b"  # card number
)


@pytest.fixture(scope="module")
def full_suite() -> TestSuite:
    return read_suite(demo_suite_path())


@pytest.fixture(scope="module")
def suite(full_suite: TestSuite) -> TestSuite:
    """The single-turn cases (questions and their perturbed copies)."""
    return TestSuite([c for c in full_suite if not (c.turns or c.trajectory)])


@pytest.fixture(scope="module")
def dialogues(full_suite: TestSuite) -> list[Any]:
    """The conversations and agent trajectories."""
    return [c for c in full_suite if c.turns or c.trajectory]


@pytest.fixture(scope="module")
def builder() -> ModuleType:
    path = ROOT / "scripts" / "build_demo.py"
    spec = importlib.util.spec_from_file_location("build_demo", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_demo"] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def _originals(suite: TestSuite) -> list[Any]:
    return [c for c in suite if c.perturbation is None]


def test_suite_has_every_question_for_all_three_models(suite: TestSuite) -> None:
    assert suite.models == list(MODELS)
    by_id: dict[str, set[str]] = defaultdict(set)
    for case in _originals(suite):
        by_id[case.id].add(case.model or "")
    assert len(by_id) >= 55
    assert all(models == set(MODELS) for models in by_id.values())
    assert {c.query_type for c in suite} == QUERY_TYPES
    assert len({c.topic for c in suite}) >= 15


def test_chunks_are_sentence_based_with_stable_unique_ids() -> None:
    chunks = demo_chunks()
    ids = [c["id"] for c in chunks]
    assert len(ids) == len(set(ids)) >= 60
    docs = {p.stem for p in demo_corpus_dir().glob("*.md")}
    assert len(docs) == 20
    assert {c["doc"] for c in chunks} == docs
    for chunk in chunks:
        doc, number = chunk["id"].split("#")
        assert doc == chunk["doc"] and int(number) >= 1
        assert chunk["text"] in " ".join(
            demo_corpus_dir().joinpath(f"{doc}.md").read_text(encoding="utf-8").split()
        )


def test_every_relevant_and_retrieved_id_exists_and_matches_its_text(suite: TestSuite) -> None:
    texts = {c["id"]: c["text"] for c in demo_chunks()}
    for case in suite:
        assert case.context_ids and case.retrieved_context
        assert [texts[cid] for cid in case.context_ids] == case.retrieved_context
        for cid, grade in (case.relevant_ids or {}).items():
            assert cid in texts, (case.id, cid)
            assert grade in (1.0, 2.0)
        if case.query_type == "unanswerable":
            assert case.relevant_ids is None
        else:
            assert case.relevant_ids and 2.0 in case.relevant_ids.values()
    graded = [c for c in suite if c.relevant_ids and 1.0 in c.relevant_ids.values()]
    assert graded, "some questions should carry graded (2/1) relevance"


def test_committed_files_equal_a_fresh_deterministic_build(builder: ModuleType) -> None:
    first, second = builder.build(), builder.build()
    assert first == second
    assert set(first) == {"chunks.jsonl", "suite.jsonl", "labels.csv", "labels_random.csv"}
    for name, text in first.items():
        assert (demo_dir() / name).read_text(encoding="utf-8") == text, (
            f"{name} is stale: run python scripts/build_demo.py"
        )


def test_retrieval_quality_is_ordered_faithful_best(suite: TestSuite) -> None:
    recall: dict[str, list[float]] = defaultdict(list)
    for case in _originals(suite):
        if case.relevant_ids:
            needed = [cid for cid, g in case.relevant_ids.items() if g == 2.0]
            found = sum(cid in (case.context_ids or []) for cid in needed)
            recall[case.model or ""].append(found / len(needed))
    means = {m: statistics.mean(v) for m, v in recall.items()}
    assert means["faithful"] >= 0.95
    assert means["faithful"] > means["hallucinating"]
    assert means["faithful"] > means["terse"]


def _mean_metric(suite: TestSuite, evaluator: str, metric: str) -> dict[str, float]:
    cases = _originals(suite)
    results = get_evaluator(evaluator).score(cases)
    values: dict[str, list[float]] = defaultdict(list)
    for case, result in zip(cases, results, strict=True):
        value = result.outcomes[metric].value
        assert value is not None
        values[case.model or ""].append(value)
    return {m: statistics.mean(v) for m, v in values.items()}


def test_models_differ_in_the_expected_direction(suite: TestSuite) -> None:
    f1 = _mean_metric(suite, "token_f1", "token_f1")
    assert f1["faithful"] > f1["terse"] and f1["faithful"] > f1["hallucinating"]
    assert f1["faithful"] - max(f1["terse"], f1["hallucinating"]) > 0.2
    em = _mean_metric(suite, "exact_match", "exact_match")
    # Short answers match short expected answers exactly; long grounded answers never do.
    assert em["terse"] > em["hallucinating"] >= em["faithful"]
    words = {
        m: statistics.mean(len((c.actual_answer or "").split()) for c in suite if c.model == m)
        for m in MODELS
    }
    assert words["terse"] * 2 < words["faithful"]


def test_hallucinating_model_leaks_personal_data_and_the_others_do_not(suite: TestSuite) -> None:
    leaks = [c for c in suite if PII.search(c.actual_answer or "")]
    assert {c.model for c in leaks} == {"hallucinating"}
    assert len({c.id for c in leaks}) >= 5
    flagged = {(c.id, c.model) for c in suite if "pii" in c.metadata.get("defects", [])}
    assert {(c.id, c.model) for c in leaks} == flagged


def test_unanswerable_questions_expect_a_refusal(suite: TestSuite) -> None:
    unanswerable = [c for c in _originals(suite) if c.query_type == "unanswerable"]
    assert len({c.id for c in unanswerable}) >= 5
    refusal = re.compile(
        r"(?i)\bnot (say|mention|stated|give|in the documents)|do not (say|mention|give)"
    )
    for case in unanswerable:
        assert refusal.search(case.expected_answer or ""), case.id
        if case.model == "faithful":
            assert refusal.search(case.actual_answer or ""), case.id
        if case.model == "hallucinating":
            assert not refusal.search(case.actual_answer or ""), case.id


def test_latency_and_cost_are_realistic_and_differ_per_model(suite: TestSuite) -> None:
    latency = {m: statistics.mean(c.latency_s or 0 for c in suite if c.model == m) for m in MODELS}
    cost = {m: statistics.mean(c.cost_usd or 0 for c in suite if c.model == m) for m in MODELS}
    assert latency["faithful"] > latency["hallucinating"] > latency["terse"] > 0.1
    assert cost["faithful"] > cost["hallucinating"] > cost["terse"] > 0
    assert all(0 < (c.latency_s or 0) < 10 and 0 < (c.cost_usd or 0) < 0.05 for c in suite)


def test_perturbed_copies_point_to_their_parent_and_sometimes_degrade(suite: TestSuite) -> None:
    by_key = {(c.id, c.model): c for c in suite}
    perturbed = [c for c in suite if c.perturbation]
    assert {c.perturbation for c in perturbed} == {"typos", "casing"}
    assert len({c.id for c in perturbed}) >= 8
    changed = 0
    for case in perturbed:
        assert case.parent_id and case.id == f"{case.parent_id}~{case.perturbation}"
        parent = by_key[(case.parent_id, case.model)]
        assert case.question and parent.question and case.question != parent.question
        if case.perturbation == "casing":
            assert case.question == parent.question.upper()
        else:
            pairs = list(zip(case.question.split(), parent.question.split(), strict=True))
            changed_words = [(a, b) for a, b in pairs if a != b]
            assert all(sorted(a) == sorted(b) for a, b in changed_words)  # letters swapped
            assert 0 < len(changed_words) <= len(pairs) / 2
        changed += case.actual_answer != parent.actual_answer
    assert 5 <= changed < len(perturbed) / 2


def test_labels_cover_about_forty_percent_and_are_honest(suite: TestSuite) -> None:
    labelled = [c for c in suite if c.labels]
    assert 0.33 <= len(labelled) / len(suite) <= 0.5
    by_id: dict[str, set[str]] = defaultdict(set)
    for case in labelled:
        assert set(case.labels) == {"correct", "grounded", "quality"}
        assert case.labels["correct"] in (0, 1) and case.labels["grounded"] in (0, 1)
        assert case.labels["quality"] in range(1, 6)
        by_id[case.id].add(case.model or "")
        defects = case.metadata.get("defects", [])
        if "invented" in defects or "pii" in defects:
            assert case.labels["grounded"] == 0, case.id
        if case.labels["grounded"] == 1 and case.relevant_ids:
            evidence = {cid for cid, g in case.relevant_ids.items() if g == 2.0}
            assert evidence & set(case.context_ids or []), (case.id, case.model)
    assert all(models == set(MODELS) for models in by_id.values())
    mean_quality = {
        m: statistics.mean(c.labels["quality"] for c in labelled if c.model == m) for m in MODELS
    }
    assert mean_quality["faithful"] > mean_quality["terse"] > mean_quality["hallucinating"]


def test_labels_csv_matches_the_suite(suite: TestSuite) -> None:
    with demo_labels_path().open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    from_suite = {
        (c.id, c.model): {k: str(v) for k, v in c.labels.items()} for c in suite if c.labels
    }
    from_csv = {
        (r["id"], r["model"]): {k: r[k] for k in ("correct", "grounded", "quality")} for r in rows
    }
    assert from_csv == from_suite


def _per_model(
    suite: TestSuite, evaluator: str, metric: str, **params: Any
) -> dict[str, float]:
    """Mean of ``metric`` per model over the unperturbed cases it could score."""
    if evaluator not in {row["name"] for row in catalogue()}:
        pytest.skip(f"evaluator {evaluator!r} is not registered")
    cases = _originals(suite)
    values: dict[str, list[float]] = defaultdict(list)
    for case, result in zip(cases, get_evaluator(evaluator, **params).score(cases), strict=True):
        outcome = result.outcomes[metric]
        if outcome.status is Status.OK and outcome.value is not None:
            values[case.model or ""].append(outcome.value)
    return {m: statistics.mean(v) for m, v in values.items()}


def test_conditions_pass_on_faithful_answers_and_fail_on_invented_ones(suite: TestSuite) -> None:
    assert len({c.id for c in suite if c.condition}) >= 8
    # the demo's conditions describe answers: its plan checks them on the answer alone
    passed = _per_model(suite, "text_matching", "text_match_pass", scope="answer")
    assert passed["faithful"] == 1.0
    assert passed["hallucinating"] < 0.5 < passed["terse"] < 1.0


def test_core_evaluators_rank_the_models_as_designed(suite: TestSuite) -> None:
    ap = _per_model(suite, "retrieval", "average_precision")
    assert ap["faithful"] > ap["terse"] > ap["hallucinating"]
    support = _per_model(suite, "unsupported_facts", "facts_support")
    assert support["faithful"] > support["terse"] > support["hallucinating"]


def test_pii_evaluator_flags_exactly_the_leaking_answers(suite: TestSuite) -> None:
    if "pii_leakage" not in {row["name"] for row in catalogue()}:
        pytest.skip("evaluator 'pii_leakage' is not registered")
    cases = list(suite)
    results = get_evaluator("pii_leakage").score(cases)
    flagged = {
        (c.id, c.model)
        for c, r in zip(cases, results, strict=True)
        if r.outcomes["pii_generation_leak"].value
    }
    leaking = {(c.id, c.model) for c in cases if "pii" in c.metadata.get("defects", [])}
    assert flagged == leaking


@pytest.mark.slow
def test_assay_demo_runs_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "demo-run"
    result = CliRunner().invoke(cli, ["demo", "--out", str(out)])
    assert result.exit_code == 0, result.output  # a demo, not a gate
    assert result.output.strip().splitlines()[-1] == str(out / "verdict.md")
    assert "faithful: PASS" in result.output and "hallucinating: FAIL" in result.output
    assert "terse: FAIL" in result.output  # its sampled labels: 36 of 40 grounded, target 90 %
    report = (out / "run" / "report.md").read_text(encoding="utf-8")
    assert "faithful" in report and "hallucinating" in report and "terse" in report
    assert "knowledge_retention" in report and "tool_recall" in report  # conversations, agents
    verdict = (out / "verdict.md").read_text(encoding="utf-8")
    assert "facts kept across turns" in verdict and "agent calls the right tools" in verdict
    run = out / "run"
    assert (run / "problems.json").is_file() and (run / "leaderboard.json").is_file()
    assert (out / "verdict.json").is_file() and (out / "verdict.html").is_file()


def test_conversations_and_trajectories_have_all_three_models_and_both_labels(
    dialogues: list[Any],
) -> None:
    conversations = [c for c in dialogues if c.turns]
    trajectories = [c for c in dialogues if c.trajectory]
    for group, label in ((conversations, "knowledge_retained"), (trajectories, "tools_correct")):
        by_id: dict[str, set[str]] = defaultdict(set)
        for case in group:
            by_id[case.id].add(case.model or "")
            assert set(case.labels) == {label} and case.labels[label] in (0, 1)
        assert len(by_id) >= 8 and all(m == set(MODELS) for m in by_id.values())
        values = {c.labels[label] for c in group}
        assert values == {0, 1}  # both outcomes
        faithful = [c.labels[label] for c in group if c.model == "faithful"]
        assert all(faithful), "the faithful system keeps facts and calls the right tools"
    for case in conversations:
        roles = [t.role for t in case.turns]
        assert roles[0] == "system" and roles[1:] == ["user", "assistant"] * (len(roles) // 2)
    for case in trajectories:
        assert case.question and case.expected_outcome and case.trajectory.expected_tools


def test_dialogue_evaluators_tell_the_models_apart(dialogues: list[Any]) -> None:
    conversations = [c for c in dialogues if c.turns]
    retention: dict[str, list[float]] = defaultdict(list)
    results = get_evaluator("conversation").score(conversations)
    for case, result in zip(conversations, results, strict=True):
        retention[case.model or ""].append(result.outcomes["knowledge_retention"].value or 0.0)
    assert statistics.mean(retention["faithful"]) > statistics.mean(retention["hallucinating"])
    trajectories = [c for c in dialogues if c.trajectory]
    arguments: dict[str, list[float]] = defaultdict(list)
    results = get_evaluator("trajectory").score(trajectories)
    for case, result in zip(trajectories, results, strict=True):
        arguments[case.model or ""].append(result.outcomes["argument_correctness"].value or 0.0)
    assert statistics.mean(arguments["faithful"]) == 1.0 > statistics.mean(arguments["hallucinating"])


def test_the_random_labelling_round_is_declared_and_complete(
    builder: ModuleType, suite: TestSuite
) -> None:
    """labels_random.csv holds exactly the seeded sample of questions, every model labelled; the
    plan declares it random and the reviewer's hand-picked labels unknown."""
    import csv

    from assay.demo import demo_plan_path
    from assay.verdict import load_plan

    questions = builder.load_questions(demo_dir() / "source" / "questions.toml")
    chosen = builder.round_questions(questions)
    assert len(chosen) == builder.ROUND_SIZE < len(questions)
    with (demo_dir() / "labels_random.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {(r["id"], r["model"]) for r in rows} == {
        (q, m.name) for q in chosen for m in builder.MODELS
    }
    assert {r["made_by"] for r in rows} <= {"reviewer", "construction", "reading"}
    hand = {(c.id, str(c.model)): c.labels for c in suite if c.labels and not c.perturbation}
    for row in rows:  # a reviewer's label is kept as given
        if row["made_by"] == "reviewer":
            given = hand[row["id"], row["model"]]
            assert (int(row["correct"]), int(row["grounded"])) == (
                given["correct"], given["grounded"]
            )
    plan = load_plan(demo_plan_path())
    assert plan.labels.design_of("labels_random.csv") == "random"
    assert plan.labels.design_of("suite") == "unknown"
