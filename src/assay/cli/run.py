"""``assay run``: answer a suite with the system under test, resumably."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from assay.cli.options import file_argument, int_option, out_option, seed_option
from assay.cli.progress import console, progress_bar
from assay.errors import RunDirectoryError

if TYPE_CHECKING:
    from assay.data.case import TestCase
    from assay.runner.simulated_user import SimulatedUser


@click.command("run")
@file_argument("suite")
@click.option(
    "--target",
    "target",
    required=True,
    help="Target config file (YAML, JSON or TOML), or TYPE:VALUE (e.g. python:app:answer, "
    "langchain:app.chains:qa, llamaindex:app.rag:engine); see docs/runner.md.",
)
@out_option("Answered suite to write (.jsonl, .json, .csv or .parquet).", required=True)
@click.option(
    "--checkpoint",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Checkpoint file [default: OUT.checkpoint.jsonl]; a rerun resumes from it.",
)
@click.option("--retry-errors", is_flag=True, help="On resume, ask failed cases again.")
@click.option("--keep-checkpoint", is_flag=True, help="Keep the checkpoint after success.")
@int_option("--concurrency", least=1, help="Override the config.")
@int_option("--retries", least=0, help="Override the config.")
@click.option(
    "--timeout", "timeout_s", type=click.FloatRange(min=0.001), help="Seconds per request."
)
@int_option(
    "--max-turns",
    least=1,
    help="Most user turns of a simulated-user conversation (overrides the config; default 8).",
)
@click.option(
    "--judge",
    default=None,
    help="Simulated user of conversation cases with a scenario and no user turns: "
    "'provider:model', a JSON object, or 'scripted' (offline). Default: $ASSAY_JUDGE.",
)
@click.option(
    "--score-truncated",
    is_flag=True,
    help="Score answers cut at the system's token limit as if complete (default: recorded as "
    "'truncated' and counted as unmeasured).",
)
@seed_option("Seed of the back-off jitter.")
@int_option(
    "--repeats",
    least=1,
    default=1,
    help="Ask every case K times (a non-deterministic target): linked samples CASE#sampleJ, "
    "analysed for variance and flakiness; see docs/repeats.md.",
)
def command(
    suite: Path,
    target: str,
    out: Path,
    checkpoint: Path | None,
    retry_errors: bool,
    keep_checkpoint: bool,
    concurrency: int | None,
    retries: int | None,
    timeout_s: float | None,
    max_turns: int | None,
    judge: str | None,
    score_truncated: bool,
    seed: int,
    repeats: int,
) -> None:
    """Ask the system under test (--target) every question of SUITE and write the answers.

    Conversation cases (user turns in 'turns', or a 'scenario' for a simulated user) are run
    turn by turn, each turn sent with the history so far. Latency, cost and per-case errors are
    recorded; finished cases and completed turns go to a checkpoint file so an interrupted run,
    started again with the same arguments, resumes where it stopped.
    """
    from assay.data import read_suite, write_suite
    from assay.data.case import RUN_TRUNCATED
    from assay.runner import load_target, run_target

    connector, settings = load_target(target)
    given = {
        "concurrency": concurrency,
        "retries": retries,
        "timeout_s": timeout_s,
        "max_turns": max_turns,
        "score_truncated": score_truncated or None,  # the config's unless given
    }
    overrides: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    settings = dataclasses.replace(settings, **overrides)
    log = checkpoint or out.with_name(out.name + ".checkpoint.jsonl")
    cases = read_suite(suite)
    user = _simulated_user(cases, judge)
    try:
        with progress_bar() as progress:
            answered = run_target(
                cases,
                connector,
                settings=settings,
                checkpoint=log,
                retry_errors=retry_errors,
                progress=progress,
                seed=seed,
                user=user,
                repeats=repeats,
            )
    except KeyboardInterrupt:
        console.print(f"Interrupted: finished cases are saved in {log}; run again to resume.")
        raise
    try:
        write_suite(answered, out)  # atomic: a failed write leaves no partial file
    except OSError as exc:
        raise RunDirectoryError(
            f"{out}: cannot write the answered suite ({exc.strerror or exc}); every answer is "
            f"kept in {log}: free space and run the same command again to finish"
        ) from None
    if not keep_checkpoint:
        log.unlink(missing_ok=True)
    errors = Counter(
        c.metadata["run"].get("error_kind")
        for c in answered
        if c.metadata["run"]["status"] == "error"
    )
    truncated = sum(c.metadata["run"]["status"] == RUN_TRUNCATED for c in answered)
    latencies = sorted(c.latency_s for c in answered if c.latency_s is not None)
    costs = [c.cost_usd for c in answered if c.cost_usd is not None]
    summary = f"{len(answered) - sum(errors.values())} answered, {sum(errors.values())} errors"
    if repeats > 1:
        summary += f" ({len(answered) // repeats} cases x {repeats} samples)"
    conversations = [c for c in answered if "stop" in c.metadata["run"]]
    if conversations:
        replies = sum(t.role == "assistant" for c in conversations for t in c.turns or [])
        summary += f"; {len(conversations)} conversations ({replies} assistant turns)"
    if errors:
        summary += " (" + ", ".join(f"{k}: {n}" for k, n in errors.most_common()) + ")"
    if truncated:
        summary += f"; {truncated} truncated at the system's token limit (unmeasured)"
    if latencies:
        summary += f"; median latency {latencies[len(latencies) // 2]:.3f} s"
    if costs:
        summary += f"; cost ${sum(costs):.4f}"
    if user is not None:
        stats = user.judge.stats
        spent = (f", ${stats.cost_usd:.4f}" if stats.unpriced_calls == 0
                 else ", cost unknown (no price for the judge model)")
        summary += f"; simulated user: {stats.requests} judge requests{spent}"
    console.print(summary)
    click.echo(str(out))


def _simulated_user(cases: Iterable[TestCase], judge: str | None) -> SimulatedUser | None:
    """The simulated user when a case needs one (the judge resolved only then), else None."""
    from assay.runner.conversation import needs_simulator

    if not any(needs_simulator(c) for c in cases):
        return None
    from assay.backends.llm import make_judge
    from assay.runner.simulated_user import SimulatedUser

    return SimulatedUser(make_judge(judge))
