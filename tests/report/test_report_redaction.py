"""The shared report never embeds a raw secret or personal value (every other output masks them)."""

from __future__ import annotations

from pathlib import Path

from assay import TestCase, evaluate

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
EMAIL = "jane.doe@example.com"
CARD = "4111 1111 1111 1111"


def test_report_html_and_md_mask_case_texts(tmp_path: Path) -> None:
    case = TestCase(
        id="leak",
        model="m",
        question=f"My card is {CARD}, what is my limit?",
        actual_answer=f"Use key {AWS_KEY} and write to {EMAIL}.",
        expected_answer="Your limit is 2,000 euros.",
        retrieved_context=[f"Customer {EMAIL} holds card {CARD}."],
    )
    evaluate([case], ["pii_leakage", "secrets_leakage", "token_f1"], out=tmp_path / "run")
    for name in ("report.html", "report.md"):
        text = (tmp_path / "run" / name).read_text(encoding="utf-8")
        for raw in (AWS_KEY, EMAIL, CARD, CARD.replace(" ", "")):
            assert raw not in text, f"{name} embeds {raw!r}"
    html = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert "what is my limit?" in html  # the rest of the text is still shown
