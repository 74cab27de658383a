"""ROUGE and BLEU throughput of assay against rouge-score and sacrebleu, on the same pairs.

Run: ``python benchmarks/bench_lexical.py [N_PAIRS]`` (default 10,000). Scores must be identical
(the script fails otherwise); speeds are reported as ratios. Writes benchmarks/results/lexical.md.
Every cache of assay is cleared before each timed pass, so the speed-up comes from the algorithms
(bit-parallel LCS, per-word stem cache within the pass), not from having seen the texts before.
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from assay.evaluators.lexical_bleu import (  # noqa: E402
    _cached_13a,
    bleu_from_statistics,
    bleu_statistics,
)
from assay.evaluators.lexical_rouge import clear_caches, rouge  # noqa: E402
from assay.fileio import write_text  # noqa: E402
from lexical_data import answer_pairs  # noqa: E402

REPEATS = 2


def _clear_caches() -> None:
    clear_caches()
    _cached_13a.cache_clear()


Pairs = list[tuple[str, str]]
Scorer = Callable[[Pairs], list[Any]]


def _compare(
    make_reference: Callable[[], Scorer], make_own: Callable[[], Scorer], pairs: Pairs, chunks: int
) -> tuple[float, float, list[Any], list[Any]]:
    """Time the reference and assay on the same pairs, interleaved chunk by chunk so that load
    from other processes hits both alike; best total of REPEATS passes, each pass cold (assay's
    caches cleared, fresh reference objects). Returns both times and both results."""
    size = -(-len(pairs) // chunks)
    parts = [pairs[i : i + size] for i in range(0, len(pairs), size)]
    best_ref = best_own = float("inf")
    ref: list[Any] = []
    own: list[Any] = []
    for _ in range(REPEATS):
        _clear_caches()
        reference, mine = make_reference(), make_own()
        t_ref = t_own = 0.0
        ref, own = [], []
        for part in parts:
            start = time.perf_counter()
            ref += reference(part)
            t_ref += time.perf_counter() - start
            start = time.perf_counter()
            own += mine(part)
            t_own += time.perf_counter() - start
        best_ref, best_own = min(best_ref, t_ref), min(best_own, t_own)
    return best_ref, best_own, ref, own


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    from rouge_score import rouge_scorer
    from sacrebleu.metrics import BLEU

    pairs = answer_pairs(n, seed=0)
    rows: list[tuple[str, float, float]] = []
    failures: list[str] = []

    def record(name: str, t_ref: float, t_own: float, same: bool) -> None:
        if not same:
            failures.append(name)
        rows.append((name, t_ref, t_own))
        print(f"{name}: reference {t_ref:.2f}s, assay {t_own:.2f}s, identical: {same}", flush=True)

    for types, label in ((["rougeL"], "ROUGE-L"), (["rouge1", "rouge2", "rougeL"], "ROUGE-1/2/L")):
        for stem in (False, True):

            def make_reference(t: list[str] = types, st: bool = stem) -> Scorer:
                scorer = rouge_scorer.RougeScorer(t, use_stemmer=st)
                return lambda part: [scorer.score(e, a) for e, a in part]

            def make_own(t: list[str] = types, st: bool = stem) -> Scorer:
                return lambda part: [rouge(e, a, t, use_stemmer=st) for e, a in part]

            t_ref, t_own, ref, own = _compare(make_reference, make_own, pairs, chunks=10)
            same = all(
                tuple(o[k]) == tuple(r[k]) for o, r in zip(own, ref, strict=True) for k in types
            )
            record(f"{label}, stemming {'on' if stem else 'off'}", t_ref, t_own, same)

    def sacre_sentence() -> Scorer:
        metric = BLEU(effective_order=True)
        return lambda part: [metric.sentence_score(a, [e]).score for e, a in part]

    def own_sentence() -> Scorer:
        return lambda part: [bleu_from_statistics(bleu_statistics(a, e), 4) for e, a in part]

    t_ref, t_own, ref, own = _compare(sacre_sentence, own_sentence, pairs, chunks=10)
    record("sentence BLEU-4 (13a, exp smoothing, effective order)", t_ref, t_own, own == ref)

    def sacre_corpus() -> Scorer:
        return lambda part: [
            BLEU().corpus_score([a for _, a in part], [[e for e, _ in part]]).score
        ]

    def own_corpus() -> Scorer:
        def score(part: Pairs) -> list[float]:
            totals = [0] * 10
            for e, a in part:
                totals = [x + y for x, y in zip(totals, bleu_statistics(a, e), strict=True)]
            return [bleu_from_statistics(totals, 4, effective_order=False)]

        return score

    t_ref, t_own, ref, own = _compare(sacre_corpus, own_corpus, pairs, chunks=1)
    record("corpus BLEU-4", t_ref, t_own, own == ref)

    lines = [
        "# Lexical metrics: throughput against the reference implementations",
        "",
        f"Generated by `python benchmarks/bench_lexical.py {n}` on {n:,} seeded, realistic answer "
        f"pairs (`benchmarks/lexical_data.py`): reference and assay timed chunk by chunk, "
        f"interleaved, best of {REPEATS} cold passes (every cache cleared). "
        "Scores are asserted bit-for-bit identical to the reference in the same run.",
        "",
        f"Python {platform.python_version()}, {platform.machine()}, rouge-score "
        f"{version('rouge-score')}, sacrebleu {version('sacrebleu')}.",
        "",
        "| metric | reference | reference (s) | assay (s) | pairs/s (assay) | speed-up "
        "| identical |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for name, t_ref, t_own in rows:
        reference = "rouge-score" if "ROUGE" in name else "sacrebleu"
        lines.append(
            f"| {name} | {reference} | {t_ref:.2f} | {t_own:.2f} | {n / t_own:,.0f} | "
            f"{t_ref / t_own:.1f}× | {'no' if name in failures else 'yes'} |"
        )
    out = HERE / "results" / "lexical.md"
    out.parent.mkdir(exist_ok=True)
    write_text(out, "\n".join(lines) + "\n")
    print(f"wrote {out}")
    if failures:
        print(f"NOT IDENTICAL: {failures}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
