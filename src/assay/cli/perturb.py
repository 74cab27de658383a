"""``assay perturb``: write seeded perturbed copies of a suite's cases, linked to their parents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from assay.cli.options import (
    file_argument,
    out_option,
    parse_assignments,
    parse_value,
    seed_option,
)
from assay.cli.progress import console


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``name`` or ``name:key=value,key=value`` (JSON values) as (name, params).

    Example:
        >>> parse_spec("distractors:kind=contradictory,n=2")
        ('distractors', {'kind': 'contradictory', 'n': 2})
    """
    name, _, rest = spec.partition(":")
    try:
        pairs = parse_assignments([rest], "--perturbation")
    except click.BadParameter:
        raise click.BadParameter(f"expected NAME:KEY=VALUE,..., got {spec!r}") from None
    return name.strip(), {key: parse_value(raw) for key, raw in pairs.items()}


@click.command("perturb")
@file_argument("suite")
@out_option(required=True)
@click.option(
    "-p",
    "--perturbation",
    "specs",
    multiple=True,
    metavar="NAME[:KEY=VALUE,...]",
    help="Perturbation to apply (repeatable), e.g. -p typos:rate=0.1 -p counterfactual:axis=age. "
    "Default: the model-free noise set.",
)
@seed_option()
@click.option(
    "--include-parents/--children-only",
    default=True,
    show_default=True,
    help="Also write the original cases, so the output can be run and compared as it is.",
)
@click.option(
    "--judge",
    default=None,
    help="Judge spec for the 'paraphrase' perturbation (e.g. openai:gpt-4o-mini).",
)
def command(
    suite: Path,
    out: Path,
    specs: tuple[str, ...],
    seed: int,
    include_parents: bool,
    judge: str | None,
) -> None:
    """Perturb every case of SUITE and write the perturbed suite to --out.

    Perturbations: typos, char_swap, char_drop, char_duplicate, casing, whitespace, punctuation,
    contractions, colloquial, leetspeak, homoglyphs, encoding, distractors, ood, copy,
    counterfactual, paraphrase (needs --judge).
    """
    from assay.data import read_suite, write_suite
    from assay.perturb import DEFAULT_NOISE, get_perturbation, perturb

    chosen = [parse_spec(s) for s in specs] or [(name, {}) for name in DEFAULT_NOISE]
    perturbations = []
    for name, params in chosen:
        if name == "paraphrase" and judge is not None:
            params.setdefault("judge", judge)
        perturbations.append(get_perturbation(name, **params))
    cases = perturb(read_suite(suite), perturbations, seed=seed, include_parents=include_parents)
    write_suite(cases, out)
    children = sum(1 for c in cases if c.parent_id is not None)
    console.print(f"{children} perturbed cases from {len(perturbations)} perturbations.")
    click.echo(str(out))
