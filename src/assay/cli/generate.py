"""``assay generate``: write a test suite that covers every topic of a document corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from assay.cli.options import choice_option, out_option, parse_assignments, seed_option, split_names
from assay.cli.progress import console, progress_bar


def _types(values: tuple[str, ...]) -> tuple[str, ...] | None:
    return tuple(split_names(values)) or None


@click.command("generate")
@click.argument("corpus", nargs=-1, required=True,
                type=click.Path(exists=True, path_type=Path))
@out_option("Suite file to write (.jsonl, .json, .csv, .parquet); sidecars go beside it.",
            required=True)
@click.option("-n", "--n", "n", type=int, default=50, show_default=True,
              help="Questions wanted.")
@click.option("--types", "types", multiple=True, metavar="TYPE[,TYPE...]",
              help="Query types: factual, multi_hop, inference, yes_no, multiple_choice, "
                   "unanswerable, trec (the six TREC classes), or names from --taxonomy. "
                   "Default: all default types.")
@click.option("--taxonomy", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="JSON file of your own query types (name, instruction, ...).")
@click.option("--judge", default=None,
              help="Question writer: 'provider:model' or a JSON object (e.g. the spec "
                   "`assay judge-serve` prints). 'scripted' is a DRY RUN: template questions, "
                   "no model, marked as such; not a test suite. Default: $ASSAY_JUDGE.")
@choice_option("--writer", choices=["full", "compact"],
               help="full: key facts, then questions with answers (capable models). compact: "
                    "one grammar-constrained question per request, the answer taken from the "
                    "chunk (small local models such as `assay judge-serve`'s default); types "
                    "factual, yes_no, multiple_choice, unanswerable.")
@click.option("--embedder", default="minilm", show_default=True, help="Embedding model spec.")
@click.option("--chunk-size", type=int, default=120, show_default=True,
              help="Most words per chunk.")
@click.option("--overlap", type=int, default=1, show_default=True,
              help="Sentences shared by consecutive chunks.")
@choice_option("--reducer", choices=["pca", "umap", "none"])
@choice_option("--cluster", choices=["kmeans", "hdbscan", "dbscan"])
@click.option("--k", type=int, default=None, help="Number of k-means topics (default: by "
              "silhouette).")
@click.option("--min-cluster-size", type=int, default=5, show_default=True)
@choice_option("--strategy", choices=["proportional", "equal", "weighted"])
@click.option("--weight", "weights", multiple=True, metavar="TOPIC=W",
              help="Importance of a topic id (or 'noise') for --strategy weighted.")
@click.option("--oversample", type=float, default=1.0, show_default=True,
              help="Write this many times more questions, keep the best n per topic quota.")
@click.option("--min-kept", type=click.FloatRange(0.0, 1.0), default=None,
              help="Share of --n that must be kept [default: 0.8]; below it the command exits "
                   "1, says why on stderr and writes its outputs as <stem>.incomplete.* (0 "
                   "accepts any).")
@click.option("--min-source-similarity", type=float, default=None)
@click.option("--min-grounding", type=float, default=None)
@click.option("--duplicate-similarity", type=float, default=None)
@click.option("--unanswerable-max-similarity", type=float, default=None)
@seed_option()
def command(corpus: tuple[Path, ...], out: Path, n: int, types: tuple[str, ...],
            taxonomy: Path | None, judge: str | None, embedder: str, chunk_size: int,
            overlap: int, reducer: str, cluster: str, k: int | None, min_cluster_size: int,
            strategy: str, weights: tuple[str, ...], oversample: float,
            min_source_similarity: float | None, min_grounding: float | None,
            duplicate_similarity: float | None, unanswerable_max_similarity: float | None,
            seed: int, writer: str, min_kept: float | None) -> None:
    """Generate questions covering every topic of CORPUS (folders or files: txt, md, html,
    pdf, docx) and write them as a test suite to --out.

    Beside the suite: <stem>.generation.json (parameters, seeds, coverage, every dropped question
    with its reason), <stem>.coverage.md, <stem>.topics.svg (topic map), <stem>.chunks.jsonl.
    Exits 1 when fewer than --min-kept of --n questions are kept.
    """
    from dataclasses import replace

    from assay.generate import GenerationConfig, SelectionConfig, generate, load_taxonomy
    from assay.generate.completeness import DEFAULT_MIN_KEPT

    thresholds = {
        "min_source_similarity": min_source_similarity, "min_grounding": min_grounding,
        "duplicate_similarity": duplicate_similarity,
        "unanswerable_max_similarity": unanswerable_max_similarity,
    }
    chosen: dict[str, Any] = {k: v for k, v in thresholds.items() if v is not None}
    selection = replace(SelectionConfig(), **chosen)
    parsed_weights = {key: float(value)
                      for key, value in parse_assignments(weights, "--weight").items()}
    config = GenerationConfig(
        n=n, types=_types(types), chunk_size=chunk_size, overlap=overlap, reducer=reducer,
        cluster=cluster, k=k, min_cluster_size=min_cluster_size, strategy=strategy,
        weights=parsed_weights, oversample=oversample, seed=seed, selection=selection,
        min_kept=DEFAULT_MIN_KEPT if min_kept is None else min_kept, writer=writer,
    )
    custom = load_taxonomy(taxonomy) if taxonomy is not None else None
    if judge is not None and judge.strip() == "scripted":
        _dry_run_banner()
    with progress_bar() as progress:
        result = generate(list(corpus), judge=judge, embedder=embedder, config=config,
                          taxonomy=custom, progress=progress)
    paths = result.write(out)
    report = result.report
    for failure in report["corpus"]["failures"]:
        console.print(f"[yellow]unreadable:[/yellow] {failure['reason']}")
    _print_coverage(report)
    summary = report["summary"]
    console.print(
        f"{summary['kept']} questions kept of {summary['planned']} written "
        f"({summary['dropped']} dropped); {summary['topics_covered']}/{summary['topics']} "
        "topics covered."
    )
    reasons: dict[str, int] = {}
    for row in report["coverage"]:
        for reason, count in row["dropped_by_reason"].items():
            reasons[reason] = reasons.get(reason, 0) + count
    if reasons:
        listed = ", ".join(f"{r} {n}" for r, n in sorted(reasons.items(), key=lambda i: -i[1]))
        console.print(f"dropped: {listed} (each question with its reason in "
                      f"{out.with_suffix('')}.generation.json)", soft_wrap=True)
    for kind, path in paths.items():
        if kind != "suite":
            console.print(f"{kind}: {path}")
    if report.get("dry_run"):
        _dry_run_banner()
    missing = result.shortfall
    if missing is not None:
        click.echo(missing.message(), err=True)
        click.echo(f"nothing written to {out}; what was kept is in {paths['suite']} (not a "
                   "complete suite)", err=True)
        raise SystemExit(1)
    click.echo(str(paths["suite"]))


def _dry_run_banner() -> None:
    console.print("[bold yellow]DRY RUN[/bold yellow]: --judge scripted writes template "
                  "questions without a model (to check the pipeline and the outputs), not a test "
                  "suite; every case is marked metadata.dry_run. For real questions pass a model: "
                  "--judge openai:gpt-4o-mini, or `assay judge-serve` and --writer compact.",
                  soft_wrap=True)


def _print_coverage(report: dict[str, object]) -> None:
    from rich.table import Table

    table = Table(title="Coverage by topic")
    for name in ("topic", "label", "chunks", "sampled", "kept", "dropped", "reasons"):
        table.add_column(name)
    for row in report["coverage"]:  # type: ignore[attr-defined]
        reasons = ", ".join(f"{k} {v}" for k, v in row["dropped_by_reason"].items()) or "-"
        table.add_row(str(row["topic_id"]), row["label"], str(row["chunks"]),
                      str(row["sampled"]), str(row["kept"]), str(row["dropped"]), reasons)
    console.print(table)
