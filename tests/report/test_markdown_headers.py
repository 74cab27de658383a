"""Markdown tables escape their headers too: model names head the six-dimension table."""

from __future__ import annotations

import click
import pytest

from assay.cli.options import parse_thresholds
from assay.report.markdown import table


def test_model_names_in_headers_are_escaped() -> None:
    text = table(["dimension", "<img src=x onerror=alert(1)>", "a|b"], [["qa", "pass", "fail"]])
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "a\\|b" in text


@pytest.mark.parametrize("raw", ["nan", "inf", "-inf", "NaN"])
def test_non_finite_thresholds_are_refused(raw: str) -> None:
    with pytest.raises(click.BadParameter, match="finite"):
        parse_thresholds((f"token_f1={raw}",))
