"""``assay review``: a reviewer's recorded decisions on an assessment (rule-verdict overrules)."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.options import directory_argument
from assay.cli.progress import console


@click.group("review")
def command() -> None:
    """Record a reviewer's decisions on an assessment's cases."""


@command.command("overrule")
@directory_argument("assessment")
@click.option("--check", "check", required=True, help="Name of the rule-based check.")
@click.option("--case", "case_id", required=True, help="Case id.")
@click.option("--model", required=True, help="System (model) whose answer is overruled.")
@click.option(
    "--verdict",
    required=True,
    type=click.Choice(["PASS", "FAIL"], case_sensitive=False),
    help="The reviewer's verdict for the case.",
)
@click.option("--by", "by", required=True, help="Who decides (recorded with the overrule).")
@click.option("--reason", required=True, help="Why (recorded and shown in the verdict).")
def overrule(
    assessment: Path, check: str, case_id: str, model: str, verdict: str, by: str, reason: str
) -> None:
    """Overrule the rule verdict of one case of a rule-based check in ASSESSMENT.

    The decision is appended, with who, when and why, to ASSESSMENT/overrules.jsonl; the next
    `assay assess PLAN --out ASSESSMENT` applies it (the run is reused) and reports it beside the
    rule verdict it replaced. Checks decided from human labels cannot be overruled: give the case
    a human label instead.
    """
    from assay.verdict.overrules import make_overrule, record_overrule

    record = make_overrule(check, case_id, model, verdict, by, reason)
    path = record_overrule(assessment, record)
    console.print(
        f"Recorded: {record.check} / {record.case_id} ({record.model}) → {record.verdict} by "
        f"{record.by} at {record.at}. Re-run `assay assess PLAN --out {assessment}` to apply it."
    )
    click.echo(str(path))
