"""Self-consistency: how similar a model's answers to the same question are to each other.

Cases are grouped by ``(model, normalised question)`` (the engine keeps a group in one batch).
Each answer gets the mean ROUGE-1 and ROUGE-L F1 (:mod:`assay.evaluators.lexical_rouge`) against
the other answers of its group. ROUGE F1 is symmetric, so each pair is scored once.

Groups larger than ``max_group`` are compared against a reference sample of ``max_group`` answers,
stratified by answer length (the group sorted by length is cut into ``max_group`` equal strata and
one answer drawn from each) with a random generator seeded by ``seed`` and the group key, so the
result does not depend on the order of the cases. Every answer is then scored against the sampled
answers other than itself: cost O(n × max_group) instead of O(n²).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec
from assay.evaluators.lexical_rouge import rouge_from_tokens, rouge_tokens
from assay.evaluators.registry import register
from assay.params import check, check_int

_METRICS = ("consistency_rouge1", "consistency_rougeL")


def normalize_question(question: str | None) -> str:
    """Lower-cased question with whitespace collapsed (the grouping key).

    Example:
        >>> normalize_question("  What is  the FEE? ")
        'what is the fee?'
    """
    return " ".join((question or "").lower().split())


def stratified_sample(lengths: Sequence[int], size: int, seed: int, key: str) -> list[int]:
    """Indices of ``size`` items, one drawn from each of ``size`` length strata.

    Example:
        >>> sorted(stratified_sample([5, 1, 9, 3, 7, 2], 3, 0, "k")) == sorted(
        ...     stratified_sample([5, 1, 9, 3, 7, 2], 3, 0, "k"))
        True
    """
    if len(lengths) <= size:
        return list(range(len(lengths)))
    rng = np.random.default_rng([seed, zlib.crc32(key.encode("utf-8"))])
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    strata = np.array_split(np.array(order), size)
    return sorted(int(rng.choice(stratum)) for stratum in strata)


@register
class SelfConsistency(Evaluator):
    """Mean pairwise ROUGE-1 / ROUGE-L F1 of each answer against the model's other answers to the
    same question.

    Args:
        max_group: largest group compared exhaustively; larger groups use a stratified sample.
        seed: seed of the stratified sampling.
        use_stemmer: Porter-stem words, as in :class:`~assay.evaluators.lexical_rouge.Rouge`.
    """

    name = "self_consistency"
    family = "consistency"
    description = (
        "Mean pairwise ROUGE-1 and ROUGE-L F1 among a model's answers to the same question "
        "(large groups sampled, stratified by answer length, with a fixed seed)."
    )
    requires = ("question", "actual_answer")
    grouped = True
    metrics = (
        MetricSpec(
            "consistency_rouge1",
            "mean ROUGE-1 F1 against the model's other answers to the same question",
        ),
        MetricSpec(
            "consistency_rougeL",
            "mean ROUGE-L F1 against the model's other answers to the same question",
            primary=True,
        ),
    )

    def __init__(self, max_group: int = 20, seed: int = 0, use_stemmer: bool = False) -> None:
        check_int(max_group, "max_group", "SelfConsistency", minimum=2)
        check(
            isinstance(seed, int) and not isinstance(seed, bool),
            "seed",
            "SelfConsistency",
            "an integer",
            seed,
        )
        check(
            isinstance(use_stemmer, bool),
            "use_stemmer",
            "SelfConsistency",
            "a boolean",
            use_stemmer,
        )
        self.max_group = max_group
        self.seed = seed
        self.use_stemmer = use_stemmer

    def group_key(self, case: TestCase) -> tuple[str, str]:
        return (case.model or "", normalize_question(case.question))

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        groups: dict[tuple[str, str], list[int]] = {}
        for index, case in enumerate(cases):
            groups.setdefault(self.group_key(case), []).append(index)
        results: list[CaseResult | None] = [None] * len(cases)
        for key, members in groups.items():
            members.sort(key=lambda i: cases[i].id)  # canonical order: independent of the input's
            for index, result in zip(
                members, self._group([cases[i] for i in members], key), strict=True
            ):
                results[index] = result
        return [r for r in results if r is not None]

    def _group(self, cases: list[TestCase], key: tuple[str, str]) -> list[CaseResult]:
        if len(cases) < 2:
            return [
                CaseResult.skipped(
                    _METRICS, "no other answer by the same model to the same question"
                )
            ] * len(cases)
        tokens = [rouge_tokens(c.actual_answer or "", self.use_stemmer, cache=False) for c in cases]
        lengths = [len(c.actual_answer or "") for c in cases]
        sample = stratified_sample(lengths, self.max_group, self.seed, "\x1f".join(key))
        pair_cache: dict[tuple[int, int], tuple[float, float]] = {}
        out = []
        for i in range(len(cases)):
            r1: list[float] = []
            rl: list[float] = []
            for j in sample:
                if j == i:
                    continue
                pair = (min(i, j), max(i, j))
                if pair not in pair_cache:
                    scores = rouge_from_tokens(
                        tokens[pair[0]], tokens[pair[1]], ("rouge1", "rougeL")
                    )
                    pair_cache[pair] = (scores["rouge1"].fmeasure, scores["rougeL"].fmeasure)
                a, b = pair_cache[pair]
                r1.append(a)
                rl.append(b)
            mean1, meanl = sum(r1) / len(r1), sum(rl) / len(rl)
            out.append(
                CaseResult.ok(
                    {"consistency_rouge1": mean1, "consistency_rougeL": meanl},
                    f"mean ROUGE-L F1 {meanl:.3f} against {len(rl)} other answer(s) of the group "
                    f"of {len(cases)}",
                    {
                        "group_size": len(cases),
                        "compared_with": [cases[j].id for j in sample if j != i][:50],
                        "sampled": len(sample) < len(cases),
                    },
                )
            )
        return out
