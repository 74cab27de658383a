"""``assay attack``: build the bad-actor test suite (attacks with success detectors)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click

from assay.cli.options import file_argument, int_option, out_option, seed_option
from assay.cli.progress import console


@click.command("attack")
@file_argument("suite")
@out_option(required=True)
@click.option(
    "-c",
    "--category",
    "categories",
    multiple=True,
    help="Attack category (repeatable; default all): prompt_injection, indirect_injection, "
    "jailbreak, system_prompt_extraction, pii_extraction, harmful_compliance, multi_turn "
    "(conversations: crescendo, context_poisoning, roleplay_drift).",
)
@int_option(
    "--max-cases",
    least=1,
    help="Write at most this many attack cases: a seeded sample spread over the categories.",
)
@click.option(
    "--harmful-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Harmful requests, one per line (default: the built-in list).",
)
@click.option(
    "--system-prompt-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The target's system prompt, to detect its extraction.",
)
@click.option("--system-canary", help="A marker planted in the target's system prompt.")
@seed_option()
def command(
    suite: Path,
    out: Path,
    categories: tuple[str, ...],
    max_cases: int | None,
    harmful_file: Path | None,
    system_prompt_file: Path | None,
    system_canary: str | None,
    seed: int,
) -> None:
    """Write attacked cases built from SUITE to --out; run them with 'assay run' and score them
    with 'assay evaluate -e attack_success'."""
    from assay.attacks import make_attacks
    from assay.data import read_suite, write_suite

    harmful = None
    if harmful_file is not None:
        lines = harmful_file.read_text(encoding="utf-8").splitlines()
        harmful = [line.strip() for line in lines if line.strip()]
    prompt = system_prompt_file.read_text(encoding="utf-8") if system_prompt_file else None
    cases = make_attacks(
        read_suite(suite),
        categories=list(categories) or None,
        harmful_requests=harmful,
        max_cases=max_cases,
        system_prompt=prompt,
        system_canary=system_canary,
        seed=seed,
    )
    write_suite(cases, out)
    counts = Counter(c.metadata["attack"]["category"] for c in cases)
    console.print(
        f"{len(cases)} attack cases: " + ", ".join(f"{k} {n}" for k, n in counts.most_common())
    )
    click.echo(str(out))
