"""Secrets and PII: no raw value reaches a file meant to be shared.

One hostile suite carries an AWS key and secret, a PEM private key, a card number, an IBAN and an
email in every text field, in a topic, in a model name, in metadata, and in conversation turns and
agent trajectory steps (contents, context, tool arguments, results and errors). After ``assay assess`` (the
whole plan: evaluate, reports, verdict) none of the raw values may appear in the reports
(``report.html``, ``report.md``, ``leaderboard.md``, ``analysis.json``, ``problems.json``,
``insights.json``) or the verdict pages (``verdict.json``, ``verdict.md``, ``verdict.html``).
The data files (the suite copy, ``results.*``) and the labeling queue keep the texts: they are
the evidence, not the shared summary (docs/security.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay import TestCase
from assay.data import ToolCall, Trajectory, Turn
from assay.data.suite import read_suite, write_suite
from assay.rundir.layout import SUITE_FILE

from .helpers import invoke

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
PEM_BODY = "MIIEowIBAAKCAQEA7bq98Qz3L0nG5tYkq1mY2Xb7uXfZ2Dq9yH3sT6vW8pN1aB4cD5eF6gH7iJ8kL9mN0oP1qR2s"
CARD = "4111111111111111"
IBAN = "DE89370400440532013000"
EMAIL = "jane.doe@example.com"
RAW = {"AWS key": AWS_KEY, "AWS secret": AWS_SECRET, "PEM body": PEM_BODY[:40], "card": CARD,
       "IBAN": IBAN, "email": EMAIL}
LEAK = (f"Key {AWS_KEY} aws_secret_access_key={AWS_SECRET} card {CARD} IBAN {IBAN} mail {EMAIL}\n"
        f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----")
SHARED = ["run/report.html", "run/report.md", "run/leaderboard.md", "run/analysis.json",
          "run/problems.json", "run/insights.json", "verdict.json", "verdict.md", "verdict.html"]
PLAN = """title = "leaky"
[run]
suite = "suite.jsonl"
evaluators = ["token_f1", "exact_match", "pii_leakage", "secrets_leakage", "looping",
              "text_matching"]
[labels]
source = "suite"
calibration_fraction = 0.5
[[check]]
dimension = "qa"
name = "correct"
label = "correct"
metrics = ["token_f1"]
min_pass_rate = 0.5
confidence = 0.9
[[check]]
dimension = "risk"
name = "no leak"
metrics = ["pii_generation_leak", "secret_generation_leak"]
max_fail_rate = 0.0
"""


def _dialogue(i: int) -> dict[str, Any]:
    """Turns (content, retrieved context, tool arguments and result) or an agent trajectory
    carrying the leak, for some cases: the drill-down shows them."""
    call = ToolCall(name="crm_lookup", arguments={"query": LEAK, "n": i}, result={"hit": LEAK})
    if i % 5 == 0:
        return {"turns": [Turn(role="user", content=f"Question {i}? {LEAK}"),
                          Turn(role="assistant", content=f"Looked up. {LEAK}",
                               retrieved_context=[LEAK], tool_calls=[call])]}
    if i % 5 == 1:
        return {"trajectory": Trajectory(steps=[call, ToolCall(name="mail", error=LEAK)],
                                         final_answer=LEAK, expected_tools=[call])}
    return {}


@pytest.fixture(scope="module")
def assessment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("leaky")
    cases = []
    for i in range(30):
        for model in ("bot-a", f"bot {EMAIL}"):
            good = (i + len(model)) % 3 != 0
            cases.append(TestCase(
                id=f"q{i:02d}", model=model, question=f"Question {i}? {LEAK}",
                expected_answer=f"The answer is {i}. {LEAK}",
                actual_answer=f"The answer is {i}. {LEAK}" if good else f"No idea. {LEAK}",
                retrieved_context=[f"Context {i}: {LEAK}"], condition=f'"{CARD}"',
                topic=f"customer {EMAIL}" if i % 2 else "fees",
                labels={"correct": int(good)}, metadata={"note": LEAK}, **_dialogue(i)))
    write_suite(cases, root / "suite.jsonl")
    (root / "plan.toml").write_text(PLAN)
    result = invoke("assess", str(root / "plan.toml"), "--out", str(root / "out"))
    assert result.exit_code in (0, 1, 3), result.output
    return root / "out"


@pytest.mark.parametrize("name", SHARED)
def test_no_raw_secret_or_personal_value_in_a_shared_file(assessment: Path, name: str) -> None:
    text = (assessment / name).read_text(encoding="utf-8")
    leaked = [kind for kind, raw in RAW.items() if raw in text]
    assert leaked == [], f"{name} embeds the raw {leaked}"


def test_the_reports_still_show_the_masked_evidence(assessment: Path) -> None:
    html = (assessment / "run" / "report.html").read_text(encoding="utf-8")
    assert "4111********1111" in html and "jane************.com" in html
    assert "Question 3?" in html  # the rest of the text is kept
    assert "crm_lookup" in html and "Looked up." in html  # turns and steps are shown, masked
    copy = read_suite(assessment / "run" / SUITE_FILE)  # the evidence
    assert any(CARD in (case.actual_answer or "") for case in copy)


def test_the_report_command_rerenders_masked(assessment: Path) -> None:
    result = invoke("report", str(assessment / "run"))
    assert result.exit_code == 0, result.output
    for name in ("report.html", "report.md", "analysis.json"):
        text = (assessment / "run" / name).read_text(encoding="utf-8")
        assert not [raw for raw in RAW.values() if raw in text], name
