"""The drill-down masks its own output, each text once: no second pass over the report's largest
part, and the same entries as masking everything afterwards (what the reports did before)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay import TestCase, evaluate
from assay.data import ToolCall, Trajectory, Turn
from assay.report.case_texts import read_cases
from assay.report.drilldown import drilldown, masked_explainers
from assay.rundir.run import EvaluationRun
from assay.safety.masking import redact

from .report_runs import WordOverlapGrounding

EMAIL = "jane.doe@example.com"
CARD = "4111 1111 1111 1111"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
RAW = (EMAIL, CARD, CARD.replace(" ", ""), AWS_KEY)


def _cases() -> list[TestCase]:
    """PII and secrets in every field the drill-down shows: ids, model and slice names, texts,
    context, turns, tool calls and trajectory steps."""
    cases = [
        TestCase(
            id=f"c{i}-{EMAIL}" if i % 3 == 0 else f"c{i}",
            model=["m1", f"m-{EMAIL}"][i % 2],
            question=f"My card is {CARD}, what is my limit {i}?",
            actual_answer=f"Use key {AWS_KEY} and write to {EMAIL}." if i % 2 else "2,000 euros",
            expected_answer=f"Your limit is 2,000 euros, {EMAIL}.",
            retrieved_context=[f"Customer {EMAIL} holds card {CARD}.", "other"],
            context_ids=[f"doc-{EMAIL}"],
            topic=f"topic {EMAIL}" if i % 4 == 0 else "plain",
        )
        for i in range(12)
    ]
    turns = [
        Turn(role="user", content=f"I am {EMAIL}, card {CARD}."),
        Turn(role="assistant", content=f"Noted, {EMAIL}.",
             tool_calls=[ToolCall(name="lookup", arguments={"email": EMAIL}, result=CARD)]),
    ]
    trajectory = Trajectory(
        steps=[ToolCall(name="mail", arguments={"to": EMAIL}, error=f"bounced {EMAIL}")],
        final_answer=f"Sent to {EMAIL}.",
        expected_tools=[ToolCall(name="mail", arguments={"to": EMAIL})],
    )
    # Ids equal once masked, listed against their order: entries sort by the unmasked names.
    twins = [TestCase(id=f"{name}@example.com", model="m1", question=name, actual_answer="a",
                      expected_answer="b") for name in ("bob", "bay")]
    return [
        *cases,
        *twins,
        TestCase(id="conv", model="m1", turns=turns, question=turns[0].content,
                 actual_answer=turns[1].content),
        TestCase(id="agent", model="m1", trajectory=trajectory, question=f"Mail {EMAIL}?",
                 expected_outcome=f"mail to {EMAIL}"),
    ]


@pytest.fixture(scope="module")
def leaky_run(tmp_path_factory: pytest.TempPathFactory) -> EvaluationRun:
    return evaluate(
        _cases(),
        ["pii_leakage", "secrets_leakage", "token_f1", "exact_match", "conversation",
         "trajectory", WordOverlapGrounding()],
        out=tmp_path_factory.mktemp("leaky") / "run",
    )


def test_masked_drilldown_equals_masking_afterwards(leaky_run: EvaluationRun) -> None:
    assert leaky_run.path is not None
    rows = leaky_run.results
    cases = read_cases(Path(leaky_run.path))
    masked = drilldown(rows, cases, redact=True)
    # No text here is longer than the clip: masking before or after clipping is the same.
    assert masked == redact(drilldown(rows, cases, redact=False))
    shown = json.dumps(masked, ensure_ascii=False)
    for raw in RAW:
        assert raw not in shown, f"the drill-down embeds {raw!r}"
    entries = {(e["case_id"], e["model"]): e for e in masked["entries"]}
    assert masked["shown"] == len(masked["entries"]) == len(_cases())
    assert entries["conv", "m1"]["conversation"]["turns"][0]["content"].startswith("I am ja")
    assert entries["agent", "m1"]["trajectory"]["steps"][0]["error"].startswith("bounced ja")
    # Ordered failing first, by the names before masking (what the reports did before).
    order = [(-(e["n_fail"] + e["n_error"])) for e in masked["entries"]]
    assert order == sorted(order)


def test_drilldown_without_masking_keeps_texts(leaky_run: EvaluationRun) -> None:
    assert leaky_run.path is not None
    plain = drilldown(leaky_run.results, read_cases(Path(leaky_run.path)))
    assert EMAIL in json.dumps(plain, ensure_ascii=False)


def test_explanations_masked_at_source_are_not_scanned_again(leaky_run: EvaluationRun) -> None:
    """exact_match masks the texts it explains: the report shows them as written; the other
    evaluators' explanations are still scanned, and a run of another assay version is trusted
    for none."""
    assert leaky_run.path is not None
    rows = leaky_run.results.copy()
    planted = rows["evaluator"].isin(["exact_match", "token_f1"]) & rows["primary"]
    rows.loc[planted, "explanation"] = f"planted {EMAIL}"  # a claim broken on purpose
    cases = read_cases(Path(leaky_run.path))
    trusted = masked_explainers(leaky_run.manifest)
    assert "exact_match" in trusted and "pii_leakage" not in trusted
    shown = drilldown(rows, cases, redact=True, masked_by=trusted)
    explained = {ev["evaluator"]: ev["explanation"] for e in shown["entries"]
                 for ev in e["evidence"] if ev["explanation"]}
    assert explained["exact_match"] == f"planted {EMAIL}"  # trusted: not scanned
    assert EMAIL not in explained["token_f1"]  # not declared: masked
    older = {**leaky_run.manifest, "assay_version": "0.0.0"}
    assert masked_explainers(older) == frozenset()
    assert drilldown(rows, cases, redact=True, masked_by=masked_explainers(older)) == redact(
        drilldown(rows, cases, redact=False))
