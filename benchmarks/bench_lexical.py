"""ROUGE and BLEU throughput of assay against rouge-score and sacrebleu, on the same pairs.

Run: ``python benchmarks/bench_lexical.py [N_PAIRS] [--rounds R]`` (default 10,000 pairs, 3
rounds). Scores must be identical (the script fails otherwise); speeds are reported as ratios of
the medians of interleaved rounds, CPU and wall. Each round scores pairs of its own (a seed per
round) and starts cold: every cache of assay is cleared and the reference objects are fresh, so
the speed-up comes from the algorithms (bit-parallel LCS, per-word stem cache within the pass),
not from having seen the texts before. Writes benchmarks/results/lexical.md.
"""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from assay.data.case import TestCase  # noqa: E402
from assay.evaluators.lexical_bleu import (  # noqa: E402
    Bleu,
    _cached_13a,
    bleu_from_statistics,
    bleu_statistics,
)
from assay.evaluators.lexical_rouge import clear_caches, rouge  # noqa: E402
from lexical_data import answer_pairs  # noqa: E402
from results_file import publish  # noqa: E402
from rounds import Timing, interleaved, load_average, machine_note  # noqa: E402

Pairs = list[tuple[str, str]]
#: Builds a fresh scorer (new reference objects / cleared caches) and scores the pairs with it.
Scorer = Callable[[Pairs], list[Any]]


def _clear_caches() -> None:
    clear_caches()
    _cached_13a.cache_clear()


def _compare(reference: Scorer, own: Scorer, rounds: list[Pairs]) -> tuple[Timing, Timing, bool]:
    """Interleaved rounds of both on the pairs of each round; whether every score was equal."""
    results: dict[str, list[list[Any]]] = {"reference": [], "assay": []}

    def run(name: str, scorer: Scorer) -> Callable[[int], object]:
        def go(r: int) -> None:
            if name == "assay":
                _clear_caches()
            results[name].append(scorer(rounds[r]))

        return go

    t = interleaved(
        {"reference": run("reference", reference), "assay": run("assay", own)}, len(rounds)
    )
    return t["reference"], t["assay"], results["reference"] == results["assay"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    n = args.n
    from rouge_score import rouge_scorer
    from sacrebleu.metrics import BLEU

    rounds = [answer_pairs(n, seed=r) for r in range(args.rounds)]
    rows: list[tuple[str, str, Timing, Timing, bool]] = []
    before = load_average()

    def record(name: str, reference: str, t_ref: Timing, t_own: Timing, same: bool) -> None:
        rows.append((name, reference, t_ref, t_own, same))
        print(
            f"{name}: {reference} {t_ref.median_cpu:.2f}s, assay {t_own.median_cpu:.2f}s CPU, "
            f"identical: {same}",
            flush=True,
        )

    for types, label in ((["rougeL"], "ROUGE-L"), (["rouge1", "rouge2", "rougeL"], "ROUGE-1/2/L")):
        for stem in (False, True):

            def reference(part: Pairs, t: list[str] = types, st: bool = stem) -> list[Any]:
                scorer = rouge_scorer.RougeScorer(t, use_stemmer=st)
                return [
                    tuple(tuple(s[k]) for k in t) for s in (scorer.score(e, a) for e, a in part)
                ]

            def own(part: Pairs, t: list[str] = types, st: bool = stem) -> list[Any]:
                return [
                    tuple(tuple(s[k]) for k in t)
                    for s in (rouge(e, a, t, use_stemmer=st) for e, a in part)
                ]

            t_ref, t_own, same = _compare(reference, own, rounds)
            record(
                f"{label}, stemming {'on' if stem else 'off'}", "rouge-score", t_ref, t_own, same
            )

    def sacre_sentence(part: Pairs) -> list[float]:
        metric = BLEU(effective_order=True)
        return [metric.sentence_score(a, [e]).score for e, a in part]

    def own_sentence(part: Pairs) -> list[float]:
        return [bleu_from_statistics(bleu_statistics(a, e), 4) for e, a in part]

    t_ref, t_own, same = _compare(sacre_sentence, own_sentence, rounds)
    record("sentence BLEU-4 (13a, exp smoothing, effective order)", "sacrebleu", t_ref, t_own, same)

    def sacre_bleus(part: Pairs) -> list[list[float]]:
        metric = BLEU(effective_order=True)
        # the evaluator's range check clips 1.0000000000000004 (float rounding) to 1
        return [[min(metric.sentence_score(a, [e]).score / 100, 1.0)] for e, a in part]

    cases = [
        [TestCase(id=f"q{i}", expected_answer=e, actual_answer=a) for i, (e, a) in enumerate(part)]
        for part in rounds
    ]
    by_pairs = {id(part): cases[r] for r, part in enumerate(rounds)}

    def own_evaluator(part: Pairs) -> list[list[float]]:
        batch = Bleu().evaluate(by_pairs[id(part)])
        return [[v] for v in batch.column("bleu4").tolist()]

    t_ref, t_own, same = _compare(sacre_bleus, own_evaluator, rounds)
    record(
        "`Bleu` evaluator (BLEU-1..4, outcomes, details) vs sentence BLEU-4",
        "sacrebleu",
        t_ref,
        t_own,
        same,
    )

    def sacre_corpus(part: Pairs) -> list[float]:
        return [BLEU().corpus_score([a for _, a in part], [[e for e, _ in part]]).score]

    def own_corpus(part: Pairs) -> list[float]:
        totals = [0] * 10
        for e, a in part:
            totals = [x + y for x, y in zip(totals, bleu_statistics(a, e), strict=True)]
        return [bleu_from_statistics(totals, 4, effective_order=False)]

    t_ref, t_own, same = _compare(sacre_corpus, own_corpus, rounds)
    record("corpus BLEU-4", "sacrebleu", t_ref, t_own, same)

    lines = [
        "# Lexical metrics: throughput against the reference implementations",
        "",
        f"Generated by `python benchmarks/bench_lexical.py {n} --rounds {args.rounds}` on "
        f"{n:,} seeded, realistic answer pairs per round (`benchmarks/lexical_data.py`; a seed "
        f"per round: {n * args.rounds:,} distinct pairs), medians of {args.rounds} interleaved "
        "cold rounds (every cache of assay cleared, fresh reference objects). Scores are "
        "asserted bit-for-bit identical to the reference in every round. The `Bleu` evaluator "
        "computes BLEU-1..4 and the corpus statistics with outcomes, explanations and details; "
        "its BLEU-4 is compared with sacrebleu's sentence BLEU.",
        "",
        f"Python {platform.python_version()}, {platform.machine()}, rouge-score "
        f"{version('rouge-score')}, sacrebleu {version('sacrebleu')}; "
        f"{machine_note(before, load_average())}.",
        "",
        "| metric | reference | reference CPU (s) | assay CPU (s) | pairs/s (assay CPU) "
        "| speed-up (CPU) | speed-up (wall) | identical |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, reference, t_ref, t_own, same in rows:
        lines.append(
            f"| {name} | {reference} | {t_ref.median_cpu:.2f} | {t_own.median_cpu:.2f} | "
            f"{n / t_own.median_cpu:,.0f} | {t_ref.median_cpu / t_own.median_cpu:.1f}× | "
            f"{t_ref.median_wall / t_own.median_wall:.1f}× | {'yes' if same else 'no'} |"
        )
    publish(HERE / "results" / "lexical.md", lines)
    failures = [name for name, *_, same in rows if not same]
    if failures:
        print(f"NOT IDENTICAL: {failures}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
